"""Binary arithmetic: add, sub, mul, pow, atan2, and the composites lerp, addcmul and addcdiv.

Binary ops set ``promote = True`` so ``Op.apply`` casts their inputs to torch's result dtype;
float-only functions set ``promote = "float"`` so integer inputs compute in the default float
dtype, as torch does. Backward passes return gradients in the broadcast shape; the engine sums
them back to each input's shape.

The other pointwise families live in ``division.py``, ``unary.py``, ``comparison.py`` and
``bitwise.py`` (import each function from the module that defines it).
"""

import numbers

import numpy as np

from .. import _dtype
from .._required_dim import missing_arg
from .._sparse import SparseCOO, map_values
from .._tensor import Tensor
from .._warn_once import warn_once
from ..autograd.graph import Op, rename_node
from ..backend import _keep_dtype as keep_dtype
from ..backend import helpers_for
from ..backend._fma import axpy_once as _fused
from ..backend._fma import fma_once as _fma_once
from ..backend._libm_f32 import SMALL as _SMALL
from . import _intraop
from ._accumulate import is_half
from ._pointwise import (
    _NUMBER, _broadcast_error, _check_number_or_tensor, _check_tensor, _cj, _is_float,
    _not_implemented, _out, _zeros_like, type_name,
)
from ._util import _entry_call, _is_method, pointwise_layout_result, user_stacklevel
from ._util import tensor_from_array as _make
from .comparison import where
from .division import div
from .unary import log

__all__ = [
    "add", "sub", "rsub", "mul", "pow", "square", "atan2", "lerp", "addcmul", "addcdiv",
    # torch's aliases (the same function objects)
    "subtract", "multiply", "arctan2",
]


# ---------------------------------------------------------------------------------------------
# binary arithmetic

_ND = np.ndarray
# a + b, a - b, a * b of a large float array (with a same-shape array or a number) are written
# in parts on the intra-op threads (``_intraop.binary``) from this many elements: one pass
# is worth a hand-off from ~256K float32 values
_SPLIT_FROM = 2 * _intraop._MIN_PART


def _conj_number(x):
    """A number factor of a derivative as torch's complex chain rule takes it: conjugated."""
    return x.conjugate() if isinstance(x, (complex, np.complexfloating)) else x


class Add(Op):
    """y = a + alpha * b; dy/da = 1, dy/db = alpha."""

    out_layout = "pointwise"
    promote = True
    alpha = 1

    def forward(self, a, b):
        try:
            if self.alpha == 1:
                if a.__class__ is _ND and a.size >= _SPLIT_FROM:  # large: in parts
                    out = _intraop.binary(np.add, a, b)
                    if out is not None:
                        return out
                return a + b
            out = _fused(a, b, self.alpha)
            if out is not None:
                return out
            if b.dtype is _dtype._BF16_NP:  # a Python float would promote bfloat16 to float32
                return a + b * b.dtype.type(self.alpha)
            return a + b * self.alpha
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * _conj_number(self.alpha))


class Sub(Op):
    """y = a - alpha * b; dy/da = 1, dy/db = -alpha."""

    out_layout = "pointwise"
    promote = True
    alpha = 1

    def forward(self, a, b):
        try:
            if self.alpha == 1:
                if a.__class__ is _ND and a.size >= _SPLIT_FROM:  # large: in parts
                    out = _intraop.binary(np.subtract, a, b)
                    if out is not None:
                        return out
                return a - b
            out = _fused(a, b, -self.alpha)
            if out is not None:
                return out
            if b.dtype is _dtype._BF16_NP:  # a Python float would promote bfloat16 to float32
                return a - b * b.dtype.type(self.alpha)
            return a - b * self.alpha
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * (-_conj_number(self.alpha)))

    def backward_arrays(self, g):
        if self.alpha != 1:
            return NotImplemented
        return g, -g


class Mul(Op):
    """y = a * b; dy/da = b, dy/db = a."""

    out_layout = "pointwise"
    promote = True

    opmath_scalar = True

    def forward(self, a, b):
        self.save_operands_for_product(a, b)
        try:
            if b.__class__ is np.float32 and a.dtype.itemsize == 2:
                return half_opmath(np.multiply, a, b)
            if a.__class__ is _ND and a.size >= _SPLIT_FROM:  # large: in parts
                out = _intraop.binary(np.multiply, a, b)
                if out is not None:
                    return out
            return a * b
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_operands()
        if grad._array.dtype.kind == "c":  # promotion made both operands complex too
            a, b = (a if a is None else a.conj()), (b if b is None else b.conj())
        return (grad * b if b is not None else None), (grad * a if a is not None else None)

    def backward_arrays(self, g):
        # the products ``backward`` forms, on the arrays (its mul sees one dtype: no casts)
        dt = self._out_meta[0][1]
        if (g.dtype is not dt and g.dtype != dt) or dt.kind == "c":
            return NotImplemented
        ea, eb = self._edges
        saved = self.saved_input_arrays()
        if ea is not None and eb is not None:
            a, b = saved
            return g * b, g * a
        if saved.__class__ is np.float32 and g.dtype.itemsize == 2:  # (a Python number)
            return half_opmath(np.multiply, g, saved), None
        return (None, g * saved) if ea is None else (g * saved, None)


