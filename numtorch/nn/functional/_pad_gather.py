"""Reflect/replicate padding of 2 or 3 dims as one gather whose gradient adds up in torch's
order.

Why an op of its own (numerics): torch's reflection/replication pad backward walks the output
gradient in row-major order and adds each value into its source input position, rounding
after each add in the tensor's dtype. Padding dim by dim (one gather per dim) folds the
gradient dim by dim instead: a corner input's four (or more) contributions were added in
another order, which differed in the last bit on ~12% of a 6x6 input's gradient (float32)
and by up to 4 units on float16/bfloat16. Here each input position takes its contributions
in row-major order of their output positions (per padded dim the source candidates sorted
ascending, the candidate tuples in lexicographic order), one full-array pass per tuple.
"""

import itertools

import numpy as np

from ...autograd import graph as _graph
from ...autograd.graph import Op

__all__ = ["pad_gather"]


def _candidates(table, n):
    """(n, r) output positions reading each input position, ascending, -1 padded."""
    counts = np.bincount(table, minlength=n)
    r = max(int(counts.max()) if counts.size else 0, 1)
    cand = np.full((n, r), -1, np.int64)
    order = np.argsort(table, kind="stable")  # outputs grouped by source, ascending
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.arange(table.size) - np.repeat(starts, counts)
    cand[table[order], rank] = order
    return cand


def _fold(g, tables, sizes, lows):
    """The gradient of the gather for output gradient ``g``: torch's row-major adds.

    Every input position is read at its own place ``i + low`` (pads are not negative here):
    that slice is the whole gradient of the positions read nowhere else. The positions near
    the edges (read more than once along some dim) are then recomputed, slab by slab, with
    their contributions in torch's order."""
    k = len(tables)
    cands = [_candidates(t, n) for t, n in zip(tables, sizes)]
    lead = (slice(None),) * (g.ndim - k)
    own = lead + tuple(slice(lo, lo + n) for lo, n in zip(lows, sizes))
    acc = g[own] + g.dtype.type(0)  # (+0 for -0: torch adds into zeros)
    wide = np.float32 if g.dtype.itemsize == 2 else g.dtype  # 16-bit adds round each time
    for d in range(k):
        edge = np.flatnonzero((cands[d] >= 0).sum(1) > 1)
        if not edge.size:
            continue
        slab = [np.arange(n) for n in sizes]
        slab[d] = edge
        part = np.zeros(g.shape[:g.ndim - k] + tuple(r.size for r in slab), g.dtype)
        for pick in itertools.product(*(range(c.shape[1]) for c in cands)):
            pos = [np.flatnonzero(c[r, q] >= 0) for c, r, q in zip(cands, slab, pick)]
            if any(p.size == 0 for p in pos):
                continue
            dst = lead + np.ix_(*pos)
            src = lead + np.ix_(*(c[r[p], q] for c, r, p, q in zip(cands, slab, pos, pick)))
            part[dst] = (part[dst].astype(wide) + g[src].astype(wide)).astype(g.dtype)
        acc[lead + np.ix_(*slab)] = part
    return acc


class PadGather(Op):
    """y = x gathered along its last ``len(tables)`` dims (``tables``: per dim, the source
    position of each output position); dx adds up as torch's pad backward does."""

    def forward(self, x):
        k = len(self.tables)
        for i, t in enumerate(self.tables):  # one take per dim (an open-grid gather: 3x slower)
            x = np.take(x, t, axis=x.ndim - k + i)
        return x

    def backward(self, grad):
        return PadFold.apply(grad, tables=self.tables, sizes=self.sizes, lows=self.lows)


class PadFold(Op):
    """y = the adjoint of ``PadGather`` (the input-shaped sum); its gradient is the gather."""

    def forward(self, g):
        return _fold(g, self.tables, self.sizes, self.lows)

    def backward(self, gg):
        return PadGather.apply(gg, tables=self.tables, sizes=self.sizes, lows=self.lows)


def applies(input, pairs):
    """Whether the gather covers the call: NumPy floating arrays, 2 or 3 padded dims, no
    negative pad (a crop)."""
    a, k = input._array, len(pairs)
    if any(lo < 0 or hi < 0 for lo, hi in pairs) or _graph._hook is not None or \
            _graph.ops_traced():
        return False  # (an exporter, a tracer or vmap takes the per-dim form they know)
    return type(a) is np.ndarray and (a.dtype.kind == "f" or a.dtype.name == "bfloat16") and \
        k in (2, 3)


def few_reads(tables, sizes):
    """Whether no input position is read more than 27 times in all (3 per dim in 3-d
    reflection): the ordered gradient costs a pass per candidate tuple, so a wide replication
    pad (each edge value read ``pad + 1`` times per dim) keeps the per-dim fold."""
    total = 1
    for t, n in zip(tables, sizes):
        total *= int(np.bincount(np.asarray(t), minlength=n).max())
    return total <= 27


def pad_gather(input, tables, lows):
    """``input`` padded by the per-dim source tables (1-D int arrays) of its last dims, whose
    low pads are ``lows``."""
    sizes = tuple(input.shape[input.dim() - len(tables):])
    return PadGather.apply(input, tables=tuple(np.asarray(t, np.int64) for t in tables),
                           sizes=sizes, lows=tuple(lows))
