"""Convolution primitives: N-d convolution, its transpose, and the im2col/col2im pair.

Why primitives (design doc, section 8): a convolution composed of views and matmul would record
a dozen nodes and keep every intermediate alive; written here it is one strided view of the
input (im2col through ``as_strided``, no Python loop over output positions), one copy into
GEMM layout and ONE matmul per call, batched over groups.

The three ops are each other's gradients, which is what makes double backward work:

* ``Conv(x, w)``            -> y
* ``ConvTranspose(y, w)``   -> x-shaped   (the input gradient of Conv; col2im after a GEMM)
* ``ConvWeight(x, y)``      -> w-shaped   (the weight gradient of Conv; one GEMM)

Conv's backward is ``ConvTranspose`` (for x) and ``ConvWeight`` (for w); ConvTranspose's
backward is ``Conv`` and ``ConvWeight``; ConvWeight's backward is ``ConvTranspose`` and
``Conv``. All three are bilinear, so this closes under differentiation.

Layout: the GEMM operand ("cols") is ``(groups, C/groups * prod(kernel), N * prod(out))``.
Putting the batch inside the GEMM's long dim gives one large BLAS call, which BLAS threads far
better than one call per sample; the price is one transpose copy of the (smaller) output.
``unfold``/``fold`` (``Im2Col``/``Col2Im``) use torch's ``(N, C * prod(kernel), L)`` layout.

Padding is given per spatial dim as ``(low, high)`` pairs, so the asymmetric padding of
``padding='same'`` with even kernels needs no separate pad copy.
"""

import itertools

from ..autograd.graph import Op
from ..backend import helpers_for

__all__ = []


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def out_size(size, kernel, stride, padding, dilation):
    """Output spatial size of a convolution (floor division, as torch)."""
    return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1
                 for s, k, st, (lo, hi), d in zip(size, kernel, stride, padding, dilation))


def _pad_zeros(xp, x, padding):
    """``x`` with zeros added around its spatial dims (``x`` itself when no padding)."""
    if not any(lo or hi for lo, hi in padding):
        return x
    nd = len(padding)
    shape = x.shape[:-nd] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[-nd:], padding))
    out = xp.zeros(shape, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in
                            zip(x.shape[-nd:], padding))] = x
    return out


def _windows(xp, x, kernel, stride, dilation, out):
    """The read-only strided view ``(N, C, *out, *kernel)`` of a padded ``(N, C, *S)`` x."""
    nd = len(kernel)
    lead, sp = x.strides[:2], x.strides[2:]
    shape = x.shape[:2] + tuple(out) + tuple(kernel)
    strides = (lead + tuple(s * st for s, st in zip(sp, stride))
               + tuple(s * d for s, d in zip(sp, dilation)))
    assert len(shape) == 2 + 2 * nd
    return helpers_for(xp).as_strided(x, shape, strides)


