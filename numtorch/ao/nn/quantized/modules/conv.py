"""Quantized convolutions (1-3 d) and transposed convolutions: quint8 in and out, qint8
weights (per tensor or per channel), float bias; exact integer accumulation."""

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch._quantized_packed import ConvPackedParamsBase, packed_weight
from numtorch.nn.modules.utils import _pair, _single, _triple
from numtorch.ops import quantized_nn as _qnn

from .utils import WeightedQuantizedModule, _quantize_weight

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_SUPPORTED_PADDING = {"zeros", "reflect"}


def conv_prepack(nd, weight, bias, stride, padding, dilation, groups, transposed=False,
                 output_padding=None):
    """Pack a qint8 convolution weight with its geometry (Conv1d packed as 2-d)."""
    if not weight.is_quantized or weight.dtype is not torch.qint8:
        raise RuntimeError(f"quantized::conv{'_transpose' if transposed else ''}{nd}d_prepack"
                           f" (fbgemm): Weight should be a quantized tensor of dtype qint8")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"Weights are expected to have {nd + 2} dimensions")
    stride, padding, dilation = list(stride), list(padding), list(dilation)
    output_padding = [0] * nd if output_padding is None else list(output_padding)
    if nd == 1:  # torch packs 1-d convolutions as 2-d ones with a unit first dim
        weight = weight.unsqueeze(2)
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
        output_padding = [0] + output_padding
    return ConvPackedParamsBase(packed_weight(weight, "conv"), bias, stride, padding, dilation,
                                groups, transposed, output_padding)


