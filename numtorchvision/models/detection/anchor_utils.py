"""Anchor generators: Faster R-CNN/RetinaNet-style anchors (sizes x aspect ratios at every
feature-map cell, in pixels) and SSD's default boxes (relative scales on a normalised grid)."""

import math

import numtorch
from numtorch import nn

from .image_list import ImageList  # noqa: F401  (torchvision's module exposes it)

__all__ = ["AnchorGenerator", "DefaultBoxGenerator"]

_LEVEL_MISMATCH = ("Anchors should be Tuple[Tuple[int]] because each feature map could "
                   "potentially have different sizes and aspect ratios. There needs to be a "
                   "match between the number of feature maps passed and the number of sizes "
                   "/ aspect ratios specified.")


class AnchorGenerator(nn.Module):
    """Anchors for a list of feature maps: level ``i`` places ``len(sizes[i]) *
    len(aspect_ratios[i])`` boxes centred on the top-left corner of every cell (cells are
    ``image size // map size`` pixels apart).

    Args:
        sizes (tuple of tuples of int): anchor side lengths (sqrt of area) per level.
        aspect_ratios (tuple of tuples of float): height/width ratios per level (one tuple
            is repeated for every level).
    """

    __annotations__ = {"cell_anchors": list}

    def __init__(self, sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(s, a) for s, a in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales, aspect_ratios, dtype=numtorch.float32,
                         device=numtorch.device("cpu")):
        """Zero-centred ``(len(ratios) * len(scales), 4)`` anchors, rounded to pixels; the
        ratio is the slow axis."""
        scales = numtorch.as_tensor(scales, dtype=dtype, device=device)
        ratios = numtorch.as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratio = numtorch.sqrt(ratios)
        ws = ((1 / h_ratio)[:, None] * scales[None, :]).view(-1)
        hs = (h_ratio[:, None] * scales[None, :]).view(-1)
        return (numtorch.stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def set_cell_anchors(self, dtype, device):
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self):
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes, strides):
        """All anchors of each level, cell-major (row by row), each cell's anchors together."""
        if not len(grid_sizes) == len(strides) == len(self.cell_anchors):
            raise AssertionError(_LEVEL_MISMATCH)
        out = []
        for (gh, gw), (sh, sw), base in zip(grid_sizes, strides, self.cell_anchors):
            device = base.device
            xs = numtorch.arange(0, gw, dtype=numtorch.int32, device=device) * sw
            ys = numtorch.arange(0, gh, dtype=numtorch.int32, device=device) * sh
            yy, xx = numtorch.meshgrid(ys, xs, indexing="ij")
            xx, yy = xx.reshape(-1), yy.reshape(-1)
            shifts = numtorch.stack([xx, yy, xx, yy], dim=1)
            out.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return out

    def forward(self, image_list, feature_maps):
        grid_sizes = [fm.shape[-2:] for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        strides = [[numtorch.empty((), dtype=numtorch.int64, device=device).fill_(
                    image_size[0] // g[0]),
                    numtorch.empty((), dtype=numtorch.int64, device=device).fill_(
                    image_size[1] // g[1])] for g in grid_sizes]
        self.set_cell_anchors(dtype, device)
        per_image = numtorch.cat(self.grid_anchors(grid_sizes, strides))
        return [per_image.clone() for _ in range(len(image_list.image_sizes))]


class DefaultBoxGenerator(nn.Module):
    """SSD's default boxes.

    Level ``k`` has scale ``s_k`` (linear from ``min_ratio`` to ``max_ratio`` unless
    ``scales`` is given, with 1.0 appended); each cell gets a square of side ``s_k``, one of
    side ``sqrt(s_k * s_{k+1})``, and for every aspect ratio ``a`` a ``s_k*sqrt(a) x
    s_k/sqrt(a)`` box and its transpose. Centres sit at ``(i + 0.5) / f_k`` with ``f_k`` the
    map size, or the image size over ``steps[k]`` when steps are given.

    Args:
        aspect_ratios (list of lists of int): extra ratios per feature map.
        min_ratio, max_ratio (float): scale range when ``scales`` is None.
        scales (list of float, optional): one scale per map plus one more.
        steps (list of int, optional): pixel stride of each map.
        clip (bool): clamp the relative widths and heights to [0, 1].
    """

    def __init__(self, aspect_ratios, min_ratio=0.15, max_ratio=0.9, scales=None, steps=None,
                 clip=True):
        super().__init__()
        if steps is not None and len(aspect_ratios) != len(steps):
            raise ValueError("aspect_ratios and steps should have the same length")
        self.aspect_ratios = aspect_ratios
        self.steps = steps
        self.clip = clip
        n = len(aspect_ratios)
        if scales is None:
            if n > 1:
                span = max_ratio - min_ratio
                self.scales = [min_ratio + span * k / (n - 1.0) for k in range(n)]
                self.scales.append(1.0)
            else:
                self.scales = [min_ratio, max_ratio]
        else:
            self.scales = scales
        self._wh_pairs = self._generate_wh_pairs(n)

    def _generate_wh_pairs(self, num_outputs, dtype=numtorch.float32,
                           device=numtorch.device("cpu")):
        pairs = []
        for k in range(num_outputs):
            s = self.scales[k]
            s_between = math.sqrt(self.scales[k] * self.scales[k + 1])
            wh = [[s, s], [s_between, s_between]]
            for ratio in self.aspect_ratios[k]:
                r = math.sqrt(ratio)
                wh += [[s * r, s / r], [s / r, s * r]]
            pairs.append(numtorch.as_tensor(wh, dtype=dtype, device=device))
        return pairs

    def num_anchors_per_location(self):
        return [2 + 2 * len(r) for r in self.aspect_ratios]

    def _grid_default_boxes(self, grid_sizes, image_size, dtype=numtorch.float32):
        """``(cx, cy, w, h)`` of every default box, relative to the image, level after level."""
        levels = []
        for k, (fh, fw) in enumerate(grid_sizes):
            if self.steps is not None:
                fx, fy = image_size[1] / self.steps[k], image_size[0] / self.steps[k]
            else:
                fy, fx = fh, fw
            xs = ((numtorch.arange(0, fw) + 0.5) / fx).to(dtype=dtype)
            ys = ((numtorch.arange(0, fh) + 0.5) / fy).to(dtype=dtype)
            yy, xx = numtorch.meshgrid(ys, xs, indexing="ij")
            xx, yy = xx.reshape(-1), yy.reshape(-1)
            n_pairs = len(self._wh_pairs[k])
            centres = numtorch.stack([xx, yy] * n_pairs, dim=-1).reshape(-1, 2)
            wh = self._wh_pairs[k].clamp(min=0, max=1) if self.clip else self._wh_pairs[k]
            levels.append(numtorch.cat([centres, wh.repeat(fh * fw, 1)], dim=1))
        return numtorch.cat(levels, dim=0)

    def __repr__(self):
        return (f"{self.__class__.__name__}(aspect_ratios={self.aspect_ratios}, "
                f"clip={self.clip}, scales={self.scales}, steps={self.steps})")

    def forward(self, image_list, feature_maps):
        grid_sizes = [fm.shape[-2:] for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        boxes = self._grid_default_boxes(grid_sizes, image_size, dtype=dtype).to(device)
        scale = numtorch.tensor([image_size[1], image_size[0]], device=boxes.device)
        xyxy = numtorch.cat([(boxes[:, :2] - 0.5 * boxes[:, 2:]) * scale,
                             (boxes[:, :2] + 0.5 * boxes[:, 2:]) * scale], -1)
        return [xyxy for _ in image_list.image_sizes]
