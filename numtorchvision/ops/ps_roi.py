"""Position-sensitive RoI pooling (Dai et al., R-FCN): bin ``(p, q)`` of output channel ``c``
reads only input channel ``(c * PH + p) * PW + q``, so the input carries ``C_out * PH * PW``
channels.

Both variants are separable averages: bin ``(p, q)`` of RoI ``k`` is
``sum_{h,w} Ay[k, p, h] * X[b_k, chan(c, p, q), h, w] * Ax[k, q, w]``.
``ps_roi_align`` takes ``Ay``/``Ax`` from RoIAlign's bilinear sample weights (always with the
half-pixel shift, no minimum RoI size); ``ps_roi_pool`` uses box filters over the integer bin
edges (the mean of the bin, 0 for an empty bin; as torchvision's forward kernel, a bin never
reads the last row or column, while its backward kernel spreads the gradient up to the border,
so those two use different edges). The contraction is batched matrix products,
so numtorch's autograd gives the input gradient (and its second derivative); boxes get none.
"""

import numpy as np

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn.modules.utils import _pair

from ._utils import checked_rois
from .roi_align import _axis_weights, _roi_geometry, per_image_chunks
from .roi_pool import _bin_edges, _round_half_away

__all__ = ["PSRoIAlign", "PSRoIPool", "ps_roi_align", "ps_roi_pool"]

# RoIs per chunk are capped so that the (C, K, H) intermediate stays below this many elements
_CHUNK_ELEMENTS = 1 << 24


def _ps_contract(image, ay, ax, out_channels):
    """``out[k, c, p, q] = sum_{h,w} ay[k, p, h] image[(c*P + p)*Q + q, h, w] ax[k, q, w]``."""
    _, height, width = image.shape
    k, ph, _ = ay.shape
    pw = ax.shape[1]
    grouped = image.reshape(out_channels, ph, pw, height, width)
    # columns first: one (C*P*H, W) x (W, K) product per output column q
    cols = grouped.permute(2, 0, 1, 3, 4).reshape(pw, out_channels * ph * height, width)
    t = numtorch.matmul(cols, ax.permute(1, 2, 0))                    # (Q, C*P*H, K)
    t = t.reshape(pw, out_channels, ph, height, k).permute(2, 4, 1, 0, 3)  # (P, K, C, Q, H)
    t = t.reshape(ph, k, out_channels * pw, height)
    rows = ay.permute(1, 0, 2).unsqueeze(-1)                           # (P, K, H, 1)
    out = numtorch.matmul(t, rows).reshape(ph, k, out_channels, pw)
    return out.permute(1, 2, 0, 3)


