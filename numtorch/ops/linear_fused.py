"""The fused affine map behind ``nn.functional.linear``: ``y = x @ W^T + b`` as one op.

Why a primitive (design doc, section 8): a linear layer is the hottest path of every MLP. As a
composite it is three nodes (``t``, ``matmul``, ``add``), a second output-sized temporary for the
bias add, and a central un-broadcast sum for the bias gradient. Fused, it is one GEMM on a
transposed view (BLAS reads it without a copy), an in-place bias add on the GEMM's own output,
and one node.

The batch dims are folded into the GEMM's rows in the order they lie in memory, so a permuted
view (``x.transpose(0, 1)`` of a batch-first activation, as ``MultiheadAttention`` makes) costs
no copy there: its projections keep the input's layout (``keep_layout``); plain ``F.linear``
returns torch's row-major result (copying the smaller of input and output).
``backward_arrays`` is one NumPy pass, which the engine runs when no graph is being built;
``backward`` is the same formulas written with numtorch ops, run under ``create_graph`` (so
double backward works); the tests compare both with torch.
"""

import functools

import numpy as np

from ..autograd.graph import Node, Op
from ..backend import is_device_array
from . import _intraop
from .matmul import product

__all__ = ["linear_fused"]

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _memory_order(a):
    """The leading dims of ``a`` sorted from the largest stride down, or None if in order."""
    return _order_of(a.strides[:-1])


# (the permutation and its inverse are looked up per call: a handful of shapes per model, and
# sorting them each time cost a few microseconds a call on a GPU's host-bound path)
@functools.lru_cache(maxsize=256)
def _order_of(strides):
    lead = len(strides)
    perm = tuple(sorted(range(lead), key=lambda i: -strides[i]))
    return None if perm == tuple(range(lead)) else perm


@functools.lru_cache(maxsize=256)
def _inverse(perm):
    return tuple(sorted(range(len(perm)), key=perm.__getitem__)) + (len(perm),)


def _rows(a, perm):
    """``a`` as a 2-D (rows, features) array with the leading dims taken in ``perm`` order
    (a view whenever memory allows; NumPy copies otherwise)."""
    if perm is not None:
        a = a.transpose(perm + (a.ndim - 1,))
    return a.reshape(-1, a.shape[-1])


def _unfold(y2, shape, perm):
    """Undo ``_rows``: the (rows, features) result back to ``shape[:-1]`` + its features."""
    if perm is None:
        return y2.reshape(shape[:-1] + y2.shape[-1:])
    y = y2.reshape(tuple(shape[i] for i in perm) + y2.shape[-1:])
    return y.transpose(_inverse(perm))


def _short_batch(rows, w):
    """Whether ``x @ W^T`` over ``rows`` rows runs faster as ``(W @ x^T)^T``.

    OpenBLAS (NumPy's wheels) picks a slow kernel for a product with a few rows: measured on
    float32, one thread, (rows, k) @ (k, n)^T against W @ x^T plus the transposing copy:
    n = k = 1024: 2 rows 733 -> 213 us, 16 rows 1002 -> 489, 64 rows 2081 -> 1617, 96 rows
    2810 -> 2369; k = 128, n = 512: 16 rows 54 -> 30 us, 48 rows 95 -> 79, 64 rows about
    even, 96 rows 156 -> 166 (slower). Small weights gain nothing (n = 65: a microsecond
    slower), so the swap is taken for 2-64 rows (up to 128 for weights of 2^19 values or
    more) once the weight has 2^15 values (2^18 for 2-3 rows, where a matrix-vector-like
    product is fast either way).
    """
    size = w.shape[0] * w.shape[1]
    if rows < 2 or rows > 128 or w.dtype not in _BLAS_FLOATS:
        return False
    if rows > 64:
        return size >= 1 << 19
    return size >= (1 << 15 if rows >= 4 else 1 << 18)


def _x_wt(xp, x2, w):
    """x2 @ w^T for a 2-D ``x2``, C-contiguous, in the faster orientation (``_short_batch``)."""
    if _short_batch(x2.shape[0], w) and x2.dtype == w.dtype and not is_device_array(x2):
        return xp.ascontiguousarray(xp.matmul(w, x2.T).T)
    return product(xp, x2, w.T)


def _column_sums(xp, g2):
    """Sum of the rows of 2-D ``g2``: as one BLAS matrix-vector product with a vector of ones
    for float32/float64 on the CPU (2-3x faster than ``sum(0)`` over a C-ordered array); on a
    GPU one reduction launch, where the product takes two (filling the ones) and a GEMV."""
    if xp is np and g2.dtype in _BLAS_FLOATS and g2.flags.c_contiguous and g2.shape[0] > 1:
        return xp.matmul(xp.ones(g2.shape[0], g2.dtype), g2)
    return g2.sum(0)


def _add_bias(y2, b):
    """``y2 += b`` on the GEMM's fresh (rows, features) output: in row parts on the intra-op
    threads for a large C-contiguous float CPU result and a bias of its dtype (one pass, e.g.
    a TransformerEncoder's (1024, 512) feed-forward output: 524K values), else one call.
    Elementwise, so the same bits however the rows are shared out."""
    if type(y2) is np.ndarray and type(b) is np.ndarray and y2.ndim == 2 and \
            b.dtype is y2.dtype and y2.dtype.kind == "f" and y2.flags.c_contiguous and \
            _intraop.parts(y2.shape[0], y2.shape[1]) > 1:

        def part(lo, hi):
            np.add(y2[lo:hi], b, out=y2[lo:hi])

        _intraop.split(part, y2.shape[0], y2.shape[1])
    else:
        y2 += b  # the GEMM's fresh output, so adding in place allocates nothing


