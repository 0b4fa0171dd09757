"""The pixel kinds: ``Image`` (``[..., C, H, W]``), ``Video`` (``[..., T, C, H, W]``) and
``Mask`` (``[..., H, W]``, segmentation or per-object detection masks)."""

from .._pil import is_pil_image
from ._tv_tensor import TVTensor, _retype


def _from_pil(data):
    if is_pil_image(data):
        from ..transforms.functional import pil_to_tensor

        return pil_to_tensor(data)
    return data


class Image(TVTensor):
    """An image (or a batch of them), shape ``[..., C, H, W]``; a 2-D input gets a channel
    dimension. ``data`` may be a PIL image or anything :func:`numtorch.as_tensor` takes."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(_from_pil(data), dtype=dtype, device=device,
                                requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"Tensor must be 2D or higher, got {tensor.ndim}D tensor.")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return _retype(tensor, cls)

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr()


class Video(TVTensor):
    """A video (or a batch), shape ``[..., T, C, H, W]``."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError  # torchvision's (no message)
        return _retype(tensor, cls)

    def __repr__(self, *, tensor_contents=None):
        return self._make_repr()


class Mask(TVTensor):
    """A segmentation or detection mask, shape ``[..., H, W]``; transforms resample it with
    nearest-neighbour interpolation. ``data`` may be a PIL image."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(_from_pil(data), dtype=dtype, device=device,
                                requires_grad=requires_grad)
        return _retype(tensor, cls)
