"""``torch.masked.maskedtensor``: the module path torch gives ``MaskedTensor`` (``core``) and
its constructors (``creation``); the class itself lives in ``numtorch.masked._maskedtensor``."""

from .core import MaskedTensor, is_masked_tensor
from .creation import as_masked_tensor, masked_tensor

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]
