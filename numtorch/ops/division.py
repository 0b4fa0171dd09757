"""Division: true division, its floor and trunc rounding modes, ``floor_divide``, and the two
moduli (``remainder`` takes the sign of the divisor, ``fmod`` that of the dividend).

Integer division by zero raises, as torch's does, instead of returning NumPy's junk; the
float forms give inf and NaN.
"""

import numpy as np

from .._required_dim import missing_arg
from .._tensor import Tensor
from ..autograd.graph import Op
from ..backend import _keep_dtype as keep_dtype
from ..backend import helpers_for
from ._pointwise import (
    _broadcast_error, _check_number_or_tensor, _check_tensor, _not_implemented, _out,
    _zeros_like,
)

__all__ = ["div", "true_divide", "floor_divide", "remainder", "fmod", "divide"]


class Div(Op):
    """y = a / b; dy/da = 1/b, dy/db = -a/b**2."""

    out_layout = "pointwise"
    promote = "float"
    opmath_scalar = True

    def forward(self, a, b):
        if self._recording:  # a's gradient reads only b; b's reads both
            self.save_inputs(a, b) if self.needs_input_grad[1] else self.save_inputs(b)
        try:
            if a.dtype.kind == "c":  # CuPy divides complex numbers by its own rule
                return helpers_for(self.xp).true_divide(a, b)
            if b.__class__ is np.float32 and a.dtype.itemsize == 2:  # (a Python number)
                return (a.astype(np.float32) / b).astype(a.dtype)
            return a / b
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        na, nb = self.needs_input_grad
        if nb:
            a, b = self.saved_inputs()
        else:
            a, b = None, self.saved_inputs()
        if grad._array.dtype.kind != "c":
            if not nb:
                return grad / b, None
            out = DivBackward.apply(grad, a, b, with_a=na)
            return out if na else (None, out)
        a, b = (a if a is None else a.conj()), b.conj()  # the conjugate derivative (_cj)
        ga = grad / b if na else None
        gb = -grad * a / (b * b) if nb else None
        return ga, gb

    def backward_arrays(self, g):
        if g.dtype != self._out_meta[0][1] or g.dtype.kind == "c":
            return NotImplemented
        na, nb = self.needs_input_grad
        if not nb:
            b = self.saved_input_arrays()
            if b.__class__ is np.float32 and g.dtype.itemsize == 2:  # (a Python number)
                return (g.astype(np.float32) / b).astype(g.dtype), None
            return g / b, None
        a, b = self.saved_input_arrays()
        out = _div_grads(g, a, b, na)
        return out if na else (None, out)


class _DivHalf0d(Div):
    """``Div`` of a float16/bfloat16 tensor by a 0-d float32 one that needs a gradient
    (``Op.apply`` routes it here): in float32, rounded once, as torch's kernel reads a 0-d
    divisor like a number; its gradients as torch composes them, ``g / b`` and
    ``-g * ((a / b) / b)``, each step with ``b`` read as a number."""

    node_name = "DivBackward0"
    promote = False
    opmath_scalar = False
    out_layout = None
    backward_arrays = None

    def forward(self, a, b):
        self.save_inputs(a, b)
        try:
            return (a.astype(np.float32) / b).astype(a.dtype)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        na, nb = self.needs_input_grad
        a, b = self.saved_inputs()
        return (grad / b if na else None), (-(grad * ((a / b) / b)) if nb else None)


Div.half_0d_op = _DivHalf0d


def _div_grads(g, a, b, with_a):
    """DivBackward's forward on arrays: ``(g / b, -g * ((a / b) / b))``, or only the second."""
    gb = -(g * ((a / b) / b))
    if gb.shape != b.shape:  # a broadcast divisor (a normaliser): summed down here, on the
        gb = _sum_to(gb, b.shape)  # array, rather than by one more op in the engine
    return (g / b, gb) if with_a else gb


