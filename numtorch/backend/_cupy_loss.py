"""Fused CuPy kernels for cross-entropy with class-index targets (``ops/loss_device.py``).

Written with xp, ``F.cross_entropy``'s forward and backward are about 33 kernel launches on a
GPU (every training step of every classifier), most of them over a few hundred per-row or
0-d values where each costs only its launch (~5-10 us of host time). Here the per-row work
(the target's pick, class weights, ignored targets, the row loss) is one kernel, the 'mean'
division and its backward factor one kernel, and the whole input gradient one kernel.

Each kernel performs the xp code's operations in its order and, built with ``--fmad=false``
(as ``_cupy_kernels``), rounds each as the xp code does: the fused and unfused paths agree
bit for bit. A target index is wrapped into range as CuPy's fancy indexing wraps it. The
helpers return None (the caller runs its xp code) for dtypes or layouts outside what the
kernels take, or when a kernel cannot be built here.
"""

import numpy as np

from ._cupy_kernels import ENABLED, FLOATS, _OPTIONS, _run as _call

_FLOATS = FLOATS  # dtypes: NumPy's dtype.name is slow
_WRAP = "ptrdiff_t k = t; k %= C; if (k < 0) k += C;"


def _make_exp(cp):
    return cp.ElementwiseKernel(
        "T x, raw T m, int64 C", "T e", "T d = x - m[i / C]; e = exp(d);", "numtorch_ce_exp",
        options=_OPTIONS)


def _make_rows(cp):
    return cp.ElementwiseKernel(
        "raw T x, raw T m, T s, int64 t, raw T w, int64 C, int64 ignore, int32 has_w",
        "T loss, T wt, int64 ts",
        "const bool valid = t != ignore; ts = valid ? t : 0;"
        f" {_WRAP.replace('= t;', '= ts;')}"
        " T v = valid ? (has_w ? w[k] : (T)1) : (T)0; wt = v;"
        " T p = x[i * C + k] - m[i]; T l = log(s) * v; T q = p * v; loss = l - q;",
        "numtorch_ce_rows", options=_OPTIONS)


def _make_mean(cp):
    return cp.ElementwiseKernel(
        "T total, T denom", "T out, T factor",
        "factor = denom != 0 ? (T)1 / denom : (T)1; out = total / denom;",
        "numtorch_loss_mean", options=_OPTIONS)


def _make_grad(cp):
    return cp.ElementwiseKernel(
        "T e, raw T g, raw T f, raw T s, raw T a, raw T b, raw int64 ts, int64 C, int32 g_rows,"
        " int32 has_f", "T dx",
        "const ptrdiff_t row = i / C, col = i % C; T sc = g[g_rows ? row : 0];"
        " if (has_f) sc = sc * f[0]; T q = sc * a[row]; q = q / s[row]; T o = e * q;"
        " const ptrdiff_t t = ts[row]; " + _WRAP +
        " if (col == k) { T r = sc * b[row]; o = o - r; } dx = o;",
        "numtorch_ce_grad", options=_OPTIONS)


def ce_applies(x, t, weight):
    """Whether the fused kernels take cross-entropy of scores ``x`` (N, C), targets ``t``
    (N,) and the optional class ``weight`` (C,)."""
    return (ENABLED[0] and x.dtype in _FLOATS and x.ndim == 2 and x.shape[0] > 0
            and x.shape[1] > 0 and x.flags.c_contiguous and t.ndim == 1
            and t.dtype == np.int64 and t.shape[0] == x.shape[0]
            and (weight is None or (weight.dtype == x.dtype and weight.shape == x.shape[1:]
                                    and weight.flags.c_contiguous)))


def ce_exp(x, m):
    """``exp(x - m)`` with ``m`` (N, 1) the row maxima, in one pass (None if not built)."""
    return _call("numtorch_ce_exp", _make_exp, x, m, x.shape[1])


def ce_rows(x, m, s, t, weight, ignore_index):
    """Per row: ``(loss, wt, t_safe)`` with ``wt`` the target's weight (0 when ignored),
    ``loss = log(s) wt - (x[t] - m) wt`` and ``t_safe`` the target (0 when ignored); None if
    the kernel cannot be built."""
    w = x if weight is None else weight
    return _call("numtorch_ce_rows", _make_rows, x, m, s, t, w, x.shape[1], int(ignore_index),
                 int(weight is not None))


def loss_mean(total, denom):
    """``(total / denom, factor)``, ``factor`` = 1 / denom (1 when denom is 0), for 0-d
    device arrays, in one launch (None if not built)."""
    return _call("numtorch_loss_mean", _make_mean, total, denom)


def ce_grad(e, g, factor, s, a, b, t_safe):
    """The input gradient ``sc (a e / s) - sc b onehot(t)`` per row, ``sc = g factor``, of
    cross-entropy (``e`` the exponentiated shifted scores, ``s`` their row sums) in one
    launch; None when it does not apply."""
    if not (ENABLED[0] and e.flags.c_contiguous and g.dtype == e.dtype and g.ndim <= 1
            and g.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous
            and (factor is None or (factor.dtype == e.dtype and factor.ndim == 0))):
        return None
    f = g if factor is None else factor
    return _call("numtorch_ce_grad", _make_grad, e, g, f, s, a, b, t_safe, e.shape[1],
                 int(g.ndim == 1), int(factor is not None))
