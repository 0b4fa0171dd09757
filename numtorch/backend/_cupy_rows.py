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

from .. import backend as _backend
from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _launch

_FLOATS = FLOATS  # dtypes: NumPy's dtype.name is slow
_MAX_ROW = 1024  # values per row for the one-thread-per-row kernels
_MIN_ROWS = 64
_CHUNK = 32  # rows per partial column sum
_BLOCK = 128


def raw_rows_kernel(name, params, body):
    """``{dtype char: (cache key, maker)}`` of the ``RawKernel`` ``name``: thread ``i`` of a
    grid-stride loop over ``count`` runs ``body``, with ``T`` the float type. A raw launch
    passes its argument tuple as it is, where an ``ElementwiseKernel`` analyses every
    argument at each call (~20 us of host time)."""
    source = (f'extern "C" __global__ void {name}({params}, long long count) {{\n'
              "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;"
              " i += (long long)gridDim.x * blockDim.x) {\n" + body + "}\n}\n")

    def maker(ctype):
        return lambda cp: cp.RawKernel(f"typedef {ctype} T;\n{source}", name, options=_OPTIONS)

    return {"f": (name + "_f", maker("float")), "d": (name + "_d", maker("double"))}


def launch_rows(kernels, dtype, count, args):
    """Launch one of ``raw_rows_kernel``'s kernels for ``dtype`` over ``count`` threads;
    False (and never again) when it cannot be built."""
    key, make = kernels[dtype.char]
    grid = (min((count + _BLOCK - 1) // _BLOCK, 1 << 16),)
    return _launch(key, make, grid, (_BLOCK,), args + (count,))

_FORWARD = """
const long long base = i * n;
double s = 0;
for (long long j = 0; j < n; ++j) s += (double)x[base + j];
const T mean = (T)(s / (double)n);
double s2 = 0;
for (long long j = 0; j < n; ++j) { const double d = (double)(x[base + j] - mean); s2 += d * d; }
const T iv = (T)(1.0 / sqrt(s2 / (double)n + (double)eps));
invstd[i] = iv;
for (long long j = 0; j < n; ++j) {
    const T d = (x[base + j] - mean) * iv;
    data[base + j] = d;
    const T t = d * w[j];
    y[base + j] = has_b ? t + b[j] : t;
}
"""

_GRAD_ROWS = """
const long long base = i * n;
double sh = 0, shx = 0;
for (long long j = 0; j < n; ++j) {
    const T h = gy[base + j] * w[j];
    sh += (double)h;
    shx += (double)h * (double)data[base + j];
}
const T mh = (T)(sh / (double)n), mhx = (T)(shx / (double)n), iv = invstd[i];
for (long long j = 0; j < n; ++j) {
    const T h = gy[base + j] * w[j];
    const T t = (h - mh) - data[base + j] * mhx;
    gx[base + j] = t * iv;
}
"""

# partial column sums: thread i owns column i % n of the chunk i / n of ``chunk`` rows
_GRAD_COLS_PART = """
const long long col = i % n, c = i / n;
const long long r1 = min(rows, (c + 1) * chunk);
double sw = 0, sb = 0;
for (long long r = c * chunk; r < r1; ++r) {
    const T g = gy[r * n + col];
    sb += (double)g;
    sw += (double)g * (double)data[r * n + col];
}
pw[i] = sw;
pb[i] = sb;
"""

_GRAD_COLS = """
double sw = 0, sb = 0;
for (long long c = 0; c < chunks; ++c) { sw += pw[c * n + i]; sb += pb[c * n + i]; }
gw[i] = (T)sw;
gb[i] = (T)sb;
"""


_FORWARD_K = raw_rows_kernel(
    "numtorch_ln_forward", "const T* x, const T* w, const T* b, double eps, long long n, "
    "bool has_b, T* data, T* y, T* invstd", _FORWARD)
_GRAD_ROWS_K = raw_rows_kernel(
    "numtorch_ln_grad_rows", "const T* gy, const T* data, const T* invstd, const T* w, "
    "long long n, T* gx", _GRAD_ROWS)
_GRAD_COLS_PART_K = raw_rows_kernel(
    "numtorch_ln_grad_cols_part", "const T* gy, const T* data, long long rows, long long n, "
    "long long chunk, double* pw, double* pb", _GRAD_COLS_PART)
_GRAD_COLS_K = raw_rows_kernel(
    "numtorch_ln_grad_cols", "const double* pw, const double* pb, long long chunks, "
    "long long n, T* gw, T* gb", _GRAD_COLS)


def layer_norm_rows_ok(x, n, w, b):
    """Whether the whole-row kernels take layer norm over the trailing ``n`` values of ``x``
    with the elementwise ``w`` (and ``b``): float32/float64, one dtype, contiguous, short
    rows, enough of them."""
    rows = x.size // n if n else 0
    contiguous = _backend.DEVICE_C_CONTIGUOUS  # (CuPy's .flags is a new object each time)
    if not (ENABLED[0] and x.dtype in _FLOATS and 0 < n <= _MAX_ROW and rows >= _MIN_ROWS
            and contiguous(x)):
        return False
    for p in (w, b):
        if p is not None and not (p.dtype == x.dtype and p.size == n and contiguous(p)):
            return False
    return True


def layer_norm_forward(x, w, b, n, eps):
    """``(y, xhat, invstd)`` of layer norm over the trailing ``n`` values of the contiguous
    ``x`` (invstd of shape ``(rows,)``) in one launch, or None when the kernel cannot be
    built (the caller checked ``layer_norm_rows_ok``)."""
    from . import _cupy

    cp = _cupy.cp
    rows = x.size // n
    data, y = cp.empty_like(x), cp.empty_like(x)
    invstd = cp.empty(rows, dtype=x.dtype)
    if not launch_rows(_FORWARD_K, x.dtype, rows, (x, w, w if b is None else b, float(eps), n,
                                                   b is not None, data, y, invstd)):
        return None
    return y, data, invstd


def layer_norm_grad_input(gy, data, invstd, w, n):
    """Layer norm's input gradient ``invstd * ((h - mean(h)) - xhat * mean(h * xhat))``,
    ``h = gy * w``, per row of ``n`` values in one launch; None when it cannot be built.
    ``gy`` and ``data`` contiguous of one shape, ``invstd`` one value per row."""
    from . import _cupy

    gx = _cupy.cp.empty_like(gy)
    if not launch_rows(_GRAD_ROWS_K, gy.dtype, gy.size // n, (gy, data, invstd, w, n, gx)):
        return None
    return gx


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
    if not launch_rows(_GRAD_COLS_PART_K, gy.dtype, chunks * n,
                       (gy, data, rows, n, _CHUNK, pw, pb)):
        return None
    gw, gb = cp.empty(w_shape, dtype=gy.dtype), cp.empty(b_shape or n, dtype=gy.dtype)
    if not launch_rows(_GRAD_COLS_K, gy.dtype, n, (pw, pb, chunks, n, gw, gb)):
        return None
    return gw, gb
