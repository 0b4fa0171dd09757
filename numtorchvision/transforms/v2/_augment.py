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
from ._transform import Transform, _RandomApplyTransform
from ._utils import (
    _parse_labels_getter,
    has_any,
    query_chw,
    query_size,
    tree_flatten,
    tree_unflatten,
)
from .functional._utils import is_pure_tensor


class RandomErasing(_RandomApplyTransform):
    """With probability ``p``, overwrite a random box (``scale`` of the area, aspect ratio in
    ``ratio``) with ``value`` (a number, one per channel, or ``"random"`` normal noise)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0.0, inplace=False):
        super().__init__(p=p)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        self.scale = scale
        self.ratio = ratio
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = [float(v) for v in value]
        self.inplace = inplace
        self._log_ratio = torch.log(torch.tensor(self.ratio))

    def _call_kernel(self, functional, inpt, *args, **kwargs):
        if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints, tv_tensors.Mask)):
            warnings.warn(f"{type(self).__name__}() is currently passing through inputs of type "
                          f"tv_tensors.{type(inpt).__name__}. This will likely change in the "
                          "future.")
        return super()._call_kernel(functional, inpt, *args, **kwargs)

    def make_params(self, flat_inputs):
        img_c, img_h, img_w = query_chw(flat_inputs)
        if self.value is not None and len(self.value) not in (1, img_c):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{img_c} (number of inpt channels)")
        area = img_h * img_w
        log_lo, log_hi = float(self._log_ratio[0]), float(self._log_ratio[1])
        for _ in range(10):
            erase_area = area * _uniform(self.scale[0], self.scale[1])
            aspect_ratio = float(torch.exp(torch.tensor(_uniform(log_lo, log_hi))))
            h = round(math.sqrt(erase_area * aspect_ratio))
            w = round(math.sqrt(erase_area / aspect_ratio))
            if not (h < img_h and w < img_w):
                continue
            if self.value is None:
                v = torch.empty([img_c, h, w], dtype=torch.float32).normal_()
            else:
                v = torch.tensor(self.value)[:, None, None]
            i = _randint(0, img_h - h + 1)
            j = _randint(0, img_w - w + 1)
            break
        else:
            i, j, h, w, v = 0, 0, img_h, img_w, None
        return {"i": i, "j": j, "h": h, "w": w, "v": v}

    def transform(self, inpt, params):
        if params["v"] is not None:
            inpt = self._call_kernel(F.erase, inpt, **params, inplace=self.inplace)
        return inpt


class _BaseMixUpCutMix(Transform):
    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        super().__init__()
        self.alpha = float(alpha)
        self._dist = torch.distributions.Beta(torch.tensor([alpha]), torch.tensor([alpha]))
        self.num_classes = num_classes
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(inputs)
        needs = self._needs_transform_list(flat_inputs)
        if has_any(flat_inputs, is_pil_image, tv_tensors.BoundingBoxes, tv_tensors.Mask,
                   tv_tensors.KeyPoints):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding "
                             "boxes, keypoints and masks.")
        labels = self._labels_getter(inputs)
        if not isinstance(labels, torch.Tensor):
            raise ValueError(f"The labels must be a tensor, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError("labels should be index based with shape (batch_size,) or "
                             "probability based with shape (batch_size, num_classes), but got a "
                             f"tensor of shape {labels.shape} instead.")
        if labels.ndim == 2 and self.num_classes is not None and \
                labels.shape[-1] != self.num_classes:
            raise ValueError("When passing 2D labels, the number of elements in last dimension "
                             f"must match num_classes: {labels.shape[-1]} != {self.num_classes}. "
                             "You can Leave num_classes to None.")
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")
        params = {"labels": labels, "batch_size": labels.shape[0],
                  **self.make_params([x for x, n in zip(flat_inputs, needs) if n])}
        needs[next(i for i, x in enumerate(flat_inputs) if x is labels)] = True
        flat_outputs = [self.transform(x, params) if n else x for x, n in zip(flat_inputs, needs)]
        return tree_unflatten(flat_outputs, spec)

    def _check_image_or_video(self, inpt, *, batch_size):
        expected = 5 if isinstance(inpt, tv_tensors.Video) else 4
        if inpt.ndim != expected:
            raise ValueError(f"Expected a batched input with {expected} dims, but got "
                             f"{inpt.ndim} dimensions instead.")
        if inpt.shape[0] != batch_size:
            raise ValueError("The batch size of the image or video does not match the batch "
                             f"size of the labels: {inpt.shape[0]} != {batch_size}.")

    def _mixup_label(self, label, *, lam):
        if label.ndim == 1:
            label = one_hot(label, num_classes=self.num_classes)
        if not label.dtype.is_floating_point:
            label = label.float()
        return label.roll(1, 0).mul_(1.0 - lam).add_(label.mul(lam))

    @staticmethod
    def _is_pixels(inpt):
        return isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or is_pure_tensor(inpt)


class MixUp(_BaseMixUpCutMix):
    """Blend each sample of a batch with the previous one (weight drawn from
    Beta(alpha, alpha)), labels likewise (one-hot first)."""

    def make_params(self, flat_inputs):
        return {"lam": float(self._dist.sample(()))}

    def transform(self, inpt, params):
        lam = params["lam"]
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=lam)
        if not self._is_pixels(inpt):
            return inpt
        self._check_image_or_video(inpt, batch_size=params["batch_size"])
        plain = _plain(inpt)
        output = plain.roll(1, 0).mul_(1.0 - lam).add_(plain.mul(lam))
        return output if is_pure_tensor(inpt) else tv_tensors.wrap(output, like=inpt)


class CutMix(_BaseMixUpCutMix):
    """Paste a random box of the previous sample of the batch into each sample; the labels
    are mixed by the pasted area."""

    def make_params(self, flat_inputs):
        lam = float(self._dist.sample(()))
        H, W = query_size(flat_inputs)
        r_x = _randint(0, W)
        r_y = _randint(0, H)
        r = 0.5 * math.sqrt(1.0 - lam)
        r_w_half, r_h_half = int(r * W), int(r * H)
        x1, y1 = max(r_x - r_w_half, 0), max(r_y - r_h_half, 0)
        x2, y2 = min(r_x + r_w_half, W), min(r_y + r_h_half, H)
        lam_adjusted = float(1.0 - (x2 - x1) * (y2 - y1) / (W * H))
        return {"box": (x1, y1, x2, y2), "lam_adjusted": lam_adjusted}

    def transform(self, inpt, params):
        if inpt is params["labels"]:
            return self._mixup_label(inpt, lam=params["lam_adjusted"])
        if not self._is_pixels(inpt):
            return inpt
        self._check_image_or_video(inpt, batch_size=params["batch_size"])
        x1, y1, x2, y2 = params["box"]
        plain = _plain(inpt)
        output = plain.clone()
        output[..., y1:y2, x1:x2] = plain.roll(1, 0)[..., y1:y2, x1:x2]
        return output if is_pure_tensor(inpt) else tv_tensors.wrap(output, like=inpt)
