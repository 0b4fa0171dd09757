"""Integer GEMM and requantization: the arithmetic of quantized linear and convolution layers.

NumPy has no int8 GEMM, and an integer ``matmul`` in NumPy runs without BLAS (tens of times
slower). But a floating-point GEMM on integer-valued operands is exact as long as every value
it forms is an exactly representable integer:

    Claim. Let ``a`` (M, K) and ``b`` (K, N) hold integers with ``|a| <= A`` and ``|b| <= B``.
    Any summation order computes each partial sum ``s`` of ``K' <= K`` products with
    ``|s| <= K' * A * B <= K * A * B``. If ``K * A * B <= 2**p`` (p = 24 for float32, 53 for
    float64), every product and every partial sum is an integer of magnitude at most 2**p,
    hence representable, so no rounding ever happens (with or without FMA) and the float
    result equals the integer result.

``int_matmul`` uses this: one float32 GEMM when the bound holds for the whole K; otherwise
blocks of K that satisfy it (each block exact in float32, blocks summed in float64, exact below
2**53); float64 when the blocks would be too many; and NumPy's int64 ``matmul`` only beyond
2**53. The operands are zero-point-centred (``q - zp``), so A and B are at most 255 for 8-bit
activations and 128 for symmetric qint8 weights; the bounds use the actual maxima.

Requantization follows torch's x86/fbgemm CPU kernels (``ReQuantizeOutput``): the int32
accumulator is converted to float32, the float bias is added as ``bias / (s_x * s_w)``, the sum
is multiplied by the float32 multiplier ``(s_x * s_w) / s_y`` and rounded half to even before
the output zero point is added and the result clamped (to ``[zp_y, 255]`` when a ReLU is fused).
Dynamic quantization (``ReQuantizeForFloat``) returns ``acc * (s_x * s_w) + bias`` in float32.
"""

import numpy as np

__all__ = ["int_matmul", "requantize", "dequantize_accumulator", "exact_float_dtype",
           "IntWeight"]

_F32_EXACT = 2 ** 24
_F64_EXACT = 2 ** 53
_MAX_BLOCKS = 4  # more float32 blocks than this: one float64 GEMM is faster


def _absmax(x):
    return int(np.abs(x).max()) if x.size else 0


def exact_float_dtype(k, amax, bmax):
    """The float dtype whose GEMM over ``k`` products of integers bounded by ``amax``/``bmax``
    is exact (see the module docstring), or None when even float64 is not."""
    bound = k * amax * bmax
    if bound <= _F32_EXACT:
        return np.float32
    if bound <= _F64_EXACT:
        return np.float64
    return None


def int_matmul(a, b):
    """``a @ b`` for integer-valued arrays (any int or float dtype), exactly.

    Args:
        a: (..., M, K) integers. b: (K, N) integers.

    Returns:
        ndarray: (..., M, N) the exact integer products' sums: float32 when one float32 GEMM
        is exact (then every sum is below 2**24 in magnitude), float64 otherwise.
    """
    k = a.shape[-1]
    amax, bmax = _absmax(a), _absmax(b)
    if k * amax * bmax <= _F32_EXACT:
        return np.matmul(a.astype(np.float32, copy=False), b.astype(np.float32, copy=False))
    per_block = _F32_EXACT // max(amax * bmax, 1)
    blocks = -(-k // per_block)
    if blocks <= _MAX_BLOCKS:
        af, bf = a.astype(np.float32), b.astype(np.float32)
        out = None
        for start in range(0, k, per_block):
            part = np.matmul(af[..., start:start + per_block], bf[start:start + per_block])
            out = part.astype(np.float64) if out is None else out + part
        return out
    if k * amax * bmax <= _F64_EXACT:
        return np.matmul(a.astype(np.float64), b.astype(np.float64))
    return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.float64)


