"""Conversions between PIL images, NumPy arrays, plain tensors and Image."""

import numpy as np

import numtorch as torch

from .... import tv_tensors
from ...._pil import is_pil_image
from ... import functional as F1

pil_to_tensor = F1.pil_to_tensor
to_pil_image = F1.to_pil_image


def to_image(inpt):
    """An :class:`~numtorchvision.tv_tensors.Image` from a PIL image, an ``(H, W, C)``
    ndarray or a tensor (values and dtype unchanged)."""
    if is_pil_image(inpt):
        return tv_tensors.Image(pil_to_tensor(inpt))
    if isinstance(inpt, np.ndarray):  # (H, W[, C]) -> (C, H, W), its own copy of the layout
        return tv_tensors.Image(torch.from_numpy(np.atleast_3d(inpt)).permute((-1, -3, -2))
                                .contiguous())
    if not isinstance(inpt, torch.Tensor):
        raise TypeError("Input can either be a pure Tensor, a numpy array, or a PIL image, but "
                        f"got {type(inpt)} instead.")
    return tv_tensors.Image(inpt)
