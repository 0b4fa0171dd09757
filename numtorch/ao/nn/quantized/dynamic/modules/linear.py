"""Dynamically quantized ``Linear``: qint8 (or float16) weights, float in and out."""

import numtorch as torch
from numtorch.ao.nn.quantized.modules import linear as nnq_linear
from numtorch.ao.nn.quantized.modules.utils import _quantize_weight
from numtorch.ops import quantized_nn as _qnn

__all__ = ["Linear"]


class Linear(nnq_linear.Linear):
    """A linear layer with a quantized weight: each input is quantized to quint8 with
    parameters from its own range (halved, ``reduce_range``, as torch's x86 kernels do), the
    product is exact in integers, and the output is float.

    Args:
        in_features, out_features (int): the sizes.
        bias_ (bool): a float bias. Default True.
        dtype: ``qint8`` (default) or ``float16`` (weights rounded to half precision).
    """

    _version = 4

    def __init__(self, in_features, out_features, bias_=True, dtype=torch.qint8):
        super().__init__(in_features, out_features, bias_, dtype=dtype)
        self.version = 4

    def forward(self, x):
        packed = self._packed_params._packed_params
        if self._packed_params.dtype is torch.qint8:
            reduce_range = not (self.version is None or self.version < 4)
            y = _qnn.linear_dynamic(x, packed, reduce_range=reduce_range)
        elif self._packed_params.dtype is torch.float16:
            y = _qnn.linear_dynamic(x, packed)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        return y.to(x.dtype)

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def extra_repr(self):
        s = (f"in_features={self.in_features}, out_features={self.out_features}, "
             f"dtype={self._packed_params.dtype}")
        if self._packed_params.dtype is torch.qint8:
            s += f", qscheme={self.weight().qscheme()}"
        return s

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.version = local_metadata.get("version", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic layer of a float (or dynamic QAT) ``Linear``: the weight quantized with
        the qconfig's weight observer (default: qint8 per tensor symmetric)."""
        from numtorch.ao.nn import intrinsic as nni
        from numtorch.ao.nn.qat import dynamic as nnqatd

        floats = (torch.nn.Linear, torch.nn.modules.linear.NonDynamicallyQuantizableLinear,
                  nnqatd.Linear, nni.LinearReLU)
        if type(mod) not in floats:
            raise AssertionError("nn.quantized.dynamic.Linear.from_float only works for one "
                                 "of " + str([float_mod.__name__ for float_mod in floats]))
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if type(mod) is nni.LinearReLU:
            mod = mod[0]
        if mod.qconfig is not None and mod.qconfig.weight is not None:
            weight_observer = mod.qconfig.weight()
        else:
            from numtorch.ao.quantization.qconfig import default_dynamic_qconfig

            weight_observer = default_dynamic_qconfig.weight()
        dtype = weight_observer.dtype
        if dtype not in (torch.qint8, torch.float16):
            raise AssertionError(f"The only supported dtypes for dynamic quantized linear are "
                                 f"qint8 and float16 got: {dtype}")
        weight_observer(mod.weight)
        if dtype is torch.qint8:
            qweight = _quantize_weight(mod.weight.float(), weight_observer)
        else:
            qweight = mod.weight.float()
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, mod.bias)
        return qlinear

    @classmethod
    def from_reference(cls, ref_qlinear):
        qlinear = cls(ref_qlinear.in_features, ref_qlinear.out_features,
                      dtype=ref_qlinear.weight_dtype)
        qlinear.set_weight_bias(ref_qlinear.get_quantized_weight(), ref_qlinear.bias)
        return qlinear
