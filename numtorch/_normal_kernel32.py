"""torch's vectorised float32 normal kernel, reproduced bit for bit in NumPy.

torch turns 16 float32 uniforms at a time into normals by Box-Muller in float32 (radii from
``1 - u`` of the first 8, angles ``2 pi u`` from the last 8). Its log, sine and cosine there
are not the C library's: they are Cephes-style single-precision polynomials (the log's on the
mantissa in [sqrt(1/2), sqrt(2)) with the exponent added back in two parts; the sine's and
cosine's after a three-part reduction by pi/4), compiled with fused multiply-adds. Measured
against torch 2.13 (every bit of 10**6 samples over many seeds), the fused steps are the
polynomials' Horner steps, the sine polynomial's final ``* x + x``, the cosine polynomial's
last ``* z - z / 2`` and the log's ``* z + e * q1``; every other step rounds on its own.

A fused step ``a * b + c`` of float32 values is computed in float64, where the product is
exact, then rounded to float32 (the sum rounds twice: a different result needs the float64
sum to land exactly on a float32 midpoint, which the measurement above never met).
"""

import math

import numpy as np

_F = np.float32
_SQRT_HALF = _F(0.707106781186547524)
_LOG_POLY = tuple(_F(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)  # ln 2 = Q2 - Q1, split
_FOUR_OVER_PI = _F(1.27323954473516)
_PI_4_PARTS = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_SIN_POLY = (_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1))
_COS_POLY = (_F(2.443315711809948e-5), _F(-1.388731625493765e-3), _F(4.166664568298827e-2))
_TWO_PI = _F(2 * math.pi)


class _Scratch:
    """float64 working space for fused steps: ``wide`` holds a value exactly, ``narrow`` its
    float32 rounding (casting both ways in place beats a fresh array per step)."""

    def __init__(self, shape):
        self.wide = np.empty(shape, np.float64)
        self.narrow = np.empty(shape, np.float32)

    def round(self):
        """Round ``wide`` to float32 (in ``narrow``, and back into ``wide``: a mixed-type
        multiply next would cast on the fly, slower than this)."""
        np.copyto(self.narrow, self.wide, casting="unsafe")
        np.copyto(self.wide, self.narrow)

    def horner(self, x64, coefs):
        """``((c0 * x + c1) * x + c2) ...`` with each step fused (rounded once to float32);
        ``x64`` is x in float64 (exact). Leaves the result in ``wide`` and ``narrow``."""
        np.multiply(x64, float(coefs[0]), out=self.wide)
        self.wide += float(coefs[1])
        self.round()
        for c in coefs[2:]:
            self.wide *= x64
            self.wide += float(c)
            self.round()
        return self.narrow


def log32(x, scratch=None):
    """Natural log of positive normal float32 ``x`` (torch's vectorised kernel's)."""
    sc = scratch or _Scratch(x.shape)
    bits = x.view(np.int32)
    e = (bits >> 23).astype(np.float32)
    e -= _F(126)
    m = (bits & 0x007FFFFF | 0x3F000000).view(np.float32)  # x = m * 2**e, m in [1/2, 1)
    small = (m < _SQRT_HALF).astype(np.float32)  # below sqrt(1/2): 2m - 1 and e - 1
    e -= small
    f = m - _F(1)
    small *= m  # (arithmetic, not a masked add: the mask is random and branches mispredict)
    f += small
    f64 = f.astype(np.float64)
    z = f * f
    y = sc.horner(f64, _LOG_POLY)
    y *= f
    np.multiply(y, z, out=sc.wide, dtype=np.float64)  # y * z + e * q1, fused
    np.multiply(e, _LOG_Q1, out=y)
    sc.wide += y
    np.copyto(y, sc.wide, casting="unsafe")
    z *= _F(0.5)
    y -= z
    f += y
    e *= _LOG_Q2
    f += e
    return f


def sincos32(x, scratch=None):
    """``(sin x, cos x)`` of non-negative float32 ``x`` (torch's vectorised kernel's)."""
    sc = scratch or _Scratch(x.shape)
    j = (x * _FOUR_OVER_PI).astype(np.int32)
    j += 1
    j &= ~1  # the even octant index at or above x / (pi/4)
    y = j.astype(np.float32)
    r = x.copy()
    t = np.empty_like(r)
    for part in _PI_4_PARTS:  # x - j * pi/4, in three parts, each step rounded
        np.multiply(y, part, out=t)
        r += t
    z = np.multiply(r, r, out=y)
    z64 = z.astype(np.float64)
    cos_p = sc.horner(z64, _COS_POLY).copy()
    cos_p *= z
    np.multiply(cos_p, z64, out=sc.wide)  # cos_p * z - z / 2, fused (z / 2 is exact)
    z64 *= -0.5
    sc.wide += z64
    np.copyto(cos_p, sc.wide, casting="unsafe")
    cos_p += _F(1)
    z64 *= -2.0
    sin_p = sc.horner(z64, _SIN_POLY).copy()
    sin_p *= z
    np.multiply(sin_p, r, out=sc.wide, dtype=np.float64)  # sin_p * r + r, fused
    sc.wide += r
    np.copyto(sin_p, sc.wide, casting="unsafe")
    # the octant picks the polynomial and the sign of each result: done on the bits (a
    # select and sign flips by mask, which beat np.where on random masks several times over)
    sin_b, cos_b = sin_p.view(np.int32), cos_p.view(np.int32)
    swap = j & 2
    swap >>= 1
    np.negative(swap, out=swap)  # all ones where sine and cosine trade polynomials
    diff = sin_b ^ cos_b
    diff &= swap
    sin_b ^= diff
    cos_b ^= diff
    sign = j & 4
    sign <<= 29
    sin_b ^= sign
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    cos_b ^= j
    return sin_p, cos_p


def box_muller_blocks32(values):
    """Turn float32 uniforms into normals in place, 16 at a time, as torch's kernel does."""
    blocks = values.reshape(-1, 2, 8)
    radius = _F(1) - blocks[:, 0]
    scratch = _Scratch(radius.shape)
    radius = log32(radius, scratch)
    radius *= _F(-2)
    np.sqrt(radius, out=radius)
    theta = blocks[:, 1] * _TWO_PI
    sin_v, cos_v = sincos32(theta, scratch)
    np.multiply(radius, cos_v, out=blocks[:, 0])
    np.multiply(radius, sin_v, out=blocks[:, 1])
