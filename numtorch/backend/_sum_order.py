"""float32/float64 sums added in the order torch's CPU kernel adds them, so they round alike.

torch's sum kernel (found by experiment against torch 2.13, every bit of many sizes) reads a
contiguous row in vectors of 8 float32 (4 float64) lanes. The vectors are taken 4 at a time
(4 accumulators, vector ``i`` into accumulator ``i % 4``) and added up in a cascade: sums of
16 steps, sums of 16 of those, and so on for 4 levels (the block grows past 2**20 steps).
What is left over joins the first accumulator, which then takes the other three in turn.
The values past the last whole vector are added one by one from zero, and then the lanes of
the vector sum, first to last. A row shorter than one vector goes through the same scheme
with single values for vectors. A whole-tensor sum of more than 32768 values is split into
one contiguous chunk per thread (``ceil(n / chunks)`` values each) and the chunks' sums are
added in order.

NumPy adds along a non-innermost axis one slice after another, which is the order of each
accumulator here; every sequence below is laid out so that it is not the innermost axis.
"""

import math

import numpy as np

_ILP = 4
_LEVELS = 4
_GRAIN = 32768
# Past this many values the order costs 3-5x NumPy's own sum (short inner loops over vectors),
# except for column sums over wide rows; bigger sums keep the caller's (accurate) order
_ORDERED_MAX = 1 << 16
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _seq(x, axis):
    """Sum over ``axis`` one slice after another (NumPy's order off the innermost axis)."""
    return np.add.reduce(x, axis=axis)


