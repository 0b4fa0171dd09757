"""Training-mode batch norm of a contiguous CPU float32/float64 input as one op that takes the
per-channel ``(C,)`` weight and bias as they are.

Why: the general ``NormalizeAffine`` wants parameters broadcastable to the input, so batch
norm passed ``(1, C, 1, 1)`` views of them: two reshape ops and their backward nodes per
call, and its backward, composed through ``NormalizeAffineBackward``, built one more node.
On small maps that was most of the time (a (8, 4, 2, 2) batch norm: 80 us against torch's
7). Here the arrays are reshaped inside (no graph), the first-order backward runs
``norm_channels.backward`` straight from the saved arrays, and only a graph-building
backward (double backward) goes through the composed op, with the views made there.
"""

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import ops_traced
from ..backend._fma import fma_once
from . import norm_channels
from .norm_ops import NormalizeAffine, NormalizeAffineBackward, _sum_keepdim

__all__ = ["BatchNormAffine", "applies", "running_arrays", "running_normalize"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _kept(x_ndim, c):
    return (1, c) + (1,) * (x_ndim - 2)


def applies(x, w, b):
    """Whether ``BatchNormAffine`` computes batch norm of the array ``x`` with the parameter
    arrays ``w``/``b`` (each None or ``(C,)``): ``norm_channels``' kernels' conditions."""
    if type(x) is not np.ndarray or x.ndim < 3 or x.dtype not in _FLOATS or \
            not x.flags.c_contiguous or x.size == 0 or x.size // x.shape[1] < 2:
        return False
    c = x.shape[1]
    return all(p is None or (type(p) is np.ndarray and p.shape == (c,) and p.dtype == x.dtype)
               for p in (w, b))


class BatchNormAffine(NormalizeAffine):
    """y = (x - mean) / sqrt(var + eps) * w + b over every dim but 1 (``dims``), ``w`` and
    ``b`` of shape ``(C,)``; ``stats`` receives the batch mean and biased variance."""

    def forward(self, x, w, b):
        kept = _kept(x.ndim, x.shape[1])
        self.w_shape = None if w is None else w.shape
        self.b_shape = None if b is None else b.shape
        return self._channels_forward(x, w, None if w is None else w.reshape(kept),
                                      None if b is None else b.reshape(kept))

    def _outs(self):
        need_x, need_w, need_b = self.needs_input_grad
        return tuple(k for k, need in (("x", need_x), ("w", need_w), ("b", need_b)) if need)

    def backward_arrays(self, gy):
        if self._saved is None or type(gy) is not np.ndarray:
            return NotImplemented
        outs = self._outs()
        if not outs:
            return None, None, None
        arrays = self.saved_input_arrays()  # checks them for in-place changes too
        extra = self._saved["extra"]
        data = extra["data"]
        if gy.dtype != data.dtype or gy.shape != data.shape:
            return NotImplemented
        gy = np.ascontiguousarray(gy)  # (a strided gradient: one copy, the same kernel)
        w = None if self.w_shape is None else arrays[1].reshape(_kept(gy.ndim, gy.shape[1]))
        got = norm_channels.backward(self, gy, w, data, extra["invstd"], outs, _sum_keepdim)
        return got.get("x"), got.get("w"), got.get("b")

    def backward(self, gy):
        saved = self.saved_inputs()
        x, w = (saved, None) if self.w_shape is None else saved
        outs = self._outs()
        if not outs:
            return None, None, None
        kept = _kept(x.ndim, x.shape[1])
        extra = self._check_saved()["extra"]
        res = NormalizeAffineBackward.apply(
            gy, x, None if w is None else w.reshape(kept), data=extra["data"], centered=True,
            mean=None, invstd=extra["invstd"], dims=self.dims, n=self.n, eps=self.eps,
            outs=outs, w_shape=None if w is None else kept,
            b_shape=None if self.b_shape is None else kept)
        got = dict(zip(outs, res if type(res) is tuple else (res,)))
        gw, gb = got.get("w"), got.get("b")
        return (got.get("x"), None if gw is None else gw.reshape(self.w_shape),
                None if gb is None else gb.reshape(self.b_shape))


def running_arrays(input, *others):
    """The arrays of an eval-mode batch norm's tensors (input, running mean and variance,
    weight, bias; None allowed) when nothing needs a graph (no grad mode, or nothing
    requiring grad), no op tracing runs, and all are host float32/float64 arrays of the
    input's dtype; else None."""
    tensors = (input,) + others
    if is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors) or \
            ops_traced():
        return None
    arrays = tuple(None if t is None else t._array for t in tensors)
    a = arrays[0]
    if type(a) is not np.ndarray or a.dtype not in _FLOATS or any(
            p is not None and (type(p) is not np.ndarray or p.dtype != a.dtype)
            for p in arrays[1:]):
        return None
    return arrays


def running_normalize(x, mean, var, w, b, eps):
    """Eval-mode batch norm on ``running_arrays``' arrays, in the ops' order of
    ``nn.functional``'s graph path (the same bits): torch's shift ``b - mean * scale`` and
    output ``x * scale + shift`` each rounded once. One call instead of eight ops for
    inference (an eval-mode BatchNorm2d 50 -> ~18 us)."""
    dt = x.dtype.type
    scale = 1 / np.sqrt(var + dt(eps))
    if w is not None:
        scale = scale * w
    shift = None if b is None else fma_once(b, -mean, scale)
    if shift is None:
        shift = -mean * scale if b is None else -mean * scale + b
    kept = (1, -1) + (1,) * (x.ndim - 2)
    scale, shift = scale.reshape(kept), shift.reshape(kept)
    y = fma_once(shift, x, scale)  # as Addcmul computes it
    return x * scale + shift if y is None else y
