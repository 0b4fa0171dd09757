"""NumPy references of the whole-row attention softmax kernels
(``numtorch/backend/_cupy_attention.py``, RawKernels: the arguments in their C parameter order,
the thread count last), written from the math they compute."""

import numpy as np

from ._kernels import reference


@reference("numtorch_attn_softmax")
def attn_softmax(scale, m, L, safe, causal, s, dead, count):
    rows = s.size // m
    a = s.reshape(rows, m)
    v = a * s.dtype.type(scale)
    if causal:  # key j masked for query l = row % L when j > l
        l = np.arange(rows) % L
        v = np.where(np.arange(m)[None, :] > l[:, None], s.dtype.type(-np.inf), v)
    mx = v.max(axis=1, keepdims=True)  # NaN propagates, as the kernel's comparison
    none = (np.isinf(mx) & (mx < 0)).reshape(-1) & bool(safe)
    dead.reshape(-1)[:rows] = none
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(v - mx)
        z = e.sum(axis=1, dtype=np.float64, keepdims=True).astype(s.dtype)
        r = e / z
    r[none] = 0
    a[...] = r


@reference("numtorch_attn_softmax_grad")
def attn_softmax_grad(p, scale, m, L, dp, dst, pt, count):
    b = p.size // (m * L)
    p3, d3 = p.reshape(b, L, m), dp.reshape(b, L, m)
    dot = np.einsum("blm,blm->bl", d3.astype(np.float64), p3.astype(np.float64))
    dot = dot.astype(p.dtype)[..., None]
    ds = (d3 - dot) * p3
    ds = ds * p.dtype.type(scale)
    d3[...] = ds
    dst.reshape(b, m, L)[...] = ds.transpose(0, 2, 1)
    pt.reshape(b, m, L)[...] = p3.transpose(0, 2, 1)


@reference("numtorch_softmax_rows")
def softmax_rows(x, m, y, count):
    a = x.reshape(-1, m)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        z = e.sum(axis=1, dtype=np.float64, keepdims=True).astype(x.dtype)
        y.reshape(-1, m)[...] = e * (x.dtype.type(1) / z)


@reference("numtorch_softmax_rows_grad")
def softmax_rows_grad(y, g, m, gx, count):
    y2, g2 = y.reshape(-1, m), g.reshape(-1, m)
    t = g2 * y2
    dot = t.sum(axis=1, dtype=np.float64, keepdims=True).astype(y.dtype)
    gx.reshape(-1, m)[...] = t - y2 * dot
