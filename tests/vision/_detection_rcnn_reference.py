"""torch stand-ins for the two compiled torchvision kernels the R-CNN models call, so that
torchvision's detectors run here as the oracle: greedy NMS, and RoIAlign with the compiled
kernel's sampling rules (a sample more than one cell outside the map reads 0; between the
last cell and the border it reads the last cell). torchvision's own pure-PyTorch RoIAlign
does not zero the samples past the border, so it cannot stand in for the kernel when a
proposal touches the right or bottom edge of the padded batch."""

import math

import torch

from .conftest import torchvision


def reference_nms(boxes, scores, iou_threshold):
    order = scores.argsort(descending=True, stable=True)
    iou = torchvision.ops.box_iou(boxes[order], boxes[order])
    alive = torch.ones(len(order), dtype=torch.bool)
    keep = []
    for i in range(len(order)):
        if alive[i]:
            keep.append(i)
            alive &= ~(iou[i] > iou_threshold)
    return order[torch.tensor(keep, dtype=torch.int64)]


def _axis_weights(coord, size):
    """Bilinear weights of samples ``coord`` (bins x samples) on an axis of ``size`` cells,
    averaged over each bin's samples."""
    inside = (coord >= -1) & (coord <= size)
    c = coord.clamp(min=0)
    low = c.floor()
    last = low >= size - 1
    low = torch.where(last, torch.full_like(low, size - 1), low)
    c = torch.where(last, low, c)
    high = torch.where(last, low, low + 1)
    frac = c - low
    cells = torch.arange(size, dtype=coord.dtype)
    w = ((1 - frac)[..., None] * (low[..., None] == cells)
         + frac[..., None] * (high[..., None] == cells))
    return (w * inside[..., None]).mean(dim=-2)


def reference_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1,
                        aligned=False):
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    if not isinstance(boxes, torch.Tensor):
        boxes = torch.cat([torch.cat([torch.full_like(b[:, :1], i), b], 1)
                           for i, b in enumerate(boxes)], 0)
    ph, pw = output_size
    h, w = input.shape[-2:]
    shift = 0.5 if aligned else 0.0
    out = []
    for r in boxes.to(input.dtype):
        x1, y1, x2, y2 = (r[1:] * spatial_scale - shift).unbind()
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = rw.clamp(min=1), rh.clamp(min=1)
        gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(float(rh / ph)))
        gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(float(rw / pw)))
        ys = y1 + (torch.arange(ph, dtype=input.dtype)[:, None]
                   + (torch.arange(gh, dtype=input.dtype)[None] + 0.5) / gh) * (rh / ph)
        xs = x1 + (torch.arange(pw, dtype=input.dtype)[:, None]
                   + (torch.arange(gw, dtype=input.dtype)[None] + 0.5) / gw) * (rw / pw)
        out.append(torch.einsum("ph,chw,qw->cpq", _axis_weights(ys, h), input[int(r[0])],
                                _axis_weights(xs, w)))
    if not out:
        return input.new_zeros((0, input.shape[1], ph, pw)) + 0 * input.sum()
    return torch.stack(out)


def patch_torchvision(mp):
    """Route torchvision's detection code through the stand-ins (a MonkeyPatch)."""
    import sys
    mp.setattr(torchvision.ops.boxes, "nms", reference_nms)
    mp.setattr(sys.modules["torchvision.ops.poolers"], "roi_align", reference_roi_align)
    mp.setattr(sys.modules["torchvision.models.detection.roi_heads"], "roi_align",
               reference_roi_align)
