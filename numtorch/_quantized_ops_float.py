"""Float ops applied to quantized tensors where torch supports them by working on the stored
integers (max/average pooling, interpolation, ...): the integers run through numtorch's float
op and the result, rounded half to even, keeps the input's quantization parameters.

Max pooling and nearest interpolation only select integers, so they are exact; averages and
bilinear interpolation round their float result once (torch's integer kernels agree to within
one quantum).
"""

import numpy as np

from ._quantized_array import QArray, not_supported
from ._quantized_tensor import make_quantized

__all__ = ["on_int_values", "quantized_dispatch"]


def on_int_values(input, fn, *args, rounding=False, **kwargs):
    """``fn`` (a float op) applied to the integers of per-tensor quantized ``input``."""
    from ._tensor import _make

    a = input._array
    if type(a) is not QArray:
        raise RuntimeError("expected a quantized tensor")
    if a.quantizer.per_channel:
        raise RuntimeError("Only per-tensor quantized tensors are supported here")
    exact = np.float32 if a.key.bits <= 16 else np.float64
    out = fn(_make(a.ints.astype(exact)), *args, **kwargs)
    rest = ()
    if isinstance(out, tuple):
        out, rest = out[0], tuple(out[1:])
    values = out.detach()._array
    if rounding:
        values = np.rint(values)
    values = np.clip(values, a.key.qmin, a.key.qmax).astype(a.ints.dtype)
    q = make_quantized(values, a.qdtype, a.quantizer)
    return (q,) + rest if rest else q


def quantized_dispatch(name, input, *args, **kwargs):
    """The quantized form of float op ``name`` for a quantized ``input`` (the hook numtorch's
    float functions call when they meet one)."""
    from .nn import functional as F

    table = {
        "max_pool1d": (F.max_pool1d, False), "max_pool2d": (F.max_pool2d, False),
        "max_pool3d": (F.max_pool3d, False), "avg_pool1d": (F.avg_pool1d, True),
        "avg_pool2d": (F.avg_pool2d, True), "avg_pool3d": (F.avg_pool3d, True),
        "adaptive_avg_pool1d": (F.adaptive_avg_pool1d, True),
        "adaptive_avg_pool2d": (F.adaptive_avg_pool2d, True),
        "adaptive_avg_pool3d": (F.adaptive_avg_pool3d, True),
        "adaptive_max_pool2d": (F.adaptive_max_pool2d, False),
        "interpolate": (F.interpolate, None), "mean": (None, True),
    }
    if name not in table:
        raise not_supported(name)
    fn, rounding = table[name]
    if name == "interpolate":
        mode = kwargs.get("mode", args[2] if len(args) > 2 else "nearest")
        if mode not in ("nearest", "nearest-exact", "bilinear"):
            raise not_supported(f"upsample_{mode}")
        rounding = mode == "bilinear"
    if name == "mean":
        from . import ops

        fn = ops.mean
    return on_int_values(input, fn, *args, rounding=rounding, **kwargs)
