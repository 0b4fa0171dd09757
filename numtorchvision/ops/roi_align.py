"""RoIAlign (He et al., Mask R-CNN): average of bilinearly sampled points in each output bin.

Bilinear sampling on a regular grid is separable: the value of bin ``(p, q)`` of RoI ``k`` is
``sum_{h,w} Ay[k, p, h] * X[b_k, c, h, w] * Ax[k, q, w]``, where ``Ay`` (``Ax``) holds the
averaged vertical (horizontal) interpolation weights of the bin's sample rows (columns).
The weights are built for all RoIs at once; the contraction is two GEMMs per image; the
gradient with respect to the input (and its second derivative) comes from numtorch's
autograd through those products. Boxes get no gradient, as in torchvision.
"""

import numpy as np

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn.modules.utils import _pair

from ._utils import checked_rois

__all__ = ["roi_align", "RoIAlign"]

# RoIs per GEMM chunk are capped so that the (rois * bins, C * W) intermediate stays below
# this many elements.
_CHUNK_ELEMENTS = 1 << 24


def _axis_weights(xp, start, length, pooled, grid, size, dtype):
    """Averaged interpolation weights along one axis, shape ``(K, pooled, size)``.

    ``start``/``length``: per-RoI start coordinate and extent (in feature-map units);
    ``grid``: per-RoI number of samples per bin along this axis.
    """
    k = start.shape[0]
    gmax = max(int(grid.max()) if k else 0, 1)
    bin_size = length / dtype.type(pooled)
    p = xp.arange(pooled, dtype=dtype)[None, :, None]
    i = xp.arange(gmax)[None, None, :]
    g = grid[:, None, None]
    gf = xp.maximum(g, 1).astype(dtype)
    # sample i of bin p sits at the centre of the i-th of g equal sub-bins
    pos = (start[:, None, None] + p * bin_size[:, None, None]
           + (i.astype(dtype) + dtype.type(0.5)) * bin_size[:, None, None] / gf)
    used = (i < g) & (pos >= -1.0) & (pos <= size)
    pos = xp.maximum(pos, 0)
    low = xp.floor(pos).astype(np.int64)
    at_edge = low >= size - 1
    low = xp.where(at_edge, size - 1, low)
    high = xp.where(at_edge, size - 1, low + 1)
    frac = xp.where(at_edge, 0, pos - low.astype(dtype)).astype(dtype)
    scale = used.astype(dtype) / gf
    w_low = (1 - frac) * scale
    w_high = frac * scale
    base = (xp.arange(k)[:, None, None] * pooled + xp.arange(pooled)[None, :, None]) * size
    idx = xp.concatenate([(base + low).ravel(), (base + high).ravel()])
    val = xp.concatenate([w_low.ravel(), w_high.ravel()])
    out = xp.bincount(idx, weights=val, minlength=k * pooled * size)
    return out.astype(dtype).reshape(k, pooled, size)


def _roi_geometry(xp, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned, dtype):
    offset = dtype.type(0.5 if aligned else 0.0)
    scale = dtype.type(spatial_scale)
    x1 = rois[:, 1] * scale - offset
    y1 = rois[:, 2] * scale - offset
    w = rois[:, 3] * scale - offset - x1
    h = rois[:, 4] * scale - offset - y1
    if not aligned:  # the legacy behaviour: RoIs are at least one cell wide
        w = xp.maximum(w, dtype.type(1.0))
        h = xp.maximum(h, dtype.type(1.0))
    if sampling_ratio > 0:
        gh = xp.full(rois.shape[0], sampling_ratio, dtype=np.int64)
        gw = gh
    else:  # adaptive: about one sample per input cell
        gh = xp.ceil(h / dtype.type(pooled_h)).astype(np.int64)
        gw = xp.ceil(w / dtype.type(pooled_w)).astype(np.int64)
    return x1, y1, w, h, gh, gw


