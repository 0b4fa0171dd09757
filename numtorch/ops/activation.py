"""Activation primitives: one fused forward and one fused backward op per activation.

This file holds the piecewise-linear family and ELU/SELU/CELU and re-exports the rest:
``_smooth_activation.py`` has the sigmoid family, softplus, SiLU, Mish and GELU, and
``_activation_base.py`` the branch-free selection and the op base classes.

``nn.functional`` composes everything it can; these are primitives for two reasons only:

- **speed**: NumPy's ``where`` mispredicts branches on a random mask and runs about 30 times
  slower than a multiply (roughly 600 us against 20 us on 64k floats), so masks are applied
  with bit operations (:func:`select`), and each activation is one forward pass plus one fused
  backward op instead of four or five composed ops, each allocating a full-size temporary;
- **numerics**: ELU/SELU/CELU (and softplus, logsigmoid, SiLU, Mish) are evaluated in forms
  that never overflow (``exp`` only sees non-positive numbers), so large ``|x|`` gives
  torch's values without overflow warnings.

Every fused backward op (``<Op>Backward``) has its own ``backward`` written with numtorch ops,
so second derivatives work; the piecewise-linear ones are linear in the incoming gradient and
have a zero second derivative in ``x``, as in torch. The kink choices (the gradient at 0 of
relu, at the bounds of hardtanh, ...) follow torch and are tested against it on purpose.
"""

import numpy as np

from .. import _dtype
from .._sparse import SparseCOO, map_values
from .._tensor import Tensor
from ..backend import _cpu_features
from . import _intraop
from ._activation_base import _UINT, _keep, _PiecewiseSlopeBackward, _Pointwise, _select, select
from ._pointwise import _check_tensor
from ._smooth_activation import gelu, logsigmoid, mish, sigmoid, silu, softplus
from .unary import exp

__all__ = ["select", "relu", "threshold", "hardtanh", "leaky_relu", "hardshrink", "softshrink",
           "hardsigmoid", "hardswish", "elu", "celu", "softplus", "logsigmoid", "sigmoid",
           "silu", "mish", "gelu"]

# ---------------------------------------------------------------------------------------------
# piecewise-linear activations


_ZEROS = {}  # dtype -> _ZERO_RUN zeros, the second operand of ``_relu_flat``
_ZERO_RUN = 1 << 16
_ZERO_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SPLIT_FROM = _intraop._MIN_PART  # elements per part below which the split is not tried


def _relu_flat(x):
    """max(x, 0) of a contiguous float32/float64 CPU array, against runs of an array of zeros:
    NumPy's vectorised maximum loop takes two arrays, while a scalar 0 gets its plain loop
    (64K float32: 8.6 against 25 us; the same values)."""
    zeros = _ZEROS.get(x.dtype)
    if zeros is None:
        zeros = _ZEROS[x.dtype] = np.zeros(_ZERO_RUN, x.dtype)
    out = np.empty_like(x)
    fx, fo = x.reshape(-1), out.reshape(-1)

    def kernel(lo, hi):
        for a in range(lo, hi, _ZERO_RUN):
            b = min(hi, a + _ZERO_RUN)
            np.maximum(zeros[:b - a], fx[a:b], out=fo[a:b])  # ties give x: relu(-0.) is -0.

    # a conv net's activations (1.4M values in the MNIST net) split over the intra-op
    # threads, as torch's kernel is
    _intraop.split(kernel, x.size)
    return out


_GRAD_BLOCK = 1 << 16  # values per block of ``_relu_grad_flat``'s passes


def _relu_grad_flat(y, g):
    """g where y > 0 (or NaN), else +0., for contiguous float32/float64 CPU arrays of one
    shape, in parts over the intra-op threads. Each part runs in blocks of ``_GRAD_BLOCK``
    values whose mask and bit pattern stay in the cache: y and g are read once and the
    gradient written once (the whole-part form wrote a bool mask, its full-size integer
    widening, the masked result and then copied that into the output: ~13 bytes of memory
    traffic per float32 value against 12; the Transformer benchmark's (16, 64, 512) took
    ~610 us inside the step, ~3x the time alone). The same bits as ``_keep``."""
    out = np.empty_like(g)
    ut = _UINT[g.dtype.itemsize]
    fy, fg, fo = y.reshape(-1), g.reshape(-1).view(ut), out.reshape(-1).view(ut)
    one = ut(1)

    def kernel(lo, hi):
        size = min(_GRAD_BLOCK, hi - lo)
        le = np.empty(size, dtype=np.bool_)
        bits = np.empty(size, dtype=ut)
        for a in range(lo, hi, _GRAD_BLOCK):
            b = min(hi, a + _GRAD_BLOCK)
            k = b - a
            np.less_equal(fy[a:b], 0, out=le[:k])
            # True (y <= 0) -> 0, False -> all ones (wraps around), as _mask_bits(invert)
            np.subtract(le[:k].view(np.uint8), one, out=bits[:k])
            np.bitwise_and(bits[:k], fg[a:b], out=fo[a:b])

    _intraop.split(kernel, g.size)
    return out


