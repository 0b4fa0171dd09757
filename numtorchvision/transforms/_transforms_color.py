"""Transform classes that change pixel values: colour jitter, grayscale, blur, erasing, the
single-operation random photometric transforms, and :class:`LinearTransformation`."""

import math
import numbers
import warnings
from collections.abc import Sequence

import numtorch as torch
from numtorch import nn

from . import functional as F
from .transforms import _setup_size, _uniform


class ColorJitter(nn.Module):
    """Change brightness, contrast, saturation and hue by random factors, in random order.

    Each argument is a spread ``x`` (factor drawn from [max(0, 1 - x), 1 + x]; hue from
    [-x, x]) or an explicit (min, max).
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5),
                                     clip_first_on_zero=False)

    def _check_input(self, value, name, center=1, bound=(0, float("inf")),
                     clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """(order of the four adjustments, brightness, contrast, saturation, hue factors);
        a factor is None when its range is None."""
        order = torch.randperm(4)
        draws = [None if r is None else _uniform(r[0], r[1])
                 for r in (brightness, contrast, saturation, hue)]
        return (order, *draws)

    def forward(self, img):
        order, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation,
                                            self.hue)
        for fn_id in order.tolist():
            if fn_id == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif fn_id == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif fn_id == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif fn_id == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, "
                f"contrast={self.contrast}, saturation={self.saturation}, hue={self.hue})")


class LinearTransformation(nn.Module):
    """Flatten the image, subtract ``mean_vector`` and multiply by the square
    ``transformation_matrix`` (e.g. ZCA whitening)."""

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        m, v = transformation_matrix, mean_vector
        if m.size(0) != m.size(1):
            raise ValueError(f"transformation_matrix should be square. Got {tuple(m.size())} "
                             f"rectangular matrix.")
        if v.size(0) != m.size(0):
            raise ValueError(f"mean_vector should have the same length {v.size(0)} as any one "
                             f"of the dimensions of the transformation_matrix "
                             f"[{tuple(m.size())}]")
        if m.device != v.device:
            raise ValueError(f"Input tensors should be on the same device. Got {m.device} and "
                             f"{v.device}")
        if m.dtype != v.dtype:
            raise ValueError(f"Input tensors should have the same dtype. Got {m.dtype} and "
                             f"{v.dtype}")
        self.transformation_matrix, self.mean_vector = m, v

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != "
                             f"{self.transformation_matrix.shape[0]}")
        if tensor.device.type != self.mean_vector.device.type:
            raise ValueError("Input tensor should be on the same device as transformation "
                             f"matrix and mean vector. Got {tensor.device} vs "
                             f"{self.mean_vector.device}")
        flat = tensor.reshape(-1, n) - self.mean_vector
        out = torch.mm(flat, self.transformation_matrix.to(flat.dtype))
        return out.reshape(shape)

    def __repr__(self):
        return (f"{self.__class__.__name__}(transformation_matrix="
                f"{self.transformation_matrix.tolist()}, mean_vector="
                f"{self.mean_vector.tolist()})")


class Grayscale(nn.Module):
    """Convert to grayscale with ``num_output_channels`` (1, or 3 equal channels)."""

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self):
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(nn.Module):
    """With probability ``p``, convert to grayscale keeping the number of channels."""

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels, _, _ = F.get_dimensions(img)
        if torch.rand(1) < self.p:
            return F.rgb_to_grayscale(img, num_output_channels=channels)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomErasing(nn.Module):
    """With probability ``p``, overwrite a random box of a tensor image (area ``scale`` of
    the image, aspect ratio in ``ratio``) with ``value`` (a number, one per channel, or
    ``'random'`` for standard normal noise)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """(top, left, height, width, fill) of the box; the whole image and itself when ten
        draws find no box that fits."""
        channels, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = torch.empty([channels, h, w], dtype=torch.float32).normal_()
            else:
                v = torch.tensor(value)[:, None, None]
            i = int(torch.randint(0, img_h - h + 1, size=(1,)).item())
            j = int(torch.randint(0, img_w - w + 1, size=(1,)).item())
            return i, j, h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if torch.rand(1) < self.p:
            if isinstance(self.value, (int, float)):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            elif isinstance(self.value, (list, tuple)):
                value = [float(v) for v in self.value]
            else:
                value = self.value
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError("If value is a sequence, it should have either a single value "
                                 f"or {img.shape[-3]} (number of input channels)")
            i, j, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio,
                                            value=value)
            return F.erase(img, i, j, h, w, v, self.inplace)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, "
                f"value={self.value}, inplace={self.inplace})")


class GaussianBlur(nn.Module):
    """Gaussian blur with a ``kernel_size`` kernel and a standard deviation drawn uniformly
    from ``sigma`` ((min, max) or one value)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size,
                                       "Kernel size should be a tuple/list of two integers")
        for k in self.kernel_size:
            if k <= 0 or k % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        """A standard deviation drawn uniformly from [sigma_min, sigma_max]."""
        return _uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class _RandomOp(nn.Module):
    """Apply one functional operation with probability ``p``."""

    _arg = None  # name of the operation's parameter, if it has one

    def __init__(self, *args, p=0.5):
        super().__init__()
        if self._arg is not None:
            setattr(self, self._arg, args[0])
        self.p = p

    def _apply(self, img):
        raise TypeError(f"{type(self).__name__} must define _apply")

    def forward(self, img):
        return self._apply(img) if torch.rand(1).item() < self.p else img

    def __repr__(self):
        if self._arg is None:
            return f"{self.__class__.__name__}(p={self.p})"
        return f"{self.__class__.__name__}({self._arg}={getattr(self, self._arg)},p={self.p})"


class RandomInvert(_RandomOp):
    """Invert the colours with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _apply(self, img):
        return F.invert(img)


class RandomPosterize(_RandomOp):
    """Keep ``bits`` bits per channel with probability ``p``."""

    _arg = "bits"

    def __init__(self, bits, p=0.5):
        super().__init__(bits, p=p)

    def _apply(self, img):
        return F.posterize(img, self.bits)


class RandomSolarize(_RandomOp):
    """Invert the values above ``threshold`` with probability ``p``."""

    _arg = "threshold"

    def __init__(self, threshold, p=0.5):
        super().__init__(threshold, p=p)

    def _apply(self, img):
        return F.solarize(img, self.threshold)


class RandomAdjustSharpness(_RandomOp):
    """Adjust the sharpness by ``sharpness_factor`` with probability ``p``."""

    _arg = "sharpness_factor"

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(sharpness_factor, p=p)

    def _apply(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)


class RandomAutocontrast(_RandomOp):
    """Autocontrast with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _apply(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomOp):
    """Equalize the histogram with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__(p=p)

    def _apply(self, img):
        return F.equalize(img)
