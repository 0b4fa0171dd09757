"""QAT fused convolutions: Conv+BatchNorm (+ReLU) trained with the batch norm scale folded
into the fake-quantized weight, and Conv+ReLU."""

import math

import numtorch as torch
from numtorch import nn
from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.qat.modules import conv as _qat_conv
from numtorch.nn import functional as F
from numtorch.nn import init
from numtorch.nn.modules.utils import _pair, _single, _triple
from numtorch.nn.utils.fusion import fuse_conv_bn_weights

from ._bn_stats import _BnStatsSwitch

__all__ = ["ConvBn1d", "ConvBnReLU1d", "ConvReLU1d", "ConvBn2d", "ConvBnReLU2d", "ConvReLU2d",
           "ConvBn3d", "ConvBnReLU3d", "ConvReLU3d", "update_bn_stats", "freeze_bn_stats"]

_BN = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d}
_CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
_EXPAND = {1: _single, 2: _pair, 3: _triple}


class _ConvBnNd(_BnStatsSwitch, nn.modules.conv._ConvNd, nni._FusedModule):
    """Conv + BatchNorm for QAT. Training scales the weight by ``gamma / running_std`` before
    fake quantization and divides the scale out of the conv output before the batch norm,
    so the fake-quantized weight is the one the folded inference conv will use."""

    _version = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, eps=1e-05,
                 momentum=0.1, freeze_bn=False, qconfig=None, dim=2):
        nn.modules.conv._ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride,
                                         padding, dilation, transposed, output_padding, groups,
                                         False, padding_mode)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.freeze_bn = freeze_bn if self.training else True
        self.bn = _BN[dim](out_channels, eps, momentum, True, True)
        self.weight_fake_quant = self.qconfig.weight()
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_bn_parameters()
        if self.training and not freeze_bn:
            self.update_bn_stats()
        else:
            self.freeze_bn_stats()
        self._enable_slow_path_for_better_numerical_stability = False

    def reset_running_stats(self):
        self.bn.reset_running_stats()

    def reset_bn_parameters(self):
        self.bn.reset_running_stats()
        init.uniform_(self.bn.weight)
        init.zeros_(self.bn.bias)
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def _shapes(self):
        n = self.weight.dim()
        return [-1] + [1] * (n - 1), [1, -1] + [1] * (n - 2)

    def _forward(self, input):
        if self._enable_slow_path_for_better_numerical_stability:
            return self._forward_slow(input)
        return self._forward_approximate(input)

    def _forward_approximate(self, input):
        running_std = torch.sqrt(self.bn.running_var + self.bn.eps)
        scale_factor = self.bn.weight / running_std
        weight_shape, bias_shape = self._shapes()
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(weight_shape))
        zero_bias = torch.zeros(self.out_channels, dtype=input.dtype)
        conv = self._conv_forward(input, scaled_weight, zero_bias)
        conv_orig = conv / scale_factor.reshape(bias_shape)
        if self.bias is not None:
            conv_orig = conv_orig + self.bias.reshape(bias_shape)
        return self.bn(conv_orig)

    def _forward_slow(self, input):
        """Two convolutions: the batch statistics of the unscaled conv correct the scaled one
        (exact also when a batch norm weight is 0)."""
        zero_bias = torch.zeros(self.out_channels, dtype=input.dtype)
        weight_shape, bias_shape = self._shapes()
        if self.bn.training:
            conv_out = self._conv_forward(input, self.weight, zero_bias)
            with torch.no_grad():
                self.bn(conv_out if self.bias is None else
                        conv_out + self.bias.reshape(bias_shape))
            running_std = torch.sqrt(self.bn.running_var + self.bn.eps)
            scale_factor = self.bn.weight / running_std
            scaled_weight = self.weight_fake_quant(self.weight
                                                   * scale_factor.reshape(weight_shape))
            conv_bn = self._conv_forward(input, scaled_weight, zero_bias)
            dims = [0] + list(range(2, self.weight.dim()))
            batch_mean = conv_out.mean(dims)
            batch_var = torch.square(conv_out - batch_mean.reshape(bias_shape)).mean(dims)
            batch_std = torch.sqrt(batch_var + self.bn.eps)
            conv_bn = conv_bn * (running_std / batch_std).reshape(bias_shape)
            fused_mean, fused_std = batch_mean, batch_std
        else:
            running_std = torch.sqrt(self.bn.running_var + self.bn.eps)
            scale_factor = self.bn.weight / running_std
            scaled_weight = self.weight_fake_quant(self.weight
                                                   * scale_factor.reshape(weight_shape))
            conv_bn = self._conv_forward(input, scaled_weight, zero_bias)
            fused_mean = self.bn.running_mean - (self.bias if self.bias is not None else 0)
            fused_std = running_std
        fused_bias = self.bn.bias - self.bn.weight * fused_mean / fused_std
        conv_bn = conv_bn + fused_bias.reshape(bias_shape)
        if self.bias is not None:
            conv_bn = conv_bn + (self.bias - self.bias).reshape(bias_shape)
        return conv_bn

    def forward(self, input):
        return self._forward(input)

    def train(self, mode=True):
        # a frozen batch norm stays in eval mode whatever the model does
        self.training = mode
        if not self.freeze_bn:
            for module in self.children():
                module.train(mode)
        return self

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version == 1:
            for new, old in (("bn.weight", "gamma"), ("bn.bias", "beta"),
                             ("bn.running_mean", "running_mean"),
                             ("bn.running_var", "running_var"),
                             ("bn.num_batches_tracked", "num_batches_tracked")):
                if prefix + old in state_dict:
                    state_dict[prefix + new] = state_dict.pop(prefix + old)
                elif prefix + new not in state_dict and strict:
                    missing_keys.append(prefix + new)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT module of a fused float ConvBn(ReLU) (parameters and statistics shared)."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError("qat." + cls.__name__ + ".from_float only works for "
                                 + cls._FLOAT_MODULE.__name__)
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        conv, bn = mod[0], mod[1]
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                  conv.padding, conv.dilation, conv.groups, conv.bias is not None,
                  conv.padding_mode, bn.eps, bn.momentum, False, mod.qconfig)
        qat.weight, qat.bias = conv.weight, conv.bias
        qat.bn.weight, qat.bn.bias = bn.weight, bn.bias
        qat.bn.running_mean, qat.bn.running_var = bn.running_mean, bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def to_float(self):
        """The float conv (batch norm folded in; followed by ReLU when fused)."""
        cls = type(self)
        conv = _CONV[self._nd](self.in_channels, self.out_channels, self.kernel_size,
                               self.stride, self.padding, self.dilation, self.groups,
                               self.bias is not None, self.padding_mode)
        conv.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            conv.bias = nn.Parameter(self.bias.detach())
        conv.weight, conv.bias = fuse_conv_bn_weights(
            conv.weight, conv.bias, self.bn.running_mean, self.bn.running_var, self.bn.eps,
            self.bn.weight, self.bn.bias)
        if cls._FLOAT_RELU_MODULE is not None:
            fused = cls._FUSED_FLOAT_MODULE(conv, nn.ReLU())
            fused.train(self.training)
            return fused
        conv.train(self.training)
        return conv


