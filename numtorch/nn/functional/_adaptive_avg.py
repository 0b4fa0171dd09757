"""Adaptive average pooling (not global) with torch's CPU roundings.

Why an op of its own (numerics): torch's CPU kernel sums each window in row-major order of
its positions (in float32 for float16/bfloat16/float32) and divides the sum by the window's
height and then by its width; its backward divides each output gradient by the height and
then the width in the tensor's dtype and adds it into the window's inputs, walking the outputs
in row-major order (rounding after each add). The separable form used before (a weighted sum
per dim) and the equal-window average pooling (one division by the window size) each
differed in the last bit on most float32 outputs and gradients (by up to 2 units on 16-bit
types). Measured against torch 2.13 on uneven and even windows, 1-d to 3-d.
"""

import itertools

import numpy as np

from ...autograd import graph as _graph
from ...autograd.graph import Op

__all__ = ["adaptive_avg"]


def _windows(n, out):
    """(starts, lengths) of the adaptive windows of ``out`` outputs over ``n`` inputs."""
    i = np.arange(out)
    start = (i * n) // out
    end = -((-(i + 1) * n) // out)
    return start, end - start


def _open(vecs):
    """``vecs`` (one 1-D array per pooled dim) as broadcasting open grids."""
    k = len(vecs)
    return tuple(v.reshape([-1 if j == i else 1 for j in range(k)]) for i, v in enumerate(vecs))


def _wide(dtype):
    """The accumulation dtype: float32 for the 16-bit types, else the dtype itself."""
    return np.dtype(np.float32) if dtype.itemsize == 2 else dtype


def _with_zero_slots(a, k):
    """``a`` with one zero appended along each of its last ``k`` dims (the index of a missing
    window position or owner reads it, so every gather is a plain ``take``)."""
    return np.pad(a, [(0, 0)] * (a.ndim - k) + [(0, 1)] * k)


def _take_all(a, tables):
    """``a`` gathered along its last ``len(tables)`` dims, one ``take`` per dim."""
    k = len(tables)
    for d, t in enumerate(tables):
        a = np.take(a, t, axis=a.ndim - k + d)
    return a


def _pool(x, sizes, out):
    """The forward on arrays: window sums in order, divided per dim."""
    k = len(out)
    wins = [_windows(n, o) for n, o in zip(sizes, out)]
    acc_t = _wide(x.dtype)
    xz = _with_zero_slots(x.astype(acc_t, copy=False), k)
    acc = None
    for offs in itertools.product(*(range(int(ln.max())) for _, ln in wins)):
        tables = [np.where(ln > j, s + j, n) for (s, ln), j, n in zip(wins, offs, sizes)]
        vals = _take_all(xz, tables)
        acc = vals if acc is None else np.add(acc, vals, out=acc)
    for d, (_, ln) in enumerate(wins):  # by the height, then the width (two roundings)
        shape = [1] * k
        shape[d] = ln.size
        acc = np.divide(acc, ln.astype(acc_t).reshape(shape), out=acc)
    return acc.astype(x.dtype, copy=False)


def _spread(g, sizes, out):
    """The backward on arrays: shares rounded in the dtype, added in torch's order."""
    k = len(out)
    wins = [_windows(n, o) for n, o in zip(sizes, out)]
    share = g
    for d, (_, ln) in enumerate(wins):
        shape = [1] * k
        shape[d] = ln.size
        share = share / ln.astype(g.dtype).reshape(shape)
    wide = _wide(g.dtype)
    share = _with_zero_slots(share.astype(g.dtype, copy=False).astype(wide, copy=False), k)
    cands = []
    for (s, ln), n, o in zip(wins, sizes, out):
        owners = [[] for _ in range(n)]
        for q, (a, b) in enumerate(zip(s, s + ln)):
            for i in range(a, b):
                owners[i].append(q)
        r = max(len(w) for w in owners)
        c = np.full((n, r), o, np.int64)  # o: the zero slot
        for i, w in enumerate(owners):
            c[i, :len(w)] = w
        cands.append(c)
    gi = None
    for pick in itertools.product(*(range(c.shape[1]) for c in cands)):
        vals = _take_all(share, [c[:, q] for c, q in zip(cands, pick)])
        if gi is None:
            gi = vals
        else:
            gi = np.add(gi, vals, out=gi)
            if g.dtype != wide:  # 16-bit adds round each time
                gi = gi.astype(g.dtype).astype(wide)
    return gi.astype(g.dtype, copy=False)


class AdaptiveAvg(Op):
    """y = adaptive average pooling of the last ``len(out)`` dims (module docstring)."""

    def forward(self, x):
        return _pool(x, self.sizes, self.out)

    def backward(self, grad):
        return AdaptiveAvgSpread.apply(grad, sizes=self.sizes, out=self.out)


class AdaptiveAvgSpread(Op):
    """y = the adjoint of ``AdaptiveAvg`` (its gradient); its own gradient is the pooling."""

    def forward(self, g):
        return _spread(g, self.sizes, self.out)

    def backward(self, gg):
        return AdaptiveAvg.apply(gg, sizes=self.sizes, out=self.out)


def applies(x):
    """NumPy floating arrays (the CPU kernel's roundings), no graph hook active (an exporter,
    a tracer or vmap takes the composed form, which they know)."""
    if _graph._hook is not None or _graph.ops_traced():
        return False
    a = x._array
    return type(a) is np.ndarray and (a.dtype.kind == "f" or a.dtype.name == "bfloat16")


def adaptive_avg(x, out):
    """Adaptive average pooling of a batched ``x`` to ``out`` (non-global, non-empty)."""
    nd = len(out)
    return AdaptiveAvg.apply(x, sizes=tuple(x.shape[x.dim() - nd:]), out=tuple(out))
