"""What the whole-sequence recurrent ops (``rnn_lstm``, ``rnn_gru``, ``rnn_elman``) share: the
node base class (time reversal, the packed mask, both backward paths), the differentiable
reference loop that ``create_graph`` differentiates, and the per-step GEMM helpers.

See ``rnn_sequence`` for why each layer direction is one node.
"""

import contextlib

from .._tensor import _make
from .._threads import blas_threads_now, single_blas_thread, small_gemm_kernels
from ..autograd import grad as _grad
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from .comparison import where
from .join import stack
from .rnn_ops import unbind_steps


def _blas_threads(macs):
    """One BLAS thread for a loop of small row-major GEMMs (<= 8M multiply-adds each): with
    few rows a second thread gains nothing, and on busy cores its hand-offs cost 20x."""
    return single_blas_thread() if macs <= 8_000_000 else contextlib.nullcontext()


class _Sequence(Op):
    """What the three layer ops share: time reversal, the packed mask, both backward paths."""


    def _time_major(self, *arrays):
        """The arrays (and mask) in processing order: reversed in time for ``reverse``."""
        mask = self.mask
        if not self.reverse:
            return arrays + (mask,)
        return tuple(a[::-1] for a in arrays) + (None if mask is None else mask[::-1],)

    @staticmethod
    def _keep_finished(xp, new, old, mask_t):
        """Padded steps leave the state as it was."""
        if mask_t is not None:
            xp.copyto(new, old, where=~mask_t)

    def _outputs(self, hs, *finals):
        # copies: the outputs must not alias what backward reads
        out = hs[:0:-1].copy() if self.reverse else hs[1:].copy()
        return (out,) + tuple(f.copy() for f in finals)

    @staticmethod
    def _split_masked(xp, grad, mask_t):
        """(the gradient into this step's computation, the part passing straight through)."""
        return xp.where(mask_t, grad, 0), xp.where(mask_t, 0, grad)

    def _save_present(self, *inputs):
        """Save the inputs that are not None (optional biases, projection), noting which."""
        self.present = tuple(a is not None for a in inputs)
        self.save_inputs(*(a for a in inputs if a is not None))

    def _inputs(self):
        """All the op's inputs as Tensors (the graph's, under create_graph), None for absent."""
        got = iter(self.saved_inputs())
        return tuple(next(got) if p else None for p in self.present)

    def backward(self, *grads):
        ins = self._inputs()
        outs = self.steps(*ins, mask=self.mask, reverse=self.reverse, **self._step_options())
        wanted = [k for k, x in enumerate(ins) if x is not None and x.requires_grad]
        got = _grad(outs, [ins[k] for k in wanted], list(grads),
                                     create_graph=True, allow_unused=True)
        res = [None] * len(ins)
        for k, g in zip(wanted, got):
            res[k] = g
        return tuple(res)

    def _step_options(self):
        return {}


def _masks(mask):
    return None if mask is None else _make(mask)


def _run_steps(xs, h, c, mask, reverse, step):
    """The reference loop over time with differentiable ops: ``step(x_t, h, c) -> (h, c)``."""
    steps = unbind_steps(xs)
    m = _masks(mask)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outs = [None] * len(steps)
    for t in order:
        hn, cn = step(steps[t], h, c)
        if m is not None:
            hn = where(m[t], hn, h)
            cn = None if c is None else where(m[t], cn, c)
        h, c = hn, cn
        outs[t] = h
    return stack(outs, 0), h, c


def _row_blocks(like, rows, k, n):
    """Row ranges splitting a per-step ``(rows, k) @ (k, n)`` GEMM into pieces of at most
    100^3 multiply-adds, or None to run it whole (the batch-major GRU loops split the weight's
    columns the same way: ``(n, k) @ (k, rows)``).

    Why: below that size OpenBLAS's small-matrix kernels (AVX-512 cores) skip packing the
    weight, which with a batch of ~20 columns is a third of the GEMM: a 512x161x20 step takes
    43 us whole and 2 x 16 us in two pieces on one thread. Whole GEMMs stay when BLAS has
    several threads (only they are split across them) or the kernels are not there.
    """
    macs = rows * k * n
    if (macs <= 1_000_000 or is_device_array(like) or not small_gemm_kernels()
            or blas_threads_now() > 1):
        return None
    most = max(1, 1_000_000 // (k * n))  # rows per piece within the limit
    pieces = -(-rows // most)
    step = -(-rows // pieces)  # as even as the pieces can be
    return [(lo, min(lo + step, rows)) for lo in range(0, rows, step)]



def _step_gemm(xp, a, b, c):
    """On a GPU, the loop's recurrent GEMM with its cuBLAS arguments worked out once
    (``gemm(ta, tb, tc)``: ``c[tc] = a[ta] @ b[tb]``, see backend ``step_gemm``); else None."""
    return helpers_for(xp).step_gemm(a, b, c) if is_device_array(a) else None



# torch 2.13's CPU node name for the layers it runs step by step (GRU and Elman always)
_STACK_NODE = "StackBackward0"


def _mask_array(mask):
    """The ops keep the packed mask as an array parameter (it is not differentiable)."""
    return None if mask is None else mask._array
