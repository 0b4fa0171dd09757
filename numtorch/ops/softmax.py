"""softmax and log_softmax as primitives (one pass each, numerically stable).

Inputs of at most ``_TINY`` values along the last dim (a policy's action scores in a
reinforcement-learning loop: torch takes ~2 us there) are computed with Python floats: five
NumPy calls on a two-value array cost ~4 us of fixed overhead, the scalar loop ~1.5 us. The
values are within an ulp of torch's (see ``_tiny_rows`` for float32's roundings).
"""

import math
from array import array as _array

import numpy as np

from .. import _dtype
from .._required_dim import missing_dim
from .._tensor import Tensor, _make
from ..autograd import graph as _graph
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from ..backend._libm_f32 import SMALL
from ._accumulate import fsum, is_half
from ._intraop import split
from ._util import canonical_dim, check_dtype

__all__ = ["log_softmax", "softmax"]

_TINY = 16  # values, at most, for the scalar path
_ONE_VECTOR = 16  # float32 lanes of torch's CPU kernels
_F3264 = (np.dtype(np.float32), np.dtype(np.float64))
_exp = math.exp
_log = math.log


def _tiny_rows(a, log):
    """softmax (or log_softmax) of the small float32/float64 array ``a`` along its last dim,
    row by row in Python floats. For float32 the exponentials, the sum, and the reciprocal
    (or log) of the sum are rounded to float32 (``array('f')``) where torch rounds them:
    86% of the values equal torch's bit for bit, against 44% with one rounding at the end."""
    n = a.shape[-1]
    flat = a.ravel().tolist()
    f32 = a.dtype == np.float32
    out = []
    for i in range(0, len(flat), n):
        row = flat[i:i + n]
        m = max(row)
        # s >= 1 (the max contributes exp(0)) or NaN (a NaN or infinite max or value: then
        # every value is NaN, as torch's)
        e = [_exp(v - m) for v in row]
        if f32:
            e = _array("f", e).tolist()
            s = _array("f", [sum(e)])[0]
        else:
            s = sum(e)
        if log:
            c = _log(s)
            if f32:
                c = _array("f", [c])[0]
            out.extend([(v - m) - c for v in row])
        else:
            r = 1 / s  # torch multiplies by the reciprocal (its float64 values, bit for bit)
            if f32:
                r = _array("f", [r])[0]
            out.extend([v * r for v in e])
    return np.array(out, dtype=a.dtype).reshape(a.shape)


def _tiny_ok(x, d):
    """Whether the ``_TINY`` scalar path applies to the array ``x`` along ``d``."""
    return d == x.ndim - 1 and x.size <= _TINY and x.dtype in _F3264 and \
        type(x) is np.ndarray


_APPLY = Op.__dict__["apply"]  # the ONNX exporter swaps Op.apply while it traces


def _tiny_call(input, dim, dtype, cls):
    """The whole call on the scalar path, without an autograd node when none is needed
    (None when the path does not apply)."""
    a = input._array if type(input) is Tensor else None
    if dtype is not None or type(dim) is not int or type(a) is not np.ndarray or \
            not 0 < a.size <= _TINY or a.dtype not in _F3264:
        return None
    nd = a.ndim
    if not nd or (dim != nd - 1 and dim != -1):
        return None
    if _graph._hook is None and Op.__dict__["apply"] is _APPLY and not (
            _graph._state.enabled and (
            input._requires_grad or input._base is not None or input._extra is not None)):
        return _make(_tiny_rows(a, cls is LogSoftmax))
    return cls.apply(input, dim=nd - 1)


# The row path (``_rows_ok``): a contiguous float32/float64 CPU array of at least _ROWS_MIN
# values, softmax along its last dim of at most _ROW_MAX values, in blocks of about _BLOCK
# values (each block's passes then reuse the cache), split across the intra-op threads.
_ROWS_MIN = 4096
_ROW_MAX = 1024  # longer rows keep the pairwise sums of the general path
_BLOCK = 1 << 16
# A row's sum of exp(x) (no max subtracted) within these bounds has every value that matters
# finite and normal (see ``_softmax_block``); other rows take the max-shifted form.
_SUM_RANGE = {np.dtype(np.float32): (2.0 ** -20, 2.0 ** 100),
              np.dtype(np.float64): (2.0 ** -100, 2.0 ** 900)}


def _rows_ok(x, d):
    """Whether ``x`` takes the row path along ``d``."""
    return (d == x.ndim - 1 and type(x) is np.ndarray and x.dtype in _F3264 and
            x.size >= _ROWS_MIN and 1 < x.shape[-1] <= _ROW_MAX and x.flags.c_contiguous)


