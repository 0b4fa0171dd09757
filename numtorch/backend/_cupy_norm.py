"""Fused CuPy kernels for batch-style normalisation (``ops/norm_ops.py``) on a GPU.

With xp, batch norm's training forward is 11 kernel launches and its fused backward 11, most
of them over the per-channel statistics (a few hundred values) where each costs only its
launch (~5-10 us of host time), and four of the backward's passes walk the whole activation.
Here the per-channel arithmetic is one kernel each way and each whole-activation chain is one
kernel: 7 launches forward, 4 backward.

Each kernel performs the xp code's operations in its order and, built with ``--fmad=false``
(as ``_cupy_kernels``), rounds each as the xp code does: fused and unfused paths agree bit for
bit. The helpers return None (the caller runs its xp code) for dtypes outside float32/float64
or when a kernel cannot be built here.
"""

from ._cupy_kernels import _OPTIONS, ENABLED, FLOATS, _launch
from ._cupy_kernels import _run as _run_kernel

_FLOATS = FLOATS  # dtypes: NumPy's dtype.name is slow


def _make_invstd(cp):
    return cp.ElementwiseKernel(
        "T s2, T count, T eps", "T var, T invstd",
        "T v = s2 / count; var = v; invstd = (T)1 / sqrt(v + eps);",
        "numtorch_norm_invstd", options=_OPTIONS)


def _make_apply(cp):
    return cp.ElementwiseKernel(
        "T xc, T invstd, T w, T b", "T y",
        "T s = invstd * w; T t = xc * s; y = t + b;", "numtorch_norm_apply",
        options=_OPTIONS)


def _make_grad_stats(cp):
    return cp.ElementwiseKernel(
        "T sum_h, T invstd, T w, T count", "T sum_hx, T kk, T m, T scale",
        "T s = sum_hx * invstd; sum_hx = s; kk = (s / count) * invstd; m = sum_h / count;"
        " scale = invstd * w;", "numtorch_norm_grad_stats", options=_OPTIONS)


def _make_grad_input(cp):
    return cp.ElementwiseKernel(
        "T h, T data, T kk, T m, T scale", "T gx",
        "T t = data * kk; t = h - t; t = t - m; gx = t * scale;", "numtorch_norm_grad_input",
        options=_OPTIONS)


def _run(name, make, *args):
    """The kernel's outputs, or None when it does not apply or cannot be built."""
    first = args[0]
    if not ENABLED[0] or first.dtype not in _FLOATS or any(
            getattr(a, "dtype", first.dtype) != first.dtype for a in args):
        return None
    return _run_kernel(name, make, *args)


def norm_invstd(s2, count, eps):
    """``(var, invstd)`` = ``(s2 / count, 1 / sqrt(var + eps))`` from the per-group sums of
    squared deviations ``s2``; None when the fused kernel does not apply."""
    t = s2.dtype.type
    return _run("numtorch_norm_invstd", _make_invstd, s2, t(count), t(eps))


def norm_apply(xc, invstd, w, b):
    """``xc * (invstd * w) + b`` in one pass (None when the fused kernel does not apply)."""
    return _run("numtorch_norm_apply", _make_apply, xc, invstd, w, b)


def norm_grad(h, data, sum_h, sum_hx, invstd, w, count):
    """The input gradient ``((h - data * kk) - sum_h / count) * (invstd * w)`` of batch-style
    normalisation, ``kk = sum_hx * invstd / count * invstd``, from the output gradient ``h``,
    the centred input ``data`` and the per-group sums ``sum_h``, ``sum_hx`` (the latter scaled
    by ``invstd`` in place, as the weight gradient needs it): two kernels, or None."""
    from . import _cupy

    t = h.dtype.type
    if sum_hx.shape != sum_h.shape:
        return None
    kk, m, scale = (_cupy.cp.empty_like(sum_hx) for _ in range(3))  # allocations, no kernel
    if _run("numtorch_norm_grad_stats", _make_grad_stats, sum_h, invstd, w, t(count), sum_hx,
            kk, m, scale) is None:
        return None
    gx = _run("numtorch_norm_grad_input", _make_grad_input, h, data, kk, m, scale)
    if gx is None:  # sum_hx is scaled already: finish here, with the xp code's passes
        gx = data * kk
        _cupy.cp.subtract(h, gx, out=gx)
        gx -= m
        gx *= scale
    return gx


