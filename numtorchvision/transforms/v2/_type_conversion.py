"""ToImage, PILToTensor, ToPILImage, ToPureTensor: one conversion each, called directly."""

import numpy as np

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from . import functional as F
from ._kernel_table import kernel_transform
from .functional._utils import is_pure_tensor


def _as_plain(inpt):
    return inpt.as_subclass(torch.Tensor)


# name, conversion, (argument, default)..., kinds converted, doc
_CONVERSIONS = [
    ("PILToTensor", F.pil_to_tensor, [], (is_pil_image,),
     "A PIL image as a plain ``(C, H, W)`` tensor of its own values and dtype."),
    ("ToImage", F.to_image, [], (is_pure_tensor, is_pil_image, np.ndarray),
     ("PIL images, ``(H, W, C)`` ndarrays and plain tensors as "
      ":class:`~numtorchvision.tv_tensors.Image` (values and dtype unchanged).")),
    ("ToPILImage", F.to_pil_image, [("mode", None)], (is_pure_tensor, tv_tensors.Image,
                                                       np.ndarray),
     "Tensors and ndarrays as PIL images (``mode`` as in ``to_pil_image``)."),
    ("ToPureTensor", _as_plain, [], (tv_tensors.TVTensor,),
     "Every TVTensor as a plain tensor (the end of a pipeline, before a model)."),
]
for _name, _fn, _args, _types, _doc in _CONVERSIONS:
    globals()[_name] = kernel_transform(_name, _fn, _args, types=_types, doc=_doc, direct=True,
                                        module=__name__)
del _name, _fn, _args, _types, _doc
