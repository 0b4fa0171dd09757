"""Floating-point helpers: signs and bits (``copysign``, ``signbit``, ``frexp``, ``ldexp``,
``nextafter``, ``nan_to_num``), float math on two operands (``hypot``, ``logaddexp``,
``logaddexp2``, ``float_power``, ``heaviside``) and angle units (``deg2rad``, ``rad2deg``).

Where torch defines no gradient for an input (the sign source of ``copysign``, the direction
of ``nextafter``) the gradient is zero, as torch's is.
"""

import math

import numpy as np

from .. import _dtype, return_types
from .._required_dim import missing_arg
from .._sparse import SparseCOO, map_values
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ..backend import _keep_dtype as keep_dtype
from ._pointwise import (
    _broadcast_error, _check_number_or_tensor, _check_tensor, _cj, _not_implemented, _out,
    _zeros_like,
)
from ._util import as_real
from .comparison import where
from .elementwise import mul, pow
from .unary import exp

__all__ = ["copysign", "signbit", "frexp", "ldexp", "nextafter", "nan_to_num", "hypot",
           "logaddexp", "logaddexp2", "float_power", "heaviside", "deg2rad", "rad2deg"]


class Copysign(Op):
    """y = |a| with the sign of b; dy/da = y / a (0 at a == 0), dy/db = 0."""

    out_layout = "pointwise"
    promote = "float"

    def forward(self, a, b):
        xp = self.xp
        if _dtype.np_kind(a.dtype) == "c":
            raise _not_implemented("copysign_cpu", a.dtype)
        try:
            y = xp.copysign(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)
        if self._recording and self.needs_input_grad[0]:
            self.save_inputs(a, b)
            self.save_output(y)
        return y

    def backward(self, grad):
        na, nb = self.needs_input_grad
        ga = None
        if na:
            # grad * y / a, 0 at a == 0 (NaN where a is NaN or infinite), written with the
            # saved tensors as torch's formula is, so it joins the graph under create_graph
            a, _ = self.saved_inputs()
            ga = where(a == 0, 0.0, grad * (self.saved_output() / a))
        return ga, (_zeros_like(grad) if nb else None)


class Signbit(Op):
    """y = True where the sign bit of x is set (-0.0 included); no gradient."""

    out_layout = "elementwise"

    differentiable = False

    def forward(self, x):
        kind = _dtype.np_kind(x.dtype)
        if kind == "c":
            raise NotImplementedError("signbit is not implemented for complex tensors.")
        if kind == "f":
            return self.xp.signbit(x)
        if kind == "i":
            return x < 0
        return self.xp.zeros(x.shape, dtype=bool)


class Frexp(Op):
    """(m, e) with x = m 2^e and 0.5 <= |m| < 1; dm/dx = 2^-e, e has no gradient."""

    out_layout = "elementwise"

    def forward(self, x):
        if _dtype.np_kind(x.dtype) != "f":
            raise RuntimeError("torch.frexp() only supports floating-point dtypes")
        m, e = self.xp.frexp(x)
        e = e.astype(np.int32, copy=False)
        self.save(exponent=e)
        return m, e

    def backward(self, grad, _grad_exponent):
        e = self.saved("exponent")
        xp = self.xp
        return grad * _make(xp.ldexp(xp.ones(e.shape, grad._array.dtype), -e))