# -- layer norm: rows of n trailing values, elementwise weight and bias -------------------------
def _make_rows_center(cp):
    return cp.ElementwiseKernel(
        "T x, raw T s, T count, int64 n", "T xc", "xc = x - s[i / n] / count;",
        "numtorch_rows_center", options=_OPTIONS)


def _make_rows_affine(cp):
    return cp.ElementwiseKernel(
        "T xc, raw T s2, T count, T eps, raw T w, raw T b, int64 n, int32 has_b",
        "T data, T y, raw T invstd",
        "const ptrdiff_t row = i / n, col = i % n;"
        " T iv = (T)1 / sqrt(s2[row] / count + eps);"
        " if (col == 0) invstd[row] = iv;"
        " T d = xc * iv; data = d; T t = d * w[col]; y = has_b ? t + b[col] : t;",
        "numtorch_rows_affine", options=_OPTIONS)


def _make_rows_grad(cp):
    return cp.ElementwiseKernel(
        "T h, T data, raw T sum_h, raw T sum_hx, raw T invstd, T count, int64 n", "T gx",
        "const ptrdiff_t row = i / n; T k = sum_hx[row] / count; T t = data * k; t = h - t;"
        " t = t - sum_h[row] / count; gx = t * invstd[row];",
        "numtorch_rows_grad", options=_OPTIONS)


def _rows_ok(x, n, *params):
    return (ENABLED[0] and x.dtype in _FLOATS and x.flags.c_contiguous and n > 0
            and x.size > 0 and all(p is None or (p.dtype == x.dtype and p.size == n and
                                                 p.flags.c_contiguous) for p in params))


