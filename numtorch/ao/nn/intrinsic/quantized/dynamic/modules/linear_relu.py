"""Dynamically quantized Linear + ReLU."""

import numtorch as torch
from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.quantized.dynamic.modules import linear as nnqd_linear
from numtorch.ops import quantized_nn as _qnn

__all__ = ["LinearReLU"]


class LinearReLU(nnqd_linear.Linear):
    """A dynamically quantized linear layer with the ReLU applied to its float output."""

    _FLOAT_MODULE = nni.LinearReLU

    def __init__(self, in_features, out_features, bias=True, dtype=torch.qint8):
        super().__init__(in_features, out_features, bias, dtype)

    def forward(self, x):
        packed = self._packed_params._packed_params
        if self._packed_params.dtype is torch.qint8:
            y = _qnn.linear_dynamic(x, packed, reduce_range=True, relu=True)
        else:
            y = _qnn.linear_dynamic(x, packed, relu=True)
        return y.to(x.dtype)

    def _get_name(self):
        return "DynamicQuantizedLinearReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_qlinear_relu):
        return super().from_reference(ref_qlinear_relu[0])