class _MulHalf0d(Mul):
    """``Mul`` of a float16/bfloat16 tensor and a 0-d float32 one that needs a gradient
    (``Op.apply`` routes it here): the product in float32, rounded once, as torch's kernel
    reads a 0-d tensor like a number; the gradients are Mul's (the engine rounds each to its
    input's dtype)."""

    node_name = "MulBackward0"
    promote = False
    opmath_scalar = False
    out_layout = None

    def forward(self, a, b):
        self.save_operands_for_product(a, b)
        try:
            return (a.astype(np.float32) * b).astype(a.dtype)
        except ValueError as e:
            _broadcast_error(e, a, b)

    backward_arrays = None


Mul.half_0d_op = _MulHalf0d


def half_opmath(ufunc, a, b):
    """``ufunc(a, b)`` of a float16/bfloat16 array and a float32 scalar (a Python number, see
    ``Op.opmath_scalar``) in float32, rounded once to ``a``'s dtype, as torch's CPU kernels."""
    return ufunc(a.astype(np.float32), b).astype(a.dtype)


def _float32_power(xp, p):
    """``v ** p`` for a float32 array ``v``, or for its float64 copy (``float32_rounded``'s
    route for small arrays, rounded once afterwards). On that route the values follow torch's
    CPU kernel: whole blocks of 32 values take its vector pow, which holds the exponent as a
    float32, the rest its scalar pow with the exponent as a double (found by experiment: bit
    for bit on the scalar part, ~2% an ulp off on the vector part; NumPy's float32 kernel is
    off on 10-40% throughout)."""
    p32 = np.float32(p)

    def power(v):
        if v.dtype != np.float64:
            return xp.power(v, p32)
        flat = v.reshape(-1)
        k = flat.size - flat.size % 32
        if k == 0:
            return xp.power(v, p)
        out = xp.empty_like(flat)
        xp.power(flat[:k], float(p32), out=out[:k])
        xp.power(flat[k:], float(p), out=out[k:])
        return out.reshape(v.shape)
    return power


def _bf16_rsqrt(xp, x):
    """bfloat16 ``x ** -0.5`` as torch's CPU kernel: whole blocks of 64 values (of the
    row-major order) as ``1 / sqrt`` in float32, the last ``size % 64`` with the square root
    rounded to bfloat16 before the reciprocal (found by experiment, bit for bit on both)."""
    flat = x.reshape(-1).astype(np.float32)
    k = flat.size - flat.size % 64
    root = xp.sqrt(flat)
    root[k:] = root[k:].astype(x.dtype).astype(np.float32)
    return (1 / root).astype(x.dtype).reshape(x.shape)


def _half_power(xp, x, p):
    """float16/bfloat16 ``x ** p`` as torch's kernels: the exponent rounded to the tensor's
    dtype, the power taken in float32 (here float64, rounded to float32) and rounded once;
    bfloat16's cube and inverse square step in bfloat16 and its ``** -0.5`` is a reciprocal
    square root (-inf at -0.0; float16's is the power's, inf), its ``** 0.5`` a square root
    (found by experiment over 20k values per exponent and on the special values)."""
    if x.dtype.kind == "V":
        if p == 3:
            return x * x * x
        if p == -2:
            return 1 / (x * x)
        if p == -0.5:
            return _bf16_rsqrt(xp, x)
    e = float(np.array(p, dtype=np.float64).astype(x.dtype))
    with np.errstate(all="ignore"):
        r = xp.power(x.astype(np.float64), e)
    if e == 0.5:  # NumPy takes a square root there: pow's +0 at -0.0 and inf at -inf
        r = xp.where(x == -np.inf, np.inf, r) + 0.0
    return r.astype(np.float32).astype(x.dtype)


