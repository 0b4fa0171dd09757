"""Dynamically quantized convolutions: qint8 weights, float input quantized on the fly, float
output."""

import warnings

import numtorch as torch
from numtorch.ao.nn.quantized.modules import conv as nnq_conv
from numtorch.ops import quantized_nn as _qnn

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]


def _dynamic(base, transposed):
    nd = base._nd

    def __init__(self, *args, **kwargs):
        warnings.warn(f"The current implementation of the {self._get_name()} module has poor "
                      f"numerical accuracy and its use is not recommended", stacklevel=2)
        base.__init__(self, *args, **kwargs)

    def _get_name(self):
        return f"DynamicQuantized{base.__name__}"

    def forward(self, input, reduce_range=True):
        if input.dim() != nd + 2:
            raise ValueError(f"Input shape must be `{nnq_conv._SHAPES[nd]}`!")
        w, b = self._weight_bias()
        return _qnn.conv_dynamic(nd, input, w, b, self.stride, self.padding, self.dilation,
                                 self.groups, reduce_range, transposed,
                                 self.output_padding if transposed else 0)

    return type(base.__name__, (base,), {
        "__init__": __init__, "_get_name": _get_name, "forward": forward,
        "__module__": __name__, "_FLOAT_MODULE": base._FLOAT_MODULE,
        "__doc__": f"Dynamically quantized {base.__name__} (float in and out)."})


Conv1d = _dynamic(nnq_conv.Conv1d, False)
Conv2d = _dynamic(nnq_conv.Conv2d, False)
Conv3d = _dynamic(nnq_conv.Conv3d, False)
ConvTranspose1d = _dynamic(nnq_conv.ConvTranspose1d, True)
ConvTranspose2d = _dynamic(nnq_conv.ConvTranspose2d, True)
ConvTranspose3d = _dynamic(nnq_conv.ConvTranspose3d, True)