def _over_rows(kernel, arrays, n, passes):
    """Run ``kernel(*blocks)`` over blocks of rows of the (rows, n) views of ``arrays``,
    parts of the rows on the intra-op threads while two cores are free."""
    rows = arrays[0].size // n
    flat = [a.reshape(rows, n) for a in arrays]
    step = max(1, _BLOCK // n)

    def part(lo, hi):
        with np.errstate(all="ignore"):  # overflow and NaN rows are handled, as torch's
            for a in range(lo, hi, step):
                z = min(hi, a + step)
                kernel(*(f[a:z] for f in flat))

    split(part, rows, n * passes)


def _softmax_block(xs, ys):
    """Softmax of the rows of ``xs`` into ``ys``: exp(x) / sum(exp(x)) without the usual max
    subtraction (a slow broadcast pass and a slow reduction with rows this short) wherever
    the row's sum shows it is safe: finite (no overflow) and at least ``_SUM_RANGE``'s low
    bound, so the row's largest term is far above the smallest normal value and any term
    that underflowed weighs below 1e-30 (torch's values there are as tiny). Other rows (and
    NaN or infinite values) take the max-shifted form, giving torch's results for them."""
    np.exp(xs, out=ys)
    s = np.einsum("ij->i", ys)
    lo, hi = _SUM_RANGE[ys.dtype]
    ok = (s >= lo) & (s <= hi)
    if not ok.all():
        bad = np.flatnonzero(~ok)
        sub = xs[bad]
        e = np.exp(sub - sub.max(axis=1, keepdims=True))
        ys[bad] = e
        s[bad] = np.einsum("ij->i", e)
    np.reciprocal(s, out=s)  # as torch: a reciprocal, then products
    ys *= s[:, None]


def _softmax_grad_block(ys, gs, out):
    """y * (g - sum(g * y)) over the rows (torch's order of operations)."""
    s = np.einsum("ij,ij->i", gs, ys)
    np.subtract(gs, s[:, None], out=out)
    out *= ys


def _row_major(xp, x):
    """``x`` row-major: torch's softmax writes a row-major result whatever the input's layout
    (a transposed or channels-last input), and the ufuncs below follow their input's."""
    return x if x.flags.c_contiguous else xp.ascontiguousarray(x)


def _small_f32(x, d):
    """Whether the float32 CPU array ``x`` is small (``SMALL`` values, a classifier's batch:
    what users print) with rows shorter than one vector of torch's (16 float32 lanes) along
    its last dim ``d``: it then rounds as torch does, exp once from float64, rows added left
    to right, log once from float64. Against torch 2.13 (rows of 10) that cuts the values
    whose last bits differ from 48% to 10% (softmax) and 20% to 1.3% (log_softmax), for
    ~2-4 us a call; longer rows gain little (59 -> 49%, 13 -> 12% at 65), so keep NumPy's."""
    return d == x.ndim - 1 and type(x) is np.ndarray and x.dtype == np.float32 and \
        x.size <= SMALL and x.shape[d] < _ONE_VECTOR


def _exp_rounded(xp, v):
    return helpers_for(xp).float32_rounded(xp.exp, v)


def _row_total(xp, e, d):
    """The sums along the last dim ``d`` (kept), added left to right."""
    return helpers_for(xp).accumulate("add", e, d)[..., -1:]


def _inner_size(shape, d):
    n = 1
    for s in shape[d + 1:]:
        n *= s
    return n


class Softmax(Op):
    """y = exp(x - max) / sum(exp(x - max)); dx = y * (g - sum(g * y))."""

    def forward(self, x):
        d = self.dim
        if _tiny_ok(x, d):
            return self.save_output(_tiny_rows(x, False))
        if _rows_ok(x, d):
            y = np.empty_like(x)
            _over_rows(_softmax_block, (x, y), x.shape[-1], 4)
            return self.save_output(y)
        if d == x.ndim - 1 and is_device_array(x):  # a GPU: one row kernel (not meta)
            y = helpers_for(self.xp).softmax_rows(x)
            if y is not None:
                return self.save_output(y)
        xa = _row_major(self.xp, x.astype(np.float32) if is_half(x.dtype) else x)
        if _small_f32(x, d):
            e = _exp_rounded(self.xp, xa - xa.max(axis=d, keepdims=True))
            e *= 1 / _row_total(self.xp, e, d)
            return self.save_output(e)
        e = self.xp.exp(xa - xa.max(axis=d, keepdims=True))  # torch works in float32
        if is_half(x.dtype) and d != x.ndim - 1 and _inner_size(x.shape, d) < 64:
            # torch's kernel for an inner dim of a half type keeps the exponentials in that
            # type and divides them by their float32 sum where the dims after ``d`` hold few
            # values (measured: bit for bit for most below 64; from 64 its vector body, float32
            # throughout, decides)
            total = fsum(e, (d,), keepdims=True)
            e = e.astype(x.dtype).astype(np.float32)
            e /= total
        else:
            e *= 1 / fsum(e, (d,), keepdims=True)  # as torch: a reciprocal, then products
        return self.save_output(e.astype(x.dtype, copy=False))

    def backward(self, grad):
        return SoftmaxBackward.apply(self.saved_output(), grad, dim=self.dim)


class SoftmaxBackward(Op):
    """gx = y * (g - sum(g * y)) fused into one op (hot in attention and losses).

    d/dy = g * ... composed below from numtorch ops, so second order still works."""

    def forward(self, y, g):
        self.save_inputs(y, g)
        dt = g.dtype
        if _rows_ok(y, self.dim) and type(g) is np.ndarray and g.dtype == y.dtype and \
                g.flags.c_contiguous:
            out = np.empty_like(y)
            _over_rows(_softmax_grad_block, (y, g, out), y.shape[-1], 3)
            return out
        if self.dim == y.ndim - 1 and is_device_array(y):  # a GPU: one row kernel
            out = helpers_for(self.xp).softmax_rows_grad(y, g)
            if out is not None:
                return out
        if _small_f32(y, self.dim) and type(g) is np.ndarray and g.dtype == y.dtype:
            out = g - _row_total(self.xp, g * y, self.dim)  # torch's order: y (g - sum(g y))
            out *= y
            return out
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
        if _tiny_ok(x, d):
            return self.save_output(_tiny_rows(x, True))
        xa = _row_major(xp, x.astype(np.float32) if is_half(x.dtype) else x)
        shifted = xa - xa.max(axis=d, keepdims=True)  # torch works in float32
        if _small_f32(x, d):
            h = helpers_for(xp)
            shifted -= h.float32_rounded(xp.log, _row_total(xp, _exp_rounded(xp, shifted), d))
        elif is_half(x.dtype) and d == x.ndim - 1:
            # torch's last-dim kernel for half types rounds the sum of the float32
            # exponentials and its log to the type (rounding each exponential too made 1-2%
            # of values differ)
            def r(a):
                return a.astype(x.dtype).astype(np.float32)

            shifted -= r(xp.log(r(fsum(xp.exp(shifted), (d,), keepdims=True))))
        else:
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
        if _small_f32(y, self.dim) and type(g) is np.ndarray and g.dtype == y.dtype:
            p = _exp_rounded(self.xp, y)
            p *= _row_total(self.xp, g, self.dim)
            return g - p
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
        check_dtype(dtype)
        input = input.to(_dtype.as_dtype(dtype))
    d = canonical_dim(dim, input.dim())
    if input.dtype._category != _dtype._FLOAT and input.numel():
        # torch names the kernel it would have run: the last-dim one or the strided one
        kernel = "lastdim_kernel_impl" if d >= input.dim() - 1 else "kernel_impl"
        raise NotImplementedError(f'"{fn}_{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[input.dtype.name]}'")
    return input, d


def softmax(input, dim=missing_dim, dtype=None):
    """Softmax along ``dim``: ``exp(x) / sum(exp(x))`` computed without overflow."""
    missing_dim.check(dim, "softmax")
    y = _tiny_call(input, dim, dtype, Softmax)
    if y is not None:
        return y
    x, d = _prepare(input, dim, dtype, "softmax")
    if x.dim() == 0:
        return Softmax.apply(x.reshape(1), dim=0).reshape(())
    if x.numel() == 0:
        return x.clone()
    return Softmax.apply(x, dim=d)


def log_softmax(input, dim=missing_dim, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably in one pass."""
    missing_dim.check(dim, "log_softmax")
    y = _tiny_call(input, dim, dtype, LogSoftmax)
    if y is not None:
        return y
    x, d = _prepare(input, dim, dtype, "log_softmax")
    if x.dim() == 0:
        return LogSoftmax.apply(x.reshape(1), dim=0).reshape(())
    if x.numel() == 0:
        return x.clone()
    return LogSoftmax.apply(x, dim=d)
