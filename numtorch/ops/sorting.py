"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode and histc.

Each op finds its indices with one NumPy sort (not differentiable) and then reads the values
with :func:`gather` at those fixed indices, so the gradient is routed back to the selected
positions by gather's own backward and double backward works.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..return_types import (
    kthvalue as _kthvalue_t, median as _median_t, mode as _mode_t, sort as _sort_t,
    topk as _topk_t,
)
from ._util import canonical_dim
from .gather import Gather

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "histc"]


def _argsort(a, d, descending, xp):
    """Stable argsort of ``a`` along ``d``; ties keep their original order both ways."""
    if not descending:
        return xp.argsort(a, axis=d, kind="stable")
    # reverse, sort stably ascending, reverse the order back: descending with ties in order
    n = a.shape[d]
    flipped = xp.flip(a, axis=d)
    order = xp.flip(xp.argsort(flipped, axis=d, kind="stable"), axis=d)
    return (n - 1) - order


def _pick(input, d, idx):
    """Values of ``input`` at the int64 array ``idx`` along ``d`` (differentiable)."""
    return Gather.apply(input, _make(idx.astype(np.int64, copy=False)), dim=d)


def _nd(input):
    """The array of ``input`` with at least one dim (0-d tensors act as 1-element vectors)."""
    a = input._array
    return a.reshape(1) if a.ndim == 0 else a


def _finish(input, vals, idx, d, keepdim):
    """Drop dim ``d`` from values and indices unless ``keepdim``; 0-d inputs stay 0-d."""
    if input._array.ndim == 0:
        return vals.reshape(()), idx.reshape(())
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    return vals, idx


