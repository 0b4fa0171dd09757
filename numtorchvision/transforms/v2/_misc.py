"""Identity, Lambda, Normalize, GaussianBlur, GaussianNoise, ToDtype, ConvertImageDtype,
LinearTransformation, UniformTemporalSubsample, ToTensor and the two sanitizers."""

import inspect
import warnings

import numpy as np

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from ...tv_tensors._tv_tensor import _plain
from ..transforms import _setup_size, _uniform
from . import functional as F
from ._checks import labels_getter_fn, number_pair
from ._kernel_table import kernel_transform
from ._transform import Transform
from ._utils import (
    get_bounding_boxes,
    get_keypoints,
    tree_flatten,
    tree_unflatten,
)
from .functional._keypoints import _sanitize_keypoints_mask
from .functional._misc import _sanitize_mask
from .functional._utils import is_pure_tensor

_IMAGE_KINDS = (tv_tensors.Image, tv_tensors.Video)

GaussianNoise = kernel_transform(
    "GaussianNoise", F.gaussian_noise, [("mean", 0.0), ("sigma", 0.1), ("clip", True)],
    doc="Add normal noise (``mean``, ``sigma``), clipped to the value range with ``clip``.",
    module=__name__)
UniformTemporalSubsample = kernel_transform(
    "UniformTemporalSubsample", F.uniform_temporal_subsample,
    [("num_samples", inspect.Parameter.empty)], types=(torch.Tensor,),
    doc="``num_samples`` evenly spaced frames of each video.", module=__name__)


def _image_like(inpt):
    return is_pure_tensor(inpt) or isinstance(inpt, _IMAGE_KINDS)


def _no_pil(transform, leaves):
    if any(is_pil_image(x) for x in leaves):
        raise TypeError(f"{type(transform).__name__}() does not support PIL images.")


class Identity(Transform):
    """The input unchanged."""

    def transform(self, inpt, params):
        return inpt


class Lambda(Transform):
    """``lambd`` applied to every input of the ``types`` given (default: any object)."""

    _transformed_types = (object,)

    def __init__(self, lambd, *types):
        super().__init__(lambd=lambd, types=types or (object,))

    def transform(self, inpt, params):
        return self.lambd(inpt) if isinstance(inpt, tuple(self.types)) else inpt

    def extra_repr(self):
        name = getattr(self.lambd, "__name__", None)
        kinds = f"types={[t.__name__ for t in self.types]}"
        return f"{name}, {kinds}" if name else kinds


class Normalize(Transform):
    """``(x - mean) / std`` per channel (floating images and videos)."""

    def __init__(self, mean, std, inplace=False):
        super().__init__(mean=list(mean), std=list(std), inplace=inplace)

    check_inputs = _no_pil

    def transform(self, inpt, params):
        return self._call_kernel(F.normalize, inpt, mean=self.mean, std=self.std,
                                 inplace=self.inplace)


class GaussianBlur(Transform):
    """Gaussian blur with sigma drawn from ``sigma`` ((min, max) or one value)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        sizes = _setup_size(kernel_size, "Kernel size should be a tuple/list of two integers")
        if any(k <= 0 or k % 2 == 0 for k in sizes):
            raise ValueError("Kernel size value should be an odd and positive number.")
        spread = number_pair(sigma, "sigma")
        if not 0.0 < spread[0] <= spread[1]:
            raise ValueError("sigma values should be positive and of the form (min, max). Got "
                             f"{spread}")
        super().__init__(kernel_size=sizes, sigma=spread)

    def make_params(self, flat_inputs):
        return {"sigma": [_uniform(*self.sigma)] * 2}

    def transform(self, inpt, params):
        return self._call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


_NO_DTYPE = (
    "No dtype was specified for type {}. If you only need to convert the dtype of images or "
    "videos, you can just pass e.g. dtype=torch.float32. If you're passing a dict as dtype, you "
    "can use \"others\" as a catch-all key e.g. dtype={{tv_tensors.Mask: torch.int64, "
    "\"others\": None}} to pass-through the rest of the inputs.")


class ToDtype(Transform):
    """Images and videos (and plain tensors) to ``dtype``, rescaled with ``scale=True``; a
    dict gives a dtype per kind (``"others"``: the rest, None: pass through)."""

    _transformed_types = (torch.Tensor,)

    def __init__(self, dtype, scale=False):
        if not isinstance(dtype, (dict, torch.dtype)):
            raise ValueError(f"dtype must be a dict or a torch.dtype, got {type(dtype)} instead")
        if (isinstance(dtype, dict) and torch.Tensor in dtype
                and (tv_tensors.Image in dtype or tv_tensors.Video in dtype)):
            warnings.warn(
                "Got `dtype` values for `torch.Tensor` and either `tv_tensors.Image` or "
                "`tv_tensors.Video`. Note that a plain `torch.Tensor` will *not* be transformed "
                "by this (or any other transformation) in case a `tv_tensors.Image` or "
                "`tv_tensors.Video` is present in the input.")
        super().__init__(dtype=dtype, scale=scale)

    def _dtype_of(self, inpt):
        """The target dtype of ``inpt`` (None: leave it alone)."""
        table = self.dtype
        if not isinstance(table, dict):
            return table if _image_like(inpt) else None
        for key in (type(inpt), "others"):
            if key in table:
                return table[key]
        raise ValueError(_NO_DTYPE.format(type(inpt)))

    def transform(self, inpt, params):
        dtype = self._dtype_of(inpt)
        if dtype is not None:
            return self._call_kernel(F.to_dtype, inpt, dtype=dtype, scale=self.scale)
        if self.scale and isinstance(self.dtype, dict) and _image_like(inpt):
            warnings.warn("scale was set to True but no dtype was specified for images or "
                          "videos: no scaling will be done.")
        return inpt


class ConvertImageDtype(Transform):
    """``ToDtype(dtype, scale=True)`` (the v1 name)."""

    def __init__(self, dtype=torch.float32):
        super().__init__(dtype=dtype)

    def transform(self, inpt, params):
        return self._call_kernel(F.to_dtype, inpt, dtype=self.dtype, scale=True)


class LinearTransformation(Transform):
    """Flatten each image, subtract ``mean_vector`` and multiply by
    ``transformation_matrix`` (whitening)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, tv_tensors.Video)

    def __init__(self, transformation_matrix, mean_vector):
        rows, cols = transformation_matrix.size(0), transformation_matrix.size(1)
        shape = tuple(transformation_matrix.size())
        if rows != cols:
            raise ValueError(f"transformation_matrix should be square. Got {shape} rectangular "
                             "matrix.")
        if mean_vector.size(0) != rows:
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} as "
                             f"any one of the dimensions of the transformation_matrix [{shape}]")
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError("Input tensors should have the same dtype. Got "
                             f"{transformation_matrix.dtype} and {mean_vector.dtype}")
        super().__init__(transformation_matrix=transformation_matrix, mean_vector=mean_vector)

    check_inputs = _no_pil

    def transform(self, inpt, params):
        c, h, w = inpt.shape[-3:]
        size = self.transformation_matrix.shape[0]
        if c * h * w != size:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{c} x {h} x {w}] != {size}")
        centred = _plain(inpt).reshape(-1, c * h * w) - self.mean_vector
        out = torch.mm(centred, self.transformation_matrix.to(centred.dtype))
        out = out.reshape(inpt.shape)
        return tv_tensors.wrap(out, like=inpt) if isinstance(inpt, _IMAGE_KINDS) else out


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
        from ..functional import to_tensor

        return to_tensor(inpt)


