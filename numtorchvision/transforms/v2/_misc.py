"""Identity, Lambda, Normalize, GaussianBlur, ToDtype, ConvertImageDtype,
SanitizeBoundingBoxes."""

import warnings

import numpy as np

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from ...tv_tensors._tv_tensor import _plain
from ..transforms import _uniform
from . import functional as F
from ._transform import Transform
from ._utils import (
    _parse_labels_getter,
    _setup_number_or_seq,
    _setup_size,
    get_bounding_boxes,
    has_any,
    tree_flatten,
    tree_unflatten,
)
from .functional._misc import _sanitize_mask
from .functional._utils import is_pure_tensor


class Identity(Transform):
    """The input unchanged."""

    def transform(self, inpt, params):
        return inpt


class Lambda(Transform):
    """``lambd`` applied to every input of the ``types`` given (default: any object)."""

    _transformed_types = (object,)

    def __init__(self, lambd, *types):
        super().__init__()
        self.lambd = lambd
        self.types = types or self._transformed_types

    def transform(self, inpt, params):
        for type_ in self.types:
            if isinstance(inpt, type_):
                return self.lambd(inpt)
        return inpt

    def extra_repr(self):
        extras = []
        name = getattr(self.lambd, "__name__", None)
        if name:
            extras.append(name)
        extras.append(f"types={[type.__name__ for type in self.types]}")
        return ", ".join(extras)


