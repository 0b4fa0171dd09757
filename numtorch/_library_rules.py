"""What a custom operator does under ``vmap`` and autocast: its ``register_vmap`` rule, or,
without one, torch's fallback (one call per sample, then stacked); ``register_autocast``'s
input casts."""

import sys

_WARNED = set()


def batched_call(op, values):
    """Run ``op`` on ``values`` (flat, in parameter order) when some vary over vmap levels;
    None when none does."""
    from .func import _batched as B

    inner = max((v for a in values if B.is_batched(a) for v in B.physical(a)[1]),
                default=None)
    if inner is None:
        return None
    from .func._custom_function import VmapInfo
    from .func._vmap import _move_in

    level = next(v for v in B.active_levels() if v.id == inner)
    in_dims = tuple(0 if B.is_batched(a) and inner in B.physical(a)[1] else None
                    for a in values)
    lowered = [B.lower(a, (inner,)) if d == 0 else a for a, d in zip(values, in_dims)]
    if op._vmap_fn is not None:
        pos, kws = op._split(lowered)
        result = op._vmap_fn(VmapInfo(level.size, level.randomness), in_dims, *pos, **kws)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(f"The vmap rule of {op._qualname} must return a tuple "
                               "(output, out_dims)")
        out, out_dims = result
        return _moved_in(out, out_dims, level, _move_in)
    if op._qualname not in _WARNED:
        _WARNED.add(op._qualname)
        sys.stderr.write(f"Warning: There is a performance drop because we have not yet "
                         f"implemented the batching rule for {op._qualname}. Please file us "
                         f"an issue on GitHub so that we can prioritize its implementation.\n")
    outs = []
    for i in range(level.size):
        pos, kws = op._split([a.select(0, i) if d == 0 else a
                              for a, d in zip(lowered, in_dims)])
        outs.append(op(*pos, **kws))
    return _stacked(outs, level, _move_in)


def _moved_in(out, dims, level, move_in):
    from ._tensor import Tensor

    if isinstance(out, (tuple, list)):
        dims = dims if isinstance(dims, (tuple, list)) else (dims,) * len(out)
        return type(out)(_moved_in(o, d, level, move_in) for o, d in zip(out, dims))
    if dims is None or not isinstance(out, Tensor):
        return out
    return move_in(out, dims, level)


def _stacked(outs, level, move_in):
    from . import stack
    from ._tensor import Tensor

    first = outs[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_stacked([o[i] for o in outs], level, move_in)
                           for i in range(len(first)))
    if not isinstance(first, Tensor):
        return first
    return move_in(stack(outs), 0, level)


def autocast_values(op, values):
    """(device type, ``values`` with their float32 (and half) tensors cast to the registered
    type) when autocast is on for a registered device type; None otherwise."""
    from . import bfloat16, float16, float32
    from ._tensor import Tensor
    from .amp import autocast_mode

    for device_type, dtype in op._autocast.items():
        if autocast_mode.is_autocast_enabled(device_type):
            return device_type, [v.to(dtype) if isinstance(v, Tensor) and
                                 v.device.type == device_type and
                                 v.dtype in (float32, float16, bfloat16) else v
                                 for v in values]
    return None
