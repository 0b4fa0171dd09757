"""Convolutions on a GPU: one im2col copy and ONE GEMM per pass, nothing else.

The CPU path (``conv``) picks among Winograd, cache-sized blocks, flat planes and batch splits
across cores, all tuned to a two-core machine's caches and BLAS. On a GPU each of those is many
small kernels, each a launch costing ~5-10 us of host time (ResNet-18's step ran 13x torch's
time with them), while cuBLAS wants one large GEMM. So device arrays take this path:

* forward: ``cols (g, C/g * K, N * L)`` from one strided window view (one copy), one GEMM
  ``W (g, O/g, C/g * K) @ cols``, one copy to ``(N, O, L)`` that also adds the bias;
* weight gradient: ``gy (g, O/g, N * L) @ cols^T``, the forward's column layout read
  transposed: a single GEMM whose long reduction runs over every sample and position;
* input gradient: for stride 1, the convolution of ``gy`` with the flipped weight (``conv``'s
  ``_input_as_conv``, which lands in ``forward`` here); otherwise one GEMM into columns and one
  strided add per kernel tap (col2im).

With a single group every GEMM is a 2-D ``dot`` (cuBLAS reads transposed views as they are);
with several, a batched ``matmul`` over groups. Zero padding is one zero-filled buffer and one
copy. No Python loop runs over samples, blocks or positions. The columns of the forward and
of the weight gradient come from one kernel (``backend/_cupy_conv.py``) that reads the
unpadded input, zeros in the padding: one launch instead of a zero fill and two copies.
"""

from math import prod as _prod

from ..backend import helpers_for

__all__ = []


def _padded(xp, x, padding):
    """``x`` with zeros around its spatial dims (``x`` itself without padding)."""
    if not any(lo or hi for lo, hi in padding):
        return x
    nd = len(padding)
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], padding))
    out = xp.zeros(shape, dtype=x.dtype)
    out[(slice(None),) * 2 + tuple(slice(lo, lo + s) for s, (lo, _) in
                                   zip(x.shape[-nd:], padding))] = x
    return out


def _windows(xp, x, kernel, stride, dilation, out, groups):
    """The strided view ``(N, g, C/g, *out, *kernel)`` of the padded ``(N, C, *S)`` x."""
    n, c = x.shape[:2]
    sn, sc = x.strides[:2]
    sp = x.strides[2:]
    shape = (n, groups, c // groups) + tuple(out) + tuple(kernel)
    strides = ((sn, sc * (c // groups), sc) + tuple(s * st for s, st in zip(sp, stride))
               + tuple(s * d for s, d in zip(sp, dilation)))
    return helpers_for(xp).as_strided(x, shape, strides)


def _gemm(xp, a, b):
    """``a @ b`` batched over the leading group dim: a 2-D ``dot`` for one group."""
    if a.shape[0] == 1:
        return xp.dot(a[0], b[0])[None]
    return xp.matmul(a, b)


def _rows_of(xp, g, groups):
    """``(N, O, *S)`` as the GEMM operand ``(groups, O/groups, N * prod(S))`` (one copy)."""
    n, o = g.shape[:2]
    length = _prod(g.shape[2:])
    t = xp.ascontiguousarray(g.reshape(n, o, length).swapaxes(0, 1))
    return t.reshape(groups, o // groups, n * length)


def _columns(xp, x, kernel, stride, padding, dilation, groups, out):
    """The GEMM operand ``(g, C/g * K, N * L)`` of ``x``: rows in the weight's order, one
    column per sample and output position (one kernel on a GPU, else the xp code)."""
    cols = helpers_for(xp).im2col(x, kernel, stride, padding, dilation, groups, out)
    if cols is not None:
        return cols
    # the xp code: padded copy, window view, one copy in GEMM order
    nd = len(kernel)
    n = x.shape[0]
    win = _windows(xp, _padded(xp, x, padding), kernel, stride, dilation, out, groups)
    # (N, g, C/g, *out, *K) -> (g, C/g, *K, N, *out)
    axes = (1, 2) + tuple(range(3 + nd, 3 + 2 * nd)) + (0,) + tuple(range(3, 3 + nd))
    ck = x.shape[1] // groups * _prod(kernel)
    return xp.ascontiguousarray(win.transpose(axes)).reshape(groups, ck, n * _prod(out))


def forward(xp, x, w, b, stride, padding, dilation, groups, out):
    """``conv(x, w) + b`` with output spatial shape ``out``."""
    kernel = tuple(w.shape[2:])
    n, o = x.shape[0], w.shape[0]
    length = _prod(out)
    ck = x.shape[1] // groups * _prod(kernel)
    cols = _columns(xp, x, kernel, stride, padding, dilation, groups, out)
    yt = _gemm(xp, w.reshape(groups, o // groups, ck), cols).reshape(o, n, length)
    if b is None:  # (one copy; less host work than an empty array and a slice assignment)
        return xp.ascontiguousarray(yt.swapaxes(0, 1)).reshape((n, o) + tuple(out))
    y = xp.empty((n, o, length), dtype=yt.dtype)
    xp.add(yt.swapaxes(0, 1), b.reshape(o, 1), out=y)
    return y.reshape((n, o) + tuple(out))


def weight(xp, x, gy, kernel, stride, padding, dilation, groups):
    """The weight gradient of ``conv(x, w)`` for output gradient ``gy``: ``gy (g, O/g, N * L)
    @ cols^T``, the forward's columns read transposed (no second layout, no copy)."""
    kernel = tuple(kernel)
    o = gy.shape[1]
    out = tuple(gy.shape[2:])
    cols = _columns(xp, x, kernel, stride, padding, dilation, groups, out)
    if groups == 1:
        dw = _gemm(xp, _rows_of(xp, gy, groups), cols.swapaxes(1, 2))  # (1, O, C * K)
        return dw.reshape((o, x.shape[1]) + kernel)
    # batched over groups: CuPy's matmul copies a transposed operand, so transpose gy (the
    # copy it needs anyway, 1/K of the columns' size) rather than the columns, then the
    # (small) weight-sized result
    n, length = gy.shape[0], _prod(out)
    gyt = xp.ascontiguousarray(gy.reshape(n, groups, o // groups, length).transpose(1, 0, 3, 2))
    dwt = xp.matmul(cols, gyt.reshape(groups, n * length, o // groups))  # (g, C/g * K, O/g)
    return xp.ascontiguousarray(dwt.swapaxes(1, 2)).reshape((o, x.shape[1] // groups) + kernel)


def input_col2im(xp, gy, w, size, stride, padding, dilation, groups, col2im_into):
    """The input gradient (spatial ``size``) of a strided convolution: one GEMM into columns,
    then ``col2im_into`` (one strided add per kernel tap) and a crop of the padding."""
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    c_in = w.shape[1] * groups
    wt = w.reshape(groups, o // groups, w.shape[1] * _prod(kernel)).swapaxes(1, 2)
    cols = _gemm(xp, wt, _rows_of(xp, gy, groups)).reshape((c_in,) + kernel + (n,) + out)
    dx = helpers_for(xp).col2im(cols, n, c_in, size, kernel, out, stride, padding, dilation)
    if dx is not None:  # one kernel: each element sums its taps' columns
        return dx
    full = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    dx = xp.zeros((n, c_in) + full, dtype=cols.dtype)
    col2im_into(dx, xp.moveaxis(cols, 1 + nd, 0), stride, dilation)
    if not any(lo or hi for lo, hi in padding):
        return dx
    return xp.ascontiguousarray(dx[(slice(None),) * 2 + tuple(
        slice(lo, lo + s) for s, (lo, _) in zip(size, padding))])
