"""RandomErasing, and MixUp / CutMix for batches of images with their labels."""

import math
import numbers
import warnings
from collections.abc import Sequence

import numtorch as torch
from numtorch.nn.functional import one_hot

from ... import tv_tensors
from ..._pil import is_pil_image
from ...tv_tensors._tv_tensor import _plain
from ..transforms import _randint, _uniform
from . import functional as F
from ._checks import labels_getter_fn
from ._transform import Transform, _selection, checked_probability
from ._utils import query_chw, query_size, tree_flatten, tree_unflatten
from .functional._utils import is_pure_tensor

_NOT_ERASED = (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints, tv_tensors.Mask)
_NOT_MIXED = (tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints)
_PIXELS = (tv_tensors.Image, tv_tensors.Video)


def _erase_value(value):
    """``value`` as a list of floats, or None for normal noise ("random")."""
    if not isinstance(value, (numbers.Number, str, tuple, list)):
        raise TypeError("Argument value should be either a number or str or a sequence")
    if isinstance(value, str):
        if value != "random":
            raise ValueError("If value is str, it should be 'random'")
        return None
    return [float(value)] if isinstance(value, (int, float)) else [float(v) for v in value]


class RandomErasing(Transform):
    """With probability ``p``, overwrite a random box (``scale`` of the area, aspect ratio in
    ``ratio``) with ``value`` (a number, one per channel, or ``"random"`` normal noise)."""

    _coin = True

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0, inplace=False):
        checked_probability(p)
        fill = _erase_value(value)
        for bounds, what in ((scale, "Scale"), (ratio, "Ratio")):
            if not isinstance(bounds, Sequence):
                raise TypeError(f"{what} should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if not (scale[0] >= 0 and scale[1] <= 1):
            raise ValueError("Scale should be between 0 and 1")
        super().__init__(p=p, scale=scale, ratio=ratio, value=fill, inplace=inplace)
        self._log_bounds = tuple(float(v) for v in torch.log(torch.tensor(ratio)))

    def _patch(self, channels, h, w):
        if self.value is None:
            return torch.empty([channels, h, w], dtype=torch.float32).normal_()
        return torch.tensor(self.value)[:, None, None]

    def make_params(self, flat_inputs):
        channels, height, width = query_chw(flat_inputs)
        if self.value is not None and len(self.value) not in (1, channels):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{channels} (number of inpt channels)")
        for _ in range(10):
            area = height * width * _uniform(*self.scale)
            aspect = float(torch.exp(torch.tensor(_uniform(*self._log_bounds))))
            h, w = round(math.sqrt(area * aspect)), round(math.sqrt(area / aspect))
            if h < height and w < width:
                patch = self._patch(channels, h, w)
                top = _randint(0, height - h + 1)
                return {"i": top, "j": _randint(0, width - w + 1), "h": h, "w": w, "v": patch}
        return {"i": 0, "j": 0, "h": height, "w": width, "v": None}

    def transform(self, inpt, params):
        if params["v"] is None:
            return inpt
        if isinstance(inpt, _NOT_ERASED):
            warnings.warn(f"{type(self).__name__}() is currently passing through inputs of type "
                          f"tv_tensors.{type(inpt).__name__}. This will likely change in the "
                          "future.")
        return self._call_kernel(F.erase, inpt, i=params["i"], j=params["j"], h=params["h"],
                                 w=params["w"], v=params["v"], inplace=self.inplace)


def _check_labels(labels, num_classes):
    if not isinstance(labels, torch.Tensor):
        raise ValueError(f"The labels must be a tensor, but got {type(labels)} instead.")
    if labels.ndim not in (1, 2):
        raise ValueError("labels should be index based with shape (batch_size,) or "
                         "probability based with shape (batch_size, num_classes), but got a "
                         f"tensor of shape {labels.shape} instead.")
    if labels.ndim == 2 and num_classes is not None and labels.shape[-1] != num_classes:
        raise ValueError("When passing 2D labels, the number of elements in last dimension "
                         f"must match num_classes: {labels.shape[-1]} != {num_classes}. "
                         "You can Leave num_classes to None.")
    if labels.ndim == 1 and num_classes is None:
        raise ValueError("num_classes must be passed if the labels are index-based (1D)")


def _check_batch(inpt, batch_size):
    dims = 5 if isinstance(inpt, tv_tensors.Video) else 4
    if inpt.ndim != dims:
        raise ValueError(f"Expected a batched input with {dims} dims, but got {inpt.ndim} "
                         "dimensions instead.")
    if inpt.shape[0] != batch_size:
        raise ValueError("The batch size of the image or video does not match the batch "
                         f"size of the labels: {inpt.shape[0]} != {batch_size}.")


class _BaseMixUpCutMix(Transform):
    """Mixes each sample of a batch with the one before it (``roll(1, 0)``): the images and
    videos by ``_mix_pixels``, the labels (one-hot first) by the weight it reports (the
    ``_weight_key`` entry of its parameters, named as torchvision names it)."""

    _weight_key = "lam"

    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        super().__init__(alpha=float(alpha), num_classes=num_classes)
        self._beta = torch.distributions.Beta(torch.tensor([alpha]), torch.tensor([alpha]))
        self._find_labels = labels_getter_fn(labels_getter)

    def forward(self, *inputs):
        sample = inputs[0] if len(inputs) == 1 else inputs
        leaves, layout = tree_flatten(sample)
        flags = _selection(leaves, self._transformed_types)
        if any(is_pil_image(x) or isinstance(x, _NOT_MIXED) for x in leaves):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding "
                             "boxes, keypoints and masks.")
        labels = self._find_labels(sample)
        _check_labels(labels, self.num_classes)
        params = self.make_params([x for x, f in zip(leaves, flags) if f])
        params.update(labels=labels, batch_size=labels.shape[0])
        out = []
        for leaf, flag in zip(leaves, flags):
            if leaf is labels:
                leaf = self._mix_labels(leaf, params[self._weight_key])
            elif flag and (is_pure_tensor(leaf) or isinstance(leaf, _PIXELS)):
                _check_batch(leaf, params["batch_size"])
                mixed = self._mix_pixels(_plain(leaf), params)
                leaf = mixed if is_pure_tensor(leaf) else tv_tensors.wrap(mixed, like=leaf)
            out.append(leaf)
        return tree_unflatten(out, layout)

    def _mix_labels(self, labels, weight):
        if labels.ndim == 1:
            labels = one_hot(labels, num_classes=self.num_classes)
        if not labels.dtype.is_floating_point:
            labels = labels.float()
        return _blend(labels, weight)

    def _draw(self):
        return float(self._beta.sample(()))


