"""Sorting and selection: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, cummax
and cummin (histograms, bucketing and counts are in binning.py, unique in uniques.py).

Each op finds its indices with one NumPy sort (not differentiable) and then reads the values
with :func:`gather` at those fixed indices, so the gradient is routed back to the selected
positions by gather's own backward and double backward works.
"""

import numpy as np

from .. import _dtype
from .._preserve_layout import empty_preserving
from .._required_dim import check_missing_call, missing_arg
from .._tensor import _make
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, xp_of
from ..return_types import (
    cummax as _cummax_t, cummin as _cummin_t,
    kthvalue as _kthvalue_t, median as _median_t, mode as _mode_t, nanmedian as _nanmedian_t,
    sort as _sort_t,
    topk as _topk_t,
)
from . import _tie_order
from .._required_dim import all_dims
from ._util import (arg_type_error, as_index, canonical_dim, check_int, check_keepdim,
                    refuse_dtype)
from .gather import Gather
from ._pointwise import _out
from .binning import _check_tensor

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "cummax", "cummin"]


def _argsort(a, d, descending, xp):
    """Stable argsort of ``a`` along ``d``; ties keep their original order both ways."""
    if not descending:
        return xp.argsort(a, axis=d, kind="stable")
    # reverse, sort stably ascending, reverse the order back: descending with ties in order
    n = a.shape[d]
    flipped = xp.flip(a, axis=d)
    order = xp.flip(xp.argsort(flipped, axis=d, kind="stable"), axis=d)
    return (n - 1) - order


def _pick(input, d, idx, node_name="GatherBackward0", selects=True):
    """Values of ``input`` at the int64 array ``idx`` along ``d`` (differentiable); the node
    carries torch's name for the calling function. ``selects``: each entry is picked at most
    once, and the gradient is written back (not added: a -0.0 stays, as torch's)."""
    return Gather.apply(input, _make(idx.astype(np.int64, copy=False)), dim=d,
                        node_name=node_name, selects=selects)


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
    """The array of ``input`` with at least one dim (0-d tensors act as 1-element vectors),
    to order and compare (values are picked from ``input``): bfloat16 as float32, which keeps
    its order exactly and which NumPy's sorts and NaN tests know (ml_dtypes' NaN does not
    sort last)."""
    a = _sortable(input._array)
    return a.reshape(1) if a.ndim == 0 else a


def _sortable(a):
    return a.astype(np.float32) if a.dtype == _dtype.bfloat16.np else a


def _finish(input, vals, idx, d, keepdim):
    """Drop dim ``d`` from values and indices unless ``keepdim``; 0-d inputs stay 0-d."""
    if input._array.ndim == 0:
        return vals.reshape(()), idx.reshape(())
    if not keepdim:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
    return vals, idx


_UNSET = object()


def _sort_args(name, method, input, extra, stable, dim, descending):
    """``(dim, descending)`` from torch's two signatures: both by position, or by keyword
    next to the keyword-only ``stable``; a mix is refused with torch's TypeError."""
    if len(extra) <= (2 if stable is None else 0):
        if extra:
            dim = extra[0]
        if len(extra) == 2:
            descending = extra[1]
        return (-1 if dim is _UNSET else dim), (False if descending is _UNSET else descending)
    if len(extra) >= 2 and (method or name == "argsort"):
        low, high = (1, 0) if method else (2, 1)
        raise TypeError(f"{name}() takes from {low} to {high} positional arguments but "
                        f"{len(extra) + (not method)} were given")
    from .._generator_args import _got

    keywords = [(k, v) for k, v in (("stable", stable), ("dim", dim),
                                    ("descending", descending)) if v not in (None, _UNSET)]
    head = "" if method else "Tensor input, "
    out = "" if method else (", tuple of Tensors out = None" if name == "sort"
                             else ", Tensor out = None")
    if name == "sort" and not method:
        second, why = ", *, tuple of Tensors out = None)", ""
    else:
        second, why = ")", "\n      didn't match because some of the keywords were incorrect: stable"
    raise TypeError(
        f"{name}() received an invalid combination of arguments - got "
        f"{_got(extra if method else (input, *extra), keywords)}, but expected one of:\n"
        f" * ({head}*, bool stable, int dim = -1, bool descending = False{out})\n"
        f" * ({head}int dim = -1, bool descending = False{second}{why}\n")


