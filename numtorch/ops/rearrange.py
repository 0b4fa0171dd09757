"""Shape ops that copy or re-window their input: ``flip``/``fliplr``/``flipud``, ``roll``,
``repeat`` (a tiled copy) and ``unfold`` (sliding windows, a view).

shape.py holds the reshaping views.
"""

import numpy as np

from .._preserve_layout import empty_preserving
from .._required_dim import check_missing_call, missing_arg
from .._tensor import Tensor
from .._quantized_array import QArray
from ..autograd.graph import Op
from ._util import as_index, canonical_dim, shape_arg
from .._size import required_size_args
from ._util import arg_type_error, no_dims_error

__all__ = ["unfold", "repeat", "flip", "fliplr", "flipud", "roll"]


class Unfold(Op):
    """y[..., w, ..., k] = x[..., w*step + k, ...] (a view); dx adds the windows back."""

    is_view = True

    def forward(self, x):
        self.in_shape = x.shape
        d, size, step = self.dim, self.size, self.step
        if x.ndim == 0:
            return x.reshape(1)
        if self.xp is np:
            # windows that do not overlap may be written through, as in torch
            win = np.lib.stride_tricks.sliding_window_view(
                x, size, axis=d, writeable=x.flags.writeable and (step >= size or
                                                                  x.shape[d] == size))
        else:
            win = self.xp.lib.stride_tricks.sliding_window_view(x, size, axis=d)
        idx = [slice(None)] * win.ndim
        idx[d] = slice(None, None, step)
        return win[tuple(idx)]

    def backward(self, grad):
        return UnfoldBackward.apply(grad, in_shape=self.in_shape, dim=self.dim, size=self.size,
                                    step=self.step)


class UnfoldBackward(Op):
    """dx[..., w*step + k, ...] += g[..., w, ..., k], one strided add per window offset k."""

    def forward(self, g):
        xp, d, size, step = self.xp, self.dim, self.size, self.step
        out = xp.zeros(self.in_shape, dtype=g.dtype)
        if not self.in_shape:
            return g.reshape(())
        n_win = g.shape[d]
        for k in range(size):
            dst = [slice(None)] * len(self.in_shape)
            dst[d] = slice(k, k + step * (n_win - 1) + 1, step)
            out[tuple(dst)] += g[..., k]
        return out

    def backward(self, gg):
        return gg.unfold(self.dim, self.size, self.step)


class Repeat(Op):
    """y = x tiled ``repeats`` times; dx = grad summed over the tiles."""

    def forward(self, x):
        self.in_shape = x.shape
        return self.xp.tile(x.reshape((1,) * (len(self.repeats) - x.ndim) + x.shape),
                            self.repeats)

    def backward(self, grad):
        full = (1,) * (len(self.repeats) - len(self.in_shape)) + tuple(self.in_shape)
        inter = []
        for r, s in zip(self.repeats, full):
            inter += [r, s]
        g = grad.reshape(tuple(inter)).sum(dim=tuple(range(0, 2 * len(full), 2)))
        return g.reshape(self.in_shape)


class Flip(Op):
    """y = x reversed along ``dims`` (a copy, as torch); dx = grad flipped back."""

    def forward(self, x):
        if type(x) is QArray:  # a quantized payload flips itself (it has no empty_like)
            return self.xp.flip(x, axis=self.dims).copy() if self.dims else x.copy()
        # laid out like x (torch's empty_like), not row-major
        out = empty_preserving(self.xp, x, x.dtype)
        out[...] = self.xp.flip(x, axis=self.dims) if self.dims else x
        return out

    def backward(self, grad):
        return grad.flip(*self.dims) if self.dims else grad


class Roll(Op):
    """y = x rolled by ``shifts`` along ``dims``; dx = grad rolled back."""
    out_layout = "format"  # torch allocates in the input's memory format

    def forward(self, x):
        if self.dims is None:
            return self.xp.roll(x.reshape(-1), self.shifts).reshape(x.shape)
        return self.xp.roll(x, self.shifts, axis=self.dims)

    def backward(self, grad):
        neg = tuple(-s for s in self.shifts) if isinstance(self.shifts, tuple) else -self.shifts
        return Roll.apply(grad, shifts=neg, dims=self.dims)


def unfold(input, dimension, size, step):
    """Return all windows of ``size`` with stride ``step`` along ``dimension`` (a view)."""
    nd = input._array.ndim
    d = canonical_dim(dimension, nd)
    n = input._array.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, dim=d, size=size, step=step)


def repeat(input, *sizes):
    """Tile ``input`` ``sizes[i]`` times along each dim (sizes may add leading dims)."""
    sizes = shape_arg(sizes, "repeat", "repeats")
    if len(sizes) < input._array.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    full = (1,) * (len(sizes) - input._array.ndim) + input._array.shape
    out_shape = [r * s for r, s in zip(sizes, full)]
    for d in out_shape:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: "
                               f"[{', '.join(map(str, out_shape))}]")
    return Repeat.apply(input, repeats=sizes)


def flip(input, *dims, **kwargs):
    """Reverse the order of elements along ``dims`` (a copy)."""
    dims = required_size_args(dims, kwargs, "dims", "flip")
    dims = shape_arg(dims, "flip", "dims")
    nd = input._array.ndim
    dims = tuple(canonical_dim(d, nd) for d in dims)
    if len(set(dims)) != len(dims):
        d = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(input, dims=dims if nd else ())  # (a 0-d tensor's dim 0 is no axis)


def fliplr(input):
    """Reverse the order of columns (dim 1); a copy."""
    if input._array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    """Reverse the order of rows (dim 0); a copy."""
    if input._array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


def roll(input=missing_arg, shifts=missing_arg, dims=None):
    """Roll elements along ``dims`` (the flattened tensor when None) by ``shifts``."""
    try:
        if isinstance(shifts, Tensor) and shifts._array.ndim:
            raise TypeError("roll(): argument 'shifts' (position 1) must be tuple of ints, not "
                            "Tensor")
        shifts, dims = as_index(shifts), as_index(dims)
        for value, name, index in ((shifts, "shifts", 1), (dims, "dims", 2)):
            if not isinstance(value, (int, tuple, list)) and not (value is None and name == "dims"):
                raise arg_type_error(value, name, "tuple of ints", index=index)
        if not isinstance(shifts, int) and len(shifts) == 0:
            raise RuntimeError("`shifts` required")
        if dims is None:
            if not isinstance(shifts, int) and len(shifts) != 1:  # (one shift rolls the flat data)
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
            return Roll.apply(input, shifts=int(shifts) if isinstance(shifts, int) else
                              int(shifts[0]), dims=None)
        shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                               f"{len(dims)}")
        nd = input._array.ndim
        if not nd and dims:
            raise no_dims_error(dims[0])
        return Roll.apply(input, shifts=shifts, dims=tuple(canonical_dim(d, nd) for d in dims))
    except Exception:
        check_missing_call(input=input, shifts=shifts)
        raise
