"""Quantized activations: each computes on the quantized input and quantizes its output
with the scale/zero point calibration gave (ReLU6 keeps the input's)."""

import warnings

import numtorch as torch
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["ReLU6", "Hardswish", "ELU", "LeakyReLU", "Sigmoid", "Softmax", "PReLU"]


def _qparams(mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return float(scale), int(zero_point)


class ReLU6(torch.nn.ReLU):
    """``min(max(x, zero_point), q(6))`` on the input's quantization grid."""

    def __init__(self, inplace=False):
        super().__init__(inplace)
        self.inplace = inplace

    def forward(self, input):
        return _qp.relu6(input, self.inplace)

    def _get_name(self):
        return "QuantizedReLU6"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ReLU6(mod.inplace)


class Hardswish(torch.nn.Hardswish):
    """Quantized hardswish with output ``scale``/``zero_point`` (buffers)."""

    def __init__(self, scale, zero_point, device=None, dtype=None):
        super().__init__()
        self.register_buffer("scale", torch.tensor(scale))
        self.register_buffer("zero_point", torch.tensor(zero_point))

    def forward(self, input):
        return _qp.hardswish(input, float(self.scale), int(self.zero_point))

    def _get_name(self):
        return "QuantizedHardswish"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return Hardswish(*_qparams(mod))

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(float(scale), int(zero_point))


class ELU(torch.nn.ELU):
    """Quantized ELU with output ``scale``/``zero_point``."""

    def __init__(self, scale, zero_point, alpha=1.0):
        super().__init__(alpha)
        self.scale, self.zero_point = scale, zero_point

    def forward(self, input):
        if not input.is_quantized:
            raise ValueError("Input to 'quantized.elu' must be quantized!")
        return _qp.elu(input, self.scale, self.zero_point, self.alpha)

    def _get_name(self):
        return "QuantizedELU"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ELU(*_qparams(mod), mod.alpha)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(float(scale), int(zero_point), mod.alpha)


class LeakyReLU(torch.nn.LeakyReLU):
    """Quantized leaky ReLU with output ``scale``/``zero_point`` (buffers)."""

    def __init__(self, scale, zero_point, negative_slope=1e-2, inplace=False, device=None,
                 dtype=None):
        super().__init__(negative_slope, inplace)
        self.register_buffer("scale", torch.tensor(scale))
        self.register_buffer("zero_point", torch.tensor(zero_point))

    def forward(self, input):
        return _qp.leaky_relu(input, self.negative_slope, self.inplace, float(self.scale),
                              int(self.zero_point))

    def _get_name(self):
        return "QuantizedLeakyReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(*_qparams(mod), mod.negative_slope, mod.inplace)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(float(scale), int(zero_point), mod.negative_slope, mod.inplace)


class Sigmoid(torch.nn.Sigmoid):
    """Quantized sigmoid with output ``output_scale``/``output_zero_point``."""

    def __init__(self, output_scale, output_zero_point):
        super().__init__()
        self.output_scale, self.output_zero_point = output_scale, output_zero_point

    def forward(self, input):
        return _qp.sigmoid(input, self.output_scale, self.output_zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(*_qparams(mod))


class Softmax(torch.nn.Softmax):
    """Quantized softmax along ``dim`` with output ``scale``/``zero_point``."""

    def __init__(self, dim=None, scale=1.0, zero_point=0):
        super().__init__()
        self.dim, self.scale, self.zero_point = dim, scale, zero_point

    def forward(self, input):
        dim = self.dim
        if dim is None:
            dim = 0 if input.dim() in (0, 1, 3) else 1
        return _qp.softmax(input, dim, self.scale, self.zero_point)

    def _get_name(self):
        return "QuantizedSoftmax"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return Softmax(mod.dim, *_qparams(mod))

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(mod.dim, float(scale), int(zero_point))


class PReLU(torch.nn.Module):
    """Quantized PReLU: a quint8 weight (one slope or one per channel) and output
    ``scale``/``zero_point``."""

    def __init__(self, output_scale, output_zero_point, num_parameters=1):
        super().__init__()
        self.num_parameters = num_parameters
        self.scale, self.zero_point = output_scale, output_zero_point
        w = torch.randn(num_parameters, dtype=torch.float)
        self.set_weight(torch.quantize_per_tensor(w, scale=1.0, zero_point=0,
                                                  dtype=torch.quint8))

    def set_weight(self, w):
        self.weight = w

    def forward(self, input):
        return _qp.prelu(input, self.weight, self.scale, self.zero_point)

    def _get_name(self):
        return "QuantizedPReLU"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        qprelu = cls(*_qparams(mod), mod.num_parameters)
        qprelu.set_weight(_quint8_weight(mod))
        return qprelu

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        qprelu = cls(float(scale), int(zero_point), mod.num_parameters)
        qprelu.set_weight(_quint8_weight(mod))
        return qprelu


def _quint8_weight(mod):
    float_wt = mod.weight.float()
    observer = mod.qconfig.weight()
    observer(float_wt)
    if observer.dtype is not torch.quint8:
        warnings.warn(f"PReLU's weight observer should have dtype quint8 but got "
                      f"{observer.dtype}", stacklevel=3)
    wt_scale, wt_zp = observer.calculate_qparams()
    return torch.quantize_per_tensor(float_wt, float(wt_scale), int(wt_zp), torch.quint8)