class PowScalar(Op):
    """y = x ** p for a Python-number p; dy/dx = p * x ** (p - 1) (0 when p == 0)."""

    out_layout = "elementwise"

    def forward(self, x):
        self.save_inputs(x)
        y = self._power(x)
        if type(x) is np.ndarray and x.ndim > 1 and not x.flags.c_contiguous and y.shape == x.shape:
            # float32_rounded / power results come back row-major: torch keeps x's layout
            from ..autograd._pointwise_layout import pointwise_result

            y = pointwise_result(y, (x,))
        return y

    def _power(self, x):
        p = self.exponent
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV" and p != 2 and (
                p != 0.5 or x.dtype.kind == "f"):
            return _half_power(self.xp, x, p)
        if p == 2:
            return x * x
        if p == 1 and x.dtype.kind == "f":  # torch copies (regression's ``x ** 1`` features);
            return x.copy(order="K")  # the float64 route would round x back to itself
        if p == 3 and x.dtype.kind == "f":  # torch's cube: (x*x)*x, bit for bit; NumPy's
            return x * x * x  # float32 power with a float exponent is ~1000x slower
        if p == 0.5:
            return self.xp.sqrt(x)
        if p == -0.5 and x.dtype.kind == "f":  # torch's rsqrt: -inf at -0.0, NaN at -inf
            return 1 / self.xp.sqrt(x)
        if x.dtype.kind == "f":
            if p == -2 and x.dtype.itemsize >= 4:  # torch's kernel: 1 / (x * x), bit for bit
                return 1 / (x * x)
            if x.dtype == np.float32:
                return helpers_for(self.xp).float32_rounded(_float32_power(self.xp, p), x)
            return self.xp.power(x, x.dtype.type(p))
        if x.dtype.kind == "c":
            return _complex_zero_base(self.xp, x, p, self.xp.power(x, x.dtype.type(p)), True)
        return self.xp.power(x, p).astype(x.dtype, copy=False)

    def backward(self, grad):
        x = self.saved_inputs()
        p = self.exponent
        if p == 0:
            return _zeros_like(grad)
        if p == 1:
            return grad
        if p == 2:
            return grad * _cj(x * 2)
        return grad * _cj(pow(x, p - 1) * p)