def _contract(image, ay, ax):
    """``out[k, c, p, q] = sum_{h,w} ay[k, p, h] image[c, h, w] ax[k, q, w]`` as two GEMMs."""
    c, height, width = image.shape
    k, ph, _ = ay.shape
    pw = ax.shape[1]
    rows = image.permute(1, 0, 2).reshape(height, c * width)
    t = numtorch.matmul(ay.reshape(k * ph, height), rows)          # (k*ph, c*w)
    t = numtorch.matmul(t.reshape(k, ph * c, width), ax.transpose(1, 2))  # (k, ph*c, pw)
    return t.reshape(k, ph, c, pw).permute(0, 2, 1, 3)


def _roi_align(input, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned):
    n, c, height, width = input.shape
    k = rois.shape[0]
    if k == 0:
        # still part of the graph, so the input's gradient is zeros rather than None
        return input.reshape(-1)[:0].reshape(0, 1, 1, 1).expand(0, c, pooled_h, pooled_w)
    # the weights are small (K x bins x H) and built on the host; the products run where the
    # input lives
    r = rois.detach().cpu().numpy()
    dtype = r.dtype
    xp = np
    x1, y1, w, h, gh, gw = _roi_geometry(xp, r, spatial_scale, pooled_h, pooled_w,
                                         sampling_ratio, aligned, dtype)
    ay = _axis_weights(xp, y1, h, pooled_h, gh, height, dtype)
    ax = _axis_weights(xp, x1, w, pooled_w, gw, width, dtype)
    batch = r[:, 0].astype(np.int64)
    ay_t = numtorch.as_tensor(ay, device=input.device)
    ax_t = numtorch.as_tensor(ax, device=input.device)
    per_chunk = max(1, _CHUNK_ELEMENTS // max(1, pooled_h * c * width))
    return per_image_chunks(input, batch, per_chunk,
                            lambda image, idx: _contract(image, ay_t[idx], ax_t[idx]))


def per_image_chunks(input, batch, per_chunk, contract):
    """``contract(input[b], idx)`` over each image's RoIs (the RoI indices ``idx``, at most
    ``per_chunk`` at a time, so the temporaries stay small), concatenated back in RoI order."""
    k = batch.shape[0]
    pieces, order = [], []
    for b in np.unique(batch).tolist():
        members = np.flatnonzero(batch == b)
        for s in range(0, members.size, per_chunk):
            sel = members[s:s + per_chunk]
            pieces.append(contract(input[b], numtorch.as_tensor(sel, device=input.device)))
            order.append(sel)
    out = numtorch.cat(pieces, 0) if len(pieces) > 1 else pieces[0]
    order = np.concatenate(order)
    if (order != np.arange(k)).any():
        inverse = np.empty_like(order)
        inverse[order] = np.arange(k)
        out = out[numtorch.as_tensor(inverse, device=input.device)]
    return out.contiguous()


@numtorch.fx.wrap  # one fx node (the boxes' format is checked in Python)
def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """Pool each region of interest to a fixed ``output_size`` grid by bilinear sampling.

    Args:
        input (Tensor[N, C, H, W]): feature maps.
        boxes (Tensor[K, 5] or list of Tensor[L, 4]): RoIs as ``(batch index, x1, y1, x2,
            y2)`` rows, or one ``(x1, y1, x2, y2)`` tensor per image. Same dtype as
            ``input``.
        output_size (int or (int, int)): ``(height, width)`` of the pooled output.
        spatial_scale (float): maps box coordinates onto the feature map (e.g. 1/16 for a
            stride-16 map). Default: 1.0.
        sampling_ratio (int): samples per bin along each axis; <= 0 means
            ``ceil(roi_size / output_size)`` (adaptive). Default: -1.
        aligned (bool): shift boxes by -0.5 so that pixel centres line up (the corrected
            RoIAlign); False keeps the original behaviour. Default: False.

    Returns:
        Tensor[K, C, output_size[0], output_size[1]].
    """
    rois = checked_rois(input, boxes)
    pooled_h, pooled_w = _pair(output_size)
    return _roi_align(input, rois, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned)


class RoIAlign(nn.Module):
    """Module form of :func:`roi_align`."""

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale,
                         self.sampling_ratio, self.aligned)

    def __repr__(self):
        return (f"{self.__class__.__name__}(output_size={self.output_size}, "
                f"spatial_scale={self.spatial_scale}, sampling_ratio={self.sampling_ratio}, "
                f"aligned={self.aligned})")
