"""``torch.utils.data._utils.pin_memory``: copying a batch into page-locked host memory.

``DataLoader(pin_memory=True)`` passes every batch through :func:`pin_memory` so the training
loop's ``batch.to('cuda', non_blocking=True)`` copies asynchronously (see
``Tensor.pin_memory``). Batches are walked as torch walks them: tensors, mappings, named
tuples, sequences, and any object with its own ``pin_memory()`` method.
"""

import collections.abc
import copy

from ...._tensor import Tensor

__all__ = ["pin_memory"]


def pin_memory(data, device=None):
    """``data`` with every tensor in it replaced by a pinned copy (the structure kept)."""
    if isinstance(data, Tensor):
        return data.pin_memory(device)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        pinned = {k: pin_memory(v, device) for k, v in data.items()}
        try:
            out = copy.copy(data)  # keep the mapping's own type (OrderedDict, a subclass ...)
            out.update(pinned)
            return out
        except TypeError:  # a mapping that cannot be copied or updated: a plain dict
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(v, device) for v in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(v, device) for v in data)
    if isinstance(data, collections.abc.Sequence):
        pinned = [pin_memory(v, device) for v in data]
        try:
            out = copy.copy(data)
            out[:] = pinned
            return out
        except TypeError:
            return pinned
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
