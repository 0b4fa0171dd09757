"""Modules on tables (Python lists) of tensors: JoinTable, SelectTable, CAddTable, MM."""

from ... import bmm, cat
from ..._tensor import Tensor
from . import _tables
from .module import Module

__all__ = ["JoinTable", "SelectTable", "CAddTable", "MM"]


class JoinTable(Module):
    """Concatenates the tensors of a table along ``dimension`` (1-based, negative from the
    end). With ``nInputDims``, inputs with one more dimension are a batch and the
    dimension moves right by one."""

    _params = ()
    nInputDims = None

    def __init__(self, dimension, nInputDims=None):
        super().__init__()
        self.dimension = dimension
        self.nInputDims = nInputDims

    def _dim(self, first):
        d = self.dimension
        if d < 0:
            d = first.dim() + d + 1
        elif self.nInputDims is not None and first.dim() == self.nInputDims + 1:
            d += 1
        if not 1 <= d <= first.dim():
            raise IndexError(f"JoinTable: dimension {self.dimension} out of range for "
                             f"{first.dim()}D inputs")
        return d - 1

    def _forward(self, input):
        return cat(list(input), self._dim(input[0]))


class SelectTable(Module):
    """The entry at Lua position ``index`` of the input table (negative counts from the
    end); the other entries get zero gradients."""

    _params = ()

    def __init__(self, index):
        super().__init__()
        self.index = index

    def _forward(self, input):
        return input[_tables.index(self.index, len(input), "SelectTable index")]


class CAddTable(Module):
    """The element-wise sum of the tensors of a table (``ip=True`` writes it into the first
    one)."""

    _params = ()

    def __init__(self, ip=False):
        super().__init__()
        self.inplace = ip

    def _forward(self, input):
        total = input[0]
        for t in input[1:]:
            total = total + t
        return total


class MM(Module):
    """Matrix product of the table ``{A, B}``: 2-D matrices or 3-D batches, with
    ``transA``/``transB`` transposing the last two dimensions first."""

    _params = ()

    def __init__(self, transA=False, transB=False):
        super().__init__()
        self.transA = transA
        self.transB = transB

    def _forward(self, input):
        if len(input) != 2 or not all(isinstance(t, Tensor) for t in input):
            raise RuntimeError("MM: input must be a table of two tensors")
        a, b = input
        if a.dim() != b.dim() or a.dim() not in (2, 3):
            raise RuntimeError(f"MM: inputs must both be matrices or both be batches of "
                               f"matrices, got {a.dim()}D and {b.dim()}D")
        if self.transA:
            a = a.transpose(-1, -2)
        if self.transB:
            b = b.transpose(-1, -2)
        return a @ b if a.dim() == 2 else bmm(a, b)