def sort(input, *args, stable=None, dim=_UNSET, descending=_UNSET, out=None, _method=False):
    """Sort ``input`` along ``dim``; return the named tuple ``(values, indices)``.

    ``dim`` and ``descending`` come by position, or by keyword when ``stable`` is given.
    With ``stable=True`` equal values keep their order (also when ``descending``); without
    it they come in the order torch's CPU sort (libstdc++'s std::sort) leaves them, for lines
    of more than 16 values that hold ties (up to 2**16 such values per call; beyond that in
    the stable order). NaN sorts as the largest value.

    Example:
        >>> torch.sort(torch.tensor([3., 1., 2.])).indices
        tensor([1, 2, 0])
    """
    dim, descending = _sort_args("sort", _method, input, args, stable, dim, descending)
    _check_tensor("sort", input)
    refuse_dtype(input, "c", message=" Sort does not support {} dtypes on CPU")
    a = _nd(input)
    d = canonical_dim(dim, a.ndim)
    xp = xp_of(a)
    idx = _argsort(a, d, descending, xp).astype(np.int64, copy=False)
    if not stable and _plain_host(a) and a.shape[d] > _tie_order._SORT_THRESHOLD:
        idx = _torch_sort_ties(a, d, idx, descending)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    vals = _pick(input, d, idx, "SortBackward1" if stable else "SortBackward0")
    if input._array.ndim > 1 and _plain_host(a) and not a.flags.c_contiguous:
        # torch lays both results out like the input (empty_like), not row-major
        vals._array, idx = _like(xp, vals._array, a), _like(xp, idx, a)
    return _out(_sort_t((vals, _make(idx))), out, exact=True)


# the most elements of tied lines given torch's unstable order (its cost is some whole-array
# passes per recursion level); larger sorts keep the stable order
_UNSTABLE_TIES_LIMIT = 1 << 16


def _torch_sort_ties(a, d, idx, descending):
    """torch's order of equal values for ``stable=False`` (std::sort, see
    ops/_tie_order.py) on the lines of ``a`` along ``d`` that hold ties; ``idx`` is the
    stable order (kept where torch's sort is stable too)."""
    if a.ndim == 1 and a.size >= 32768 and a.dtype.kind in "iu" and not descending:
        return idx  # torch's radix sort of long integer vectors: stable
    lines = _lines(a, d)
    srt = np.take_along_axis(lines, _lines(idx, d), axis=1)
    tied = _equal(srt[:, 1:], srt[:, :-1], np).any(axis=1)
    rows = np.flatnonzero(tied)
    if rows.size == 0 or rows.size * lines.shape[1] > _UNSTABLE_TIES_LIMIT:
        return idx
    keys = _tie_order.line_ranks(lines[rows])
    perm = _tie_order.std_sort_lines(-keys if descending else keys)
    moved = np.swapaxes(idx, d, -1)
    fixed = moved.reshape(-1, idx.shape[d]).copy()
    fixed[rows] = perm
    return np.swapaxes(fixed.reshape(moved.shape), d, -1)


def _like(xp, arr, like):
    out = empty_preserving(xp, like, arr.dtype)
    out[...] = arr
    return out


def argsort(input, *args, stable=None, dim=_UNSET, descending=_UNSET, _method=False):
    """The int64 indices that sort ``input`` along ``dim`` (see :func:`sort`)."""
    dim, descending = _sort_args("argsort", _method, input, args, stable, dim, descending)
    return sort(input, stable=stable, dim=dim, descending=descending).indices


def msort(input, *, out=None):
    """Sort ``input`` along its first dim (values only)."""
    return _out(sort(input, 0).values, out, exact=True)


