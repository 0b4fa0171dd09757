"""Smooth activation primitives: sigmoid, logsigmoid, softplus, SiLU, Mish and GELU.

The split from ``activation.py`` (selection, base classes, piecewise-linear ops, ELU) is by
concept only; the reasons these are primitives are given there: one fused forward and one
fused backward op each for speed, and forms that never overflow for large ``|x|``.
"""

import contextlib
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .._threads import single_blas_thread
from ..backend import _cpu_features, _gelu_erf_f32, helpers_for, is_device_array
from ..backend._fma import _half_scalar_mask
from . import _gelu_bf16_device, _intraop
from ._activation_base import _Pointwise, _select, select
from ._intraop import run_split
from ._norm2_order import memory_order
from ._pointwise import _check_tensor, _out
from .unary import exp, tanh

__all__ = ["gelu", "logsigmoid", "mish", "sigmoid", "silu", "softplus"]

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715  # the cubic coefficient of the tanh approximation of GELU
# torch's float16 GELU (found by experiment over every float16 value) computes, in float32,
# x * 0.5 * (1 + erf(x / sqrt 2)) with erf from Abramowitz & Stegun 7.1.26 (five terms, an
# absolute error near 1.5e-7): erf(z) = 1 - t (a1 + t (a2 + ...)) exp(-z^2), t = 1 / (1 + p z).
# Its 1 + erf cancels for negative x, so its float16 results differ from the exact values;
# numtorch's float16 GELU uses the same formula, in the same order, to give the same values.
_AS_P = 0.3275911
_AS_COEF = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)  # a5 .. a1
_F16 = np.dtype(np.float16)
_BF16 = np.dtype(_dtype.bfloat16.np) if _dtype._BF16_AVAILABLE else None


# ---------------------------------------------------------------------------------------------
# sigmoid family


def _one_plus_exp_neg(xp, x):
    """1 + exp(-x), exp rounded as torch's CPU kernel rounds it for small float32 arrays
    (``backend/_libm_f32.py``)."""
    e = xp.negative(x)
    helpers_for(xp).float32_rounded(xp.exp, e, out=e)
    e += x.dtype.type(1)
    return e


def _sigmoid_array(xp, x):
    """1 / (1 + exp(-x)); exp overflows to inf for very negative x, giving the exact limit 0
    (torch's float32 values; NumPy's overflow report is silenced by ``numtorch._fp_errors``)."""
    e = _one_plus_exp_neg(xp, x)
    if e.dtype.kind == "f":  # NumPy's divide is vectorised, its reciprocal not: 2x, same bits
        xp.divide(e.dtype.type(1), e, out=e)
    else:
        xp.reciprocal(e, out=e)
    return e


def _softplus_array(xp, x):
    """log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)): exact in both tails, no overflow."""
    t = xp.abs(x)
    xp.negative(t, out=t)
    xp.exp(t, out=t)
    xp.log1p(t, out=t)
    t += xp.maximum(x, x.dtype.type(0))
    return t


class Sigmoid(_Pointwise):
    """y = 1 / (1 + exp(-x)); dy/dx = y (1 - y)."""

    promote = "float"
    _saves = "output"

    def kernel(self, xp, x):
        return _sigmoid_array(xp, x)

    def backward(self, grad):
        y = self.saved_output()
        if y.dtype.is_complex:  # composed, so its own backward follows the conjugate rules
            return grad * (y * (1 - y)).conj()
        return SigmoidBackward.apply(y, grad)


class SigmoidBackward(_Pointwise):
    """g_x = g * y * (1 - y) for real y; d/dy = g (1 - 2y), d/dg = y (1 - y)."""

    def kernel(self, xp, y, g):
        if getattr(self, "low_dtype", None) == _F16:
            # torch's float16 kernel rounds after each step (found by experiment):
            # ((1 - y) * g) * y with a float16 rounding after the first two
            d = (1 - y).astype(_F16).astype(y.dtype)
            d *= g
            d = d.astype(_F16).astype(y.dtype)
            d *= y
            return d
        d = 1 - y
        d *= y
        d *= g
        return d

    def backward(self, gg):
        y, g = self.saved_inputs()
        return gg * g * (1 - 2 * y), SigmoidBackward.apply(y, gg)