class IntWeight:
    """A centred integer weight ``(K, N)`` kept ready for exact GEMMs (a float32 copy, a
    float64 copy made on first need, and its largest magnitude), so layers that run many
    times convert their weight once.

    The float copies are stored as ``(N, K)`` rows and the product is formed as
    ``(W @ a.T).T``: OpenBLAS runs that layout markedly faster than ``a @ B`` for the short,
    wide activations of linear and recurrent layers (1.2-2x for 16-256 rows, measured on
    x86), and the exactness argument does not depend on the layout.
    """

    __slots__ = ("ints", "f32t", "_f64t", "bmax")

    def __init__(self, centred):
        self.ints = centred
        self.f32t = np.ascontiguousarray(centred.T, dtype=np.float32)
        self._f64t = None
        self.bmax = _absmax(centred)

    @property
    def f64t(self):
        if self._f64t is None:
            self._f64t = np.ascontiguousarray(self.ints.T, dtype=np.float64)
        return self._f64t

    @staticmethod
    def _product(a, wt, start=None, stop=None):
        """``a[..., start:stop] @ wt[:, start:stop].T`` as ``(W @ a.T).T``."""
        k = a.shape[-1]
        rows = a.reshape(-1, k)
        if start is not None:
            rows, wt = rows[:, start:stop], wt[:, start:stop]
        return np.matmul(wt, rows.T).T.reshape(a.shape[:-1] + (wt.shape[0],))

    def matmul(self, a, amax=None):
        """Exact ``a @ weight`` for centred integers ``a`` (..., K) (float32 when one float32
        GEMM is exact, else float64, as :func:`int_matmul`); ``amax``, when given, bounds
        ``|a|`` (saves a pass over ``a``)."""
        k = a.shape[-1]
        amax = _absmax(a) if amax is None else int(amax)
        if k * amax * self.bmax <= _F32_EXACT:
            return self._product(a.astype(np.float32, copy=False), self.f32t)
        per_block = _F32_EXACT // max(amax * self.bmax, 1)
        if -(-k // per_block) <= _MAX_BLOCKS:
            af = a.astype(np.float32, copy=False)
            out = None
            for start in range(0, k, per_block):
                part = self._product(af, self.f32t, start, start + per_block)
                out = part.astype(np.float64) if out is None else out + part
            return out
        if k * amax * self.bmax <= _F64_EXACT:
            return self._product(a.astype(np.float64), self.f64t)
        return int_matmul(a, self.ints)


def _acc_to_f32(acc):
    """The int32 accumulator as float32 (torch converts the int32 sum, wrapping on overflow).
    A float32 accumulator holds exact sums below 2**24: already the value, no wrap possible."""
    if acc.dtype == np.float32:
        return acc
    return acc.astype(np.int64).astype(np.int32).astype(np.float32)


def requantize(acc, bias, x_scale, w_scales, y_scale, y_zero_point, relu=False, out_min=0,
               out_max=255, channel_axis=-1, qnnpack=False):
    """Integers of the output for accumulators ``acc`` (exact sums, float64).

    Args:
        acc: (..., N) accumulators ``sum((x - zp_x) * (w - zp_w))``.
        bias: float32 (N,) or None.
        x_scale (float): input scale. w_scales: float (N,) or (1,) weight scales.
        y_scale (float), y_zero_point (int): the output's parameters.
        relu (bool): clamp at the zero point too (a fused ReLU).
        out_min, out_max (int): the output dtype's range.
        channel_axis (int): the axis of ``acc`` the per-channel values run along.
        qnnpack (bool): qnnpack's form: the bias quantized to int32 (scale ``s_x * s_w``)
            and added to the integer accumulators before the one float32 rescale.
    """
    f32 = np.float32
    scales = np.asarray(w_scales, dtype=np.float64).astype(f32)
    act = f32(x_scale) * scales                       # s_x * s_w in float32
    mult = act / f32(y_scale)
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    if qnnpack and bias is not None:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            bq = np.rint(np.asarray(bias, dtype=f32) * (f32(1) / act))
        bq = np.clip(np.nan_to_num(bq), -2 ** 31, 2 ** 31 - 1).astype(np.int64)
        acc = np.asarray(acc) + bq.reshape(shape)
        bias = None
    raw = _acc_to_f32(acc)
    if bias is not None:
        b = np.asarray(bias, dtype=f32)
        if act.size == 1:  # fbgemm multiplies by the reciprocal for one scale, divides per row
            raw = raw + (b * (f32(1) / act[0])).reshape(shape)
        else:
            raw = raw + (b / act).reshape(shape)
    scaled = raw * (mult.reshape(shape) if mult.size > 1 else mult[0])
    out = np.rint(scaled) + f32(y_zero_point)
    np.clip(out, y_zero_point if relu else out_min, out_max, out=out)
    return out


def dequantize_accumulator(acc, bias, x_scale, w_scales, relu=False, channel_axis=-1,
                           fused=False):
    """Float32 outputs ``acc * (s_x * s_w) + bias`` (dynamic quantization's epilogue);
    ``fused``: the bias added inside one rounding (fbgemm's fused multiply-add)."""
    f32 = np.float32
    scales = np.asarray(w_scales, dtype=np.float64).astype(f32)
    mult = f32(x_scale) * scales
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    m = mult.reshape(shape) if mult.size > 1 else mult[0]
    if bias is None or not fused:
        out = _acc_to_f32(acc) * m
        if bias is not None:
            out = out + np.asarray(bias, dtype=f32).reshape(shape)
    else:  # one rounding of acc * mult + bias, as the fused multiply-add of torch's epilogue
        # (float32 times float32 is exact in float64)
        out = (_acc_to_f32(acc).astype(np.float64) * np.asarray(m, dtype=np.float64) +
               np.asarray(bias, dtype=f32).reshape(shape)).astype(f32)
    if relu:
        np.maximum(out, f32(0), out=out)
    return out
