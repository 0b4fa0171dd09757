"""The op table: one row per op, read by generic oracle tests (a small OpInfo).

Each row names an op, gives a lambda ``(t, *xs) -> out`` that runs on either library (``t`` is
``numtorch`` or ``torch``), the input domain, optional shapes and tolerances, and flags for ops
without (second-order) gradients. Generic tests run every row on :func:`standard_shapes` in
float32 and float64 against torch. Other families add their own lists (``REDUCTION``,
``SHAPE``) in their own files, reusing :class:`OpEntry`, :func:`standard_shapes` and
:func:`make_args`.
"""

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

FLOAT_DTYPES = ("float32", "float64")


class AwayFromZero(NamedTuple):
    """Domain of values with ``low <= |x| < high`` and a random sign (denominators, kinks)."""

    low: float = 0.5
    high: float = 2.0


NONZERO = AwayFromZero()
POSITIVE = (0.5, 2.0)


@dataclass(frozen=True)
class OpEntry:
    """One op of the table.

    Attributes:
        name: test id (unique within its list).
        fn: ``(t, *xs) -> out``; ``t`` is the library module, ``xs`` the input tensors.
        arity: number of tensor inputs.
        domain: ``(low, high)`` or :class:`AwayFromZero` for every input, or a tuple with one of
            those per input.
        shapes: shape sets to test (each a tuple of ``arity`` shapes); None means
            ``standard_shapes(arity)``.
        tol: per-dtype ``(rtol, atol)`` overrides, e.g. ``{"float32": (1e-3, 1e-4)}``.
        grad: compare gradients (False for ops torch does not differentiate).
        second_order: compare second-order gradients.
        dtypes: floating dtypes to test.
    """

    name: str
    fn: Callable
    arity: int = 1
    domain: Any = (-2.0, 2.0)
    shapes: Optional[tuple] = None
    tol: Optional[dict] = None
    grad: bool = True
    second_order: bool = True
    dtypes: tuple = FLOAT_DTYPES

    def domains(self):
        """One domain per input."""
        d = self.domain
        if isinstance(d, AwayFromZero) or not isinstance(d[0], (tuple, list)):
            return (d,) * self.arity
        assert len(d) == self.arity, f"{self.name}: {len(d)} domains for {self.arity} inputs"
        return tuple(d)

    def shape_sets(self):
        """The shape sets to test, as ``(id, shapes)`` pairs."""
        sets = self.shapes if self.shapes is not None else standard_shapes(self.arity)
        return [(shape_id(s), s) for s in sets]

    def tolerance(self, dtype):
        """``(rtol, atol)`` keyword arguments for ``check_op`` (empty: the oracle's default)."""
        if self.tol and dtype in self.tol:
            rtol, atol = self.tol[dtype]
            return {"rtol": rtol, "atol": atol}
        return {}


def standard_shapes(arity):
    """The design's standard shape sets for an op with ``arity`` tensor inputs.

    A scalar ``()``, a vector ``(5,)``, a matrix ``(3, 4)``, the broadcasting pair ``(3, 1)``
    with ``(1, 4)`` (inputs beyond two alternate between them; a unary op gets ``(3, 1)``), and
    the empty ``(0, 3)``. Each set is a tuple of ``arity`` shapes.
    """
    pair = [(3, 1), (1, 4)]
    return [
        ((),) * arity,
        ((5,),) * arity,
        ((3, 4),) * arity,
        tuple(pair[i % 2] for i in range(arity)),
        ((0, 3),) * arity,
    ]


def shape_id(shapes):
    """A short readable pytest id for a shape set: ``3x1-1x4``, ``scalar``, ``0x3``."""
    parts = ["x".join(map(str, s)) if s else "scalar" for s in shapes]
    return "-".join(parts) if len(set(parts)) > 1 else parts[0]


def make_args(domains, shapes, dtype, seed=0):
    """Seeded random arrays, one per shape, drawn from the matching domain."""
    rng = np.random.default_rng(seed)
    out = []
    for dom, shape in zip(domains, shapes):
        if isinstance(dom, AwayFromZero):
            mag = rng.uniform(dom.low, dom.high, shape)
            sign = np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)
            out.append(np.asarray(mag * sign, dtype=dtype))
        else:
            out.append(np.asarray(rng.uniform(dom[0], dom[1], shape), dtype=dtype))
    return out


