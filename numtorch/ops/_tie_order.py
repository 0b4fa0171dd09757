"""Which index torch's CPU kernels pick among equal values in topk, kthvalue and sort.

torch leaves the order of ties to its selection algorithms: ``topk`` runs the C++ standard
library's ``partial_sort`` (when ``k * 64 <= n``) or ``nth_element`` followed by ``sort`` of
the first ``k - 1`` entries, all as GCC's libstdc++ implements them, and ``kthvalue`` runs a
median-of-three quickselect that swaps values and indices together. Programs see the result
(which of two equal logits ``topk`` reports, and the unsorted order of ``sorted=False``), so
the lines whose answer depends on it are replayed here with the same sequence of comparisons
and swaps.

``sort`` without ``stable=True`` runs std::sort; :func:`std_sort_lines` reproduces it with
whole-array steps (one per recursion level, see there).

Why Python for topk and kthvalue: the outcome depends on every comparison of the algorithm,
so there is no array formulation of it. Only lines with ties near the selection (or
``sorted=False`` lines, whose order is the algorithm's) come here; the rest are answered by
NumPy sorts. Each line is first mapped to dense integer ranks (NaN above everything, all NaNs
equal, -0.0 equal to 0.0), so every comparison is one integer compare.
"""

import numpy as np

_SORT_THRESHOLD = 16  # libstdc++'s insertion-sort cut-off in std::sort


def ranks(line):
    """Dense ranks of a 1-D host array: equal values share a rank, NaN ranks highest."""
    if line.dtype.kind == "f" or line.dtype.kind == "V" or line.dtype.itemsize < 4:
        line = line.astype(np.float64)
    return np.unique(line, return_inverse=True)[1].reshape(-1).tolist()


# -- the libstdc++ building blocks, on a list of (key, index) pairs ordered by key '<' ---------
def _move_median_to_first(a, res, i, j, m):
    x, y, z = a[i][0], a[j][0], a[m][0]
    if x < y:
        pick = j if y < z else (m if x < z else i)
    elif x < z:
        pick = i
    else:
        pick = m if y < z else j
    a[res], a[pick] = a[pick], a[res]


def _unguarded_partition(a, lo, hi, pivot):
    pv = a[pivot][0]
    while True:
        while a[lo][0] < pv:
            lo += 1
        hi -= 1
        while pv < a[hi][0]:
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _partition_pivot(a, first, last):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1)
    return _unguarded_partition(a, first + 1, last, first)


def _linear_insert(a, i):
    v = a[i]
    j = i - 1
    while v[0] < a[j][0]:
        a[j + 1] = a[j]
        j -= 1
    a[j + 1] = v


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        v = a[i]
        if v[0] < a[first][0]:
            a[first + 1:i + 1] = a[first:i]
            a[first] = v
        else:
            _linear_insert(a, i)


def _adjust_heap(a, first, hole, length, value):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _pop_heap(a, first, last, result):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value)


def _heap_select(a, first, middle, last):
    n = middle - first
    if n >= 2:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent])
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            _pop_heap(a, first, middle, i)


def partial_sort(a, first, middle, last):
    """std::partial_sort: the ``middle - first`` least entries, sorted, at the front."""
    _heap_select(a, first, middle, last)
    while middle - first > 1:
        middle -= 1
        _pop_heap(a, first, middle, middle)


def nth_element(a, first, nth, last):
    """std::nth_element (introselect)."""
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


