"""Fused CuPy kernels for the hottest elementwise chains of a GPU training step.

Written with NumPy, Adam's update of one parameter is about a dozen passes over memory and an
LSTM step's gate math about ten; on a GPU each pass is a kernel launch and a round trip
through device memory. Here each chain is one ``cupy.ElementwiseKernel``, compiled the first
time it runs (NVRTC) and cached by CuPy per dtype.

Every kernel has a fallback: the function returns None (the caller then runs its ordinary xp
code) when the inputs are outside what the kernel handles (dtype, layout) or when the kernel
cannot be built on this machine (its compile error is kept in ``FAILED`` and the kernel is not
tried again). ``ENABLED`` turns them all off (tests compare both paths).

Every kernel is built with ``--fmad=false``: NVRTC's default contracts a product feeding an
addition (``m + (g - m) * w``, ``p - s * q``) into one fused multiply-add rounded once, so the
kernel would differ from the xp code (and torch's CPU update) by an ulp on some elements.
Without contraction each operation rounds as the xp code's does, in the same order.
"""

import numpy as np

from .. import backend as _backend

_OPTIONS = ("--fmad=false",)

ENABLED = [True]
FAILED = {}  # kernel name -> the exception that stopped it
_KERNELS = {}
# the dtypes the kernels are written for, compared as dtypes: NumPy's ``dtype.name`` is
# computed in Python (several microseconds a call, on every launch's check)
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_FLOATS = FLOATS


def _kernel(name, make):
    """The kernel ``name`` (built by ``make(cp)`` once), or None if it cannot be built."""
    k = _KERNELS.get(name)
    if k is None and name not in FAILED:
        try:
            from . import _cupy  # (imports this module: looked up late)

            k = _KERNELS[name] = make(_cupy.cp)
        except Exception as e:  # noqa: BLE001  (a compile or driver error: fall back)
            FAILED[name] = e
    return k


_NOT_BUILT = object()