class Pow(Op):
    """y = a ** b; dy/da = b * a ** (b - 1), dy/db = y * log(a) (0 where a == 0 and b >= 0)."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        xp = self.xp
        kind = a.dtype.kind
        try:
            if kind in "iub":
                if kind == "b":
                    raise _not_implemented("pow", a.dtype)
                return _int_power(xp, a, b)  # integer results never need saving
            if a.dtype == np.float32 and type(a) is np.ndarray and type(b) is np.ndarray and \
                    a.size <= _SMALL and b.size <= _SMALL:
                # as backend/_libm_f32: NumPy's float32 power misses torch's (correctly
                # rounded) value on ~20% of inputs, the double result rounded on ~0.2%
                wide = xp.power(a.astype(np.float64), b.astype(np.float64))
                return self.save_output(wide.astype(np.float32))
            y = xp.power(a, b)
            if y.dtype.kind == "c":
                y = _complex_zero_base(xp, a, b, y, getattr(self, "scalar_exponent", False))
            return self.save_output(y)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        ga = gb = None
        if na:
            ga = where(b == 0, 0.0, grad * _cj(b * pow(a, b - 1)))
        if nb:
            y = self.saved_output()
            # 0 ** b has the limit 0 for b >= 0 (its real part, for complex b)
            nonneg = (b.real if b._array.dtype.kind == "c" else b) >= 0
            gb = where((a == 0) & nonneg, 0.0, grad * _cj(y * log(a)))
        return ga, gb


def _complex_zero_base(xp, a, b, y, scalar_exponent):
    """torch's complex ``0 ** b`` (exp(b log 0)): inf+nanj for Re(b) < 0, and with an exponent
    tensor NaN for b == 0 (a number exponent 0 gives ones)."""
    zero = xp.asarray(a) == 0  # (a may be a number: the base of 2 ** tensor)
    if not bool(zero.any()):
        return y
    b = xp.asarray(b)
    y = xp.where(zero & (b.real < 0), y.dtype.type(complex(np.inf, np.nan)), y)
    if not scalar_exponent:
        y = xp.where(zero & (b == 0), y.dtype.type(complex(np.nan, np.nan)), y)
    return y.astype(y.dtype, copy=False)


def _int_power(xp, a, b):
    """Integer ``a ** b``; for ``b < 0`` torch gives 1 for a base 1, +/-1 for -1, else 0."""
    neg = b < 0
    if not xp.any(neg):
        return xp.power(a, b)
    r = xp.power(a, xp.where(neg, 0, b))
    odd = (b & 1).astype(bool)
    inv = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
    return xp.where(neg, inv, r).astype(r.dtype, copy=False)


class Atan2(Op):
    """y = atan2(a, b); dy/da = b / (a^2 + b^2), dy/db = -a / (a^2 + b^2)."""

    out_layout = "pointwise"
    promote = "float"

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise _not_implemented("atan2_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            if a.dtype == np.float32:
                # NumPy's float32 arctan2 is off by an ulp in ~40% of values where torch's is
                # nearly correctly rounded; the double result rounded agrees in ~98%
                wide = self.xp.arctan2(a.astype(np.float64), b.astype(np.float64))
                return wide.astype(np.float32)
            return self.xp.arctan2(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        den = a * a + b * b
        # torch's gradient at the origin is 0 (not 0/0)
        r = where(den == 0, 0.0, grad / den)
        return r * b, -r * a


class Lerp(Op):
    """y = a + w (b - a), computed from the nearer end as torch does (w = 1 gives b exactly;
    infinite ends give torch's infinities and NaNs); dy/da = 1 - w, dy/db = w,
    dy/dw = b - a. A number weight is the ``weight`` parameter, a tensor one the third input.

    Why a primitive: the two-sided formula composed with ``where`` would send NaN gradients
    through the branch not taken.
    """

    out_layout = "pointwise"

    def forward(self, a, b, w=None):
        if w is not None:
            self.save_inputs(a, b, w)
        try:
            if not is_half(a.dtype):
                return self._values(a, b, w)
            # torch interpolates half types in float32 and rounds once
            f = np.float32
            return self._values(a.astype(f), b.astype(f),
                                None if w is None else w.astype(f)).astype(a.dtype)
        except ValueError as e:
            _broadcast_error(e, a, b, *(() if w is None else (w,)))

    def _values(self, a, b, w):
        d = b - a
        fused = self._fused_values(a, b, d, w)
        if fused is not None:
            return fused
        if w is None:
            w = self.weight
            if abs(w) < 0.5:  # (a complex weight of a complex lerp: by its modulus)
                return a + d * a.dtype.type(w)
            return b - d * a.dtype.type(1 - w)
        return keep_dtype.where(self.xp, self.xp.abs(w) < 0.5, a + w * d, b - d * (1 - w))

    def _fused_values(self, a, b, d, w):
        # torch's kernel is one fused multiply-add from the nearer end, the weight and w - 1
        # in the op's precision (w - 1, not 1 - w: at w = 1 the zero is +0, which keeps a
        # -0 end); None where the host has no wider type to round once from
        if not isinstance(a, np.ndarray) or a.dtype.kind != "f":
            return None
        one = a.dtype.type(1)
        if w is None:
            w = a.dtype.type(self.weight)
            near = -0.5 < w < 0.5
            return _fma_once(a if near else b, d, np.asarray(w if near else w - one))
        near = self.xp.abs(w) < 0.5
        return _fma_once(self.xp.where(near, a, b), d, self.xp.where(near, w, w - one))

    def backward(self, grad):
        # (complex: the conjugate derivatives, as torch's chain rule takes them)
        if len(self.needs_input_grad) == 2:
            w = self.weight
            if isinstance(w, complex):
                w = w.conjugate()
            na, nb = self.needs_input_grad
            return (grad * (1 - w) if na else None), (grad * w if nb else None)
        a, b, w = self.saved_inputs()
        w = _cj(w)
        na, nb, nw = self.needs_input_grad
        return (grad * (1 - w) if na else None, grad * w if nb else None,
                grad * _cj(b - a) if nw else None)


class Addcmul(Op):
    """y = a + (value * b) * c with one rounding, torch's addcmul kernel for float32/float64
    (the composite form rounds the product first); dy/da = 1, dy/db = value * c,
    dy/dc = value * b."""

    out_layout = "pointwise"
    value = 1

    def forward(self, a, b, c):
        needs = self.needs_input_grad
        if needs:  # b for c's gradient, c for b's: only what is needed
            self.save_inputs(*([b] if needs[2] else []), *([c] if needs[1] else []))
        if b.dtype.itemsize == 2:
            # float16/bfloat16 as torch's kernel: value * b in float32, then a + that * c
            # with one float32 rounding (through float64) and one to the 16-bit type
            t = b.astype(np.float32) * np.float32(self.value)
            wide = a.astype(np.float64) + t.astype(np.float64) * c.astype(np.float64)
            return wide.astype(np.float32).astype(a.dtype)
        x = b if self.value == 1 else b * b.dtype.type(self.value)
        try:
            out = _fma_once(a, x, c)
            return out if out is not None else a + x * c
        except ValueError as e:
            _broadcast_error(e, a, b, c)

    def backward(self, grad):
        _, nb, nc = self.needs_input_grad
        saved = self.saved_inputs() if nb or nc else None
        b, c = saved if nb and nc else ((None, saved) if nb else (saved, None))
        v = self.value
        return (grad, (grad * (c if v == 1 else c * v)) if nb else None,
                (grad * (b if v == 1 else b * v)) if nc else None)


class Addcdiv(Op):
    """y = a + (value * b) / c, torch's addcdiv kernel (float16/bfloat16 in float32, value held
    as a float32, rounded once to the 16-bit type). Backward as torch's formulas round:
    dy/db = value / c with value first rounded to the dtype, dy/dc = -(value * b) / (c * c)."""

    out_layout = "pointwise"
    value = 1

    def forward(self, a, b, c):
        self.save_inputs(b, c)
        try:
            if b.dtype.itemsize == 2:
                f = np.float32
                t = b.astype(f) if self.value == 1 else b.astype(f) * f(self.value)
                return (a.astype(f) + t / c.astype(f)).astype(a.dtype)
            return a + (b if self.value == 1 else b * b.dtype.type(self.value)) / c
        except ValueError as e:
            _broadcast_error(e, a, b, c)

    def backward(self, grad):
        b, c = self.saved_inputs()
        _, nb, nc = self.needs_input_grad
        v = self.value
        # a true quotient with value in the dtype (0.1 in float16 is 0.0999755859375), where
        # number / tensor would multiply by a reciprocal
        gb = grad * div(_make(self.xp.asarray(v, dtype=c._array.dtype)), c) if nb else None
        gc = -grad * ((b if v == 1 else v * b) / (c * c)) if nc else None
        return grad, gb, gc


# ---------------------------------------------------------------------------------------------
# public functions


def _check_alpha(fn, input, other, alpha):
    """torch refuses a float alpha for integer results, a bool alpha for non-bool ones and an
    alpha the result's dtype cannot hold; returns alpha as the op applies it (a negative one
    wrapped into an unsigned dtype)."""
    if not isinstance(alpha, (_NUMBER, Tensor)):
        entry = _entry_call()[0]  # add_/sub_/subtract when the program called those
        raise TypeError(f"{entry.f_code.co_name if entry is not None else fn}(): argument "
                        f"'alpha' must be Number, not {type_name(alpha)}")
    dt = _dtype.result_type(input, other)
    if isinstance(alpha, (float, complex)) and dt._category < _dtype._FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, bool) and dt is not _dtype.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, complex) and dt._category != _dtype._COMPLEX:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")
    if dt is _dtype.bool:  # a bool result reads alpha as a bool: input | (alpha & other)
        return bool(alpha)
    return _scalar_in(alpha, dt)


def _scalar_in(value, dt):
    """``value`` (alpha, addcmul's value) checked to fit ``dt`` as torch checks it; integers
    are returned as ``dt``'s C cast would leave them (negative ones wrap into uint8)."""
    from .._creation import _check_fits

    if isinstance(value, Tensor) or dt is _dtype.bool:
        return value
    if dt is _dtype.bfloat16:
        big = _dtype.finfo(dt).max  # (abs is torch.abs in this module)
        if isinstance(value, float) and (big < value < float("inf")
                                         or -float("inf") < value < -big):
            raise RuntimeError("value cannot be converted to type c10::BFloat16 without "
                               "overflow")
        return value
    _check_fits(np.asarray(value), dt, c_names=True)
    if dt._category == _dtype._INT and isinstance(value, int):
        return int(np.array(value).astype(dt.np))
    return value


def _legacy_scalar_first(fn, first, legacy, kw, kw_default, nargs):
    """torch's deprecated overloads ``fn(input, alpha, other)`` and ``fn(input, value, t1,
    t2)``: a leading number is the multiplier and the operands follow it (torch warns once
    per process). Returns the multiplier and the operands, or raises torch's TypeError."""
    if (len(legacy) != 1 or kw is not kw_default or isinstance(first, Tensor)
            or not isinstance(first, numbers.Number)):
        entry = _entry_call()[0]
        if not _is_method(entry):
            raise TypeError(f"{fn}() takes {nargs} positional arguments but "
                            f"{nargs + len(legacy)} were given")
        called = entry.f_code.co_name  # (add_, subtract, ...)
        if nargs == 2 and kw is kw_default and len(legacy) > 1 and \
                isinstance(first, numbers.Number) and not isinstance(first, Tensor):
            got = ", ".join(f"!{'Tensor' if isinstance(v, Tensor) else type_name(v)}!"
                            for v in (first, *legacy))
            raise TypeError(f"{called}() received an invalid combination of arguments - got "
                            f"({got}), but expected (Tensor other, *, Number alpha = 1)")
        n = nargs - 1  # a method's count leaves self out
        raise TypeError(f"{called}() takes {n} positional argument{'s' if n > 1 else ''} but "
                        f"{n + len(legacy)} were given")
    if nargs == 2:
        old, new = "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"
    else:
        old = "Number value, Tensor tensor1, Tensor tensor2"
        new = "Tensor tensor1, Tensor tensor2, *, Number value = 1"
    warn_once("deprecated_overload", f"This overload of {fn} is deprecated:\n\t{fn}({old})\n"
              f"Consider using one of the following signatures instead:\n\t{fn}({new})",
              stacklevel=user_stacklevel())
    return first, legacy[0]


def add(input, other=missing_arg, *legacy, alpha=1, out=None):
    """Add ``alpha * other`` to ``input`` elementwise, with broadcasting and type promotion.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the second operand.
        alpha (Number): multiplier of ``other``. Default: 1.
        out (Tensor, optional): tensor to write the result into.

    Returns:
        Tensor: ``input + alpha * other`` in the promoted dtype.

    Example:
        >>> torch.add(torch.tensor([1., 2.]), 1, alpha=2)
        tensor([3., 4.])
    """
    if legacy:
        alpha, other = _legacy_scalar_first("add", other, legacy, alpha, 1, 2)
    if not isinstance(other, Tensor):
        _check_number_or_tensor("add", other)
    try:
        if alpha != 1 or alpha is True:
            alpha = _check_alpha("add", input, other, alpha)
            return _out(Add.apply(input, other, alpha=alpha), out, "add", over=(input, other))
        r = Add.apply(input, other)
    except (TypeError, NotImplementedError):
        _check_input("add", input)
        if out is None and _any_sparse(input, other):  # (the sparse kernels: operator forms)
            return input + other
        raise
    return r if out is None else _out(r, out, "add", over=(input, other))


def _bool_operand(x):
    return x.__class__ is bool or (isinstance(x, Tensor) and x._array.dtype.kind == "b")


def _bool_sub_error(both):
    if both:
        return RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                            "supported. Use the `^` or `logical_xor()` operator instead.")
    return RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.")


