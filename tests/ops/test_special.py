"""Special functions, float helpers, shifts, gcd/lcm and complex numbers against torch.

The differentiable functions run through the ``SPECIAL`` op table (values, gradients and second
derivatives in every standard shape); the tests below cover integer inputs, special values,
torch's one-sided derivatives, complex autograd, views, and the errors torch raises.
"""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _numpy as np_backend
from tests.oracle import check_op, check_raises
from tests.ops.op_table import SPECIAL, make_args


def _named(rows):
    return [pytest.param(*row, id=row[0]) for row in rows]


_CASES = [pytest.param(e, shapes, dtype, id=f"{e.name}-{sid}-{dtype}")
          for e in SPECIAL for sid, shapes in e.shape_sets() for dtype in e.dtypes]


@pytest.mark.parametrize("entry,shapes,dtype", _CASES)
def test_special_table_matches_torch(entry, shapes, dtype):
    """Forward, backward and double backward of every table row, in every shape."""
    args = make_args(entry.domains(), shapes, dtype)
    check_op(entry.fn, args, dtype=dtype, grad=entry.grad, second_order=entry.second_order,
             non_contiguous=shapes[0] == (3, 4), **entry.tolerance(dtype))


def test_special_table_rows_are_well_formed():
    names = [e.name for e in SPECIAL]
    assert len(names) == len(set(names)), "duplicate op table names"
    for e in SPECIAL:
        for _, shapes in e.shape_sets():
            assert len(shapes) == e.arity == len(e.domains()), e.name


# ---------------------------------------------------------------------------------------------
# integer, bool and float16 inputs: torch's result dtypes

_UNARY_PROMOTING = [
    ("erfc", lambda t, x: t.erfc(x)),
    ("erfinv", lambda t, x: t.erfinv(x)),
    ("lgamma", lambda t, x: t.lgamma(x)),
    ("digamma", lambda t, x: t.digamma(x)),
    ("polygamma", lambda t, x: t.polygamma(2, x)),
    ("i0", lambda t, x: t.i0(x)),
    ("sinc", lambda t, x: t.sinc(x)),
    ("logit", lambda t, x: t.logit(x)),
    ("logit_eps", lambda t, x: t.logit(x, 0.25)),
    ("xlogy", lambda t, x: t.xlogy(x, x)),
    ("xlogy_number", lambda t, x: t.xlogy(x, 2)),
    ("deg2rad", lambda t, x: t.deg2rad(x)),
    ("rad2deg", lambda t, x: t.rad2deg(x)),
    ("nan_to_num", lambda t, x: t.nan_to_num(x)),
    ("float_power", lambda t, x: t.float_power(x, 2)),
    ("float_power_tensors", lambda t, x: t.float_power(x, x)),
    ("copysign", lambda t, x: t.copysign(x, -1)),
    ("copysign_tensor", lambda t, x: t.copysign(x, x.long() - 2)),
    ("fmax", lambda t, x: t.fmax(x, x.flip(0))),
    ("fmin", lambda t, x: t.fmin(x, x.flip(0))),
    ("signbit", lambda t, x: t.signbit(x)),
    ("ldexp", lambda t, x: t.ldexp(x, x)),
    ("angle", lambda t, x: t.angle(x)),
    ("heaviside", lambda t, x: t.heaviside(x, x.flip(0))),
    ("isposinf", lambda t, x: (t.isposinf(x), t.isneginf(x), t.isreal(x))),
    ("trapezoid", lambda t, x: (t.trapezoid(x), t.trapz(x.reshape(2, 3), dx=2, dim=0))),
    ("trapz_x", lambda t, x: t.trapz(x, x.flip(0))),
    ("trapezoid_empty", lambda t, x: (t.trapezoid(x[:0]), t.trapezoid(x.reshape(6, 1)))),
]


# bool inputs of these are covered below: torch rejects ``x.flip``-style arithmetic on them
_INT_ONLY = ("fmax", "fmin", "trapezoid", "trapz_x", "trapezoid_empty", "heaviside")


@pytest.mark.parametrize("name,fn,dtype", [
    pytest.param(name, fn, dtype, id=f"{name}-{dtype}") for name, fn in _UNARY_PROMOTING
    for dtype in ("int64", "int32", "uint8", "bool") if dtype != "bool" or name not in _INT_ONLY
])
def test_integer_and_bool_inputs_match_torch(name, fn, dtype):
    a = np.array([0, 1, 2, 3, 5, 1]).astype(dtype)
    check_op(fn, [a], dtype="float32", grad=False)  # float results: the default dtype


@pytest.mark.parametrize("name,fn", _named([
    ("mvlgamma_int", lambda t, x: t.mvlgamma(x + 3, 2)),
    ("fmax_bool", lambda t, x: t.fmax(x > 1, x < 3)),
    ("heaviside_bool", lambda t, x: t.heaviside(x > 1, x < 3)),
    ("gcd_int8_int64", lambda t, x: t.gcd(x.to(t.int8), x * 3)),
    ("lcm_uint8", lambda t, x: t.lcm(x.to(t.uint8), x.to(t.uint8) + 1)),
    ("shift_bool_int", lambda t, x: (t.bitwise_left_shift(x > 1, 1), (x > 1) >> 1)),
    ("shift_int_bool", lambda t, x: t.bitwise_left_shift(x, True)),
    ("shift_number_first", lambda t, x: (t.bitwise_left_shift(3, x), 100 >> x)),
]))
def test_integer_only_forms_match_torch(name, fn):
    check_op(fn, [np.array([0, 1, 2, 3, 5, 1])], dtype="float32", grad=False)


