"""RoIPool (Girshick, Fast R-CNN): max over each bin of a region of interest.

The forward gathers every bin's window at once (RoIs are processed in chunks of similar bin
size, so the padding to the largest window stays small) and records where each maximum came
from; the backward sends each output gradient to that input position (a weighted bincount),
and the backward of that is the gather at the same positions, so second derivatives work.
"""

import numpy as np

import numtorch
import numtorch.fx
from numtorch import backend, nn
from numtorch._tensor import _make
from numtorch.autograd.graph import Op
from numtorch.nn.modules.utils import _pair

from ._utils import checked_rois

__all__ = ["roi_pool", "RoIPool"]

# elements gathered per chunk of RoIs (RoIs x bins x window x channels)
_CHUNK_ELEMENTS = 1 << 23


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _bin_edges(start, length, pooled, size, dtype):
    """Integer ``[lo, hi)`` rows (or columns) of every bin, clipped to the map: ``(K, pooled)``."""
    bin_size = length.astype(dtype) / dtype.type(pooled)
    p = np.arange(pooled, dtype=dtype)
    lo = np.floor(p[None] * bin_size[:, None]).astype(np.int64) + start[:, None]
    hi = np.ceil((p[None] + 1) * bin_size[:, None]).astype(np.int64) + start[:, None]
    return np.clip(lo, 0, size), np.clip(hi, 0, size)