def sub(input, other=missing_arg, *legacy, alpha=1, out=None):
    """Subtract ``alpha * other`` from ``input`` elementwise (broadcasting, promotion).

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the operand to subtract.
        alpha (Number): multiplier of ``other``. Default: 1.
        out (Tensor, optional): tensor to write the result into.

    Returns:
        Tensor: ``input - alpha * other``.

    Note:
        As in torch, bool operands are rejected: use ``^`` or ``logical_not`` instead.

    Example:
        >>> torch.sub(torch.tensor([5, 7]), torch.tensor([1, 2]), alpha=2)
        tensor([3, 3])
    """
    if legacy:
        alpha, other = _legacy_scalar_first("sub", other, legacy, alpha, 1, 2)
    # inlined type checks: sub is on the tiny-op hot path
    if isinstance(other, Tensor):
        bool_b = other._array.dtype.kind == "b"
    else:
        _check_number_or_tensor("sub", other)
        bool_b = other.__class__ is bool
    bool_a = input._array.dtype.kind == "b" if isinstance(input, Tensor) else \
        input.__class__ is bool
    if bool_a or bool_b:
        raise _bool_sub_error(bool_a and bool_b)
    try:
        if alpha != 1 or alpha is True:
            alpha = _check_alpha("sub", input, other, alpha)
            return _out(Sub.apply(input, other, alpha=alpha), out, "sub", over=(input, other))
        r = Sub.apply(input, other)
    except TypeError:
        _check_input("sub", input)
        raise
    return r if out is None else _out(r, out, "sub", over=(input, other))


