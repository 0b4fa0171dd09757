"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode and histc.

Each op finds its indices with one NumPy sort (not differentiable) and then reads the values
with :func:`gather` at those fixed indices, so the gradient is routed back to the selected
positions by gather's own backward and double backward works.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, xp_of
from ..return_types import (
    cummax as _cummax_t, cummin as _cummin_t, histogram as _histogram_t,
    kthvalue as _kthvalue_t, median as _median_t, mode as _mode_t, sort as _sort_t,
    topk as _topk_t,
)
from . import _tie_order
from ._util import canonical_dim, check_int, refuse_dtype
from .gather import Gather
from ._pointwise import _out

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "histc", "cummax", "cummin", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "bincount", "histogram"]


def _argsort(a, d, descending, xp):
    """Stable argsort of ``a`` along ``d``; ties keep their original order both ways."""
    if not descending:
        return xp.argsort(a, axis=d, kind="stable")
    # reverse, sort stably ascending, reverse the order back: descending with ties in order
    n = a.shape[d]
    flipped = xp.flip(a, axis=d)
    order = xp.flip(xp.argsort(flipped, axis=d, kind="stable"), axis=d)
    return (n - 1) - order


def _pick(input, d, idx, node_name="GatherBackward0"):
    """Values of ``input`` at the int64 array ``idx`` along ``d`` (differentiable); the node
    carries torch's name for the calling function."""
    return Gather.apply(input, _make(idx.astype(np.int64, copy=False)), dim=d,
                        node_name=node_name)


class SelectTied(Op):
    """y = ``value``, an entry of x chosen by the caller (0-d); dy/dx spreads the gradient
    evenly over every entry equal to it, NaN counting as equal to NaN.

    Why a primitive: this is torch's gradient for ``median()``, ``nanmedian()`` over all
    elements, which a gather at one index would not give with ties; the tie mask is fixed in
    forward, so backward is one scaling (and linear in the gradient, so double backward works).
    """

    def forward(self, x):
        xp, v = self.xp, self.value
        if self._recording:
            mask = xp.isnan(x) if v != v else x == v
            self.save(mask=mask, count=int(mask.sum()))
        return xp.asarray(v, dtype=x.dtype).reshape(())

    def backward(self, grad):
        mask = self.saved("mask")
        return (grad / self.saved("count")) * _make(mask.astype(grad._array.dtype))


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
    refuse_dtype(input, "c", message=" Sort does not support {} dtypes on CPU")
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = xp_of(a)
    idx = _argsort(a, d, descending, xp).astype(np.int64, copy=False)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    vals = _pick(input, d, idx, "SortBackward1" if stable else "SortBackward0")
    return _out(_sort_t((vals, _make(idx))), out)


def argsort(input, dim=-1, descending=False, stable=False):
    """The int64 indices that sort ``input`` along ``dim`` (see :func:`sort`)."""
    return sort(input, dim, descending, stable).indices


def msort(input):
    """Sort ``input`` along its first dim (values only)."""
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - torch's
    """The ``k`` largest (or smallest) entries along ``dim`` as ``(values, indices)``.

    Results come in sorted order (largest first when ``largest``); with ``sorted=False`` they
    come in the order torch's CPU selection leaves them. Among equal values the indices are
    the ones torch's CPU kernel reports (see ``ops/_tie_order.py``).

    Example:
        >>> torch.topk(torch.tensor([1., 5., 3.]), 2).values
        tensor([5., 3.])
    """
    _check_tensor("topk", input)
    refuse_dtype(input, "c", message=" topk does not support {} dtypes on CPU")
    refuse_dtype(input, "b", message="topk does not support {} dtypes on CPU")
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk(): argument 'k' must be int, not {type(k).__name__}")
    if k < 0 or k > a.shape[d]:
        raise RuntimeError("selected index k out of range")
    xp = xp_of(a)
    n = a.shape[d]
    if input._array.ndim == 0:  # torch hands back the one value for k=0 too
        idx = xp.zeros((), dtype=np.int64)
    elif 0 < k < n // 4:
        # a partition finds the k candidates, then only those k are sorted
        part = xp.argpartition(a, n - k if largest else k - 1, axis=d)
        cand = xp.take(part, xp.arange(n - k, n) if largest else xp.arange(k), axis=d)
        order = _argsort(xp.take_along_axis(a, cand, axis=d), d, largest, xp)
        idx = xp.take_along_axis(cand, order, axis=d).astype(np.int64, copy=False)
    else:
        order = _argsort(a, d, largest, xp)
        idx = xp.take(order, xp.arange(k), axis=d).astype(np.int64, copy=False)
    if _plain_host(a) and input._array.ndim and k:
        idx = _torch_topk_ties(a, d, idx, k, largest, sorted)
    return _out(_topk_t((_pick(input, d, idx, "TopkBackward0"), _make(idx))), out)