class Nextafter(Op):
    """y = the next float after a towards b; dy/da = 1 (0 where a == b), dy/db = 0."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        if _dtype.np_kind(a.dtype) != "f":
            raise _not_implemented("nextafter_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            return self.xp.nextafter(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        return (where(a == b, 0.0, grad) if na else None), (_zeros_like(grad) if nb else None)


class NanToNum(Op):
    """y = x with NaN and +-inf replaced by finite numbers; dy/dx = 1 where x is finite, else
    0."""

    out_layout = "elementwise"

    def forward(self, x):
        xp = self.xp
        if _dtype.np_kind(x.dtype) not in "fc":
            return x.copy()
        self.save_inputs(x)
        if x.dtype is _dtype._BF16_NP:  # NumPy's nan_to_num passes non-NumPy float types through
            big = _dtype.finfo(_dtype.bfloat16).max
            pos = big if self.posinf is None else self.posinf
            neg = -big if self.neginf is None else self.neginf
            return xp.nan_to_num(x.astype(np.float32), nan=self.nan, posinf=pos,
                                 neginf=neg).astype(x.dtype)
        return xp.nan_to_num(x, nan=self.nan, posinf=self.posinf, neginf=self.neginf)

    def backward(self, grad):
        x = self.saved_inputs()
        return where(x.isfinite(), grad, 0.0)


class Hypot(Op):
    """y = sqrt(a^2 + b^2); dy/da = a / y, dy/db = b / y."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        if _dtype.np_kind(a.dtype) != "f":
            raise _not_implemented("hypot_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            return self.save_output(self.xp.hypot(a, b))
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        r = grad / self.saved_output()
        return r * a, r * b


class Logaddexp(Op):
    """y = log(e^a + e^b); dy/da = sigmoid(a - b), dy/db = sigmoid(b - a)."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        xp = self.xp
        kind = _dtype.np_kind(a.dtype)
        if kind not in "fc":
            raise _not_implemented("logaddexp_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            if kind == "f":
                return xp.logaddexp(a, b)
            # complex: factor out the operand with the larger real part so exp cannot overflow
            first = a.real >= b.real
            hi, lo = xp.where(first, a, b), xp.where(first, b, a)
            return hi + xp.log1p(xp.exp(lo - hi))
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        # written as torch's derivative is, so that its own derivative (NaN where an operand is
        # -inf and the other finite or +inf: inf / inf) and roundings are torch's too
        a, b = self.saved_inputs()
        return grad / _cj(1 + exp(b - a)), grad / _cj(1 + exp(a - b))


class Logaddexp2(Op):
    """y = log2(2^a + 2^b); dy/da = sigmoid((a - b) ln 2), dy/db = sigmoid((b - a) ln 2)."""

    out_layout = "pointwise"
    promote = True

    def forward(self, a, b):
        if _dtype.np_kind(a.dtype) != "f":
            raise _not_implemented("logaddexp2_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            return self.xp.logaddexp2(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()  # torch's derivative's form, as Logaddexp's
        return grad / (1 + pow(2.0, b - a)), grad / (1 + pow(2.0, a - b))


class Heaviside(Op):
    """y = 0 for x < 0 (and NaN), ``values`` at x == 0, 1 for x > 0; torch defines no
    derivative, so backward raises."""

    out_layout = "pointwise"

    def forward(self, x, values):
        xp = self.xp
        try:
            return keep_dtype.where(xp, x == 0, values, (x > 0).astype(x.dtype))
        except ValueError as e:
            _broadcast_error(e, x, values)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


# ---------------------------------------------------------------------------------------------
# public functions


def copysign(input, other, *, out=None):
    """Return the magnitudes of ``input`` with the signs of ``other`` (``-0.0`` counts as
    negative).

    Args:
        input (Tensor): the magnitudes (integer inputs give the default float dtype).
        other (Tensor or Number): the signs.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.copysign(torch.tensor([1., -2., 3.]), -1.)
        tensor([-1., -2., -3.])
    """
    _check_tensor("copysign", input)
    _check_number_or_tensor("copysign", other)
    r = Copysign.apply(input, other)
    if not isinstance(other, Tensor):  # torch's node of the Scalar overload
        rename_node(r, "CopysignBackward1")
    return _out(r, out, "copysign", over=(input, other))


def signbit(input, *, out=None):
    """Return True where the sign bit is set: negative numbers, ``-0.0`` and negative NaNs.

    Example:
        >>> torch.signbit(torch.tensor([-1., -0., 0., 2.]))
        tensor([ True,  True, False, False])
    """
    _check_tensor("signbit", input)
    if out is None and input._array.__class__ is SparseCOO:  # stored values only, as torch
        return map_values(input, "signbit")
    return _out(Signbit.apply(input), out, "signbit")


def frexp(input, *, out=None):
    """Split each element into a mantissa in ``[0.5, 1)`` (by magnitude) and an exponent.

    Args:
        input (Tensor): a floating-point tensor.
        out (tuple of Tensor, optional): ``(mantissa, exponent)`` tensors to write into.

    Returns:
        A named tuple ``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``; the
        exponent is int32.

    Example:
        >>> torch.frexp(torch.tensor([8., 0.75]))
        torch.return_types.frexp(
        mantissa=tensor([0.5000, 0.7500]),
        exponent=tensor([4, 0], dtype=torch.int32))
    """
    _check_tensor("frexp", input)
    return _out(return_types.frexp(Frexp.apply(input)), out, "frexp")


def ldexp(input, other, *, out=None):
    """Return ``input * 2 ** other`` (integers give the default float dtype).

    Note:
        torch 2.13 returns a zero gradient for ``input`` when ``other`` holds negative
        integers (it raises 2 to them in integer arithmetic); numtorch returns the true
        gradient, ``2 ** other``.

    Example:
        >>> torch.ldexp(torch.tensor([1., 3.]), torch.tensor([2, -1]))
        tensor([4.0000, 1.5000])
    """
    _check_tensor("ldexp", input)
    _check_tensor("ldexp", other, "other", 2)
    dt = _dtype.result_type(input, other)
    if dt._category < _dtype._FLOAT:
        dt = _dtype.get_default_dtype()
    # the power is taken in the result dtype, so a dimensioned integer exponent cannot pull a
    # 0-d float64 input down to float32
    return _out(mul(input, pow(2.0, other if other.dtype is dt else other.to(dt))), out, "ldexp")


def nextafter(input, other, *, out=None):
    """Return the next representable float after each ``input`` element towards ``other``.

    Example:
        >>> torch.nextafter(torch.tensor([1.0], dtype=torch.float64),
        ...                 torch.tensor([2.0], dtype=torch.float64)) - 1
        tensor([2.2204e-16], dtype=torch.float64)
    """
    _check_tensor("nextafter", input)
    _check_tensor("nextafter", other, "other", 2)
    return _out(Nextafter.apply(input, other), out, "nextafter", over=(input, other))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN, +inf and -inf by finite numbers (integer and bool tensors are copied).

    Args:
        input (Tensor): the input.
        nan (float): the value for NaN. Default: 0.
        posinf (float, optional): the value for +inf. Default: the dtype's largest finite value.
        neginf (float, optional): the value for -inf. Default: the dtype's lowest finite value.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -1.]), posinf=9.)
        tensor([ 0.,  9., -1.])
    """
    _check_tensor("nan_to_num", input)
    if out is None and input._array.__class__ is SparseCOO:  # stored values only, as torch
        return map_values(input, "nan_to_num", nan, posinf, neginf)
    nan, posinf, neginf = as_real(nan), as_real(posinf), as_real(neginf)
    for name, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float,
                                                                        np.number))):
            raise TypeError(f"nan_to_num(): argument '{name}' must be float, not "
                            f"{type(v).__name__}")
    return _out(NanToNum.apply(input, nan=0.0 if nan is None else nan, posinf=posinf,
                               neginf=neginf), out, "nan_to_num",
                "nan_to_num: dtype of out: {got} should be same as input: {want}")