_LABELS_TYPE = ("The labels in the input to forward() must be a tensor or None, got {} "
                "instead.")


def _labels_tuple(labels):
    """The labels found in a sample as a tuple of tensors (or None)."""
    if labels is None or isinstance(labels, torch.Tensor):
        return labels if labels is None else (labels,)
    if not isinstance(labels, (tuple, list)):
        raise ValueError(_LABELS_TYPE.format(type(labels)))
    for entry in labels:
        if not isinstance(entry, torch.Tensor):
            raise ValueError(_LABELS_TYPE.format(type(entry)))
    return labels


class _Sanitizer(Transform):
    """Keeps the rows of one kind of annotation (and of the labels and the other kinds that
    go with it) that a validity mask selects.  Subclasses name the kinds and the mask."""

    _kept_kinds = ()
    _index_errors_pass = False  # an input that cannot be indexed by the mask passes unchanged

    def __init__(self, labels_getter, **settings):
        finder = labels_getter_fn(labels_getter)
        super().__init__(**settings, labels_getter=labels_getter)
        self._find_labels = finder

    def forward(self, *inputs):
        sample = inputs[0] if len(inputs) == 1 else inputs
        labels = _labels_tuple(self._find_labels(sample))
        leaves, layout = tree_flatten(sample)
        anchor = self._anchor(leaves)
        for label in labels or ():
            if anchor.shape[0] != label.shape[0]:
                raise ValueError(self._count_message.format(anchor.shape, label.shape))
        params = {"valid": self._valid(anchor), "labels": labels}
        return tree_unflatten([self.transform(x, params) for x in leaves], layout)

    def transform(self, inpt, params):
        is_label = any(inpt is label for label in params["labels"] or ())
        if not is_label and not isinstance(inpt, self._kept_kinds):
            return inpt
        try:
            kept = _plain(inpt)[params["valid"]]
        except IndexError:
            if not self._index_errors_pass:
                raise
            return inpt
        return kept if is_label else tv_tensors.wrap(kept, like=inpt)


class SanitizeBoundingBoxes(_Sanitizer):
    """Drop boxes smaller than ``min_size`` / ``min_area`` or outside the canvas, with the
    masks and labels (found by ``labels_getter``) that go with them."""

    _kept_kinds = (tv_tensors.BoundingBoxes, tv_tensors.Mask)
    _index_errors_pass = True
    _count_message = ("Number of boxes (shape={}) and must match the number of labels.Found "
                      "labels with shape={}).")

    def __init__(self, min_size=1.0, min_area=1.0, labels_getter="default"):
        for name, value in (("min_size", min_size), ("min_area", min_area)):
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}.")
        super().__init__(labels_getter, min_size=min_size, min_area=min_area)

    _anchor = staticmethod(get_bounding_boxes)

    def _valid(self, boxes):
        return _sanitize_mask(_plain(boxes), boxes.format, boxes.canvas_size, self.min_size,
                              self.min_area)


class SanitizeKeyPoints(_Sanitizer):
    """Drop the points (or point groups, along the first dimension) outside the canvas, with
    their labels (``labels_getter``, None by default)."""

    _kept_kinds = (tv_tensors.KeyPoints,)
    _count_message = ("Number of kepyoints (shape={}) must match the number of labels.Found "
                      "labels with shape={}).")

    def __init__(self, labels_getter=None):
        super().__init__(labels_getter)

    _anchor = staticmethod(get_keypoints)

    def _valid(self, points):
        return _sanitize_keypoints_mask(_plain(points), canvas_size=points.canvas_size)
