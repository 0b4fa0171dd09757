"""``torch.qscheme`` and its five values (``torch.per_tensor_affine``, ...)."""

from ._layout import _Named

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
           "per_channel_symmetric", "per_channel_affine_float_qparams"]


class qscheme(_Named):  # noqa: N801 - torch's name
    """How a quantized tensor maps integers to values (``Tensor.qscheme()``): one scale and
    zero point for the whole tensor, or one per channel; symmetric schemes are the observers'
    way of choosing parameters (tensors themselves are always affine)."""

    __slots__ = ()


qscheme.__module__ = "numtorch"

per_tensor_affine = qscheme._make("per_tensor_affine")
per_channel_affine = qscheme._make("per_channel_affine")
per_tensor_symmetric = qscheme._make("per_tensor_symmetric")
per_channel_symmetric = qscheme._make("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme._make("per_channel_affine_float_qparams")
