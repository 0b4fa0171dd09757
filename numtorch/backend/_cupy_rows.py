"""Layer norm on a GPU in whole-row kernels: one launch forward, three for the gradients.

Built from reductions and elementwise kernels, layer norm's forward is four to five launches
and its backward eight (h = gy * w, two row sums, the input gradient, two products and
column sums for the weight and bias), each also paying CuPy's per-call host work (~10 us;
the transformer workload is host-bound: 13.4 ms of host time against 0.68 ms on the GPU).
Here one thread owns one row of ``n`` values for the row statistics and the input gradient,
and the weight and bias gradients are column sums in two launches (partial sums over chunks
of rows read with consecutive threads on consecutive columns, then the partials in a fixed
order: deterministic).

Sums accumulate in float64 and round once, so the statistics are the correctly rounded
ones up to that final rounding (torch's kernels sum float32 in a tree: both are within an
ulp or two of the exact value). Rows longer than ``_MAX_ROW`` or too few rows to fill the
GPU keep the reduction-based path (a thread looping over a long row is slow).
"""

from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _run

_FLOATS = FLOATS  # dtypes: NumPy's dtype.name is slow
_MAX_ROW = 1024  # values per row for the one-thread-per-row kernels
_MIN_ROWS = 64
_CHUNK = 32  # rows per partial column sum

_FORWARD = """
const ptrdiff_t base = i * n;
double s = 0;
for (ptrdiff_t j = 0; j < n; ++j) s += (double)x[base + j];
const T mean = (T)(s / (double)n);
double s2 = 0;
for (ptrdiff_t j = 0; j < n; ++j) { const double d = (double)(x[base + j] - mean); s2 += d * d; }
const T iv = (T)(1.0 / sqrt(s2 / (double)n + (double)eps));
invstd[i] = iv;
for (ptrdiff_t j = 0; j < n; ++j) {
    const T d = (x[base + j] - mean) * iv;
    data[base + j] = d;
    const T t = d * w[j];
    y[base + j] = has_b ? t + b[j] : t;
}
"""

_GRAD_ROWS = """
const ptrdiff_t base = i * n;
double sh = 0, shx = 0;
for (ptrdiff_t j = 0; j < n; ++j) {
    const T h = gy[base + j] * w[j];
    sh += (double)h;
    shx += (double)h * (double)data[base + j];
}
const T mh = (T)(sh / (double)n), mhx = (T)(shx / (double)n), iv = invstd[i];
for (ptrdiff_t j = 0; j < n; ++j) {
    const T h = gy[base + j] * w[j];
    const T t = (h - mh) - data[base + j] * mhx;
    gx[base + j] = t * iv;
}
"""

# partial column sums: thread i owns column i % n of the chunk i / n of ``chunk`` rows
_GRAD_COLS_PART = """
const ptrdiff_t col = i % n, c = i / n;
const ptrdiff_t r1 = min(rows, (c + 1) * chunk);
double sw = 0, sb = 0;
for (ptrdiff_t r = c * chunk; r < r1; ++r) {
    const T g = gy[r * n + col];
    sb += (double)g;
    sw += (double)g * (double)data[r * n + col];
}
pw[i] = sw;
pb[i] = sb;
"""

_GRAD_COLS = """
double sw = 0, sb = 0;
for (ptrdiff_t c = 0; c < chunks; ++c) { sw += pw[c * n + i]; sb += pb[c * n + i]; }
gw[i] = (T)sw;
gb[i] = (T)sb;
"""


def _make_forward(cp):
    return cp.ElementwiseKernel(
        "raw T x, raw T w, raw T b, T eps, int64 n, int32 has_b", "raw T data, raw T y, raw T invstd",
        _FORWARD, "numtorch_ln_forward", options=_OPTIONS)


def _make_grad_rows(cp):
    return cp.ElementwiseKernel(
        "raw T gy, raw T data, raw T invstd, raw T w, int64 n", "raw T gx", _GRAD_ROWS,
        "numtorch_ln_grad_rows", options=_OPTIONS)


