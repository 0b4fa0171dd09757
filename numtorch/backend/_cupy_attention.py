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
from ._cupy_kernels import ENABLED, FLOATS
from ._cupy_rows import launch_rows, raw_rows_kernel

_FLOATS = ("float32", "float64")
_MAX_KEYS = 1024

# the maximum propagates NaN (as xp's max), so a row with a NaN score is NaN throughout
_SOFTMAX = """
const long long base = i * m;
const T sc = (T)scale;  // rounded to T, as the xp code's scalar
const long long l = i % L;
const long long lim = (causal && l + 1 < m) ? l + 1 : m;
T mx = s[base] * sc;
for (long long j = 1; j < lim; ++j) {
    const T v = s[base + j] * sc;
    if (v > mx || v != v) mx = v;
}
const bool none = safe && mx < (T)0 && isinf(mx);
dead[i] = none;
if (none) {
    for (long long j = 0; j < m; ++j) s[base + j] = (T)0;
} else {
    double z = 0;
    for (long long j = 0; j < lim; ++j) {
        const T e = exp(s[base + j] * sc - mx);
        s[base + j] = e;
        z += (double)e;
    }
    for (long long j = lim; j < m; ++j) s[base + j] = (T)0;
    const T zt = (T)z;
    for (long long j = 0; j < lim; ++j) s[base + j] = s[base + j] / zt;
}
"""

# row i = (b, l) of the (B, L, m) weights; its transposes go to (b, j, l) of (B, m, L)
_SOFTMAX_GRAD = """
const long long base = i * m, b = i / L, l = i - b * L, tb = b * m * L + l;
const T sc = (T)scale;
double acc = 0;
for (long long j = 0; j < m; ++j) acc += (double)dp[base + j] * (double)p[base + j];
const T dot = (T)acc;
for (long long j = 0; j < m; ++j) {
    const T pj = p[base + j];
    const T d = (dp[base + j] - dot) * pj;
    const T v = d * sc;
    dp[base + j] = v;
    dst[tb + j * L] = v;
    pt[tb + j * L] = pj;
}
"""


_SOFTMAX_ROWS = """
const long long base = i * m;
T mx = x[base];
for (long long j = 1; j < m; ++j) {
    const T v = x[base + j];
    if (v > mx || v != v) mx = v;
}
double z = 0;
for (long long j = 0; j < m; ++j) {
    const T e = exp(x[base + j] - mx);
    y[base + j] = e;
    z += (double)e;
}
const T r = (T)1 / (T)z;
for (long long j = 0; j < m; ++j) y[base + j] = y[base + j] * r;
"""

_SOFTMAX_ROWS_GRAD = """
const long long base = i * m;
double acc = 0;
for (long long j = 0; j < m; ++j) acc += (double)(g[base + j] * y[base + j]);
const T dot = (T)acc;
for (long long j = 0; j < m; ++j) {
    const T yj = y[base + j];
    const T t = g[base + j] * yj;
    gx[base + j] = t - yj * dot;
}
"""


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
    return y if launch_rows(_SOFTMAX_ROWS_K, x.dtype, x.size // m, (x, m, y)) else None


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
    return gx if launch_rows(_SOFTMAX_ROWS_GRAD_K, y.dtype, y.size // m, (y, g, m, gx)) else None


_SOFTMAX_K = raw_rows_kernel(
    "numtorch_attn_softmax", "double scale, long long m, long long L, bool safe, bool causal, "
    "T* s, bool* dead", _SOFTMAX)
_SOFTMAX_GRAD_K = raw_rows_kernel(
    "numtorch_attn_softmax_grad", "const T* p, double scale, long long m, long long L, "
    "T* dp, T* dst, T* pt", _SOFTMAX_GRAD)
_SOFTMAX_ROWS_K = raw_rows_kernel(
    "numtorch_softmax_rows", "const T* x, long long m, T* y", _SOFTMAX_ROWS)
_SOFTMAX_ROWS_GRAD_K = raw_rows_kernel(
    "numtorch_softmax_rows_grad", "const T* y, const T* g, long long m, T* gx",
    _SOFTMAX_ROWS_GRAD)


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
    ok = launch_rows(_SOFTMAX_K, s.dtype, rows, (float(scale), m, length, bool(safe),
                                                 bool(causal), s, dead))
    return dead if ok else None


def attention_softmax_grad(p, dp, scale):
    """From the C-contiguous weights ``p`` (B, L, S) and their gradient ``dp`` (same shape):
    ``ds = p * (dp - sum(dp * p)) * scale`` written into ``dp``, and ``(ds^T, p^T)`` as new
    C-contiguous (B, S, L) arrays; None when the kernel cannot be built."""
    from . import _cupy

    cp = _cupy.cp
    b, length, m = p.shape
    dst = cp.empty((b, m, length), dtype=p.dtype)
    pt = cp.empty((b, m, length), dtype=p.dtype)
    ok = launch_rows(_SOFTMAX_GRAD_K, p.dtype, b * length, (p, float(scale), m, length, dp,
                                                            dst, pt))
    return (dst, pt) if ok else None
