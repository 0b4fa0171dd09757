"""JPEG: compression artefacts as an augmentation, at a fixed or a random quality."""

from collections.abc import Sequence

from ..transforms import _randint
from ._transform import Transform
from .functional._jpeg import jpeg


def _quality_range(quality):
    """``quality`` as a [low, high] pair of ints in 1-100 (an int is both ends)."""
    if isinstance(quality, int):
        if isinstance(quality, bool):
            raise TypeError("quality can't be bool")
        quality = [quality, quality]
    elif not isinstance(quality, Sequence):
        raise TypeError("quality should be a sequence of length 2.")
    if len(quality) != 2:
        raise ValueError("quality should be a sequence of length 2.")
    low, high = quality
    if not (1 <= low <= high <= 100 and isinstance(low, int) and isinstance(high, int)):
        raise ValueError(f"quality must be an integer from 1 to 100, got quality ={quality}")
    return quality


class JPEG(Transform):
    """Compress and decompress images with JPEG at ``quality`` (1-100, lower is more
    compression), or at a quality drawn uniformly from ``(min, max)`` (both included) on
    each call. Tensors must be uint8 ``[..., 1 or 3, H, W]``."""

    def __init__(self, quality):
        super().__init__(quality=_quality_range(quality))

    def make_params(self, flat_inputs):
        low, high = self.quality
        return {"quality": _randint(low, high + 1)}

    def transform(self, inpt, params):
        return self._call_kernel(jpeg, inpt, quality=params["quality"])