def _pool_forward(x, rois, scale, pooled_h, pooled_w):
    """Max values and flat argmax positions (-1 for empty bins) of every RoI bin."""
    n, c, height, width = x.shape
    dtype = x.dtype
    k = rois.shape[0]
    scaled = _round_half_away(rois[:, 1:].astype(dtype) * dtype.type(scale)).astype(np.int64)
    x1, y1, x2, y2 = scaled.T
    rh = np.maximum(y2 - y1 + 1, 1)
    rw = np.maximum(x2 - x1 + 1, 1)
    h_lo, h_hi = _bin_edges(y1, rh, pooled_h, height, dtype)
    w_lo, w_hi = _bin_edges(x1, rw, pooled_w, width, dtype)
    batch = rois[:, 0].astype(np.int64)
    out = np.zeros((k, c, pooled_h, pooled_w), dtype=dtype)
    arg = np.full((k, c, pooled_h, pooled_w), -1, dtype=np.int64)
    span_h = np.maximum((h_hi - h_lo).max(axis=1, initial=0), 1)
    span_w = np.maximum((w_hi - w_lo).max(axis=1, initial=0), 1)
    order = np.argsort(span_h * span_w, kind="stable")
    per_roi = pooled_h * pooled_w * c
    i = 0
    while i < k:
        # as many RoIs as fit the budget with the chunk's padded window (halved until it fits)
        m = max(1, _CHUNK_ELEMENTS // (per_roi * int(span_h[order[i]] * span_w[order[i]])))
        while True:
            sel = order[i:i + m]
            cost = sel.size * per_roi * int(span_h[sel].max()) * int(span_w[sel].max())
            if cost <= _CHUNK_ELEMENTS or m == 1:
                break
            m //= 2
        _pool_chunk(x, sel, batch[sel], h_lo[sel], h_hi[sel], w_lo[sel], w_hi[sel], out, arg)
        i += sel.size
    return out, arg


_LOWEST = -float(np.finfo(np.float32).max)  # the kernel's starting max (-FLT_MAX, any dtype)


def _pool_chunk(x, sel, batch, h_lo, h_hi, w_lo, w_hi, out, arg):
    _, c, height, width = x.shape
    hm = max(int((h_hi - h_lo).max()), 1)
    wm = max(int((w_hi - w_lo).max()), 1)
    di = np.arange(hm)
    dj = np.arange(wm)
    rows = h_lo[:, :, None] + di                                   # (k, PH, hm)
    cols = w_lo[:, :, None] + dj                                   # (k, PW, wm)
    row_ok = rows < h_hi[:, :, None]
    col_ok = cols < w_hi[:, :, None]
    rows = np.minimum(rows, height - 1)
    cols = np.minimum(cols, width - 1)
    b = batch[:, None, None, None, None]
    r = rows[:, :, None, :, None]
    q = cols[:, None, :, None, :]
    win = x[b, :, r, q]                                            # (k, PH, PW, hm, wm, C)
    ok = (row_ok[:, :, None, :, None] & col_ok[:, None, :, None, :])
    # torchvision's kernel keeps a value only when it exceeds the running max, which starts
    # at -FLT_MAX: NaNs and values at or below -FLT_MAX are never picked
    win = np.where(ok[..., None] & (win > _LOWEST), win, -np.inf)
    k, ph, pw = win.shape[:3]
    flat = win.reshape(k, ph, pw, hm * wm, c)
    best = flat.argmax(axis=3)                                     # first maximum, row-major
    vals = np.take_along_axis(flat, best[:, :, :, None, :], axis=3)[:, :, :, 0, :]
    empty = ~ok.any(axis=(3, 4))                                   # (k, PH, PW)
    bi, bj = best // wm, best % wm
    src_h = np.take_along_axis(np.broadcast_to(rows[:, :, None, :], (k, ph, pw, hm)), bi, axis=3)
    src_w = np.take_along_axis(np.broadcast_to(cols[:, None, :, :], (k, ph, pw, wm)), bj, axis=3)
    chan = np.arange(c)
    flat_pos = ((batch[:, None, None, None] * c + chan) * height + src_h) * width + src_w
    none = vals == -np.inf  # a bin with no pickable value: -FLT_MAX, no gradient
    vals = np.where(empty[..., None], 0, np.where(none, _LOWEST, vals))
    flat_pos = np.where(empty[..., None] | none, -1, flat_pos)
    out[sel] = vals.transpose(0, 3, 1, 2)
    arg[sel] = flat_pos.transpose(0, 3, 1, 2)


class _RoIPool(Op):
    """Max pooling over RoI bins; saves where each maximum came from."""

    def forward(self, x, rois):
        # the window gathers run on the host; the results go back to the input's device
        dev = backend.device_of(x)
        out, arg = _pool_forward(backend.to_device(x, backend.CPU),
                                 backend.to_device(rois, backend.CPU), self.spatial_scale,
                                 self.pooled_h, self.pooled_w)
        out, arg = backend.to_device(out, dev), backend.to_device(arg, dev)
        self.save(argmax=arg)
        self.input_shape = x.shape
        return out

    def backward(self, grad):
        return _RoIPoolScatter.apply(grad, argmax=self.saved("argmax"),
                                     input_shape=self.input_shape), None


class _RoIPoolScatter(Op):
    """The RoIPool gradient: each output gradient added at its argmax (empty bins drop)."""

    def forward(self, grad):
        xp = self.xp
        idx = self.argmax.reshape(-1)
        keep = idx >= 0
        total = int(np.prod(self.input_shape))
        summed = xp.bincount(idx[keep], weights=grad.reshape(-1)[keep], minlength=total)
        return summed.astype(grad.dtype, copy=False).reshape(self.input_shape)

    def backward(self, gg):
        # the scatter's adjoint: read gg back at the argmax positions
        idx = _make(self.argmax)  # the backend array as it is (device memory on cuda)
        keep = idx >= 0
        picked = gg.reshape(-1)[idx.clamp(min=0)]
        return numtorch.where(keep, picked, numtorch.zeros_like(picked))


@numtorch.fx.wrap  # one fx node (the boxes' format is checked in Python)
def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Max-pool each region of interest to a fixed ``output_size`` grid (Fast R-CNN).

    Box corners are scaled by ``spatial_scale`` and rounded to whole cells; each bin takes
    the maximum of the cells it covers (0 for an empty bin).

    Args:
        input (Tensor[N, C, H, W]): feature maps.
        boxes (Tensor[K, 5] or list of Tensor[L, 4]): RoIs as ``(batch index, x1, y1, x2,
            y2)`` rows, or one ``(x1, y1, x2, y2)`` tensor per image. Same dtype as
            ``input``.
        output_size (int or (int, int)): ``(height, width)`` of the output.
        spatial_scale (float): box coordinate -> feature map scale. Default: 1.0.

    Returns:
        Tensor[K, C, output_size[0], output_size[1]].
    """
    rois = checked_rois(input, boxes, "roi_pool_forward_kernel")
    pooled_h, pooled_w = _pair(output_size)
    return _RoIPool.apply(input, rois.detach(), spatial_scale=spatial_scale,
                          pooled_h=pooled_h, pooled_w=pooled_w)


class RoIPool(nn.Module):
    """Module form of :func:`roi_pool`."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return roi_pool(input, rois, self.output_size, self.spatial_scale)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, "
                f"spatial_scale={self.spatial_scale})")