def rows_forward(x, w, b, n, eps, row_sums):
    """Layer norm's forward over the trailing ``n`` values of each row of ``x`` with the
    elementwise ``w`` (and ``b``): ``(y, xhat, invstd)``, invstd of shape ``(rows,)``, or
    None when the kernels do not apply. ``row_sums(a, b=None)`` gives the per-row sums (of
    ``a * b``) as the xp code forms them. Four launches (two sums, two kernels) where the xp
    code takes eight, with its roundings: x - sum / n, then ``(xc * invstd) * w + b``."""
    if not _rows_ok(x, n, w, b):
        return None
    t = x.dtype.type
    count = t(n)
    s = row_sums(x)
    xc = _run("numtorch_rows_center", _make_rows_center, x, s, count, n)
    if xc is None:
        return None
    s2 = row_sums(xc, xc)
    from . import _cupy

    invstd = _cupy.cp.empty(x.size // n, dtype=x.dtype)
    data, y = _cupy.cp.empty_like(x), _cupy.cp.empty_like(x)
    out = _run("numtorch_rows_affine", _make_rows_affine, xc, s2, count, t(eps), w,
               w if b is None else b, n, int(b is not None), data, y, invstd)
    return None if out is None else (y, data, invstd)


def rows_grad(h, data, sum_h, sum_hx, invstd, n):
    """Layer norm's input gradient ``invstd * ((h - xhat * (sum_hx / n)) - sum_h / n)`` per
    row of ``n`` values (``h = gy * w``, ``sum_h`` and ``sum_hx`` its per-row sums alone and
    times ``xhat``) in one kernel, with the xp code's roundings; None when it does not
    apply."""
    if not (_rows_ok(h, n) and data.dtype == h.dtype and data.shape == h.shape and
            data.flags.c_contiguous and all(a.size * n == h.size and a.flags.c_contiguous
                                            for a in (sum_h, sum_hx, invstd))):
        return None
    return _run("numtorch_rows_grad", _make_rows_grad, h, data, sum_h, sum_hx, invstd,
                h.dtype.type(n), n)


# -- batch norm's running statistics ---------------------------------------------------------------
def _make_running(cp):
    return cp.ElementwiseKernel(
        "T mean, T var, float64 unbias, float64 keep, float64 take", "T rm, T rv",
        "T a = rm * (T)keep; T b = mean * (T)take; rm = a + b;"
        " T u = var * (T)unbias; T c = rv * (T)keep; T d = u * (T)take; rv = c + d;",
        "numtorch_running_stats", options=_OPTIONS)


def running_update(rm, rv, mean, var, unbias, momentum):
    """``rm = rm (1 - momentum) + mean momentum`` and the same of ``rv`` with ``var unbias``,
    in place, in one launch where the xp code takes seven; False when it does not apply."""
    arrays = (rm, rv, mean, var)
    if not (ENABLED[0] and rm.dtype in _FLOATS and all(
            a.dtype == rm.dtype and a.shape == rm.shape and a.flags.c_contiguous
            for a in arrays)):
        return False
    return _launch("numtorch_running_stats", _make_running, mean, var, float(unbias),
                   1 - momentum, float(momentum), rm, rv)


# -- per-channel sums over a (P, C, L) array: batch norm's statistics and gradient sums ----------
# cupy.einsum parses its subscripts in Python at every call (~250 us of host time on a GPU
# machine, 120 calls in a ResNet-18 step) and reduced (N, C, H*W) over N and H*W through
# transposing copies and a gemv; CuPy's own reduction runs one block per channel (64 blocks
# on a 132-SM GPU). Here two launches: partial sums over chunks of samples, each read with
# consecutive threads on consecutive addresses, then a short fixed-order sum of the partials
# per channel (deterministic: the same launch shape gives the same sums), which can also
# finish batch norm's per-channel arithmetic (mean; var and invstd; the gradient's factors).
# mode: 0 sums a, 1 sums a * b, 2 both (two planes of partials), 3 writes xc = a - mean[c]
# and sums xc * xc (batch norm's centring and its variance's sum in one pass).
# The sums accumulate in double, partials included, and round to T once at the end (a float32
# lane summing a chunk of thousands of values in float32 lost ~1e-5 relative: LeNet's loss
# moved 4.2e-5 from torch's on a GPU); the products of float32 values are exact in double.
# one value's share of the sums (both kernels below): element k of a (and b), centred in mode 3
_TERM = """
const T v = a[k];
if (mode == 3) {
    const T d = v - mc;
    xc[k] = d;
    s2 = s2 + (double)d * (double)d;
} else {
    if (mode != 1) s1 = s1 + (double)v;
    if (mode != 0) s2 = s2 + (double)v * (double)b[k];
}
"""
_SUMS_WARP = """
const ptrdiff_t lane = i & 31, wp = i >> 5;
const ptrdiff_t c = wp / S, s = wp - c * S;
const ptrdiff_t p0 = s * chunk;
const ptrdiff_t p1 = (p0 + chunk < P) ? (ptrdiff_t)(p0 + chunk) : (ptrdiff_t)P;
const ptrdiff_t len = (p1 - p0) * L, CL = C * L;
const ptrdiff_t dp = 32 / L, dl = 32 - dp * L;
ptrdiff_t l = lane % L;
ptrdiff_t k = (p0 + lane / L) * CL + c * L + l;
const ptrdiff_t step = dp * CL + dl, wrap = CL - L;
const T mc = mode == 3 ? mean[c] : (T)0;
double s1 = 0, s2 = 0;
for (ptrdiff_t j = lane; j < len; j += 32) {
""" + _TERM + """    l += dl;
    k += step;
    if (l >= L) { l -= L; k += wrap; }
}
for (int off = 16; off > 0; off >>= 1) {
    s1 = s1 + __shfl_down_sync(0xffffffffu, s1, off);
    s2 = s2 + __shfl_down_sync(0xffffffffu, s2, off);
}
if (lane == 0) {
    part[wp] = (mode == 1 || mode == 3) ? s2 : s1;
    if (mode == 2) part[wp + C * S] = s2;
}
"""

_SUMS_COLS = """
const ptrdiff_t CL = C * L;
const ptrdiff_t s = i / CL, q = i - s * CL;
const ptrdiff_t p0 = s * chunk;
const ptrdiff_t p1 = (p0 + chunk < P) ? (ptrdiff_t)(p0 + chunk) : (ptrdiff_t)P;
const T mc = mode == 3 ? mean[q / L] : (T)0;
double s1 = 0, s2 = 0;
ptrdiff_t k = p0 * CL + q;
for (ptrdiff_t p = p0; p < p1; ++p, k += CL) {
""" + _TERM + """}
part[i] = (mode == 1 || mode == 3) ? s2 : s1;
if (mode == 2) part[i + S * CL] = s2;
"""

# the partials of channel c, plane pl (rows of S x Lf values, strides sS and sC), added in
# order in double (unrolled: the loads issue together, the additions keep their order), the
# total rounded to T once
_ACC = """
double %(out)s_ = 0;
#pragma unroll 4
for (ptrdiff_t s = 0; s < S; ++s) {
    #pragma unroll 4
    for (ptrdiff_t l = 0; l < Lf; ++l) %(out)s_ = %(out)s_ + part[%(base)s + s * sS + l];
}
const T %(out)s = (T)%(out)s_;
"""

_SUMS_FINISH = ("const ptrdiff_t pl = i / C, c = i - pl * C;" +
                _ACC % {"out": "acc", "base": "pl * plane + c * sC"} + "y = acc / div;")

_SUMS_INVSTD = (_ACC % {"out": "acc", "base": "i * sC"} +
                "T v = acc / count; var = v; invstd = (T)1 / sqrt(v + eps);")

# numtorch_norm_grad_stats's arithmetic on the two finished sums
_SUMS_GRAD_STATS = (_ACC % {"out": "sh", "base": "i * sC"} +
                    _ACC % {"out": "shx", "base": "plane + i * sC"} +
                    "sum_h = sh; T t = shx * invstd; sum_hx = t; kk = (t / count) * invstd;"
                    " m = sh / count; scale = invstd * w;")

_SUMS_IN = ("raw T a, raw T b, raw T mean, int32 mode, int64 P, int64 C, int64 L, int64 S, "
            "int64 chunk")
_PARTS = "raw float64 part, int64 S, int64 Lf, int64 sS, int64 sC"


def _make_sums_warp(cp):
    return cp.ElementwiseKernel(_SUMS_IN, "raw float64 part, raw T xc", _SUMS_WARP,
                                "numtorch_sums_warp", options=_OPTIONS)


def _make_sums_cols(cp):
    return cp.ElementwiseKernel(_SUMS_IN, "raw float64 part, raw T xc", _SUMS_COLS,
                                "numtorch_sums_cols", options=_OPTIONS)


def _make_sums_finish(cp):
    return cp.ElementwiseKernel(f"{_PARTS}, int64 C, int64 plane, T div", "T y",
                                _SUMS_FINISH, "numtorch_sums_finish", options=_OPTIONS)


def _make_sums_invstd(cp):
    return cp.ElementwiseKernel(f"{_PARTS}, T count, T eps", "T var, T invstd", _SUMS_INVSTD,
                                "numtorch_sums_invstd", options=_OPTIONS)


def _make_sums_grad_stats(cp):
    return cp.ElementwiseKernel(f"{_PARTS}, int64 plane, T invstd, T w, T count",
                                "T sum_h, T sum_hx, T kk, T m, T scale", _SUMS_GRAD_STATS,
                                "numtorch_sums_grad_stats", options=_OPTIONS)


_WARPS = 8192  # ~62 resident warps per SM on a 132-SM GPU: enough loads in flight
_THREADS = 1 << 17


def _ceil(a, b):
    return -(-a // b)


def _contiguous_like(a, *others):
    return ENABLED[0] and a.dtype in _FLOATS and a.flags.c_contiguous and a.size and all(
        o.dtype == a.dtype and o.shape == a.shape and o.flags.c_contiguous for o in others)


def _partials(a, b, mean, xc, mode, p, c, length):
    """Launch the partial sums of ``a`` viewed (p, c, length): ``(part, (S, Lf, sS, sC,
    plane))`` (the partials' layout for the finishing kernels), or None."""
    from . import _cupy

    if length >= 32:  # a warp per (channel, chunk of samples), lanes along the rows
        s = max(1, min(p, _ceil(_WARPS, c), p * length // 512))
        chunk = _ceil(p, s)
        s = _ceil(p, chunk)
        name, make, size = "numtorch_sums_warp", _make_sums_warp, c * s * 32
        layout = (s, 1, 1, s, c * s)
    else:  # a thread per (chunk of samples, channel, position), threads along the rows
        # at most 64 partials per channel: the finishing kernels add them one thread per
        # channel (a few us of latency each at most)
        s = max(1, min(_ceil(p, 16), _ceil(_THREADS, c * length), 64 // length))
        chunk = _ceil(p, s)
        s = _ceil(p, chunk)
        name, make, size = "numtorch_sums_cols", _make_sums_cols, s * c * length
        layout = (s, length, c * length, length, s * c * length)
    part = _cupy.cp.empty((2 if mode == 2 else 1) * layout[4], dtype=_cupy.cp.float64)
    ok = _launch(name, make, a, a if b is None else b, a if mean is None else mean, mode, p, c,
                 length, s, chunk, part, a if xc is None else xc, size=size)  # (xc: mode 3)
    return (part, layout) if ok else None


def channel_sums(a, b, p, c, length, both=False):
    """Per-channel sums of ``a`` (or of ``a * b``; ``both``: of ``a`` and of ``a * b``, as
    rows of a (2, C) array) for contiguous ``a``, ``b`` viewed as (p, c, length), summed over
    the first and last dims: a ``(c,)`` array, or None when the kernels do not apply."""
    from . import _cupy

    if not (a.size == p * c * length and _contiguous_like(a, *(() if b is None else (b,)))):
        return None
    got = _partials(a, b, None, None, 2 if both else (0 if b is None else 1), p, c, length)
    if got is None:
        return None
    part, layout = got
    y = _cupy.cp.empty((2, c) if both else (c,), dtype=a.dtype)
    ok = _launch("numtorch_sums_finish", _make_sums_finish, part, *layout[:4], c, layout[4],
                 a.dtype.type(1), y)
    return y if ok else None


def bn_center(x, p, c, length, count, eps):
    """Batch norm's statistics over contiguous ``x`` viewed (p, c, length): ``(mean, xc, var,
    invstd)`` (per channel, (c,); ``xc = x - mean`` in x's shape) in four launches where the
    xp code takes eight (sum, divide, subtract, the sum of squares, the invstd kernel), with
    its operations and roundings; None when the kernels do not apply."""
    from . import _cupy

    if not (x.size == p * c * length and _contiguous_like(x)):
        return None
    t = x.dtype.type
    got = _partials(x, None, None, None, 0, p, c, length)
    if got is None:
        return None
    part, layout = got
    mean = _cupy.cp.empty(c, dtype=x.dtype)
    if not _launch("numtorch_sums_finish", _make_sums_finish, part, *layout[:4], c, layout[4],
                   t(count), mean):
        return None
    xc = _cupy.cp.empty_like(x)
    got = _partials(x, None, mean, xc, 3, p, c, length)
    if got is None:
        return None
    part, layout = got
    var, invstd = (_cupy.cp.empty(c, dtype=x.dtype) for _ in range(2))
    if not _launch("numtorch_sums_invstd", _make_sums_invstd, part, *layout[:4], t(count),
                   t(eps), var, invstd):
        return None
    return mean, xc, var, invstd


def bn_grad(h, data, invstd, w, p, c, length, count):
    """Batch norm's input gradient (``numtorch_norm_grad_input`` of the factors
    ``numtorch_norm_grad_stats`` forms) from the output gradient ``h`` and the centred input
    ``data`` viewed (p, c, length), with per-channel ``invstd`` and ``w`` (c values each):
    ``(gx, sum_h, sum_hx)``, sum_hx scaled by invstd, in three launches (one pass reading
    ``h`` and ``data`` for both sums); None when the kernels do not apply."""
    from . import _cupy

    if not (h.size == p * c * length and _contiguous_like(h, data) and all(
            v.size == c and v.dtype == h.dtype and v.flags.c_contiguous for v in (invstd, w))):
        return None
    got = _partials(h, data, None, None, 2, p, c, length)
    if got is None:
        return None
    part, layout = got
    outs = [_cupy.cp.empty(c, dtype=h.dtype) for _ in range(5)]
    if not _launch("numtorch_sums_grad_stats", _make_sums_grad_stats, part, *layout,
                   invstd.reshape(c), w.reshape(c), h.dtype.type(count), *outs):
        return None
    sum_h, sum_hx, kk, m, scale = outs
    per = (1, c, 1)
    gx = _run("numtorch_norm_grad_input", _make_grad_input, h.reshape(p, c, length),
              data.reshape(p, c, length), kk.reshape(per), m.reshape(per), scale.reshape(per))
    return None if gx is None else (gx.reshape(h.shape), sum_h, sum_hx)
