"""QAT ``Linear``: a float linear layer whose weight passes through a fake quantizer."""

import numtorch as torch
from numtorch import nn
from numtorch.nn import functional as F
from numtorch.nn.utils.parametrize import is_parametrized, type_before_parametrizations

__all__ = ["Linear"]


class Linear(nn.Linear):
    """``nn.Linear`` with ``weight_fake_quant`` (from ``qconfig.weight``) applied to the
    weight in every forward pass."""

    _FLOAT_MODULE = nn.Linear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None,
                 dtype=None):
        super().__init__(in_features, out_features, bias)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT layer sharing ``mod``'s parameters (``mod`` a float Linear or LinearReLU's
        first child)."""
        if type_before_parametrizations(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(" qat." + cls.__name__ + ".from_float only works for "
                                 + cls._FLOAT_MODULE.__name__)
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        from numtorch.ao.nn import intrinsic as nni

        if type_before_parametrizations(mod) is nni.LinearReLU:
            mod = mod[0]
        qat_linear = cls(mod.in_features, mod.out_features, bias=mod.bias is not None,
                         qconfig=mod.qconfig)
        if is_parametrized(mod, "weight"):
            from numtorch.nn.utils import parametrize

            parametrize.transfer_parametrizations_and_params(mod, qat_linear, "weight")
        else:
            qat_linear.weight = mod.weight
        if is_parametrized(mod, "bias"):
            from numtorch.nn.utils import parametrize

            parametrize.transfer_parametrizations_and_params(mod, qat_linear, "bias")
        else:
            qat_linear.bias = mod.bias
        return qat_linear

    def to_float(self):
        """A float ``nn.Linear`` with this layer's current weight and bias."""
        linear = nn.Linear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = nn.Parameter(self.bias.detach())
        linear.train(self.training)
        return linear
