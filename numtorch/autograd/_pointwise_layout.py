"""The memory layout torch gives the result of an elementwise op on several tensors.

torch orders the result's dimensions by its operands' strides, and where operands disagree
the earliest operand with an opinion decides (``b + a`` is laid out like ``b``, ``a + b`` like
``a``). NumPy's ufuncs fall back to row-major on any disagreement, so a result of operands in
mixed layouts can come back with other strides than torch's. That shows in ``.stride()``, in
whether a later ``.view`` works, and in the order a later random fill (dropout) walks the
result. ``pointwise_laid_out`` wraps an op's forward to relay such a result.

The rule, as observed in torch: dimensions are ranked innermost first. Two dimensions are
compared operand by operand, skipping an operand that broadcasts along either of them; the
first operand whose strides for the two differ ranks the smaller stride inner. Equal non-zero
strides put the larger dimension outer when it comes first, else leave the question to the
next operand. Dimensions no operand ranks keep row-major order. The ranking is an insertion
pass over row-major order that steps past unranked pairs.
"""

import numpy as np

from .. import backend
from ..backend._meta import MetaArray


def _broadcast_strides(a, shape):
    """``a``'s strides against the result ``shape``, 0 along broadcast dimensions."""
    lead = len(shape) - a.ndim
    out = [0] * lead
    for n, s, size in zip(a.shape, a.strides, shape[lead:]):
        out.append(0 if n == 1 and size != 1 else s)
    return out


def _ranks_outer(shape, operands, d0, d1):
    """1 when ``d0`` (now inner) belongs outside ``d1``, -1 when inside, 0 when no operand
    says."""
    for st in operands:
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return 1 if s0 > s1 else -1
        if shape[d0] > shape[d1]:
            return 1
    return 0


def torch_order(shape, operands):
    """The result's dimensions innermost first, given each operand's broadcast strides."""
    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        moving = i
        for j in range(i - 1, -1, -1):
            c = _ranks_outer(shape, operands, perm[j], perm[moving])
            if c > 0:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif c < 0:
                break
    return perm


def _relaid(out, arrays):
    shape = out.shape
    operands = [_broadcast_strides(a, shape) for a in arrays
                if hasattr(a, "strides") and a.ndim]
    perm = torch_order(shape, operands)
    want = [0] * len(shape)
    step = out.itemsize
    for d in perm:
        want[d] = step
        step *= shape[d]
    if all(w == s or n == 1 for w, s, n in zip(want, out.strides, shape)):
        return out
    xp = backend.xp_of(out)
    outer_first = perm[::-1]
    buf = xp.empty([shape[d] for d in outer_first], out.dtype)
    laid = buf.transpose(np.argsort(outer_first))
    laid[...] = out
    return laid


def pointwise_result(out, arrays):
    """``out``, an elementwise result of ``arrays`` (arrays or Python numbers, in torch's
    operand order), laid out as torch lays it out: the same array when it already is."""
    if not hasattr(out, "ndim") or out.ndim < 2 or out.size < 2 or type(out) is MetaArray:
        return out  # a meta array carries strides its own arithmetic already chose
    first = arrays[0]
    if getattr(first, "shape", None) == out.shape and 0 not in first.strides:
        # the first operand ranks every pair of dimensions itself: its layout is the result's
        if first.flags.c_contiguous:
            return out if out.flags.c_contiguous else backend.xp_of(out).ascontiguousarray(out)
        want = backend.xp_of(out).empty_like(first, dtype=out.dtype)
        if want.strides == out.strides:
            return out
        want[...] = out
        return want
    for a in arrays:
        if hasattr(a, "flags") and a.ndim > 1 and not a.flags.c_contiguous:
            return _relaid(out, arrays)
    return out


def pointwise_laid_out(forward):
    """``forward`` of an elementwise op on several arrays, its array result laid out as torch
    lays it out (see the module docstring). Operands all row-major cost two flag tests: a
    binary op's wrapper names its two arguments, as this runs on every add and mul."""
    if forward.__code__.co_argcount == 3 and not forward.__code__.co_flags & 0x04:
        def laid_out_forward(self, a, b):
            out = forward(self, a, b)
            try:
                if a.flags.c_contiguous and b.flags.c_contiguous:
                    return out
            except AttributeError:  # a Python number beside an array
                pass
            return pointwise_result(out, (a, b))
    else:
        def laid_out_forward(self, *arrays):
            return pointwise_result(forward(self, *arrays), arrays)

    laid_out_forward.__wrapped__ = forward
    laid_out_forward.__doc__ = forward.__doc__
    return laid_out_forward


def device_elementwise_result(out, arrays):
    """``out``, an elementwise op's result on device arrays, laid out as NumPy lays out the same
    result on the host: like its operands (torch's rule, see ``pointwise_result``). CuPy
    allocates the outputs of its ufuncs and kernels row-major whatever the operands' layout
    (``cupy/_core/_kernel.pyx``), so a channels-last or transposed operand would come back
    row-major. Operands all row-major cost a flag test; tuples (frexp) are laid out one by
    one. Ops declare it with ``out_layout = "elementwise"`` (see ``Op``)."""
    for a in arrays:
        # CuPy's read-only contiguity bit (``flags`` builds an object per call); numbers and
        # None (a missing weight) have none
        if not getattr(a, "_c_contiguous", True):
            break
    else:
        return out  # row-major operands: CuPy's row-major result is torch's layout
    if type(out) is tuple:
        return tuple(pointwise_result(o, arrays) for o in out)
    return pointwise_result(out, arrays)
