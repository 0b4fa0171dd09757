"""Softmax on a GPU in whole-row kernels: attention's (``ops/attention_ops.py``'s device path)
and ``softmax`` over the last dim (``ops/softmax.py``).

With xp arrays the attention softmax is nine launches forward (scale, max, the all-masked
test and its two selections, subtract, exp, sum, divide) and its backward five (the row dots
as a product and a sum, subtract, multiply, and a scale per input gradient), each with CuPy's
per-call host work; ``cupy.matmul`` also copies every operand that is not C-contiguous, so
products of transposed views add a copy launch each. Here one thread owns one row of scores:
the forward kernel scales, shifts by the row maximum, exponentiates and normalises in place
(rows whose every score is ``-inf`` get zero weights and a flag when ``safe``); the backward
kernel forms ds = p * (dp - sum(dp * p)) times the scale in place and also writes ds^T and
p^T, the operands the key and value gradients' products need C-contiguous.

``softmax`` over a last dim as xp code is five launches (max, subtract, exp, sum, the
reciprocal's product) and its backward four; here one each, with the xp code's operations
per value (y = e * (1 / sum), gx = g * y - y * sum(g * y)).

The row sums accumulate in float64 and round once. Rows longer than ``_MAX_KEYS`` keep the
xp path (a thread looping over a long row is slow).
"""

from .. import backend as _backend
from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _run

_FLOATS = ("float32", "float64")
_MAX_KEYS = 1024

# the maximum propagates NaN (as xp's max), so a row with a NaN score is NaN throughout
_SOFTMAX = """
const ptrdiff_t base = i * m;
const ptrdiff_t l = i % L;
const ptrdiff_t lim = (causal && l + 1 < m) ? l + 1 : m;
T mx = s[base] * scale;
for (ptrdiff_t j = 1; j < lim; ++j) {
    const T v = s[base + j] * scale;
    if (v > mx || v != v) mx = v;
}
const bool none = safe && mx < (T)0 && isinf(mx);
dead[i] = none;
if (none) {
    for (ptrdiff_t j = 0; j < m; ++j) s[base + j] = (T)0;
} else {
    double z = 0;
    for (ptrdiff_t j = 0; j < lim; ++j) {
        const T e = exp(s[base + j] * scale - mx);
        s[base + j] = e;
        z += (double)e;
    }
    for (ptrdiff_t j = lim; j < m; ++j) s[base + j] = (T)0;
    const T zt = (T)z;
    for (ptrdiff_t j = 0; j < lim; ++j) s[base + j] = s[base + j] / zt;
}
"""

# row i = (b, l) of the (B, L, m) weights; its transposes go to (b, j, l) of (B, m, L)
_SOFTMAX_GRAD = """
const ptrdiff_t base = i * m, b = i / L, l = i - b * L, tb = b * m * L + l;
double acc = 0;
for (ptrdiff_t j = 0; j < m; ++j) acc += (double)dp[base + j] * (double)p[base + j];
const T dot = (T)acc;
for (ptrdiff_t j = 0; j < m; ++j) {
    const T pj = p[base + j];
    const T d = (dp[base + j] - dot) * pj;
    const T v = d * scale;
    dp[base + j] = v;
    dst[tb + j * L] = v;
    pt[tb + j * L] = pj;
}
"""


_SOFTMAX_ROWS = """
const ptrdiff_t base = i * m;
T mx = x[base];
for (ptrdiff_t j = 1; j < m; ++j) {
    const T v = x[base + j];
    if (v > mx || v != v) mx = v;
}
double z = 0;
for (ptrdiff_t j = 0; j < m; ++j) {
    const T e = exp(x[base + j] - mx);
    y[base + j] = e;
    z += (double)e;
}
const T r = (T)1 / (T)z;
for (ptrdiff_t j = 0; j < m; ++j) y[base + j] = y[base + j] * r;
"""

_SOFTMAX_ROWS_GRAD = """
const ptrdiff_t base = i * m;
double acc = 0;
for (ptrdiff_t j = 0; j < m; ++j) acc += (double)(g[base + j] * y[base + j]);
const T dot = (T)acc;
for (ptrdiff_t j = 0; j < m; ++j) {
    const T yj = y[base + j];
    const T t = g[base + j] * yj;
    gx[base + j] = t - yj * dot;
}
"""


