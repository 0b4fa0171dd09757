"""Accumulation with torch's precision for reductions and scans.

torch adds float16/bfloat16 values in float32 and rounds once at the end; NumPy adds them in
their own precision (``full((4096,), 0.1, float16).sum()`` is 256 there, 409.5 in torch). torch
sums float32 with a cascade (pairwise) scheme along every dim; NumPy sums pairwise only along
the innermost contiguous axis and adds slice after slice along the others, an error growing
with the count (``full((200000, 3), 0.1).sum(0)``: 19959 instead of 20000). torch's scans
(cumsum, cumprod) carry float32 in double. These helpers give NumPy's (or CuPy's) reductions
those properties at about the cost of the plain call.
"""

import numpy as np

from .. import _dtype

# Along an outer axis NumPy adds one slice after another. Runs up to _RUN slices are left to
# it (an error below 1e-4 even for constant data); longer axes are summed as a tree of
# _BRANCH-slice blocks, as torch's cascade sum does.
_RUN = 512
_BRANCH = 16


# a set lookup: comparing a dtype with ``np.float16`` converts the type on every call (two to
# three times the cost), and this runs in the small reductions of every tiny step
_HALF = frozenset(d for d in (np.dtype(np.float16), _dtype._BF16_NP) if d is not None)


def is_half(dt):
    """Whether the NumPy dtype ``dt`` is float16 or bfloat16 (accumulated in float32)."""
    return dt in _HALF


def acc_dtype(dt):
    """torch's accumulation dtype for a reduction of NumPy dtype ``dt``."""
    return np.dtype(np.float32) if is_half(dt) else dt


def fsum(x, axis, keepdims=False, dtype=None):
    """``x.sum(axis, keepdims, dtype)`` without long runs of sequential additions.

    Half-precision inputs are accumulated (and returned) in float32 unless ``dtype`` says
    otherwise; the caller rounds back.

    Args:
        x: a NumPy or CuPy array.
        axis (tuple of int): the axes to reduce (non-negative).
        keepdims (bool): keep the reduced axes with size 1.
        dtype: the accumulation dtype (None: the input's, float32 for half types).
    """
    if dtype is None and is_half(x.dtype):
        dtype = np.float32
    axis = tuple(axis)
    if x.ndim <= 1 or x.dtype.kind not in "fc" or (
            len(axis) == x.ndim and (x.flags.c_contiguous or x.flags.f_contiguous)):
        # one run through memory: NumPy adds it pairwise
        return x.sum(axis=axis, keepdims=keepdims, dtype=dtype)
    shape, strides = x.shape, x.strides
    for a in axis:
        if shape[a] > _RUN:
            break
    else:  # no run long enough to matter
        return x.sum(axis=axis, keepdims=keepdims, dtype=dtype)
    # NumPy's inner loop runs along the axis of smallest stride (pairwise); along any other
    # reduced axis it adds one slice after another
    inner = min((k for k in range(x.ndim) if shape[k] > 1), key=lambda k: abs(strides[k]),
                default=None)
    big = None
    for a in axis:
        if a != inner and shape[a] > _RUN and (big is None or shape[a] > shape[big]):
            big = a
    if big is None:
        return x.sum(axis=axis, keepdims=keepdims, dtype=dtype)
    out = _blocked_sum(x, axis, big, dtype)
    return out if keepdims else out.reshape([n for k, n in enumerate(out.shape)
                                             if k not in axis])


def _blocked_sum(x, axis, a, dtype):
    """The sum over ``axis`` (keeping dims) with the long axis ``a`` added as a tree."""
    partial = _block_level(x, axis, a, dtype)
    while partial.shape[a] > _BRANCH:
        partial = _block_level(partial, (a,), a, None)
    return partial.sum(axis=a, keepdims=True)


def _block_level(x, axis, a, dtype):
    """Sum ``axis`` except ``a``, and blocks of ``_BRANCH`` along ``a`` (keeping dims; axis
    ``a`` shrinks to the number of blocks)."""
    n = x.shape[a]
    m = n - n % _BRANCH
    pre = (slice(None),) * a
    head = x[pre + (slice(0, m),)].reshape(x.shape[:a] + (m // _BRANCH, _BRANCH) +
                                            x.shape[a + 1:])
    inner = tuple(b if b < a else b + 1 for b in axis if b != a) + (a + 1,)
    part = fsum(head, inner, keepdims=True, dtype=dtype)
    part = part.reshape(part.shape[:a + 1] + part.shape[a + 2:])
    if m < n:  # the last, shorter block
        rest = fsum(x[pre + (slice(m, n),)], axis, keepdims=True, dtype=dtype)
        part = _concat(part, rest, a)
    return part


def _concat(a, b, axis):
    from ..backend import xp_of

    return xp_of(a).concatenate((a, b.astype(a.dtype, copy=False)), axis=axis)


def scan_dtype(dt):
    """The dtype torch carries a cumulative sum or product of NumPy dtype ``dt`` in."""
    if is_half(dt) or dt == np.float32:
        return np.dtype(np.float64) if dt == np.float32 else np.dtype(np.float32)
    if dt == np.complex64:
        return np.dtype(np.complex128)
    return None