def _cascade(r):
    """Per item of axis 0, the cascaded sum of ``r`` over axis 1 (items of any shape)."""
    size = r.shape[1]
    step = 1 << max(4, (size - 1).bit_length() // _LEVELS)
    accs = []  # what each level holds at the end: the steps since its last block, then the top
    level = r
    for _ in range(_LEVELS - 1):
        whole = level.shape[1] // step * step
        if whole < level.shape[1]:
            accs.append(_seq(level[:, whole:], 1))
        if whole == 0:
            level = None
            break
        lead = level[:, :whole]
        level = _seq(lead.reshape((lead.shape[0], whole // step, step) + lead.shape[2:]), 2)
    if level is not None:
        accs.append(_seq(level, 1))  # the top level adds its blocks for good
    out = accs[0]
    for acc in accs[1:]:
        out = out + acc
    return out


def _row_sum(x):
    """Per item of axis 0, ``x`` summed over axis 1 with 4 interleaved accumulators."""
    size = x.shape[1]
    whole = size // _ILP
    if not whole:
        return _seq(x, 1) if size else np.zeros(x.shape[:1] + x.shape[2:], x.dtype)
    parts = _cascade(x[:, :whole * _ILP].reshape((x.shape[0], whole, _ILP) + x.shape[2:]))
    if whole * _ILP == size:
        return _seq(parts, 1)
    # the first accumulator takes the leftovers, then the other three (at most 7 terms:
    # NumPy adds that few one after another even along the innermost axis)
    return _seq(np.concatenate((parts[:, :1], x[:, whole * _ILP:], parts[:, 1:]), axis=1), 1)


def rows_sum(x):
    """The sum of each row of the C-contiguous 2-D float32/float64 ``x``, in torch's order."""
    lanes = _LANES[x.dtype]
    n = x.shape[1]
    if n < lanes:
        out = _row_sum(x)
    else:
        nv = n // lanes
        vacc = _row_sum(x[:, :nv * lanes].reshape(x.shape[0], nv, lanes))
        # the values past the last vector, then the lanes, one after another
        terms = vacc if nv * lanes == n else np.concatenate((x[:, nv * lanes:], vacc), axis=1)
        out = np.add.accumulate(terms, axis=1)[:, -1]
    return out + x.dtype.type(0)  # torch's accumulators start at +0: never a -0 sum


def _short_total(flat, lanes):
    """The sum of fewer than 16 rows of 4 vectors (no cascade): a handful of NumPy calls,
    planned once per size (the plan's slices and branches cost as much as its calls)."""
    plan = _PLANS.get((flat.shape[0], lanes))
    if plan is None:
        plan = _PLANS[flat.shape[0], lanes] = _short_plan(flat.shape[0], lanes)
    return plan(flat)


def _short_plan(n, lanes):
    """The function summing ``n`` values (fewer than 16 rows of 4 vectors) in torch's order:
    4 accumulators of vectors, the leftover vectors into the first, the accumulators' lanes
    added up one after another with the values past the last vector before them."""
    add, reduce, accumulate = np.add, np.add.reduce, np.add.accumulate
    zero = _ZERO[lanes]  # torch's accumulators start at +0: never a -0 sum
    nv = n // lanes
    if nv == 0:  # shorter than a vector (under 8 values): 4 accumulators of single values
        order = _SHORT_ORDER.get(n)
        if order is None:
            return lambda flat: accumulate(flat)[-1] + zero
        return lambda flat: accumulate(flat[order])[-1] + zero
    block = _ILP * lanes
    whole = nv // _ILP
    vec_end = nv * lanes
    if vec_end == n and whole * _ILP == nv and whole <= 2:  # (8, 8) or (4, 8) float32: inline
        if whole == 1:
            return lambda flat: accumulate(reduce(flat.reshape(_ILP, lanes), 0))[-1] + zero
        return lambda flat: accumulate(reduce(add(flat[:block], flat[block:]).reshape(
            _ILP, lanes), 0))[-1] + zero

    def vectors(flat):
        if whole == 0:
            return flat[:vec_end].reshape(nv, lanes)
        if whole == 1:
            parts = flat[:block]
        elif whole == 2:  # (an (8, 8) float32 loss: one add costs half a two-row reduce)
            parts = add(flat[:block], flat[block:2 * block])
        else:
            parts = reduce(flat[:whole * block].reshape(whole, block), 0)
        if whole * _ILP < nv:  # the first accumulator takes the leftover vectors first
            parts = np.concatenate((parts[:lanes], flat[whole * block:vec_end], parts[lanes:]))
        return parts.reshape(-1, lanes)

    if vec_end == n:
        return lambda flat: accumulate(reduce(vectors(flat), 0))[-1] + zero
    return lambda flat: accumulate(np.concatenate((flat[vec_end:], reduce(vectors(flat), 0)))
                                   )[-1] + zero


_PLANS = {}
_ZERO = {8: np.float32(0), 4: np.float64(0)}  # by lanes: float32's 8, float64's 4


# below 8 values: accumulator 0 takes x0 and then x4, x5, ..., then x1, x2, x3
_SHORT_ORDER = {n: np.array([0] + list(range(_ILP, n)) + list(range(1, _ILP))) for n in range(5, 8)}


def total_sum(flat, threads):
    """The sum of the contiguous 1-D ``flat`` as torch's whole-tensor sum on ``threads``
    (a NumPy scalar). ``threads`` may also be a function giving it: it is asked only for a
    sum long enough to split (asking costs a lock, a tenth of a small sum)."""
    n = flat.shape[0]
    lanes = _LANES[flat.dtype]
    if n < 16 * _ILP * lanes:  # no cascade block yet: a handful of calls
        return _short_total(flat, lanes)
    if n > _GRAIN and callable(threads):
        threads = threads()
    tasks = min(threads, -(-n // _GRAIN)) if n > _GRAIN else 1
    if tasks <= 1:
        return rows_sum(flat.reshape(1, n))[0]
    chunk = -(-n // tasks)
    acc = flat.dtype.type(0)
    for start in range(0, n, chunk):
        acc = acc + rows_sum(flat[start:start + chunk].reshape(1, -1))[0]
    return acc


def cols_sum(x):
    """``x`` of shape (items, rows, columns), C-contiguous, summed over the rows in torch's
    order: with at least one vector of columns, groups of 4 vectors (each column alone),
    then single vectors, then single columns through 4 interleaved accumulators; with fewer
    columns than a vector, groups of 4 columns alone, the rest interleaved."""
    lanes = _LANES[x.dtype]
    c = x.shape[2]
    unit = lanes if c >= lanes else 1
    g4 = c // (_ILP * unit) * _ILP * unit
    out = np.empty((x.shape[0], c), x.dtype)
    if g4:  # each column alone
        out[:, :g4] = _cascade(x[:, :, :g4])
    if g4 < c:  # 4 interleaved accumulators
        out[:, g4:] = _row_sum(x[:, :, g4:])
    out += x.dtype.type(0)
    return out


def ordered_sum(x, dims, keepdim, threads):
    """``x`` summed over ``dims`` in torch's order, or None where it has none here: only
    C-contiguous float32/float64 NumPy arrays reduced over one run of adjacent dims (dims of
    size 1 aside) are covered; the caller sums the rest its own way. ``threads``: as for
    ``total_sum``."""
    if type(x) is not np.ndarray:
        return None
    lanes = _LANES.get(x.dtype)
    if lanes is None:
        return None
    if len(dims) == x.ndim and x.flags.c_contiguous and 0 < x.size < 16 * _ILP * lanes:
        # a small whole-tensor sum, the common case: _short_total's plan, inline
        plan = _PLANS.get((x.size, lanes))
        y = plan(x.ravel()) if plan is not None else _short_total(x.ravel(), lanes)
        return np.full((1,) * x.ndim, y) if keepdim else np.asarray(y)
    if len(dims) == 1 and dims[0] == x.ndim - 1 and 1 < x.shape[-1] < _ILP and \
            x.flags.c_contiguous and 0 < x.size <= _ORDERED_MAX:
        # rows of 2-3 values summed over the last dim (a distribution's normaliser, a
        # two-class softmax): the general path's own two cases below, without its planning
        n = x.shape[-1]
        rows = x.size // n
        if rows == 1:  # total_sum's short plan: the values one after another
            y = np.asarray(np.add.accumulate(x.reshape(n))[-1] + _ZERO[lanes])
        else:  # rows_sum: fewer values than accumulators, each row one after another
            y = np.add.reduce(x.reshape(rows, n), 1) + _ZERO[lanes]
        return y.reshape(x.shape[:-1] + (1,) if keepdim else x.shape[:-1])
    if not x.flags.c_contiguous:
        if x.ndim == 2 and x.flags.f_contiguous:
            # a transposed matrix: torch walks it in memory order, as the untransposed one
            y = ordered_sum(x.T, tuple(1 - d for d in dims), keepdim, threads)
            return None if y is None else y.T.copy()  # (0-d stays 0-d, unlike ascontiguousarray)
        return None
    shape = x.shape
    if len(dims) == len(shape):  # the whole tensor (the common case: keep it lean)
        n = x.size
        if not n or n > _ORDERED_MAX:
            return None
        lanes = _LANES[x.dtype]
        flat = x.ravel()
        y = _short_total(flat, lanes) if n < 16 * _ILP * lanes else total_sum(flat, threads)
        return np.full((1,) * len(shape), y) if keepdim else np.asarray(y)
    kept = [k for k in range(x.ndim) if shape[k] != 1]
    red = [i for i, k in enumerate(kept) if k in dims]
    if not x.size or red and red[-1] - red[0] != len(red) - 1:
        return None
    sizes = [shape[k] for k in kept]
    lo, hi = (red[0], red[-1] + 1) if red else (len(sizes), len(sizes))
    a, b, c = math.prod(sizes[:lo]), math.prod(sizes[lo:hi]), math.prod(sizes[hi:])
    if x.size > _ORDERED_MAX and c < _ILP * _LANES[x.dtype]:
        return None
    if b == 1:
        y = x + x.dtype.type(0)  # nothing to add: torch still adds each value to +0
    elif a * c == 1:
        y = np.asarray(total_sum(x.reshape(-1), threads))
    elif c == 1:
        y = rows_sum(x.reshape(a, b))
    else:
        y = cols_sum(x.reshape(a, b, c))
    out = tuple(1 if k in dims else n for k, n in enumerate(shape)) if keepdim else \
        tuple(n for k, n in enumerate(shape) if k not in dims)
    return y.reshape(out)
