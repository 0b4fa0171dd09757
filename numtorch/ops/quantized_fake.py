"""Fake quantization: values rounded to a quantized grid but kept in floating point, with the
straight-through gradients quantization-aware training uses.

``y = (clamp(round(x / s) + zp, qmin, qmax) - zp) * s``; dy/dx is 1 where the rounded value
falls inside ``[qmin, qmax]`` and 0 where it was clamped. The learnable variants also give
gradients for the scale and zero point (LSQ): inside the range d/ds = (y - x) / s and
d/dzp = 0; below it d/ds = qmin - zp and d/dzp = -s, above it qmax - zp and -s; both scaled
by ``grad_factor`` and summed over what shares the parameter.

Numerics follow torch's CPU kernels: ``1/s`` in float32 and ``round(x * (1/s))`` rounded half
to even before the zero point is added; per-channel float zero points (the embedding scheme)
round ``x / s + zp`` computed in float64.
"""

import numpy as np

from .. import _dtype
from ..autograd.graph import Op

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine",
           "_fake_quantize_learnable_per_tensor_affine",
           "_fake_quantize_learnable_per_channel_affine",
           "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams",
           "fused_moving_avg_obs_fake_quant", "_fused_moving_avg_obs_fq_helper"]


def _grid(x, scale, zp, qmin, qmax, float_zp=False):
    """(integers before clamping, output) for float array ``x``; scale/zp broadcast to x."""
    f32 = np.float32
    if float_zp:
        q = np.rint(x.astype(np.float64) / scale.astype(np.float64) + zp)
    else:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            inv = f32(1.0) / np.asarray(scale, dtype=f32)
            q = np.rint(x.astype(f32) * inv).astype(np.float64) + zp
    clamped = np.clip(q, qmin, qmax)
    with np.errstate(invalid="ignore", over="ignore"):
        y = ((clamped - zp).astype(f32) * np.asarray(scale, dtype=f32)) if not float_zp else \
            ((clamped - zp) * scale).astype(f32)
    return q, y.astype(x.dtype, copy=False)


