"""The layout a leaf's ``.grad`` takes when it is first set: torch's "layout contract".

Torch gives a leaf that is laid out densely without overlap (row-major, channels-last, a
transposed matrix, ...) a gradient with the leaf's own strides, whatever strides the incoming
gradient has; any other leaf (an expanded or sliced one) gets a row-major gradient. So a
channels-last weight or input has a channels-last ``.grad``. Dims of size 1 never move through
memory, so their strides are not compared.
"""

from .. import backend
from ..backend._layout_rank import dense_strides
from ..ops._util import restride
from .graph import Op

__all__ = []


def is_dense(like):
    """Whether array ``like`` covers its memory without gaps or overlap."""
    return dense_strides(like.shape, like.strides, like.itemsize)


def obeys(grad, like):
    """Whether array ``grad`` may become the ``.grad`` of a leaf holding array ``like``."""
    if dense_strides(like.shape, like.strides, like.itemsize):
        for n, gs, ls in zip(grad.shape, grad.strides, like.strides):
            if (n != 1 and gs != ls) or (n == 1 and gs == 0):
                return False
        return True
    return bool(grad.flags.c_contiguous)


def copy_as(grad, like):
    """A fresh copy of ``grad`` in the layout the contract asks for (see the module doc)."""
    xp = backend.xp_of(grad)
    if not dense_strides(like.shape, like.strides, like.itemsize):
        return xp.array(grad, order="C", copy=True)
    out = xp.empty_like(like, dtype=grad.dtype, order="K")
    out = restride(xp, out, like.strides) if out.itemsize == like.itemsize else out
    out[...] = grad
    return out


class GradInLayout(Op):
    """g -> a copy of g in the layout of a leaf's array ``like``; the gradient passes as is.
    Why an op: with ``create_graph`` the first ``.grad`` of a leaf stays in the graph."""

    def forward(self, g):
        return copy_as(g, self.like)

    def backward(self, grad):
        return grad


class CopyBackwards(GradInLayout):
    """The copy a dense leaf's first ``.grad`` is under ``create_graph``; torch's node name."""

    node_name = "CopyBackwards"

    def name(self):
        return "torch::autograd::CopyBackwards"