def topk(input=missing_arg, k=missing_arg, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - torch's
    """The ``k`` largest (or smallest) entries along ``dim`` as ``(values, indices)``.

    Results come in sorted order (largest first when ``largest``); with ``sorted=False`` they
    come in the order torch's CPU selection leaves them. Among equal values the indices are
    the ones torch's CPU kernel reports (see ``ops/_tie_order.py``).

    Example:
        >>> torch.topk(torch.tensor([1., 5., 3.]), 2).values
        tensor([5., 3.])
    """
    try:
        _check_tensor("topk", input)
        refuse_dtype(input, "c", message=" topk does not support {} dtypes on CPU")
        refuse_dtype(input, "b", message="topk does not support {} dtypes on CPU")
        a = _nd(input)
        k = as_index(k)
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
            raise arg_type_error(k, "k", fn="topk")
        d = canonical_dim(_int_dim(dim, 2), a.ndim)
        if k < 0 or k > a.shape[d]:
            raise RuntimeError("selected index k out of range")
        xp = xp_of(a)
        n = a.shape[d]
        fast = _topk_sampled(a, d, k, largest) if _plain_host(a) else None
        if input._array.ndim == 0:  # torch hands back the one value for k=0 too
            idx = xp.zeros((), dtype=np.int64)
        elif fast is not None:  # no ties to settle: the same indices as the full path's
            idx = fast
        elif 0 < k < n // 4:
            # a partition finds the k candidates, then only those k are sorted
            part = xp.argpartition(a, n - k if largest else k - 1, axis=d)
            cand = xp.take(part, xp.arange(n - k, n) if largest else xp.arange(k), axis=d)
            order = _argsort(xp.take_along_axis(a, cand, axis=d), d, largest, xp)
            idx = xp.take_along_axis(cand, order, axis=d).astype(np.int64, copy=False)
        else:
            order = _argsort(a, d, largest, xp)
            idx = xp.take(order, xp.arange(k), axis=d).astype(np.int64, copy=False)
        if _plain_host(a) and input._array.ndim and k and fast is None:
            idx = _torch_topk_ties(a, d, idx, k, largest, sorted)
        idx = _row_major(idx)
        return _out(_topk_t((_pick(input, d, idx, "TopkBackward0"), _make(idx))), out, exact=True)
    except Exception:
        check_missing_call(input=input, k=k)
        raise


# topk of long lines reads every _TOPK_STEP-th value (more apart in longer lines, at most
# _TOPK_SAMPLE values a line) for a threshold per line
_TOPK_SAMPLE = 8192
_TOPK_STEP = 16


def _topk_sampled(a, d, k, largest):
    """Sorted top-``k`` indices of ``a`` along ``d`` (a plain host array of lines of 8192+
    values) when no line has a tied selection, else None (the full path decides).

    A strided sample of each line gives a threshold (its ``j``-th largest value, ``j`` about
    twice the sample's share of ``k`` plus 16): the values past it (NaN too, for
    ``largest``; not for the smallest, where NaN counts as the largest) are the candidates.
    When a line has at least ``k`` of them they hold its top ``k`` and every entry equal to
    its ``k``-th value, so selecting, sorting and testing ties among them gives the full
    line's answer. Lines are padded to the most candidates with a value below every
    candidate (above, for the smallest). One compare over the lines replaces a partition.
    """
    n = a.shape[d]
    if n < _TOPK_SAMPLE or not 0 < k <= n // 64 or a.dtype.kind not in "fiu" or a.size == 0:
        return None
    lines = _lines(a, d)
    sample = lines[:, ::max(_TOPK_STEP, n // _TOPK_SAMPLE)]
    m = sample.shape[1]
    j = min(m, 2 * (k * m // n + 1) + 16)
    if a.dtype.kind == "f":
        pad = a.dtype.type(-np.inf if largest else np.inf)
    else:
        info = np.iinfo(a.dtype)
        pad = a.dtype.type(info.min if largest else info.max)
    if largest:
        thr = np.partition(sample, m - j, axis=1)[:, m - j:m - j + 1]
        if not (thr > pad).all():  # (a NaN threshold too)
            return None
        mask = ~(lines < thr)
    else:
        thr = np.partition(sample, j - 1, axis=1)[:, j - 1:j]
        if not (thr < pad).all():
            return None
        mask = lines <= thr
    pos = np.flatnonzero(mask)
    if pos.size > lines.size // 8:  # heavy ties
        return None
    row, col = np.divmod(pos, n)
    counts = np.bincount(row, minlength=lines.shape[0])
    c = int(counts.max())
    if int(counts.min()) < k or c > n // 8:  # heavy ties, an unlucky sample
        return None
    rank = np.arange(pos.size) - np.repeat(np.cumsum(counts) - counts, counts)
    block = np.full((lines.shape[0], c), pad, dtype=a.dtype)
    block[row, rank] = lines.reshape(-1)[pos] if lines.flags.c_contiguous else lines[row, col]
    cols = np.zeros(block.shape, dtype=np.int64)
    cols[row, rank] = col
    part = np.argpartition(block, c - k if largest else k - 1, axis=1)
    sel = part[:, c - k:] if largest else part[:, :k]
    top_i = np.take_along_axis(sel, _argsort(np.take_along_axis(block, sel, 1), 1, largest,
                                             np), 1)
    top = np.take_along_axis(block, top_i, 1)
    if _equal(top[:, 1:], top[:, :-1], np).any() or \
            (np.count_nonzero(_equal(block, top[:, -1:], np), axis=1) > 1).any():
        return None
    shape = list(a.shape)
    shape[d] = k
    idx = np.empty(shape, dtype=np.int64)  # row-major, as the full path's
    moved = np.swapaxes(idx, d, -1)
    moved[...] = np.take_along_axis(cols, top_i, 1).reshape(moved.shape)
    return idx


def _plain_host(a):
    """Whether torch's CPU tie rule applies and can be replayed: a plain host array (torch's
    CUDA kernels choose differently, and a vmap stand-in cannot be read line by line)."""
    return type(a) is np.ndarray


def _row_major(idx):
    """Indices laid out row-major, as torch allocates them (host arrays; a vmap stand-in or
    a meta array keeps its own)."""
    if _plain_host(idx) and idx.ndim and not idx.flags.c_contiguous:
        return np.ascontiguousarray(idx)
    return idx


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
    if a.shape[d] == 0:  # (nanmedian's check is median's, and says so in torch)
        raise IndexError(f"{'median' if fn == 'nanmedian' else fn}(): Expected reduction dim "
                         f"{d} to have non-zero size.")
    xp = xp_of(a)
    order = xp.argsort(a, axis=d, kind="stable")
    pos = kth_of(a, d, xp)  # position in sorted order, shape a with dim d kept as 1
    idx = xp.take_along_axis(order, pos, axis=d).astype(np.int64, copy=False)
    if ties is not None:
        idx = ties(a, d, idx)
    idx = _row_major(idx)
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
    d = canonical_dim(_int_dim(dim, 2), a.ndim)
    if a.shape[d] == 0:  # torch checks the size before k
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= a.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")

    def kth(arr, dd, xp):
        shape = list(arr.shape)
        shape[dd] = 1
        return xp.full(shape, k - 1, dtype=np.int64)

    ties = _torch_kth_ties(k - 1) if _plain_host(a) else None
    res = _select_kth("kthvalue", input, d, keepdim, kth, ties)
    return _pair_out(_kthvalue_t((rename_node(res[0], "KthvalueBackward0"), res[1])), out,
                     "output values must be of same type as input",
                     "output indices must be of scalar type Long")


_MEDIAN_VALUES = ("Expected tensor for 'values' to have the same type as tensor for argument #2 "
                  "'self'; but type {got_t} does not equal {want_t} (while checking arguments "
                  "for median)")
_MEDIAN_INDICES = ("Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                   "{got_t} instead (while checking arguments for median)")
_CUM_OUT = "expected scalar_type {want} but found {got}"


def _pair_out(result, out, values_msg, indices_msg, indices_first=False):
    """``_out`` for a ``(values, indices)`` result whose kernel writes only the input's dtype
    and int64 indices: torch refuses an ``out`` pair of other dtypes in the op's own words
    (``{want}``/``{got}`` display names, ``{want_t}``/``{got_t}`` legacy tensor types),
    checking the values first unless ``indices_first`` (median's order)."""
    if out is not None:
        checks = list(zip(result, out, (values_msg, indices_msg)))
        for res, o, msg in (checks[::-1] if indices_first else checks):
            if o.dtype is not res.dtype:
                show = _dtype._TYPE_DISPLAY
                raise RuntimeError(msg.format(
                    want=show[res.dtype.name], got=show[o.dtype.name],
                    want_t=f"torch.{res.dtype._legacy}", got_t=f"torch.{o.dtype._legacy}"))
    return _out(result, out)


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
        flat = _sortable(a.reshape(-1))
        xp = xp_of(a)
        pos = _median_pos(ignore_nan)(flat, 0, xp)  # (1,): per sample under vmap
        value = xp.take_along_axis(xp.sort(flat), pos, 0)[0].astype(a.dtype)
        # every entry equal to the median shares its gradient, as in torch
        return SelectTied.apply(input, value=value, node_name=node + "0")
    vals, idx = _select_kth(fn, input, dim, keepdim, _median_pos(ignore_nan))
    named = _median_t if fn == "median" else _nanmedian_t
    return named((rename_node(vals, node + "1"), idx))


def _int_dim(dim, index):
    """``dim``, checked as torch's parser checks an int argument at place ``index`` of the
    method form (canonical_dim's error names place 1)."""
    if type(dim) is int:
        return dim
    value = as_index(dim)
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise arg_type_error(dim, index=index)
    return value


def _median_dim(dim, keepdim):
    """None for the median of all entries (``dim`` left out); torch refuses ``dim=None``."""
    if dim is all_dims:
        return None
    if dim is None:
        raise arg_type_error(dim)
    check_keepdim(None, keepdim)
    return dim


def median(input, dim=all_dims, keepdim=False, *, out=None):
    """The lower median of all entries, or ``(values, indices)`` along ``dim``.

    For an even count the smaller of the two middle values is returned, as torch does; a NaN
    anywhere in a line makes that line's median NaN.

    Example:
        >>> torch.median(torch.tensor([1., 4., 2., 3.]))
        tensor(2.)
    """
    dim = _median_dim(dim, keepdim)
    r = _median("median", input, dim, keepdim, False)
    if dim is None:
        return _out(r, out)
    return _pair_out(r, out, _MEDIAN_VALUES, _MEDIAN_INDICES, indices_first=True)


def nanmedian(input, dim=all_dims, keepdim=False, *, out=None):
    """Like :func:`median`, but NaN entries are left out (all-NaN lines give NaN)."""
    dim = _median_dim(dim, keepdim)
    r = _median("nanmedian", input, dim, keepdim, True)
    if dim is None:
        return _out(r, out)
    return _pair_out(r, out, _MEDIAN_VALUES, _MEDIAN_INDICES, indices_first=True)


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
    if a.dtype.kind == "f" and n <= 16:
        nan_rows = xp.flatnonzero(xp.isnan(lines).any(axis=1))
        if nan_rows.size:
            last[nan_rows] = _mode_with_nan(xp, lines[nan_rows])
    moved = [s_ for k, s_ in enumerate(a.shape) if k != d] + [1]
    idx = xp.moveaxis(last.reshape(moved), -1, d).astype(np.int64)
    vals = _pick(input, d, idx.reshape(()) if input._array.ndim == 0 else idx)
    vals, idx = _finish(input, vals, _make(idx), d, keepdim)
    return _pair_out(_mode_t((rename_node(vals, "ModeBackward0"), idx)), out,
                     "expected scalar type '{want}' but got '{got}' for values output",
                     "expected scalar type '{want}' but got '{got}' for indices output")


def _mode_with_nan(xp, lines):
    """mode's index for short lines (at most 16 entries) holding NaN, as torch's CPU kernel
    picks it: the line put in order by an insertion sort that compares with ``<`` (a NaN
    compares false both ways, so it stays where it is and stops the entries behind it), then
    the first longest run of equal entries (every NaN a run of its own), the index of that
    run's last entry. Vectorised over lines; one step per position."""
    rows, n = lines.shape
    vals = lines.copy()
    idx = xp.broadcast_to(xp.arange(n), (rows, n)).copy()
    for i in range(1, n):
        v = vals[:, i]
        to_front = v < vals[:, 0]
        stay = ~(v[:, None] < vals[:, :i])  # the entry stops after the last of these
        p = xp.where(to_front, 0, i - xp.argmax(stay[:, ::-1], axis=1))
        cols = xp.arange(i + 1)[None, :]
        src = xp.where(cols < p[:, None], cols, xp.where(cols == p[:, None], i, cols - 1))
        vals[:, :i + 1] = xp.take_along_axis(vals[:, :i + 1], src, axis=1)
        idx[:, :i + 1] = xp.take_along_axis(idx[:, :i + 1], src, axis=1)
    end = xp.ones((rows, n), dtype=bool)  # a run ends where the next entry differs (or NaN)
    end[:, :-1] = vals[:, :-1] != vals[:, 1:]
    start = xp.ones((rows, n), dtype=bool)
    start[:, 1:] = end[:, :-1]
    run = xp.cumsum(start.reshape(-1)) - 1
    length = xp.bincount(run)[run].reshape(rows, n)
    longest = xp.where(end, length, 0)
    pos = xp.argmax(longest == longest.max(axis=1, keepdims=True), axis=1)
    return idx[xp.arange(rows), pos]


def _cum_extreme(fn, input, dim):
    _check_tensor(fn, input)
    refuse_dtype(input, "c", fn + "_cpu")
    a = _nd(input)
    if not input._array.ndim and dim not in (0, -1):
        raise IndexError(f"{fn}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
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
    idx = _row_major(idx)
    if input._array.ndim == 0:
        idx = idx.reshape(())
    return _pick(input, d, idx, "CummaxBackward0" if fn == "cummax" else "CumminBackward0",
                 selects=False), \
        _make(idx)


def cummax(input, dim, *, out=None):
    """Running maximum along ``dim`` and the index where each running maximum was last
    reached (NaN propagates).

    Example:
        >>> torch.cummax(torch.tensor([1., 3., 2.]), 0).indices
        tensor([0, 1, 1])
    """
    return _pair_out(_cummax_t(_cum_extreme("cummax", input, dim)), out, _CUM_OUT, _CUM_OUT)


def cummin(input, dim, *, out=None):
    """Running minimum along ``dim`` and its index (see :func:`cummax`)."""
    return _pair_out(_cummin_t(_cum_extreme("cummin", input, dim)), out, _CUM_OUT, _CUM_OUT)
