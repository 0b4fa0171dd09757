"""``default_collate`` and ``default_convert``: turn a list of samples into a batch."""

import collections.abc
import copy
import re

import numpy as np

from .... import _dtype
from ...._tensor import Tensor, _make

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

_NP_STR = re.compile(r"[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def default_convert(data):
    """Turn NumPy arrays (and containers of them) into tensors, without batching."""
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    # NumPy's own types (np.memmap too, not a subclass of a program's), as torch converts
    # them: as_tensor's checks (dtype, byte order, negative strides) and shared memory
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if kind.__name__ == "ndarray" and _NP_STR.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt_sequence(data, [default_convert(d) for d in data])
    return data


def _as_tensor(x):
    from ...._from_data import as_tensor

    return as_tensor(x)


def _alike(batch, elem):
    """Whether every array of ``batch`` is a plain array of ``elem``'s shape and dtype, one
    that as_tensor takes as it is (a dtype it knows, native byte order, no negative stride)."""
    if type(elem) is not np.ndarray:
        return False
    dt, shape, nd = elem.dtype, elem.shape, np.ndarray
    for b in batch:
        if type(b) is not nd or b.dtype is not dt and b.dtype != dt or b.shape != shape:
            return False
        if not b.flags.c_contiguous and min(b.strides, default=0) < 0:
            return False
    _as_tensor(elem)  # its dtype and byte order refused as torch refuses them
    return True


def _stack(arrays, like):
    from ....ops import stack

    for a in arrays:
        if a.__class__ is not Tensor:
            # a subclass (a TVTensor under set_return_type('TVTensor'), a program's own
            # class): torch.stack with its __torch_function__, as torch's collate calls it
            from .... import stack as public_stack

            return public_stack(arrays, 0)
    return stack(arrays, 0)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors stacked along a new first dim."""
    return _stack(batch, batch[0])


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays as tensors (as_tensor's checks), stacked with torch's promotion."""
    elem = batch[0]
    if _NP_STR.search(elem.dtype.str):
        raise TypeError(_ERR.format(elem.dtype))
    if _alike(batch, elem):  # (the common case, checked once: one stack)
        return _make(np.stack(batch))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars as one tensor (``as_tensor(batch)``)."""
    if all(type(b) is type(batch[0]) for b in batch):
        return _as_tensor(np.asarray(batch))  # one type: its dtype, as torch's as_tensor
    return _as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats as a float64 tensor."""
    from ...._from_data import tensor

    return tensor(batch, dtype=_dtype.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools) as a tensor of their inferred dtype."""
    from ...._from_data import tensor

    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes stay as they are (a list)."""
    return batch


# torch's table ({type or tuple of types: fn}), which user code extends for its own types
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch``: the function ``collate_fn_map`` ({type: fn}) names for the first
    element's type (its exact type first, then the first key it is an instance of), else
    mappings, named tuples and sequences field by field (torch's rules: without a map no
    leaf type is handled)."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for t, fn in collate_fn_map.items():
            if isinstance(elem, t):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuilt_mapping(elem, {k: collate([d[k] for d in batch],
                                                  collate_fn_map=collate_fn_map) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        # the fields go on as the tuples zip makes: a field of strings stays a tuple, as torch's
        return kind(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        n = len(next(it))
        if not all(len(e) == n for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        # (a field's error goes up as it is: torch names no field)
        cols = [collate(s, collate_fn_map=collate_fn_map) for s in transposed]
        if isinstance(elem, tuple):
            return cols
        return _rebuilt_sequence(elem, cols)
    raise TypeError(_ERR.format(kind))


def _rebuilt_mapping(like, values):
    """``values`` in a mapping of ``like``'s kind: a mutable one is copied and updated (so a
    defaultdict keeps its factory and a subclass its attributes), another is built from a dict,
    and a plain dict when that fails (torch's rules)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        return type(like)(values)
    except TypeError:
        return values


def _rebuilt_sequence(like, values):
    """``values`` in a sequence of ``like``'s kind, by torch's rules: a mutable one is copied and
    its items replaced (a list subclass needs no constructor of its own), another is built from
    a list, and a plain list when that fails."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(like)(values)
    except TypeError:
        return values


def default_collate(batch):
    """Stack a list of samples into a batch: tensors and arrays are stacked along a new first
    dim, numbers become tensors, dicts/named tuples/sequences are collated field by field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
