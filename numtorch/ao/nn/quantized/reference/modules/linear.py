"""Reference quantized ``Linear``."""

import numtorch as torch
from numtorch import nn

from .utils import ReferenceQuantizedModule

__all__ = ["Linear"]


class Linear(nn.Linear, ReferenceQuantizedModule):
    """A float Linear whose forward uses the weight after quantize/dequantize."""

    _IS_REFERENCE = True

    def __init__(self, in_features, out_features, bias_=True, device=None, dtype=None,
                 weight_qparams=None):
        super().__init__(in_features, out_features, bias_, device, dtype)
        self._init_weight_qparams(weight_qparams, device)

    def _get_name(self):
        return "QuantizedLinear(Reference)"

    def forward(self, x):
        return nn.functional.linear(x, self.get_weight(), self.bias)

    @classmethod
    def from_float(cls, float_linear, weight_qparams):
        """The reference module of ``float_linear`` with these weight parameters."""
        ref = Linear(float_linear.in_features, float_linear.out_features,
                     float_linear.bias is not None, device=float_linear.weight.device,
                     dtype=float_linear.weight.dtype, weight_qparams=weight_qparams)
        ref.weight = torch.nn.Parameter(float_linear.weight.detach())
        if float_linear.bias is not None:
            ref.bias = torch.nn.Parameter(float_linear.bias.detach())
        return ref