class DivBackward(Op):
    """Both gradients of real ``a / b`` in one op: ``(g / b, -g * ((a / b) / b))`` (only the
    second when ``with_a`` is False), as torch rounds them.

    Why a primitive: the composed form is five ops on the graph, and a normaliser such as
    ``probs / probs.sum(-1, keepdim=True)`` (``Categorical``) runs it on every step.
    """

    out_layout = "elementwise"

    def forward(self, g, a, b):
        self.save_inputs(g, a, b)
        return _div_grads(g, a, b, self.with_a)

    def backward(self, *ggs):
        g, a, b = self.saved_inputs()
        gga, ggb = ggs if self.with_a else (None, ggs[0])
        dg = da = db = None
        if ggb is not None:  # gb = -g a / b**2
            s = -(ggb / b) / b
            dg, da = s * a, s * g
            db = (s * g) * a / b * -2
        if gga is not None:  # ga = g / b
            u = gga / b
            dg = u if dg is None else dg + u
            d = -(u * g) / b
            db = d if db is None else db + d
        return dg, da, db


def _half_in_float32(a, b):
    """float16/bfloat16 operands of a rounded division as float32, where torch's kernel works
    in float32 and rounds once: when the divisor is a single value (a Python number, held as
    a float32, or a one-element tensor); otherwise None."""
    if a.dtype.itemsize == 2 and a.dtype.kind in "fV" and b.size == 1:
        return a.astype(np.float32), b.astype(np.float32)
    return None


def _half_floor_steps(xp, a, b):
    """Python's floor division on two 16-bit arrays, each step rounded to their dtype (torch's
    kernel for a dividend and divisor that are both tensors)."""
    def where(c, x, y):  # (CuPy's where has no bfloat16 loop)
        return keep_dtype.where(xp, c, x, y)

    mod = xp.fmod(a, b)
    q = (a - mod) / b
    q = where((mod != 0) & ((b < 0) != (mod < 0)), q - 1, q)
    f = xp.floor(q)
    f = where(q - f > 0.5, f + 1, f)
    f = where(q == 0, xp.copysign(xp.zeros_like(q), a / b), f)
    return where(b == 0, a / b, f).astype(a.dtype, copy=False)


