"""Quantized ``Linear`` and the module that holds its packed weights."""

from collections.abc import Iterable

import numtorch as torch
from numtorch._quantized_packed import LinearPackedParamsBase, packed_weight
from numtorch.nn.utils.parametrize import type_before_parametrizations
from numtorch.ops import quantized_nn as _qnn

from .utils import WeightedQuantizedModule, _hide_packed_params_repr, _quantize_weight

__all__ = ["LinearPackedParams", "Linear"]


def linear_prepack(weight, bias=None):
    """Pack a qint8 weight (and float bias) for the quantized linear kernels."""
    if not weight.is_quantized or weight.dtype is not torch.qint8:
        raise RuntimeError("quantized::linear_prepack (fbgemm): Weight should be a quantized "
                           "tensor of dtype qint8")
    if weight.dim() != 2:
        raise RuntimeError("The weight tensor for quantized::linear_prepack (fbgemm) should "
                           "be 2-dimensional.")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError("bias should have N elements: " + str(weight.shape[0]))
    return LinearPackedParamsBase(packed_weight(weight, "linear"), bias)


def linear_prepack_fp16(weight, bias=None):
    """Pack a float weight for float16 dynamic linear (the weight rounded to float16)."""
    if torch.backends.quantized.engine == "qnnpack":
        raise RuntimeError("quantized::linear_prepack_fp16 is currently not supported by "
                           "QNNPACK")
    return LinearPackedParamsBase(weight.to(torch.float16).to(torch.float32), bias)


class LinearPackedParams(torch.nn.Module):
    """Holds a quantized linear layer's packed weight and bias (``_packed_params``)."""

    _version = 3

    def __init__(self, dtype=torch.qint8):
        super().__init__()
        self.dtype = dtype
        if self.dtype is torch.qint8:
            wq = torch._empty_affine_quantized([1, 1], scale=1.0, zero_point=0,
                                               dtype=torch.qint8)
        elif self.dtype is torch.float16:
            wq = torch.zeros([1, 1], dtype=torch.float)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        self.set_weight_bias(wq, None)

    def set_weight_bias(self, weight, bias):
        """Pack ``weight`` (qint8, or float for float16) and ``bias``."""
        if self.dtype is torch.qint8:
            self._packed_params = linear_prepack(weight, bias)
        elif self.dtype is torch.float16:
            self._packed_params = linear_prepack_fp16(weight, bias)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")

    def _weight_bias(self):
        return self._packed_params.unpack()

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            self.dtype = torch.qint8
        else:
            self.dtype = state_dict.pop(prefix + "dtype")
        if version is None or version < 3:
            self.set_weight_bias(state_dict.pop(prefix + "weight"),
                                 state_dict.pop(prefix + "bias"))
        if version == 3:
            weight, bias = state_dict.pop(prefix + "_packed_params")
            self.set_weight_bias(weight, bias)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def __repr__(self):
        return self._weight_bias().__repr__()


class Linear(WeightedQuantizedModule):
    """A linear layer on quantized tensors: quint8 in, qint8 weight, quint8 out (with the
    ``scale``/``zero_point`` calibration gave). ``weight()``/``bias()`` return them.

    Args:
        in_features, out_features (int): the sizes.
        bias_ (bool): whether there is a bias (float). Default True.
        dtype: ``qint8`` (default).
    """

    _version = 3
    _FLOAT_MODULE = (torch.nn.Linear, torch.nn.modules.linear.NonDynamicallyQuantizableLinear)

    def __init__(self, in_features, out_features, bias_=True, dtype=torch.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bias = torch.zeros(out_features, dtype=torch.float) if bias_ else None
        if dtype is torch.qint8:
            qweight = torch._empty_affine_quantized([out_features, in_features], scale=1,
                                                    zero_point=0, dtype=torch.qint8)
        elif dtype is torch.float16:
            qweight = torch.zeros([out_features, in_features], dtype=torch.float)
        else:
            raise RuntimeError("Unsupported dtype specified for quantized Linear!")
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(qweight, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self):
        return "QuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"scale={self.scale}, zero_point={self.zero_point}, "
                f"qscheme={self.weight().qscheme()}")

    def __repr__(self):
        return _hide_packed_params_repr(self, LinearPackedParams)

    def forward(self, x):
        w, b = self._weight_bias()
        return _qnn.linear(x, w, b, self.scale, self.zero_point)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        version = local_metadata.get("version", None)
        if version is None or version == 1:
            state_dict[prefix + "_packed_params.weight"] = state_dict.pop(prefix + "weight")
            state_dict[prefix + "_packed_params.bias"] = state_dict.pop(prefix + "bias")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _weight_bias(self):
        return self._packed_params._weight_bias()

    def weight(self):
        """The quantized weight."""
        return self._weight_bias()[0]

    def bias(self):
        """The float bias (or None)."""
        return self._weight_bias()[1]

    def set_weight_bias(self, w, b):
        """Replace the quantized weight and float bias."""
        self._packed_params.set_weight_bias(w, b)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized layer of an observed float (or QAT) ``Linear``/``LinearReLU``: the
        weight quantized with its qconfig's weight observer, the output parameters from the
        activation observer."""
        from numtorch.ao.nn import intrinsic as nni
        from numtorch.ao.nn.intrinsic import qat as nniqat
        from numtorch.nn.utils.fusion import fuse_linear_bn_weights

        if hasattr(mod, "weight_fake_quant"):
            if type_before_parametrizations(mod) is nniqat.LinearBn1d:
                mod.weight, mod.bias = fuse_linear_bn_weights(
                    mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var,
                    mod.bn.eps, mod.bn.weight, mod.bn.bias)
            weight_post_process = mod.weight_fake_quant
            activation_post_process = mod.activation_post_process
        else:
            floats = cls._FLOAT_MODULE if isinstance(cls._FLOAT_MODULE, Iterable) else \
                [cls._FLOAT_MODULE]
            if type_before_parametrizations(mod) not in floats:
                names = ", ".join(f.__name__ for f in floats)
                raise AssertionError(f"nnq.{cls.__name__}.from_float only works for {names}, "
                                     f"but got: {type(mod)}")
            if not hasattr(mod, "qconfig"):
                raise AssertionError("Input float module must have qconfig defined")
            activation_post_process = mod.activation_post_process
            if type_before_parametrizations(mod) is nni.LinearReLU:
                mod = mod[0]
            weight_post_process = mod.qconfig.weight() if not hasattr(
                mod, "weight_fake_quant") else mod.weight_fake_quant
        if not use_precomputed_fake_quant:
            weight_post_process(mod.weight)
        dtype = weight_post_process.dtype
        act_scale, act_zp = activation_post_process.calculate_qparams()
        if dtype is not torch.qint8:
            raise AssertionError(f"Weight observer must have dtype torch.qint8, got {dtype}")
        qweight = _quantize_weight(mod.weight.float(), weight_post_process)
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, mod.bias)
        qlinear.scale = float(act_scale)
        qlinear.zero_point = int(act_zp)
        return qlinear

    @classmethod
    def from_reference(cls, ref_qlinear, output_scale, output_zero_point):
        """The quantized layer of a reference quantized linear."""
        qlinear = cls(ref_qlinear.in_features, ref_qlinear.out_features)
        qlinear.set_weight_bias(ref_qlinear.get_quantized_weight(), ref_qlinear.bias)
        qlinear.scale = float(output_scale)
        qlinear.zero_point = int(output_zero_point)
        return qlinear
