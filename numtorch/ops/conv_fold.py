"""The sliding-block pair ``unfold``/``fold`` (``Im2Col``/``Col2Im``): each is the other's
gradient, in torch's ``(N, C * prod(kernel), L)`` layout, on the strided windows and the
col2im scatter that the convolutions in :mod:`numtorch.ops.conv` use.
"""

from ..autograd.graph import Op
from .conv import _col2im_into, _pad_zeros, _prod, _windows, out_size

__all__ = []


def _col2im(xp, cols, size, stride, padding, dilation):
    """Sum the windows ``cols`` ``(N, C, *kernel, *out)`` into a new ``(N, C, *size)``."""
    n, c = cols.shape[:2]
    full = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    buf = xp.zeros((n, c) + full, dtype=cols.dtype)
    _col2im_into(buf, cols, stride, dilation)
    if not any(lo or hi for lo, hi in padding):
        return buf
    crop = buf[(slice(None),) * 2 + tuple(slice(lo, lo + s) for s, (lo, _) in
                                          zip(size, padding))]
    return xp.ascontiguousarray(crop)



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
        return cols.reshape(x.shape[0], x.shape[1] * _prod(self.kernel), _prod(out))

    def backward(self, grad):
        out = out_size(self.size, self.kernel, self.stride, self.padding, self.dilation)
        return Col2Im.apply(grad, size=tuple(self.size), out=out, kernel=self.kernel,
                            stride=self.stride, padding=self.padding, dilation=self.dilation)


class Col2Im(Op):
    """y (N, C, *size) = sum of the windows in x (N, C*prod(k), L); dx = im2col(g)."""

    def forward(self, x):
        n, c = x.shape[0], x.shape[1] // _prod(self.kernel)
        cols = x.reshape((n, c) + tuple(self.kernel) + tuple(self.out))
        return _col2im(self.xp, cols, self.size, self.stride, self.padding, self.dilation)

    def backward(self, grad):
        return Im2Col.apply(grad, kernel=self.kernel, stride=self.stride, padding=self.padding,
                            dilation=self.dilation)


def im2col(input, kernel, stride, padding, dilation):
    """Sliding blocks of a checked ``(N, C, *S)`` input as ``(N, C*prod(kernel), L)``."""
    return Im2Col.apply(input, kernel=tuple(kernel), stride=tuple(stride),
                        padding=tuple(padding), dilation=tuple(dilation))


def col2im(input, size, kernel, stride, padding, dilation):
    """Sum checked blocks ``(N, C*prod(kernel), L)`` into ``(N, C, *size)``."""
    out = out_size(size, kernel, stride, padding, dilation)
    return Col2Im.apply(input, size=tuple(size), out=out, kernel=tuple(kernel),
                        stride=tuple(stride), padding=tuple(padding), dilation=tuple(dilation))
