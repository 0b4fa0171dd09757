"""Layer norm's weight and bias gradients for a half-precision input (bfloat16 or float16)
with float32 parameters, the mix CPU autocast produces, summed over rows as torch does.

Measured against torch 2.13 (tests/test_gap_s38_layernorm_half.py): torch splits the rows
into min(threads, rows) contiguous chunks of ceil(rows / chunks) rows, accumulates each
chunk's float32 terms (gy * xhat and gy) row after row in a buffer of the input's half type
(a rounding after every addition), then adds the chunks' buffers in float32 in order. The
chunk count follows the intra-op thread count, so numtorch uses its own (``set_num_threads``).
The row loop is inherent (each step rounds what the previous one produced); it runs over
ceil(rows / chunks) steps of (chunks, n) arrays.
"""

import numpy as np

from .._threads import get_num_threads


def half_row_sums(v, half):
    """Sum the float32 rows of ``v`` (rows, n) as torch's half layer-norm backward does,
    with chunk buffers of the NumPy dtype ``half``; returns float32 (n,)."""
    rows, n = v.shape
    tasks = max(1, min(get_num_threads(), rows))
    chunk = -(-rows // tasks) if rows else 0
    parts = -(-rows // chunk) if rows else 0
    acc = np.zeros((parts, n), dtype=half)
    if rows:
        if parts * chunk != rows:  # zero rows at the end: adding +0 leaves a buffer as it is
            v = np.concatenate([v, np.zeros((parts * chunk - rows, n), np.float32)])
        v3 = v.reshape(parts, chunk, n)
        for i in range(chunk):
            np.add(acc, v3[:, i], out=acc, casting="unsafe")  # float32 add, then one rounding
    out = np.zeros(n, dtype=np.float32)
    for p in acc:
        out += p.astype(np.float32)
    return out


def weight_bias_grads(gy, data, centered, mean, invstd, n, half, w_shape, b_shape, outs):
    """{"w": ..., "b": ...} for the names in ``outs``, from the float32 output gradient and
    NormalizeAffine's saved values (``data`` xhat, x - mean when ``centered``, or x with the
    row ``mean``)."""
    rows = gy.size // n if n else 0
    g2 = gy.reshape(rows, n)
    got = {}
    if "b" in outs:
        got["b"] = half_row_sums(g2, half).reshape(b_shape)
    if "w" in outs:
        xh = data.reshape(rows, n)
        if mean is not None:
            xh = xh - mean.reshape(rows, 1)
        if centered:
            xh = xh * invstd.reshape(rows, 1)
        got["w"] = half_row_sums(g2 * xh, half).reshape(w_shape)
    return got
