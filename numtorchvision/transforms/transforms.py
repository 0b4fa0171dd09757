"""The transform classes: callables (most of them ``nn.Module``\\ s) that wrap
:mod:`numtorchvision.transforms.functional` with fixed or randomly drawn parameters.

Random parameters come from numtorch's generator (``numtorch.manual_seed`` reproduces them);
:class:`RandomOrder` and :class:`RandomChoice` use Python's ``random`` module, as torchvision
does.
"""

import numbers
import random
import warnings
from collections.abc import Sequence

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch._random import rng_for
from numtorch._torch_rng import is_torch_stream

from . import functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, Sequence) and len(size) == 1:
        return (size[0], size[0])
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _mode(interpolation):
    return _interpolation_modes_from_int(interpolation) if isinstance(interpolation, int) \
        else interpolation


def _listing(name, items, head=()):
    """``Name(`` + one indented line per item + ``)``."""
    lines = [f"{name}("] + [f"    {x}" for x in head] + [f"    {t}" for t in items]
    return "\n".join(lines) + "\n)"


def _host_rng():
    """The default CPU generator's NumPy generator when a one-element draw would be a float32
    CPU tensor (the common case), else None.

    The per-image parameters are single draws; making each a tensor op costs more than the
    crop it parametrises. Drawing the same variates from the same generator directly gives
    the same numbers (and ``manual_seed`` reproducibility) as the tensor route.
    """
    if torch.get_default_device().type != "cpu" or torch.get_default_dtype() is not torch.float32:
        return None
    return rng_for(None)


def _uniform(low, high):
    """``torch.empty(1).uniform_(low, high).item()``."""
    rng = _host_rng()
    if rng is None or not low <= high:  # other devices/dtypes, and torch's error, by tensor
        return float(torch.empty(1).uniform_(low, high).item())
    if is_torch_stream(rng):  # torch's arithmetic: float32 bounds, one fused multiply-add
        return float(rng.uniform(low, high, 1, np.float32)[0])
    u = np.float32(rng.random(dtype=np.float32))  # one draw: the same variate as shape (1,)
    span = high - low
    if span != 1:
        u *= np.float32(span)
    if low != 0:
        u += np.float32(low)
    return float(u)


def _randint(low, high):
    """``torch.randint(low, high, size=(1,)).item()``."""
    rng = _host_rng()
    if rng is None or not low < high:
        return int(torch.randint(low, high, size=(1,)).item())
    return int(rng.integers(low, high, dtype=np.int64))


def _rand_below(p):
    """``torch.rand(1) < p``: a coin that comes up True with probability ``p``."""
    rng = _host_rng()
    if rng is None:
        return bool(torch.rand(1) < p)
    return bool(np.float32(rng.random(dtype=np.float32)) < np.float32(p))


class Compose:
    """Apply ``transforms`` (a list of callables) one after another."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return _listing(self.__class__.__name__, self.transforms)


class ToTensor:
    """PIL image or (H, W, C) ndarray -> (C, H, W) tensor; bytes become floats in [0, 1]."""

    def __init__(self):  # (takes no settings: a stray one is a TypeError naming __init__)
        pass

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """PIL image -> (C, H, W) tensor with the same values and type."""

    def __init__(self):  # (takes no settings: a stray one is a TypeError naming __init__)
        pass

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ConvertImageDtype(nn.Module):
    """Cast a tensor image to ``dtype``, rescaling its values (see
    :func:`~numtorchvision.transforms.functional.convert_image_dtype`)."""

    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class ToPILImage:
    """(C, H, W) tensor or (H, W, C) ndarray -> PIL image (``mode`` inferred when None)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        inner = f"mode={self.mode}" if self.mode is not None else ""
        return f"{self.__class__.__name__}({inner})"


class Normalize(nn.Module):
    """``(x - mean[c]) / std[c]`` for each channel ``c`` of a float tensor image."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Resize(nn.Module):
    """Resize to ``size`` ((h, w), or an int for the shorter edge) with ``interpolation``;
    ``max_size`` caps the longer edge, ``antialias`` low-pass filters tensors when shrinking."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size = size, max_size
        self.interpolation = _mode(interpolation)
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, interpolation="
                f"{self.interpolation.value}, max_size={self.max_size}, "
                f"antialias={self.antialias})")


