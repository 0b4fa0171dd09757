"""im2col of strided 2-d convolutions from phase planes.

Why: im2col through a strided view of the padded input copies, for a stride-2 convolution,
one element at a time (every innermost run steps over every other input value); for
ResNet-18's 7x7 stem those columns are ~12x the input. Here the padded input is first split
into its ``stride_h * stride_w`` phases, ``P[rh, rw][i, j] = xpad[i * sh + rh, j * sw + rw]``
(one strided pass over the input). Output ``(i, j)`` under kernel tap
``(rh + a * sh, rw + b * sw)`` reads ``P[rh, rw][i + a, j + b]``, so the columns of every tap
of one phase are one view of that phase with unit-stride rows of ``out_w`` values, and a
block's im2col is ``sh * sw`` copies of whole output rows. The columns keep the usual
``(C, kh, kw)`` row order: the GEMMs and the weight's layout are those of plain im2col.
"""

from ..backend import helpers_for
from . import _intraop

__all__ = []


# output rows at least this long: ResNet-18's 3x3 stride-2 convs (rows of 4-14 outputs)
# measured 2-10% slower so, its 7x7 stem (56) 6-7% faster (one thread, CPU time)
MIN_WIDTH = 32


def applies(x, kernel, stride, dilation, out):
    """Whether the columns of this convolution come from phase planes: 2-d, strided, no
    dilation, a kernel reaching past the stride (else a tap reads one phase only and the
    strided view is as good) and long output rows."""
    return (x.ndim == 4 and len(kernel) == 2 and any(s > 1 for s in stride)
            and tuple(dilation) == (1, 1) and any(k > 1 for k in kernel)
            and out[-1] >= MIN_WIDTH)


def _taps(k, s):
    """Per phase ``r < s``: how many kernel taps ``r, r + s, ...`` fall below ``k``."""
    return [max(0, -(-(k - r) // s)) for r in range(s)]


class Planes:
    """The phase planes of a zero-padded input ``(N, C, H, W)``; ``columns(i, m)`` gives the
    im2col block ``(C * kh * kw, m * out_h * out_w)`` of samples ``i:i+m``."""

    def __init__(self, xp, x, kernel, stride, padding, out):
        n, c, h, w = x.shape
        (kh, kw), (sh, sw) = kernel, stride
        self.xp, self.kernel, self.stride, self.out = xp, tuple(kernel), tuple(stride), out
        self.rows, self.cols = _taps(kh, sh), _taps(kw, sw)
        hq = out[0] + (kh - 1) // sh
        wq = out[1] + (kw - 1) // sw
        self.phases = [(rh, rw) for rh in range(sh) for rw in range(sw)
                       if self.rows[rh] and self.cols[rw]]
        (lh, _), (lw, _) = padding
        p = xp.zeros((sh, sw, n, c, hq, wq), dtype=x.dtype)
        for rh, rw in self.phases:
            i0 = max(0, -(-(lh - rh) // sh))  # the first phase row (column) inside x
            j0 = max(0, -(-(lw - rw) // sw))
            h0, w0 = i0 * sh + rh - lh, j0 * sw + rw - lw
            if h0 >= h or w0 >= w:
                continue
            rows = min(hq - i0, -(-(h - h0) // sh))
            cols = min(wq - j0, -(-(w - w0) // sw))
            if rows > 0 and cols > 0:
                _intraop.copy(x[:, :, h0:h0 + sh * rows:sh, w0:w0 + sw * cols:sw],
                              p[rh, rw, :, :, i0:i0 + rows, j0:j0 + cols])
        self.p = p

    def columns(self, i, m, rows=None, dst=None):
        """The block of samples ``i:i+m``, or of output rows ``rows = (r0, r1)`` only; written
        into the 2-d view ``dst`` (unit-stride rows) if given."""
        c = self.p.shape[3]
        (kh, kw), (sh, sw), (oh, ow) = self.kernel, self.stride, self.out
        r0, r1 = (0, oh) if rows is None else rows
        cols = self.xp.empty((c * kh * kw, m * (r1 - r0) * ow), dtype=self.p.dtype) \
            if dst is None else dst
        dst = cols.reshape(c, kh, kw, m, r1 - r0, ow)
        strided = helpers_for(self.xp).as_strided
        for rh, rw in self.phases:
            plane = self.p[rh, rw, i:i + m, :, r0:]  # (m, C, hq - r0, wq)
            sn, sc, sy, sx = plane.strides
            view = strided(plane, (c, self.rows[rh], self.cols[rw], m, r1 - r0, ow),
                           (sc, sy, sx, sn, sy, sx))
            _intraop.copy(view, dst[:, rh::sh, rw::sw])
        return cols

    def samples(self, i, m, dst):
        """The columns of samples ``i:i+m`` one sample after another, ``(m, C * kh * kw,
        out_h * out_w)``, written into the contiguous ``dst`` of that shape (the per-sample
        GEMMs of a network's first layer)."""
        c = self.p.shape[3]
        (kh, kw), (sh, sw), (oh, ow) = self.kernel, self.stride, self.out
        strided = helpers_for(self.xp).as_strided
        if kh % sh == 0 and kw % sw == 0:
            # every phase has the same taps: one copy, unit-stride on both sides (four per
            # phase into every other row measured ~25% slower for dcgan's 3 -> 16 4x4/2)
            p = self.p[:, :, i:i + m]
            s_h, s_w, sn, sc, sy, sx = p.strides
            view = strided(p, (m, c, kh // sh, sh, kw // sw, sw, oh, ow),
                           (sn, sc, sy, s_h, sx, s_w, sy, sx))
            _intraop.copy(view, dst.reshape(view.shape))
            return dst
        out = dst.reshape(m, c, kh, kw, oh, ow)
        for rh, rw in self.phases:
            plane = self.p[rh, rw, i:i + m]  # (m, C, hq, wq)
            sn, sc, sy, sx = plane.strides
            view = strided(plane, (m, c, self.rows[rh], self.cols[rw], oh, ow),
                           (sn, sc, sy, sx, sy, sx))
            _intraop.copy(view, out[:, :, rh::sh, rw::sw])
        return dst