def _conv_bn(nd, relu):
    expand = _EXPAND[nd]
    name = f"ConvBn{'ReLU' if relu else ''}{nd}d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=None, padding_mode="zeros", eps=1e-05,
                 momentum=0.1, freeze_bn=False, qconfig=None):
        _ConvBnNd.__init__(self, in_channels, out_channels, expand(kernel_size),
                           expand(stride), expand(padding), expand(dilation), False,
                           expand(0), groups, bias, padding_mode, eps, momentum, freeze_bn,
                           qconfig, dim=nd)

    def forward(self, input):
        out = _ConvBnNd._forward(self, input)
        return F.relu(out) if relu else out

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return _ConvBnNd.from_float.__func__(cls, mod, use_precomputed_fake_quant)

    return type(name, (_ConvBnNd, _CONV[nd]), {
        "__init__": __init__, "forward": forward, "from_float": from_float, "_nd": nd,
        "__module__": __name__, "_FLOAT_MODULE": getattr(nni, name),
        "_FLOAT_CONV_MODULE": _CONV[nd], "_FLOAT_BN_MODULE": _BN[nd],
        "_FLOAT_RELU_MODULE": nn.ReLU if relu else None,
        "_FUSED_FLOAT_MODULE": getattr(nni, f"ConvReLU{nd}d") if relu else None,
        "__doc__": f"QAT {name}: batch norm folded into the fake-quantized weight."})


ConvBn1d, ConvBn2d, ConvBn3d = (_conv_bn(n, False) for n in (1, 2, 3))
ConvBnReLU1d, ConvBnReLU2d, ConvBnReLU3d = (_conv_bn(n, True) for n in (1, 2, 3))


def _conv_relu(nd):
    base = {1: _qat_conv.Conv1d, 2: _qat_conv.Conv2d, 3: _qat_conv.Conv3d}[nd]
    fused = getattr(nni, f"ConvReLU{nd}d")

    def forward(self, input):
        return F.relu(self._conv_forward(input, self.weight_fake_quant(self.weight),
                                         self.bias))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return _qat_conv._ConvNd.from_float(cls, mod, use_precomputed_fake_quant)

    return type(f"ConvReLU{nd}d", (base, nni._FusedModule), {
        "forward": forward, "from_float": from_float, "_FLOAT_MODULE": fused,
        "_FLOAT_CONV_MODULE": _CONV[nd], "_FLOAT_BN_MODULE": None,
        "_FLOAT_RELU_MODULE": nn.ReLU, "_FUSED_FLOAT_MODULE": fused, "__module__": __name__,
        "__doc__": f"QAT ConvReLU{nd}d: fake-quantized weight, then ReLU."})


ConvReLU1d, ConvReLU2d, ConvReLU3d = (_conv_relu(n) for n in (1, 2, 3))


def update_bn_stats(mod):
    """``model.apply(update_bn_stats)``: let fused QAT batch norms track statistics again."""
    if type(mod) in {ConvBnReLU1d, ConvBnReLU2d, ConvBnReLU3d, ConvBn1d, ConvBn2d, ConvBn3d}:
        mod.update_bn_stats()


def freeze_bn_stats(mod):
    """``model.apply(freeze_bn_stats)``: freeze the running statistics of fused QAT batch
    norms."""
    if type(mod) in {ConvBnReLU1d, ConvBnReLU2d, ConvBnReLU3d, ConvBn1d, ConvBn2d, ConvBn3d}:
        mod.freeze_bn_stats()
