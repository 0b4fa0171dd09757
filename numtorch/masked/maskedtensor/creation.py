"""``torch.masked.maskedtensor.creation``: the ``MaskedTensor`` constructors."""

from .._maskedtensor import MaskedTensor, as_masked_tensor, masked_tensor

__all__ = ["MaskedTensor", "as_masked_tensor", "masked_tensor"]
