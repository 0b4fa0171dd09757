"""Fake-quantize modules for quantization-aware training: an observer chooses the
parameters, and the forward pass rounds values to that grid with straight-through gradients.
"""

import re
from abc import ABC, abstractmethod

import numtorch as torch
from numtorch.nn import Module

from ..._class_repr import TorchNamedABC
from .observer import (FixedQParamsObserver, HistogramObserver, MovingAverageMinMaxObserver,
                       MovingAveragePerChannelMinMaxObserver, _with_args,
                       default_fixed_qparams_range_0to1_observer,
                       default_fixed_qparams_range_neg1to1_observer)

__all__ = ["FakeQuantizeBase", "FakeQuantize", "FixedQParamsFakeQuantize",
           "FusedMovingAvgObsFakeQuantize", "disable_fake_quant", "disable_observer",
           "enable_fake_quant", "enable_observer", "default_fake_quant",
           "default_weight_fake_quant", "default_dynamic_fake_quant",
           "default_fixed_qparams_range_neg1to1_fake_quant",
           "default_fixed_qparams_range_0to1_fake_quant",
           "default_symmetric_fixed_qparams_fake_quant",
           "default_affine_fixed_qparams_fake_quant", "default_per_channel_weight_fake_quant",
           "default_embedding_fake_quant", "default_embedding_fake_quant_4bit",
           "default_histogram_fake_quant", "default_fused_act_fake_quant",
           "default_fused_wt_fake_quant", "default_fused_per_channel_wt_fake_quant",
           "fused_wt_fake_quant_range_neg_127_to_127",
           "fused_per_channel_wt_fake_quant_range_neg_127_to_127"]


def _is_per_channel(qscheme):
    return qscheme in (torch.per_channel_symmetric, torch.per_channel_affine,
                       torch.per_channel_affine_float_qparams)


def _is_per_tensor(qscheme):
    return qscheme in (torch.per_tensor_symmetric, torch.per_tensor_affine)


def _is_symmetric_quant(qscheme):
    return qscheme in (torch.per_tensor_symmetric, torch.per_channel_symmetric)


def _is_float_qparams(qscheme):
    return qscheme == torch.per_channel_affine_float_qparams


def _dtype_limits(dtype):
    key = getattr(dtype, "np", None)
    if hasattr(key, "qmin"):
        return key.qmin, key.qmax
    info = torch.iinfo(dtype)
    return info.min, info.max


class FakeQuantizeBase(ABC, Module, metaclass=TorchNamedABC):
    """Base of fake-quantize modules: the ``fake_quant_enabled`` and ``observer_enabled``
    switches (uint8 buffers) and the abstract ``forward``/``calculate_qparams``."""

    def __init__(self):
        super().__init__()
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.uint8))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.uint8))

    @abstractmethod
    def forward(self, x):
        pass

    @abstractmethod
    def calculate_qparams(self, **kwargs):
        pass

    def enable_fake_quant(self, enabled=True):
        """Turn rounding on (or off with ``enabled=False``)."""
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        """Pass values through unrounded."""
        self.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        """Turn statistics collection on (or off)."""
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        """Freeze the quantization parameters."""
        self.enable_observer(False)

    @classmethod
    def with_args(cls, **kwargs):
        ctor = _with_args(cls, **kwargs)
        ctor.__module__ = "numtorch.ao.quantization.fake_quantize"
        return ctor


class FakeQuantize(FakeQuantizeBase):
    """Observe, then fake-quantize:
    ``x_out = (clamp(round(x / scale + zero_point), quant_min, quant_max) - zero_point) *
    scale``, with ``scale``/``zero_point`` buffers refreshed from the observer while
    observation is enabled.

    Args:
        observer: the observer class (or ``with_args`` constructor).
        quant_min, quant_max (int, optional): the integer range (checked against the dtype).
        is_dynamic (bool): a placeholder for dynamic quantization.
        **observer_kwargs: passed to the observer.
    """

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None,
                 is_dynamic=False, **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", torch.quint8)
            if hasattr(observer, "p"):
                dtype = getattr(getattr(observer, "p", {}), "keywords", {}).get("dtype", dtype)
            lo, hi = _dtype_limits(dtype)
            if lo > quant_min:
                raise AssertionError("quant_min out of bound")
            if quant_max > hi:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        self.quant_min = self.activation_post_process.quant_min
        self.quant_max = self.activation_post_process.quant_max
        self.is_dynamic = self.activation_post_process.is_dynamic
        zp_dtype = torch.float if _is_float_qparams(self.activation_post_process.qscheme) \
            else torch.int
        self.register_buffer("scale", torch.tensor([1.0], dtype=torch.float))
        self.register_buffer("zero_point", torch.tensor([0], dtype=zp_dtype))
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        if not (_is_per_channel(self.qscheme) or _is_per_tensor(self.qscheme)):
            raise AssertionError("Only per channel and per tensor quantization are supported "
                                 "in fake quantize got qscheme: " + str(self.qscheme))
        self.is_per_channel = _is_per_channel(self.qscheme)

    def calculate_qparams(self):
        """The observer's current ``(scale, zero_point)``."""
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if self.observer_enabled[0] == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.calculate_qparams()
            if self.scale.shape != scale.shape:
                self.scale.resize_(scale.shape)
                self.zero_point.resize_(zero_point.shape)
            self.scale.copy_(scale)
            self.zero_point.copy_(zero_point)
        if self.fake_quant_enabled[0] == 1:
            qmin = self.activation_post_process.quant_min
            qmax = self.activation_post_process.quant_max
            if self.is_per_channel:
                X = torch.fake_quantize_per_channel_affine(X, self.scale, self.zero_point,
                                                           self.ch_axis, qmin, qmax)
            else:
                X = torch.fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,
                                                          qmin, qmax)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, dtype={self.dtype}, "
                f"qscheme={self.qscheme}, ch_axis={self.ch_axis}, scale={self.scale}, "
                f"zero_point={self.zero_point}")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = self.scale
        destination[prefix + "zero_point"] = self.zero_point

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # per-channel parameters take the checkpoint's number of channels
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                getattr(self, name).resize_(state_dict[key].shape)
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)


