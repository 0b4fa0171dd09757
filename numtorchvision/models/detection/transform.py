"""The input/output adapter of the R-CNN family (and the one-stage detectors): normalise each
image, resize it so its short side reaches ``min_size`` (long side at most ``max_size``),
pad the batch to a multiple of ``size_divisible``, and map predictions back to the
original image sizes afterwards. Targets (boxes, masks, keypoints) follow the resize."""

import math

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from .image_list import ImageList
from .roi_heads import paste_masks_in_image

__all__ = ["GeneralizedRCNNTransform", "resize_boxes", "resize_keypoints"]


def _scale_ratios(original_size, new_size, device):
    """float32 (height, width) ratios new / original, as 0-d tensors."""
    return [numtorch.tensor(n, dtype=numtorch.float32, device=device)
            / numtorch.tensor(o, dtype=numtorch.float32, device=device)
            for n, o in zip(new_size, original_size)]


def resize_boxes(boxes, original_size, new_size):
    """xyxy boxes of an image of ``original_size`` (h, w) mapped onto ``new_size``."""
    rh, rw = _scale_ratios(original_size, new_size, boxes.device)
    x0, y0, x1, y1 = boxes.unbind(1)
    return numtorch.stack((x0 * rw, y0 * rh, x1 * rw, y1 * rh), dim=1)


def resize_keypoints(keypoints, original_size, new_size):
    """``(..., 3)`` keypoints (x, y, visibility) mapped onto ``new_size``."""
    rh, rw = _scale_ratios(original_size, new_size, keypoints.device)
    out = keypoints.clone()
    out[..., 0] *= rw
    out[..., 1] *= rh
    return out


def _resize_image_and_masks(image, self_min_size, self_max_size, target=None, fixed_size=None):
    """Bilinear resize of a ``(C, H, W)`` image to ``fixed_size`` (w, h) or by the
    factor ``min(min_size / short side, max_size / long side)``; target masks follow with
    nearest-neighbour sampling."""
    if fixed_size is not None:
        how = {"size": [fixed_size[1], fixed_size[0]], "scale_factor": None,
               "recompute_scale_factor": None}
    else:
        short, long = sorted(float(v) for v in image.shape[-2:])
        scale = min(self_min_size / short, self_max_size / long)
        how = {"size": None, "scale_factor": scale, "recompute_scale_factor": True}
    image = F.interpolate(image[None], mode="bilinear", align_corners=False, **how)[0]
    if target is not None and "masks" in target:
        masks = target["masks"][:, None].float()
        target["masks"] = F.interpolate(masks, **how)[:, 0].byte()
    return image, target


class GeneralizedRCNNTransform(nn.Module):
    """Normalise, resize and batch images (and their targets) for a detector.

    Args:
        min_size (int or tuple of int): target short side; in training one entry of the
            tuple is drawn per image.
        max_size (int): cap of the long side.
        image_mean, image_std (list of float): per-channel normalisation.
        size_divisible (int): the padded batch's height and width are multiples of it.
        fixed_size (tuple of int, optional): resize every image to this (width, height).
        _skip_resize (bool): in training, keep the images' sizes.
    """

    def __init__(self, min_size, max_size, image_mean, image_std, size_divisible=32,
                 fixed_size=None, **kwargs):
        super().__init__()
        self.min_size = min_size if isinstance(min_size, (list, tuple)) else (min_size,)
        self.max_size, self.fixed_size = max_size, fixed_size
        self.image_mean, self.image_std = image_mean, image_std
        self.size_divisible = size_divisible
        self._skip_resize = kwargs.pop("_skip_resize", False)

    def forward(self, images, targets=None):
        images = list(images)
        if targets is not None:
            targets = [dict(t) for t in targets]
        for i, img in enumerate(images):
            if img.dim() != 3:
                raise ValueError(f"images is expected to be a list of 3d tensors of shape "
                                 f"[C, H, W], got {img.shape}")
            target = targets[i] if targets is not None else None
            images[i], target = self.resize(self.normalize(img), target)
            if targets is not None:
                targets[i] = target
        sizes = [(int(img.shape[-2]), int(img.shape[-1])) for img in images]
        batch = self.batch_images(images, size_divisible=self.size_divisible)
        return ImageList(batch, sizes), targets

    def normalize(self, image):
        if not image.is_floating_point():
            raise TypeError(f"Expected input images to be of floating type (in range [0, 1]), "
                            f"but found type {image.dtype} instead")
        mean = numtorch.as_tensor(self.image_mean, dtype=image.dtype, device=image.device)
        std = numtorch.as_tensor(self.image_std, dtype=image.dtype, device=image.device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def torch_choice(self, k):
        """One element of ``k``, drawn with the default generator (as torchvision does)."""
        return k[int(numtorch.empty(1).uniform_(0.0, float(len(k))).item())]

    def resize(self, image, target=None):
        h, w = image.shape[-2:]
        if self.training:
            if self._skip_resize:
                return image, target
            size = self.torch_choice(self.min_size)
        else:
            size = self.min_size[-1]
        image, target = _resize_image_and_masks(image, size, self.max_size, target,
                                                self.fixed_size)
        if target is None:
            return image, target
        new = image.shape[-2:]
        target["boxes"] = resize_boxes(target["boxes"], (h, w), new)
        if "keypoints" in target:
            target["keypoints"] = resize_keypoints(target["keypoints"], (h, w), new)
        return image, target

    def max_by_axis(self, the_list):
        return [max(col) for col in zip(*the_list)]

    def batch_images(self, images, size_divisible=32):
        """Zero-pad to a common ``(C, H, W)`` with H and W rounded up to ``size_divisible``."""
        c, h, w = self.max_by_axis([list(img.shape) for img in images])
        stride = float(size_divisible)
        h = int(math.ceil(float(h) / stride) * stride)
        w = int(math.ceil(float(w) / stride) * stride)
        batch = images[0].new_full([len(images), c, h, w], 0)
        for slot, img in zip(batch, images):
            slot[:img.shape[0], :img.shape[1], :img.shape[2]].copy_(img)
        return batch

    def postprocess(self, result, image_shapes, original_image_sizes):
        """Map boxes (and masks, keypoints) from the resized images back to the originals;
        in training the losses pass through untouched."""
        if self.training:
            return result
        for pred, size, original in zip(result, image_shapes, original_image_sizes):
            pred["boxes"] = resize_boxes(pred["boxes"], size, original)
            if "masks" in pred:
                pred["masks"] = paste_masks_in_image(pred["masks"], pred["boxes"], original)
            if "keypoints" in pred:
                pred["keypoints"] = resize_keypoints(pred["keypoints"], size, original)
        return result

    def __repr__(self):
        pad = "\n    "
        return (f"{self.__class__.__name__}({pad}Normalize(mean={self.image_mean}, "
                f"std={self.image_std}){pad}Resize(min_size={self.min_size}, "
                f"max_size={self.max_size}, mode='bilinear')\n)")
