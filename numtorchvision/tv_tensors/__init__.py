"""``numtorchvision.tv_tensors``: tensor kinds that tell the v2 transforms what their data is
(``Image``, ``Video``, ``Mask``, ``BoundingBoxes``, ``KeyPoints``), as
``torchvision.tv_tensors``."""

from ._bounding_boxes import BoundingBoxes, BoundingBoxFormat, is_rotated_bounding_format
from ._image import Image, Mask, Video
from ._keypoints import KeyPoints
from ._return_type import set_return_type
from ._tv_tensor import TVTensor, _retype

__all__ = [
    "BoundingBoxFormat",
    "BoundingBoxes",
    "Image",
    "KeyPoints",
    "Mask",
    "TVTensor",
    "Video",
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]


def wrap(wrappee, *, like, **kwargs):
    """``wrappee`` as the same TVTensor kind as ``like``, with ``like``'s metadata
    (``format``, ``canvas_size``...), each overridable through ``kwargs``."""
    wrap_method = getattr(type(like), "wrap", None)
    if wrap_method is not None:
        return wrap_method(wrappee, like, **kwargs)
    return _retype(wrappee, type(like))
