"""ToImage, PILToTensor, ToPILImage, ToPureTensor."""

import numpy as np

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from . import functional as F
from ._transform import Transform
from .functional._utils import is_pure_tensor


class PILToTensor(Transform):
    """A PIL image as a plain ``(C, H, W)`` tensor of its own values and dtype."""

    _transformed_types = (is_pil_image,)

    def transform(self, inpt, params):
        return F.pil_to_tensor(inpt)


class ToImage(Transform):
    """PIL images, ``(H, W, C)`` ndarrays and plain tensors as
    :class:`~numtorchvision.tv_tensors.Image` (values and dtype unchanged)."""

    _transformed_types = (is_pure_tensor, is_pil_image, np.ndarray)

    def transform(self, inpt, params):
        return F.to_image(inpt)


class ToPILImage(Transform):
    """Tensors and ndarrays as PIL images (``mode`` as in ``to_pil_image``)."""

    _transformed_types = (is_pure_tensor, tv_tensors.Image, np.ndarray)

    def __init__(self, mode=None):
        super().__init__()
        self.mode = mode

    def transform(self, inpt, params):
        return F.to_pil_image(inpt, mode=self.mode)


class ToPureTensor(Transform):
    """Every TVTensor as a plain tensor (the end of a pipeline, before a model)."""

    _transformed_types = (tv_tensors.TVTensor,)

    def transform(self, inpt, params):
        return inpt.as_subclass(torch.Tensor)