def _make_softmax_rows(cp):
    return cp.ElementwiseKernel("raw T x, int64 m", "raw T y", _SOFTMAX_ROWS,
                                "numtorch_softmax_rows", options=_OPTIONS)


def _make_softmax_rows_grad(cp):
    return cp.ElementwiseKernel("raw T y, raw T g, int64 m", "raw T gx", _SOFTMAX_ROWS_GRAD,
                                "numtorch_softmax_rows_grad", options=_OPTIONS)


def softmax_rows(x):
    """Softmax over the last dim of ``x`` in one launch (a new C-contiguous array; a strided
    ``x`` is copied first), or None when the kernel does not apply (dtype, long rows) or
    cannot be built."""
    m = x.shape[-1] if x.ndim else 0
    if not (ENABLED[0] and x.dtype in FLOATS and 0 < m <= _MAX_KEYS and x.size):
        return None
    from . import _cupy

    if not _backend.DEVICE_C_CONTIGUOUS(x):  # torch's result is row-major in any case
        x = _cupy.cp.ascontiguousarray(x)
    y = _cupy.cp.empty(x.shape, dtype=x.dtype)
    return _run("numtorch_softmax_rows", _make_softmax_rows, x, m, y, size=x.size // m)


def softmax_rows_grad(y, g):
    """``g * y - y * sum(g * y)`` over the last dim in one launch, or None when the kernel
    does not apply (``y`` and ``g`` of one dtype and shape, C-contiguous) or cannot be built."""
    m = y.shape[-1] if y.ndim else 0
    if not (ENABLED[0] and y.dtype in FLOATS and g.dtype == y.dtype and g.shape == y.shape and
            0 < m <= _MAX_KEYS and y.size and _backend.DEVICE_C_CONTIGUOUS(y) and
            _backend.DEVICE_C_CONTIGUOUS(g)):
        return None
    from . import _cupy

    gx = _cupy.cp.empty_like(y)
    return _run("numtorch_softmax_rows_grad", _make_softmax_rows_grad, y, g, m, gx,
                size=y.size // m)


def _make_softmax(cp):
    return cp.ElementwiseKernel(
        "T scale, int64 m, int64 L, bool safe, bool causal", "raw T s, raw bool dead", _SOFTMAX,
        "numtorch_attn_softmax", options=_OPTIONS)


def _make_softmax_grad(cp):
    return cp.ElementwiseKernel(
        "raw T p, T scale, int64 m, int64 L", "raw T dp, raw T dst, raw T pt", _SOFTMAX_GRAD,
        "numtorch_attn_softmax_grad", options=_OPTIONS)


def attention_rows_ok(s_shape, dtype):
    """Whether the whole-row softmax kernels take scores of ``s_shape`` (..., L, S)."""
    keys = s_shape[-1]
    size = 1
    for d in s_shape:
        size *= d
    return ENABLED[0] and dtype.name in _FLOATS and 0 < keys <= _MAX_KEYS and size > 0


def attention_softmax(s, scale, safe, causal=False):
    """Softmax over the last dim of the C-contiguous scores ``s`` (..., L, S) times ``scale``,
    in place; with ``causal`` key j is masked for query l when j > l. Returns the (rows,) bool
    array of rows with every score ``-inf`` (zero weights there when ``safe``), or None when
    the kernel cannot be built (``s`` untouched)."""
    from . import _cupy

    m = s.shape[-1]
    rows = s.size // m
    dead = _cupy.cp.empty(rows, dtype=bool)
    length = s.shape[-2] if s.ndim > 1 else 1
    out = _run("numtorch_attn_softmax", _make_softmax, s.dtype.type(scale), m, length,
               bool(safe), bool(causal), s, dead, size=rows)
    return None if out is None else dead


def attention_softmax_grad(p, dp, scale):
    """From the C-contiguous weights ``p`` (B, L, S) and their gradient ``dp`` (same shape):
    ``ds = p * (dp - sum(dp * p)) * scale`` written into ``dp``, and ``(ds^T, p^T)`` as new
    C-contiguous (B, S, L) arrays; None when the kernel cannot be built."""
    from . import _cupy

    cp = _cupy.cp
    b, length, m = p.shape
    dst = cp.empty((b, m, length), dtype=p.dtype)
    pt = cp.empty((b, m, length), dtype=p.dtype)
    out = _run("numtorch_attn_softmax_grad", _make_softmax_grad, p, p.dtype.type(scale), m,
               length, dp, dst, pt, size=b * length)
    return None if out is None else (dst, pt)