def _blend(batch, weight):
    """``weight * batch + (1 - weight) * previous sample``, rounded as torchvision rounds."""
    return batch.roll(1, 0).mul_(1.0 - weight).add_(batch.mul(weight))


class MixUp(_BaseMixUpCutMix):
    """Blend each sample of a batch with the previous one (weight drawn from
    Beta(alpha, alpha)), labels likewise (one-hot first)."""

    def make_params(self, flat_inputs):
        return {"lam": self._draw()}

    def _mix_pixels(self, batch, params):
        return _blend(batch, params["lam"])


class CutMix(_BaseMixUpCutMix):
    """Paste a random box of the previous sample of the batch into each sample; the labels
    are mixed by the pasted area."""

    _weight_key = "lam_adjusted"

    def make_params(self, flat_inputs):
        weight = self._draw()
        height, width = query_size(flat_inputs)
        cx, cy = _randint(0, width), _randint(0, height)
        half = 0.5 * math.sqrt(1.0 - weight)
        dx, dy = int(half * width), int(half * height)
        x0, x1 = max(cx - dx, 0), min(cx + dx, width)
        y0, y1 = max(cy - dy, 0), min(cy + dy, height)
        kept = float(1.0 - (x1 - x0) * (y1 - y0) / (width * height))
        return {"box": (x0, y0, x1, y1), "lam_adjusted": kept}

    def _mix_pixels(self, batch, params):
        x0, y0, x1, y1 = params["box"]
        rows, cols = slice(y0, y1), slice(x0, x1)
        out = batch.clone()
        out[..., rows, cols] = batch.roll(1, 0)[..., rows, cols]
        return out