def _plain_host(a):
    """Whether torch's CPU tie rule applies and can be replayed: a plain host array (torch's
    CUDA kernels choose differently, and a vmap stand-in cannot be read line by line)."""
    return type(a) is np.ndarray


def _lines(a, d):
    """``a`` as a 2-D (lines, n) array with dim ``d`` last."""
    return a.reshape(1) if a.ndim == 0 else a.swapaxes(d, -1).reshape(-1, a.shape[d])


def _equal(x, y, xp):
    """Elementwise equality with NaN equal to NaN (ties as torch's comparators see them)."""
    eq = x == y
    if x.dtype.kind not in "iub":
        eq = eq | (xp.isnan(x) & xp.isnan(y))
    return eq


def _replay(a, d, idx, lines_to_fix, pick):
    """Replace the lines ``lines_to_fix`` of ``idx`` (``a``'s layout, dim ``d``) with
    ``pick(rank keys of the line)``."""
    rows = np.flatnonzero(lines_to_fix)
    if rows.size == 0:
        return idx
    xp = xp_of(a)
    vals = _lines(a, d)
    moved = xp.swapaxes(idx, d, -1)
    fixed = moved.reshape(-1, idx.shape[d]).copy()
    for r in rows.tolist():
        fixed[r] = pick(_tie_order.ranks(vals[r]))
    return xp.swapaxes(fixed.reshape(moved.shape), d, -1)


def _torch_topk_ties(a, d, idx, k, largest, sorted_):
    """torch's CPU topk indices where its algorithm decides them (see ops/_tie_order.py):
    lines where a selected value occurs more than once, and every line of an unsorted
    selection that torch makes with nth_element."""
    xp = xp_of(a)
    n = a.shape[d]
    lines = _lines(a, d)
    if not sorted_ and k > 1 and k * 64 > n:
        redo = np.ones(lines.shape[0], dtype=bool)
    else:
        top = xp.take_along_axis(lines, xp.swapaxes(idx, d, -1).reshape(-1, k), axis=1)
        last = top[:, -1:]
        redo = _equal(lines, last, xp).sum(axis=1) > 1
        if k > 1:
            redo |= _equal(top[:, 1:], top[:, :-1], xp).any(axis=1)
    return _replay(a, d, idx, redo, lambda keys: _tie_order.topk_line(keys, k, largest,
                                                                       sorted_))


def _torch_kth_ties(k):
    """The index torch's CPU kthvalue picks among values equal to the ``k``-th smallest."""

    def fix(a, d, idx):
        xp = xp_of(a)
        lines = _lines(a, d)
        chosen = xp.take_along_axis(lines, xp.swapaxes(idx, d, -1).reshape(-1, 1), axis=1)
        redo = _equal(lines, chosen, xp).sum(axis=1) > 1
        return _replay(a, d, idx, redo, lambda keys: _tie_order.kth_line(keys, k))

    return fix


