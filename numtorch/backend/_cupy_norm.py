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

from ._cupy_kernels import ENABLED, FAILED, _kernel, _OPTIONS

_FLOATS = ("float32", "float64")


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
    if not ENABLED[0] or first.dtype.name not in _FLOATS or any(
            getattr(a, "dtype", first.dtype) != first.dtype for a in args):
        return None
    k = _kernel(name, make)
    if k is None:
        return None
    try:
        return k(*args)
    except Exception as e:  # noqa: BLE001  (NVRTC compiles at the first call)
        if type(e).__name__ not in ("CompileException", "NVRTCError"):
            raise
        FAILED[name] = e
        return None


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
