"""Attention's softmax on a GPU in whole-row kernels (``ops/attention_ops.py``'s device path).

With xp arrays the attention softmax is nine launches forward (scale, max, the all-masked
test and its two selections, subtract, exp, sum, divide) and its backward five (the row dots
as a product and a sum, subtract, multiply, and a scale per input gradient), each with CuPy's
per-call host work; ``cupy.matmul`` also copies every operand that is not C-contiguous, so
products of transposed views add a copy launch each. Here one thread owns one row of scores:
the forward kernel scales, shifts by the row maximum, exponentiates and normalises in place
(rows whose every score is ``-inf`` get zero weights and a flag when ``safe``); the backward
kernel forms ds = p * (dp - sum(dp * p)) times the scale in place and also writes ds^T and
p^T, the operands the key and value gradients' products need C-contiguous.

The row sums accumulate in float64 and round once. Rows longer than ``_MAX_KEYS`` keep the
xp path (a thread looping over a long row is slow).
"""

from ._cupy_kernels import ENABLED, _OPTIONS, _run

_FLOATS = ("float32", "float64")
_MAX_KEYS = 1024

# the maximum propagates NaN (as xp's max), so a row with a NaN score is NaN throughout
_SOFTMAX = """
const ptrdiff_t base = i * m;
T mx = s[base] * scale;
for (ptrdiff_t j = 1; j < m; ++j) {
    const T v = s[base + j] * scale;
    if (v > mx || v != v) mx = v;
}
const bool none = safe && mx < (T)0 && isinf(mx);
dead[i] = none;
if (none) {
    for (ptrdiff_t j = 0; j < m; ++j) s[base + j] = (T)0;
} else {
    double z = 0;
    for (ptrdiff_t j = 0; j < m; ++j) {
        const T e = exp(s[base + j] * scale - mx);
        s[base + j] = e;
        z += (double)e;
    }
    const T zt = (T)z;
    for (ptrdiff_t j = 0; j < m; ++j) s[base + j] = s[base + j] / zt;
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


def _make_softmax(cp):
    return cp.ElementwiseKernel(
        "T scale, int64 m, bool safe", "raw T s, raw bool dead", _SOFTMAX,
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


def attention_softmax(s, scale, safe):
    """Softmax over the last dim of the C-contiguous scores ``s`` times ``scale``, in place;
    returns the (rows,) bool array of rows with every score ``-inf`` (zero weights there when
    ``safe``), or None when the kernel cannot be built (``s`` untouched)."""
    from . import _cupy

    m = s.shape[-1]
    rows = s.size // m
    dead = _cupy.cp.empty(rows, dtype=bool)
    out = _run("numtorch_attn_softmax", _make_softmax, s.dtype.type(scale), m, bool(safe), s,
               dead, size=rows)
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