class FloorDivide(Op):
    """y = floor(a / b) (integer or float); torch defines no derivative, so backward raises."""

    out_layout = "pointwise"
    promote = True
    opmath_scalar = True

    def forward(self, a, b):
        xp = self.xp
        kind = a.dtype.kind
        if (wide := _half_in_float32(a, b)) is not None:
            return self.forward(*wide).astype(a.dtype)
        if a.dtype.itemsize == 2 and kind in "fV":
            try:
                with np.errstate(all="ignore"):
                    return _half_floor_steps(xp, a, b)
            except ValueError as e:
                _broadcast_error(e, a, b)
        if kind in "iubc":
            if kind in "bc":
                raise _not_implemented("div_floor_cpu", a.dtype)
            _check_int_divisor(xp, b)
        try:
            # NumPy's floor_divide corrects a / b for rounding as Python and torch do
            # (1 // 0.1 == 9), which floor(a / b) (CuPy's float kernel) does not
            return helpers_for(xp).floor_divide(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class DivFloor(FloorDivide):
    """y = floor(a / b) for ``div(rounding_mode='floor')``; dy/da = dy/db = 0 (as torch)."""

    def backward(self, grad):
        z = _zeros_like(grad)
        return z, z


class DivTrunc(Op):
    """y = trunc(a / b) for ``div(rounding_mode='trunc')``; dy/da = dy/db = 0 (as torch)."""

    out_layout = "pointwise"
    promote = True
    opmath_scalar = True

    def forward(self, a, b):
        xp = self.xp
        kind = a.dtype.kind
        if (wide := _half_in_float32(a, b)) is not None:
            return self.forward(*wide).astype(a.dtype)
        try:
            if kind in "iubc":
                if kind in "bc":
                    raise _not_implemented("div_trunc_cpu", a.dtype)
                _check_int_divisor(xp, b)
                q = xp.floor_divide(a, b)
                return q + ((q < 0) & (q * b != a))  # floor -> trunc for inexact negatives
            return xp.trunc(a / b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        z = _zeros_like(grad)
        return z, z


def _sum_to(arr, shape):
    """``arr`` summed over the dims that broadcasting added to or stretched in ``shape``."""
    lead = arr.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + k for k, n in enumerate(shape)
                                      if n == 1 and arr.shape[lead + k] != 1)
    if type(arr) is np.ndarray:  # torch's summation order (as the engine's broadcast sums)
        sum_array = _SUM_ARRAY[0]
        if sum_array is None:  # (imported once, not per call)
            from .reduction import sum_array

            _SUM_ARRAY[0] = sum_array
        return np.ascontiguousarray(sum_array(arr, dims, True)).reshape(shape)
    return arr.sum(axis=dims, keepdims=True).reshape(shape)


_SUM_ARRAY = [None]


def _check_int_divisor(xp, b):
    # torch's CPU kernels raise for integer division by zero instead of returning junk; its
    # CUDA kernels do not check (a check there would wait for the GPU on every division)
    if xp is np and not np.all(b):
        raise RuntimeError("ZeroDivisionError")


class _Modulo(Op):
    """y = a - round(a/b) * b; dy/da = 1, dy/db = -round(a/b) (the subclass picks the
    rounding, NumPy function and torch kernel name)."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        kind = a.dtype.kind
        if kind in "iubc":
            if kind in "bc":
                raise _not_implemented(self.kernel, a.dtype)
            _check_int_divisor(self.xp, b)
        try:
            if self.np_fn == "remainder":  # CuPy's float kernel is a - floor(a / b) * b
                return helpers_for(self.xp).remainder(a, b)
            return getattr(self.xp, self.np_fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        if not self.needs_input_grad[1]:
            return grad, None
        return grad, -grad * div(a, b, rounding_mode=self.rounding)


class Remainder(_Modulo):
    """y = a - floor(a/b) * b (sign of b); dy/da = 1, dy/db = -floor(a/b)."""

    np_fn, kernel, rounding = "remainder", "remainder_cpu", "floor"


class Fmod(_Modulo):
    """y = a - trunc(a/b) * b (sign of a); dy/da = 1, dy/db = -trunc(a/b)."""

    np_fn, kernel, rounding = "fmod", "fmod_cpu", "trunc"


def div(input, other=missing_arg, *, rounding_mode=None, out=None):
    """Divide ``input`` by ``other`` elementwise.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): None for true division (integers give the default
            float dtype), ``'trunc'`` to round toward zero, ``'floor'`` to round down; the
            rounded forms keep integer dtypes and raise on integer division by zero.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor")
        tensor([ 3, -4])
    """
    if not isinstance(other, Tensor):
        _check_number_or_tensor("div", other)
    if rounding_mode is None:
        if type(other) is int and isinstance(input, Tensor) and input._array.dtype.itemsize == 2 \
                and input._array.dtype.kind in "fV" and -(1 << 63) <= other < 1 << 64:
            other = float(other)  # a half tensor over a Python int: in float32 (opmath_scalar)
        try:
            r = Div.apply(input, other)
        except TypeError:
            if not isinstance(input, (Tensor, bool, int, float, complex, np.generic)):
                _check_tensor("div", input)
            raise
        return r if out is None else _out(r, out, "div", over=(input, other))
    if rounding_mode == "floor":
        return _out(DivFloor.apply(input, other), out, "div", over=(input, other))
    if rounding_mode == "trunc":
        return _out(DivTrunc.apply(input, other), out, "div", over=(input, other))
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide = div


def true_divide(input, other=missing_arg, *, out=None):
    """Same as :func:`div` with ``rounding_mode=None``."""
    return div(input, other, out=out)


def floor_divide(input, other=missing_arg, *, out=None):
    """Divide and round down elementwise (Python's ``//``); torch gives it no derivative.

    Example:
        >>> torch.floor_divide(torch.tensor([7., -7.]), 2)
        tensor([ 3., -4.])
    """
    _check_number_or_tensor("floor_divide", other)
    r = FloorDivide.apply(input, other)
    if out is None:
        return r
    # torch lets out= through with grad-requiring inputs here: there is no derivative to lose
    return _out(r.detach(), out, "floor_divide")


def remainder(input, other=missing_arg, *, out=None):
    """Python-style modulus: the result has the sign of ``other`` (``input % other``).

    Example:
        >>> torch.remainder(torch.tensor([-3, 3]), 2)
        tensor([1, 1])
    """
    _check_number_or_tensor("remainder", other)
    return _out(Remainder.apply(input, other), out, "remainder", over=(input, other))


def fmod(input, other=missing_arg, *, out=None):
    """C-style modulus: the result has the sign of ``input``.

    Example:
        >>> torch.fmod(torch.tensor([-3, 3]), 2)
        tensor([-1,  1])
    """
    _check_tensor("fmod", input)
    _check_number_or_tensor("fmod", other)
    return _out(Fmod.apply(input, other), out, "fmod", over=(input, other))
