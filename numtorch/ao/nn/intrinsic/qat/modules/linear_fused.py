"""QAT ``LinearBn1d``: a linear layer with its batch norm folded into the fake-quantized
weight during training."""

import numtorch as torch
from numtorch import nn
from numtorch.ao.nn import intrinsic as nni
from numtorch.nn import functional as F
from numtorch.nn.utils.fusion import fuse_linear_bn_weights

from ._bn_stats import _BnStatsSwitch

__all__ = ["LinearBn1d"]


class LinearBn1d(_BnStatsSwitch, nn.modules.linear.Linear, nni._FusedModule):
    """Linear followed by BatchNorm1d, trained with the batch norm scale folded into the
    weight before fake quantization."""

    def __init__(self, in_features, out_features, bias=True, eps=1e-05, momentum=0.1,
                 freeze_bn=False, qconfig=None):
        nn.modules.linear.Linear.__init__(self, in_features, out_features, bias)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.freeze_bn = freeze_bn if self.training else True
        self.bn = nn.BatchNorm1d(out_features, eps, momentum, True, True)
        self.weight_fake_quant = self.qconfig.weight()
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_bn_parameters()
        if self.training and not freeze_bn:
            self.update_bn_stats()
        else:
            self.freeze_bn_stats()

    def reset_running_stats(self):
        self.bn.reset_running_stats()

    def reset_bn_parameters(self):
        self.bn.reset_running_stats()
        nn.init.uniform_(self.bn.weight)
        nn.init.zeros_(self.bn.bias)

    def forward(self, input):
        if self.bn.running_var is None:
            raise AssertionError("self.bn.running_var must not be None")
        running_std = torch.sqrt(self.bn.running_var + self.bn.eps)
        scale_factor = self.bn.weight / running_std
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(-1, 1))
        out = F.linear(input, scaled_weight, None) / scale_factor.reshape(1, -1)
        if self.bias is not None:
            out = out + self.bias.reshape(1, -1)
        return self.bn(out)

    def train(self, mode=True):
        self.training = mode
        if not self.freeze_bn:
            for module in self.children():
                module.train(mode)
        return self

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT module of a fused ``nni.LinearBn1d`` (parameters shared)."""
        if type(mod) is not nni.LinearBn1d:
            raise AssertionError("qat." + cls.__name__ + ".from_float only works for "
                                 + nni.LinearBn1d.__name__)
        if not hasattr(mod, "qconfig") or not mod.qconfig:
            raise AssertionError("Input float module must have a valid config")
        linear, bn = mod[0], mod[1]
        qat = cls(linear.in_features, linear.out_features, linear.bias is not None, bn.eps,
                  bn.momentum, False, mod.qconfig)
        qat.weight, qat.bias = linear.weight, linear.bias
        qat.bn.weight, qat.bn.bias = bn.weight, bn.bias
        qat.bn.running_mean, qat.bn.running_var = bn.running_mean, bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def to_float(self):
        linear = nn.Linear(self.in_features, self.out_features)
        linear.weight, linear.bias = fuse_linear_bn_weights(
            self.weight, self.bias, self.bn.running_mean, self.bn.running_var, self.bn.eps,
            self.bn.weight, self.bn.bias)
        return linear
