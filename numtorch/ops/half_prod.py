"""``prod`` of a float16/bfloat16 tensor multiplied and rounded as torch's CPU kernel does
(found by experiment against torch 2.13 on an AVX512 build; tests/test_gap_s38_half_prod.py).

Every product is rounded to the half type. Over the innermost (memory-contiguous) dims a row
is read in blocks of 64: four accumulators of 16 lanes each multiply by their slice of every
block, then combine as (a0 a1)(a2 a3), their 16 lanes fold left to right, and the elements
past the last whole block multiply in one by one. A whole-tensor product of more than 32768
elements is first split into min(threads, ceil(n / 32768)) equal chunks whose results
multiply in order. Over a run of outer dims the rows multiply one after another. Other dim
mixes keep a float32 product rounded once.
"""

import numpy as np

from .._threads import get_num_threads

_LANES = 16
_BLOCK = 4 * _LANES
_GRAIN = 32768


def _mul(a, b, half):
    return (a.astype(np.float32) * b).astype(half)


def _inner(f, half):
    """(rows,) products of the float32 rows ``f`` (rows, n) of half values."""
    rows, n = f.shape
    out = np.ones(rows, dtype=half)
    nb = n // _BLOCK
    if nb:
        blocks = f[:, :nb * _BLOCK].reshape(rows, nb, 4, _LANES)
        acc = blocks[:, 0].astype(half)
        for i in range(1, nb):
            acc = _mul(acc, blocks[:, i], half)
        a = _mul(_mul(acc[:, 0], acc[:, 1], half), _mul(acc[:, 2], acc[:, 3], half), half)
        out = a[:, 0]
        for j in range(1, _LANES):
            out = _mul(out, a[:, j], half)
    for j in range(nb * _BLOCK, n):
        out = _mul(out, f[:, j], half)
    return out


def _whole(flat, half):
    n = flat.size
    tasks = max(1, min(get_num_threads(), -(-n // _GRAIN)))
    chunk = -(-n // tasks)
    out = np.ones((), dtype=half)
    for lo in range(0, n, chunk):
        out = _mul(out, _inner(flat[lo:lo + chunk].reshape(1, -1), half)[0], half)
    return out


def half_prod(x, dims, keepdim):
    """torch's product of the half array ``x`` over the sorted ``dims``; None when the dims
    are not one run of axes in memory order (the caller keeps its float32 form)."""
    half = x.dtype
    nd = x.ndim
    kept_shape = tuple(1 if d in dims else s for d, s in enumerate(x.shape)) if keepdim else \
        tuple(s for d, s in enumerate(x.shape) if d not in dims)
    if x.size == 0 or not dims:
        return None
    # torch walks memory order: axes by decreasing stride (a transposed input stays so)
    order = sorted(range(nd), key=lambda d: -abs(x.strides[d]))
    a = np.ascontiguousarray(x.transpose(order))
    red = sorted(order.index(d) for d in dims)
    f = a.astype(np.float32)
    if red == list(range(nd - len(red), nd)):  # the innermost dims
        n = int(np.prod([a.shape[d] for d in red]))
        if len(red) == nd:
            out = _whole(f.reshape(-1), half)
        else:
            out = _inner(f.reshape(-1, n), half)
        kept = [order[d] for d in range(nd) if d not in red]
    elif red == list(range(red[0], red[-1] + 1)):  # a run of outer dims: row after row
        pre = int(np.prod(a.shape[:red[0]]))
        m = int(np.prod([a.shape[d] for d in red]))
        rows = f.reshape(pre, m, -1)
        out = rows[:, 0].astype(half)
        for i in range(1, m):
            out = _mul(out, rows[:, i], half)
        kept = [order[d] for d in range(nd) if d not in red]
    else:
        return None
    # ``out`` holds the kept dims in memory order: back to logical order
    shape_mem = [x.shape[d] for d in kept]
    out = out.reshape(shape_mem)
    out = out.transpose(np.argsort(kept)) if len(kept) > 1 else out
    return np.ascontiguousarray(out).reshape(kept_shape)