class LogSigmoid(_Pointwise):
    """y = log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)); dy/dx = sigmoid(-x)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def kernel(self, xp, x):
        t = xp.abs(x)
        xp.negative(t, out=t)
        # exp and log1p rounded as torch's CPU kernels round them (small float32 arrays)
        h = helpers_for(xp)
        h.float32_rounded(xp.exp, t, out=t)
        h.float32_rounded(xp.log1p, t, out=t)
        return xp.subtract(xp.minimum(x, x.dtype.type(0)), t, out=t)

    def backward(self, grad):
        return LogSigmoidBackward.apply(self.saved_inputs(), grad)


class LogSigmoidBackward(_Pointwise):
    """g_x = g * sigmoid(-x), as z / (1 + z) (x >= 0) or 1 - z / (1 + z) (x < 0) with
    z = exp(-|x|); d/dg = sigmoid(-x), d/dx = -g s (1 - s) with s = sigmoid(-x).

    Why a primitive (numerics): torch's half-precision kernel rounds z to the input's dtype
    and the rest once, in float32 (found by experiment: bit-identical on float16 and
    bfloat16); one fused pass instead of neg, sigmoid and mul otherwise.
    """

    def kernel(self, xp, x, g):
        z = xp.abs(x)
        xp.negative(z, out=z)
        xp.exp(z, out=z)
        low = getattr(self, "low_dtype", None)
        if low is not None:
            z = z.astype(low).astype(x.dtype)
        s = z + x.dtype.type(1)
        xp.divide(z, s, out=s)
        neg = x < 0
        if xp is np:
            xp.subtract(x.dtype.type(1), s, out=s, where=neg)
        else:  # CuPy's ufuncs take no where=
            s = xp.where(neg, x.dtype.type(1) - s, s)
        s *= g
        return s

    def backward(self, gg):
        x, g = self.saved_inputs()
        s = sigmoid(-x)
        return -(gg * g * s * (1 - s)), LogSigmoidBackward.apply(x, gg)


class Softplus(_Pointwise):
    """y = log(1 + exp(beta x)) / beta, or x where beta x > threshold;
    dy/dx = sigmoid(beta x), or 1 where beta x > threshold."""

    def kernel(self, xp, x):
        bx = x * self.beta if self.beta != 1 else x
        y = _softplus_array(xp, bx)
        if self.beta != 1:
            with np.errstate(divide="ignore", invalid="ignore"):  # beta == 0 gives inf
                y /= self.beta
        return _select(xp, bx > self.threshold, x, y, x.dtype)

    def backward(self, grad):
        return SoftplusBackward.apply(self.saved_inputs(), grad, beta=self.beta,
                                      threshold=self.threshold)


class SoftplusBackward(_Pointwise):
    """g_x = g * sigmoid(beta x) (g where beta x > threshold); d/dg = that slope,
    d/dx = g * beta * s (1 - s) with s = sigmoid(beta x) where beta x < threshold."""

    def kernel(self, xp, x, g):
        bx = x * self.beta if self.beta != 1 else x
        s = _sigmoid_array(xp, bx)
        s *= g
        return _select(xp, bx > self.threshold, g, s, g.dtype)

    def backward(self, gg):
        x, g = self.saved_inputs()
        bx = x * self.beta
        s = sigmoid(bx)
        # torch's second derivative is already 0 at beta x == threshold (its first is not)
        gx = select(bx >= self.threshold, 0.0, gg * g * (s * (1 - s) * self.beta))
        return gx, SoftplusBackward.apply(x, gg, beta=self.beta, threshold=self.threshold)


class Silu(_Pointwise):
    """y = x * sigmoid(x); dy/dx = s (1 + x (1 - s)) with s = sigmoid(x)."""

    def kernel(self, xp, x):
        # x / (1 + exp(-x)) as torch computes it (x * sigmoid(x) rounds twice: ~30% of float32
        # values an ulp off)
        d = _one_plus_exp_neg(xp, x)
        y = x / d
        if d.dtype.kind == "f":
            xp.divide(d.dtype.type(1), d, out=d)
        else:
            xp.reciprocal(d, out=d)
        self.save(s=d)  # backward reuses sigmoid(x): recomputing costs another exp pass
        return y

    def backward(self, grad):
        return SiluBackward.apply(self.saved_inputs(), grad, s=self.saved("s"))


class SiluBackward(_Pointwise):
    """g_x = g s (1 + x (1 - s)); d/dg = s (1 + x (1 - s)),
    d/dx = g s (1 - s) (2 + x (1 - 2 s))."""

    s = None
    _forward_values = ("s",)

    def kernel(self, xp, x, g):
        s = self.s if self.s is not None else _sigmoid_array(xp, x)
        s = s.reshape(x.shape)
        d = 1 - s
        d *= x
        d += 1
        d *= s
        d *= g
        return d

    def backward(self, gg):
        x, g = self.saved_inputs()
        s = sigmoid(x)
        gx = gg * g * s * (1 - s) * (2 + x * (1 - 2 * s))
        return gx, SiluBackward.apply(x, gg)


class Mish(_Pointwise):
    """y = x * tanh(softplus(x)); dy/dx = t + x s (1 - t^2), t = tanh(softplus(x)),
    s = sigmoid(x)."""

    def kernel(self, xp, x):
        t = _softplus_array(xp, x)
        xp.tanh(t, out=t)
        return x * t

    def backward(self, grad):
        return MishBackward.apply(self.saved_inputs(), grad)


class MishBackward(_Pointwise):
    """g_x = g (t + x s (1 - t^2)); d/dx = g s (1 - t^2) (2 + x (1 - s) - 2 x s t)."""

    def kernel(self, xp, x, g):
        t = _softplus_array(xp, x)
        xp.tanh(t, out=t)
        d = t * t
        xp.subtract(1, d, out=d)
        d *= _sigmoid_array(xp, x)
        d *= x
        d += t
        d *= g
        return d

    def backward(self, gg):
        x, g = self.saved_inputs()
        t = tanh(Softplus.apply(x, beta=1, threshold=20))
        s = sigmoid(x)
        gx = gg * g * s * (1 - t * t) * (2 + x * (1 - s) - 2 * x * s * t)
        return gx, MishBackward.apply(x, gg)


# ---------------------------------------------------------------------------------------------
# GELU


def _normal_cdf_pdf(xp, x, y=None):
    """Phi(x) and exp(-x^2 / 2) (the unnormalised density, sharing one exp pass); with ``y``
    (an output buffer shaped like ``x``, float16/32 only) also GELU's x Phi(x) into it.

    Large contiguous CPU arrays are split across the intra-op threads (``_intraop``).
    """
    dt = x.dtype
    if dt == np.float64:
        cdf = xp.empty_like(x)
        e = xp.empty_like(x)
        _cdf_pdf_part(xp, x, cdf, e, y)
        return cdf, e
    cdf = xp.empty_like(x)
    e = xp.empty_like(x)
    if x.flags.c_contiguous and not is_device_array(x):
        fx, fc, fe = x.reshape(-1), cdf.reshape(-1), e.reshape(-1)
        fy = None if y is None else y.reshape(-1)

        def part(lo, hi):
            # blocks of _BLOCK values: the passes then reuse the cache instead of memory
            for a in range(lo, hi, _BLOCK):
                z = min(hi, a + _BLOCK)
                _cdf_pdf_part(xp, fx[a:z], fc[a:z], fe[a:z], None if fy is None else fy[a:z])

        _split(part, x.size, _GELU_PASSES)
    else:
        _cdf_pdf_part(xp, x, cdf, e, y)
    return cdf, e


def _in_memory_order(x, *like):
    """``x`` and the arrays ``like`` (each None or made by ``empty_like(x)``: the same
    strides) as C-contiguous views, axes permuted into memory order, when ``x`` is a dense
    block in some axis order (row-major, channels-last, a transpose); None otherwise. The
    row kernels then run on ConvNeXt's channels-last activations too (general strided passes:
    2.5 ms against 0.9 for an 8x160x16x16 GELU)."""
    if x.flags.c_contiguous:
        # row-major (the usual case): x and the empty_like arrays are the views already (the
        # sort below costs a small GELU a third of its time)
        return (x,) + like
    xv, perm = memory_order(x)
    views = (xv,) + tuple(None if a is None else a.transpose(perm) for a in like)
    return views if all(v is None or v.flags.c_contiguous for v in views) else None


_BLOCK = 1 << 18
# The forward's erf makes each value worth a few copies' time: ``_intraop`` splits from
# about a quarter of its usual size (nanoGPT's (768, 512) hidden layer, not only 4M)
_GELU_PASSES = 4


_ONE_THREAD_ANYWAY = 4096
_NO_SWITCH = contextlib.nullcontext()


def _gelu_erf_rows(x, y, slope, onednn=False):
    """Exact GELU of a contiguous float32 CPU array into ``y``, and (``slope`` not None) its
    slope Phi(x) + x phi(x) into ``slope``, block by block in cache-sized scratch (no
    full-size temporaries): erf from ``_gelu_erf_f32`` (same bits as ``_cdf_pdf_part``), the
    slope formed while the block is in the cache, so the backward is one product.
    ``onednn``: torch's oneDNN kernel runs this input (``_onednn_f32``), which has its own
    tails (``_gelu_erf_tail``)."""
    fx, fy = x.reshape(-1), y.reshape(-1)
    fs = None if slope is None else slope.reshape(-1)
    f = np.float32

    def part(lo, hi):
        s = _gelu_erf_f32.Scratch(min(_gelu_erf_f32.BLOCK, hi - lo), half=False)
        # (a small block's 2x4 @ 4xn GEMM runs on one thread anyway: no switch, ~5 us)
        with single_blas_thread() if hi - lo > _ONE_THREAD_ANYWAY else _NO_SWITCH:
            for a in range(lo, hi, _gelu_erf_f32.BLOCK):
                z = min(hi, a + _gelu_erf_f32.BLOCK)
                xs, ys = fx[a:z], fy[a:z]
                t, _, u = _gelu_erf_f32.erf_half_block(xs, s, xc=ys)  # x / 2 into y
                t += f(1)
                tail = s.tail if onednn else None  # |x| >= 5.54 (rare): erf is +-1 there
                if fs is None:  # torch's (x / 2) (1 + erf)
                    ys *= t
                    if tail is not None:
                        _gelu_erf_tail(xs, ys, None, tail)
                    continue
                t *= f(0.5)  # Phi; x Phi has the bits of (x / 2) (1 + erf): halving is exact
                np.multiply(xs, t, out=ys)
                d = fs[a:z]  # torch's order: Phi + x (phi), phi = exp(-x^2/2) / sqrt(2 pi)
                np.multiply(u, f(-2), out=d)  # -x^2 / 2 (u = x^2 / 4)
                np.exp(d, out=d)
                d *= f(_INV_SQRT_2PI)
                d *= xs
                d += t
                if tail is not None:
                    _gelu_erf_tail(xs, ys, d, tail)

    _split(part, x.size, _GELU_PASSES)


def _onednn_f32(x):
    """Whether torch runs the exact GELU (and its backward) of this float32 CPU array through
    oneDNN: a contiguous input (size-1 axes aside) of two or more values. Its other kernel
    gives GELU(inf) = inf and Phi + x phi as the slope in the tails. Plain host arrays only
    (a meta tensor's stand-in array has no values to take tails of)."""
    return type(x) is np.ndarray and x.size > 1 and x.flags.c_contiguous


def _f32_tail(x):
    """The mask of ``_gelu_erf_f32``'s tail (erf = +-1) for a float32 host array of any
    layout, or None when no value is there (two reductions, no temporary, in the usual case)."""
    f = np.float32
    if x.size == 0 or max(np.fmax.reduce(x, axis=None), -np.fmin.reduce(x, axis=None)) < f(5.54):
        return None
    u = x * f(0.5)
    u *= u
    m = u >= _gelu_erf_f32._U_TAIL
    return m if m.any() else None


def _gelu_erf_tail(x, y, slope, tail, g=None):
    """torch's float32 GELU where erf(x / sqrt 2) is +-1 (``tail``: a mask of ``x``):
    GELU(+-inf) is NaN (of sign -+), and the slope is (1 + (erf + x sqrt(2/pi) e^(-x^2/2))) / 2,
    which is exactly 0 once x sqrt(2/pi) e^(-x^2/2) is below half an ulp of -1 (x <= -6.15;
    Phi + x phi gave -7.7e-22 at -10)."""
    f = np.float32
    xm = x[tail]
    # torch forms x (1 + erf) before halving: inf past half the float32 maximum
    big = xm > f(np.finfo(np.float32).max / 2)
    inf = np.isinf(xm)
    if big.any() or inf.any():
        ym = y[tail]
        ym[big] = f(np.inf)
        ym[inf] = np.copysign(f(np.nan), -xm[inf])
        y[tail] = ym
    if slope is not None:
        v = xm * xm
        v *= f(-0.5)
        np.exp(v, out=v)
        v *= f(2 * _INV_SQRT_2PI)
        v *= xm
        v += np.sign(xm)  # erf
        v += f(1)
        v *= f(0.5)
        if g is not None:  # the slope times the gradient
            v *= g[tail]
        slope[tail] = v


def _gelu_tanh_rows(x, y, slope):
    """The tanh-form GELU of a contiguous CPU float array into ``y`` and (not None) its slope
    into ``slope``, block by block with block-sized scratch (as ``_gelu_erf_rows``); the
    operations and their order are ``Gelu.kernel``'s and ``GeluBackward.kernel``'s."""
    dt = x.dtype
    fx, fy = x.reshape(-1), y.reshape(-1)
    fs = None if slope is None else slope.reshape(-1)

    def part(lo, hi):
        t = np.empty(min(_BLOCK, hi - lo), dtype=dt)
        w = np.empty_like(t) if fs is not None else None
        for a in range(lo, hi, _BLOCK):
            z = min(hi, a + _BLOCK)
            xs, ys, ts = fx[a:z], fy[a:z], t[:z - a]
            np.multiply(xs, xs, out=ts)
            ts *= dt.type(_SQRT_2_OVER_PI * _GELU_CUBIC)
            ts += dt.type(_SQRT_2_OVER_PI)
            ts *= xs
            np.tanh(ts, out=ts)
            np.add(ts, dt.type(1), out=ys)
            ys *= xs
            ys *= dt.type(0.5)
            if fs is not None:  # slope = (1 + t) / 2 + (1 - t^2) x k (1 + 3 c x^2) / 2
                ws, d = w[:z - a], fs[a:z]
                np.multiply(xs, xs, out=ws)
                ws *= dt.type(1.5 * _GELU_CUBIC * _SQRT_2_OVER_PI)
                ws += dt.type(0.5 * _SQRT_2_OVER_PI)
                ws *= xs
                np.multiply(ts, ts, out=d)
                np.subtract(dt.type(1), d, out=d)
                d *= ws
                ts += dt.type(1)
                ts *= dt.type(0.5)
                d += ts

    _split(part, x.size, _GELU_PASSES)


def _slope_times(slope, g):
    """``slope * g``, the GELU backward's one pass when the forward kept its slope: in parts
    on the intra-op threads for a large contiguous float pair (``_intraop.binary``; nanoGPT's
    (12, 64, 512) is 393K values, ~170 us of a single core in the training step), else one
    call. Elementwise, so the same bits either way."""
    out = _intraop.binary(np.multiply, slope, g) if type(g) is np.ndarray else None
    return np.multiply(slope, g) if out is None else out


def _split(kernel, n, unit):
    """``run_split`` while two cores are free (``_intraop._cores_taken``: the user's thread
    count, or the load-aware cap of ``numtorch._threads``), else the whole range here."""
    if _intraop.parts(n, unit) == 1 or _intraop._cores_taken():
        kernel(0, n)  # (parts first: a small array needs no query of the BLAS threads)
    else:
        run_split(kernel, n, unit)


def _cdf_pdf_part(xp, x, cdf, e, y):
    """Phi(x) into ``cdf``, exp(-x^2/2) into ``e`` and GELU's x Phi(x) into ``y`` (if not
    None), in torch's form and dtype: y = (x / 2) (1 + erf(x / sqrt 2)), Phi = (1 + erf) / 2,
    with erf correctly rounded to the dtype (SciPy's). torch's 1 + erf cancels for negative
    x, so its values there are multiples of erf's ulp; an accurate Phi printed other digits
    (torch's oneDNN kernel for contiguous float32 rounds similarly, with its own erf)."""
    dt = x.dtype
    xp.multiply(x, x, out=e)
    e *= dt.type(-0.5)
    xp.exp(e, out=e)
    if xp is np and dt == np.float32:
        cdf[...] = _gelu_erf_f32.erf_half(x)  # the bits of ``_gelu_erf_rows``
    else:
        xp.multiply(x, dt.type(_SQRT_HALF), out=cdf)
        cdf[...] = helpers_for(xp).erf(cdf)
    cdf += dt.type(1)
    if y is not None:
        xp.multiply(x, dt.type(0.5), out=y)
        y *= cdf
    cdf *= dt.type(0.5)


def _erf_as(xp, x):
    """erf(x / sqrt 2) by the five-term form above, in float32, in the order that reproduces
    torch's half-precision values (``x`` float32)."""
    f = np.float32
    z = x * f(_SQRT_HALF)
    az = xp.abs(z)
    t = az * f(_AS_P)
    t += f(1)
    xp.divide(f(1), t, out=t)
    p = xp.full_like(t, f(_AS_COEF[0]))
    for c in _AS_COEF[1:]:
        p *= t
        p += f(c)
    p *= t
    xp.multiply(az, az, out=az)
    xp.negative(az, out=az)
    xp.exp(az, out=az)
    p *= az
    r = xp.subtract(f(1), p, out=p)  # erf(|z|)
    return xp.where(z < 0, -r, r)


def _normal_cdf_pdf_f16(xp, x, y=None):
    """``_normal_cdf_pdf`` for inputs that were float16 or bfloat16 (``x`` is their float32
    copy), with torch's rounding: Phi(x) = (1 + erf(x / sqrt 2)) / 2, erf by ``_erf_as``."""
    f = np.float32
    cdf = _erf_as(xp, x)
    cdf += f(1)
    cdf *= f(0.5)
    e = x * x
    e *= f(-0.5)
    xp.exp(e, out=e)
    if y is not None:
        xp.multiply(x, cdf, out=y)  # x (1 + erf) / 2: the halving is exact
    return cdf, e


def _gelu_scalar_tail(x, y):
    """torch's 16-bit GELU leaves the last n % 32 values of each inner loop (all of a strided
    one) to its scalar form, x / 2 (1 + erf(x / sqrt 2)) with the library's erf rather than
    the vector polynomial (found by experiment); ``x`` is the float32 copy of the input."""
    mask = _half_scalar_mask(x.shape, x, x)
    if mask is None:
        return
    try:
        from .._quiet_import import import_module

        erf = import_module("scipy.special").erf
    except ImportError:  # pragma: no cover - SciPy is optional: the vector form stays
        return
    f = np.float32
    xs = x[mask]
    y[mask] = xs * f(0.5) * (f(1) + erf(xs.astype(np.float64) * math.sqrt(0.5)).astype(f))


def _onednn_bf16(op):
    """Whether torch runs this bfloat16 GELU through oneDNN: for a dense input of two or more
    values on a CPU with AVX-512 (BW, VL, DQ), torch's condition for oneDNN's bfloat16
    kernels. oneDNN orders the arithmetic its own way and its float32 -> bfloat16 conversion
    flushes subnormal results to zero (found by experiment over every bfloat16 value)."""
    if getattr(op, "low_dtype", None) != _BF16 or not getattr(op, "low_dense", False):
        return False
    return _cpu_features.has("AVX512BW", "AVX512VL", "AVX512DQ")


def _flush_subnormals(xp, y):
    """Signed zero in place of ``y``'s float32 subnormals (NaN and inf kept)."""
    y *= xp.abs(y) >= np.float32(np.finfo(np.float32).tiny)
    return y


def _gelu_onednn_bf16(xp, x, g=None):
    """GELU (``g`` None) or its input gradient for a bfloat16 input in torch's oneDNN order:
    y = x (1 + erf) / 2 with x (1 + erf) formed first (it overflows to inf near the float32
    maximum, as torch's does); slope = (1 + (erf + x sqrt(2/pi) exp(-x^2/2))) / 2."""
    f = np.float32
    erf = _erf_as(xp, x)
    if g is None:
        erf += f(1)
        erf *= x
    else:
        e = x * x
        e *= f(-0.5)
        xp.exp(e, out=e)
        e *= f(2 * _INV_SQRT_2PI)
        e *= x
        erf += e
        erf += f(1)
    erf *= f(0.5)
    if g is not None:
        erf *= g
    elif xp is np:
        inf = np.isinf(x)  # oneDNN: GELU(+-inf) is NaN of the other sign (as float32's)
        if inf.any():
            erf[inf] = np.copysign(f(np.nan), -x[inf])
    return _flush_subnormals(xp, erf)


def _gelu_slope(xp, x, e, cdf, g, onednn_tails=True):
    """g * (Phi(x) + x phi(x)): the exact GELU's input gradient, split like the forward;
    ``onednn_tails``: a float32 input's own, which torch's oneDNN kernel may run."""
    dt = g.dtype
    e, cdf = e.reshape(x.shape), cdf.reshape(x.shape)
    if xp is not np:
        d = helpers_for(xp).gelu_slope(x, e, cdf, g)  # a GPU: one kernel
        if d is not None:
            return d
    d = xp.empty_like(g)

    def part_of(xs, es, cs, gs, ds):
        xp.multiply(es, dt.type(_INV_SQRT_2PI), out=ds)
        ds *= xs
        ds += cs
        ds *= gs

    if dt != np.float64 and d.flags.c_contiguous and not is_device_array(g) and all(
            a.flags.c_contiguous and a.dtype == dt for a in (x, e, cdf, g)):
        flat = [a.reshape(-1) for a in (x, e, cdf, g, d)]
        # four passes: split from 2 * _intraop._MIN_PART / 4 values (64K by default)
        _split(lambda lo, hi: part_of(*[a[lo:hi] for a in flat]), d.size, 4)
    else:
        part_of(x, e, cdf, g, d)
    if onednn_tails and dt == np.float32 and xp is np and x.shape == d.shape and \
            _onednn_f32(x):
        tail = _f32_tail(x)  # the rows kernel's tail values (torch's oneDNN kernel's)
        if tail is not None:
            _gelu_erf_tail(x, d, d, tail, g=np.broadcast_to(g, d.shape))
    return d


def _tanh_inner_half(xp, x):
    """tanh(k (x + c x^3)) in torch's order for half-precision inputs (float32 ``x``)."""
    dt = x.dtype
    inner = x * x
    inner *= x
    inner *= dt.type(_GELU_CUBIC)
    inner += x
    inner *= dt.type(_SQRT_2_OVER_PI)
    # tanh in float64, rounded once: torch's float32 tanh is nearly always the correctly
    # rounded value (NumPy's float32 tanh is an ulp off on a third of values, which shows
    # after 1 + tanh cancels for negative x)
    return xp.tanh(inner.astype(np.float64)).astype(dt)


def _tanh_slope_half(xp, x, g, t=None):
    """g * d/dx of the tanh-form GELU in torch's order for half-precision inputs:
    (1 + t) / 2 + (x / 2) (1 - t^2) k (1 + 3 c x^2)."""
    dt = x.dtype
    t = _tanh_inner_half(xp, x) if t is None else t.reshape(x.shape)
    d = t * t
    xp.subtract(dt.type(1), d, out=d)
    d *= x * dt.type(0.5)
    k = x * x
    k *= dt.type(3 * _GELU_CUBIC)
    k += dt.type(1)
    k *= dt.type(_SQRT_2_OVER_PI)
    d *= k
    h = t + dt.type(1)
    h *= dt.type(0.5)
    h += d
    h *= g
    return h


class Gelu(_Pointwise):
    """y = x Phi(x) (approximate='none') or x (1 + tanh(k (x + c x^3))) / 2 ('tanh');
    dy/dx = Phi(x) + x phi(x), resp. the derivative of the tanh form."""

    def forward(self, x):
        y = super().forward(x)
        if y.dtype == _BF16 and is_device_array(y) and not (
                self.approximate == "none" and _onednn_bf16(self)):
            # a GPU flushes float32 subnormals (oneDNN's results flush them too)
            y = _gelu_bf16_device.tiny_forward(self.xp, x, y)
        return y

    def kernel(self, xp, x):
        dt = x.dtype
        if self.approximate == "tanh":
            if getattr(self, "low_dtype", None) is not None:
                t = _tanh_inner_half(xp, x)
                self.save(t=t)
                y = t + dt.type(1)
                y *= x * dt.type(0.5)
                return y
            if xp is np and dt.kind == "f":
                y = np.empty_like(x)
                slope = np.empty_like(x) if self._recording else None
                views = _in_memory_order(x, y, slope)
                if views is not None:
                    _gelu_tanh_rows(*views)
                    self.save(t=None, slope=slope)
                    return y
            inner = x * x
            inner *= dt.type(_SQRT_2_OVER_PI * _GELU_CUBIC)
            inner += dt.type(_SQRT_2_OVER_PI)
            inner *= x
            t = xp.tanh(inner, out=inner)
            self.save(t=t)
            y = t + dt.type(1)
            y *= x
            y *= dt.type(0.5)
            return y
        if xp is not np and getattr(self, "low_dtype", None) is None:
            fused = helpers_for(xp).gelu_erf(x)  # a GPU: one kernel (None: not applicable)
            if fused is not None:
                self.save(cdf=fused[1], e=fused[2])
                return fused[0]
        if _onednn_bf16(self):
            self.save(cdf=None, e=None)  # the backward recomputes erf in its own order
            return _gelu_onednn_bf16(xp, x)
        # (a broadcast input's result is row-major, as torch's: empty_like would keep its
        # zero strides' odd order)
        y = xp.empty_like(x) if 0 not in x.strides else xp.empty(x.shape, x.dtype)
        half = getattr(self, "low_dtype", None) is not None
        views = None
        if not half and dt == np.float32 and xp is np:
            slope = np.empty_like(x) if self._recording else None
            views = _in_memory_order(x, y, slope)
        if views is not None:
            _gelu_erf_rows(*views, onednn=_onednn_f32(x))
            self.save(cdf=None, e=None, slope=slope)
            return y
        cdf, e = (_normal_cdf_pdf_f16 if half else _normal_cdf_pdf)(xp, x, y)
        if half and xp is np and x.size <= 32768:
            _gelu_scalar_tail(x, y)
        self.save(cdf=cdf, e=e)
        return y

    def backward(self, grad):
        x = self.saved_inputs()
        if self.approximate == "tanh":
            extra = self._check_saved().get("extra", {})
            return GeluBackward.apply(x, grad, approximate="tanh", t=extra.get("t"),
                                      slope=extra.get("slope"))
        extra = self._check_saved().get("extra", {})
        return GeluBackward.apply(x, grad, approximate="none", cdf=extra.get("cdf"),
                                  e=extra.get("e"), slope=extra.get("slope"))


class GeluBackward(_Pointwise):
    """g_x = g (Phi(x) + x phi(x)) (or the tanh form's slope); d/dg = that slope,
    d/dx = g phi(x) (2 - x^2) (or the tanh form's second derivative)."""

    # values the forward pass already computed, when it ran with a graph (slope: the exact
    # GELU's Phi(x) + x phi(x), for float32 on the CPU)
    t = cdf = e = slope = None
    _forward_values = ("t", "cdf", "e", "slope")

    def forward(self, x, g):
        d = super().forward(x, g)
        if d.dtype == _BF16 and is_device_array(d) and self.approximate == "none" and \
                not _onednn_bf16(self):  # a GPU flushes the float32 subnormal exp(-x^2/2)
            d = _gelu_bf16_device.far_left_slope(self.xp, x, g, d, np.float32(_INV_SQRT_2PI))
        return d

    def kernel(self, xp, x, g):
        dt = g.dtype
        if self.approximate == "tanh":
            if getattr(self, "low_dtype", None) is not None:
                return _tanh_slope_half(xp, x, g, self.t)
            if self.slope is not None and self.slope.dtype == dt:
                return _slope_times(self.slope.reshape(g.shape), g)  # the bits of the below
            x2 = x * x
            t = self.t
            if t is None:
                t = x2 * dt.type(_SQRT_2_OVER_PI * _GELU_CUBIC)
                t += dt.type(_SQRT_2_OVER_PI)
                t *= x
                xp.tanh(t, out=t)
            t = t.reshape(x.shape)
            # slope = (1 + t) / 2 + (1 - t^2) w with w = x k (1 + 3 c x^2) / 2
            x2 *= dt.type(1.5 * _GELU_CUBIC * _SQRT_2_OVER_PI)
            x2 += dt.type(0.5 * _SQRT_2_OVER_PI)
            x2 *= x
            d = t * t
            xp.subtract(dt.type(1), d, out=d)
            d *= x2
            h = t + dt.type(1)
            h *= dt.type(0.5)
            d += h
            d *= g
            return d
        if _onednn_bf16(self):
            return _gelu_onednn_bf16(xp, x, g)
        if self.slope is not None and self.slope.dtype == dt:
            return _slope_times(self.slope.reshape(g.shape), g)  # the same bits as below
        cdf, e = self.cdf, self.e
        half = getattr(self, "low_dtype", None) is not None
        if cdf is None:
            cdf, e = (_normal_cdf_pdf_f16 if half else _normal_cdf_pdf)(xp, x)
        # (a 16-bit input computed in float32 keeps the plain slope: torch's half kernels
        # have no oneDNN tails)
        return _gelu_slope(xp, x, e, cdf, g, onednn_tails=not half)

    def backward(self, gg):
        x, g = self.saved_inputs()
        if self.approximate == "tanh":
            k, c = _SQRT_2_OVER_PI, _GELU_CUBIC
            x2 = x * x
            t = tanh((x + x2 * x * c) * k)
            u1 = (1 + x2 * (3 * c)) * k  # d inner / dx
            sech2 = 1 - t * t
            curve = sech2 * u1 + 0.5 * x * sech2 * (6 * c * k * x - 2 * t * u1 * u1)
        else:
            curve = exp(x * x * -0.5) * (2 - x * x) * _INV_SQRT_2PI
        return gg * g * curve, GeluBackward.apply(x, gg, approximate=self.approximate)


def softplus(input, beta, threshold):
    """Return ``log(1 + exp(beta * input)) / beta`` (``input`` past the threshold)."""
    return Softplus.apply(input, beta=beta, threshold=threshold)


def logsigmoid(input):
    """Return ``log(sigmoid(input))`` without overflow or underflow to -inf."""
    return LogSigmoid.apply(input)


def sigmoid(input, *, out=None):
    """Return the logistic function ``1 / (1 + exp(-input))`` (integers give floats).

    Args:
        input (Tensor): the input.
        out (Tensor, optional): tensor to write the result into.
    """
    if not isinstance(input, Tensor):
        _check_tensor("sigmoid", input)
    elif out is None and input._array.__class__ is not np.ndarray and input.is_quantized:
        from .._quantized_ops_float import quantized_dispatch  # torch's quantized sigmoid

        return quantized_dispatch("sigmoid", input)
    return _out(Sigmoid.apply(input), out, "sigmoid", over=(input,))


def silu(input):
    """Return ``input * sigmoid(input)``."""
    return Silu.apply(input)


def mish(input):
    """Return ``input * tanh(softplus(input))``."""
    return Mish.apply(input)


def gelu(input, approximate="none"):
    """Return ``input * Phi(input)`` (or its tanh approximation)."""
    return Gelu.apply(input, approximate=approximate)
