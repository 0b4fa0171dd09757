"""erf(x / sqrt 2) for exact GELU on float32 host arrays, in few NumPy passes.

erf(x / sqrt 2) = tanh(g) with g = (x / 2) P(u) / Q(u), u = (x / 2)^2, P and Q cubics with
positive coefficients (a weighted minimax fit of atanh(erf); in exact arithmetic erf is within
3.1e-9 on |x| <= 5.6, and past that g keeps growing, so tanh rounds to +-1 where float32 erf
does). Why this form: tanh is odd and saturates, so no abs, sign or clamp passes are needed
(np.copysign and np.minimum cost three to six multiplies each), NumPy's float32 tanh is
vectorised, and P and Q come out of one small GEMM, the 2x4 coefficients times the rows
u^3, u^2, u, 1: three multiplies and a GEMM instead of eleven Horner passes.

In float32 the result is within 1.8 units of 2^-24 of erf; about 12% of values are not the
correctly rounded float32 erf (mostly NumPy's tanh, one ulp off on ~10% of arguments).
torch's own contiguous float32 GELU (oneDNN) is a few ulps off too: see tests/test_gelu_s38.py
and tests/test_transformer_perf_s39_gelu.py for the counts against torch.
"""

import numpy as np

from .._threads import single_blas_thread

__all__ = ["BLOCK", "Scratch", "erf_half", "erf_half_block"]

_F = np.float32
# rows of _COEF: P and Q, highest power first (Q monic); shortest float32 reprs
_COEF = np.array([[9.499518, 93.25928, 306.5411, 618.1949],
                  [1.0, 36.590305, 121.52838, 387.39618]], dtype=_F)
# u past this: u^3 would overflow (inf / inf = NaN); |x| > 200 gives erf = +-1 anyway
_U_CLAMP = _F(1e4)
# u of the least float32 x whose correctly rounded erf(x / sqrt 2) is 1 (x = 5.5425944).
# NumPy's float32 tanh returns 1 - 2^-24 up to 10 (not from 9.01 on, as tanh rounds), so g
# (about 9 there) is doubled from this u on
_U_TAIL = _F(7.680088)
BLOCK = 1 << 16  # values per pass: 64K measured faster than 32K and 128K (scratch: 1.8 MB)


class Scratch:
    """Per-thread work space for blocks of up to ``n`` values."""

    __slots__ = ("half", "pq", "rows", "tail")

    def __init__(self, n, half=True):
        self.rows = np.empty((4, n), _F)
        self.rows[3] = 1
        self.pq = np.empty((2, n), _F)
        self.half = np.empty(n, _F) if half else None  # None: callers pass ``xc`` blocks
        self.tail = None  # the last block's mask of u >= _U_TAIL (None: no such value)


def erf_half_block(xs, s, xc=None):
    """erf(xs / sqrt 2) of a contiguous 1-D float32 block (at most the scratch's size).

    Returns ``(t, xc, u)``: t the erf, xc = xs / 2 and u = xc^2 (GELU's other factors), views
    into the scratch, xc into ``xc`` when given (a caller's output block: GELU's y is xc times
    1 + erf, formed in place; 7% faster at (12, 64, 3072), one block-sized row less in the
    cache). Call under ``single_blas_thread`` (the GEMM is tiny)."""
    m = xs.size
    rows, pq = s.rows[:, :m], s.pq[:, :m]
    xc = s.half[:m] if xc is None else xc
    u = rows[2]
    np.multiply(xs, _F(0.5), out=xc)
    np.multiply(xc, xc, out=u)
    tail = None
    if np.fmax.reduce(u, initial=_F(0)) >= _U_TAIL:  # rare in activations: |x| >= 5.54
        if np.fmax.reduce(u) > _U_CLAMP:
            np.minimum(u, _U_CLAMP, out=u)
        tail = u >= _U_TAIL
    s.tail = tail
    np.multiply(u, u, out=rows[1])
    np.multiply(rows[1], u, out=rows[0])
    np.matmul(_COEF, rows, out=pq)
    t = pq[0]
    np.divide(t, pq[1], out=t)
    t *= xc
    if tail is not None:  # g >= 9 there: doubled, tanh gives +-1 as float32 erf does
        np.multiply(t, _F(2), out=t, where=tail)
    np.tanh(t, out=t)
    return t, xc, u


def erf_half(x):
    """erf(x / sqrt 2) of a float32 host array of any layout (a new array, x's shape), with
    the same bits per value as ``erf_half_block``."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.size, _F)
    if flat.size:
        s = Scratch(min(BLOCK, flat.size))
        with single_blas_thread():
            for a in range(0, flat.size, BLOCK):
                out[a:a + BLOCK] = erf_half_block(flat[a:a + BLOCK], s)[0]
    return out.reshape(x.shape)