def _device_positive_part(xp, x):
    """max(x, 0) of a float device array with torch's signs: -0. stays -0., NaN stays NaN.

    NumPy's maximum gives its second operand on ties, so maximum(0, x) keeps x's -0. on the
    host; CUDA's max (CuPy's maximum) orders +0. above -0. whatever the operand order
    (relu(-0.) came back +0. on an H200). CuPy's clip keeps x on ties and NaN: device arrays
    take it (the host keeps maximum, inline: clip costs ~2 us more on small arrays)."""
    return xp.clip(x, x.dtype.type(0), x.dtype.type(np.inf)).astype(x.dtype, copy=False)


class Relu(_Pointwise):
    """y = max(x, 0); dy/dx = 1 where y > 0, else 0 (0 at x == 0, as torch)."""

    _saves = "output"

    def kernel(self, xp, x):
        if type(x) is np.ndarray and x.dtype in _ZERO_DTYPES and x.size >= 1024 and \
                x.flags.c_contiguous:
            return _relu_flat(x)
        if x.dtype.kind != "f":  # quantized payloads take x first; no signed zeros there
            return xp.maximum(x, x.dtype.type(0))
        if type(x) is np.ndarray:  # x second: NumPy gives it on ties, torch's -0. for -0.
            return np.maximum(x.dtype.type(0), x)
        return _device_positive_part(xp, x)

    def backward(self, grad):
        return ReluBackward.apply(self.saved_output(), grad)


class ReluBackward(_PiecewiseSlopeBackward):
    """g_x = g where y > 0 (or y is NaN), else 0; computed from the output y."""

    def kernel(self, xp, y, g):
        if type(g) is np.ndarray and g.size >= 2 * _SPLIT_FROM and y.shape == g.shape and \
                y.flags.c_contiguous and g.flags.c_contiguous and g.dtype in _ZERO_DTYPES:
            return _relu_grad_flat(y, g)
        return _keep(y <= 0, g, invert=True)


class Threshold(_Pointwise):
    """y = x if x > threshold else value; dy/dx = 1 where x > threshold, else 0."""

    def kernel(self, xp, x):
        return _select(xp, x <= self.threshold, self.value, x, x.dtype)  # NaN stays NaN

    def backward(self, grad):
        return ThresholdBackward.apply(self.saved_inputs(), grad, threshold=self.threshold)


class ThresholdBackward(_PiecewiseSlopeBackward):
    """g_x = g where x > threshold (or x is NaN), else 0."""

    _params = ("threshold",)

    def kernel(self, xp, x, g):
        return _keep(x <= self.threshold, g, invert=True)


class Hardtanh(_Pointwise):
    """y = clamp(x, min_val, max_val); dy/dx = 1 strictly inside the bounds, else 0."""

    def kernel(self, xp, x):
        dt = x.dtype
        return xp.clip(x, dt.type(self.min_val), dt.type(self.max_val)).astype(dt, copy=False)

    def backward(self, grad):
        return HardtanhBackward.apply(self.saved_inputs(), grad, min_val=self.min_val,
                                      max_val=self.max_val)


class HardtanhBackward(_PiecewiseSlopeBackward):
    """g_x = g where min_val < x < max_val (or x is NaN), else 0 (0 at the bounds, as torch)."""

    _params = ("min_val", "max_val")

    def kernel(self, xp, x, g):
        out = (x <= self.min_val)
        out |= x >= self.max_val
        return _keep(out, g, invert=True)


