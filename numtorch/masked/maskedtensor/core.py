"""``torch.masked.maskedtensor.core``: the ``MaskedTensor`` class and its type test."""

from .._maskedtensor import MaskedTensor

__all__ = ["MaskedTensor", "is_masked_tensor"]


def is_masked_tensor(obj):
    """Whether ``obj`` is a ``MaskedTensor`` (any object may be passed)."""
    return isinstance(obj, MaskedTensor)
