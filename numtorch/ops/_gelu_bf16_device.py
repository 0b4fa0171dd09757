"""bfloat16 GELU values that a GPU's float32 arithmetic would lose to flush-to-zero.

bfloat16 has float32's exponent range, so torch's bfloat16 GELU (float32 math, one rounding)
produces and reads float32 subnormals: x / 2 for |x| < 2^-125, and exp(-x^2 / 2) in the
gradient for x < -13.2. CuPy compiles every kernel with ``-ftz=true``, which reads and writes
those as zeros. These helpers recompute the affected elements without float32 arithmetic: in
float64 with float32's rounding emulated (subnormal grid included) and the bfloat16 result
assembled from its bits. They run on device arrays only; the CPU keeps its subnormals.
"""

import numpy as np

_F32_MIN_NORMAL = 2.0 ** -126
_F32_QUANTUM = 2.0 ** -149  # float32's subnormal step
_BF16_QUANTUM = 2.0 ** -133  # bfloat16's subnormal step
_SIGN = np.uint16(0x8000)


def tiny_forward(xp, x, y):
    """``y`` (the bfloat16 GELU of bfloat16 ``x``, either form) with torch's values where
    |x| < 2^-125: Phi(x) rounds to 1/2 there in torch's float32 math, so the result is x / 2.
    The magnitude bits of such an ``x`` count units of 2^-133, and the result's are half of
    them, rounded to even."""
    bits = x.view(np.uint16)
    mag = bits & np.uint16(0x7FFF)
    half = (mag >> 1) + (mag & (mag >> 1) & 1)
    out = xp.where(mag < 0x100, (bits & _SIGN) | half, y.view(np.uint16))
    return out.astype(np.uint16, copy=False).view(y.dtype)


def _round_f32(xp, v):
    """float64 ``v`` rounded to float32's grid, subnormals included (kept in float64)."""
    small = xp.abs(v) < _F32_MIN_NORMAL
    return xp.where(small, xp.rint(v / _F32_QUANTUM) * _F32_QUANTUM,
                    v.astype(np.float32).astype(np.float64))


def _to_bf16_bits(xp, v):
    """The bfloat16 bits of float64 ``v`` (on float32's grid): a subnormal result from its
    count of 2^-133 units, a normal one through float32."""
    mag = xp.rint(xp.minimum(xp.abs(v) / _BF16_QUANTUM, 256.0)).astype(np.uint16)
    sub = xp.where(xp.signbit(v), _SIGN, np.uint16(0)) | mag
    from .._dtype import bfloat16

    normal = v.astype(np.float32).astype(bfloat16.np).view(np.uint16)
    return xp.where(xp.abs(v) < _F32_MIN_NORMAL, sub, normal)


def far_left_slope(xp, x, g, d, inv_sqrt_2pi):
    """``d`` (the exact GELU's bfloat16 input gradient for bfloat16 ``x``, ``g``) with torch's
    values where x < -13: Phi(x) is 0 there and the slope is x exp(-x^2/2) / sqrt(2 pi), with
    exp(-x^2/2) a float32 subnormal; computed in torch's order, each step rounded to float32
    (``inv_sqrt_2pi`` is the float32 constant the CPU path multiplies by)."""
    x64 = x.astype(np.float64)
    e = _round_f32(xp, xp.exp(x64 * x64 * -0.5))  # x * x and the halving are exact
    s = _round_f32(xp, _round_f32(xp, x64 * e) * float(inv_sqrt_2pi))
    r = _round_f32(xp, s * g.astype(np.float64))
    out = xp.where(x64 < -13, _to_bf16_bits(xp, r), d.view(np.uint16))
    return out.astype(np.uint16, copy=False).view(d.dtype)
