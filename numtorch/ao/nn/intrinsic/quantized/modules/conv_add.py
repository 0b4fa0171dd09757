"""Quantized Conv2d + add (+ReLU): ``conv(x1) + x2`` requantized once."""

from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.quantized.modules import conv as nnq_conv
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["ConvAdd2d", "ConvAddReLU2d"]


class ConvAdd2d(nnq_conv.Conv2d):
    """A quantized conv whose output is added to a second quantized input."""

    _FLOAT_MODULE = nni.ConvAdd2d

    def forward(self, input, extra_input):
        out = super().forward(input)
        return _qp.add(out, extra_input, self.scale, self.zero_point)

    def _qop_name(self):
        return "conv2d_add"

    def _get_name(self):
        return "QuantizedConvAdd2d"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return nnq_conv._ConvNd.from_float(cls, mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        return super().from_reference(ref_qconv[0], output_scale, output_zero_point)


class ConvAddReLU2d(ConvAdd2d):
    """``relu(conv(x1) + x2)`` on quantized tensors."""

    _FLOAT_MODULE = nni.ConvAddReLU2d

    def forward(self, input, extra_input):
        out = nnq_conv.Conv2d.forward(self, input)
        return _qp.add_relu(out, extra_input, self.scale, self.zero_point)

    def _qop_name(self):
        return "conv2d_add_relu"

    def _get_name(self):
        return "QuantizedConvAddReLU2d"