def _check_tensor(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """Sort ``input`` along ``dim``; return the named tuple ``(values, indices)``.

    The sort is always stable (equal values keep their order, also when ``descending``), which
    is torch's ``stable=True`` result. NaN sorts as the largest value.

    Example:
        >>> torch.sort(torch.tensor([3., 1., 2.])).indices
        tensor([1, 2, 0])
    """
    _check_tensor("sort", input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = np if isinstance(a, np.ndarray) else __import__("cupy")
    idx = _argsort(a, d, descending, xp).astype(np.int64, copy=False)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    vals = _pick(input, d, idx)
    return _sort_t((vals, _make(idx)))


def argsort(input, dim=-1, descending=False, stable=False):
    """The int64 indices that sort ``input`` along ``dim`` (see :func:`sort`)."""
    return sort(input, dim, descending, stable).indices


def msort(input):
    """Sort ``input`` along its first dim (values only)."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - torch's
    """The ``k`` largest (or smallest) entries along ``dim`` as ``(values, indices)``.

    Results come in sorted order (largest first when ``largest``); among equal values the
    earlier one comes first.

    Example:
        >>> torch.topk(torch.tensor([1., 5., 3.]), 2).values
        tensor([5., 3.])
    """
    _check_tensor("topk", input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk(): argument 'k' must be int, not {type(k).__name__}")
    if k < 0 or k > a.shape[d]:
        raise RuntimeError(f"selected index k out of range (k={k}, size of dim {d} is "
                           f"{a.shape[d]})")
    xp = np if isinstance(a, np.ndarray) else __import__("cupy")
    order = _argsort(a, d, largest, xp)
    idx = xp.take(order, xp.arange(k), axis=d).astype(np.int64, copy=False)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    return _topk_t((_pick(input, d, idx), _make(idx)))


def _select_kth(fn, input, dim, keepdim, kth_of):
    """Shared body of kthvalue/median(dim)/nanmedian(dim): the ``kth_of(sorted)`` entry."""
    _check_tensor(fn, input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if a.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    xp = np if isinstance(a, np.ndarray) else __import__("cupy")
    order = xp.argsort(a, axis=d, kind="stable")
    pos = kth_of(a, d, xp)  # position in sorted order, shape a with dim d kept as 1
    idx = xp.take_along_axis(order, pos, axis=d).astype(np.int64, copy=False)
    vals = _pick(input, d, idx.reshape(()) if input._array.ndim == 0 else idx)
    vals, idx = _finish(input, vals, _make(idx), d, keepdim)
    return vals, idx


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest entry (1-based) along ``dim`` as ``(values, indices)``.

    Example:
        >>> torch.kthvalue(torch.tensor([4., 1., 3.]), 2).values
        tensor(3.)
    """
    _check_tensor("kthvalue", input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if not 1 <= k <= a.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} "
                           f"(k={k}, size {a.shape[d]})")

    def kth(arr, dd, xp):
        shape = list(arr.shape)
        shape[dd] = 1
        return xp.full(shape, k - 1, dtype=np.int64)

    return _kthvalue_t(_select_kth("kthvalue", input, d, keepdim, kth))


def _median_pos(ignore_nan):
    """Where the lower median sits in the sorted line; NaNs sort last in NumPy."""

    def pos(arr, d, xp):
        n = arr.shape[d]
        if arr.dtype.kind not in "fc":
            shape = list(arr.shape)
            shape[d] = 1
            return xp.full(shape, (n - 1) // 2, dtype=np.int64)
        nans = xp.isnan(arr).sum(axis=d, keepdims=True)
        if ignore_nan:
            return xp.maximum(n - nans - 1, 0) // 2
        # any NaN makes the median NaN: point at the first NaN of the sorted line
        return xp.where(nans > 0, n - nans, (n - 1) // 2)

    return pos


def _median(fn, input, dim, keepdim, ignore_nan):
    if dim is None:
        _check_tensor(fn, input)
        if input._array.size == 0:
            return _make(np.full((), np.nan, dtype=input._array.dtype))
        flat = input.reshape(-1)
        return _select_kth(fn, flat, 0, False, _median_pos(ignore_nan))[0]
    return _median_t(_select_kth(fn, input, dim, keepdim, _median_pos(ignore_nan)))


def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median of all entries, or ``(values, indices)`` along ``dim``.

    For an even count the smaller of the two middle values is returned, as torch does; a NaN
    anywhere in a line makes that line's median NaN.

    Example:
        >>> torch.median(torch.tensor([1., 4., 2., 3.]))
        tensor(2.)
    """
    return _median("median", input, dim, keepdim, False)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """Like :func:`median`, but NaN entries are left out (all-NaN lines give NaN)."""
    return _median("nanmedian", input, dim, keepdim, True)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` and the index of its last occurrence.

    Among equally frequent values the smallest is chosen.

    Example:
        >>> torch.mode(torch.tensor([2., 1., 2., 1., 3.])).values
        tensor(1.)
    """
    _check_tensor("mode", input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = np if isinstance(a, np.ndarray) else __import__("cupy")
    n = a.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    lines = xp.moveaxis(a, d, -1).reshape(-1, n)
    s = xp.sort(lines, axis=1)
    # runs of equal values in each sorted line, counted with one bincount over all lines
    start = xp.ones(s.shape, dtype=bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]
    run = xp.cumsum(start.reshape(-1)) - 1
    counts = xp.bincount(run)[run].reshape(s.shape)
    best = xp.take_along_axis(s, xp.argmax(counts, axis=1)[:, None], axis=1)
    hit = lines == best
    last = (n - 1) - xp.argmax(hit[:, ::-1], axis=1)
    shape = list(a.shape)
    shape[d] = 1
    moved = list(xp.moveaxis(xp.empty(shape), d, -1).shape)
    idx = xp.moveaxis(last.reshape(moved), -1, d).astype(np.int64)
    vals = _pick(input, d, idx.reshape(()) if input._array.ndim == 0 else idx)
    return _mode_t(_finish(input, vals, _make(idx), d, keepdim))


def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A002 - torch's names
    """Count ``input``'s values in ``bins`` equal bins over ``[min, max]``.

    With ``min == max`` the data's own range is used (widened by 1 each side if flat). Values
    outside the range are not counted; the maximum falls in the last bin.

    Example:
        >>> torch.histc(torch.tensor([1., 2., 1.]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    _check_tensor("histc", input)
    a = input._array.reshape(-1)
    if a.dtype.kind not in "f":
        raise RuntimeError(f"\"histogram_cpu\" not implemented for "
                           f"'{input.dtype.name.capitalize()}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    xp = np if isinstance(a, np.ndarray) else __import__("cupy")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, got min={lo} max={hi}")
    keep = a[(a >= lo) & (a <= hi)]
    lo_t, hi_t = a.dtype.type(lo), a.dtype.type(hi)
    pos = ((keep - lo_t) * a.dtype.type(bins) / (hi_t - lo_t)).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)
    counts = xp.bincount(pos, minlength=bins)[:bins].astype(a.dtype)
    return _make(counts)