def _pad_quantized(x, pads, mode):
    """``F.pad`` of a quantized tensor's integers (the values keep their parameters)."""
    a = x._array
    width = [(0, 0)] * (a.ndim - len(pads) // 2) + [
        (pads[2 * i], pads[2 * i + 1]) for i in reversed(range(len(pads) // 2))]
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    from numtorch._quantized_tensor import make_quantized

    return make_quantized(np.pad(a.ints, width, mode=np_mode), a.qdtype, a.quantizer)


class _ConvNd(WeightedQuantizedModule):
    """Common parts of the quantized convolutions."""

    _nd = 2

    def __init__(self, *args, **kwargs):
        raise NotImplementedError

    def _init(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
              transposed, output_padding, groups, bias, padding_mode="zeros", device=None,
              dtype=None):
        super().__init__()
        if out_channels <= 0:
            raise ValueError(f"out_channels must be greater than 0, got {out_channels}")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.transposed = dilation, transposed
        self.output_padding, self.groups = output_padding, groups
        if padding_mode not in _SUPPORTED_PADDING:
            raise ValueError(f"'padding_mode' {padding_mode} is not supported by quantized "
                             f"convolution")
        self.padding_mode = padding_mode
        shape = [in_channels, out_channels // groups] if transposed else \
            [out_channels, in_channels // groups]
        qweight = torch._empty_affine_quantized(shape + list(kernel_size), scale=1,
                                                zero_point=0, dtype=torch.qint8)
        bias_float = torch.zeros(out_channels, dtype=torch.float) if bias else None
        self.set_weight_bias(qweight, bias_float)
        self.scale = 1.0
        self.zero_point = 0

    def set_weight_bias(self, w, b):
        """Pack a new quantized weight and float bias."""
        padding = self.padding if self.padding_mode == "zeros" else (0,) * self._nd
        self._packed_params = conv_prepack(
            self._nd, w, b, self.stride, padding, self.dilation, self.groups,
            self.transposed, self.output_padding if self.transposed else None)

    def _weight_bias(self):
        w, b = self._packed_params.unpack()
        if self._nd == 1 and w.dim() == 4:
            w = w.squeeze(2)
        return w, b

    def weight(self):
        """The quantized weight."""
        return self._weight_bias()[0]

    def bias(self):
        """The float bias (or None)."""
        return self._weight_bias()[1]

    def extra_repr(self):
        s = ("{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}, "
             "scale={scale}, zero_point={zero_point}")
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias() is None:
            s += ", bias=False"
        return s.format(**self.__dict__)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        w, b = self._weight_bias()
        destination[prefix + "weight"] = w
        destination[prefix + "bias"] = b
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias"))
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def __getstate__(self):
        # the layer as torch pickles it: geometry, unpacked weight and bias, parameters
        w, b = self._weight_bias()
        return (self.in_channels, self.out_channels, self.kernel_size, self.stride,
                self.padding, self.dilation, self.transposed, self.output_padding, self.groups,
                self.padding_mode, w, b, self.scale, self.zero_point, self.training)

    def __setstate__(self, state):
        if isinstance(state, dict):  # a pickle of numtorch's plain module state
            self.__dict__.update(state)
            return
        nn.Module.__init__(self)
        (self.in_channels, self.out_channels, self.kernel_size, self.stride, self.padding,
         self.dilation, self.transposed, self.output_padding, self.groups, self.padding_mode,
         w, b, self.scale, self.zero_point, self.training) = state
        self.set_weight_bias(w, b)

    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        nn.Module.__init__(new)
        new.__setstate__(self.__getstate__())
        return new

    def __copy__(self):
        return self.__deepcopy__({})

    def forward(self, input):
        nd = self._nd
        if input.dim() != nd + 2:
            raise ValueError(f"Input shape must be `{_SHAPES[nd]}`!")
        _qnn.require_quantized(self._qop_name(), input)
        padding = self.padding
        if self.padding_mode != "zeros":
            pads = []
            for p in reversed(self.padding):
                pads += [p, p]
            input = _pad_quantized(input, pads, self.padding_mode)
            padding = (0,) * nd
        w, b = self._weight_bias()
        return _qnn.conv(nd, input, w, b, self.stride, padding, self.dilation, self.groups,
                         self.scale, self.zero_point, relu=self._fused_relu)

    _fused_relu = False

    def _qop_name(self):
        return _qnn.conv_op_name(self._nd, self._fused_relu)

    @classmethod
    def get_qconv(cls, mod, activation_post_process, weight_post_process=None):
        """The quantized layer of float conv ``mod`` with the given observers."""
        if weight_post_process is None:
            weight_post_process = mod.qconfig.weight()
        weight_post_process(mod.weight)
        if weight_post_process.dtype is not torch.qint8:
            raise AssertionError(f"Weight observer must have a dtype of qint8, got "
                                 f"{weight_post_process.dtype}")
        qweight = _quantize_weight(mod.weight.float(), weight_post_process)
        qconv = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride,
                    mod.padding, mod.dilation, mod.groups, mod.bias is not None,
                    mod.padding_mode)
        qconv.set_weight_bias(qweight, mod.bias)
        if activation_post_process is None or activation_post_process.dtype is torch.float:
            return qconv
        act_scale, act_zp = activation_post_process.calculate_qparams()
        qconv.scale = float(act_scale)
        qconv.zero_point = int(act_zp)
        return qconv

    @staticmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        from numtorch.nn.utils.fusion import fuse_conv_bn_weights

        if hasattr(mod, "weight_fake_quant"):
            if type(mod) is cls._NNIQAT_CONV_BN_MODULE:
                mod.weight, mod.bias = fuse_conv_bn_weights(
                    mod.weight, mod.bias, mod.bn.running_mean, mod.bn.running_var,
                    mod.bn.eps, mod.bn.weight, mod.bn.bias)
            if not hasattr(mod, "activation_post_process"):
                raise AssertionError("Input QAT module must have observer attached")
            weight_post_process = mod.weight_fake_quant
            activation_post_process = mod.activation_post_process
        else:
            if type(mod) is not cls._FLOAT_MODULE:
                raise AssertionError(f"nnq.{cls.__name__}.from_float only works for "
                                     f"{cls._FLOAT_MODULE.__name__} but got: "
                                     f"{type(mod).__name__}")
            if not hasattr(mod, "qconfig"):
                raise AssertionError("Input float module must have qconfig defined.")
            activation_post_process = getattr(mod, "activation_post_process", None)
            if type(mod) in (cls._NNI_CONV_RELU_MODULE, cls._NNI_CONV_ADD_MODULE,
                             cls._NNI_CONV_ADD_RELU_MODULE):
                mod = mod[0]
            weight_post_process = mod.qconfig.weight()
        return cls.get_qconv(mod, activation_post_process, weight_post_process)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        """The quantized layer of a reference quantized convolution."""
        qconv = cls(ref_qconv.in_channels, ref_qconv.out_channels, ref_qconv.kernel_size,
                    ref_qconv.stride, ref_qconv.padding, ref_qconv.dilation, ref_qconv.groups,
                    ref_qconv.bias is not None, ref_qconv.padding_mode)
        qconv.set_weight_bias(ref_qconv.get_quantized_weight(), ref_qconv.bias)
        qconv.scale = float(output_scale)
        qconv.zero_point = int(output_zero_point)
        return qconv


_SHAPES = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
_TUPLE = {1: _single, 2: _pair, 3: _triple}


def _conv_class(nd):
    expand = _TUPLE[nd]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        if nd == 3 and padding_mode == "reflect":
            raise AssertionError("Conv3d does not support reflection padding")
        self._init(in_channels, out_channels, expand(kernel_size), expand(stride),
                   padding if isinstance(padding, str) else expand(padding), expand(dilation),
                   False, expand(0), groups, bias, padding_mode)

    def _get_name(self):
        return f"QuantizedConv{nd}d"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized layer of an observed float/QAT/fused convolution."""
        return _ConvNd.from_float(cls, mod, use_precomputed_fake_quant)

    return {"__init__": __init__, "_get_name": _get_name, "from_float": from_float,
            "_nd": nd, "__module__": __name__,
            "__doc__": f"A {nd}-d convolution of quantized tensors (see nn.Conv{nd}d)."}


Conv1d = type("Conv1d", (_ConvNd,), dict(_conv_class(1), _FLOAT_MODULE=nn.Conv1d))
Conv2d = type("Conv2d", (_ConvNd,), dict(_conv_class(2), _FLOAT_MODULE=nn.Conv2d))
Conv3d = type("Conv3d", (_ConvNd,), dict(_conv_class(3), _FLOAT_MODULE=nn.Conv3d))


class _ConvTransposeNd(_ConvNd):
    """Common parts of the quantized transposed convolutions."""

    def _input_padding(self, kernel_size, dilation, padding):
        return [dilation[i] * (kernel_size[i] - 1) - padding[i] for i in range(len(kernel_size))]

    def forward(self, input):
        nd = self._nd
        if input.dim() != nd + 2:
            raise ValueError(f"Input shape must be `{_SHAPES[nd]}`!")
        w, b = self._weight_bias()
        return _qnn.conv(nd, input, w, b, self.stride, self.padding, self.dilation,
                         self.groups, self.scale, self.zero_point, transposed=True,
                         output_padding=self.output_padding)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized layer of an observed float ``ConvTranspose``."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(f"nnq.{cls.__name__}.from_float only works for "
                                 f"{cls._FLOAT_MODULE.__name__}")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined.")
        weight_post_process = mod.qconfig.weight()
        weight_post_process(mod.weight)
        if weight_post_process.dtype is not torch.qint8:
            raise AssertionError(f"Weight observer must have a dtype of qint8, got "
                                 f"{weight_post_process.dtype}")
        qweight = _quantize_weight(mod.weight.float(), weight_post_process)
        qmod = cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride,
                   mod.padding, mod.output_padding, mod.groups, mod.bias is not None,
                   mod.dilation, mod.padding_mode)
        qmod.set_weight_bias(qweight, mod.bias)
        act = getattr(mod, "activation_post_process", None)
        if act is None or act.dtype is torch.float:
            return qmod
        act_scale, act_zp = act.calculate_qparams()
        qmod.scale = float(act_scale)
        qmod.zero_point = int(act_zp)
        return qmod

    @staticmethod
    def from_reference(cls, ref_qconvt, output_scale, output_zero_point):
        qconv = cls(ref_qconvt.in_channels, ref_qconvt.out_channels, ref_qconvt.kernel_size,
                    ref_qconvt.stride, ref_qconvt.padding, ref_qconvt.output_padding,
                    ref_qconvt.groups, ref_qconvt.bias is not None, ref_qconvt.dilation,
                    ref_qconvt.padding_mode)
        qconv.set_weight_bias(ref_qconvt.get_quantized_weight(), ref_qconvt.bias)
        qconv.scale = float(output_scale)
        qconv.zero_point = int(output_zero_point)
        return qconv


def _conv_transpose_class(nd):
    expand = _TUPLE[nd]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        self._init(in_channels, out_channels, expand(kernel_size), expand(stride),
                   expand(padding), expand(dilation), True, expand(output_padding), groups,
                   bias, padding_mode)

    def _get_name(self):
        return f"QuantizedConvTranspose{nd}d"

    return {"__init__": __init__, "_get_name": _get_name, "_nd": nd, "__module__": __name__,
            "__doc__": f"A {nd}-d transposed convolution of quantized tensors."}


ConvTranspose1d = type("ConvTranspose1d", (_ConvTransposeNd,),
                       dict(_conv_transpose_class(1), _FLOAT_MODULE=nn.ConvTranspose1d))
ConvTranspose2d = type("ConvTranspose2d", (_ConvTransposeNd,),
                       dict(_conv_transpose_class(2), _FLOAT_MODULE=nn.ConvTranspose2d))
ConvTranspose3d = type("ConvTranspose3d", (_ConvTransposeNd,),
                       dict(_conv_transpose_class(3), _FLOAT_MODULE=nn.ConvTranspose3d))


def _bind_fusion_classes():
    """The fused and QAT classes each convolution converts from (imported late: they import
    this module)."""
    from numtorch.ao.nn import intrinsic as nni
    from numtorch.ao.nn.intrinsic import qat as nniqat

    for cls, n in ((Conv1d, 1), (Conv2d, 2), (Conv3d, 3)):
        cls._NNIQAT_CONV_BN_MODULE = getattr(nniqat, f"ConvBn{n}d")
        cls._NNI_CONV_RELU_MODULE = getattr(nni, f"ConvReLU{n}d")
        cls._NNI_CONV_ADD_MODULE = nni.ConvAdd2d if n == 2 else None
        cls._NNI_CONV_ADD_RELU_MODULE = nni.ConvAddReLU2d if n == 2 else None
