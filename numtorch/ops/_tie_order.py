"""Which index torch's CPU kernels pick among equal values in topk and kthvalue.

torch leaves the order of ties to its selection algorithms: ``topk`` runs the C++ standard
library's ``partial_sort`` (when ``k * 64 <= n``) or ``nth_element`` followed by ``sort`` of
the first ``k - 1`` entries, all as GCC's libstdc++ implements them, and ``kthvalue`` runs a
median-of-three quickselect that swaps values and indices together. Programs see the result
(which of two equal logits ``topk`` reports, and the unsorted order of ``sorted=False``), so
the lines whose answer depends on it are replayed here with the same sequence of comparisons
and swaps.

Why Python: the outcome depends on every comparison of the algorithm, so there is no array
formulation of it. Only lines with ties near the selection (or ``sorted=False`` lines, whose
order is the algorithm's) come here; the rest are answered by NumPy sorts. Each line is first
mapped to dense integer ranks (NaN above everything, all NaNs equal, -0.0 equal to 0.0), so
every comparison is one integer compare.
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