def _make_grad_cols_part(cp):
    return cp.ElementwiseKernel(
        "raw T gy, raw T data, int64 rows, int64 n, int64 chunk",
        "raw float64 pw, raw float64 pb", _GRAD_COLS_PART, "numtorch_ln_grad_cols_part",
        options=_OPTIONS)


def _make_grad_cols(cp):
    return cp.ElementwiseKernel(
        "raw float64 pw, raw float64 pb, int64 chunks, int64 n", "raw T gw, raw T gb",
        _GRAD_COLS, "numtorch_ln_grad_cols", options=_OPTIONS)


def layer_norm_rows_ok(x, n, w, b):
    """Whether the whole-row kernels take layer norm over the trailing ``n`` values of ``x``
    with the elementwise ``w`` (and ``b``): float32/float64, one dtype, contiguous, short
    rows, enough of them."""
    rows = x.size // n if n else 0
    return (ENABLED[0] and x.dtype in _FLOATS and 0 < n <= _MAX_ROW and rows >= _MIN_ROWS
            and x.flags.c_contiguous and all(
                p is None or (p.dtype == x.dtype and p.size == n and p.flags.c_contiguous)
                for p in (w, b)))


def layer_norm_forward(x, w, b, n, eps):
    """``(y, xhat, invstd)`` of layer norm over the trailing ``n`` values of the contiguous
    ``x`` (invstd of shape ``(rows,)``) in one launch, or None when the kernel cannot be
    built (the caller checked ``layer_norm_rows_ok``)."""
    from . import _cupy

    cp = _cupy.cp
    rows = x.size // n
    data, y = cp.empty_like(x), cp.empty_like(x)
    invstd = cp.empty(rows, dtype=x.dtype)
    out = _run("numtorch_ln_forward", _make_forward, x, w, w if b is None else b,
               x.dtype.type(eps), n, int(b is not None), data, y, invstd, size=rows)
    return None if out is None else (y, data, invstd)


def layer_norm_grad_input(gy, data, invstd, w, n):
    """Layer norm's input gradient ``invstd * ((h - mean(h)) - xhat * mean(h * xhat))``,
    ``h = gy * w``, per row of ``n`` values in one launch; None when it cannot be built.
    ``gy`` and ``data`` contiguous of one shape, ``invstd`` one value per row."""
    from . import _cupy

    gx = _cupy.cp.empty_like(gy)
    out = _run("numtorch_ln_grad_rows", _make_grad_rows, gy, data, invstd, w, n, gx,
               size=gy.size // n)
    return None if out is None else gx


def layer_norm_grad_params(gy, data, n, w_shape, b_shape):
    """``(sum over rows of gy * xhat, sum over rows of gy)``, each of ``n`` values shaped
    ``w_shape`` and ``b_shape`` (``b_shape`` None: the second is a work array), in two
    launches (partials over chunks of rows, then their fixed-order sums); None when the
    kernels cannot be built. Allocated in their final shapes: a reshaped view would be copied
    again when the engine stores it as a parameter's ``.grad``."""
    from . import _cupy

    cp = _cupy.cp
    rows = gy.size // n
    chunks = -(-rows // _CHUNK)
    pw, pb = cp.empty(chunks * n, dtype=cp.float64), cp.empty(chunks * n, dtype=cp.float64)
    if _run("numtorch_ln_grad_cols_part", _make_grad_cols_part, gy, data, rows, n, _CHUNK,
            pw, pb, size=chunks * n) is None:
        return None
    gw, gb = cp.empty(w_shape, dtype=gy.dtype), cp.empty(b_shape or n, dtype=gy.dtype)
    if _run("numtorch_ln_grad_cols", _make_grad_cols, pw, pb, chunks, n, gw, gb,
            size=n) is None:
        return None
    return gw, gb