def _float_pair(fn, *operands):
    """The two-operand float functions take tensors only (torch's TypeError otherwise)."""
    for i, (name, t) in enumerate(zip(("input", "other"), operands)):
        _check_tensor(fn, t, name, i + 1)


def hypot(input, other, *, out=None):
    """Return ``sqrt(input ** 2 + other ** 2)`` without overflow or underflow.

    Example:
        >>> torch.hypot(torch.tensor([3., 5.]), torch.tensor([4., 12.]))
        tensor([ 5., 13.])
    """
    _float_pair("hypot", input, other)
    return _out(Hypot.apply(input, other), out, "hypot", over=(input, other))


def logaddexp(input, other, *, out=None):
    """Return ``log(exp(input) + exp(other))`` without overflow (complex tensors work too).

    Example:
        >>> torch.logaddexp(torch.tensor([100., 0.]), torch.tensor([100., 0.]))
        tensor([100.6931,   0.6931])
    """
    _float_pair("logaddexp", input, other)
    return _out(Logaddexp.apply(input, other), out, "logaddexp", over=(input, other))


def logaddexp2(input, other, *, out=None):
    """Return ``log2(2 ** input + 2 ** other)`` without overflow.

    Example:
        >>> torch.logaddexp2(torch.tensor([3., 0.]), torch.tensor([3., 0.]))
        tensor([4., 1.])
    """
    _float_pair("logaddexp2", input, other)
    return _out(Logaddexp2.apply(input, other), out, "logaddexp2", over=(input, other))


