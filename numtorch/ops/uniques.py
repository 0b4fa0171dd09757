"""``unique`` and ``unique_consecutive``: the distinct values or slices of a tensor, with the
inverse indices and counts on request (not differentiable).
"""

import numpy as np

from .. import _dtype
from .._tensor import _make
from ..backend import helpers_for, xp_of
from ._util import canonical_dim, no_dims_error
from .binning import _check_tensor

__all__ = ["unique", "unique_consecutive"]


def _unique_result(vals, inverse, counts, return_inverse, return_counts):
    out = [vals]
    if return_inverse:
        out.append(_make(inverse.astype(np.int64)))
    if return_counts:
        out.append(_make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _empty_slices(a, d, return_inverse, return_counts):
    """unique along ``dim`` of a tensor with no elements: torch takes only an empty ``dim``
    (its result is the input itself)."""
    if sum(1 for n in a.shape if n == 0) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot "
                           "be applied ")
    if a.shape[d]:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied")
    xp = xp_of(a)
    none = xp.zeros(0, dtype=np.int64)
    return _unique_result(_make(xp.ascontiguousarray(a)), none, none, return_inverse,
                          return_counts)


def _slices_result(xp, vals, d):
    """The distinct slices laid out as torch's: built with ``dim`` first, then moved back."""
    if d == 0:
        return _make(xp.ascontiguousarray(vals))
    return _make(xp.moveaxis(xp.ascontiguousarray(xp.moveaxis(vals, d, 0)), 0, d))


def _integer_unique(xp, a, return_inverse, return_counts):
    """unique of integers or bools without a sort: one count per value of the range when the
    range is not much larger than the input (labels, token ids, class indices), else a value
    sort where no inverse is asked for (several times faster than the stable index sort).
    Integers equal only when identical, so which duplicate is kept does not matter."""
    flat = a.reshape(-1)
    n = flat.shape[0]
    lo, hi = int(flat.min()), int(flat.max())
    if hi - lo < 4 * n + 4096:
        if flat.dtype.itemsize < 8:  # widen first: int8's 127 - (-128) wraps in int8
            shifted = flat.astype(np.intp) - lo
        else:  # hi - lo is small, so the difference fits the input's own type
            shifted = (flat - flat.dtype.type(lo)).astype(np.intp, copy=False)
        tally = xp.bincount(shifted, minlength=hi - lo + 1)
        present = tally > 0
        vals = (xp.flatnonzero(present) + lo).astype(a.dtype)
        inverse = (xp.cumsum(present) - 1)[shifted].reshape(a.shape) if return_inverse else None
        return _unique_result(_make(vals), inverse, tally[present], return_inverse,
                              return_counts)
    if return_inverse:
        return None
    s = xp.sort(flat)
    start = xp.ones(n, dtype=bool)
    start[1:] = s[1:] != s[:-1]
    counts = xp.diff(xp.append(xp.flatnonzero(start), n)) if return_counts else None
    return _unique_result(_make(xp.ascontiguousarray(s[start])), None, counts, False,
                          return_counts)


def unique(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
           dim=None):
    """The distinct values (or distinct slices along ``dim``), in ascending order.

    Optionally also the index of each input entry in the result (``return_inverse``) and how
    often each value occurs (``return_counts``). Not differentiable.

    Note:
        The result is sorted also with ``sorted=False``, one of the orders torch allows. Each
        NaN is a value of its own, as in torch; slices along ``dim`` that hold NaN are sorted
        with NaN last, where torch's order is left to its sort.

    Example:
        >>> torch.unique(torch.tensor([3, 1, 3]))
        tensor([1, 3])
    """
    _check_tensor("unique", input)
    a = input._array
    if input.is_quantized:  # no QuantizedCPU kernel (torch's error)
        from .._quantized_array import not_supported

        raise not_supported("_unique2" if dim is None else "unique_dim")
    if a.dtype.kind == "c":
        raise NotImplementedError(f'"unique" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    xp = xp_of(a)
    # bfloat16 is ordered as float32 (exact; ml_dtypes' NaN does not sort last)
    key = a.astype(np.float32) if a.dtype == _dtype.bfloat16.np else a
    if dim is None:
        lines, d = key.reshape(-1, 1), 0
    else:
        if not a.ndim:
            raise no_dims_error(dim)
        d = canonical_dim(dim, a.ndim)
        if not a.size:
            return _empty_slices(a, d, return_inverse, return_counts)
        lines = xp.moveaxis(key, d, 0).reshape(a.shape[d], -1)
    n = lines.shape[0]
    if dim is None and a.dtype.kind in "biu" and n:
        done = _integer_unique(xp, a, return_inverse, return_counts)
        if done is not None:
            return done
    # sort the slices (NaN last, ties in input order), then start a group wherever a slice
    # differs from the one before: NaN != NaN, so every NaN stays on its own, as in torch
    if dim is None:
        order = helpers_for(xp).argsort_stable(lines[:, 0])
    else:
        order = xp.lexsort(lines.T[::-1]) if lines.shape[1] else xp.arange(n)
    s = lines[order]
    start = xp.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (s[1:] != s[:-1]).any(axis=1)
    group = xp.cumsum(start) - 1
    inv = xp.empty(n, dtype=np.int64)
    inv[order] = group
    firsts = order[start]
    counts = xp.diff(xp.append(xp.flatnonzero(start), n))
    if dim is None:
        vals = _make(xp.ascontiguousarray(a.reshape(-1)[firsts]))
        inv = inv.reshape(a.shape)
    else:
        vals = _slices_result(xp, xp.take(a, firsts, axis=d), d)
    return _unique_result(vals, inv, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values (or slices along ``dim``) to one.

    Example:
        >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
        tensor([1, 2, 1])
    """
    _check_tensor("unique_consecutive", input)
    a = input._array
    if input.is_quantized:
        from .._quantized_array import not_supported

        raise not_supported("unique_consecutive")
    if a.dtype.kind == "c":
        raise NotImplementedError(f'"unique" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    xp = xp_of(a)
    # bfloat16 is ordered as float32 (exact; ml_dtypes' NaN does not sort last)
    key = a.astype(np.float32) if a.dtype == _dtype.bfloat16.np else a
    if dim is None:
        lines, d = key.reshape(-1, 1), 0
    else:
        if not a.ndim:
            raise no_dims_error(dim)
        d = canonical_dim(dim, a.ndim)
        if not a.size:
            return _empty_slices(a, d, return_inverse, return_counts)
        lines = xp.moveaxis(key, d, 0).reshape(a.shape[d], -1)
    n = lines.shape[0]
    start = xp.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (lines[1:] != lines[:-1]).any(axis=1)
    inv = xp.cumsum(start) - 1
    firsts = xp.flatnonzero(start)
    counts = xp.diff(xp.append(firsts, n))
    if dim is None:
        vals = _make(xp.ascontiguousarray(a.reshape(-1)[firsts]))
        inv = inv.reshape(a.shape)
    else:
        vals = _slices_result(xp, xp.take(a, firsts, axis=d), d)
    return _unique_result(vals, inv, counts, return_inverse, return_counts)
