"""Fake quantization with learnable scale and zero point (LSQ-style QAT): the parameters
start from an observer's estimate and can then be trained through torch's learnable
fake-quantize kernels."""

import math

import numtorch as torch
from numtorch.nn import Parameter

from .fake_quantize import FakeQuantizeBase

__all__ = []  # torch's module exports nothing either


def _int_range(dtype):
    from ..._quantized_dtypes import KEYS

    key = KEYS.get(getattr(dtype, "name", None))
    if key is not None:
        return key.qmin, key.qmax
    info = torch.iinfo(dtype)
    return info.min, info.max


class _LearnableFakeQuantize(FakeQuantizeBase):
    """Fake-quantize with ``scale``/``zero_point`` as :class:`~torch.nn.Parameter`.

    Modes (uint8 switches): ``static_enabled`` refreshes the parameters from the observer on
    every forward; ``learning_enabled`` lets the optimizer move them (they then only get
    ``scale`` clamped to ``eps``); ``fake_quant_enabled`` rounds the output.

    Args:
        observer: observer class (or ``with_args`` factory).
        quant_min, quant_max (int): integer range.
        scale (float), zero_point (float): initial values.
        channel_len (int): number of channels for a per-channel observer (-1: per tensor).
        use_grad_scaling (bool): scale the parameters' gradients by
            ``1 / sqrt(numel * quant_max)``.
        **observer_kwargs: passed to ``observer``.
    """

    def __init__(self, observer, quant_min=0, quant_max=255, scale=1.0, zero_point=0.0,
                 channel_len=-1, use_grad_scaling=False, **observer_kwargs):
        super().__init__()
        if quant_min >= quant_max:
            raise AssertionError("quant_min must be strictly less than quant_max.")
        self.quant_min = quant_min
        self.quant_max = quant_max
        observer_kwargs["quant_min"] = quant_min
        observer_kwargs["quant_max"] = quant_max
        self.use_grad_scaling = use_grad_scaling
        if channel_len == -1:
            self.scale = Parameter(torch.tensor([scale]))
            self.zero_point = Parameter(torch.tensor([zero_point]))
        else:
            if not (isinstance(channel_len, int) and channel_len > 0):
                raise AssertionError("Channel size must be a positive integer.")
            self.scale = Parameter(torch.tensor([scale] * channel_len))
            self.zero_point = Parameter(torch.tensor([zero_point] * channel_len))
        self.activation_post_process = observer(**observer_kwargs)
        app = self.activation_post_process
        lo, hi = _int_range(app.dtype)
        if lo > quant_min:
            raise AssertionError("quant_min out of bound")
        if quant_max > hi:
            raise AssertionError("quant_max out of bound")
        self.dtype = app.dtype
        self.qscheme = app.qscheme
        self.ch_axis = app.ch_axis if hasattr(app, "ch_axis") else -1
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.uint8))
        self.register_buffer("static_enabled", torch.tensor([1], dtype=torch.uint8))
        self.register_buffer("learning_enabled", torch.tensor([0], dtype=torch.uint8))
        self.bitwidth = int(math.log2(quant_max - quant_min + 1))
        self.register_buffer("eps", torch.tensor([torch.finfo(torch.float32).eps]))

    @torch.jit.export
    def enable_param_learning(self):
        """Train the parameters (observer off, fake quantization on)."""
        self.toggle_qparam_learning(enabled=True).toggle_fake_quant(
            enabled=True).toggle_observer_update(enabled=False)
        return self

    @torch.jit.export
    def enable_static_estimate(self):
        """Parameters from the observer, fake quantization on."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(
            enabled=True).toggle_observer_update(enabled=True)

    @torch.jit.export
    def enable_static_observation(self):
        """Observe only: parameters from the observer, no rounding."""
        self.toggle_qparam_learning(enabled=False).toggle_fake_quant(
            enabled=False).toggle_observer_update(enabled=True)

    @torch.jit.export
    def toggle_observer_update(self, enabled=True):
        self.static_enabled[0] = int(enabled)
        return self

    @torch.jit.export
    def enable_observer(self, enabled=True):
        self.toggle_observer_update(enabled)

    @torch.jit.export
    def toggle_qparam_learning(self, enabled=True):
        self.learning_enabled[0] = int(enabled)
        self.scale.requires_grad = enabled
        self.zero_point.requires_grad = enabled
        return self

    @torch.jit.export
    def toggle_fake_quant(self, enabled=True):
        self.fake_quant_enabled[0] = int(enabled)
        return self

    @torch.jit.export
    def observe_quant_params(self):
        print(f"_LearnableFakeQuantize Scale: {self.scale.detach()}")
        print(f"_LearnableFakeQuantize Zero Point: {self.zero_point.detach()}")

    @torch.jit.export
    def calculate_qparams(self):
        """``(scale, zero_point)``: the scale clamped to ``eps``, the zero point rounded
        into the integer range as int64."""
        self.scale.data.clamp_(min=self.eps.item())
        scale = self.scale.detach()
        zero_point = self.zero_point.detach().round().clamp(self.quant_min,
                                                            self.quant_max).long()
        return scale, zero_point

    def forward(self, X):
        if self.static_enabled[0] == 1:
            self.activation_post_process(X.detach())
            _scale, _zero_point = self.activation_post_process.calculate_qparams()
            _scale = _scale.to(self.scale.device)
            _zero_point = _zero_point.to(self.zero_point.device)
            if self.scale.shape != _scale.shape:
                self.scale.data = torch.empty(_scale.shape, dtype=self.scale.dtype)
                self.zero_point.data = torch.empty(_zero_point.shape,
                                                   dtype=self.zero_point.dtype)
            self.scale.data.copy_(_scale)
            self.zero_point.data.copy_(_zero_point)
        else:
            self.scale.data.clamp_(min=self.eps.item())
        if self.fake_quant_enabled[0] == 1:
            if self.qscheme in (torch.per_channel_symmetric, torch.per_tensor_symmetric):
                self.zero_point.data.zero_()
            grad_factor = (1.0 / (X.numel() * self.quant_max) ** 0.5
                           if self.use_grad_scaling else 1.0)
            if self.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine):
                X = torch._fake_quantize_learnable_per_channel_affine(
                    X, self.scale, self.zero_point, self.ch_axis, self.quant_min,
                    self.quant_max, grad_factor)
            else:
                X = torch._fake_quantize_learnable_per_tensor_affine(
                    X, self.scale, self.zero_point, self.quant_min, self.quant_max,
                    grad_factor)
        return X
