"""Quantized layer, group and instance norm: quantized in and out, float affine
parameters, output ``scale``/``zero_point`` (buffers)."""

import numtorch as torch
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


def _qparams(mod):
    scale, zero_point = mod.activation_post_process.calculate_qparams()
    return float(scale), int(zero_point)


class LayerNorm(torch.nn.LayerNorm):
    """Quantized layer norm."""

    def __init__(self, normalized_shape, weight, bias, scale, zero_point, eps=1e-5,
                 elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)
        self.weight, self.bias = weight, bias
        self.register_buffer("scale", torch.tensor(scale))
        self.register_buffer("zero_point", torch.tensor(zero_point))

    def forward(self, input):
        return _qp.layer_norm(input, self.normalized_shape, weight=self.weight,
                              bias=self.bias, eps=self.eps, output_scale=float(self.scale),
                              output_zero_point=int(self.zero_point))

    def _get_name(self):
        return "QuantizedLayerNorm"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.normalized_shape, mod.weight, mod.bias, *_qparams(mod), mod.eps,
                   mod.elementwise_affine)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(mod.normalized_shape, mod.weight, mod.bias, float(scale), int(zero_point),
                   mod.eps, mod.elementwise_affine)


class GroupNorm(torch.nn.GroupNorm):
    """Quantized group norm."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, weight, bias, scale, zero_point, eps=1e-5,
                 affine=True, device=None, dtype=None):
        super().__init__(num_groups, num_channels, eps, affine)
        self.weight, self.bias = weight, bias
        self.register_buffer("scale", torch.tensor(scale))
        self.register_buffer("zero_point", torch.tensor(zero_point))

    def forward(self, input):
        return _qp.group_norm(input, self.num_groups, self.weight, self.bias, self.eps,
                              float(self.scale), int(self.zero_point))

    def _get_name(self):
        return "QuantizedGroupNorm"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.num_groups, mod.num_channels, mod.weight, mod.bias, *_qparams(mod),
                   mod.eps, mod.affine)


def _instance_norm(nd, base):
    class InstanceNorm(base):
        def __init__(self, num_features, weight, bias, scale, zero_point, eps=1e-5,
                     momentum=0.1, affine=False, track_running_stats=False, device=None,
                     dtype=None):
            super().__init__(num_features, eps, momentum, affine, track_running_stats)
            self.weight, self.bias = weight, bias
            self.register_buffer("scale", torch.tensor(scale))
            self.register_buffer("zero_point", torch.tensor(zero_point))

        def forward(self, input):
            return _qp.instance_norm(input, self.weight, self.bias, self.eps,
                                     float(self.scale), int(self.zero_point))

        def _get_name(self):
            return f"QuantizedInstanceNorm{nd}d"

        @classmethod
        def from_float(cls, mod, use_precomputed_fake_quant=False):
            return cls(mod.num_features, mod.weight, mod.bias, *_qparams(mod), mod.eps,
                       mod.affine)

        @classmethod
        def from_reference(cls, mod, scale, zero_point):
            return cls(mod.num_features, mod.weight, mod.bias, float(scale), int(zero_point),
                       mod.eps, mod.affine)

    InstanceNorm.__name__ = InstanceNorm.__qualname__ = f"InstanceNorm{nd}d"
    InstanceNorm.__module__ = __name__
    InstanceNorm.__doc__ = f"Quantized {nd}-d instance norm."
    return InstanceNorm


InstanceNorm1d = _instance_norm(1, torch.nn.InstanceNorm1d)
InstanceNorm2d = _instance_norm(2, torch.nn.InstanceNorm2d)
InstanceNorm3d = _instance_norm(3, torch.nn.InstanceNorm3d)
