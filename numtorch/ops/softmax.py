"""softmax and log_softmax as primitives (one pass each, numerically stable)."""

import numpy as np

from .. import _dtype
from ..autograd.graph import Op
from ._accumulate import fsum, is_half
from ._util import canonical_dim

__all__ = ["softmax", "log_softmax"]


class Softmax(Op):
    """y = exp(x - max) / sum(exp(x - max)); dx = y * (g - sum(g * y))."""

    def forward(self, x):
        d = self.dim
        xa = x.astype(np.float32) if is_half(x.dtype) else x  # torch works in float32
        e = self.xp.exp(xa - xa.max(axis=d, keepdims=True))
        e /= fsum(e, (d,), keepdims=True)
        return self.save_output(e.astype(x.dtype, copy=False))

    def backward(self, grad):
        return SoftmaxBackward.apply(self.saved_output(), grad, dim=self.dim)


class SoftmaxBackward(Op):
    """gx = y * (g - sum(g * y)) fused into one op (hot in attention and losses).

    d/dy = g * ... composed below from numtorch ops, so second order still works."""

    def forward(self, y, g):
        self.save_inputs(y, g)
        dt = g.dtype
        if is_half(y.dtype):
            y, g = y.astype(np.float32), g.astype(np.float32)
        gy = g * y
        gy -= y * fsum(gy, (self.dim,), keepdims=True)
        return gy.astype(dt, copy=False)

    def backward(self, gg):
        y, g = self.saved_inputs()
        d = self.dim
        s = (g * y).sum(d, keepdim=True)
        t = (gg * y).sum(d, keepdim=True)
        gy = gg * (g - s) - g * t
        gg_out = y * (gg - t)
        return gy, gg_out


class LogSoftmax(Op):
    """y = x - max - log(sum(exp(x - max))); dx = g - exp(y) * sum(g)."""

    def forward(self, x):
        xp, d = self.xp, self.dim
        xa = x.astype(np.float32) if is_half(x.dtype) else x  # torch works in float32
        shifted = xa - xa.max(axis=d, keepdims=True)
        shifted -= xp.log(fsum(xp.exp(shifted), (d,), keepdims=True))
        return self.save_output(shifted.astype(x.dtype, copy=False))

    def backward(self, grad):
        return LogSoftmaxBackward.apply(self.saved_output(), grad, dim=self.dim)


class LogSoftmaxBackward(Op):
    """gx = g - exp(y) * sum(g) fused into one op; its own backward is composed."""

    def forward(self, y, g):
        self.save_inputs(y, g)
        dt = g.dtype
        if is_half(y.dtype):
            y, g = y.astype(np.float32), g.astype(np.float32)
        p = self.xp.exp(y)
        p *= fsum(g, (self.dim,), keepdims=True)
        return (g - p).astype(dt, copy=False)

    def backward(self, gg):
        y, g = self.saved_inputs()
        d = self.dim
        p = y.exp()
        gsum = g.sum(d, keepdim=True)
        pgg = (p * gg).sum(d, keepdim=True)
        return -gg * p * gsum, gg - pgg


def _prepare(input, dim, dtype, fn):
    if dtype is not None:
        input = input.to(_dtype.as_dtype(dtype))
    if dim is None:  # torch's legacy implicit choice
        nd = input.dim()
        dim = 0 if nd in (0, 1, 3) else 1
    d = canonical_dim(dim, input.dim())
    if input.dtype._category != _dtype._FLOAT and input.numel():
        # torch names the kernel it would have run: the last-dim one or the strided one
        kernel = "lastdim_kernel_impl" if d >= input.dim() - 1 else "kernel_impl"
        raise NotImplementedError(f'"{fn}_{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    return input, d


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim``: ``exp(x) / sum(exp(x))`` computed without overflow."""
    x, d = _prepare(input, dim, dtype, "softmax")
    if x.dim() == 0:
        return Softmax.apply(x.reshape(1), dim=0).reshape(())
    if x.numel() == 0:
        return x.clone()
    return Softmax.apply(x, dim=d)


def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably in one pass."""
    x, d = _prepare(input, dim, dtype, "log_softmax")
    if x.dim() == 0:
        return LogSoftmax.apply(x.reshape(1), dim=0).reshape(())
    if x.numel() == 0:
        return x.clone()
    return LogSoftmax.apply(x, dim=d)