def _select_kth(fn, input, dim, keepdim, kth_of, ties=None):
    """Shared body of kthvalue/median(dim)/nanmedian(dim): the ``kth_of(sorted)`` entry
    (``ties(a, d, idx)`` may then choose another index among equal values)."""
    _check_tensor(fn, input)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if a.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    xp = xp_of(a)
    order = xp.argsort(a, axis=d, kind="stable")
    pos = kth_of(a, d, xp)  # position in sorted order, shape a with dim d kept as 1
    idx = xp.take_along_axis(order, pos, axis=d).astype(np.int64, copy=False)
    if ties is not None:
        idx = ties(a, d, idx)
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
    refuse_dtype(input, "cb", "kthvalue_cpu")
    k = check_int("kthvalue", "k", k, 1)
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    if not 1 <= k <= a.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")

    def kth(arr, dd, xp):
        shape = list(arr.shape)
        shape[dd] = 1
        return xp.full(shape, k - 1, dtype=np.int64)

    ties = _torch_kth_ties(k - 1) if _plain_host(a) else None
    res = _select_kth("kthvalue", input, d, keepdim, kth, ties)
    return _out(_kthvalue_t((rename_node(res[0], "KthvalueBackward0"), res[1])), out)


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
    node = "MedianBackward" if fn == "median" else "NanmedianBackward"
    _check_tensor(fn, input)
    refuse_dtype(input, "cb", "median_cpu" if dim is None else "median_out")
    if dim is None:
        a = input._array
        if a.size == 0:
            return _make(np.full((), np.nan, dtype=a.dtype))
        flat = a.reshape(-1)
        xp = xp_of(a)
        pos = int(_median_pos(ignore_nan)(flat, 0, xp)[0])
        value = xp.sort(flat)[pos]
        # every entry equal to the median shares its gradient, as in torch
        return SelectTied.apply(input, value=value, node_name=node + "0")
    vals, idx = _select_kth(fn, input, dim, keepdim, _median_pos(ignore_nan))
    return _median_t((rename_node(vals, node + "1"), idx))


