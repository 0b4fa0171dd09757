"""Quantized Linear + ReLU / LeakyReLU / Tanh."""

import numtorch as torch
from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.quantized.modules import linear as nnq_linear
from numtorch.ops import quantized_nn as _qnn
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["LinearReLU", "LinearLeakyReLU", "LinearTanh"]


class LinearReLU(nnq_linear.Linear):
    """A quantized linear layer with the ReLU fused into the requantization."""

    _FLOAT_MODULE = nni.LinearReLU

    def forward(self, x):
        w, b = self._weight_bias()
        return _qnn.linear(x, w, b, self.scale, self.zero_point, relu=True)

    def _get_name(self):
        return "QuantizedLinearReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_linear_relu, output_scale, output_zero_point):
        return super().from_reference(ref_linear_relu[0], output_scale, output_zero_point)


class LinearLeakyReLU(nnq_linear.Linear):
    """A quantized linear layer followed by leaky ReLU."""

    _FLOAT_MODULE = nni.LinearLeakyReLU

    def __init__(self, in_features, out_features, negative_slope, bias=True,
                 dtype=torch.qint8):
        super().__init__(in_features, out_features, bias, dtype)
        self.negative_slope = negative_slope

    def forward(self, x):
        w, b = self._weight_bias()
        y = _qnn.linear(x, w, b, self.scale, self.zero_point, op="linear_leaky_relu")
        return _qp.leaky_relu(y, self.negative_slope, False, self.scale, self.zero_point)

    def _get_name(self):
        return "QuantizedLinearLeakyReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not nni.LinearLeakyReLU:
            raise AssertionError("Input float module should be LinearLeakyReLU")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        activation_post_process = mod.activation_post_process
        leaky_relu = mod[1]
        mod = mod[0]
        weight_post_process = mod.qconfig.weight()
        weight_post_process(mod.weight)
        act_scale, act_zp = activation_post_process.calculate_qparams()
        from numtorch.ao.nn.quantized.modules.utils import _quantize_weight

        qlinear = cls(mod.in_features, mod.out_features, leaky_relu.negative_slope)
        qlinear.set_weight_bias(_quantize_weight(mod.weight.float(), weight_post_process),
                                mod.bias)
        qlinear.scale, qlinear.zero_point = float(act_scale), int(act_zp)
        return qlinear


class LinearTanh(nnq_linear.Linear):
    """A quantized linear layer followed by tanh (on tanh's fixed output grid)."""

    _FLOAT_MODULE = nni.LinearTanh

    def forward(self, x):
        w, b = self._weight_bias()
        y = _qnn.linear(x, w, b, self.scale, self.zero_point, op="linear_tanh")
        return _qp.tanh(y, self.scale, self.zero_point)

    def _get_name(self):
        return "QuantizedLinearTanh"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not nni.LinearTanh:
            raise AssertionError("Input float module should be LinearTanh")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        activation_post_process = mod.activation_post_process
        mod = mod[0]
        weight_post_process = mod.qconfig.weight()
        weight_post_process(mod.weight)
        act_scale, act_zp = activation_post_process.calculate_qparams()
        from numtorch.ao.nn.quantized.modules.utils import _quantize_weight

        qlinear = cls(mod.in_features, mod.out_features)
        qlinear.set_weight_bias(_quantize_weight(mod.weight.float(), weight_post_process),
                                mod.bias)
        qlinear.scale, qlinear.zero_point = float(act_scale), int(act_zp)
        return qlinear
