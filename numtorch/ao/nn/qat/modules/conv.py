"""QAT convolutions: float convolutions whose weights pass through a fake quantizer."""

import numtorch as torch
from numtorch import nn
from numtorch.nn.modules.utils import _pair, _single, _triple

__all__ = ["Conv1d", "Conv2d", "Conv3d"]


class _ConvNd(nn.modules.conv._ConvNd):
    """Shared parts of the QAT convolutions."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, qconfig=None,
                 device=None, dtype=None):
        nn.modules.conv._ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride,
                                         padding, dilation, transposed, output_padding, groups,
                                         bias, padding_mode)
        if not qconfig:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @staticmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT convolution sharing ``mod``'s parameters."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError("qat." + cls.__name__ + ".from_float only works for "
                                 + cls._FLOAT_MODULE.__name__)
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        from numtorch.ao.nn import intrinsic as nni

        if issubclass(type(mod), nni._FusedModule):
            mod = mod[0]
        qat_conv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, stride=mod.stride,
                       padding=mod.padding, dilation=mod.dilation, groups=mod.groups,
                       bias=mod.bias is not None, padding_mode=mod.padding_mode,
                       qconfig=mod.qconfig)
        qat_conv.weight = mod.weight
        qat_conv.bias = mod.bias
        return qat_conv

    def to_float(self):
        """A float convolution (followed by ReLU when fused) with this layer's weights."""
        cls = type(self)
        conv = cls._FLOAT_CONV_MODULE(self.in_channels, self.out_channels, self.kernel_size,
                                      self.stride, self.padding, self.dilation, self.groups,
                                      self.bias is not None, self.padding_mode)
        conv.weight = nn.Parameter(self.weight.detach())
        if self.bias is not None:
            conv.bias = nn.Parameter(self.bias.detach())
        if issubclass(cls, nn.Module) and getattr(cls, "_FLOAT_RELU_MODULE", None):
            fused = cls._FUSED_FLOAT_MODULE(conv, cls._FLOAT_RELU_MODULE())
            fused.train(self.training)
            return fused
        conv.train(self.training)
        return conv


def _qat_conv(nd, float_cls):
    expand = {1: _single, 2: _pair, 3: _triple}[nd]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", qconfig=None,
                 device=None, dtype=None):
        _ConvNd.__init__(self, in_channels, out_channels, expand(kernel_size), expand(stride),
                         padding if isinstance(padding, str) else expand(padding),
                         expand(dilation), False, expand(0), groups, bias, padding_mode,
                         qconfig)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return _ConvNd.from_float(cls, mod, use_precomputed_fake_quant)

    return type(f"Conv{nd}d", (_ConvNd, float_cls), {
        "__init__": __init__, "from_float": from_float, "_FLOAT_MODULE": float_cls,
        "_FLOAT_CONV_MODULE": float_cls, "_nd": nd, "__module__": __name__,
        "__doc__": f"QAT Conv{nd}d: the weight is fake-quantized in every forward pass."})


Conv1d = _qat_conv(1, nn.Conv1d)
Conv2d = _qat_conv(2, nn.Conv2d)
Conv3d = _qat_conv(3, nn.Conv3d)