subtract = sub


def rsub(input, other, *, alpha=1):
    """Return ``other - alpha * input`` (subtraction with the operands swapped).

    Example:
        >>> torch.rsub(torch.tensor([1., 2.]), 5)
        tensor([4., 3.])
    """
    out = sub(other, input, alpha=alpha)
    return rename_node(out, "RsubBackward0") if isinstance(other, Tensor) else out


def mul(input, other=missing_arg, *, out=None):
    """Multiply ``input`` by ``other`` elementwise, with broadcasting and type promotion.

    Args:
        input (Tensor): the first factor.
        other (Tensor or Number): the second factor.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.mul(torch.tensor([1., 2.]), 3)
        tensor([3., 6.])
    """
    if not isinstance(other, Tensor):
        _check_number_or_tensor("mul", other)
    try:
        r = Mul.apply(input, other)
    except (TypeError, NotImplementedError):
        _check_input("mul", input)
        if out is None and _any_sparse(input, other):  # (the sparse kernels: operator forms)
            return input * other
        raise
    return r if out is None else _out(r, out, "mul", over=(input, other))


def _check_input(fn, input):
    """torch's error for a first operand that is neither a Tensor nor a number (called only
    after the op failed, so the common path pays nothing)."""
    if not isinstance(input, (Tensor, bool, int, float, complex, np.generic)):
        _check_tensor(fn, input)