def _introsort(a, first, last, depth):
    while last - first > _SORT_THRESHOLD:
        if depth == 0:
            partial_sort(a, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort(a, cut, last, depth)
        last = cut


def std_sort(a, first, last):
    """std::sort (introsort, then a final insertion sort)."""
    if last - first < 2:
        return
    _introsort(a, first, last, 2 * ((last - first).bit_length() - 1))
    if last - first > _SORT_THRESHOLD:
        _insertion_sort(a, first, first + _SORT_THRESHOLD)
        for i in range(first + _SORT_THRESHOLD, last):
            _linear_insert(a, i)
    else:
        _insertion_sort(a, first, last)


# -- torch's kernels -----------------------------------------------------------------------------
def topk_line(keys, k, largest, sorted_):
    """Indices torch's CPU topk reports for one line of rank ``keys``."""
    n = len(keys)
    a = list(zip([-r for r in keys] if largest else keys, range(n)))
    if k * 64 <= n:
        partial_sort(a, 0, k, n)
    else:
        nth_element(a, 0, k - 1, n)
        if sorted_:
            std_sort(a, 0, k - 1)
    return [p[1] for p in a[:k]]


def kth_line(keys, k):
    """Index torch's CPU kthvalue reports for the ``k``-th (0-based) smallest of ``keys``:
    a median-of-three quickselect that swaps values and indices together."""
    a = list(zip(keys, range(len(keys))))
    lo, hi = 0, len(a) - 1
    while hi > lo:
        if hi == lo + 1:
            if a[lo][0] > a[hi][0]:
                a[lo], a[hi] = a[hi], a[lo]
            break
        mid = lo + (hi - lo) // 2
        a[mid], a[lo + 1] = a[lo + 1], a[mid]
        if a[lo + 1][0] > a[hi][0]:
            a[lo + 1], a[hi] = a[hi], a[lo + 1]
        if a[lo][0] > a[hi][0]:
            a[lo], a[hi] = a[hi], a[lo]
        if a[lo + 1][0] > a[lo][0]:
            a[lo + 1], a[lo] = a[lo], a[lo + 1]
        i, j, pv = lo + 1, hi, a[lo][0]
        while True:
            i += 1
            while pv > a[i][0]:
                i += 1
            j -= 1
            while a[j][0] > pv:
                j -= 1
            if j < i:
                break
            a[i], a[j] = a[j], a[i]
        a[lo], a[j] = a[j], a[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return a[k][1]


# -- std::sort over many lines at once, as whole-array steps ------------------------------------
def line_ranks(lines):
    """Dense integer ranks of each row of the 2-D host array ``lines`` (NaN highest, all NaNs
    equal, -0.0 equal to 0.0): keys whose ``<`` is the comparator's."""
    order = np.argsort(lines, axis=1, kind="stable")
    srt = np.take_along_axis(lines, order, axis=1)
    step = srt[:, 1:] != srt[:, :-1]
    if srt.dtype.kind == "f":
        step &= ~(np.isnan(srt[:, 1:]) & np.isnan(srt[:, :-1]))
    rank = np.zeros(srt.shape, dtype=np.int64)
    np.cumsum(step, axis=1, out=rank[:, 1:])
    out = np.empty_like(rank)
    np.put_along_axis(out, order, rank, axis=1)
    return out


def std_sort_lines(keys):
    """The permutation std::sort (libstdc++'s introsort) leaves on each row of the 2-D int64
    ``keys`` (compared with ``<``), as (rows, n) indices into the row.

    Why this reproduces it with array steps: rows and the segments inside them are
    independent, so all segments of one recursion level are partitioned together (the rows
    laid end to end, each segment a range of the flat array). A Hoare partition of a segment
    (median-of-three pivot moved to its front) swaps the k-th element from the left that is
    not below the pivot with the k-th from the right that is not above it, for as long as
    the first lies left of the second; those positions are read off the unmodified segment,
    so a level is a few segmented counts. Segments of 16 or fewer are left to the final
    insertion sort, which is stable and so is one stable sort of the arrangement; so is a
    segment without two equal keys, whose arrangement the final sort alone decides. A segment
    that runs out of depth (std::sort's heapsort fallback, rare) is replayed in Python.
    """
    rows, n = keys.shape
    a = keys.reshape(-1).copy()
    perm = np.broadcast_to(np.arange(n), (rows, n)).reshape(-1).copy()
    if n > _SORT_THRESHOLD:
        srt = np.sort(keys, axis=1)
        same = srt[:, 1:] == srt[:, :-1]
        rep = np.zeros(srt.shape, dtype=bool)
        rep[:, 1:] |= same
        rep[:, :-1] |= same
        # whether each element's key occurs again in its row
        pos = np.argsort(keys, axis=1)
        dup = np.empty_like(rep)
        np.put_along_axis(dup, pos, rep, axis=1)
        first = np.arange(rows, dtype=np.int64) * n
        _introsort_flat(a, perm, first, first + n,
                        np.full(rows, 2 * (n.bit_length() - 1), dtype=np.int64),
                        dup.reshape(-1))
    order = np.argsort(a.reshape(rows, n), axis=1, kind="stable")  # the final insertion sort
    return np.take_along_axis(perm.reshape(rows, n), order, axis=1)


def _introsort_flat(a, perm, first, last, depth, dup):
    """The introsort loop over the segments [first, last) of the flat ``a``/``perm``."""
    while first.size:
        keep = last - first > _SORT_THRESHOLD
        first, last, depth = first[keep], last[keep], depth[keep]
        if not first.size:
            return
        if (depth == 0).any():
            _heap_fallback(a, perm, first[depth == 0], last[depth == 0])
            keep = depth != 0
            first, last, depth = first[keep], last[keep], depth[keep]
            if not first.size:
                return
        seg, pos = _places(first, last)
        # only segments holding two equal keys can change the result
        d = dup[pos]
        key = a[pos[d]]
        span = int(key.max()) - int(key.min()) + 1 if key.size else 1
        comb = np.sort(seg[d] * span + (key - (key.min() if key.size else 0)))
        same = comb[1:] == comb[:-1]
        live = np.bincount(comb[1:][same] // span, minlength=first.size) > 0
        if not live.all():
            first, last, depth = first[live], last[live], depth[live]
            if not first.size:
                return
            seg, pos = _places(first, last)
        cut = _partition_level(a, perm, first, last, seg, pos)
        first, last = np.concatenate([cut, first]), np.concatenate([last, cut])
        depth = np.concatenate([depth, depth]) - 1


def _heap_fallback(a, perm, first, last):
    for f, e in zip(first.tolist(), last.tolist()):
        pairs = list(zip(a[f:e].tolist(), perm[f:e].tolist()))
        partial_sort(pairs, 0, e - f, e - f)
        a[f:e] = [p[0] for p in pairs]
        perm[f:e] = [p[1] for p in pairs]


def _places(first, last):
    """For the segments [first, last) of a flat array: each element's segment number and its
    place in the flat array."""
    size = last - first
    seg = np.repeat(np.arange(first.size), size)
    return seg, np.arange(seg.size) + np.repeat(first - _starts(size), size)


def _starts(counts):
    out = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=out[1:])
    return out


def _partition_level(a, perm, first, last, seg, pos):
    """Median-of-three + unguarded Hoare partition of every segment [first, last) of the flat
    ``a`` (and ``perm`` alongside; ``seg``/``pos``: each element's segment and place), in
    place; returns the cuts."""
    mid = first + (last - first) // 2
    i, j, m = first + 1, mid, last - 1
    x, y, z = a[i], a[j], a[m]
    pick = np.where(x < y, np.where(y < z, j, np.where(x < z, m, i)),
                    np.where(x < z, i, np.where(y < z, m, j)))
    _swap(a, perm, first, pick)
    pv = a[first]
    nseg = first.size
    size = last - first
    val = a[pos]
    ge = val >= pv[seg]
    ge[_starts(size)] = False  # the pivot's own place is not scanned from the left
    le = val <= pv[seg]  # right stops (the pivot itself included), counted from the right
    n_ge = np.bincount(seg[ge], minlength=nseg)
    n_le = np.bincount(seg[le], minlength=nseg)
    left_pos = pos[ge]  # grouped by segment, increasing
    right_pos = pos[le][::-1]  # segments in reverse order, each decreasing
    left_start = _starts(n_ge)
    right_start = _starts(n_le[::-1])[::-1]
    pairs = np.minimum(n_ge, n_le)
    pseg = np.repeat(np.arange(nseg), pairs)
    k = np.arange(pseg.size) - np.repeat(_starts(pairs), pairs)
    lp = left_pos[left_start[pseg] + k]
    rp = right_pos[right_start[pseg] + k]
    swap = lp < rp
    n_swaps = np.bincount(pseg[swap], minlength=nseg)
    _swap(a, perm, lp[swap], rp[swap])
    # the cut: the first left stop after the swaps (a swapped right stop bounds it)
    nxt = np.where(n_swaps < n_ge, left_pos[np.minimum(left_start + n_swaps, left_pos.size - 1)],
                   np.iinfo(np.int64).max)
    last_right = right_pos[np.maximum(right_start + n_swaps - 1, 0)]
    return np.where(n_swaps == 0, left_pos[left_start], np.minimum(nxt, last_right))


def _swap(a, perm, p, q):
    for arr in (a, perm):
        tmp = arr[p]
        arr[p] = arr[q]
        arr[q] = tmp
