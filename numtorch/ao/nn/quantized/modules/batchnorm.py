"""Quantized batch norm (inference): quantized ``(N, C, H, W)``/``(N, C, D, H, W)`` in and
out, float statistics and affine parameters."""

import numtorch as torch
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["BatchNorm2d", "BatchNorm3d"]


class _BatchNorm(torch.nn.modules.batchnorm._BatchNorm):
    _nd = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, True, True)
        self.register_buffer("scale", torch.tensor(1.0))
        self.register_buffer("zero_point", torch.tensor(0))

    def _get_name(self):
        return f"QuantizedBatchNorm{self._nd}d"

    def _check_input_dim(self, input):
        if input.dim() != self._nd + 2:
            raise ValueError("Input shape must be `(N, C, H, W)`!")

    def forward(self, input):
        self._check_input_dim(input)
        return _qp.batch_norm(input, self.weight, self.bias, self.running_mean,
                              self.running_var, self.eps, float(self.scale),
                              int(self.zero_point), op=f"batch_norm{self._nd}d")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized norm of an observed ``BatchNorm``/``BNReLU`` (statistics shared)."""
        from numtorch.ao.nn import intrinsic as nni

        activation_post_process = mod.activation_post_process
        if type(mod) in (nni.BNReLU2d, nni.BNReLU3d):
            mod = mod[0]
        scale, zero_point = activation_post_process.calculate_qparams()
        new = cls(mod.num_features, mod.eps)
        new.weight, new.bias = mod.weight, mod.bias
        new.running_mean, new.running_var = mod.running_mean, mod.running_var
        new.scale, new.zero_point = scale, zero_point
        return new

    @classmethod
    def from_reference(cls, bn, output_scale, output_zero_point):
        qbn = cls(bn.num_features, bn.eps, bn.momentum)
        qbn.weight, qbn.bias = bn.weight, bn.bias
        qbn.running_mean, qbn.running_var = bn.running_mean, bn.running_var
        qbn.scale, qbn.zero_point = output_scale, output_zero_point
        return qbn


class BatchNorm2d(_BatchNorm):
    """Quantized 2-d batch norm."""

    _nd = 2


class BatchNorm3d(_BatchNorm):
    """Quantized 3-d batch norm."""

    _nd = 3
