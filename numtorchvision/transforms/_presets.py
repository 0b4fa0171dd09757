"""Evaluation preprocessing attached to pretrained weights (``Weights.transforms()``).

Private, as in torchvision: reach these through ``weights.transforms`` rather than by name.
"""

import numtorch
from numtorch import nn

from . import functional as F
from .functional import InterpolationMode

__all__ = ["ObjectDetection", "ImageClassification", "SemanticSegmentation",
           "VideoClassification", "OpticalFlow"]


def _repr(preset, names):
    """``Name(`` then one ``name=value`` line per field, indented, then ``)``."""
    lines = "".join(f"\n    {n}={getattr(preset, n)}" for n in names)
    return f"{type(preset).__name__}({lines}\n)"


class ObjectDetection(nn.Module):
    """What the detection checkpoints expect: the image as floats in [0, 1], at its own size
    (the detector resizes and normalises internally).

    Accepts a PIL image or a ``(C, H, W)`` / ``(B, C, H, W)`` tensor.
    """

    def forward(self, img):
        if not isinstance(img, numtorch.Tensor):
            img = F.pil_to_tensor(img)
        return F.convert_image_dtype(img, numtorch.float)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def describe(self):
        """One paragraph (reStructuredText) saying what the preprocessing does."""
        return ("Takes a ``PIL.Image`` or an image ``Tensor`` of shape ``(C, H, W)`` or "
                "``(B, C, H, W)`` and scales its values to ``[0.0, 1.0]``.")


class ImageClassification(nn.Module):
    """Resize, centre-crop, scale to [0, 1] floats and normalise: what an ImageNet
    classifier saw at evaluation time.

    Accepts a PIL image or a ``(C, H, W)`` / ``(B, C, H, W)`` tensor.

    Args:
        crop_size (int): side of the square centre crop.
        resize_size (int): the shorter side is resized to this first. Default: 256.
        mean (sequence of float): per-channel mean subtracted after scaling.
        std (sequence of float): per-channel divisor.
        interpolation (InterpolationMode): resampling filter of the resize. Default: bilinear.
        antialias (bool, optional): antialias the resize. Default: True.
    """

    def __init__(self, *, crop_size, resize_size=256, mean=(0.485, 0.456, 0.406),
                 std=(0.229, 0.224, 0.225), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                       antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, numtorch.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, numtorch.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        return _repr(self, ("crop_size", "resize_size", "mean", "std", "interpolation"))

    def describe(self):
        """One paragraph (reStructuredText) saying what the preprocessing does."""
        return (f"Takes a ``PIL.Image`` or an image ``Tensor`` of shape ``(C, H, W)`` or "
                f"``(B, C, H, W)``. It resizes the shorter side to "
                f"``resize_size={self.resize_size}`` with ``interpolation="
                f"{self.interpolation}``, crops the centre ``crop_size={self.crop_size}``, "
                f"scales the values to ``[0.0, 1.0]`` and normalises them with "
                f"``mean={self.mean}`` and ``std={self.std}``.")


class SemanticSegmentation(nn.Module):
    """Resize the shorter side (no crop), scale to [0, 1] floats and normalise: the
    evaluation preprocessing of the segmentation checkpoints.

    Args:
        resize_size (int or None): target of the shorter side; None keeps the size.
        mean, std (sequence of float): normalisation.
        interpolation (InterpolationMode): resampling filter. Default: bilinear.
        antialias (bool, optional): antialias the resize. Default: True.
    """

    def __init__(self, *, resize_size, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.resize_size = None if resize_size is None else [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        if self.resize_size is not None:
            img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                           antialias=self.antialias)
        if not isinstance(img, numtorch.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, numtorch.float)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        return _repr(self, ("resize_size", "mean", "std", "interpolation"))

    def describe(self):
        """One paragraph (reStructuredText) saying what the preprocessing does."""
        return (f"Takes a ``PIL.Image`` or an image ``Tensor`` of shape ``(C, H, W)`` or "
                f"``(B, C, H, W)``. It resizes the shorter side to "
                f"``resize_size={self.resize_size}`` with ``interpolation="
                f"{self.interpolation}``, scales the values to ``[0.0, 1.0]`` and normalises "
                f"them with ``mean={self.mean}`` and ``std={self.std}``.")


class VideoClassification(nn.Module):
    """Per-frame resize (without antialiasing, as the video checkpoints were evaluated) and
    centre crop, scaling to [0, 1] floats and normalisation of a ``(..., T, C, H, W)`` clip;
    returns ``(..., C, T, H, W)``, the layout the video models take.

    Args:
        crop_size ((int, int)): the centre crop.
        resize_size (int or (int, int)): the resize before the crop.
        mean, std (sequence of float): normalisation (Kinetics-400 statistics by default).
        interpolation (InterpolationMode): resampling filter. Default: bilinear.
    """

    def __init__(self, *, crop_size, resize_size, mean=(0.43216, 0.394666, 0.37645),
                 std=(0.22803, 0.22145, 0.216989), interpolation=InterpolationMode.BILINEAR):
        super().__init__()
        self.crop_size = list(crop_size)
        self.resize_size = list(resize_size)
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation

    def forward(self, vid):
        single = vid.ndim < 5
        if single:
            vid = vid.unsqueeze(0)
        n, t, c, h, w = vid.shape
        frames = vid.reshape(-1, c, h, w)
        frames = F.resize(frames, self.resize_size, interpolation=self.interpolation,
                          antialias=False)
        frames = F.center_crop(frames, self.crop_size)
        frames = F.convert_image_dtype(frames, numtorch.float)
        frames = F.normalize(frames, mean=self.mean, std=self.std)
        out = frames.reshape(n, t, c, *frames.shape[-2:]).permute(0, 2, 1, 3, 4)
        return out.squeeze(0) if single else out

    def __repr__(self):
        return _repr(self, ("crop_size", "resize_size", "mean", "std", "interpolation"))

    def describe(self):
        """One paragraph (reStructuredText) saying what the preprocessing does."""
        return (f"Takes a batched ``(B, T, C, H, W)`` or single ``(T, C, H, W)`` video tensor. "
                f"Each frame is resized to ``resize_size={self.resize_size}`` with "
                f"``interpolation={self.interpolation}``, centre-cropped to "
                f"``crop_size={self.crop_size}``, scaled to ``[0.0, 1.0]`` and normalised with "
                f"``mean={self.mean}`` and ``std={self.std}``; the result is permuted to "
                f"``(..., C, T, H, W)``.")


class OpticalFlow(nn.Module):
    """What the optical-flow checkpoints expect: both images as floats mapped from [0, 1]
    to [-1, 1]. Accepts PIL images or ``(C, H, W)`` / ``(B, C, H, W)`` tensors."""

    def forward(self, img1, img2):
        out = []
        for img in (img1, img2):
            if not isinstance(img, numtorch.Tensor):
                img = F.pil_to_tensor(img)
            img = F.convert_image_dtype(img, numtorch.float)
            out.append(F.normalize(img, mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]).contiguous())
        return tuple(out)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def describe(self):
        """One paragraph (reStructuredText) saying what the preprocessing does."""
        return ("Takes two ``PIL.Image`` objects or image ``Tensor`` objects of shape "
                "``(C, H, W)`` or ``(B, C, H, W)`` and rescales their values to "
                "``[-1.0, 1.0]``.")