class LeakyRelu(_Pointwise):
    """y = x if x > 0 else slope * x; dy/dx = 1 for x > 0, else slope (slope at 0)."""

    def kernel(self, xp, x):
        # x and slope * x are ordered by the sign of x: one max (min for slopes above 1)
        # selects without a mask, and maximum/minimum propagate NaN
        slope = self.negative_slope
        y = x * x.dtype.type(slope)  # a Python float would widen bfloat16 to float32
        if slope == 0:  # +inf * 0 is NaN, which max would pick; torch keeps +inf (-inf -> NaN)
            return _select(xp, x > 0, x, y, x.dtype)
        if slope < 0 and type(x) is not np.ndarray:
            # +0. beside slope * +0. = -0.: torch gives -0., NumPy's max its second operand
            # (-0.), CUDA's max +0. whatever the order
            return _select(xp, x > 0, x, y, x.dtype)
        return (xp.maximum if slope <= 1 else xp.minimum)(x, y, out=y)

    def backward(self, grad):
        return LeakyReluBackward.apply(self.saved_inputs(), grad,
                                       negative_slope=self.negative_slope)


class LeakyReluBackward(_PiecewiseSlopeBackward):
    """g_x = g for x > 0, else slope * g."""

    _params = ("negative_slope",)

    def kernel(self, xp, x, g):
        slope = self.negative_slope
        f = xp.empty_like(g)
        xp.greater(x, 0, out=f, casting="unsafe")  # 1.0 / 0.0 straight into a float buffer
        f *= 1 - slope
        f += slope
        f *= g
        return f


class Hardshrink(_Pointwise):
    """y = 0 for -lambd <= x <= lambd, else x; dy/dx = 0 there, else 1."""

    def kernel(self, xp, x):
        lam = self.lambd
        low = getattr(self, "low_dtype", None)
        if low is not None:  # torch compares with lambd rounded to the half-precision dtype
            lam = np.float32(np.asarray(lam, dtype=low))
        return _keep(xp.abs(x) <= lam, x, invert=True)

    def backward(self, grad):
        return ShrinkBackward.apply(self.saved_inputs(), grad, lambd=self.lambd)


class Softshrink(_Pointwise):
    """y = x - lambd for x > lambd, x + lambd for x < -lambd, else 0; dy/dx = 0 inside.

    The zero inside is +0 where torch's CPU kernel runs vectorised and ``x * 0`` (-0 for a
    negative x) in the scalar tail of each inner loop (see ``_sign_scalar_tails``)."""

    def kernel(self, xp, x):
        lam = x.dtype.type(self.lambd)
        # clip widens bfloat16 to float32: round back (exact, the values are x's or +-lam)
        y = x - xp.clip(x, -lam, lam).astype(x.dtype, copy=False)
        if xp is np:
            itemsize = (getattr(self, "low_dtype", None) or x.dtype).itemsize
            # outside, y has x's sign already (lambd >= 0): only the zeros change
            _sign_scalar_tails(x, y, itemsize)
        return y

    def backward(self, grad):
        return ShrinkBackward.apply(self.saved_inputs(), grad, lambd=self.lambd)


_GRAIN = 32768  # torch's elementwise kernels split across threads from this many elements


