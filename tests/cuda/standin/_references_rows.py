"""NumPy references of the whole-row layer-norm kernels (``numtorch/backend/_cupy_rows.py``,
RawKernels: the arguments in their C parameter order, the thread count last), written from the
math they compute: row sums in float64, rounded to the array's dtype where
the kernels round (the mean, the mean of h and of h * xhat, invstd, the column sums)."""

import numpy as np

from ._kernels import reference


@reference("numtorch_ln_forward")
def ln_forward(x, w, b, eps, n, has_b, data, y, invstd, count):
    t = x.dtype.type
    x2 = x.reshape(-1, n)
    rows = x2.shape[0]
    mean = (x2.sum(axis=1, dtype=np.float64) / n).astype(x.dtype).reshape(rows, 1)
    xc = x2 - mean
    d64 = xc.astype(np.float64)
    s2 = np.einsum("ij,ij->i", d64, d64)
    iv = (1.0 / np.sqrt(s2 / n + float(eps))).astype(x.dtype)
    invstd.reshape(-1)[:rows] = iv
    d = xc * iv.reshape(rows, 1)
    data.reshape(rows, n)[...] = d
    out = d * w.reshape(-1)[:n]
    if has_b:
        out = out + b.reshape(-1)[:n]
    y.reshape(rows, n)[...] = out.astype(t, copy=False)


@reference("numtorch_ln_grad_rows")
def ln_grad_rows(gy, data, invstd, w, n, gx, count):
    g2, d2 = gy.reshape(-1, n), data.reshape(-1, n)
    h = g2 * w.reshape(-1)[:n]
    mh = (h.sum(axis=1, dtype=np.float64) / n).astype(gy.dtype).reshape(-1, 1)
    mhx = (np.einsum("ij,ij->i", h.astype(np.float64), d2.astype(np.float64)) / n
           ).astype(gy.dtype).reshape(-1, 1)
    t = (h - mh) - d2 * mhx
    gx.reshape(-1, n)[...] = t * invstd.reshape(-1, 1)


@reference("numtorch_ln_grad_cols_part")
def ln_grad_cols_part(gy, data, rows, n, chunk, pw, pb, count):
    g2 = gy.reshape(-1)[:rows * n].reshape(rows, n).astype(np.float64)
    d2 = data.reshape(-1)[:rows * n].reshape(rows, n).astype(np.float64)
    chunks = pw.size // n
    pad = chunks * chunk - rows
    g3 = np.concatenate([g2, np.zeros((pad, n))]).reshape(chunks, chunk, n)
    d3 = np.concatenate([d2, np.zeros((pad, n))]).reshape(chunks, chunk, n)
    pb.reshape(chunks, n)[...] = g3.sum(axis=1)
    pw.reshape(chunks, n)[...] = (g3 * d3).sum(axis=1)


@reference("numtorch_ln_grad_cols")
def ln_grad_cols(pw, pb, chunks, n, gw, gb, count):
    gw.reshape(-1)[:n] = pw.reshape(chunks, n).sum(axis=0).astype(gw.dtype)
    gb.reshape(-1)[:n] = pb.reshape(chunks, n).sum(axis=0).astype(gb.dtype)