def _pooled_by_weights(input, rois, pooled_h, pooled_w, weights):
    """Run the contraction for every image's RoIs (chunked) and restore the RoI order."""
    _, c, height, width = input.shape
    if c % (pooled_h * pooled_w) != 0:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling "
                           "width")
    out_channels = c // (pooled_h * pooled_w)
    k = rois.shape[0]
    if k == 0:
        return input.reshape(-1)[:0].reshape(0, 1, 1, 1).expand(0, out_channels, pooled_h,
                                                                 pooled_w)
    r = rois.detach().cpu().numpy()
    batch = r[:, 0].astype(np.int64)
    per_chunk = max(1, _CHUNK_ELEMENTS // max(1, c * height))

    def pooled(x, ay, ax):
        ay_t = numtorch.as_tensor(ay, device=input.device)
        ax_t = numtorch.as_tensor(ax, device=input.device)
        return per_image_chunks(
            x, batch, per_chunk,
            lambda image, idx: _ps_contract(image, ay_t[idx], ax_t[idx], out_channels))

    ay, ax, *grad_weights = weights(r, height, width)
    if not grad_weights or not input.requires_grad or (
            np.array_equal(ay, grad_weights[0]) and np.array_equal(ax, grad_weights[1])):
        return pooled(input, ay, ax)
    # the gradient pools with other bins than the value (ps_roi_pool's kernels): the value
    # from the forward weights, the gradient through the backward ones
    through = pooled(input, *grad_weights)
    return pooled(input.detach(), ay, ax) + (through - through.detach())


def _box_filter(lo, hi, size, dtype):
    """``(K, pooled, size)`` weights averaging rows ``[lo, hi)`` of each bin (0 if empty)."""
    pos = np.arange(size)[None, None, :]
    inside = (pos >= lo[:, :, None]) & (pos < hi[:, :, None])
    count = np.maximum(hi - lo, 1).astype(dtype)[:, :, None]
    return (inside / count).astype(dtype)


def _prepare(input, boxes, output_size, kernel):
    return checked_rois(input, boxes, kernel), _pair(output_size)


@numtorch.fx.wrap
def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive RoIAlign (R-FCN).

    Args:
        input (Tensor[N, C, H, W]): feature maps; ``C`` must be a multiple of
            ``output_size[0] * output_size[1]``.
        boxes (Tensor[K, 5] or list of Tensor[L, 4]): RoIs as ``(batch index, x1, y1, x2,
            y2)`` rows, or one ``(x1, y1, x2, y2)`` tensor per image.
        output_size (int or (int, int)): ``(height, width)`` of the pooled output.
        spatial_scale (float): maps box coordinates onto the feature map. Default: 1.0.
        sampling_ratio (int): samples per bin along each axis; <= 0 means adaptive
            (``ceil(roi_size / output_size)``). Default: -1.

    Returns:
        Tensor[K, C / (output_size[0] * output_size[1]), output_size[0], output_size[1]].
    """
    rois, (ph, pw) = _prepare(input, boxes, output_size, "ps_roi_align_forward_kernel")

    def weights(r, height, width):
        dtype = r.dtype
        x1, y1, w, h, gh, gw = _roi_geometry(np, r, spatial_scale, ph, pw, sampling_ratio,
                                             True, dtype)
        return (_axis_weights(np, y1, h, ph, gh, height, dtype),
                _axis_weights(np, x1, w, pw, gw, width, dtype))

    out = _pooled_by_weights(input, rois, ph, pw, weights)
    if rois.shape[0]:
        # torchvision's kernel divides each bin's sum by the sample count without a floor:
        # an RoI with no samples along an axis (adaptive sampling of an empty or inverted
        # extent) gives 0 / 0 = NaN
        r = rois.detach().cpu().numpy()
        *_, gh, gw = _roi_geometry(np, r, spatial_scale, ph, pw, sampling_ratio, True, r.dtype)
        empty = (gh * gw) == 0
        if empty.any():
            nan = numtorch.as_tensor(np.where(empty, np.nan, 0.0).astype(r.dtype),
                                     device=input.device)
            out = out + nan.to(out.dtype)[:, None, None, None]
    return out


@numtorch.fx.wrap
def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Position-sensitive RoI pooling (R-FCN): the mean of each integer bin.

    Args:
        input (Tensor[N, C, H, W]): feature maps; ``C`` must be a multiple of
            ``output_size[0] * output_size[1]``.
        boxes (Tensor[K, 5] or list of Tensor[L, 4]): RoIs, as for :func:`ps_roi_align`.
        output_size (int or (int, int)): ``(height, width)`` of the pooled output.
        spatial_scale (float): maps box coordinates onto the feature map. Default: 1.0.

    Returns:
        Tensor[K, C / (output_size[0] * output_size[1]), output_size[0], output_size[1]].
    """
    rois, (ph, pw) = _prepare(input, boxes, output_size, "ps_roi_pool_forward_kernel")

    def weights(r, height, width):
        dtype = r.dtype
        scaled = _round_half_away(r[:, 1:] * dtype.type(spatial_scale)).astype(np.int64)
        x1, y1, x2, y2 = scaled.T
        # a degenerate RoI still covers one cell. torchvision's forward kernel clips the bin
        # edges to the last row/column index (so a bin never reads the last row or column);
        # its backward kernel clips them to the map's size
        filters = []
        for limit_h, limit_w in ((height - 1, width - 1), (height, width)):
            h_lo, h_hi = _bin_edges(y1, np.maximum(y2 - y1, 1), ph, limit_h, dtype)
            w_lo, w_hi = _bin_edges(x1, np.maximum(x2 - x1, 1), pw, limit_w, dtype)
            filters += [_box_filter(h_lo, h_hi, height, dtype),
                        _box_filter(w_lo, w_hi, width, dtype)]
        return filters

    return _pooled_by_weights(input, rois, ph, pw, weights)


class _PSModule(nn.Module):
    def forward(self, input, rois):
        return self._fn(input, rois, **self._settings())

    def __repr__(self):
        args = ", ".join(f"{k}={v}" for k, v in self._settings().items())
        return f"{self.__class__.__name__}({args})"


class PSRoIAlign(_PSModule):
    """Module form of :func:`ps_roi_align`."""

    _fn = staticmethod(ps_roi_align)

    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale
        self.sampling_ratio = sampling_ratio

    def _settings(self):
        return {"output_size": self.output_size, "spatial_scale": self.spatial_scale,
                "sampling_ratio": self.sampling_ratio}


class PSRoIPool(_PSModule):
    """Module form of :func:`ps_roi_pool`."""

    _fn = staticmethod(ps_roi_pool)

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def _settings(self):
        return {"output_size": self.output_size, "spatial_scale": self.spatial_scale}