def _affine(xp, x, w, b, keep_layout=False):
    """x @ w^T (+ b) over the last dim of ``x`` as one GEMM; the result is row-major as
    torch's (or, with ``keep_layout``, in x's layout: no copy of a permuted input at all)."""
    if x.ndim == 2:
        y = _x_wt(xp, x, w)
        if b is not None:
            _add_bias(y, b)
        return y
    # one large GEMM over all rows (not one per batch entry), rows in memory order
    perm = None if x.flags.c_contiguous else _memory_order(x)
    if perm is not None and not keep_layout and x.shape[-1] <= w.shape[0]:
        perm = None  # copying the input into row order is the smaller copy
    y2 = _x_wt(xp, _rows(x, perm), w)
    if b is not None:
        _add_bias(y2, b)  # (the same values as adding to the unfolded view)
    y = _unfold(y2, x.shape, perm)
    return y if perm is None or keep_layout else xp.ascontiguousarray(y)


class _Shown(Node):
    """A node of torch's linear graph that numtorch's one fused node stands for, built only when
    a user walks ``next_functions``: it shows torch's name and edges and runs nothing."""

    def __init__(self, edges):
        self._edges = edges


_SHOWN = {}


def _shown(name, edges):
    cls = _SHOWN.get(name)
    if cls is None:
        cls = _SHOWN[name] = type(name, (_Shown,), {"__module__": __name__})
    return (cls(edges), 0)


class LinearFused(Op):
    """y = x @ W^T (+ b); dx = g @ W, dW = g^T @ x (batch dims folded), db = sum of g rows."""

    @property
    def next_functions(self):
        # torch records linear as addmm (mm without a bias) of the input and weight.t(), bias
        # first, inside a view when the input is not 2-D; tutorials walk and print that chain
        edges = Node.next_functions.fget(self)
        x, w = edges[0], edges[1]
        bias = edges[2:]
        nd = len(self._in_meta[0][0]) if self._in_meta[0] else 2
        if w[0] is not None:
            w = _shown("TBackward0", (w,))
        if nd != 2 and x[0] is not None:
            x = _shown("UnsqueezeBackward0" if nd == 1 and not bias else "ViewBackward0", (x,))
        core = bias + (x, w)
        if nd == 2:
            return core
        return (_shown("AddmmBackward0" if bias else "MmBackward0", core),)

    keep_layout = False  # (a call's ``keep_layout=True`` is set on its node)

    def forward(self, x, w, b=None):
        keep_layout = self.keep_layout
        self.save_operands_for_product(x, w)  # x for dW, W for dx: only what is needed
        if b is not None and x.dtype.itemsize == 2:
            # torch adds a half-precision bias to the float32 accumulator and rounds once;
            # rounding the product first and again after the add differs on ~25% of values
            # (on a GPU cuBLAS sums in its own order, as torch's CUDA kernels do: a few values
            # an ulp from torch's CPU result; float64 sums would match more of them but run at
            # 1/64 of float32's speed on most GPUs, in the hot path of mixed precision)
            f32 = self.xp.float32
            return _affine(self.xp, x.astype(f32), w.astype(f32), b.astype(f32),
                           keep_layout).astype(x.dtype)
        return _affine(self.xp, x, w, b, keep_layout)

    def backward_arrays(self, g):
        x, w = self.saved_operands()
        x, w = (None if x is None else x._array), (None if w is None else w._array)
        needs = self.needs_input_grad
        xp = self.xp
        gx = gw = gb = None
        if g.ndim == 2:
            if needs[0]:
                gx = product(xp, g, w)
            g2 = g
            x2 = x
        else:
            # fold both in x's memory order so the rows of g and x pair up in dW's GEMM
            perm = None if x is None or x.flags.c_contiguous else _memory_order(x)
            g2 = _rows(g, perm)
            if needs[0]:
                gx = _unfold(product(xp, g2, w), g.shape, perm)
            x2 = _rows(x, perm) if needs[1] else None
        if needs[1]:
            gw = product(xp, g2.T, x2)
        if len(needs) > 2 and needs[2]:
            if g2.dtype.itemsize == 2:  # summed in float32 and rounded once, as torch does
                gb = _column_sums(xp, g2.astype(xp.float32)).astype(g2.dtype)
            else:
                gb = _column_sums(xp, g2)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)

    def backward(self, grad):
        x, w = self.saved_operands()
        needs = self.needs_input_grad
        gx = gw = gb = None
        if needs[0]:
            gx = grad @ w
        if needs[1] or (len(needs) > 2 and needs[2]):
            g2 = grad if grad.ndim == 2 else grad.reshape(-1, grad.shape[-1])
            if needs[1]:
                x2 = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
                gw = g2.mT @ x2
            if len(needs) > 2 and needs[2]:
                gb = g2.sum(0)
        return (gx, gw) if len(needs) == 2 else (gx, gw, gb)


def linear_fused(input, weight, bias=None, keep_layout=False):
    """``input @ weight.T + bias`` for operands checked by ``nn.functional.linear``.

    The caller guarantees: ``input`` at least 2-D, ``weight`` 2-D with
    ``weight.shape[1] == input.shape[-1]``, ``bias`` None or 1-D of ``weight.shape[0]``
    elements, all floating point of one dtype. The result is row-major (torch's layout) unless
    ``keep_layout`` (``MultiheadAttention``'s projections): then a permuted input is read
    without a copy and the result keeps its layout.
    """
    if keep_layout:
        if bias is None:
            return LinearFused.apply(input, weight, keep_layout=True)
        return LinearFused.apply(input, weight, bias, keep_layout=True)
    if bias is None:
        return LinearFused.apply(input, weight)
    return LinearFused.apply(input, weight, bias)