@pytest.mark.parametrize("name,fn", _named([
    ("erfc", lambda t, x: t.erfc(x)), ("lgamma", lambda t, x: t.lgamma(x + 1)),
    ("digamma", lambda t, x: t.digamma(x + 1)), ("i0", lambda t, x: t.i0(x)),
    ("logit", lambda t, x: t.logit(x.sigmoid())), ("sinc", lambda t, x: t.sinc(x)),
    ("hypot", lambda t, x: t.hypot(x, x * 2)), ("logaddexp", lambda t, x: t.logaddexp(x, x)),
    ("nan_to_num", lambda t, x: t.nan_to_num(x / 0)),
    ("frexp", lambda t, x: t.frexp(x)), ("nextafter", lambda t, x: t.nextafter(x, x * 0)),
    ("copysign", lambda t, x: t.copysign(x, -x)), ("deg2rad", lambda t, x: t.deg2rad(x)),
    ("float_power", lambda t, x: t.float_power(x, 2)),
]))
def test_float16_inputs_match_torch(name, fn):
    check_op(fn, [np.array([0.5, -1.25, 2.0, 0.125], dtype="float16")], dtype="float16",
             grad=False)


# ---------------------------------------------------------------------------------------------
# special values and torch's choices at poles, edges and ties

_NAN, _INF = float("nan"), float("inf")


@pytest.mark.parametrize("name,fn,values", _named([
    ("digamma_poles", lambda t, x: t.digamma(x), [0.0, -0.0, -1.0, -2.0, -2.5, _INF, _NAN]),
    ("lgamma_poles", lambda t, x: t.lgamma(x), [0.0, -0.0, -1.0, -2.5, 1.0, 2.0, _INF, -_INF]),
    ("polygamma_at_0", lambda t, x: (t.polygamma(1, x), t.polygamma(2, x)), [0.0, 1.0, _INF]),
    ("erfinv_edges", lambda t, x: t.erfinv(x), [-1.0, 1.0, 1.5, -2.0, 0.0, _NAN]),
    ("erfc_tails", lambda t, x: t.erfc(x), [-30.0, -5.0, 5.0, 26.0, 30.0, _INF, -_INF, _NAN]),
    ("i0_tails", lambda t, x: t.i0(x), [-50.0, 0.0, 50.0, _NAN]),
    ("sinc_zero", lambda t, x: t.sinc(x), [0.0, -0.0, 1.0, -3.0, _INF, _NAN]),
    ("logit_edges", lambda t, x: t.logit(x), [0.0, 1.0, -0.5, 1.5, 0.5]),
    ("logit_eps_above_half", lambda t, x: t.logit(x, eps=0.7), [0.0, 0.5, 1.0, 0.7]),
    ("logit_eps_negative", lambda t, x: t.logit(x, eps=-0.25), [0.0, 0.5, 1.0]),
    ("logit_eps_int", lambda t, x: t.logit(x, eps=1), [0.0, 0.5, 1.0]),
    ("xlogy_zeros", lambda t, x: (t.xlogy(x, x), t.xlogy(x * 0, x), t.xlogy(x * 0, x * _NAN)),
     [0.0, 1.0, 2.0, _INF, -1.0]),
    ("bessel_at_inf", lambda t, x: (t.i0(x), t.special.i0e(x), t.special.i1(x),
                                    t.special.i1e(x), t.special.modified_bessel_i0(x),
                                    t.special.modified_bessel_i1(x)), [_INF, -_INF, 1.0, 0.0]),
    ("nan_to_num_defaults", lambda t, x: t.nan_to_num(x), [_NAN, _INF, -_INF, 1.5]),
    ("nan_to_num_values", lambda t, x: t.nan_to_num(x, 1.0, 2.0, -3.0), [_NAN, _INF, -_INF]),
    ("nan_to_num_huge", lambda t, x: t.nan_to_num(x.float(), posinf=1e300), [_INF, -_INF]),
    ("copysign_zeros", lambda t, x: (t.copysign(x, -0.0), t.copysign(x, x * -1)),
     [0.0, -0.0, 1.0, _NAN, _INF]),
    ("signbit", lambda t, x: t.signbit(x), [-0.0, 0.0, -1.0, _NAN, -_NAN, -_INF]),
    ("frexp_specials", lambda t, x: t.frexp(x), [0.0, -0.0, _INF, -_INF, _NAN, 1e-310]),
    ("heaviside_nan", lambda t, x: t.heaviside(x, t.full_like(x, 0.5)), [_NAN, -0.0, 0.0, -2.0]),
    ("fmax_nan", lambda t, x: (t.fmax(x, x.flip(0)), t.fmin(x, x.flip(0))),
     [_NAN, 1.0, _NAN, -1.0, 2.0]),
    ("hypot_inf", lambda t, x: t.hypot(x, x.flip(0)), [_INF, _NAN, 0.0, 3.0]),
    ("logaddexp_inf", lambda t, x: (t.logaddexp(x, x), t.logaddexp2(x, x.flip(0))),
     [_INF, -_INF, 1000.0, -1000.0]),
    ("nextafter_equal", lambda t, x: t.nextafter(x, x), [0.0, 1.0, _NAN]),
    ("angle_real", lambda t, x: t.angle(x), [-1.0, 0.0, -0.0, 2.0, _NAN, -_INF]),
    ("deg2rad_inf", lambda t, x: (t.deg2rad(x), t.rad2deg(x)), [_INF, _NAN, -0.0]),
]))
def test_special_values_match_torch(name, fn, values):
    check_op(fn, [np.array(values)], grad=False)


