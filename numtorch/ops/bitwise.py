"""Logical and integer bit ops: ``logical_*``, ``bitwise_*``, the shifts, ``gcd`` and ``lcm``.

None of them has a gradient. Logical ops read any dtype as truth values; bit ops accept only
integer and bool tensors (torch's "not implemented" error for floating ones).
"""

import numpy as np

from .. import _dtype
from .._required_dim import missing_arg
from ..autograd.graph import Op
from ._pointwise import (
    _broadcast_error, _check_number_or_tensor, _check_tensor, _not_implemented, _out, _unary,
)

__all__ = [
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm",
]


class _Logical(Op):
    """y = a and/or/xor b on truth values (any dtypes, no promotion); no gradient."""

    out_layout = "pointwise"
    differentiable = False

    def forward(self, a, b):
        # CuPy's logical ufuncs have no complex loops: complex operands become truth values
        a, b = (v != 0 if getattr(v, "dtype", None) is not None and v.dtype.kind == "c" else v
                for v in (a, b))
        try:
            return getattr(self.xp, self.fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class _Bitwise(Op):
    """y = a &/|/^ b on integers and bools; no gradient."""

    out_layout = "pointwise"
    promote = True
    differentiable = False

    def forward(self, a, b):
        if _dtype.np_kind(a.dtype) in "fc":
            raise _not_implemented(f"{self.fn}_cpu", a.dtype)
        try:
            return getattr(self.xp, self.fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class LogicalNot(Op):
    """y = not x (x == 0); no gradient."""

    out_layout = "elementwise"

    differentiable = False

    def forward(self, x):
        if x.dtype.kind == "c":  # CuPy's logical_not has no complex loop
            return x == 0
        return self.xp.logical_not(x)


class BitwiseNot(Op):
    """y = ~x on integers (logical not on bools); no gradient."""

    out_layout = "elementwise"

    differentiable = False

    def forward(self, x):
        if _dtype.np_kind(x.dtype) in "fc":
            raise _not_implemented("bitwise_not_cpu", x.dtype)
        return self.xp.logical_not(x) if x.dtype == np.bool_ else self.xp.invert(x)


class _Shift(Op):
    """y = a << b or a >> b on integers; no gradient.

    Shifts by a negative amount or by the bit width or more give what shifting one bit at a
    time would (0, or -1 for negative numbers shifted right), as in torch; C leaves them
    undefined.
    """

    out_layout = "pointwise"
    promote = True
    differentiable = False

    def forward(self, a, b):
        xp = self.xp
        if a.dtype.kind not in "iu":
            raise _not_implemented(f"{self.kernel}_cpu", a.dtype)
        bits = a.dtype.itemsize * 8
        try:
            out_of_range = (b < 0) | (b >= bits)
            shifted = self.shift(xp, a, xp.where(out_of_range, 0, b).astype(a.dtype))
        except ValueError as e:
            _broadcast_error(e, a, b)
        if not out_of_range.any():
            return shifted
        return xp.where(out_of_range, self.overflow(xp, a, bits), shifted).astype(a.dtype)


class LeftShift(_Shift):
    """y = a << b (wrapping); no gradient."""

    kernel = "lshift"

    def shift(self, xp, a, b):
        return xp.left_shift(a, b)

    def overflow(self, xp, a, bits):
        return a.dtype.type(0)


class RightShift(_Shift):
    """y = a >> b (arithmetic for signed integers); no gradient."""

    kernel = "rshift"

    def shift(self, xp, a, b):
        return xp.right_shift(a, b)

    def overflow(self, xp, a, bits):
        return xp.right_shift(a, bits - 1) if a.dtype.kind == "i" else a.dtype.type(0)


class _Divisors(Op):
    """y = gcd(a, b) or lcm(a, b) on integers (non-negative); no gradient."""

    out_layout = "pointwise"
    promote = True
    differentiable = False

    def forward(self, a, b):
        if a.dtype.kind not in "iu":
            raise _not_implemented(f"{self.fn}_cpu", a.dtype)
        try:
            if self.fn == "lcm" and a.dtype.kind == "i" and a.dtype.itemsize < 4:
                # torch wraps |a| / gcd * |b| into the narrow type, which can leave it
                # negative; CuPy negates the wrapped product when negative (lcm(-14, 13) is
                # 74 there, -74 in torch): form the exact product in int32, then wrap
                wide = np.dtype(np.int32)
                return self.xp.lcm(a.astype(wide), b.astype(wide)).astype(a.dtype)
            return getattr(self.xp, self.fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


def _invert_operator(input):
    """``~input``: torch raises TypeError for floating tensors (the function raises otherwise)."""
    if _dtype.np_kind(input._array.dtype) in "fc":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return BitwiseNot.apply(input)


def _logical(fn_name):
    def fn(input, other=missing_arg, *, out=None):
        _check_tensor(fn_name, input)
        _check_tensor(fn_name, other, "other", 2)
        return _out(_Logical.apply(input, other, fn=fn_name), out, fn_name,
                    over=(input, other))

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Elementwise ``{fn_name[8:]}`` of the truth values of two tensors (nonzero "
                  f"is True).\n")
    return fn


def _bitwise(fn_name):
    def fn(input, other=missing_arg, *, out=None):
        _check_number_or_tensor(fn_name, input, "input", 1)
        _check_number_or_tensor(fn_name, other)
        return _out(_Bitwise.apply(input, other, fn=fn_name), out, fn_name,
                    over=(input, other))

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Elementwise ``{fn_name[8:]}`` of the bits of integer or bool operands.\n")
    return fn


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")
bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")
logical_not = _unary(LogicalNot, "logical_not", "Return True where ``input`` is zero.")
bitwise_not = _unary(BitwiseNot, "bitwise_not", "Invert the bits of an integer or bool tensor.")


def bitwise_left_shift(input, other=missing_arg, *, out=None):
    """Shift the bits of integer ``input`` left by ``other`` (``input << other``).

    Bits shifted out are lost (the result wraps in the dtype); shifting by a negative amount
    or by the bit width or more gives 0, as in torch.

    Args:
        input (Tensor or Number): the integers to shift.
        other (Tensor or Number): the shift amounts.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.bitwise_left_shift(torch.tensor([1, -3], dtype=torch.int8), 2)
        tensor([  4, -12], dtype=torch.int8)
    """
    _check_number_or_tensor("bitwise_left_shift", input, "input", 1)
    _check_number_or_tensor("bitwise_left_shift", other)
    return _out(LeftShift.apply(input, other), out, "bitwise_left_shift",
                over=(input, other))


def bitwise_right_shift(input, other=missing_arg, *, out=None):
    """Shift the bits of integer ``input`` right by ``other`` (``input >> other``).

    Signed integers shift arithmetically (the sign is kept); shifting by a negative amount or
    by the bit width or more gives 0, or -1 for negative numbers, as in torch.

    Example:
        >>> torch.bitwise_right_shift(torch.tensor([-16, 16]), 2)
        tensor([-4,  4])
    """
    _check_number_or_tensor("bitwise_right_shift", input, "input", 1)
    _check_number_or_tensor("bitwise_right_shift", other)
    return _out(RightShift.apply(input, other), out, "bitwise_right_shift",
                over=(input, other))


def gcd(input, other, *, out=None):
    """Return the greatest common divisor of integer tensors (``gcd(0, 0) = 0``).

    Example:
        >>> torch.gcd(torch.tensor([12, -18, 0]), torch.tensor([8, 12, 5]))
        tensor([4, 6, 5])
    """
    _check_tensor("gcd", input)
    _check_tensor("gcd", other, "other", 2)
    return _out(_Divisors.apply(input, other, fn="gcd"), out, "gcd", over=(input, other))


def lcm(input, other, *, out=None):
    """Return the least common multiple of integer tensors (0 if either is 0).

    Example:
        >>> torch.lcm(torch.tensor([4, -3, 0]), torch.tensor([6, 5, 7]))
        tensor([12, 15,  0])
    """
    _check_tensor("lcm", input)
    _check_tensor("lcm", other, "other", 2)
    return _out(_Divisors.apply(input, other, fn="lcm"), out, "lcm", over=(input, other))