def _any_sparse(a, b):
    from .._sparse import is_sparse

    return is_sparse(a) or is_sparse(b)


multiply = mul

def pow(input, exponent=missing_arg, *, out=None):  # noqa: A001 - torch's name
    """Raise ``input`` to ``exponent`` elementwise; either (not both) may be a number.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.
        out (Tensor, optional): tensor to write the result into.

    Note:
        As in torch, an integer tensor raised to a negative Python integer raises, while a
        negative exponent *tensor* gives 0 (or 1 / -1 for the bases 1 / -1).

    Example:
        >>> torch.pow(torch.tensor([1., 2., 3.]), 2)
        tensor([1., 4., 9.])
    """
    if not isinstance(input, Tensor):
        _check_number_or_tensor("pow", input, "self", 1)
        _check_tensor("pow", exponent, "exponent", 2)
        r = Pow.apply(input, exponent)
        a = r._array
        if out is None and type(a) is np.ndarray and a.ndim > 1 and not a.flags.c_contiguous:
            # torch's number ** tensor comes back row-major whatever the exponent's layout
            r._array = a.copy(order="C")
        return _out(r, out, "pow", over=(input, exponent))
    cls = exponent.__class__
    if (cls is int or cls is float) and out is None and input._array.__class__ is np.ndarray \
            and input._array.dtype.kind == "f" and input._array.dtype.itemsize >= 4:
        # ``x ** 2`` on float32/float64: the result keeps x's dtype, nothing to check
        return PowScalar.apply(input, exponent=exponent)
    if cls is not int and cls is not float and isinstance(exponent, np.generic):
        # torch treats NumPy scalars as Python numbers (NumPy bools as floats)
        exponent = float(exponent) if exponent.dtype.kind == "b" else exponent.item()
        cls = exponent.__class__
    if cls is int or cls is float or cls is bool:
        dt = _dtype.result_type(input, exponent)
        if dt._category >= _dtype._FLOAT or exponent >= 0:
            # torch's overflow check of the exponent (float32 and wider hold it as a double)
            if cls is not bool and dt._category == _dtype._INT:
                _scalar_in(exponent, dt)
            elif dt is _dtype.float16 or dt is _dtype.bfloat16:
                _scalar_in(float(exponent), dt)
            if input._array.__class__ is SparseCOO and out is None:
                return input.pow(exponent)  # the stored values raised
            x = input if input.dtype is dt else input.to(dt)
            return _out(PowScalar.apply(x, exponent=exponent), out, "pow", over=(input,))
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    _check_number_or_tensor("pow", exponent, "exponent")
    return _out(Pow.apply(input, exponent, scalar_exponent=not isinstance(exponent, Tensor)),
                out, "pow", over=(input, exponent))


def atan2(input, other=missing_arg, *, out=None):
    """Elementwise arctangent of ``input / other``, using both signs to pick the quadrant.

    Example:
        >>> torch.atan2(torch.tensor([1., -1.]), torch.tensor([-1., -1.]))
        tensor([ 2.3562, -2.3562])
    """
    _check_tensor("atan2", input)
    _check_tensor("atan2", other, "other", 2)
    return _out(Atan2.apply(input, other), out, "atan2", over=(input, other))


arctan2 = atan2


def square(input, *, out=None):
    """Return ``input * input`` (bool tensors give int64, as in torch).

    Example:
        >>> torch.square(torch.tensor([-2., 3.]))
        tensor([4., 9.])
    """
    _check_tensor("square", input)
    if out is None and input._array.__class__ is SparseCOO:  # stored values only, as torch
        return map_values(input, "square")
    return _out(pow(input, 2), out, "square")


def _lerp_dtype(kernel, input, end, weight):
    """The dtype torch's lerp computes in: ``end`` (and a dimensioned tensor ``weight``) must
    have ``input``'s dtype; a 0-d weight promotes as a 0-d operand does (an integer start with
    a 0-d float weight interpolates in the weight's dtype); a floating or complex one only."""
    cpp = _dtype._CPP_TYPE  # torch names C++ types: float, double, c10::Half, ...
    dt = input.dtype
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not dt and (t.ndim or name == "end"):
            raise RuntimeError(f"expected dtype {cpp[dt.name]} for `{name}` but got "
                               f"dtype {cpp[t.dtype.name]}")
    if isinstance(weight, Tensor):
        dt = _dtype.result_type(input, weight)
    elif isinstance(weight, complex) and not dt.is_complex:
        raise RuntimeError(f"value cannot be converted to type "
                           f"{'double' if dt is _dtype.float64 else 'float'} without overflow")
    if not dt.is_floating_point and not dt.is_complex:
        raise _not_implemented(kernel, dt.np)
    return dt


