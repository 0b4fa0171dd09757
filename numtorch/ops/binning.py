"""Binning and counting: histc, histogram, bincount, searchsorted and bucketize.

None of them is differentiable; each is one NumPy (or CuPy) call on the whole tensor.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..backend import xp_of
from ..return_types import histogram as _histogram_t
from ._pointwise import _out

__all__ = ["histc", "searchsorted", "bucketize", "bincount", "histogram"]


# shared with sorting.py and uniques.py: torch's check of the input's type
def _check_tensor(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


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
    if not input.dtype.is_floating_point:  # (bfloat16's NumPy kind is 'V')
        # (a complex input fails first in the search for its range)
        kernel = "aminmax_cpu" if a.dtype.kind == "c" and min == max else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
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


def uniform_edges(xp, values, n, bounds, d, dt):
    """``n + 1`` equal-width bin edges of dimension ``d`` (histogram and histogramdd): over
    ``bounds`` or the range of ``values``, widened by one half on each side when flat."""
    if bounds is not None:
        lo, hi = bounds
    elif values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = 0.0, 1.0  # torch's range of no data
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                           f"{_c_float(lo)} max {_c_float(hi)} for dimension {d}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_c_float(lo)}, "
                           f"{_c_float(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    if np.dtype(dt) in (np.float32, np.float64):
        # torch's edges are its linspace in the input's precision, not a float64 one cast down
        from .._dtype import from_numpy_dtype
        from .._ranges import _linspace_values

        return xp.asarray(_linspace_values(lo, hi, n + 1, from_numpy_dtype(dt)))
    return xp.linspace(lo, hi, n + 1).astype(dt)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None, _depth=2):
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
    want = _dtype.int32 if out_int32 else _dtype.int64
    if out is not None and out.dtype is not want:
        raise RuntimeError(f"torch.searchsorted(): output tensor's dtype is wrong, it can only be "
                           f"Int(int32) or Long(int64) depending on whether out_int32 flag is "
                           f"True, but we got output tensor's dtype "
                           f"{_dtype._TYPE_DISPLAY[out.dtype.name]} and out_int32 flag is "
                           f"{bool(out_int32)}")
    seq = sorted_sequence._array
    xp = xp_of(seq)
    _warn_non_contiguous(sorted_sequence, input, _depth)
    common = _dtype.result_type(sorted_sequence, input)
    if common is _dtype.bool or common._category == _dtype._COMPLEX:
        raise NotImplementedError(f'"searchsorted_out_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[common.name]}'")
    scalar = not isinstance(input, Tensor) or not input._array.ndim
    if scalar and seq.ndim != 1:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    if not seq.ndim:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if sorter is not None:
        seq = xp.take_along_axis(seq, _check_sorter(sorter, seq), axis=-1)
    # (a number is compared in the promoted dtype: 3.5 among int boundaries stays 3.5,
    # and wraps into an integer dtype as torch's cast does: -1 is 255 among uint8 boundaries)
    vals = input._array if isinstance(input, Tensor) else xp.asarray(input).astype(common.np)
    bf16 = _dtype.bfloat16.np
    if seq.dtype == bf16 or vals.dtype == bf16:  # ordered as float32 (exact, NaN last)
        seq, vals = seq.astype(np.float32), vals.astype(np.float32)
    how = "right" if right else "left"
    if seq.ndim > 1 and seq.shape[:-1] != vals.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension "
                           f"or the first N-1 dimensions of boundaries tensor and input "
                           f"value tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
    if seq.ndim <= 1 and not (seq.dtype.kind in "fc" and bool(xp.isnan(seq).any())):
        res = xp.searchsorted(seq, vals, side=how)
    else:  # row by row, or boundaries holding NaN
        res = _bisect(xp, seq, vals, right)
    dt = np.int32 if out_int32 else np.int64
    # (astype keeps an ndarray subclass: vmap's batched stand-in stays batched)
    res = res.astype(dt, copy=False) if isinstance(res, np.ndarray) else xp.asarray(res, dtype=dt)
    return _out(_make(res), out)


def _warn_non_contiguous(boundaries, input, depth):
    """torch's once-a-program notes that a non-contiguous operand is copied first."""
    from .._warn_once import warn_once

    for t, what, key in ((input, "input value", "ss-input"), (boundaries, "boundary", "ss-b")):
        if isinstance(t, Tensor) and not t.is_contiguous():
            warn_once(key, f"torch.searchsorted(): {what} tensor is non-contiguous, this will "
                      f"lower the performance due to extra data copy when converting "
                      f"non-contiguous tensor to contiguous, please use contiguous {what} "
                      f"tensor if possible. This message will only appear once per program.",
                      UserWarning, stacklevel=depth + 1)


def _check_sorter(sorter, seq):
    s = sorter._array
    if s.dtype != np.int64:
        raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got "
                           f"dtype {_dtype._TYPE_DISPLAY[sorter.dtype.name]}")
    if s.shape != seq.shape:
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, "
                           f"but got boundary tensor {list(seq.shape)}and got sorter tensor "
                           f"{list(s.shape)}")
    if s.size and (s.min() < 0 or s.max() >= seq.shape[-1]):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return s