def _gemm_cols(xp, x, kernel, stride, padding, dilation, groups):
    """im2col in GEMM layout ``(groups, C/groups * prod(kernel), N * prod(out))``."""
    nd = len(kernel)
    xpad = _pad_zeros(xp, x, padding)
    out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    win = _windows(xp, xpad, kernel, stride, dilation, out)
    # (N, C, *out, *k) -> (C, *k, N, *out): the copy reads rows of x along the last out dim
    axes = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    cols = xp.ascontiguousarray(win.transpose(axes))
    n, c = x.shape[:2]
    return cols.reshape(groups, (c // groups) * _prod(kernel), n * _prod(out)), out


def _col2im(xp, cols, size, stride, padding, dilation):
    """Sum the windows ``cols`` ``(N, C, *kernel, *out)`` back into ``(N, C, *size)``.

    One strided add per kernel offset (prod(kernel) adds of the whole batch), never a loop
    over output positions and never ``add.at``: within one offset the windows never collide.
    """
    nd = len(size)
    n, c = cols.shape[:2]
    kernel, out = cols.shape[2:2 + nd], cols.shape[2 + nd:]
    full = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    buf = xp.zeros((n, c) + full, dtype=cols.dtype)
    lead = (slice(None), slice(None))
    if buf.size and cols.size:
        for kidx in itertools.product(*(range(k) for k in kernel)):
            dst = tuple(slice(k * d, k * d + st * (o - 1) + 1, st)
                        for k, d, st, o in zip(kidx, dilation, stride, out))
            buf[lead + dst] += cols[lead + kidx]
    if not any(lo or hi for lo, hi in padding):
        return buf
    crop = buf[lead + tuple(slice(lo, lo + s) for s, (lo, _) in zip(size, padding))]
    return xp.ascontiguousarray(crop)


def _add_bias(xp, y, b, nd):
    if b is not None:
        y += b.reshape((-1,) + (1,) * nd)
    return y


def _bias_grad(grad, nd):
    return grad.sum((0,) + tuple(range(2, 2 + nd)))


class Conv(Op):
    """y = conv(x, w) (+ b); dx = conv_transpose(g, w), dw = conv_weight(x, g), db = sum(g)."""

    def forward(self, x, w, b=None):
        self.save_inputs(x, w)
        xp, groups = self.xp, self.groups
        kernel = w.shape[2:]
        nd = len(kernel)
        cols, out = _gemm_cols(xp, x, kernel, self.stride, self.padding, self.dilation, groups)
        n, o = x.shape[0], w.shape[0]
        y = xp.matmul(w.reshape(groups, o // groups, -1), cols)  # (g, O/g, N * L)
        y = y.reshape((o, n) + out)
        if n == 1:
            y = y.reshape((1, o) + out)
            return _add_bias(xp, y, b, nd)
        res = xp.empty((n, o) + out, dtype=y.dtype)
        if b is None:
            res[...] = y.swapaxes(0, 1)
        else:  # the transpose copy and the bias add in one pass
            xp.add(y.swapaxes(0, 1), b.reshape((-1,) + (1,) * nd), out=res)
        return res

    def backward(self, grad):
        x, w = self.saved_inputs()
        needs = self.needs_input_grad
        nd = w.ndim - 2
        args = dict(stride=self.stride, padding=self.padding, dilation=self.dilation,
                    groups=self.groups)
        gx = ConvTranspose.apply(grad, w, size=tuple(x.shape[2:]), **args) if needs[0] else None
        gw = ConvWeight.apply(x, grad, kernel=tuple(w.shape[2:]), **args) if needs[1] else None
        if len(needs) == 2:
            return gx, gw
        return gx, gw, (_bias_grad(grad, nd) if needs[2] else None)


class ConvTranspose(Op):
    """y = conv_transpose(x, w) (+ b) to spatial ``size``; dx = conv(g, w),
    dw = conv_weight(g, x), db = sum(g)."""

    def forward(self, x, w, b=None):
        self.save_inputs(x, w)
        xp, groups = self.xp, self.groups
        kernel = w.shape[2:]
        nd = len(kernel)
        n, ci = x.shape[:2]
        co = w.shape[1] * groups
        in_sp = x.shape[2:]
        # x as the GEMM's right operand: (g, Ci/g, N * L); a copy only when N > 1
        xt = x.reshape(n, ci, -1).swapaxes(0, 1).reshape(groups, ci // groups, -1)
        wm = w.reshape(groups, ci // groups, -1)
        cols = xp.matmul(wm.swapaxes(1, 2), xt)  # (g, Co/g * K, N * L)
        cols = cols.reshape((co,) + tuple(kernel) + (n,) + tuple(in_sp))
        cols = xp.moveaxis(cols, 1 + nd, 0)  # a view (N, Co, *K, *L)
        y = _col2im(xp, cols, self.size, self.stride, self.padding, self.dilation)
        return _add_bias(xp, y, b, nd)

    def backward(self, grad):
        x, w = self.saved_inputs()
        needs = self.needs_input_grad
        nd = w.ndim - 2
        args = dict(stride=self.stride, padding=self.padding, dilation=self.dilation,
                    groups=self.groups)
        gx = Conv.apply(grad, w, **args) if needs[0] else None
        gw = ConvWeight.apply(grad, x, kernel=tuple(w.shape[2:]), **args) if needs[1] else None
        if len(needs) == 2:
            return gx, gw
        return gx, gw, (_bias_grad(grad, nd) if needs[2] else None)


class ConvWeight(Op):
    """dw = conv_weight(x, gy): the weight gradient of ``y = conv(x, w)``; bilinear, so
    d/dx = conv_transpose(gy, G) and d/dgy = conv(x, G) for a cotangent G."""

    def forward(self, x, gy):
        self.save_inputs(x, gy)
        xp, groups, kernel = self.xp, self.groups, self.kernel
        cols, _ = _gemm_cols(xp, x, kernel, self.stride, self.padding, self.dilation, groups)
        n, o = gy.shape[:2]
        gyt = gy.reshape(n, o, -1).swapaxes(0, 1).reshape(groups, o // groups, -1)
        dw = xp.matmul(gyt, cols.swapaxes(1, 2))  # (g, O/g, C/g * K)
        return dw.reshape((o, x.shape[1] // groups) + tuple(kernel))

    def backward(self, gg):
        x, gy = self.saved_inputs()
        nx, ngy = self.needs_input_grad
        args = dict(stride=self.stride, padding=self.padding, dilation=self.dilation,
                    groups=self.groups)
        gx = ConvTranspose.apply(gy, gg, size=tuple(x.shape[2:]), **args) if nx else None
        ggy = Conv.apply(x, gg, **args) if ngy else None
        return gx, ggy


class Im2Col(Op):
    """y (N, C*prod(k), L) = the sliding windows of x; dx = col2im(g) (sums overlaps)."""

    def forward(self, x):
        xp = self.xp
        nd = len(self.kernel)
        self.size = x.shape[2:]
        xpad = _pad_zeros(xp, x, self.padding)
        out = out_size(x.shape[2:], self.kernel, self.stride, self.padding, self.dilation)
        win = _windows(xp, xpad, self.kernel, self.stride, self.dilation, out)
        axes = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
        cols = xp.ascontiguousarray(win.transpose(axes))
        return cols.reshape(x.shape[0], -1, _prod(out))

    def backward(self, grad):
        out = out_size(self.size, self.kernel, self.stride, self.padding, self.dilation)
        return Col2Im.apply(grad, size=tuple(self.size), out=out, kernel=self.kernel,
                            stride=self.stride, padding=self.padding, dilation=self.dilation)


class Col2Im(Op):
    """y (N, C, *size) = sum of the windows in x (N, C*prod(k), L); dx = im2col(g)."""

    def forward(self, x):
        n = x.shape[0]
        cols = x.reshape((n, -1) + tuple(self.kernel) + tuple(self.out))
        return _col2im(self.xp, cols, self.size, self.stride, self.padding, self.dilation)

    def backward(self, grad):
        return Im2Col.apply(grad, kernel=self.kernel, stride=self.stride, padding=self.padding,
                            dilation=self.dilation)


def conv(input, weight, bias, stride, padding, dilation, groups):
    """N-d convolution of checked operands (see :func:`numtorch.nn.functional.conv2d`).

    ``input`` is ``(N, C, *S)``, ``weight`` ``(O, C/groups, *k)``; ``stride`` and
    ``dilation`` are tuples, ``padding`` a tuple of ``(low, high)`` pairs per spatial dim.
    """
    args = (input, weight) if bias is None else (input, weight, bias)
    return Conv.apply(*args, stride=tuple(stride), padding=tuple(padding),
                      dilation=tuple(dilation), groups=groups)


def conv_transpose(input, weight, bias, stride, padding, dilation, groups, size):
    """N-d transposed convolution of checked operands to the spatial ``size``.

    ``weight`` is ``(C_in, C_out/groups, *k)``; ``size`` is the output's spatial shape (the
    input shape of the convolution this transposes, output padding included).
    """
    args = (input, weight) if bias is None else (input, weight, bias)
    return ConvTranspose.apply(*args, stride=tuple(stride), padding=tuple(padding),
                               dilation=tuple(dilation), groups=groups, size=tuple(size))


def im2col(input, kernel, stride, padding, dilation):
    """Sliding blocks of a checked ``(N, C, *S)`` input as ``(N, C*prod(kernel), L)``."""
    return Im2Col.apply(input, kernel=tuple(kernel), stride=tuple(stride),
                        padding=tuple(padding), dilation=tuple(dilation))


def col2im(input, size, kernel, stride, padding, dilation):
    """Sum checked blocks ``(N, C*prod(kernel), L)`` into ``(N, C, *size)``."""
    out = out_size(size, kernel, stride, padding, dilation)
    return Col2Im.apply(input, size=tuple(size), out=out, kernel=tuple(kernel),
                        stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation))