class Normalize(Transform):
    """``(x - mean) / std`` per channel (floating images and videos)."""

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def check_inputs(self, sample):
        if has_any(sample, is_pil_image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")

    def transform(self, inpt, params):
        return self._call_kernel(F.normalize, inpt, mean=self.mean, std=self.std,
                                 inplace=self.inplace)


class GaussianBlur(Transform):
    """Gaussian blur with sigma drawn from ``sigma`` ((min, max) or one value)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size,
                                       "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        self.sigma = _setup_number_or_seq(sigma, "sigma")
        if not 0.0 < self.sigma[0] <= self.sigma[1]:
            raise ValueError("sigma values should be positive and of the form (min, max). Got "
                             f"{self.sigma}")

    def make_params(self, flat_inputs):
        sigma = _uniform(self.sigma[0], self.sigma[1])
        return {"sigma": [sigma, sigma]}

    def transform(self, inpt, params):
        return self._call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


class ToDtype(Transform):
    """Images and videos (and plain tensors) to ``dtype``, rescaled with ``scale=True``; a
    dict gives a dtype per kind (``"others"``: the rest, None: pass through)."""

    _transformed_types = (torch.Tensor,)

    def __init__(self, dtype, scale=False):
        super().__init__()
        if not isinstance(dtype, (dict, torch.dtype)):
            raise ValueError(f"dtype must be a dict or a torch.dtype, got {type(dtype)} instead")
        if isinstance(dtype, dict) and torch.Tensor in dtype and any(
                cls in dtype for cls in [tv_tensors.Image, tv_tensors.Video]):
            warnings.warn(
                "Got `dtype` values for `torch.Tensor` and either `tv_tensors.Image` or "
                "`tv_tensors.Video`. Note that a plain `torch.Tensor` will *not* be transformed "
                "by this (or any other transformation) in case a `tv_tensors.Image` or "
                "`tv_tensors.Video` is present in the input.")
        self.dtype = dtype
        self.scale = scale

    def transform(self, inpt, params):
        if isinstance(self.dtype, torch.dtype):
            if not is_pure_tensor(inpt) and not isinstance(inpt, (tv_tensors.Image,
                                                                   tv_tensors.Video)):
                return inpt
            dtype = self.dtype
        elif type(inpt) in self.dtype:
            dtype = self.dtype[type(inpt)]
        elif "others" in self.dtype:
            dtype = self.dtype["others"]
        else:
            raise ValueError(
                f"No dtype was specified for type {type(inpt)}. If you only need to convert the "
                "dtype of images or videos, you can just pass e.g. dtype=torch.float32. If "
                "you're passing a dict as dtype, you can use \"others\" as a catch-all key e.g. "
                "dtype={tv_tensors.Mask: torch.int64, \"others\": None} to pass-through the rest "
                "of the inputs.")
        supports_scaling = is_pure_tensor(inpt) or isinstance(inpt, (tv_tensors.Image,
                                                                     tv_tensors.Video))
        if dtype is None:
            if self.scale and supports_scaling:
                warnings.warn("scale was set to True but no dtype was specified for images or "
                              "videos: no scaling will be done.")
            return inpt
        return self._call_kernel(F.to_dtype, inpt, dtype=dtype, scale=self.scale)


class ConvertImageDtype(Transform):
    """``ToDtype(dtype, scale=True)`` (the v1 name)."""

    def __init__(self, dtype=torch.float32):
        super().__init__()
        self.dtype = dtype

    def transform(self, inpt, params):
        return self._call_kernel(F.to_dtype, inpt, dtype=self.dtype, scale=True)


class SanitizeBoundingBoxes(Transform):
    """Drop boxes smaller than ``min_size`` / ``min_area`` or outside the canvas, with the
    masks and labels (found by ``labels_getter``) that go with them."""

    def __init__(self, min_size=1.0, min_area=1.0, labels_getter="default"):
        super().__init__()
        if min_size < 1:
            raise ValueError(f"min_size must be >= 1, got {min_size}.")
        self.min_size = min_size
        if min_area < 1:
            raise ValueError(f"min_area must be >= 1, got {min_area}.")
        self.min_area = min_area
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(inputs)
        if labels is not None:
            msg = "The labels in the input to forward() must be a tensor or None, got {type} " \
                  "instead."
            if isinstance(labels, torch.Tensor):
                labels = (labels,)
            elif isinstance(labels, (tuple, list)):
                for entry in labels:
                    if not isinstance(entry, torch.Tensor):
                        raise ValueError(msg.format(type=type(entry)))
            else:
                raise ValueError(msg.format(type=type(labels)))
        flat_inputs, spec = tree_flatten(inputs)
        boxes = get_bounding_boxes(flat_inputs)
        if labels is not None:
            for label in labels:
                if boxes.shape[0] != label.shape[0]:
                    raise ValueError(f"Number of boxes (shape={boxes.shape}) and must match the "
                                     f"number of labels.Found labels with shape={label.shape}).")
        valid = _sanitize_mask(_plain(boxes), boxes.format, boxes.canvas_size,
                               self.min_size, self.min_area)
        params = {"valid": valid, "labels": labels}
        return tree_unflatten([self.transform(x, params) for x in flat_inputs], spec)

    def transform(self, inpt, params):
        is_label = params["labels"] is not None and any(inpt is label
                                                        for label in params["labels"])
        is_boxes_or_mask = isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.Mask))
        if not (is_label or is_boxes_or_mask):
            return inpt
        try:
            output = _plain(inpt)[params["valid"]]
        except IndexError:
            return inpt
        return output if is_label else tv_tensors.wrap(output, like=inpt)


class LinearTransformation(Transform):
    """Flatten each image, subtract ``mean_vector`` and multiply by
    ``transformation_matrix`` (whitening)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        if transformation_matrix.size(0) != transformation_matrix.size(1):
            raise ValueError("transformation_matrix should be square. Got "
                             f"{tuple(transformation_matrix.size())} rectangular matrix.")
        if mean_vector.size(0) != transformation_matrix.size(0):
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} as "
                             "any one of the dimensions of the transformation_matrix "
                             f"[{tuple(transformation_matrix.size())}]")
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError("Input tensors should have the same dtype. Got "
                             f"{transformation_matrix.dtype} and {mean_vector.dtype}")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def check_inputs(self, sample):
        if has_any(sample, is_pil_image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images.")

    def transform(self, inpt, params):
        shape = inpt.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != "
                             f"{self.transformation_matrix.shape[0]}")
        flat = _plain(inpt).reshape(-1, n) - self.mean_vector
        output = torch.mm(flat, self.transformation_matrix.to(flat.dtype)).reshape(shape)
        if isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)):
            output = tv_tensors.wrap(output, like=inpt)
        return output