def _sign_scalar_tails(x, y, itemsize):
    """Give ``y`` the sign of ``x`` (in place) where torch's CPU elementwise loop works one
    element at a time rather than a vector at a time: everywhere when the innermost dim (in
    the output's memory order) is not contiguous in both, else the last ``length % lanes``
    elements of each inner row (a dense array is one row, split between the threads from
    32768 elements on)."""
    lanes = _cpu_features.vector_bytes() // itemsize
    if y.size == 0:
        return
    perm = sorted(range(y.ndim), key=lambda d: -y.strides[d])  # stable: ties keep order
    yb, xb = y.transpose(perm), x.transpose(perm)
    shape = yb.shape
    if shape[-1] > 1 and (yb.strides[-1] != yb.itemsize or xb.strides[-1] != xb.itemsize):
        np.copysign(y, x, out=y)
        return
    # merge the trailing dims both arrays step through contiguously into one row
    k = len(shape) - 1
    row = shape[k]
    while k > 0 and all(a.strides[k - 1] == a.strides[k] * a.shape[k] for a in (yb, xb)):
        k -= 1
        row *= shape[k]
    if k == 0:
        yf, xf = yb.reshape(-1), xb.reshape(-1)  # views: both are dense in this order
        n = yf.size
        threads = 1
        if n >= _GRAIN:
            from .. import _threads

            threads = min(max(_threads.get_num_threads(), 1), -(-n // _GRAIN))
        part = -(-n // threads)
        for start in range(0, n, part):
            stop = min(start + part, n)
            r = (stop - start) % lanes
            if r:
                np.copysign(yf[stop - r:stop], xf[stop - r:stop], out=yf[stop - r:stop])
        return
    r = row % lanes
    if r:
        # the last r positions of every merged row (rows: views over the merged dims)
        from numpy.lib.stride_tricks import as_strided

        yr, xr = (as_strided(a, shape[:k] + (row,), a.strides[:k] + (a.itemsize,))
                  for a in (yb, xb))
        np.copysign(yr[..., -r:], xr[..., -r:], out=yr[..., -r:])


class ShrinkBackward(_PiecewiseSlopeBackward):
    """g_x = 0 for -lambd <= x <= lambd, else g (both shrink functions)."""

    _params = ("lambd",)

    def kernel(self, xp, x, g):
        lam = self.lambd
        low = getattr(self, "low_dtype", None)
        if low is not None:  # torch compares with lambd rounded to the half-precision dtype
            lam = np.float32(np.asarray(lam, dtype=low))
        return _keep(xp.abs(x) <= lam, g, invert=True)


class Hardsigmoid(_Pointwise):
    """y = clamp(x + 3, 0, 6) / 6; dy/dx = 1/6 for -3 < x < 3, else 0."""

    def kernel(self, xp, x):
        y = x + x.dtype.type(3)
        xp.clip(y, 0, 6, out=y)
        y /= x.dtype.type(6)
        return y

    def backward(self, grad):
        return HardsigmoidBackward.apply(self.saved_inputs(), grad)


_ONE_SIXTH_F32 = np.float32(1.0) / np.float32(6.0)


class HardsigmoidBackward(_Pointwise):
    """g_x = g / 6 for -3 < x < 3, else 0; torch defines no derivative of this op.

    As torch's kernel, ``g`` is multiplied by the float32 constant ``1/6`` in every dtype
    (float64 gradients carry that constant's rounding, 16-bit ones round once at the end).
    """

    def kernel(self, xp, x, g):
        r = g * _ONE_SIXTH_F32
        if r.dtype != g.dtype:
            r = r.astype(g.dtype)
        return _keep(xp.abs(x) < 3, r)

    def backward(self, gg):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


class Hardswish(_Pointwise):
    """y = x * clamp(x + 3, 0, 6) / 6; dy/dx = 0 for x <= -3, x/3 + 1/2 below 3, else 1."""

    def kernel(self, xp, x):
        y = x + x.dtype.type(3)
        xp.clip(y, 0, 6, out=y)
        y *= x
        y /= x.dtype.type(6)
        return y

    def backward(self, grad):
        return HardswishBackward.apply(self.saved_inputs(), grad)


class HardswishBackward(_Pointwise):
    """g_x = g * slope(x); d/dg = slope(x), d/dx = g / 3 for -3 < x < 3, else 0."""

    def kernel(self, xp, x, g):
        # slope = (x/3 + 1/2 where |x| < 3, else 0) + (1 - [x < 3]): 0 at and below -3, 1 from
        # 3 up and for NaN (as torch); the 0/1 mask is written straight into a float buffer
        dt = g.dtype
        slope = x / dt.type(3)
        slope += dt.type(0.5)
        slope = _keep(xp.abs(x) < 3, slope)  # bits, not a product: inf * 0 would be NaN
        f = xp.empty_like(slope)
        xp.less(x, 3, out=f, casting="unsafe")
        xp.subtract(dt.type(1), f, out=f)
        slope += f
        slope *= g
        return slope

    def backward(self, gg):
        x, g = self.saved_inputs()
        gx = select(x.abs() < 3, gg * g * (1.0 / 3.0), 0.0)
        return gx, HardswishBackward.apply(x, gg)


# ---------------------------------------------------------------------------------------------
# exponential-linear units


class Elu(_Pointwise):
    """y = scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1);
    dy/dx = scale for x > 0, else scale * alpha * input_scale * exp(input_scale * x)."""

    def kernel(self, xp, x):
        zero = x.dtype.type(0)
        neg = xp.minimum(zero, x)  # exp only ever sees x <= 0: no overflow for large x
        if self.input_scale != 1:
            neg *= self.input_scale
        xp.expm1(neg, out=neg)
        if self.alpha != 1:
            neg *= self.alpha
        # minimum (not fmin) propagates NaN; the positive part keeps -0. (NumPy's maximum
        # gives x, its second operand, on ties; see _device_positive_part) and expm1(-0.) is
        # -0.: torch's -0. for -0.
        neg += np.maximum(zero, x) if type(x) is np.ndarray else _device_positive_part(xp, x)
        if self.scale != 1:
            neg *= self.scale
        return neg

    def backward(self, grad):
        return EluBackward.apply(self.saved_inputs(), grad, alpha=self.alpha, scale=self.scale,
                                 input_scale=self.input_scale)


class Celu(Elu):
    """y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): ELU with input_scale = 1/alpha."""


class EluBackward(_Pointwise):
    """g_x = g * slope(x) (see Elu); d/dg = slope(x), d/dx = g * scale * alpha *
    input_scale^2 * exp(input_scale * x) for x < 0, else 0."""

    def kernel(self, xp, x, g):
        dt = g.dtype
        e = xp.minimum(x, dt.type(0))
        if self.input_scale != 1:
            e *= self.input_scale
        xp.exp(e, out=e)
        e *= self.scale * self.alpha * self.input_scale
        e = _select(xp, x <= 0, e, self.scale, dt)  # x == 0 takes the exponential side
        e *= g
        return e

    def backward(self, gg):
        x, g = self.saved_inputs()
        c = self.scale * self.alpha * self.input_scale * self.input_scale
        curve = exp(x.clamp(max=0) * self.input_scale) * c
        gx = select(x < 0, gg * g * curve, 0.0)
        return gx, EluBackward.apply(x, gg, alpha=self.alpha, scale=self.scale,
                                     input_scale=self.input_scale)


# ---------------------------------------------------------------------------------------------
# functions (argument checks live in nn.functional; these take checked arguments)


def relu(input):
    """Return ``max(input, 0)``; the gradient at 0 is 0, as torch's.

    Integer inputs give integers; bool and complex inputs raise torch's errors.
    """
    if input.__class__ is not Tensor or not _dtype._INT <= input.dtype._category <= _dtype._FLOAT:
        _check_tensor("relu", input)
        if input._array.__class__ is SparseCOO:  # stored values only, as torch
            return map_values(input, "relu")
        if input.dtype._category == _dtype._BOOL:
            raise RuntimeError("Boolean inputs not supported for relu")
        if input.dtype._category == _dtype._COMPLEX:
            raise NotImplementedError("clamp is not supported for complex types")
    return Relu.apply(input)


def threshold(input, threshold, value):
    """Return ``input`` where it is greater than ``threshold``, else ``value``."""
    return Threshold.apply(input, threshold=threshold, value=value)


def hardtanh(input, min_val, max_val):
    """Clamp ``input`` to ``[min_val, max_val]``; the gradient is 0 at the bounds."""
    return Hardtanh.apply(input, min_val=min_val, max_val=max_val)


def leaky_relu(input, negative_slope):
    """Return ``input`` where positive, else ``negative_slope * input``."""
    return LeakyRelu.apply(input, negative_slope=negative_slope)


def hardshrink(input, lambd):
    """Zero the entries with ``|input| <= lambd``."""
    return Hardshrink.apply(input, lambd=lambd)


def softshrink(input, lambd):
    """Shrink ``input`` toward 0 by ``lambd`` (0 inside ``[-lambd, lambd]``)."""
    return Softshrink.apply(input, lambd=lambd)


def hardsigmoid(input):
    """Return ``clamp(input + 3, 0, 6) / 6``."""
    return Hardsigmoid.apply(input)


def hardswish(input):
    """Return ``input * clamp(input + 3, 0, 6) / 6``."""
    return Hardswish.apply(input)


def elu(input, alpha, scale=1.0, input_scale=1.0):
    """ELU with torch's general parameters (SELU and CELU are special cases)."""
    return Elu.apply(input, alpha=alpha, scale=scale, input_scale=input_scale)


def celu(input, alpha):
    """CELU: ELU whose exponential is taken of ``input / alpha``."""
    return Celu.apply(input, alpha=alpha, scale=1.0, input_scale=1.0 / alpha)
