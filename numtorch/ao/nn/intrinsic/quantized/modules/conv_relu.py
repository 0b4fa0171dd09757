"""Quantized Conv+ReLU: the ReLU fused into the requantization (clamped at the zero point)."""

from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.intrinsic import qat as nniqat
from numtorch.ao.nn.quantized.modules import conv as nnq_conv
from numtorch.nn.utils.fusion import fuse_conv_bn_weights

__all__ = ["ConvReLU1d", "ConvReLU2d", "ConvReLU3d"]


def _conv_relu(base, nd):
    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is getattr(nniqat, f"ConvBnReLU{nd}d"):
            mod.weight, mod.bias = fuse_conv_bn_weights(
                mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var, mod.bn.eps,
                mod.bn.weight, mod.bn.bias)
        return nnq_conv._ConvNd.from_float(cls, mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        return super(cls, cls).from_reference(ref_qconv[0], output_scale, output_zero_point)

    def _get_name(self):
        return f"QuantizedConvReLU{nd}d"

    return type(f"ConvReLU{nd}d", (base,), {
        "_FLOAT_MODULE": getattr(nni, f"ConvReLU{nd}d"), "_fused_relu": True,
        "from_float": from_float, "from_reference": from_reference, "_get_name": _get_name,
        "__module__": __name__, "__doc__": f"Quantized Conv{nd}d followed by ReLU, fused."})


ConvReLU1d = _conv_relu(nnq_conv.Conv1d, 1)
ConvReLU2d = _conv_relu(nnq_conv.Conv2d, 2)
ConvReLU3d = _conv_relu(nnq_conv.Conv3d, 3)
