"""Modules that only move or copy elements: View, Reshape, Transpose, Identity, Narrow,
Replicate, Squeeze, Unsqueeze, Padding. Dimensions and offsets count from 1, as in Lua.

Several take ``numInputDims`` (or ``nInputDim``): the number of dimensions of one sample, so
an input with more dimensions is a batch and the dimension arguments shift right.
"""

from ... import cat
from ..._size import Size
from .module import Module

__all__ = ["View", "Reshape", "Transpose", "Identity", "Narrow", "Replicate", "Squeeze",
           "Unsqueeze", "Padding"]


def _sizes(args):
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def _prod(values):
    n = 1
    for v in values:
        n *= v
    return n


def _batch_shift(input, n_sample_dims):
    if n_sample_dims is not None and input.dim() > n_sample_dims:
        return input.dim() - n_sample_dims
    return 0


class View(Module):
    """Views the input with the given sizes (one may be -1); extra leading elements form a
    batch dimension."""

    _params = ()
    numInputDims = None

    def __init__(self, *args):
        super().__init__()
        self.size = Size(_sizes(args))
        if sum(1 for s in self.size if s == -1) > 1:
            raise ValueError("View: at most one size may be -1")
        self.numElements = _prod(s for s in self.size if s != -1)
        self.numInputDims = None

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def _post_load(self):
        super()._post_load()
        self.size = Size(_sizes([self.size]))
        self.numElements = _prod(s for s in self.size if s != -1)

    def _batch_size(self, input):
        nd = input.dim()
        kept = nd if self.numInputDims is None else min(self.numInputDims, nd)
        inner = _prod(input.shape[nd - kept:])
        if self.numElements == 0 or inner % self.numElements:
            raise RuntimeError(f"View: input of size {tuple(input.shape)} does not match the "
                               f"view {tuple(self.size)}")
        batch = 1 if -1 in self.size else inner // self.numElements
        batch *= _prod(input.shape[:nd - kept])
        if batch == 1 and (self.numInputDims is None or nd <= self.numInputDims):
            return None
        return batch

    def _forward(self, input):
        batch = self._batch_size(input)
        shape = tuple(self.size) if batch is None else (batch,) + tuple(self.size)
        return input.reshape(shape)


class Reshape(Module):
    """Reshapes to the given sizes; a last argument ``True``/``False`` forces batch mode
    (keep dim 1) on or off, otherwise batch mode is on unless the element counts match."""

    _params = ()
    batchMode = None

    def __init__(self, *args):
        super().__init__()
        self.batchMode = None
        if args and isinstance(args[-1], bool):
            self.batchMode, args = args[-1], args[:-1]
        self.size = Size(_sizes(args))
        self.nelement = _prod(self.size)

    def _post_load(self):
        super()._post_load()
        self.size = Size(_sizes([self.size]))
        self.nelement = _prod(self.size)

    def _forward(self, input):
        whole = (self.batchMode is False
                 or (self.batchMode is None and input.numel() == self.nelement
                     and input.size(0) != 1))
        if whole:
            return input.reshape(tuple(self.size))
        return input.reshape((input.size(0),) + tuple(self.size))


class Transpose(Module):
    """Swaps each given pair of dimensions in turn, e.g. ``Transpose((1, 2), (3, 4))``."""

    _params = ()
    numInputDims = None

    def __init__(self, *permutations):
        super().__init__()
        self.permutations = [tuple(p) for p in permutations]
        self.numInputDims = None

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def _forward(self, input):
        shift = _batch_shift(input, self.numInputDims)
        out = input
        for a, b in self.permutations:
            out = out.transpose(a - 1 + shift, b - 1 + shift)
        return out


class Identity(Module):
    """Passes the input (and the gradient) through unchanged; tables too."""

    _params = ()

    def updateOutput(self, input):
        self.output = input
        return input

    def updateGradInput(self, input, gradOutput):
        self.gradInput = gradOutput
        return gradOutput

    def accGradParameters(self, input, gradOutput, scale=1):
        pass

    def backward(self, input, gradOutput, scale=1):
        return self.updateGradInput(input, gradOutput)