def _channel_shape(ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return shape


class FakeQuantizeAffine(Op):
    """y = fake-quantized x with given (constant) scale/zero point; dx = grad where unclamped.

    Why a primitive: the mask comes from the rounded values, which composite ops would have to
    recompute; one pass gives both.
    """

    node_name = "FakeQuantizePerTensorAffineCachemaskBackward0"

    def forward(self, x):
        scale, zp = self.scale, self.zero_point
        if self.axis is not None:
            shape = _channel_shape(x.ndim, self.axis)
            scale, zp = scale.reshape(shape), zp.reshape(shape)
        q, y = _grid(x, scale, zp, self.quant_min, self.quant_max, self.float_zp)
        mask = (q >= self.quant_min) & (q <= self.quant_max)
        self.save(mask=mask)
        self.mask_out = mask
        return y

    def backward(self, grad):
        from .elementwise import mul

        mask = self.saved("mask")
        return mul(grad, _mask_tensor(mask, grad))


def _mask_tensor(mask, like):
    from .._tensor import _make

    return _make(mask.astype(like._array.dtype))


class FakeQuantizeLearnable(Op):
    """y = fake-quantized x with learnable scale and zero point (tensors); gradients for all
    three as described in the module docstring. The backward is not itself differentiable,
    as in torch."""

    node_name = "FakeQuantizeLearnablePerTensorAffineBackward0"

    def forward(self, x, scale, zero_point):
        qmin, qmax = self.quant_min, self.quant_max
        zp = np.clip(np.rint(zero_point.astype(np.float32)), qmin, qmax).astype(np.float64)
        s = scale.astype(np.float32)
        if self.axis is not None:
            shape = _channel_shape(x.ndim, self.axis)
            s, zp = s.reshape(shape), zp.reshape(shape)
        else:
            s, zp = s.reshape(()), zp.reshape(())
        _, y = _grid(x, s, zp, qmin, qmax)
        # torch's backward kernel rounds x * (1/s) + zp once in float32 (an FMA), unlike the
        # forward, which rounds x * (1/s) first: ties may fall on different sides
        inv = (np.float32(1.0) / s).astype(np.float64)
        q = np.rint((x.astype(np.float64) * inv + zp).astype(np.float32)).astype(np.float64)
        self.save(q=q, s=s, zp=zp)
        self.save_inputs(x)
        return y

    def backward(self, grad):
        x = self.saved_inputs()
        return FakeQuantizeLearnableBackward.apply(
            grad, x, q=self.saved("q"), s=self.saved("s"), zp=self.saved("zp"),
            quant_min=self.quant_min, quant_max=self.quant_max, axis=self.axis,
            grad_factor=self.grad_factor, scale_shape=self._in_meta[1][0],
            zp_shape=self._in_meta[2][0])


class FakeQuantizeLearnableBackward(Op):
    """The gradients of :class:`FakeQuantizeLearnable` (x, scale, zero point) in one pass;
    torch does not differentiate them again."""

    differentiable = False

    def forward(self, g, x):
        q, s, zp = self.q, self.s, self.zp
        qmin, qmax = self.quant_min, self.quant_max
        below, above = q < qmin, q > qmax
        inside = ~(below | above)
        f32 = np.float32
        gx = np.where(inside, g, 0).astype(g.dtype)
        inv = f32(1.0) / s
        y = ((np.clip(q, qmin, qmax) - zp).astype(f32) * s)
        ds = np.where(inside, (y - x) * inv,
                      np.where(below, f32(1) * (qmin - zp), f32(1) * (qmax - zp)))
        ds = (g * ds).astype(np.float32) * f32(self.grad_factor)
        dz = np.where(inside, f32(0), -g * s).astype(np.float32) * f32(self.grad_factor)
        if self.axis is None:
            ds = np.asarray(ds.sum(dtype=np.float32)).reshape(self.scale_shape)
            dz = np.asarray(dz.sum(dtype=np.float32)).reshape(self.zp_shape)
        else:
            axes = tuple(d for d in range(g.ndim) if d != self.axis)
            ds = ds.sum(axis=axes, dtype=np.float32).reshape(self.scale_shape)
            dz = dz.sum(axis=axes, dtype=np.float32).reshape(self.zp_shape)
        return gx, ds, dz


# ---------------------------------------------------------------------------------------------
# public functions


def _check_range(quant_min, quant_max, zero_points=()):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")
    for z in zero_points:
        if not quant_min <= z <= quant_max:
            raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")


def _check_float(fn, input):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{fn}: expected a floating point input, got {input.dtype}")


def _number(value):
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.reshape(-1)[0].item()
    return value


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """Round ``input`` to the grid of one scale and zero point and back to floats.

    Args:
        input (Tensor): floating point values.
        scale (float or Tensor): the grid step (a one-element float32 tensor also works).
        zero_point (int or Tensor): the integer standing for 0 (an int32 tensor also works).
        quant_min, quant_max (int): the integer range, e.g. 0 and 255.

    Returns:
        Tensor: ``(clamp(round(x / scale) + zero_point, quant_min, quant_max) - zero_point)
        * scale``; its gradient passes where no clamping happened.

    Example:
        >>> torch.fake_quantize_per_tensor_affine(torch.tensor([0.26, 3.0]), 0.1, 0, 0, 10)
        tensor([0.3000, 1.0000])
    """
    from .._tensor import Tensor

    tensor_qparams = isinstance(scale, Tensor)
    s, z = float(_number(scale)), int(_number(zero_point))
    _check_range(quant_min, quant_max, (z,))
    _check_float("fake_quantize_per_tensor_affine", input)
    node = "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0" if tensor_qparams \
        else "FakeQuantizePerTensorAffineCachemaskBackward0"
    return FakeQuantizeAffine.apply(input, scale=np.float32(s), zero_point=z,
                                    quant_min=quant_min, quant_max=quant_max, axis=None,
                                    float_zp=False, node_name=node)


def _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(input, scale, zero_point,
                                                              fake_quant_enabled, quant_min,
                                                              quant_max):
    """``(output, mask)``: fake quantization when ``fake_quant_enabled`` (a tensor) is non
    zero, else ``input`` unchanged and an all-True mask."""
    from .._tensor import _make

    if not int(_number(fake_quant_enabled)):
        return input.clone(), _make(np.ones(tuple(input.shape), dtype=bool))
    y = fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max)
    mask = y.grad_fn.mask_out if y.grad_fn is not None else _grid_mask(
        input, _number(scale), _number(zero_point), quant_min, quant_max)
    return y, _make(mask)


def _grid_mask(input, scale, zp, qmin, qmax):
    q, _ = _grid(input._array, np.float32(scale), zp, qmin, qmax)
    return (q >= qmin) & (q <= qmax)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """Fake-quantize with one scale and zero point per slice along ``axis``.

    Args:
        input (Tensor): floating point values.
        scale (Tensor): one float per channel.
        zero_point (Tensor): int32 per channel (or floating point: the embedding scheme,
            ``round(x / s + zp)``).
        axis (int): the channel dim.
        quant_min, quant_max (int): the integer range.
    """
    zdt = zero_point.dtype
    if zdt not in (_dtype.int32, _dtype.float32, _dtype.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found "
                           f"{_dtype._TYPE_DISPLAY.get(zdt.name, zdt.name)}")
    if scale.dim() != 1 or zero_point.dim() != 1:
        raise RuntimeError("scale and zero-point need to be 1-D tensors")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if not 0 <= axis < input.dim() or scale.numel() != input.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    float_zp = zdt.is_floating_point
    zps = zero_point._array.astype(np.float64 if not float_zp else np.float32)
    _check_range(quant_min, quant_max, () if float_zp else zps.tolist())
    _check_float("fake_quantize_per_channel_affine", input)
    return FakeQuantizeAffine.apply(input, scale=scale._array.astype(np.float32),
                                    zero_point=zps.astype(np.float64), quant_min=quant_min,
                                    quant_max=quant_max, axis=axis, float_zp=float_zp,
                                    node_name="FakeQuantizePerChannelAffineCachemaskBackward0")


