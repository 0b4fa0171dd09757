"""Multi-scale RoIAlign (Lin et al., FPN, eq. 1): each box is pooled from the pyramid level
that matches its size, ``floor(k0 + log2(sqrt(area) / s0))`` clamped to the levels present.

The scale of each level is inferred from its size relative to the largest image (a power of
two); the levels then run one RoIAlign each over their own boxes.
"""

import math

import numtorch
import numtorch.fx
from numtorch import nn

from ._utils import convert_boxes_to_roi_format
from .boxes import box_area
from .roi_align import roi_align

__all__ = ["MultiScaleRoIAlign"]


class LevelMapper:
    """Assigns each box to a pyramid level index in ``[0, k_max - k_min]``.

    Args:
        k_min, k_max (int): the finest and coarsest levels available.
        canonical_scale (int): box size that maps to ``canonical_level`` (224 for ImageNet).
        canonical_level (int): level of a canonical box (4 in the FPN paper).
        eps (float): keeps exact powers of two from being floored one level down.
    """

    def __init__(self, k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists):
        side = numtorch.sqrt(numtorch.cat([box_area(b) for b in boxlists]))
        level = numtorch.floor(self.lvl0 + numtorch.log2(side / self.s0) + side.new_tensor(
            self.eps))
        return (level.clamp(min=self.k_min, max=self.k_max) - self.k_min).to(numtorch.int64)


def initLevelMapper(k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
    """A :class:`LevelMapper` (torchvision's factory name)."""
    return LevelMapper(k_min, k_max, canonical_scale, canonical_level, eps)


def _level_scale(feature_size, image_size):
    """The power of two that maps image coordinates onto a feature map of this size."""
    candidates = {2.0 ** round(math.log2(float(f) / float(i)))
                  for f, i in zip(feature_size, image_size)}
    if len(candidates) != 1:
        raise AssertionError("scales along the two axes differ")
    return candidates.pop()


def _levels_setup(features, image_shapes, canonical_scale, canonical_level):
    if not image_shapes:
        raise ValueError("images list should not be empty")
    largest = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
    scales = [_level_scale(f.shape[-2:], largest) for f in features]
    finest = -math.log2(scales[0])
    coarsest = -math.log2(scales[-1])
    mapper = LevelMapper(int(finest), int(coarsest), canonical_scale=canonical_scale,
                         canonical_level=canonical_level)
    return scales, mapper


@numtorch.fx.wrap
def _pool_levels(features, boxes, output_size, sampling_ratio, scales, mapper):
    rois = convert_boxes_to_roi_format(boxes)
    if len(features) == 1:
        return roi_align(features[0], rois, output_size=output_size, spatial_scale=scales[0],
                         sampling_ratio=sampling_ratio)
    levels = mapper(boxes)
    first = features[0]
    out = first.new_zeros((rois.shape[0], first.shape[1]) + tuple(output_size))
    for level, (feature, scale) in enumerate(zip(features, scales)):
        members = numtorch.where(levels == level)[0]
        pooled = roi_align(feature, rois[members], output_size=output_size,
                           spatial_scale=scale, sampling_ratio=sampling_ratio)
        out[members] = pooled.to(out.dtype)
    return out


class MultiScaleRoIAlign(nn.Module):
    """RoIAlign over the levels of a feature pyramid, each box on the level of its size.

    Args:
        featmap_names (list of str): the keys of the feature dict to pool from.
        output_size (int or (int, int)): the pooled size.
        sampling_ratio (int): as in :func:`roi_align`.
        canonical_scale (int): box size of ``canonical_level``. Default: 224.
        canonical_level (int): pyramid level of a canonical box. Default: 4.

    ``forward(x, boxes, image_shapes)``: ``x`` is the dict of feature maps (finest first),
    ``boxes`` one ``(L, 4)`` tensor per image in image coordinates, ``image_shapes`` the
    ``(height, width)`` of every image before batching.
    """

    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224,
                 canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def forward(self, x, boxes, image_shapes):
        features = [v for k, v in x.items() if k in self.featmap_names]
        self.scales, self.map_levels = _levels_setup(features, image_shapes,
                                                     self.canonical_scale,
                                                     self.canonical_level)
        return _pool_levels(features, boxes, self.output_size, self.sampling_ratio,
                            self.scales, self.map_levels)

    def __repr__(self):
        return (f"{self.__class__.__name__}(featmap_names={self.featmap_names}, "
                f"output_size={self.output_size}, sampling_ratio={self.sampling_ratio})")