class Narrow(Module):
    """``length`` elements from ``offset`` along ``dimension`` (1-based). A negative offset
    counts from the end; a negative length ends that many elements before the end
    (-1: up to the last)."""

    _params = ()

    def __init__(self, dimension, offset, length=1):
        super().__init__()
        self.dimension = dimension
        self.index = offset
        self.length = length

    def _forward(self, input):
        d = self.dimension + input.dim() + 1 if self.dimension < 0 else self.dimension
        if not 1 <= d <= input.dim():
            raise IndexError(f"Narrow: dimension {self.dimension} out of range for a "
                             f"{input.dim()}D input")
        size = input.size(d - 1)
        offset = size + self.index + 1 if self.index < 0 else self.index
        length = size - offset + self.length + 2 if self.length < 0 else self.length
        if offset < 1 or length < 1 or offset + length - 1 > size:
            raise IndexError(f"Narrow: offset {self.index} and length {self.length} out of "
                             f"range for size {size}")
        return input.narrow(d - 1, offset - 1, length)


class Replicate(Module):
    """Repeats the input ``nf`` times along a new dimension ``dim`` (1-based) without
    copying; ``ndim`` is the number of dimensions of one sample (batch inputs shift)."""

    _params = ()
    ndim = None

    def __init__(self, nf, dim=1, ndim=None):
        super().__init__()
        self.nfeatures = nf
        self.dim = dim
        self.ndim = ndim

    def _forward(self, input):
        d = self.dim + _batch_shift(input, self.ndim)
        if not 1 <= d <= input.dim() + 1:
            raise IndexError(f"Replicate: dimension {self.dim} out of range for a "
                             f"{input.dim()}D input")
        shape = list(input.shape)
        shape.insert(d - 1, self.nfeatures)
        return input.unsqueeze(d - 1).expand(shape)


class Squeeze(Module):
    """Removes dimension ``dim`` (1-based) if it has size 1, or every size-1 dimension; a
    batch of one keeps its batch dimension when ``numInputDims`` is given."""

    _params = ()
    dim = None
    numInputDims = None

    def __init__(self, dim=None, numInputDims=None):
        super().__init__()
        self.dim = dim
        self.numInputDims = numInputDims

    def _forward(self, input):
        shift = _batch_shift(input, self.numInputDims)
        if self.dim is not None:
            return input.squeeze(self.dim - 1 + shift)
        out = input.squeeze()
        if shift and input.size(0) == 1:
            out = out.unsqueeze(0)
        return out


class Unsqueeze(Module):
    """Inserts a size-1 dimension at position ``pos`` (1-based; ``dim + 1`` appends)."""

    _params = ()
    numInputDims = None

    def __init__(self, pos, numInputDims=None):
        super().__init__()
        self.pos = pos
        self.numInputDims = numInputDims

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def _forward(self, input):
        pos = self.pos + _batch_shift(input, self.numInputDims)
        if not 1 <= pos <= input.dim() + 1:
            raise IndexError(f"Unsqueeze: position {self.pos} out of range for a "
                             f"{input.dim()}D input")
        return input.unsqueeze(pos - 1)


class Padding(Module):
    """Inserts ``|pad|`` entries of ``value`` along ``dim`` (1-based): after the input for
    ``pad > 0``, before it for ``pad < 0``. ``index`` moves the insertion point: for
    ``pad < 0`` the padding goes before input position ``index``, for ``pad > 0`` before
    the ``index``-th position counted from the end."""

    _params = ()
    nInputDim = None
    value = 0
    index = 1

    def __init__(self, dim, pad, nInputDim=None, value=0, index=1):
        super().__init__()
        self.dim = dim
        self.pad = pad
        self.nInputDim = nInputDim
        self.value = value
        self.index = index

    def _forward(self, input):
        d = self.dim
        if self.nInputDim is not None and input.dim() != self.nInputDim:
            d += 1
        if not 1 <= d <= input.dim():
            raise IndexError(f"Padding: dimension {self.dim} out of range for a "
                             f"{input.dim()}D input")
        n = input.size(d - 1)
        split = self.index - 1 if self.pad < 0 else n - self.index + 1
        if not 0 <= split <= n:
            raise IndexError(f"Padding: index {self.index} out of range for size {n}")
        shape = list(input.shape)
        shape[d - 1] = abs(self.pad)
        filler = input.new_full(shape, self.value)
        parts = [input.narrow(d - 1, 0, split), filler, input.narrow(d - 1, split, n - split)]
        return cat(parts, d - 1)
