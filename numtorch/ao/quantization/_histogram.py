"""The arithmetic of ``HistogramObserver``: merging histograms over a growing range and the
L2-error search for the clipping range (torch's port of caffe2's norm minimization).

All values are float32 as in torch's tensors; sums that torch takes with ``Tensor.sum`` are
taken in float32 too. Bin edges come from :func:`numtorch.linspace` and counts from
:func:`numtorch.histc`, which reproduce torch's edges and bin assignment exactly.
"""

import numpy as np

__all__ = ["histc", "combine", "search_range"]

_F = np.float32


def histc(x, bins, lo, hi):
    """torch.histc of float32 array ``x`` over ``[lo, hi]`` (float32)."""
    import numtorch

    return numtorch.histc(numtorch.tensor(x), bins, min=float(lo), max=float(hi)).numpy()


def _linspace(lo, hi, n):
    import numtorch

    return numtorch.linspace(float(lo), float(hi), n).numpy()


def _upscale(hist, orig_min, orig_max, new_min, new_max, bins, rate):
    """``hist`` (bins over [orig_min, orig_max]) spread into ``rate`` sub-bins each, whose
    midpoints are then binned over the wider ``[new_min, new_max]``."""
    fine = np.repeat(hist, rate) / _F(rate)
    width = (_F(orig_max) - _F(orig_min)) / _F(bins * rate)
    mids = _linspace(orig_min, orig_max, bins * rate + 1)[:-1] + _F(0.5) * width
    edges = _linspace(new_min, new_max, bins + 1)
    where = np.searchsorted(edges, mids, side="right") - 1
    np.clip(where, 0, bins - 1, out=where)
    out = np.zeros(bins, _F)
    np.add.at(out, where, fine)  # float32, in order, as torch's bincount adds the weights
    return out


def combine(orig_hist, orig_min, orig_max, new_hist, new_min, new_max, bins, rate):
    """The old histogram re-binned onto the new range, plus the new one."""
    if new_min == orig_min and new_max == orig_max:
        return orig_hist + new_hist
    if orig_min == orig_max:
        moved = histc(np.asarray([orig_min], _F), bins, new_min, new_max) * orig_hist.sum(
            dtype=_F)
        return moved + new_hist
    if new_min > orig_min:
        raise AssertionError("update_min must be <= orig_min")
    if new_max < orig_max:
        raise AssertionError("update_max must be >= orig_max")
    return new_hist + _upscale(orig_hist, orig_min, orig_max, new_min, new_max, bins, rate)


def _l2(begin, end, density):
    """The squared error of values spread uniformly (``density``) over [begin, end] around a
    grid point: density * (end^3 - begin^3) / 3."""
    return density * ((end * end * end - begin * begin * begin) / _F(3))


def _error(hist, lo, hi, bins, dst_bins, start, end):
    """The L2 quantization error of clipping to bins ``[start, end]`` and spreading that range
    over ``dst_bins`` quantized levels."""
    width = (float(hi) - float(lo)) / bins
    dst_width = width * (end - start + 1) / dst_bins
    if dst_width == 0.0:
        return 0.0
    w, dw = _F(width), _F(dst_width)
    src = np.arange(bins)
    begin = (src - start).astype(_F) * w
    stop = begin + w
    first = np.clip(np.floor_divide(begin, dw), 0, dst_bins - 1)  # torch's floor division
    last = np.clip(np.floor_divide(stop, dw), 0, dst_bins - 1)
    density = hist / w
    first_center = (first + _F(0.5)) * dw
    half = _F(dst_width / 2)
    norm = np.zeros(bins, _F)
    norm += _l2(begin - first_center, np.full(bins, half, _F), density)
    norm += (last - first - _F(1)) * _l2(-half, half, density)
    last_center = last * dw + half
    norm += _l2(np.full(bins, -half, _F), stop - last_center, density)
    return float(norm.sum(dtype=_F))


def search_range(hist, lo, hi, bins, dst_bins):
    """``(new_min, new_max)`` (float32) minimising the L2 error: the range shrinks from both
    ends in steps of 1e-5 of the total count, on the side that drops more bins, until the
    error stops falling."""
    total = float(hist.sum(dtype=_F))
    csum = np.cumsum(hist, dtype=_F)
    alpha, beta = 0.0, 1.0
    start, end = 0, bins - 1
    best = float("inf")
    while alpha < beta:
        next_alpha, next_beta = alpha + 1e-5, beta - 1e-5
        left, right = start, end
        bound = _F(next_alpha * total)
        while left < end and csum[left] < bound:
            left += 1
        bound = _F(next_beta * total)
        while right > start and csum[right] > bound:
            right -= 1
        new_start, new_end = start, end
        if (left - start) > (end - right):
            new_start, alpha = left, next_alpha
        else:
            new_end, beta = right, next_beta
        if new_start == start and new_end == end:
            continue
        err = _error(hist, lo, hi, bins, dst_bins, new_start, new_end)
        if err > best:
            break
        best = err
        start, end = new_start, new_end
    width = (_F(hi) - _F(lo)) / _F(bins)
    return _F(lo) + width * _F(start), _F(lo) + width * _F(end + 1)