class FixedQParamsFakeQuantize(FakeQuantize):
    """Fake quantization with the fixed parameters of a :class:`FixedQParamsObserver`
    (per tensor only)."""

    def __init__(self, observer):
        super().__init__(observer=observer)
        if type(self.activation_post_process) is not FixedQParamsObserver:
            raise AssertionError(f"{self.__class__.__name__}'s observer must be a "
                                 f"{FixedQParamsObserver.__name__}")
        self._observer_ctr = observer
        self.scale = self.activation_post_process.scale
        self.zero_point = self.activation_post_process.zero_point
        if not _is_per_tensor(self.qscheme):
            raise AssertionError("Only per tensor quantization is supported "
                                 "FixedQParamsFakeQuantize module, got qscheme:"
                                 + str(self.qscheme))

    def calculate_qparams(self):
        """The fixed ``(scale, zero_point)``."""
        return self.scale, self.zero_point

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, scale={self.scale}, "
                f"zero_point={self.zero_point}, dtype={self.dtype}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, qscheme={self.qscheme}")


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """Moving-average min/max observation and fake quantization in one op
    (:func:`numtorch.fused_moving_avg_obs_fake_quant`); same results as :class:`FakeQuantize`
    with a moving-average observer."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                 **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(self.activation_post_process,
                          (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Fused observer+fake_quant module only works with "
                                 "MovingAverageMinMaxObserver")
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.long))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.long))
        self.is_symmetric_quant = _is_symmetric_quant(self.activation_post_process.qscheme)

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, "
                f"observer_enabled={self.observer_enabled}, scale={self.scale}, "
                f"zero_point={self.zero_point}, dtype={self.dtype}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, qscheme={self.qscheme}, "
                f"reduce_range={self.activation_post_process.reduce_range}")

    def forward(self, X):
        obs = self.activation_post_process
        return torch.fused_moving_avg_obs_fake_quant(
            X, self.observer_enabled, self.fake_quant_enabled, obs.min_val, obs.max_val,
            self.scale, self.zero_point, obs.averaging_constant, obs.quant_min, obs.quant_max,
            self.ch_axis, self.is_per_channel, self.is_symmetric_quant)


default_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=torch.quint8,
    qscheme=torch.per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric, reduce_range=False)
default_dynamic_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, is_dynamic=True,
    dtype=torch.quint8, averaging_constant=1)
default_fixed_qparams_range_neg1to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_neg1to1_observer)
default_fixed_qparams_range_0to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_0to1_observer)
default_symmetric_fixed_qparams_fake_quant = default_fixed_qparams_range_neg1to1_fake_quant
default_affine_fixed_qparams_fake_quant = default_fixed_qparams_range_0to1_fake_quant
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric, reduce_range=False, ch_axis=0)
default_embedding_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=torch.per_channel_affine_float_qparams, dtype=torch.quint8, quant_min=0,
    quant_max=255, ch_axis=0, averaging_constant=1)
default_embedding_fake_quant_4bit = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver,
    qscheme=torch.per_channel_affine_float_qparams, ch_axis=0, dtype=torch.quint4x2,
    averaging_constant=1)
default_histogram_fake_quant = FakeQuantize.with_args(
    observer=HistogramObserver, quant_min=0, quant_max=255, dtype=torch.quint8,
    qscheme=torch.per_tensor_affine, reduce_range=True)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=torch.quint8)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric)
fused_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-127, quant_max=127, dtype=torch.qint8,
    qscheme=torch.per_tensor_symmetric, eps=2 ** -12)
fused_per_channel_wt_fake_quant_range_neg_127_to_127 = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-127, quant_max=127,
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric, eps=2 ** -12)


def _is_fake_quant_script_module(mod):
    """Whether ``mod`` is a scripted FakeQuantize (numtorch has no TorchScript modules)."""
    name = getattr(getattr(mod, "_c", None), "qualified_name", "")
    return bool(re.search(r"fake_quantize\.(FakeQuantize|FusedMovingAvgObsFakeQuantize)$",
                          re.sub(r"\.___torch_mangle_\d+", "", name)))


def disable_fake_quant(mod):
    """``model.apply(disable_fake_quant)``: stop rounding in every fake-quantize module."""
    if isinstance(mod, FakeQuantizeBase) or _is_fake_quant_script_module(mod):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    """``model.apply(enable_fake_quant)``: round again in every fake-quantize module."""
    if isinstance(mod, FakeQuantizeBase) or _is_fake_quant_script_module(mod):
        mod.enable_fake_quant()


def disable_observer(mod):
    """``model.apply(disable_observer)``: freeze every fake-quantize module's parameters."""
    if isinstance(mod, FakeQuantizeBase) or _is_fake_quant_script_module(mod):
        mod.disable_observer()


def enable_observer(mod):
    """``model.apply(enable_observer)``: resume observation."""
    if isinstance(mod, FakeQuantizeBase) or _is_fake_quant_script_module(mod):
        mod.enable_observer()