_ONE_SIDED = [
    ("fmax_ties", lambda t, x, y: t.fmax(x, y)),
    ("fmin_ties", lambda t, x, y: t.fmin(x, y)),
    ("fmax_nan", lambda t, x, y: t.fmax(x * y / y, y)),
    ("nextafter_ties", lambda t, x, y: t.nextafter(x, y)),
    ("copysign_at_zero", lambda t, x, y: t.copysign(x * 0, y)),
    ("copysign_nan", lambda t, x, y: t.copysign(x / 0 * 0, y)),
    ("nan_to_num_nonfinite", lambda t, x, y: t.nan_to_num(x / y)),
    ("frexp_powers_of_two", lambda t, x, y: t.frexp(x * 0 + 4.0).mantissa),
    ("sinc_at_zero", lambda t, x, y: t.sinc(x * 0)),
    ("logit_eps_bounds", lambda t, x, y: t.logit(x.abs() / 4, eps=0.25)),
    ("xlogy_zero_input", lambda t, x, y: t.xlogy(x * 0, y.abs())),
    ("angle_real", lambda t, x, y: t.angle(x)),
    ("logaddexp_equal", lambda t, x, y: t.logaddexp(x, x)),
    ("hypot_zero", lambda t, x, y: t.hypot(x, y * 0)),
]


@pytest.mark.parametrize("name,fn", _named(_ONE_SIDED))
def test_one_sided_derivatives_match_torch(name, fn):
    a = np.array([1.0, -1.0, 0.0, 2.0, -0.5])
    b = np.array([1.0, 2.0, 0.0, 2.0, 0.25])
    check_op(fn, [a, b], second_order=False)


# ---------------------------------------------------------------------------------------------
# shifts and gcd/lcm

_INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_shifts_match_torch_for_every_amount(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, -8, -1, 0, 1, 5, 100, info.max]).astype(dtype)
    if dtype == "uint8":
        a = np.array([0, 1, 5, 100, 128, 200, 254, 255], dtype=dtype)
    s = np.arange(-2, 2 + 8 * np.dtype(dtype).itemsize + 2)
    if dtype == "uint8":
        s = s[s >= 0]
    aa, ss = np.broadcast_arrays(a[:, None], s[None, :].astype(dtype))
    check_op(lambda t, x, y: (t.bitwise_left_shift(x, y), t.bitwise_right_shift(x, y),
                              x << y, x >> y, x << 3, x >> 70),
             [np.ascontiguousarray(aa), np.ascontiguousarray(ss)], grad=False)


def test_shift_operators_and_inplace_match_torch():
    a = np.array([[3, -12, 7]])
    b = np.array([[1], [2]])

    def fn(t, x, y):
        z = x.clone()
        z <<= 2
        w = x.clone()
        w >>= y[0]
        v = x.clone().bitwise_left_shift_(1).bitwise_right_shift_(2)
        return x << y, x >> y, 1 << x.abs(), 64 >> x.abs(), z, w, v, x.bitwise_left_shift(y)

    check_op(fn, [a, b], grad=False)


@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_gcd_lcm_match_torch(dtype):
    rng = np.random.default_rng(0)
    low = 0 if dtype == "uint8" else -30
    a = rng.integers(low, 30, (4, 6)).astype(dtype)
    b = rng.integers(low, 30, (1, 6)).astype(dtype)
    a[0, :2] = 0
    b[0, 1] = 0
    check_op(lambda t, x, y: (t.gcd(x, y), t.lcm(x, y), x.gcd(y), y.lcm(x),
                              x.clone().gcd_(y), x.clone().lcm_(y)), [a, b], grad=False)


def test_gcd_lcm_extremes_match_torch():
    a = np.array([-2 ** 63, -4, 2 ** 40, -3, 0])
    b = np.array([0, -6, 3 ** 25, -5, 0])
    check_op(lambda t, x, y: (t.gcd(x, y), t.lcm(x, y)), [a, b], grad=False)


# ---------------------------------------------------------------------------------------------
# complex numbers: values, views, and autograd in torch's convention

_Z = (np.array([[1 + 2j, -0.5 - 0.25j, 3 - 1j], [0.75j, -2 + 0.5j, 1.5 + 0j]]),
      np.array([[0.5 - 1j, 2 + 0.5j, -1 + 1.5j]]))


def _complex(dtype):
    return [z.astype(dtype) for z in _Z]


_COMPLEX_VALUES = [
    ("real_imag", lambda t, z, w: (t.real(z), t.imag(z), z.real, w.imag)),
    ("conj", lambda t, z, w: (t.conj(z), z.conj(), t.conj_physical(w), z.conj_physical())),
    ("angle_abs", lambda t, z, w: (t.angle(z), z.angle(), t.abs(z), z.abs())),
    ("resolve", lambda t, z, w: (t.resolve_conj(z), z.resolve_neg(), t.is_conj(z),
                                 z.is_neg(), t.is_neg(w))),
    ("view_as_real", lambda t, z, w: (t.view_as_real(z), t.view_as_real(w[0, 1]))),
    ("roundtrip", lambda t, z, w: t.view_as_complex(t.view_as_real(z))),
    ("complex_polar", lambda t, z, w: (t.complex(z.real, w.imag), t.polar(z.abs(), w.angle()))),
    ("adjoints", lambda t, z, w: (z.H, z.mH, z.adjoint(), z.unsqueeze(0).mH)),
    ("isreal", lambda t, z, w: (t.isreal(z), t.isreal(z.real + 0j), z.isreal())),
    ("logaddexp", lambda t, z, w: (t.logaddexp(z, w), t.logaddexp(z * 400, w * 400))),
    ("sinc", lambda t, z, w: t.sinc(z)),
    ("nan_to_num", lambda t, z, w: t.nan_to_num(z / 0)),
    ("divide_by_zero_and_inf", lambda t, z, w: (t.reciprocal(z * 0), z / (w * 0),
                                                z / t.full_like(w, float("inf")))),
    ("float_power", lambda t, z, w: (t.float_power(z, 2), t.float_power(z.real, 1j))),
    ("ldexp", lambda t, z, w: t.ldexp(z, t.tensor([1, 2, -1]))),
    ("sgn", lambda t, z, w: (t.sgn(z), t.sgn(z * 0))),
]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name,fn", _named(_COMPLEX_VALUES))
def test_complex_values_match_torch(name, fn, dtype):
    check_op(fn, _complex(dtype), dtype="float32" if dtype == "complex64" else "float64",
             grad=False)