def _bisect(xp, seq, vals, right):
    """torch's binary search, for boundaries holding NaN (where NumPy's, which sorts NaN
    last, answers differently): a value moves right of every entry it is not strictly
    below (``right``) or not below or equal to (left), so NaN entries count as smaller.
    One vectorised step per halving."""
    n = seq.shape[-1]
    if n == 0:
        return xp.zeros(xp.shape(vals), dtype=np.int64)
    if seq.ndim <= 1:
        s2, v2 = seq.reshape(1, -1), vals.reshape(1, -1)
    else:
        s2, v2 = seq.reshape(-1, n), vals.reshape(-1, vals.shape[-1])
    lo = xp.zeros(v2.shape, dtype=np.int64)
    hi = xp.full(v2.shape, n, dtype=np.int64)
    while True:
        active = lo < hi
        if not bool(active.any()):
            break
        mid = lo + ((hi - lo) >> 1)
        m = xp.take_along_axis(s2, xp.minimum(mid, n - 1), axis=-1)
        up = ~(m > v2) if right else ~(m >= v2)
        lo = xp.where(active & up, mid + 1, lo)
        hi = xp.where(active & ~up, mid, hi)
    return lo.reshape(xp.shape(vals))


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
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out, _depth=3)


def _check_histogram_dtypes(input, bins, weight):
    def c_name(t):
        return _dtype._CPP_TYPE.get(t.dtype.name, t.dtype.name)

    if bins is not None and bins.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the "
                           f"same dtype, but got input with dtype {c_name(input)} and bins for "
                           f"dimension 0 with dtype {c_name(bins)}")
    if weight is None:
        return
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and "
                           f"weight tensor should have the same dtype, but got "
                           f"input({c_name(input)}), and weight({c_name(weight)})")
    if tuple(weight.shape) != (input.numel(),) and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the "
                           f"same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {[input.numel(), 1]} and weight with "
                           f"shape {list(weight.shape)}")


def bincount(input, weights=None, minlength=0):
    """Count how often each non-negative integer occurs in the 1-D ``input`` (summing
    ``weights`` instead of ones when given).

    Example:
        >>> torch.bincount(torch.tensor([0, 2, 2]))
        tensor([1, 0, 2])
    """
    _check_tensor("bincount", input)
    a = input._array
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _make(xp_of(a).bincount(a, minlength=minlength).astype(np.int64))
    w = weights._array
    if w.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    return _make(xp_of(a).bincount(a, weights=w, minlength=minlength).astype(out_dtype))


def _unsorted_edges_histogram(xp, a, edges, w):
    """torch's histogram for bin edges that do not increase: it keeps the values between the
    first and the last edge and places each by the same binary search as for sorted edges (a
    C++ upper bound), so the bins are whatever that search finds (NumPy refuses such edges)."""
    n = edges.shape[0]
    first = xp.zeros(a.shape, dtype=np.int64)
    count = xp.full(a.shape, n, dtype=np.int64)
    while bool((count > 0).any()):
        step = count // 2
        probe = first + step
        go = (count > 0) & ~(a < edges[xp.minimum(probe, n - 1)])
        first = xp.where(go, probe + 1, first)
        count = xp.where(go, count - step - 1, step)
    pos = xp.minimum(first - 1, n - 2)
    keep = (a >= edges[0]) & (a <= edges[-1])
    wk = None if w is None else w[keep]
    return xp.bincount(pos[keep], weights=wk, minlength=n - 1)


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
    tensor_bins = isinstance(bins, Tensor)
    if input.dtype not in (_dtype.float32, _dtype.float64) and not (
            tensor_bins and input.dtype is _dtype.float16):
        raise NotImplementedError(f'"{"histogram_cpu" if tensor_bins else "histogramdd"}" not '
                                  f"implemented for '{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    _check_histogram_dtypes(input, bins if tensor_bins else None, weight)
    if out is not None and out[0].dtype is not input.dtype:
        c_name = _dtype._CPP_TYPE
        raise RuntimeError(f"torch.histogram: input tensor and hist tensor should have the same "
                           f"dtype, but got input {c_name[input.dtype.name]} and hist "
                           f"{c_name[out[0].dtype.name]}")
    if tensor_bins:
        edges = bins._array.astype(a.dtype)
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension and "
                               f"at least 2 elements, but got {edges.ndim} dimension(s) and "
                               f"{edges.size} element(s)")
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins}")
        bounds = None if range is None else (float(range[0]), float(range[1]))
        edges = uniform_edges(xp_of(a), a, bins, bounds, 0, a.dtype)
    w = None if weight is None else weight._array.reshape(-1)
    xp = xp_of(a)
    if tensor_bins and bool((edges[1:] < edges[:-1]).any()):
        hist = _unsorted_edges_histogram(xp, a, edges, w)
    else:
        hist, _ = xp.histogram(a, bins=edges, weights=w)
    hist = hist.astype(a.dtype)
    if density:
        hist = hist / (hist.sum() * xp_of(a).diff(edges)).astype(a.dtype)
    return _out(_histogram_t((_make(hist.astype(a.dtype)), _make(edges))), out)
