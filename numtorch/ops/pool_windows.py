"""Index windows of the pooling layers: torch's average-pool divisors, adaptive windows and
the start positions of fractional max pooling, built from shapes as small index arrays.

``nn.functional``'s pooling functions hand these to the pooling ops (``pooling.py``) as
parameters; nothing here is differentiable.
"""

import numpy as np

from ..backend import xp_of


def avg_divisor(xp, spatial, kernel, stride, padding, out, count_include_pad, divisor_override):
    """torch's divisor per output position: a number when it is the same everywhere, else an
    int64 array over the output grid.

    A window's size counts the padding (if asked) but never the part past the right padding that
    ceil mode adds; without ``count_include_pad`` only input elements count. Both factor over
    dims, so the grid is an outer product of per-dim counts.
    """
    if divisor_override is not None:
        return int(divisor_override)
    per_dim = []
    for n, k, s, p, o in zip(spatial, kernel, stride, padding, out):
        start = np.arange(o, dtype=np.int64) * s - p
        end = np.minimum(start + k, n + p)
        if count_include_pad:
            per_dim.append(end - start)
        else:
            per_dim.append(np.minimum(end, n) - np.maximum(start, 0))
    if all(bool((c == k).all()) for c, k in zip(per_dim, kernel)):
        return int(np.prod(kernel))
    grid = per_dim[0]
    for c in per_dim[1:]:
        grid = np.multiply.outer(grid, c)
    return xp.asarray(grid)


def adaptive_bounds(n, o):
    """torch's adaptive windows along one dim: start = floor(i*n/o), end = ceil((i+1)*n/o)."""
    i = np.arange(o, dtype=np.int64)
    return (i * n) // o, -((-(i + 1) * n) // o)


def adaptive_avg_windows(n, o):
    """Adaptive averaging along one dim as padded gather windows, and its transpose.

    Returns ``(idx, w)`` with ``y[i] = sum_m w[i, m] * x[idx[i, m]]`` and ``(idx_t, w_t)`` with
    ``dx[p] = sum_m w_t[p, m] * g[idx_t[p, m]]``. Every input position lies in a contiguous run
    of windows (first: the first window ending after it; last: the last one starting at or
    before it), so both maps are short gathers; padding entries repeat an index with weight 0.
    """
    start, end = adaptive_bounds(n, o)
    length = end - start
    m = np.arange(int(length.max()))
    idx = np.minimum(start[:, None] + m, end[:, None] - 1)
    w = (m < length[:, None]) / length[:, None]
    p = np.arange(n)
    first = np.searchsorted(end, p, side="right")
    last = np.searchsorted(start, p, side="right") - 1
    count = last - first + 1
    k = np.arange(int(count.max()))
    idx_t = np.minimum(first[:, None] + k, last[:, None])
    w_t = (k < count[:, None]) / length[idx_t]
    return (idx, w), (idx_t, w_t)


def window_index(xp, per_dim, spatial):
    """Flat plane positions of windows given per-dim coordinate arrays.

    ``per_dim[d]`` has shape ``(B, out_d, L_d)`` (B is 1 or the number of planes). The result has
    shape ``(B, prod(L), *out)``: entry ``l`` holds element ``l`` (row-major within the window)
    of every window, so the reduction over windows walks contiguous slices.
    """
    nd = len(per_dim)
    stride = 1
    strides = []
    for n in reversed(spatial):
        strides.append(stride)
        stride *= n
    strides = strides[::-1]
    total = None
    for d, (coords, st) in enumerate(zip(per_dim, strides)):
        b, o, length = coords.shape
        shape = [b] + [1] * (2 * nd)
        shape[1 + nd + d] = o
        shape[1 + d] = length
        term = (coords * st).transpose(0, 2, 1).reshape(shape)
        total = term if total is None else total + term
    b = total.shape[0]
    out = total.shape[1 + nd:]
    length = int(np.prod(total.shape[1:1 + nd]))
    return xp.ascontiguousarray(total.reshape((b, length) + out))


def adaptive_window_index(xp, spatial, out):
    """Flat positions of torch's adaptive windows, each padded to the longest window by
    repeating its last element (a repeat changes neither the max nor which element it is)."""
    per_dim = []
    for n, o in zip(spatial, out):
        start, end = adaptive_bounds(n, o)
        longest = int((end - start).max()) if o else 1  # an empty output still needs a shape
        coords = np.minimum(start[:, None] + np.arange(longest), end[:, None] - 1)
        per_dim.append(xp.asarray(coords[None]))
    return window_index(xp, per_dim, spatial)


def fractional_starts(samples, n, o, k):
    """Window starts of fractional max pooling for one dim, one row per plane.

    The pseudo-random sequence of Graham's paper as torch computes it, in the samples' own
    floating type so float32 rounding matches: with alpha = (n - k) / (o - 1), window i starts at
    int((i + u) * alpha) - int(u * alpha), and the last window ends at the input's end.
    """
    xp = xp_of(samples)
    rows = samples.shape[0]
    if o == 0:
        return xp.zeros((rows, 0), dtype=np.int64)
    last = xp.full((rows, 1), n - k, dtype=np.int64)
    if o == 1:
        return last
    ft = samples.dtype.type
    alpha = ft(n - k) / ft(o - 1)
    i = xp.arange(o - 1, dtype=samples.dtype)
    u = samples[:, None]
    seq = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    return xp.concatenate([seq, last], axis=1)