def _unary(name, fn, **kw):
    return OpEntry(name, fn, 1, **kw)


def _binary(name, fn, **kw):
    return OpEntry(name, fn, 2, **kw)


def _ternary(name, fn, **kw):
    return OpEntry(name, fn, 3, **kw)


_TRIG_INV = (-0.9, 0.9)
_LOOSE32 = {"float32": (1e-3, 1e-4)}
# torch's clamp backward fails when tensor bounds broadcast the input to a larger shape
# ("output with shape [3, 1] doesn't match the broadcast shape [3, 4]"), so the input is full
_CLAMP_SHAPES = (((),) * 3, ((5,),) * 3, ((3, 4),) * 3, ((3, 4), (3, 1), (1, 4)),
                 ((0, 3),) * 3)

ELEMENTWISE = [
    # -- unary math ---------------------------------------------------------------------------
    _unary("neg", lambda t, x: t.neg(x)),
    _unary("neg_op", lambda t, x: -x),
    _unary("pos_op", lambda t, x: +x),
    _unary("positive", lambda t, x: t.positive(x)),
    # abs/sgn: torch's second derivative is a ZeroTensor, which the oracle cannot read; the
    # second order of these is compared by a dedicated test in test_elementwise.py
    _unary("abs", lambda t, x: t.abs(x), domain=NONZERO, second_order=False),
    _unary("abs_op", lambda t, x: abs(x), domain=NONZERO, second_order=False),
    _unary("reciprocal", lambda t, x: t.reciprocal(x), domain=NONZERO),
    _unary("sqrt", lambda t, x: t.sqrt(x), domain=(0.1, 2.0)),
    _unary("rsqrt", lambda t, x: t.rsqrt(x), domain=(0.1, 2.0), tol=_LOOSE32),
    _unary("square", lambda t, x: t.square(x)),
    _unary("exp", lambda t, x: t.exp(x)),
    _unary("exp2", lambda t, x: t.exp2(x)),
    _unary("expm1", lambda t, x: t.expm1(x)),
    _unary("log", lambda t, x: t.log(x), domain=(0.1, 2.0)),
    _unary("log1p", lambda t, x: t.log1p(x), domain=(-0.8, 2.0)),
    _unary("log2", lambda t, x: t.log2(x), domain=(0.1, 2.0)),
    _unary("log10", lambda t, x: t.log10(x), domain=(0.1, 2.0)),
    _unary("sin", lambda t, x: t.sin(x)),
    _unary("cos", lambda t, x: t.cos(x)),
    _unary("tan", lambda t, x: t.tan(x), domain=(-1.2, 1.2), tol=_LOOSE32),
    _unary("asin", lambda t, x: t.asin(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("acos", lambda t, x: t.acos(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("atan", lambda t, x: t.atan(x)),
    _unary("sinh", lambda t, x: t.sinh(x)),
    _unary("cosh", lambda t, x: t.cosh(x)),
    _unary("tanh", lambda t, x: t.tanh(x)),
    _unary("asinh", lambda t, x: t.asinh(x)),
    _unary("acosh", lambda t, x: t.acosh(x), domain=(1.2, 3.0), tol=_LOOSE32),
    _unary("atanh", lambda t, x: t.atanh(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("sigmoid", lambda t, x: t.sigmoid(x), domain=(-6.0, 6.0)),
    _unary("relu", lambda t, x: t.relu(x), domain=NONZERO),
    _unary("erf", lambda t, x: t.erf(x)),
    _unary("sign", lambda t, x: t.sign(x), domain=NONZERO),
    _unary("floor", lambda t, x: t.floor(x)),
    _unary("ceil", lambda t, x: t.ceil(x)),
    _unary("trunc", lambda t, x: t.trunc(x)),
    _unary("frac", lambda t, x: t.frac(x)),
    _unary("round", lambda t, x: t.round(x)),
    _unary("round_decimals1", lambda t, x: t.round(x, decimals=1)),
    _unary("round_decimals3", lambda t, x: t.round(x, decimals=3)),
    _unary("round_decimals_neg1", lambda t, x: t.round(x, decimals=-1), domain=(-40.0, 40.0)),
    # -- aliases and method forms ---------------------------------------------------------
    _unary("negative", lambda t, x: t.negative(x)),
    _unary("absolute", lambda t, x: t.absolute(x), domain=NONZERO, second_order=False),
    _unary("arcsin", lambda t, x: t.arcsin(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("arccos", lambda t, x: t.arccos(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("arctan", lambda t, x: t.arctan(x)),
    _unary("arcsinh", lambda t, x: t.arcsinh(x)),
    _unary("arccosh", lambda t, x: t.arccosh(x), domain=(1.2, 3.0), tol=_LOOSE32),
    _unary("arctanh", lambda t, x: t.arctanh(x), domain=_TRIG_INV, tol=_LOOSE32),
    _unary("fix", lambda t, x: t.fix(x)),
    _unary("sgn_method", lambda t, x: x.sgn(), domain=NONZERO, grad=False),
    _unary("exp_method", lambda t, x: x.exp()),
    _unary("tanh_method", lambda t, x: x.tanh()),
    _unary("sigmoid_method", lambda t, x: x.sigmoid()),
    _unary("log_method", lambda t, x: x.log(), domain=POSITIVE),
    # -- clamp with number bounds (inputs kept away from the bounds) -----------------------
    _unary("clamp", lambda t, x: t.clamp(x, -0.55, 0.65)),
    _unary("clamp_min", lambda t, x: t.clamp(x, min=-0.55)),
    _unary("clamp_max", lambda t, x: t.clamp(x, max=0.65)),
    _unary("clamp_int_bounds", lambda t, x: t.clamp(x, -1, 1)),
    _unary("clamp_min_gt_max", lambda t, x: t.clamp(x, 0.5, -0.5)),
    _unary("clip", lambda t, x: t.clip(x, -0.55, 0.65)),
    _unary("clamp_min_method", lambda t, x: x.clamp_min(0.25)),
    _unary("clamp_max_method", lambda t, x: x.clamp_max(0.25)),
    # -- pow with a number exponent, and a number base ----------------------------------
    _unary("pow_2", lambda t, x: t.pow(x, 2)),
    _unary("pow_3", lambda t, x: x ** 3),
    _unary("pow_1", lambda t, x: x ** 1),
    _unary("pow_0", lambda t, x: t.pow(x, 0)),
    _unary("pow_0_float", lambda t, x: x ** 0.0),
    _unary("pow_half", lambda t, x: x ** 0.5, domain=POSITIVE),
    _unary("pow_2_5", lambda t, x: x ** 2.5, domain=POSITIVE),
    _unary("pow_neg1", lambda t, x: x ** -1, domain=NONZERO),
    _unary("pow_neg2", lambda t, x: t.pow(x, -2), domain=NONZERO),
    _unary("pow_neg_half", lambda t, x: x ** -0.5, domain=POSITIVE),
    _unary("rpow_2", lambda t, x: 2 ** x),
    _unary("rpow_float", lambda t, x: 0.5 ** x),
    _unary("pow_number_base", lambda t, x: t.pow(3.0, x)),
    # -- binary arithmetic with a Python number on either side --------------------------
    _unary("add_scalar", lambda t, x: x + 2),
    _unary("radd_scalar", lambda t, x: 2.5 + x),
    _unary("add_scalar_alpha", lambda t, x: t.add(x, 2, alpha=3)),
    _unary("sub_scalar", lambda t, x: x - 1.5),
    _unary("rsub_scalar", lambda t, x: 1.5 - x),
    _unary("rsub_fn_scalar", lambda t, x: t.rsub(x, 2.0)),
    _unary("mul_scalar", lambda t, x: x * 3),
    _unary("rmul_scalar", lambda t, x: -0.5 * x),
    _unary("div_scalar", lambda t, x: x / 4),
    _unary("rdiv_scalar", lambda t, x: 2 / x, domain=NONZERO),
    _unary("floordiv_scalar", lambda t, x: x // 0.7, grad=False),
    _unary("rfloordiv_scalar", lambda t, x: 3 // x, domain=NONZERO, grad=False),
    _unary("mod_scalar", lambda t, x: x % 0.7),
    _unary("mod_neg_scalar", lambda t, x: x % -0.7),
    _unary("rmod_scalar", lambda t, x: 3 % x, domain=NONZERO, grad=False),
    _unary("fmod_scalar", lambda t, x: t.fmod(x, 0.7)),
    _unary("fmod_neg_scalar", lambda t, x: t.fmod(x, -0.7)),
    _unary("remainder_scalar", lambda t, x: t.remainder(x, 1.3)),
    _unary("div_floor_scalar", lambda t, x: t.div(x, 0.7, rounding_mode="floor")),
    _unary("div_trunc_scalar", lambda t, x: t.div(x, 0.7, rounding_mode="trunc")),
    _unary("maximum_0d_int", lambda t, x: t.maximum(x, t.tensor(0)), domain=NONZERO),
    _unary("atan2_scalar_tensor", lambda t, x: t.atan2(x, t.tensor(0.5))),
    _unary("lerp_scalar_weight_0d", lambda t, x: t.lerp(x, t.ones((), dtype=x.dtype), 0.3)),
    # -- binary arithmetic between tensors -------------------------------------------------
    _binary("add", lambda t, x, y: t.add(x, y)),
    _binary("add_op", lambda t, x, y: x + y),
    _binary("add_alpha", lambda t, x, y: t.add(x, y, alpha=-2)),
    _binary("add_method_alpha", lambda t, x, y: x.add(y, alpha=0.5)),
    _binary("sub", lambda t, x, y: t.sub(x, y)),
    _binary("sub_op", lambda t, x, y: x - y),
    _binary("sub_alpha", lambda t, x, y: t.sub(x, y, alpha=3)),
    _binary("subtract", lambda t, x, y: t.subtract(x, y)),
    _binary("rsub", lambda t, x, y: t.rsub(x, y)),
    _binary("rsub_alpha", lambda t, x, y: t.rsub(x, y, alpha=2)),
    _binary("mul", lambda t, x, y: t.mul(x, y)),
    _binary("mul_op", lambda t, x, y: x * y),
    _binary("multiply", lambda t, x, y: t.multiply(x, y)),
    _binary("mul_self", lambda t, x, y: x * x + y),
    _binary("div", lambda t, x, y: t.div(x, y), domain=((-2.0, 2.0), NONZERO)),
    _binary("div_op", lambda t, x, y: x / y, domain=((-2.0, 2.0), NONZERO)),
    _binary("divide", lambda t, x, y: t.divide(x, y), domain=((-2.0, 2.0), NONZERO)),
    _binary("true_divide", lambda t, x, y: t.true_divide(x, y), domain=((-2.0, 2.0), NONZERO)),
    _binary("div_floor", lambda t, x, y: t.div(x, y, rounding_mode="floor"),
            domain=((-2.0, 2.0), NONZERO)),
    _binary("div_trunc", lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
            domain=((-2.0, 2.0), NONZERO)),
    _binary("floor_divide", lambda t, x, y: t.floor_divide(x, y), grad=False,
            domain=((-2.0, 2.0), NONZERO)),
    _binary("floordiv_op", lambda t, x, y: x // y, grad=False, domain=((-2.0, 2.0), NONZERO)),
    _binary("remainder", lambda t, x, y: t.remainder(x, y), domain=((-2.0, 2.0), NONZERO)),
    _binary("mod_op", lambda t, x, y: x % y, domain=((-2.0, 2.0), NONZERO)),
    _binary("fmod", lambda t, x, y: t.fmod(x, y), domain=((-2.0, 2.0), NONZERO)),
    _binary("pow", lambda t, x, y: t.pow(x, y), domain=(POSITIVE, (-2.0, 2.0))),
    _binary("pow_op", lambda t, x, y: x ** y, domain=(POSITIVE, (-2.0, 2.0))),
    _binary("atan2", lambda t, x, y: t.atan2(x, y), domain=(NONZERO, NONZERO)),
    _binary("arctan2", lambda t, x, y: t.arctan2(x, y), domain=(NONZERO, NONZERO)),
    _binary("maximum", lambda t, x, y: t.maximum(x, y)),
    _binary("minimum", lambda t, x, y: t.minimum(x, y)),
    _binary("maximum_method", lambda t, x, y: x.maximum(y)),
    _binary("lerp_number_weight", lambda t, x, y: t.lerp(x, y, 0.3)),
    _binary("lerp_method", lambda t, x, y: x.lerp(y, 0.75)),
    _binary("clamp_tensor_min", lambda t, x, lo: t.clamp(x, min=lo)),
    _binary("clamp_tensor_max", lambda t, x, hi: t.clamp(x, max=hi)),
    _binary("clamp_min_fn_tensor", lambda t, x, lo: t.clamp_min(x, lo)),
    _binary("clamp_max_fn_tensor", lambda t, x, hi: t.clamp_max(x, hi)),
    _binary("where_scalar_other", lambda t, x, y: t.where(x > 0, y, 0.5)),
    _binary("where_method", lambda t, x, y: x.where(y > 0, y)),
    # -- three inputs ------------------------------------------------------------------------
    _ternary("where", lambda t, c, x, y: t.where(c > 0, x, y)),
    _ternary("lerp_tensor_weight", lambda t, x, y, w: t.lerp(x, y, w)),
    _ternary("addcmul", lambda t, x, a, b: t.addcmul(x, a, b)),
    _ternary("addcmul_value", lambda t, x, a, b: t.addcmul(x, a, b, value=-0.5)),
    _ternary("addcdiv", lambda t, x, a, b: t.addcdiv(x, a, b),
             domain=((-2.0, 2.0), (-2.0, 2.0), NONZERO)),
    _ternary("addcdiv_value", lambda t, x, a, b: x.addcdiv(a, b, value=2),
             domain=((-2.0, 2.0), (-2.0, 2.0), NONZERO)),
    _ternary("clamp_tensor_bounds", lambda t, x, lo, hi: t.clamp(x, lo, hi),
             domain=((-2.0, 2.0), (-1.5, -0.1), (0.1, 1.5)), shapes=_CLAMP_SHAPES),
    _ternary("clamp_tensor_crossed", lambda t, x, lo, hi: t.clamp(x, lo, hi),
             domain=((-2.0, 2.0), (0.1, 1.5), (-1.5, -0.1)), shapes=_CLAMP_SHAPES),
]

# The newer pointwise functions (ops/special.py, floating.py, comparison.py), run by
# tests/ops/test_special.py. Inputs stay away from poles (the gamma family at 0 and below) and
# from the points where torch picks a one-sided derivative (those have their own tests).
_GAMMA = (0.3, 3.0)
_SPECIAL_32 = {"float32": (2e-3, 2e-4)}
_INTEGRATE = (((5,),), ((3, 4),), ((2, 3, 4),))

SPECIAL = [
    # -- special functions --------------------------------------------------------------------
    _unary("erfc", lambda t, x: t.erfc(x)),
    _unary("erfinv", lambda t, x: t.erfinv(x), domain=_TRIG_INV, tol=_SPECIAL_32),
    _unary("lgamma", lambda t, x: t.lgamma(x), domain=_GAMMA, tol=_SPECIAL_32),
    _unary("lgamma_negative", lambda t, x: t.lgamma(x), domain=(-2.9, -2.1), tol=_SPECIAL_32),
    _unary("digamma", lambda t, x: t.digamma(x), domain=_GAMMA, tol=_SPECIAL_32),
    _unary("polygamma_0", lambda t, x: t.polygamma(0, x), domain=_GAMMA, tol=_SPECIAL_32),
    _unary("polygamma_1", lambda t, x: t.polygamma(1, x), domain=_GAMMA, tol=_SPECIAL_32),
    _unary("polygamma_3", lambda t, x: t.polygamma(3, x), domain=(0.5, 3.0), tol=_SPECIAL_32),
    _unary("polygamma_method", lambda t, x: x.polygamma(2), domain=_GAMMA, tol=_SPECIAL_32),
    _unary("mvlgamma_1", lambda t, x: t.mvlgamma(x, 1), domain=(1.5, 4.0), tol=_SPECIAL_32),
    _unary("mvlgamma_3", lambda t, x: t.mvlgamma(x, 3), domain=(1.5, 4.0), tol=_SPECIAL_32),
    _unary("mvlgamma_method", lambda t, x: x.mvlgamma(p=2), domain=(1.5, 4.0),
           tol=_SPECIAL_32),
    _unary("i0", lambda t, x: t.i0(x), tol=_SPECIAL_32),
    _unary("sinc", lambda t, x: t.sinc(x), domain=NONZERO, tol=_SPECIAL_32),
    _unary("logit", lambda t, x: t.logit(x), domain=(0.05, 0.95), tol=_SPECIAL_32),
    _unary("logit_eps", lambda t, x: t.logit(x, eps=0.2), domain=(0.02, 0.98),
           tol=_SPECIAL_32),
    _unary("logit_method_eps", lambda t, x: x.logit(1e-3), domain=(0.05, 0.95),
           tol=_SPECIAL_32),
    _binary("xlogy", lambda t, x, y: t.xlogy(x, y), domain=((-2.0, 2.0), POSITIVE)),
    _unary("xlogy_number_other", lambda t, x: t.xlogy(x, 3.0)),
    _unary("xlogy_number_input", lambda t, x: t.xlogy(2, x), domain=POSITIVE),
    _binary("xlogy_method", lambda t, x, y: x.xlogy(y), domain=((-2.0, 2.0), POSITIVE)),
    # -- float helpers on two operands --------------------------------------------------------
    _binary("hypot", lambda t, x, y: t.hypot(x, y), domain=(NONZERO, NONZERO)),
    _binary("logaddexp", lambda t, x, y: t.logaddexp(x, y)),
    _binary("logaddexp2", lambda t, x, y: t.logaddexp2(x, y)),
    _binary("logaddexp_method", lambda t, x, y: x.logaddexp(y * 3)),
    _binary("float_power", lambda t, x, y: t.float_power(x, y), domain=(POSITIVE, (-2.0, 2.0))),
    _unary("float_power_number", lambda t, x: t.float_power(x, 3)),
    _unary("float_power_number_base", lambda t, x: t.float_power(2.5, x)),
    _binary("copysign", lambda t, x, y: t.copysign(x, y), domain=(NONZERO, NONZERO)),
    _unary("copysign_number", lambda t, x: t.copysign(x, -1.5), domain=NONZERO),
    _binary("fmax", lambda t, x, y: t.fmax(x, y)),
    _binary("fmin", lambda t, x, y: t.fmin(x, y)),
    _binary("fmax_method", lambda t, x, y: x.fmax(y)),
    _binary("nextafter", lambda t, x, y: t.nextafter(x, y), second_order=False),
    _binary("ldexp", lambda t, x, y: t.ldexp(x, y)),
    _unary("ldexp_int_exponent", lambda t, x: t.ldexp(x, (x * 0 + 3).long())),
    # not on a 0-d input: torch's ldexp writes into a 0-d out= there and warns about resizing
    _unary("ldexp_int_exponent_1d", lambda t, x: t.ldexp(x, t.tensor([2])),
           shapes=(((5,),), ((3, 4),), ((0, 3),))),
    # -- float helpers on one operand ---------------------------------------------------------
    _unary("nan_to_num", lambda t, x: t.nan_to_num(x), second_order=False),
    _unary("nan_to_num_method", lambda t, x: x.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0),
           second_order=False),
    _unary("deg2rad", lambda t, x: t.deg2rad(x * 90)),
    _unary("rad2deg", lambda t, x: t.rad2deg(x)),
    _unary("frexp", lambda t, x: t.frexp(x), domain=NONZERO),
    _unary("frexp_method", lambda t, x: x.frexp().mantissa * 3),
    _unary("angle", lambda t, x: t.angle(x), domain=NONZERO),
    _unary("real_of_real", lambda t, x: t.real(x) * x.real),
    _unary("conj_of_real", lambda t, x: t.conj(x) + x.conj_physical()),
    # -- integration --------------------------------------------------------------------------
    _unary("trapezoid", lambda t, x: t.trapezoid(x), shapes=_INTEGRATE),
    _unary("trapz_dx_dim0", lambda t, x: t.trapz(x, dx=0.5, dim=0), shapes=_INTEGRATE),
    _binary("trapezoid_x", lambda t, y, x: t.trapezoid(y, x),
            shapes=(((5,), (5,)), ((3, 4), (3, 4)), ((3, 4), (4,)))),
    _binary("trapz_x_dim0", lambda t, y, x: t.trapz(y, x, dim=0),
            shapes=(((5,), (5,)), ((3, 4), (3, 4)), ((3, 4), (3,)))),
]