_COMPLEX_GRADS = [
    ("real", lambda t, z, w: t.real(z) * 2 + t.real(w)),
    ("imag", lambda t, z, w: t.imag(z) * t.imag(z)),
    ("property_parts", lambda t, z, w: z.real * w.imag),
    ("view_as_real", lambda t, z, w: t.view_as_real(z) ** 2),
    ("view_as_real_of_conj", lambda t, z, w: t.view_as_real(t.conj(z)) * 3),
    ("view_as_complex", lambda t, z, w: t.view_as_real(t.view_as_complex(t.view_as_real(z)))),
    ("abs", lambda t, z, w: t.abs(z) ** 2 + t.abs(w)),
    ("angle", lambda t, z, w: t.angle(z) * t.angle(w)),
    ("sgn", lambda t, z, w: t.view_as_real(t.sgn(z)) * 2),
    ("polar_of_parts", lambda t, z, w: t.view_as_real(t.polar(z.abs(), w.angle()))),
    ("complex_of_parts", lambda t, z, w: t.view_as_real(t.complex(z.imag, w.real)) ** 2),
    ("H", lambda t, z, w: t.view_as_real(z.H) * 2),
    ("mH", lambda t, z, w: t.view_as_real(z.mH).sin()),
]


def _second_order(lib, fn, arrays, seed=3):
    """Gradients of ``fn`` for complex inputs, then the gradient of a real projection of them.

    The oracle's own second-order step builds a complex scalar here, which torch refuses to
    differentiate, so the projection goes through ``view_as_real``.
    """
    rng = np.random.default_rng(seed)
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    u = lib.tensor(rng.standard_normal(tuple(out.shape)))
    gs = [lib.zeros_like(x) if g is None else g.resolve_conj()
          for x, g in zip(xs, lib.autograd.grad(out, xs, u, create_graph=True,
                                                allow_unused=True))]
    total = 0
    for g in gs:
        v = lib.tensor(rng.standard_normal(tuple(g.shape) + (2,)))
        total = total + (lib.view_as_real(g) * v).sum()
    if total.requires_grad:
        ggs = lib.autograd.grad(total, xs, allow_unused=True)
    else:
        ggs = [None] * len(xs)  # gradients linear in the inputs: no second derivative
    ggs = [np.zeros(np.shape(a), dtype=a.dtype) if g is None else
           g.detach().resolve_conj().numpy() for a, g in zip(arrays, ggs)]
    return [g.detach().numpy() for g in gs], ggs


_COMPLEX_GRADS = [
    ("real", lambda t, z, w: t.real(z) * 2 + t.real(w)),
    ("imag", lambda t, z, w: t.imag(z) * t.imag(z) + w.imag),
    ("property_parts", lambda t, z, w: z.real * w.imag * z.real),
    ("view_as_real", lambda t, z, w: t.view_as_real(z) ** 2 + t.view_as_real(w)),
    ("view_as_real_of_conj",
     lambda t, z, w: t.view_as_real(t.conj(z * w).resolve_conj()) ** 2),
    ("view_as_complex",
     lambda t, z, w: t.view_as_real(t.view_as_complex(t.view_as_real(z) ** 2) + w) ** 2),
    ("abs", lambda t, z, w: t.abs(z) ** 2 + t.abs(w) * t.abs(z)),
    ("angle", lambda t, z, w: t.angle(z) * t.angle(w) + t.angle(z) ** 2),
    ("sgn", lambda t, z, w: t.view_as_real(t.sgn(z)) ** 2 + t.view_as_real(w.sgn())),
    ("polar_of_parts", lambda t, z, w: t.view_as_real(t.polar(z.abs(), w.angle())) ** 2),
    ("complex_of_parts", lambda t, z, w: t.view_as_real(t.complex(z.imag, w.real)) ** 2),
    ("H", lambda t, z, w: t.view_as_real(z.H.resolve_conj()) ** 2 + w.real.sum()),
    ("mH", lambda t, z, w: t.view_as_real(z.mH.resolve_conj()).sin() + w.imag.sum()),
    # complex-differentiable functions: the gradient is grad times the conjugate derivative
    ("mul", lambda t, z, w: t.view_as_real(z * w * z)),
    ("div", lambda t, z, w: t.view_as_real(z / w + 1 / z)),
    ("add_sub", lambda t, z, w: t.view_as_real((z - w * 2) + 1j)),
    ("pow", lambda t, z, w: t.view_as_real(z ** 3 + z ** 2 + z ** 0.5 + z ** w)),
    ("exp_log", lambda t, z, w: t.view_as_real(t.exp(z) + t.log(w) + t.exp2(z) + t.expm1(w))),
    ("logs", lambda t, z, w: t.view_as_real(t.log2(z) + t.log10(w) + t.log1p(z))),
    ("roots", lambda t, z, w: t.view_as_real(t.sqrt(z) + t.rsqrt(w) + t.reciprocal(z))),
    ("trig", lambda t, z, w: t.view_as_real(t.sin(z) + t.cos(w) + t.tan(z * 0.3))),
    ("arc_trig", lambda t, z, w: t.view_as_real(t.asin(z * 0.3) + t.acos(w * 0.3)
                                                + t.atan(z * 0.3))),
    ("hyperbolic", lambda t, z, w: t.view_as_real(t.sinh(z) + t.cosh(w) + t.tanh(z * 0.5))),
    ("arc_hyperbolic", lambda t, z, w: t.view_as_real(t.asinh(z) + t.acosh(w + 2)
                                                      + t.atanh(z * 0.3))),
    ("sigmoid", lambda t, z, w: t.view_as_real(t.sigmoid(z))),
    ("logaddexp", lambda t, z, w: t.view_as_real(t.logaddexp(z, w))),
    ("sinc", lambda t, z, w: t.view_as_real(t.sinc(z * 0.5))),
    ("abs_of_product", lambda t, z, w: t.abs(z * w) + t.angle(z / w)),
]