def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``.

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points (same dtype as ``input``).
        weight (float or Tensor): the interpolation weight.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.lerp(torch.tensor([0., 10.]), torch.tensor([10., 20.]), 0.5)
        tensor([ 5., 15.])
    """
    _check_tensor("lerp", input)
    _check_tensor("lerp", end, "end", 2)
    _check_number_or_tensor("lerp", weight, "weight", 3)
    kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
    dt = _lerp_dtype(kernel, input, end, weight)
    if input.dtype is not dt:  # (an integer or bool start with a 0-d float weight)
        input, end = input.to(dt), end.to(dt)
    if isinstance(weight, Tensor) and weight.dtype is not dt:
        weight = weight.to(dt)  # a 0-d weight may differ
    if isinstance(weight, Tensor):
        return _out(Lerp.apply(input, end, weight, node_name="LerpBackward1"), out, "lerp",
                    over=(input, end, weight))
    return _out(Lerp.apply(input, end, weight=weight, node_name="LerpBackward0"), out, "lerp",
                over=(input, end))


def _int_value(value, *tensors):
    # torch truncates a float ``value`` when the result is integral
    if isinstance(value, float) and _dtype.result_type(*tensors)._category < _dtype._FLOAT:
        return int(value)
    return value


def addcmul(input, tensor1, tensor2, *legacy, value=1, out=None):
    """Return ``input + value * tensor1 * tensor2`` elementwise.

    Example:
        >>> torch.addcmul(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([3., 4.]), value=2)
        tensor([ 7., 17.])
    """
    if legacy:
        value, last = _legacy_scalar_first("addcmul", tensor1, legacy, value, 1, 3)
        tensor1, tensor2 = tensor2, last
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1),
                                   ("tensor2", tensor2))):
        _check_tensor("addcmul", t, name, i + 1)
    if _bool_operand(input) and _bool_operand(tensor1) and _bool_operand(tensor2):
        raise _not_implemented("addcmul_cpu_out", np.dtype(bool))
    value = _int_value(value, input, tensor1, tensor2)
    if value != 1:
        value = _scalar_in(value, _accumulate_type(input, tensor1, tensor2))
    if _fusable(input, tensor1, tensor2, half=True):
        r = Addcmul.apply(input, tensor1, tensor2, value=value, node_name="AddcmulBackward0")
    else:
        prod = mul(tensor1, tensor2)
        r = rename_node(add(input, prod if value == 1 else mul(prod, value)),
                        "AddcmulBackward0")
    return _out(pointwise_layout_result(r, input, tensor1, tensor2), out, "addcmul",
                over=(input, tensor1, tensor2))


def addcdiv(input, tensor1, tensor2, *legacy, value=1, out=None):
    """Return ``input + value * tensor1 / tensor2`` elementwise (true division).

    Example:
        >>> torch.addcdiv(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([4., 4.]))
        tensor([1.2500, 1.5000])
    """
    if legacy:
        value, last = _legacy_scalar_first("addcdiv", tensor1, legacy, value, 1, 3)
        tensor1, tensor2 = tensor2, last
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1),
                                   ("tensor2", tensor2))):
        _check_tensor("addcdiv", t, name, i + 1)
    if not (_is_float(tensor1) or _is_float(tensor2)):
        # (torch's text has the double space)
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future  release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    if value != 1:
        value = _scalar_in(value, _accumulate_type(input, tensor1, tensor2))
    if _fusable(input, tensor1, tensor2, half=True) and not isinstance(value, Tensor):
        r = Addcdiv.apply(input, tensor1, tensor2, value=value, node_name="AddcdivBackward0")
    else:
        q = div(tensor1, tensor2)
        r = rename_node(add(input, q if value == 1 else mul(q, value)), "AddcdivBackward0")
    return _out(pointwise_layout_result(r, input, tensor1, tensor2), out, "addcdiv",
                over=(input, tensor1, tensor2))


def _fusable(*tensors, half=False):
    """Three dense float32 (or three float64) tensors: the operands torch's addcmul/addcdiv
    kernels combine in their own precision, which the fused forms reproduce (with ``half``,
    three float16 or bfloat16 ones too: Addcmul's float32 form)."""
    dt = tensors[0].dtype
    return (dt is _dtype.float32 or dt is _dtype.float64 or half and (
        dt is _dtype.float16 or dt is _dtype.bfloat16)) and all(
        isinstance(t, Tensor) and t.dtype is dt and t._array.__class__ is not SparseCOO
        for t in tensors)


def _accumulate_type(*tensors):
    """The dtype torch's addcmul/addcdiv kernels hold ``value`` in: float for half types."""
    dt = _dtype.result_type(*tensors)
    return _dtype.float32 if dt in (_dtype.float16, _dtype.bfloat16) else dt