def _fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max,
                                               grad_factor=1.0):
    """Fake quantization with gradients for ``scale`` and ``zero_point`` too (LSQ); the zero
    point is rounded and clamped into ``[quant_min, quant_max]`` first."""
    _check_range(quant_min, quant_max)
    return FakeQuantizeLearnable.apply(input, scale, zero_point, quant_min=quant_min,
                                       quant_max=quant_max, axis=None,
                                       grad_factor=float(grad_factor))


def _fake_quantize_learnable_per_channel_affine(input, scale, zero_point, axis, quant_min,
                                                quant_max, grad_factor=1.0):
    """Per-channel :func:`_fake_quantize_learnable_per_tensor_affine`."""
    _check_range(quant_min, quant_max)
    if not 0 <= axis < input.dim() or scale.numel() != input.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    return FakeQuantizeLearnable.apply(input, scale, zero_point, quant_min=quant_min,
                                       quant_max=quant_max, axis=axis,
                                       grad_factor=float(grad_factor),
                                       node_name="FakeQuantizeLearnablePerChannelAffineBackward0")


def fused_moving_avg_obs_fake_quant(self, observer_on, fake_quant_on, running_min, running_max,
                                    scale, zero_point, averaging_const, quant_min, quant_max,
                                    ch_axis, per_row_fake_quant=False, symmetric_quant=False):
    """One step of a moving-average observer followed by fake quantization (the op behind
    ``FusedMovingAvgObsFakeQuantize``): updates ``running_min``/``running_max``, ``scale`` and
    ``zero_point`` in place, then fake-quantizes ``self`` with them."""
    return _fused_moving_avg_obs_fq_helper(
        self, observer_on, fake_quant_on, running_min, running_max, scale, zero_point,
        averaging_const, quant_min, quant_max, ch_axis, per_row_fake_quant,
        symmetric_quant)[0]


def _fused_moving_avg_obs_fq_helper(self, observer_on, fake_quant_on, running_min, running_max,
                                    scale, zero_point, averaging_const, quant_min, quant_max,
                                    ch_axis, per_row_fake_quant=False, symmetric_quant=False):
    """``(output, mask)`` of :func:`fused_moving_avg_obs_fake_quant`."""
    from .._tensor import _make
    from ..autograd.grad_mode import no_grad

    x = self._array
    with no_grad():
        if int(_number(observer_on)):
            if per_row_fake_quant:
                axes = tuple(d for d in range(x.ndim) if d != ch_axis)
                cur_min, cur_max = x.min(axis=axes), x.max(axis=axes)
            else:
                cur_min, cur_max = x.min(), x.max()
            rmin, rmax = running_min._array, running_max._array
            if rmin.size == 0 or not np.isfinite(rmin).all() or rmin.size != np.size(cur_min):
                new_min, new_max = cur_min, cur_max
            else:
                c = np.float32(averaging_const)
                new_min = rmin + c * (cur_min - rmin)
                new_max = rmax + c * (cur_max - rmax)
            new_min = np.asarray(new_min, np.float32).reshape(-1 if per_row_fake_quant else ())
            new_max = np.asarray(new_max, np.float32).reshape(-1 if per_row_fake_quant else ())
            if running_min._array.shape != new_min.shape:
                running_min.resize_(new_min.shape)
                running_max.resize_(new_max.shape)
            running_min._array[...] = new_min
            running_max._array[...] = new_max
            s, z = _choose_arrays(new_min, new_max, quant_min, quant_max, symmetric_quant)
            if scale._array.shape != s.shape:
                scale.resize_(s.shape)
                zero_point.resize_(z.shape)
            scale._array[...] = s
            zero_point._array[...] = z
    if int(_number(fake_quant_on)):
        if per_row_fake_quant:
            y = fake_quantize_per_channel_affine(self, scale, zero_point.to(_dtype.int32),
                                                 ch_axis, quant_min, quant_max)
        else:
            y = fake_quantize_per_tensor_affine(self, scale, zero_point.to(_dtype.int32),
                                                quant_min, quant_max)
        mask = y.grad_fn.mask_out if y.grad_fn is not None else np.ones(x.shape, bool)
        return y, _make(mask)
    return self.clone(), _make(np.ones(x.shape, bool))


def _choose_arrays(mins, maxs, quant_min, quant_max, symmetric):
    """Per-entry ``(scale, zero_point)`` as the fused kernel chooses them: ATen's
    ``ChooseQuantizationParams`` (symmetric ranges through its ``preserve_sparsity`` mode)."""
    from .._quantized_functions import choose_qparams

    pairs = [choose_qparams(lo, hi, quant_min, quant_max, preserve_sparsity=symmetric)
             for lo, hi in zip(np.atleast_1d(mins).tolist(), np.atleast_1d(maxs).tolist())]
    scales = np.array([p[0] for p in pairs], dtype=np.float32)
    zps = np.array([p[1] for p in pairs], dtype=np.int32)
    return scales, zps