@pytest.mark.parametrize("name,fn", _named(_COMPLEX_GRADS))
def test_complex_gradients_match_torch(name, fn):
    arrays = _complex("complex128")
    check_op(fn, arrays, second_order=False)
    (g1, gg1), (g2, gg2) = _second_order(numtorch, fn, arrays), _second_order(torch, fn, arrays)
    for a, b in zip(g1 + gg1, g2 + gg2):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_real_float_parts_get_gradients_from_complex_results():
    a = np.array([0.5, -1.0, 2.0])
    b = np.array([1.5, 0.25, -0.75])
    check_op(lambda t, x, y: (t.view_as_real(t.complex(x, y)) ** 2,
                              t.view_as_real(t.polar(x.abs(), y)) * 3,
                              t.abs(t.complex(x, y)), t.angle(t.polar(x.abs() + 0.1, y))),
             [a, b])


@pytest.mark.parametrize("name,fn", _named([
    ("setitem_real", lambda t, z: z.real.__setitem__(0, 7.0)),
    ("real_add_", lambda t, z: z.real.add_(1.0)),
    ("imag_mul_", lambda t, z: z.imag.mul_(2.0)),
    ("set_real_tensor", lambda t, z: setattr(z, "real", t.tensor([5.0, 6.0, 7.0]))),
    ("set_imag_number", lambda t, z: setattr(z, "imag", 3)),
    ("view_as_real_write", lambda t, z: t.view_as_real(z).__setitem__((1, 1), -4.0)),
    ("view_as_complex_write",
     lambda t, z: t.view_as_complex(t.view_as_real(z)).__setitem__(2, 9 + 9j)),
]))
def test_writes_through_complex_views_reach_the_tensor(name, fn):
    results = []
    for lib in (numtorch, torch):
        z = lib.tensor([1 + 2j, -0.5 - 0.25j, 3 - 1j])
        fn(lib, z)
        results.append(z.numpy() if lib is torch else z.numpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_real_views_share_the_version_counter():
    z = numtorch.tensor([1 + 2j, 3 - 1j])
    r = z.real
    before = z._version
    r.add_(1.0)
    assert z._version == r._version == before + 1
    assert z.real._base is z and numtorch.view_as_real(z)._base is z


def test_writes_through_real_view_are_differentiated_like_torch():
    def fn(t, z):
        w = z * 2
        w.real.mul_(3.0)
        return t.view_as_real(w)

    check_op(fn, [np.array([1 + 2j, -0.5 - 0.25j])])


@pytest.mark.parametrize("name", ["H", "mH", "adjoint"])
def test_adjoints_of_0d_tensors_warn_like_torch(name):
    for lib in (numtorch, torch):
        x = lib.tensor(1.5 - 2j)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            y = x.adjoint() if name == "adjoint" else getattr(x, name)
        texts = [str(w.message) for w in seen if w.category is UserWarning]
        # torch warns once a process (an earlier test in this worker may have had it)
        if lib is numtorch or texts:
            assert any("is deprecated on 0-D tensors" in t for t in texts), texts
        assert complex(y.resolve_conj()) == 1.5 + 2j


def test_real_of_real_tensor_is_the_tensor_and_setter_copies():
    for lib in (numtorch, torch):
        x = lib.tensor([1.0, 2.0])
        assert lib.real(x) is x and x.real is x and x.conj() is x and x.resolve_conj() is x
        assert not x.is_conj() and not lib.is_conj(x)
        x.real = lib.tensor([5.0, 6.0])
        assert x.tolist() == [5.0, 6.0]


# ---------------------------------------------------------------------------------------------
# errors: torch's exception types (and messages where users match on them)

_ERRORS = [
    ("polygamma_negative_n", lambda t, x: t.polygamma(-1, x), "does not support negative n"),
    ("polygamma_float_n", lambda t, x: t.polygamma(1.0, x), "must be int"),
    ("polygamma_number_input", lambda t, x: t.polygamma(1, 2.0), None),
    ("polygamma_method_negative", lambda t, x: x.polygamma(-2), "negative n"),
    ("mvlgamma_p0", lambda t, x: t.mvlgamma(x + 3, 0), "p has to be greater than or equal to 1"),
    ("mvlgamma_float_p", lambda t, x: t.mvlgamma(x, 1.5), "must be int"),
    ("mvlgamma_bool", lambda t, x: t.mvlgamma(x > 0, 1), "may not be a boolean tensor"),
    ("logit_eps_str", lambda t, x: t.logit(x, eps="a"), None),
    ("erfc_number", lambda t, x: t.erfc(2.0), None),
    ("lshift_float", lambda t, x: t.bitwise_left_shift(x, 2), '"lshift_cpu" not implemented'),
    ("rshift_float_op", lambda t, x: x >> 1, '"rshift_cpu" not implemented'),
    ("lshift_float_number", lambda t, x: x.long() << 1.5, '"lshift_cpu" not implemented'),
    ("rlshift_float", lambda t, x: 1.5 << x.long(), "not implemented"),
    ("lshift_bools", lambda t, x: t.bitwise_left_shift(x > 0, x > 1), "for 'Bool'"),
    ("lshift_str", lambda t, x: t.bitwise_left_shift(x.long(), "a"), None),
    ("ilshift_float", lambda t, x: x.__ilshift__(1), "not implemented"),
    ("gcd_float", lambda t, x: t.gcd(x, x), '"gcd_cpu" not implemented'),
    ("gcd_bool", lambda t, x: t.gcd(x > 0, x > 0), "for 'Bool'"),
    ("lcm_number", lambda t, x: t.lcm(x.long(), 3), None),
    ("hypot_int", lambda t, x: t.hypot(x.long(), x.long()), '"hypot_cpu" not implemented'),
    ("hypot_number", lambda t, x: t.hypot(x, 2.0), None),
    ("logaddexp_int", lambda t, x: t.logaddexp(x.long(), x.long()), '"logaddexp_cpu"'),
    ("logaddexp_bool", lambda t, x: t.logaddexp(x > 0, x > 0), "for 'Bool'"),
    ("logaddexp_number", lambda t, x: t.logaddexp(x, 1.0), None),
    ("logaddexp2_complex", lambda t, x: t.logaddexp2(x * 1j, x * 1j), '"logaddexp2_cpu"'),
    ("nextafter_int", lambda t, x: t.nextafter(x.long(), x.long()), '"nextafter_cpu"'),
    ("copysign_complex", lambda t, x: t.copysign(x * 1j, 1.0), '"copysign_cpu"'),
    ("copysign_number_first", lambda t, x: t.copysign(1.0, x), None),
    ("fmax_complex", lambda t, x: t.fmax(x * 1j, x * 1j), "fmax not implemented for complex"),
    ("fmin_complex", lambda t, x: t.fmin(x * 1j, x * 1j), "fmin not implemented for complex"),
    ("fmax_number", lambda t, x: t.fmax(x, 1.0), None),
    ("heaviside_dtypes", lambda t, x: t.heaviside(x, x.long()),
     "heaviside is not yet implemented for tensors with different dtypes."),
    ("heaviside_complex", lambda t, x: t.heaviside(x * 1j, x * 1j),
     "heaviside is not yet implemented for complex tensors."),
    ("heaviside_number", lambda t, x: t.heaviside(x, 0.5), None),
    ("heaviside_backward", lambda t, x: t.autograd.grad(
        t.heaviside(x.requires_grad_(), x.detach()).sum(), x),
     "derivative for aten::heaviside is not implemented"),
    ("signbit_complex", lambda t, x: t.signbit(x * 1j),
     "signbit is not implemented for complex tensors."),
    ("frexp_int", lambda t, x: t.frexp(x.long()), "torch.frexp() only supports floating-point"),
    ("frexp_complex", lambda t, x: t.frexp(x * 1j), "only supports floating-point"),
    ("ldexp_number", lambda t, x: t.ldexp(x, 2), None),
    ("deg2rad_complex", lambda t, x: t.deg2rad(x * 1j),
     "deg2rad is not supported for complex tensors."),
    ("rad2deg_complex", lambda t, x: x.mul(1j).rad2deg(), "rad2deg is not supported"),
    ("isposinf_complex", lambda t, x: t.isposinf(x * 1j), "does not support complex inputs"),
    ("isneginf_complex", lambda t, x: t.isneginf(x * 1j), "does not support complex inputs"),
    ("float_power_inplace_float", lambda t, x: x.float().float_power_(2),
     "the base given to float_power_ has dtype Float but the operation's result requires "
     "dtype Double"),
    ("float_power_inplace_complex", lambda t, x: x.float_power_(1j), "requires dtype"),
    ("float_power_numbers", lambda t, x: t.float_power(2.0, 3.0), None),
    ("xlogy_numbers", lambda t, x: t.xlogy(2.0, 3.0), None),
    ("xlogy_str", lambda t, x: t.xlogy(x, "a"), None),
    ("trapezoid_x_length", lambda t, x: t.trapezoid(x, t.ones(5, dtype=x.dtype)), None),
    ("trapezoid_x_shape", lambda t, x: t.trapezoid(t.ones(3, 4), t.ones(2, 4)),
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton"),
    ("trapezoid_0d", lambda t, x: t.trapezoid(x[0]),
     "Dimension specified as -1 but tensor has no dimensions"),
    ("trapezoid_number_x", lambda t, x: t.trapezoid(x, 0.5), None),
    ("trapezoid_dim", lambda t, x: t.trapz(x, dim=1), "Dimension out of range"),
    ("complex_ints", lambda t, x: t.complex(x.long(), x.long()),
     "Expected both inputs to be Half, Float or Double tensors but got Long and Long"),
    ("complex_mixed", lambda t, x: t.complex(x.float(), x),
     "Expected object of scalar type Float but got scalar type Double for second argument"),
    ("complex_number", lambda t, x: t.complex(1.0, x), None),
    ("complex_broadcast", lambda t, x: t.complex(x, x[:2]), "must match the size of tensor"),
    ("polar_mixed", lambda t, x: t.polar(x, x.float()), "Expected object of scalar type"),
    ("polar_ints", lambda t, x: t.polar(x.long(), x.long()), "Expected both inputs"),
    ("imag_of_real", lambda t, x: t.imag(x),
     "imag is not implemented for tensors with non-complex dtypes."),
    ("imag_property_of_int", lambda t, x: x.long().imag, "non-complex dtypes"),
    ("set_imag_of_real", lambda t, x: setattr(x, "imag", x), "non-complex dtypes"),
    ("view_as_real_of_real", lambda t, x: t.view_as_real(x),
     "view_as_real is only supported for complex tensors"),
    ("view_as_complex_size", lambda t, x: t.view_as_complex(x),
     "Tensor must have a last dimension of size 2"),
    ("view_as_complex_0d", lambda t, x: t.view_as_complex(x[0]),
     "Input tensor must have one or more dimensions"),
    ("view_as_complex_last_stride", lambda t, x: t.view_as_complex(t.zeros(2, 4)[:, ::2]),
     "Tensor must have a last dimension with stride 1"),
    ("view_as_complex_transposed", lambda t, x: t.view_as_complex(t.zeros(2, 4).t()),
     "last dimension with stride 1"),
    ("view_as_complex_odd_stride", lambda t, x: t.view_as_complex(t.zeros(3, 3)[:, :2]),
     "Tensor must have a stride divisible by 2 for all but last dimension"),
    ("view_as_complex_offset", lambda t, x: t.view_as_complex(t.zeros(5)[1:3]),
     "Tensor must have a storage_offset divisible by 2"),
    ("view_as_complex_int", lambda t, x: t.view_as_complex(t.zeros(3, 2, dtype=t.int64)),
     "view_as_complex is only supported for half, float and double tensors"),
    ("H_1d", lambda t, x: x.H,
     "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
    ("H_3d", lambda t, x: t.zeros(2, 2, 2).H, "For batches of matrices, consider using"),
    ("mH_1d", lambda t, x: x.mH, "tensor.mH is only supported on matrices or batches"),
    ("adjoint_1d", lambda t, x: x.adjoint(), "tensor.adjoint() is only supported on matrices"),
    ("clamp_complex", lambda t, x: t.clamp(x * 1j, 0, 1), "clamp is not supported for complex"),
]


@pytest.mark.parametrize("name,fn,match", _named(_ERRORS))
def test_bad_input_raises_like_torch(name, fn, match):
    check_raises(fn, [np.array([1.0, -2.0, 3.0])], match=match)


_NO_COMPLEX_KERNEL = [
    ("erfc", lambda t, x: t.erfc(x)), ("erfinv", lambda t, x: t.erfinv(x)),
    ("lgamma", lambda t, x: t.lgamma(x)), ("digamma", lambda t, x: t.digamma(x)),
    ("polygamma_1", lambda t, x: t.polygamma(1, x)),
    ("polygamma_3", lambda t, x: t.polygamma(3, x)),
    ("i0", lambda t, x: t.i0(x)), ("logit", lambda t, x: t.logit(x)),
    ("xlogy", lambda t, x: t.xlogy(x, x)), ("hypot", lambda t, x: t.hypot(x, x)),
    ("nextafter", lambda t, x: t.nextafter(x, x)), ("mvlgamma", lambda t, x: t.mvlgamma(x, 1)),
]


@pytest.mark.parametrize("name,fn", _named(_NO_COMPLEX_KERNEL))
def test_complex_inputs_without_kernels_raise_like_torch(name, fn):
    nt_exc, th_exc = check_raises(fn, [np.array([1 + 2j, -0.5j], dtype="complex64")])
    assert type(nt_exc) is type(th_exc) is NotImplementedError
    assert str(nt_exc) == str(th_exc)


# ---------------------------------------------------------------------------------------------
# Tensor methods (one-line delegations) and in-place forms

_METHODS = [
    ("erfc", (), (-2, 2)), ("erfinv", (), (-0.9, 0.9)), ("lgamma", (), (0.5, 3)),
    ("digamma", (), (0.5, 3)), ("polygamma", (1,), (0.5, 3)), ("mvlgamma", (2,), (1.5, 3)),
    ("i0", (), (-2, 2)), ("sinc", (), (0.1, 2)), ("logit", (), (0.1, 0.9)),
    ("logit", (0.2,), (0.05, 0.95)), ("nan_to_num", (), (-2, 2)), ("deg2rad", (), (-2, 2)),
    ("rad2deg", (), (-2, 2)), ("erf", (), (-2, 2)), ("exp2", (), (-2, 2)),
    ("sgn", (), (0.1, 2)), ("copysign", (-1.0,), (-2, 2)),
]


@pytest.mark.parametrize("name,args,domain", _named(_METHODS))
def test_unary_methods_and_inplace_forms_match_torch(name, args, domain):
    def fn(t, x):
        y = x.detach().clone()
        getattr(y, name + "_")(*args)
        return getattr(x, name)(*args), y

    check_op(fn, make_args([domain], [(3, 4)], "float64"), second_order=False)


_BINARY_METHODS = ["xlogy", "hypot", "logaddexp", "logaddexp2", "copysign", "fmax", "fmin",
                   "nextafter", "ldexp", "float_power"]


@pytest.mark.parametrize("name", _BINARY_METHODS)
def test_binary_methods_and_inplace_forms_match_torch(name):
    def fn(t, x, y):
        out = getattr(x, name)(y)
        if hasattr(x, name + "_"):
            z = x.detach().clone()
            getattr(z, name + "_")(y.detach())
            return out, z
        return out

    check_op(fn, make_args([(0.5, 2.0), (-1.5, 1.5)], [(3, 4), (3, 4)], "float64"),
             second_order=False)


def test_other_new_methods_match_torch():
    def fn(t, x):
        i = (x * 4).long()
        c = x.detach().clone()
        return (x.signbit(), x.isposinf(), x.isneginf(), x.isreal(), x.frexp(), x.angle(),
                x.heaviside(x.detach()), i.gcd(i + 1), i.lcm(i - 1), i.bitwise_and_(3),
                i.bitwise_or_(4), i.bitwise_xor_(1), i.bitwise_not_(), c.not_equal_(0.5),
                x.detach().clone().less_(0.5), x.detach().clone().greater_equal_(0.5),
                x.detach().clone().greater_(0.5), x.detach().clone().less_equal_(0.5),
                x.positive())

    check_op(fn, make_args([(-2, 2)], [(3, 4)], "float64"), grad=False)


def test_new_inplace_forms_refuse_unsafe_casts_like_torch():
    for fn in (lambda t, x: x.long().erfc_(), lambda t, x: x.long().deg2rad_(),
               lambda t, x: x.long().copysign_(-1), lambda t, x: x.long().xlogy_(x)):
        check_raises(fn, [np.array([1.0, 2.0])], match="can't be cast")


def test_out_argument_works_for_new_functions():
    def fn(t, x):
        out1, out2 = t.empty(0, dtype=x.dtype), t.empty(0, dtype=t.bool)
        m, e = t.empty(0, dtype=x.dtype), t.empty(0, dtype=t.int32)
        t.hypot(x, x, out=out1)
        t.signbit(x, out=out2)
        t.frexp(x, out=(m, e))
        return out1, out2, m, e, t.erfc(x, out=t.empty(3, dtype=x.dtype))

    check_op(fn, [np.array([0.5, -1.0, 2.0])], grad=False)


def test_frexp_returns_a_named_tuple_like_torch():
    x = numtorch.tensor([8.0, 0.75])
    res = numtorch.frexp(x)
    assert type(res) is numtorch.return_types.frexp
    assert res.mantissa is res[0] and res.exponent is res[1]
    assert repr(res).startswith("torch.return_types.frexp(\nmantissa=")
    m, e = res
    assert e.dtype == numtorch.int32 and m.dtype == numtorch.float32


# ---------------------------------------------------------------------------------------------
# backend: the NumPy fallbacks when SciPy is missing


def test_fallbacks_without_scipy_keep_values_and_name_scipy(monkeypatch):
    special = pytest.importorskip("scipy.special")
    monkeypatch.setattr(np_backend, "_scipy_special", None)
    x = np.linspace(-6, 28, 2001)
    np.testing.assert_allclose(np_backend.erfc(x), special.erfc(x), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(np_backend.i0(x[:200]), special.i0(x[:200]), rtol=1e-13)
    assert np_backend.erfc(x.astype("float32")).dtype == np.float32
    t = numtorch.tensor([0.5, 1.5])
    assert numtorch.allclose(numtorch.erfc(t), numtorch.tensor(special.erfc([0.5, 1.5]),
                                                               dtype=numtorch.float32))
    for fn in (numtorch.lgamma, numtorch.digamma, lambda v: numtorch.polygamma(1, v)):
        with pytest.raises(RuntimeError, match="needs SciPy"):
            fn(t)


# ---------------------------------------------------------------------------------------------
# import surface: each function has one home module (no re-exporting facades)


def test_each_function_is_imported_from_its_own_family():
    import ast
    import pathlib

    from numtorch.ops import (
        _smooth_activation, _statistics, activation, bitwise, cast, comparison, division,
        elementwise, join, reduction, shape, unary,
    )

    for module in (unary, comparison, bitwise, division, cast, join, _statistics):
        for name in module.__all__:
            # importing numtorch.fx gives each alias (torch.negative of torch.neg) a function of
            # its own, as torch has, wrapping the family's function
            fn = getattr(numtorch, name)
            assert getattr(fn, "__wrapped__", fn) is getattr(module, name), name
    assert numtorch.relu is activation.relu and numtorch.sigmoid is _smooth_activation.sigmoid
    # nothing imports a function through a module that does not define it
    facades = {m.__name__: m for m in (elementwise, shape, reduction)}
    root = pathlib.Path(numtorch.__file__).parent
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + node.module.split("."))
            if target in facades:
                for alias in node.names:
                    obj = getattr(facades[target], alias.name, None)
                    home = getattr(obj, "__module__", target)
                    assert home == target, f"{path}: {alias.name} imported from {target}"


def test_every_new_function_is_public_like_torch():
    names = ["erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "sinc",
             "logit", "xlogy", "hypot", "logaddexp", "logaddexp2", "nan_to_num",
             "float_power", "copysign", "fmax", "fmin", "deg2rad", "rad2deg", "heaviside",
             "signbit", "bitwise_left_shift", "bitwise_right_shift", "frexp", "ldexp",
             "nextafter", "gcd", "lcm", "trapz", "trapezoid", "real", "imag", "conj",
             "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "angle",
             "polar", "complex", "view_as_real", "view_as_complex", "isposinf", "isneginf",
             "isreal"]
    for name in names:
        assert hasattr(torch, name), name
        assert callable(getattr(numtorch, name)), name
        assert name in numtorch.ops.__all__, name
