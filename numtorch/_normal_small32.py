"""torch's float32 normal kernel for a few blocks of 16 (``randn(32)`` in a training loop).

The same arithmetic as ``_normal_kernel32`` (same roundings, same fused steps, so the same
bits), arranged for arrays so small that each NumPy call's fixed cost is the whole cost:

- the log's, cosine's and sine's polynomials run as one stacked Horner scheme on a
  (3, blocks, 8) array (the two short polynomials padded with leading zero coefficients:
  ``0 * x + 0`` is 0 and ``0 * x + c`` is c, exactly, so the padded steps change nothing);
  their last multiply and their fused finishing steps are stacked the same way;
- every constant operand is a full array of the operands' shape, made once per block count
  (a scalar or a broadcast operand costs NumPy two to three times an equal-shape one);
- the octant's choice and signs of sine and cosine become one gather from the four rows
  ``cos, sin, -cos, -sin``; ``frexp`` gives the log's mantissa and exponent in one call.
"""

import numpy as np

from ._normal_kernel32 import (
    _COS_POLY,
    _FOUR_OVER_PI,
    _LOG_POLY,
    _LOG_Q1,
    _LOG_Q2,
    _PI_4_PARTS,
    _SIN_POLY,
    _SQRT_HALF,
    _TWO_PI,
)

MAX_BLOCKS = 64  # above this the in-place kernel of ``_normal_kernel32`` is faster
_F32, _F64, _I32 = np.float32, np.float64, np.int32
# the gather rows per octant pair q = (j >> 1) & 3, from the rows cos, sin, -cos, -sin
_COS_ROW = np.array([0, 3, 2, 1])
_SIN_ROW = np.array([1, 0, 3, 2])


class _Constants:
    """Every constant operand of the kernel as a full array for ``blocks`` blocks of 16."""

    def __init__(self, blocks):
        shape = (blocks, 8)
        m = blocks * 8

        def full(value, dtype=_F32):
            return np.full(shape, value, dtype)

        self.one = full(1)
        self.sqrt_half = full(_SQRT_HALF)
        self.two_pi = full(_TWO_PI)
        self.four_over_pi = full(_FOUR_OVER_PI)
        self.one_i = full(1, _I32)
        self.even_i = full(~1, _I32)
        self.pi_4 = tuple(full(p) for p in _PI_4_PARTS)
        self.half = full(0.5)
        self.minus_half = full(-0.5)
        self.minus_two = full(-2)
        self.q1 = full(_LOG_Q1)
        self.q2 = full(_LOG_Q2)
        rows = (_LOG_POLY, (0,) * 6 + _COS_POLY, (0,) * 6 + _SIN_POLY)
        self.coefs = [np.stack([np.full(shape, float(r[k]), _F64) for r in rows])
                      for k in range(len(_LOG_POLY))]
        # the flat index into the rows (r cos, r sin, -r cos, -r sin) of each output,
        # (cosine's, sine's) by octant pair, plus the column b * 8 + i
        pairs = np.arange(9) // 2 % 4  # j -> (j / 2) % 4 for the even j (odd ones unused)
        self.row_table = np.stack([_COS_ROW[pairs], _SIN_ROW[pairs]]) * m  # (2, 9)
        self.columns = np.broadcast_to(np.arange(m).reshape(blocks, 8), (2, blocks, 8)).copy()


_CONSTANTS = {}


def box_muller_small32(values):
    """Turn ``values`` (float32 uniforms, 16 * b of them, b <= ``MAX_BLOCKS``) into normals
    in place, bit for bit as ``_normal_kernel32.box_muller_blocks32`` does."""
    blocks = values.reshape(-1, 2, 8)
    nb = blocks.shape[0]
    k = _CONSTANTS.get(nb)
    if k is None:
        k = _CONSTANTS[nb] = _Constants(nb)
    halves = blocks.transpose(1, 0, 2).copy()  # (2, b, 8): radii's uniforms, angles'
    # log(1 - u) of the first 8 of each block: x = m * 2**e with m in [1/2, 1)
    mant, expo = np.frexp(k.one - halves[0])
    small = (mant < k.sqrt_half).astype(_F32)  # below sqrt(1/2): 2m - 1 and e - 1, exact
    e = expo.astype(_F32)
    e -= small
    f = mant - k.one
    small *= mant
    f += small
    zlog = f * f
    # sin and cos of 2 pi u of the last 8: j the even octant index at or above theta / (pi/4)
    theta = halves[1] * k.two_pi
    j = (theta * k.four_over_pi).astype(_I32)
    j += k.one_i
    j &= k.even_i
    y = j.astype(_F32)
    r = theta + y * k.pi_4[0]  # theta - j * pi/4 in three parts, each step rounded
    r += y * k.pi_4[1]
    r += y * k.pi_4[2]
    z = r * r
    # every stacked operand in one array (one concatenation, one widening): the polynomials'
    # argument (rows log(f), cos(z), sin(z)), then the multiplier and the addend of their
    # fused finishing steps y * zlog + e * q1, cos_p * z - z / 2, sin_p * r + r
    operands = np.concatenate((f, z, z, zlog, z, r, e * k.q1, z * k.minus_half, r))
    operands = operands.reshape(3, 3 * nb, 8)
    wide_operands = operands.astype(_F64)
    x32 = operands[0].reshape(3, nb, 8)
    x64 = wide_operands[0].reshape(3, nb, 8)
    coefs = k.coefs
    acc = (x64 * coefs[0] + coefs[1]).astype(_F32)
    for c in coefs[2:]:
        wide = acc.astype(_F64)
        wide *= x64
        wide += c
        acc = wide.astype(_F32)
    acc *= x32
    wide = acc.astype(_F64).reshape(3 * nb, 8)
    wide *= wide_operands[1]
    wide += wide_operands[2]
    acc = wide.astype(_F32)
    log = acc[:nb]
    log -= zlog * k.half
    log += f
    log += e * k.q2
    radius = np.sqrt(log * k.minus_two)
    trig = acc[nb:]  # rows cos, sin
    trig[:nb] += k.one
    rows = np.concatenate((trig, -trig)).ravel()  # cos, sin, -cos, -sin
    index = k.row_table.take(j, axis=1)  # by the octant index j (even, 0 to 8)
    index += k.columns
    np.multiply(rows.take(index).transpose(1, 0, 2), radius.reshape(nb, 1, 8), out=blocks)
