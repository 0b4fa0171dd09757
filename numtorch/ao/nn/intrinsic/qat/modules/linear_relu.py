"""QAT ``LinearReLU``: fake-quantized weight, then ReLU."""

from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.qat.modules.linear import Linear as _QATLinear
from numtorch.nn import functional as F

__all__ = ["LinearReLU"]


class LinearReLU(_QATLinear, nni._FusedModule):
    """A QAT linear layer followed by ReLU (from a fused ``nni.LinearReLU``)."""

    _FLOAT_MODULE = nni.LinearReLU

    def __init__(self, in_features, out_features, bias=True, qconfig=None):
        super().__init__(in_features, out_features, bias, qconfig)

    def forward(self, input):
        return F.relu(F.linear(input, self.weight_fake_quant(self.weight), self.bias))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return super().from_float(mod, use_precomputed_fake_quant)

    def to_float(self):
        from numtorch import nn

        linear = nn.Linear(self.in_features, self.out_features, self.bias is not None)
        linear.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            linear.bias = nn.Parameter(self.bias.detach())
        return nni.LinearReLU(linear, nn.ReLU())
