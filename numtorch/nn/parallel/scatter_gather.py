"""Split inputs across devices and gather outputs back (the data movement of DataParallel).

Both directions are ordinary differentiable ops (``chunk``/``to``/``cat``), so gradients flow
back through them to the original inputs.
"""

from ..._device import device as _device
from ..._tensor import Tensor
from ...ops import cat

__all__ = ["scatter", "scatter_kwargs", "gather"]


def as_device(d):
    """A device from an index (a CUDA device), a string or a device; -1 means the CPU."""
    if isinstance(d, int):
        return _device("cpu") if d == -1 else _device("cuda", d)
    return _device(d)


def scatter(inputs, target_gpus, dim=0):
    """Split every tensor in ``inputs`` into ``len(target_gpus)`` chunks along ``dim``.

    Lists, tuples and dicts are split element-wise; other objects are repeated.

    Returns:
        list: one entry per chunk (fewer when the batch is smaller than the device count).
    """
    def split(obj):
        if isinstance(obj, Tensor):
            chunks = obj.chunk(len(target_gpus), dim)
            return [c.to(as_device(d)) for c, d in zip(chunks, target_gpus)]
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # namedtuple
            return [type(obj)(*args) for args in zip(*map(split, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(split, obj)))
        if isinstance(obj, list) and obj:
            return [list(x) for x in zip(*map(split, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(x) for x in zip(*map(split, obj.items()))]
        return [obj for _ in target_gpus]

    return split(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """``scatter`` for positional and keyword arguments, padded to the same length."""
    scattered = scatter(inputs, target_gpus, dim) if inputs else []
    kw = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered) < len(kw):
        scattered.extend(() for _ in range(len(kw) - len(scattered)))
    elif len(kw) < len(scattered):
        kw.extend({} for _ in range(len(scattered) - len(kw)))
    return tuple(scattered), tuple(kw)


def gather(outputs, target_device, dim=0):
    """Concatenate the replicas' outputs along ``dim`` on ``target_device``."""
    dest = as_device(target_device)

    def join(outs):
        first = outs[0]
        if isinstance(first, Tensor):
            if first.dim() == 0:  # scalars (e.g. losses) are stacked into a vector
                return cat([o.to(dest).reshape(1) for o in outs], 0)
            return cat([o.to(dest) for o in outs], dim)
        if first is None:
            return None
        if isinstance(first, dict):
            if not all(len(first) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(first)((k, join([d[k] for d in outs])) for k in first)
        if isinstance(first, tuple) and hasattr(first, "_fields"):
            return type(first)._make(map(join, zip(*outs)))
        return type(first)(map(join, zip(*outs)))

    return join(outputs)
