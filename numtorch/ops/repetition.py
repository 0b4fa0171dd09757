"""Inputs repeated into larger tensors: repeat_interleave and meshgrid (composites)."""

import numpy as np

from .. import _dtype, backend
from .._tensor import Tensor, _make
from ..autograd.graph import rename_node
from ._util import canonical_dim, check_int, no_dims_error

__all__ = ["repeat_interleave", "meshgrid"]


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each entry (or each slice along ``dim``) ``repeats`` times in place.

    ``repeats`` is an int or a 1-D int64 tensor with one count per entry; without ``dim`` the
    input is flattened first. ``repeat_interleave(counts)`` alone repeats ``arange(len)``.

    Example:
        >>> torch.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # the one-argument form: indices repeated by the counts given
        from .._ranges import arange

        counts = input
        if counts._array.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(arange(counts._array.shape[0], device=counts.device), counts,
                                 0, output_size=output_size)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        if not input._array.ndim:  # (torch's messages for a 0-d input)
            if isinstance(repeats, Tensor):
                raise no_dims_error(dim)
            canonical_dim(dim, 0)
            canonical_dim(1, 0)
        d = canonical_dim(dim, input._array.ndim)
    n = input._array.shape[d] if input._array.ndim else 1
    if not isinstance(repeats, Tensor):
        check_int("repeat_interleave", "repeats", repeats)
    if isinstance(repeats, Tensor):
        if repeats.dtype not in (_dtype.int64, _dtype.int32):
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                      f"'{_dtype._TYPE_DISPLAY[repeats.dtype.name]}'")
        if repeats._array.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        # the result's length is needed on the host (as in torch, which synchronises too)
        from ..func._batched_array import refuse_values

        refuse_values(repeats._array)  # inside vmap: per-sample counts cannot be read so
        reps = backend.to_host(repeats._array).reshape(-1)
        if reps.size == 1:
            reps = np.repeat(reps, n)
        if reps.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {reps.size} and input.size({d}) = {n}")
        if reps.size and reps.min() < 0:
            raise RuntimeError("repeats can not be negative")
        total = int(reps.sum())
        if output_size is not None and output_size != total:
            raise RuntimeError("allocated size does not match required size")
    else:
        reps = np.full(n, int(repeats))
        if reps.size and reps.min() < 0:
            raise RuntimeError("Repeats must be non-negative")
        total = int(reps.sum())
        if output_size is not None and output_size != total:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but "
                               f"got {output_size}")
    idx = _make(backend.to_device(np.repeat(np.arange(n), reps).astype(np.int64),
                                  input.device))
    if input._array.ndim == 0:
        input = input.reshape(1)
    from .indexing import index_select

    out = index_select(input, d, idx)
    # torch repeats a number of times by expanding and viewing
    return out if isinstance(repeats, Tensor) else rename_node(out, "ViewBackward0")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: output ``k`` repeats ``tensors[k]`` along its own dim
    (views). ``indexing="xy"`` swaps the first two dims, as NumPy's default does.

    Example:
        >>> [g.shape for g in torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")]
        [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    from .join import check_elements

    check_elements(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        from .._warn_once import warn_once

        warn_once("meshgrid", "torch.meshgrid: in an upcoming release, it will be required to "
                  "pass the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                         f"received: {indexing}")
    for t in tensors:
        if t._array.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t._array.ndim}D")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._array.shape[0] for t in ts)
    n = len(ts)
    out = [t.reshape(tuple(-1 if j == k else 1 for j in range(n))).expand(shape)
           for k, t in enumerate(ts)]
    if swap:  # the grids of the swapped inputs, handed back in the inputs' order
        out[0], out[1] = out[1], out[0]
    return tuple(out)