def _attempt(name, make, args, kwargs):
    k = _KERNELS.get(name)
    if k is None:
        k = _kernel(name, make)
        if k is None:
            return _NOT_BUILT
    try:
        return k(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (NVRTC compiles at the first call)
        if type(e).__name__ not in ("CompileException", "NVRTCError"):
            raise
        FAILED[name] = e
        _KERNELS.pop(name, None)
        return _NOT_BUILT


def _launch(name, make, *args, **kwargs):
    """Run kernel ``name`` on ``args``; False (and never again) when it fails to compile."""
    return _attempt(name, make, args, kwargs) is not _NOT_BUILT


def _run(name, make, *args, **kwargs):
    """Kernel ``name``'s result on ``args``; None (and never again) when it fails to compile."""
    out = _attempt(name, make, args, kwargs)
    return None if out is _NOT_BUILT else out


def _usable(*arrays):
    first = arrays[0]
    if not ENABLED[0] or first.dtype not in _FLOATS:
        return False
    contiguous = _backend.DEVICE_C_CONTIGUOUS  # (CuPy's .flags is a new object each time)
    for a in arrays:
        if a.dtype != first.dtype or a.shape != first.shape or not contiguous(a):
            return False
    return True


# -- Adam / AdamW ---------------------------------------------------------------------------------
_ADAM_BODY = """
T g = grad * sgn;
if (wd != 0) {
    if (l2) g = g + (T)wd * p;
    else p = p * (T)(1 - lr * wd);
}
m = m + (g - m) * (T)(1 - beta1);
v = v * (T)beta2 + (T)(1 - beta2) * g * g;
T vv = v;
%s
p = p - (T)step_size * (m / (sqrt(vv) / (T)bc2_sqrt + (T)eps));
"""
_ADAM_IN = ("T grad, float64 lr, float64 wd, float64 eps, float64 beta1, float64 beta2, "
            "T sgn, int32 l2, float64 bc2_sqrt, float64 step_size")


def _make_adam(cp):
    return cp.ElementwiseKernel(_ADAM_IN, "T p, T m, T v", _ADAM_BODY % "",
                                "numtorch_adam_update", options=_OPTIONS)


def _make_amsgrad(cp):
    return cp.ElementwiseKernel(_ADAM_IN, "T p, T m, T v, T vmax",
                                _ADAM_BODY % ("vmax = (vmax != vmax || v <= vmax) ? vmax : v;"
                                              " vv = vmax;"),
                                "numtorch_adam_amsgrad_update", options=_OPTIONS)


def adam_update(p, grad, m, v, vmax, lr, wd, eps, beta1, beta2, negate, l2, bc2_sqrt,
                step_size):
    """Adam's in-place update of parameter ``p`` and its moments ``m``, ``v`` (and ``vmax``
    with amsgrad) in one kernel, with the same formulas as the optimizer's xp code. Returns
    False when the fused path does not apply."""
    arrays = (p, grad, m, v) if vmax is None else (p, grad, m, v, vmax)
    if not _usable(*arrays):
        return False
    sgn = p.dtype.type(-1 if negate else 1)
    args = (grad, float(lr), float(wd), float(eps), float(beta1), float(beta2), sgn, int(l2),
            float(bc2_sqrt), float(step_size), p, m, v)
    if vmax is None:
        return _launch("numtorch_adam_update", _make_adam, *args)
    return _launch("numtorch_adam_amsgrad_update", _make_amsgrad, *args, vmax)


# -- the LSTM cell ----------------------------------------------------------------------------------
_LSTM_BODY = """
const ptrdiff_t row = i / n, col = i % n, base = row * 4 * n + col;
T zi = z[base], zf = z[base + n], zg = z[base + 2 * n], zo = z[base + 3 * n];
ig = 1 / (1 + exp(-zi));
fg = 1 / (1 + exp(-zf));
gg = tanh(zg);
og = 1 / (1 + exp(-zo));
cn = fg * c + ig * gg;
tc = tanh(cn);
h = og * tc;
"""


def _make_lstm(cp):
    return cp.ElementwiseKernel("raw T z, T c, int64 n",
                                "T h, T cn, T ig, T fg, T gg, T og, T tc", _LSTM_BODY,
                                "numtorch_lstm_cell", options=_OPTIONS)


def lstm_cell(z, c):
    """One LSTM step's gate math in one kernel: from pre-activations ``z`` (B, 4H) and cell
    ``c`` (B, H), the tuple ``(h, c', i, f, g, o, tanh(c'))``; None when it does not apply."""
    if not (ENABLED[0] and c.dtype in _FLOATS and z.dtype == c.dtype and z.ndim == 2
            and c.ndim == 2 and z.shape == (c.shape[0], 4 * c.shape[1])
            and z.flags.c_contiguous and c.flags.c_contiguous):
        return None
    k = _kernel("numtorch_lstm_cell", _make_lstm)
    return None if k is None else _run_or_none("numtorch_lstm_cell", k, z, c, c.shape[1])


# -- the exact GELU (approximate='none'): torch's form, x / 2 (1 + erf(x / sqrt 2)) ----------------
def _make_gelu(cp):
    return cp.ElementwiseKernel(
        "T x", "T y, T cdf, T e",
        "T h = (T)1 + erf(x * (T)0.70710678118654752440); y = x * (T)0.5 * h;"
        " cdf = (T)0.5 * h; e = exp((T)-0.5 * x * x);", "numtorch_gelu_erf", options=_OPTIONS)


def _make_gelu_slope(cp):
    return cp.ElementwiseKernel(
        "T x, T e, T cdf, T g", "T d", "d = g * (cdf + x * (e * (T)0.39894228040143267794));",
        "numtorch_gelu_slope", options=_OPTIONS)


def gelu_erf(x):
    """GELU's ``x Phi(x)`` in one kernel, with the ``Phi(x)`` and ``exp(-x^2/2)`` its gradient
    reuses: ``(y, cdf, e)``, or None when the fused path does not apply."""
    if not _usable(x):
        return None
    k = _kernel("numtorch_gelu_erf", _make_gelu)
    return None if k is None else _run_or_none("numtorch_gelu_erf", k, x)


def gelu_slope(x, e, cdf, g):
    """The exact GELU's input gradient ``g (Phi(x) + x phi(x))`` in one kernel (None when the
    fused path does not apply)."""
    if not _usable(x, e, cdf, g):
        return None
    k = _kernel("numtorch_gelu_slope", _make_gelu_slope)
    return None if k is None else _run_or_none("numtorch_gelu_slope", k, x, e, cdf, g)


def _run_or_none(name, k, *args):
    try:
        return k(*args)
    except Exception as e:  # noqa: BLE001
        if type(e).__name__ not in ("CompileException", "NVRTCError"):
            raise
        FAILED[name] = e
        _KERNELS.pop(name, None)
        return None
