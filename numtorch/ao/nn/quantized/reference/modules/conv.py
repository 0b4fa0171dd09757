"""Reference quantized ``Conv1d``/``Conv2d``/``Conv3d``."""

import numtorch as torch
from numtorch import nn

from .utils import ReferenceQuantizedModule

__all__ = ["Conv1d", "Conv2d", "Conv3d"]


def _make(nd):
    float_cls = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}[nd]
    conv_fn = {1: nn.functional.conv1d, 2: nn.functional.conv2d, 3: nn.functional.conv3d}[nd]
    name = f"Conv{nd}d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None, weight_qparams=None):
        float_cls.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                           dilation, groups, bias, padding_mode, device, dtype)
        self._init_weight_qparams(weight_qparams, device)

    def forward(self, x):
        # the float convolution with the round-tripped weight (padding_mode is not applied,
        # as in torch's reference module)
        return conv_fn(x, self.get_weight(), self.bias, self.stride, self.padding,
                       self.dilation, self.groups)

    def _get_name(self):
        return f"Quantized{name}(Reference)"

    @classmethod
    def from_float(cls, float_conv, weight_qparams):
        """The reference module of ``float_conv`` with these weight parameters."""
        ref = cls(float_conv.in_channels, float_conv.out_channels, float_conv.kernel_size,
                  float_conv.stride, float_conv.padding, float_conv.dilation,
                  float_conv.groups, float_conv.bias is not None, float_conv.padding_mode,
                  device=float_conv.weight.device, dtype=float_conv.weight.dtype,
                  weight_qparams=weight_qparams)
        ref.weight = torch.nn.Parameter(float_conv.weight.detach())
        if float_conv.bias is not None:
            ref.bias = torch.nn.Parameter(float_conv.bias.detach())
        return ref

    doc = f"A float {name} whose forward uses the weight after quantize/dequantize."
    return type(name, (float_cls, ReferenceQuantizedModule),
                {"__init__": __init__, "forward": forward, "_get_name": _get_name,
                 "from_float": from_float, "_IS_REFERENCE": True, "__doc__": doc,
                 "__module__": __name__, "__qualname__": name})


Conv1d = _make(1)
Conv2d = _make(2)
Conv3d = _make(3)