class GaussianNoise(Transform):
    """Add normal noise (``mean``, ``sigma``), clipped to the value range with ``clip``."""

    def __init__(self, mean=0.0, sigma=0.1, clip=True):
        super().__init__()
        self.mean = mean
        self.sigma = sigma
        self.clip = clip

    def transform(self, inpt, params):
        return self._call_kernel(F.gaussian_noise, inpt, mean=self.mean, sigma=self.sigma,
                                 clip=self.clip)


class UniformTemporalSubsample(Transform):
    """``num_samples`` evenly spaced frames of each video."""

    _transformed_types = (torch.Tensor,)

    def __init__(self, num_samples):
        super().__init__()
        self.num_samples = num_samples

    def transform(self, inpt, params):
        return self._call_kernel(F.uniform_temporal_subsample, inpt, self.num_samples)


class ToTensor(Transform):
    """Deprecated: PIL images and ndarrays as float tensors in [0, 1]; use
    ``Compose([ToImage(), ToDtype(torch.float32, scale=True)])``."""

    _transformed_types = (is_pil_image, np.ndarray)

    def __init__(self):
        warnings.warn("The transform `ToTensor()` is deprecated and will be removed in a future "
                      "release. Instead, please use `v2.Compose([v2.ToImage(), "
                      "v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to "
                      "float precision.")
        super().__init__()

    def transform(self, inpt, params):
        return _v1_to_tensor(inpt)


def _v1_to_tensor(inpt):
    from ..functional import to_tensor

    return to_tensor(inpt)


class SanitizeKeyPoints(Transform):
    """Drop the points (or point groups, along the first dimension) outside the canvas, with
    their labels (``labels_getter``, None by default)."""

    def __init__(self, labels_getter=None):
        super().__init__()
        self.labels_getter = labels_getter
        self._labels_getter = _parse_labels_getter(labels_getter)

    def forward(self, *inputs):
        from ._utils import get_keypoints
        from .functional._keypoints import _sanitize_keypoints_mask

        inputs = inputs if len(inputs) > 1 else inputs[0]
        labels = _check_labels(self._labels_getter(inputs))
        flat_inputs, spec = tree_flatten(inputs)
        points = get_keypoints(flat_inputs)
        if labels is not None:
            for label in labels:
                if points.shape[0] != label.shape[0]:
                    raise ValueError(f"Number of kepyoints (shape={points.shape}) must match the "
                                     f"number of labels.Found labels with shape={label.shape}).")
        valid = _sanitize_keypoints_mask(_plain(points), canvas_size=points.canvas_size)
        params = dict(valid=valid, labels=labels)
        return tree_unflatten([self.transform(x, params) for x in flat_inputs], spec)

    def transform(self, inpt, params):
        is_label = params["labels"] is not None and any(inpt is label
                                                        for label in params["labels"])
        if not (is_label or isinstance(inpt, tv_tensors.KeyPoints)):
            return inpt
        output = _plain(inpt)[params["valid"]]
        return output if is_label else tv_tensors.wrap(output, like=inpt)


def _check_labels(labels):
    if labels is None:
        return None
    msg = "The labels in the input to forward() must be a tensor or None, got {type} instead."
    if isinstance(labels, torch.Tensor):
        return (labels,)
    if isinstance(labels, (tuple, list)):
        for entry in labels:
            if not isinstance(entry, torch.Tensor):
                raise ValueError(msg.format(type=type(entry)))
        return labels
    raise ValueError(msg.format(type=type(labels)))