def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median of all entries, or ``(values, indices)`` along ``dim``.

    For an even count the smaller of the two middle values is returned, as torch does; a NaN
    anywhere in a line makes that line's median NaN.

    Example:
        >>> torch.median(torch.tensor([1., 4., 2., 3.]))
        tensor(2.)
    """
    return _out(_median("median", input, dim, keepdim, False), out)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """Like :func:`median`, but NaN entries are left out (all-NaN lines give NaN)."""
    return _out(_median("nanmedian", input, dim, keepdim, True), out)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along ``dim`` and the index of its last occurrence.

    Among equally frequent values the smallest is chosen.

    Example:
        >>> torch.mode(torch.tensor([2., 1., 2., 1., 3.])).values
        tensor(1.)
    """
    _check_tensor("mode", input)
    refuse_dtype(input, "c", "mode_cpu")
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = xp_of(a)
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
    moved = [s_ for k, s_ in enumerate(a.shape) if k != d] + [1]
    idx = xp.moveaxis(last.reshape(moved), -1, d).astype(np.int64)
    vals = _pick(input, d, idx.reshape(()) if input._array.ndim == 0 else idx)
    vals, idx = _finish(input, vals, _make(idx), d, keepdim)
    return _out(_mode_t((rename_node(vals, "ModeBackward0"), idx)), out)


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
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    xp = xp_of(a)
    lo, hi = float(min), float(max)
    from_data = lo == hi and a.size
    if from_data:
        lo, hi = float(a.min()), float(a.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        # torch prints a NaN found in the data with its sign bit set
        raise RuntimeError(f"torch.histc: range of [{_c_float(lo, from_data)}, "
                           f"{_c_float(hi, from_data)}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    keep = a[(a >= lo) & (a <= hi)]
    lo_t, hi_t = a.dtype.type(lo), a.dtype.type(hi)
    pos = ((keep - lo_t) * a.dtype.type(bins) / (hi_t - lo_t)).astype(np.int64)
    pos = xp.minimum(pos, bins - 1)
    counts = xp.bincount(pos, minlength=bins)[:bins].astype(a.dtype)
    return _out(_make(counts), out)


def _c_float(v, negative_nan=False):
    """A float as torch's C++ messages print it (``%g``: 1, 2.5, inf, nan)."""
    if v != v:
        return "-nan" if negative_nan else "nan"
    return f"{v:g}"


def _cum_extreme(fn, input, dim):
    _check_tensor(fn, input)
    refuse_dtype(input, "c", fn + "_cpu")
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = xp_of(a)
    if a.size == 0:
        return input * 1, _make(xp.zeros(input._array.shape, dtype=np.int64))
    run = helpers_for(xp).accumulate("maximum" if fn == "cummax" else "minimum", a, d)
    # a later equal value takes over the index, and so does every NaN (as torch's)
    hit = a == run
    if a.dtype.kind in "fc":
        hit |= xp.isnan(a)
    shape = [1] * a.ndim
    shape[d] = a.shape[d]
    pos = xp.arange(a.shape[d]).reshape(shape)
    idx = helpers_for(xp).accumulate("maximum", xp.where(hit, pos, 0), d).astype(np.int64)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    return _pick(input, d, idx, "CummaxBackward0" if fn == "cummax" else "CumminBackward0"), \
        _make(idx)


def cummax(input, dim):
    """Running maximum along ``dim`` and the index where each running maximum was last
    reached (NaN propagates).

    Example:
        >>> torch.cummax(torch.tensor([1., 3., 2.]), 0).indices
        tensor([0, 1, 1])
    """
    return _cummax_t(_cum_extreme("cummax", input, dim))


def cummin(input, dim):
    """Running minimum along ``dim`` and its index (see :func:`cummax`)."""
    return _cummin_t(_cum_extreme("cummin", input, dim))


def _unique_result(vals, inverse, counts, return_inverse, return_counts):
    out = [vals]
    if return_inverse:
        out.append(_make(inverse.astype(np.int64)))
    if return_counts:
        out.append(_make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


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
    if a.dtype.kind == "c":
        raise NotImplementedError(f'"unique" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    xp = xp_of(a)
    if dim is None:
        lines, d = a.reshape(-1, 1), 0
    else:
        d = canonical_dim(dim, a.ndim)
        lines = xp.moveaxis(a, d, 0).reshape(a.shape[d], -1)
    n = lines.shape[0]
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
        vals, inv = a.reshape(-1)[firsts], inv.reshape(a.shape)
    else:
        vals = xp.take(a, firsts, axis=d)
    return _unique_result(_make(xp.ascontiguousarray(vals)), inv, counts, return_inverse,
                          return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values (or slices along ``dim``) to one.

    Example:
        >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
        tensor([1, 2, 1])
    """
    _check_tensor("unique_consecutive", input)
    a = input._array
    xp = xp_of(a)
    if dim is None:
        lines, d = a.reshape(-1, 1), 0
    else:
        d = canonical_dim(dim, a.ndim)
        lines = xp.moveaxis(a, d, 0).reshape(a.shape[d], -1)
    n = lines.shape[0]
    start = xp.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (lines[1:] != lines[:-1]).any(axis=1)
    inv = xp.cumsum(start) - 1
    firsts = xp.flatnonzero(start)
    counts = xp.diff(xp.append(firsts, n))
    if dim is None:
        vals, inv = a.reshape(-1)[firsts], inv.reshape(a.shape)
    else:
        vals = xp.take(a, firsts, axis=d)
    return _unique_result(_make(xp.ascontiguousarray(vals)), inv, counts, return_inverse,
                          return_counts)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Where each value of ``input`` would go in the (last-dim) sorted ``sorted_sequence``.

    ``right`` (or ``side="right"``) puts equal values after their matches. A 1-D sequence is
    shared by every value; otherwise the leading dims of both must match and each row of
    values searches its own row. A number ``input`` gives a 0-d result.

    Example:
        >>> torch.searchsorted(torch.tensor([1., 2., 3.]), torch.tensor([2.5]))
        tensor([2])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites,"
                               " got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence._array
    xp = xp_of(seq)
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter._array, axis=-1)
    vals = input._array if isinstance(input, Tensor) else xp.asarray(input, dtype=seq.dtype)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        res = xp.searchsorted(seq.reshape(-1), vals, side=how)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension "
                               f"or the first N-1 dimensions of boundaries tensor and input "
                               f"value tensor must match, but we got boundaries tensor "
                               f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        # one NumPy search per row (rows, not elements, are looped over)
        res = xp.stack([xp.searchsorted(s_, v_, side=how) for s_, v_ in zip(rows_s, rows_v)])
        res = res.reshape(vals.shape)
    return _out(_make(xp.asarray(res, dtype=np.int32 if out_int32 else np.int64)), out)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value for the sorted 1-D ``boundaries``: with ``right=False`` the
    index ``i`` with ``boundaries[i-1] < x <= boundaries[i]``.

    Example:
        >>> torch.bucketize(torch.tensor([0.5, 2.]), torch.tensor([1., 2.]))
        tensor([0, 1])
    """
    if boundaries._array.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries._array.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input, weights=None, minlength=0):
    """Count how often each non-negative integer occurs in the 1-D ``input`` (summing
    ``weights`` instead of ones when given).

    Example:
        >>> torch.bincount(torch.tensor([0, 2, 2]))
        tensor([1, 0, 2])
    """
    _check_tensor("bincount", input)
    a = input._array
    if a.dtype.kind not in "iub":
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError(f"minlength should be >= 0 (got {minlength})")
    if weights is None:
        return _make(xp_of(a).bincount(a, minlength=minlength).astype(np.int64))
    w = weights._array
    if w.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    return _make(xp_of(a).bincount(a, weights=w, minlength=minlength).astype(out_dtype))


def histogram(input, bins=100, *, range=None, weight=None, density=False,  # noqa: A002
              out=None):
    """Histogram of a float tensor as ``(hist, bin_edges)``.

    ``bins`` is a count of equal bins over ``range`` (the data's min and max by default) or a
    1-D tensor of increasing edges. The last bin includes its right edge. ``weight`` sums
    weights instead of ones; ``density`` scales to unit area.

    Example:
        >>> torch.histogram(torch.tensor([1., 2., 1., 4.]), 3).hist
        tensor([2., 1., 1.])
    """
    _check_tensor("histogram", input)
    a = input._array.reshape(-1)
    if a.dtype.kind != "f":
        raise RuntimeError(f"torch.histogram: input tensor must be floating point (got "
                           f"{input.dtype})")
    if isinstance(bins, Tensor):
        edges = bins._array.astype(a.dtype)
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension and "
                               f"at least 2 elements, but got {edges.ndim} dimension(s) and "
                               f"{edges.size} element(s)")
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins}")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif a.size:
            lo, hi = float(a.min()), float(a.max())
        else:
            lo, hi = 0.0, 0.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{_c_float(lo)} max {_c_float(hi)} for dimension 0")
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{_c_float(lo)}, "
                               f"{_c_float(hi)}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = xp_of(a).linspace(lo, hi, bins + 1).astype(a.dtype)
    w = None if weight is None else weight._array.reshape(-1)
    hist, _ = xp_of(a).histogram(a, bins=edges, weights=w)
    hist = hist.astype(a.dtype)
    if density:
        hist = hist / (hist.sum() * xp_of(a).diff(edges)).astype(a.dtype)
    return _out(_histogram_t((_make(hist.astype(a.dtype)), _make(edges))), out)