class Scale(Resize):
    """The 0.x name of :class:`Resize` (deprecated there, kept working here)."""

    def __init__(self, *args, **kwargs):
        warnings.warn("transforms.Scale is the old name of transforms.Resize; use Resize.",
                      FutureWarning, stacklevel=2)
        super().__init__(*args, **kwargs)


class CenterCrop(nn.Module):
    """Crop the centre ``size`` box ((h, w) or an int); smaller images are zero-padded."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


def _check_pad_args(padding, fill, padding_mode):
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")


class Pad(nn.Module):
    """Pad the borders (see :func:`~numtorchvision.transforms.functional.pad`)."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        _check_pad_args(padding, fill, padding_mode)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class Lambda:
    """Use the callable ``lambd`` as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class RandomTransforms:
    """Base class for transforms that pick among a sequence of ``transforms``."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self.__class__.__name__} is a base class: use "
                                  f"RandomOrder or RandomChoice")

    def __repr__(self):
        return _listing(self.__class__.__name__, self.transforms)


class RandomApply(nn.Module):
    """Apply all of ``transforms`` with probability ``p``, else none of them."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        # a plain attribute, as in torchvision: the transforms are not submodules
        object.__setattr__(self, "transforms", transforms)
        self.p = p

    def forward(self, img):
        if self.p < torch.rand(1):
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return _listing(self.__class__.__name__, self.transforms, head=[f"p={self.p}"])


class RandomOrder(RandomTransforms):
    """Apply ``transforms`` in a random order (Python's ``random``)."""

    def __call__(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomChoice(RandomTransforms):
    """Apply one of ``transforms``, picked with weights ``p`` (Python's ``random``)."""

    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        return random.choices(self.transforms, weights=self.p)[0](*args)

    def __repr__(self):
        return f"{super().__repr__()}(p={self.p})"


class RandomCrop(nn.Module):
    """Crop a ``size`` box at a random place, after optional ``padding`` (and padding up to
    ``size`` when ``pad_if_needed``)."""

    @staticmethod
    def get_params(img, output_size):
        """A random (top, left, height, width) box of ``output_size`` inside ``img``."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size "
                             f"{(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return _randint(0, h - th + 1), _randint(0, w - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, error_msg=_SIZE_MSG))
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(nn.Module):
    """Mirror left-right with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.hflip(img) if _rand_below(self.p) else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(nn.Module):
    """Mirror top-bottom with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.vflip(img) if _rand_below(self.p) else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class FiveCrop(nn.Module):
    """The four corner crops and the centre crop (a tuple of 5 images)."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(nn.Module):
    """:class:`FiveCrop` of the image and of its mirror image (a tuple of 10 images)."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, "
                f"vertical_flip={self.vertical_flip})")


from ._transforms_color import (
    ColorJitter,
    GaussianBlur,
    Grayscale,
    LinearTransformation,
    RandomAdjustSharpness,
    RandomAutocontrast,
    RandomEqualize,
    RandomErasing,
    RandomGrayscale,
    RandomInvert,
    RandomPosterize,
    RandomSolarize,
)
from ._transforms_geometric import (
    ElasticTransform,
    RandomAffine,
    RandomPerspective,
    RandomResizedCrop,
    RandomRotation,
    RandomSizedCrop,
)

__all__ = [
    "Compose", "ToTensor", "PILToTensor", "ConvertImageDtype", "ToPILImage", "Normalize",
    "Resize", "Scale", "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice",
    "RandomOrder", "RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
    "RandomResizedCrop", "RandomSizedCrop", "FiveCrop", "TenCrop", "LinearTransformation",
    "ColorJitter", "RandomRotation", "RandomAffine", "Grayscale", "RandomGrayscale",
    "RandomPerspective", "RandomErasing", "GaussianBlur", "InterpolationMode", "RandomInvert",
    "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "RandomAutocontrast",
    "RandomEqualize", "ElasticTransform",
]