def _float_power_dtype(*operands):
    for x in operands:
        if (isinstance(x, Tensor) and x.dtype.is_complex) or isinstance(x, complex):
            return _dtype.complex128
    return _dtype.float64


def float_power(input, exponent=missing_arg, *, out=None):
    """Raise ``input`` to ``exponent`` in double precision (float64, or complex128 when either
    operand is complex).

    Example:
        >>> torch.float_power(torch.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=torch.float64)
    """
    if not isinstance(input, Tensor):
        _check_number_or_tensor("float_power", input, "self", 1)
        _check_tensor("float_power", exponent, "exponent", 2)
    _check_number_or_tensor("float_power", exponent, "exponent", 2)
    dt = _float_power_dtype(input, exponent)
    a, b = (x.to(dt) if isinstance(x, Tensor) else
            (complex(x) if dt is _dtype.complex128 else float(x)) for x in (input, exponent))
    return _out(pow(a, b), out, "float_power")


def float_power_(input, exponent):
    """In-place :func:`float_power`; ``input`` must already have the double result dtype."""
    from ..autograd.inplace import apply_inplace

    dt = _float_power_dtype(input, exponent)
    if input.dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dtype._TYPE_DISPLAY[input.dtype.name]} but the operation's "
                           f"result requires dtype {_dtype._TYPE_DISPLAY[dt.name]}")
    return apply_inplace(input, float_power, exponent)


def heaviside(input, values, *, out=None):
    """Return the Heaviside step: 0 below zero, ``values`` at zero, 1 above zero.

    Args:
        input (Tensor): the input.
        values (Tensor): the values at ``input == 0`` (the same dtype as ``input``).
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.heaviside(torch.tensor([-2., 0., 3.]), torch.tensor([0.5]))
        tensor([0.0000, 0.5000, 1.0000])
    """
    _check_tensor("heaviside", input)
    _check_tensor("heaviside", values, "values", 2)
    if input.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different "
                           "dtypes.")
    return _out(Heaviside.apply(input, values), out, "heaviside")


def _angle_units(fn, input, factor, out):
    _check_tensor(fn, input)
    if input.dtype.is_complex:
        raise RuntimeError(f"{fn} is not supported for complex tensors.")
    node = "Deg2RadBackward0" if fn == "deg2rad" else "Rad2DegBackward0"
    return _out(rename_node(mul(input, factor), node), out, fn)


def deg2rad(input, *, out=None):
    """Convert angles from degrees to radians (integers give the default float dtype).

    Example:
        >>> torch.deg2rad(torch.tensor([180., 90.]))
        tensor([3.1416, 1.5708])
    """
    if out is None and isinstance(input, Tensor) and input._array.__class__ is SparseCOO:
        return map_values(input, "deg2rad")
    return _angle_units("deg2rad", input, math.pi / 180.0, out)


def rad2deg(input, *, out=None):
    """Convert angles from radians to degrees (integers give the default float dtype).

    Example:
        >>> torch.rad2deg(torch.tensor([3.141592653589793, 1.]))
        tensor([180.0000,  57.2958])
    """
    if out is None and isinstance(input, Tensor) and input._array.__class__ is SparseCOO:
        return map_values(input, "rad2deg")
    return _angle_units("rad2deg", input, 180.0 / math.pi, out)
