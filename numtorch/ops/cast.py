"""Copies and conversions: ``clone``, ``contiguous`` and ``to`` (dtype and device).

Each gives a new array (or the input itself when nothing changes); the gradient passes through
unchanged, and the engine casts it back to the input's dtype.
"""

import numpy as np

from .. import backend
from .._float8 import FLOAT8, from_float8, to_float8
from .._preserve_layout import copy_preserving
from ..autograd.graph import Op, rename_node
from ..backend._run_copy import copy_c
from ._util import restride, user_stacklevel

__all__ = ["clone", "contiguous", "to"]


class Clone(Op):
    """y = a fresh copy of x (row-major, or in x's memory layout when ``preserve``); dx = grad.
    """

    def forward(self, x):
        if not self.__dict__.get("preserve") or x.flags.c_contiguous and 1 not in x.shape:
            return copy_c(x)  # (x.copy(); short last-axis runs moved whole)
        return _copy_preserving_layout(x)

    def backward(self, grad):
        return grad


def _copy_preserving_layout(x):
    """Copy ``x`` the way torch's ``clone()`` does (``preserve_format``): a dense
    non-overlapping ``x`` keeps its exact strides, others become dense in the order of x's
    strides (see ``_preserve_layout``)."""
    if type(x) is np.ndarray or backend.is_device_array(x):
        return copy_preserving(backend.xp_of(x), x)
    if backend.is_meta(x):
        return x.copy("K")  # the meta array's own preserve_format layout, no data
    # other array types (quantized): their own order-K copy
    if any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape)):
        return x.copy()
    y = x.copy(order="K")
    dims = sorted((st, n) for st, n in zip(x.strides, x.shape) if n > 1)
    extent = x.itemsize
    for st, n in dims:
        if st != extent:
            return y  # not dense: NumPy's order-K strides are what torch infers too
        extent *= n
    return restride(backend.xp_of(y), y, x.strides)  # dense: same layout, size-1 dims too


def copy_shape_error(dst, src):
    """torch's error for ``dst.copy_(src)`` when ``src`` does not broadcast to ``dst``'s shape:
    the first mismatching dim from the right, or the broadcast shape that is not dst's."""
    nd = max(len(dst), len(src))
    a, b = (1,) * (nd - len(dst)) + tuple(dst), (1,) * (nd - len(src)) + tuple(src)
    for i in reversed(range(nd)):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                                f"({b[i]}) at non-singleton dimension {i}")
    shape = [max(x, y) if min(x, y) else 0 for x, y in zip(a, b)]
    return RuntimeError(f"output with shape {list(dst)} doesn't match the broadcast shape "
                        f"{shape}")


def warn_complex_cast(stacklevel):
    """torch's warning that a complex-to-real cast drops the imaginary part: once per process,
    as torch's (a warn-once in its copy kernel), whatever the warnings filters say."""
    from .._warn_once import warn_once

    warn_once("complex-cast", "Casting complex values to real discards the imaginary part",
              UserWarning, stacklevel=user_stacklevel())


def real_part_for(dst_dtype, v):
    """``v`` as written into a real tensor: a complex value loses its imaginary part with
    torch's warning."""
    kind = v.dtype.kind if hasattr(v, "dtype") else np.asarray(v).dtype.kind
    if kind == "c" and np.dtype(dst_dtype).kind == "b":
        return v != 0  # (torch: a complex value is true when either part is nonzero)
    if kind == "c" and np.dtype(dst_dtype).kind != "c":
        warn_complex_cast(6)
        return v.real
    return v


class Cast(Op):
    """y = x converted to ``dtype``; dx = grad (the engine casts it back to x's dtype)."""

    def forward(self, x):
        self.src = x.dtype
        if x.dtype.kind == "c" and self.dtype.kind == "b":
            return x != 0  # (true when either part is nonzero, as torch; no warning)
        if x.dtype.kind == "c" and self.dtype.kind != "c":
            warn_complex_cast(4)
            x = x.real
        if not (type(x) is np.ndarray or backend.is_device_array(x)):
            return x.astype(self.dtype)
        if self.dtype in FLOAT8 or x.dtype in FLOAT8:
            return _float8_cast(self.xp, x, self.dtype)
        return copy_preserving(self.xp, x, self.dtype)  # torch's layout for a strided x

    def backward(self, grad):
        return grad


def _float8_cast(xp, x, dtype):
    """A cast into or out of a float8 format, as torch converts (see numtorch/_float8.py),
    in torch's layout for a strided ``x``."""
    y = to_float8(x, dtype) if dtype in FLOAT8 else from_float8(x, dtype)
    return y if y.flags.c_contiguous else copy_preserving(xp, y)


class ToDevice(Op):
    """y = x on another device; dx = grad moved back."""

    def forward(self, x):
        from .. import backend

        self.src = backend.device_of(x)
        return backend.to_device(x, self.device, self.__dict__.get("non_blocking", False))

    def backward(self, grad):
        return grad.to(self.src)


# ---------------------------------------------------------------------------------------------
# public functions


def clone(input, *, memory_format=None):
    """Return a copy of ``input`` that is part of the graph (the gradient passes through).

    Args:
        input (Tensor): the tensor to copy.
        memory_format: ``None`` (torch's ``preserve_format``) keeps ``input``'s memory layout,
            as torch does: ``x.t().clone()`` is still column-major. A format whose name is
            ``contiguous_format`` gives a row-major copy.

    Example:
        >>> x = torch.arange(6.0).reshape(2, 3).t()
        >>> x.clone().stride()
        (1, 3)
    """
    preserve = memory_format is None or "contiguous" not in str(memory_format)
    return Clone.apply(input, preserve=preserve)


def contiguous(input):
    """``input`` itself if C-contiguous, else a contiguous copy."""
    if input._array.flags.c_contiguous:
        return input
    return Clone.apply(input)


def to(input, dtype=None, device=None, copy=False, non_blocking=False):
    """Convert ``input`` to ``dtype`` and/or ``device`` (the same tensor if nothing changes);
    ``non_blocking`` lets a copy between host and GPU run asynchronously, as in torch."""
    out = input
    if device is not None and device.type == "cuda" and device.index is None:
        device = backend.resolve_device(device)
    if device is not None and device != input.device:
        out = ToDevice.apply(out, device=device, non_blocking=non_blocking) if non_blocking \
            else ToDevice.apply(out, device=device)
    if dtype is not None and dtype.np != out._array.dtype:
        out = Cast.apply(out, dtype=dtype.np)
    if copy and out is input:
        out = rename_node(Clone.apply(input, preserve=True), "ToCopyBackward0")
    return out
