"""The memory layout torch gives the result of an elementwise op on several tensors.

torch orders the result's dimensions by its operands' strides, and where operands disagree
the earliest operand with an opinion decides (``b + a`` is laid out like ``b``, ``a + b`` like
``a``). NumPy's ufuncs fall back to row-major on any disagreement, so a result of operands in
mixed layouts can come back with other strides than torch's. That shows in ``.stride()``, in
whether a later ``.view`` works, and in the order a later random fill (dropout) walks the
result. ``pointwise_laid_out`` wraps an op's forward to relay such a result.

The rule is ``backend/_layout_rank.py``'s. Meta arrays have no NumPy arithmetic to lay them out;
their results get the same layout through ``_meta.empty_in_order``.
"""

import numpy as np

from .. import backend
from .._preserve_layout import empty_preserving
from ..backend._layout_rank import broadcast_strides, strides_in_order, torch_order
from ..backend._meta import MetaArray, empty_in_order


def _relaid(out, arrays):
    shape = out.shape
    operands = [broadcast_strides(a, shape) for a in arrays
                if hasattr(a, "strides") and a.ndim]
    perm = torch_order(shape, operands)
    want = [0] * len(shape)
    step = out.itemsize
    for d in perm:
        want[d] = step
        step *= shape[d]
    if all(w == s or n == 1 for w, s, n in zip(want, out.strides, shape)):
        if tuple(want) == out.strides:
            return out
        # only size-1 dims differ: their strides are torch's, the memory is the same
        return backend.helpers_for(backend.xp_of(out)).as_strided(out, shape, tuple(want))
    xp = backend.xp_of(out)
    outer_first = perm[::-1]
    buf = xp.empty([shape[d] for d in outer_first], out.dtype)
    laid = buf.transpose(np.argsort(outer_first))
    laid[...] = out
    return laid


def _meta_relaid(out, arrays):
    """A meta result in the layout torch would give it (no data to copy)."""
    shape = out.shape
    operands = [broadcast_strides(a, shape) for a in arrays
                if hasattr(a, "strides") and a.ndim]
    perm = torch_order(shape, operands)
    if all(w == s or n == 1 for w, s, n in
           zip(strides_in_order(shape, perm, out.itemsize), out.strides, shape)):
        return out
    return empty_in_order(shape, out.dtype, perm)


def _all_shaped(arrays, shape):
    for a in arrays:
        if getattr(a, "shape", None) != shape:
            return False
    return True


def _odd_unit_strides(arrays):
    """Whether some operand's size-1 dim has another stride than row-major order gives it
    (the ranking then may place that dim elsewhere; row-major strides rank row-major)."""
    for a in arrays:
        if getattr(a, "ndim", 0) and 1 in a.shape:
            step = a.itemsize
            for n, st in zip(a.shape[::-1], a.strides[::-1]):
                if n == 1 and st != step:
                    return True
                step *= n
    return False


def _one_layout(arrays, first):
    """Whether every array operand has ``first``'s shape and element strides."""
    unit = first.itemsize
    for a in arrays:
        if getattr(a, "ndim", 0) and a is not first and (
                a.shape != first.shape or
                any(s * unit != t * a.itemsize for s, t in zip(a.strides, first.strides))):
            return False
    return True


def pointwise_result(out, arrays):
    """``out``, an elementwise result of ``arrays`` (arrays or Python numbers, in torch's
    operand order), laid out as torch lays it out: the same array when it already is."""
    if not hasattr(out, "ndim") or out.ndim < 2 or out.size < 2:
        return out
    if type(out) is MetaArray:
        return _meta_relaid(out, arrays)
    first, shape = arrays[0], out.shape
    # torch's shortcuts for operands all of one shape (row-major, or one dense layout) are
    # not taken beside a number or a broadcast operand: its ranking then places size-1 dims
    # too, which only matters where an operand gives one another stride than row-major does
    odd = 1 in shape and not _all_shaped(arrays, shape) and _odd_unit_strides(arrays)
    if getattr(first, "shape", None) == shape and 0 not in first.strides:
        if odd:
            return _relaid(out, arrays)
        # the first operand ranks every pair of dimensions itself: its layout is the result's
        if first.flags.c_contiguous:
            return out if out.flags.c_contiguous else backend.xp_of(out).ascontiguousarray(out)
        if 1 in shape and not _one_layout(arrays, first):
            return _relaid(out, arrays)  # (operands of several layouts: torch ranks them)
        # (dense: its exact strides, size-1 dims' included, as torch keeps them)
        want = empty_preserving(backend.xp_of(out), first, out.dtype)
        if want.strides == out.strides:
            return out
        want[...] = out
        return want
    for a in arrays:
        if hasattr(a, "flags") and a.ndim > 1 and not a.flags.c_contiguous:
            return _relaid(out, arrays)
    return _relaid(out, arrays) if odd else out


def pointwise_laid_out(forward):
    """``forward`` of an elementwise op on several arrays, its array result laid out as torch
    lays it out (see the module docstring). Operands all row-major cost two flag tests: a
    binary op's wrapper names its two arguments, as this runs on every add and mul."""
    if forward.__code__.co_argcount == 3 and not forward.__code__.co_flags & 0x04:
        def laid_out_forward(self, a, b):
            out = forward(self, a, b)
            try:
                # (row-major operands give a row-major result, but for a number or broadcast
                # beside a size-1 dim of odd stride: pointwise_result sees those)
                if a.flags.c_contiguous and b.flags.c_contiguous and (
                        1 not in out.shape or a.shape == b.shape or
                        a.strides == out.strides and not b.ndim):
                    return out
            except AttributeError:  # a Python number beside an array
                pass
            return pointwise_result(out, (a, b))
    elif forward.__code__.co_argcount == 2 and not forward.__code__.co_flags & 0x04:
        def laid_out_forward(self, a):
            out = forward(self, a)
            # one row-major operand of the result's shape: pointwise_result keeps the
            # row-major result as it is (clamp, a policy's probabilities every step)
            if type(out) is np.ndarray and type(a) is np.ndarray and a.shape == out.shape \
                    and a.flags.c_contiguous and out.flags.c_contiguous:
                return out
            return pointwise_result(out, (a,))
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
