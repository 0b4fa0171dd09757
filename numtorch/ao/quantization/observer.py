"""Observers: modules that watch the tensors passing through them and turn what they saw into
quantization parameters (``calculate_qparams() -> (scale, zero_point)``).

MinMax observers track extremes (per tensor or per channel, optionally as a moving average);
the histogram observer keeps a histogram and searches the clipping range with the least L2
quantization error; placeholder, no-op, recording and fixed-parameter observers carry a dtype
or fixed parameters for the convert step. Their buffers, state dicts and numerics follow torch.
"""

import functools
import warnings
from abc import ABC, abstractmethod
from collections import OrderedDict

import numpy as np

import numtorch as torch
from numtorch import nn

from ..._class_repr import TorchNamedABC
from . import _histogram
from ._affine import (  # noqa: F401  (torch keeps these torchao-style names here)
    AffineQuantizedObserverBase, Granularity, MappingType, PerAxis, PerBlock, PerGroup, PerRow,
    PerTensor, PerToken, TorchAODType, ZeroPointDomain, get_block_size,
)
from ._qparams import calculate_qparams_arrays
from .utils import calculate_qmin_qmax, check_min_max_valid, is_per_channel, is_per_tensor, \
    validate_qmin_qmax

__all__ = [
    "default_affine_fixed_qparams_observer", "default_debug_observer",
    "default_dynamic_quant_observer", "default_fixed_qparams_range_0to1_observer",
    "default_fixed_qparams_range_neg1to1_observer", "default_float_qparams_observer",
    "default_float_qparams_observer_4bit", "default_histogram_observer", "default_observer",
    "default_per_channel_weight_observer", "default_placeholder_observer",
    "default_reuse_input_observer", "default_symmetric_fixed_qparams_observer",
    "default_weight_observer", "get_observer_state_dict", "load_observer_state_dict",
    "per_channel_weight_observer_range_neg_127_to_127", "weight_observer_range_neg_127_to_127",
    "FixedQParamsObserver", "HistogramObserver", "MinMaxObserver",
    "MovingAverageMinMaxObserver", "MovingAveragePerChannelMinMaxObserver", "NoopObserver",
    "ObserverBase", "PerChannelMinMaxObserver", "PlaceholderObserver", "RecordingObserver",
    "ReuseInputObserver", "UniformQuantizationObserverBase", "AffineQuantizedObserverBase",
    "Granularity", "MappingType", "PerAxis", "PerBlock", "PerGroup", "PerRow", "PerTensor",
    "PerToken", "TorchAODType", "ZeroPointDomain", "get_block_size",
]

_EPS = float(np.finfo(np.float32).eps)
_NOT_RUN = "must run observer before calling calculate_qparams. Returning default values."


def observed_qparams(min_val, max_val, qscheme, dtype, quant_min, quant_max, eps, customized):
    """``(scale, zero_point)`` tensors for observed min/max tensors, as every uniform observer
    computes them (affine zero points are int32, symmetric ones int64, float qparams float)."""
    if not check_min_max_valid(min_val, max_val):
        return torch.tensor([1.0]), torch.tensor([0])
    name = qscheme._name
    symmetric = name in ("per_tensor_symmetric", "per_channel_symmetric")
    midpoint = None
    if symmetric and dtype.name in ("quint8", "uint8"):
        midpoint = (quant_min + quant_max) // 2 if customized else 128
    elif symmetric and dtype.name == "uint16":
        midpoint = 2 ** 15
    scale, zp = calculate_qparams_arrays(
        min_val.numpy(), max_val.numpy(), quant_min, quant_max, symmetric, np.int32, eps,
        float_qparams=name == "per_channel_affine_float_qparams", unsigned_midpoint=midpoint)
    return torch.from_numpy(scale), torch.from_numpy(np.ascontiguousarray(zp))


class _PartialWrapper:
    """A constructor with some arguments bound (``Observer.with_args(...)``); arguments bound
    with ``with_callable_args`` are computed anew for every instance."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        for name, make in self.callable_args.items():
            keywords.setdefault(name, make())
        return self.p(*args, **keywords)

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _with_args(cls_or_self, **kwargs):
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self, **kwargs):
    result = _PartialWrapper(functools.partial(cls_or_self))
    return result.with_callable_args(**kwargs)


class ObserverBase(ABC, nn.Module, metaclass=TorchNamedABC):
    """Base of all observers: ``forward`` records statistics (returning its input unchanged)
    and ``calculate_qparams`` turns them into quantization parameters.

    Args:
        dtype: the quantized dtype the parameters are for.
        is_dynamic (bool): a placeholder for dynamic quantization (parameters are chosen at
            run time from each input).
    """

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    @abstractmethod
    def forward(self, x):
        pass

    @abstractmethod
    def calculate_qparams(self, **kwargs):
        pass

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


_ALLOWED_SCHEMES = ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine",
                    "per_channel_symmetric", "per_channel_affine_float_qparams")
_ALLOWED_DTYPES = ("qint8", "quint8", "quint4x2", "qint32", "int8", "uint8", "int16", "int32",
                   "uint16", "float8_e5m2", "float8_e4m3fn")


class UniformQuantizationObserverBase(ObserverBase):
    """Observers that map a float range uniformly onto an integer range.

    Args:
        dtype: ``quint8``, ``qint8``, ``qint32``, ``quint4x2`` (or the plain integer types).
        qscheme: per tensor/channel, affine or symmetric (or float qparams).
        reduce_range (bool): use one bit less of the range (deprecated by torch in favour of
            ``quant_min``/``quant_max``).
        quant_min, quant_max (int, optional): a custom integer range (must contain 0).
        eps (float): the smallest scale returned.
    """

    _version = 3

    def __init__(self, dtype=torch.quint8, qscheme=torch.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.qscheme = qscheme
        if reduce_range:
            warnings.warn("Please use quant_min and quant_max to specify the range for "
                          "observers.                     reduce_range will be deprecated in a "
                          "future release of PyTorch.", stacklevel=2)
        self.reduce_range = reduce_range
        self.register_buffer("eps", torch.tensor([eps]))
        if getattr(qscheme, "_name", None) not in _ALLOWED_SCHEMES:
            raise AssertionError("Default Observer only works for per_tensor_affine, "
                                 "per_tensor_symmetric, per_channel_affine, "
                                 "per_channel_symmetric and per_channel_float_qparams "
                                 "quantization scheme")
        if getattr(dtype, "name", None) not in _ALLOWED_DTYPES:
            raise AssertionError(f"Default Observer only works for (torch.qint8, torch.quint8, "
                                 f"torch.quint4x2, torch.qint32, torch.int8, torch.uint8, "
                                 f"torch.int16, torch.int32, torch.float8_e5m2, "
                                 f"torch.float8_e4m3fn, torch.uint16) data type")
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            validate_qmin_qmax(quant_min, quant_max)
        self.quant_min, self.quant_max = calculate_qmin_qmax(
            quant_min, quant_max, self.has_customized_qrange, self.dtype, self.reduce_range)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version == 1:
            state_dict[prefix + "eps"] = torch.tensor([_EPS])
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def _validate_qmin_qmax(self, quant_min, quant_max):
        validate_qmin_qmax(quant_min, quant_max)

    def _calculate_qparams(self, min_val, max_val):
        """``(scale, zero_point)`` tensors for observed min/max tensors (shape () or (C,))."""
        return observed_qparams(min_val, max_val, self.qscheme, self.dtype, self.quant_min,
                                self.quant_max, float(self.eps.reshape(-1)[0]),
                                self.has_customized_qrange)

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


_ObserverBase = UniformQuantizationObserverBase


def _as_float(x):
    """The observed values as a detached float32 array (torch converts to the buffers'
    float32)."""
    arr = x.detach()._array
    if type(arr) is not np.ndarray:
        arr = x.detach().cpu()._array
    return arr.astype(np.float32, copy=False)


def _store(buf, value):
    """Write ``value`` into buffer ``buf`` in place (resizing it as torch's resize_ does)."""
    value = np.asarray(value, dtype=np.float32)
    if tuple(buf.shape) != value.shape:
        buf.resize_(value.shape)
    buf._array[...] = value
    buf._vc[0] += 1


class MinMaxObserver(UniformQuantizationObserverBase):
    """Tracks the running minimum and maximum of everything seen (per tensor).

    The parameters map ``[min(min_val, 0), max(max_val, 0)]`` onto ``[quant_min,
    quant_max]`` (affine), or ``[-m, m]`` with ``m = max(|min|, |max|)`` (symmetric).

    Example:
        >>> obs = torch.ao.quantization.MinMaxObserver()
        >>> _ = obs(torch.tensor([-1.0, 3.0]))
        >>> obs.calculate_qparams()
        (tensor([0.0157]), tensor([64], dtype=torch.int32))
    """

    def __init__(self, dtype=torch.quint8, qscheme=torch.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise NotImplementedError("MinMaxObserver's qscheme only support "
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine.")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))
        if self.qscheme is torch.per_tensor_symmetric and self.reduce_range and \
                self.dtype is torch.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for "
                                      "quint8")

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = _as_float(x_orig)
        lo, hi = x.min(), x.max()
        _store(self.min_val, np.minimum(lo, self.min_val._array))
        _store(self.max_val, np.maximum(hi, self.max_val._array))
        return x_orig

    def calculate_qparams(self):
        """``(scale, zero_point)`` for the range seen so far."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        """Forget the observed range."""
        _store(self.min_val, np.float32("inf"))
        _store(self.max_val, np.float32("-inf"))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """Like :class:`MinMaxObserver`, with min/max as exponential moving averages:
    ``min = min + c * (batch_min - min)`` (the first batch sets them)."""

    def __init__(self, averaging_constant=0.01, dtype=torch.quint8,
                 qscheme=torch.per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise NotImplementedError(f"MovingAverageMinMaxObserver's qscheme only support "
                                      f"torch.per_tensor_symmetric and torch.per_tensor_affine."
                                      f" but got: {qscheme}")
        self.averaging_constant = averaging_constant
        if is_dynamic and self.averaging_constant != 1:
            raise NotImplementedError(
                f"MovingAverageMinMaxObserver doesn't support dynamic quantization for "
                f"averaging constant of {self.averaging_constant}")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps,
                         is_dynamic=is_dynamic, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = _as_float(x_orig)
        lo, hi = x.min(), x.max()
        cur_lo, cur_hi = self.min_val._array, self.max_val._array
        if cur_lo == np.inf and cur_hi == -np.inf:
            new_lo, new_hi = lo, hi
        else:
            c = np.float32(self.averaging_constant)
            new_lo = cur_lo + c * (lo - cur_lo)
            new_hi = cur_hi + c * (hi - cur_hi)
        _store(self.min_val, new_lo)
        _store(self.max_val, new_hi)
        return x_orig


def _per_channel_extremes(x, axis):
    """(min, max) of float32 array ``x`` over every dim but ``axis``."""
    y = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
    return y.min(axis=1), y.max(axis=1)


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """Running min/max per slice along ``ch_axis`` (per-channel weight quantization).

    Args:
        ch_axis (int): the channel dim.
        (the others as for :class:`UniformQuantizationObserverBase`.)
    """

    def __init__(self, ch_axis=0, dtype=torch.quint8, qscheme=torch.per_channel_affine,
                 reduce_range=False, quant_min=None, quant_max=None, factory_kwargs=None,
                 eps=_EPS, is_dynamic=False, **kwargs):
        if not is_per_channel(qscheme):
            raise NotImplementedError("PerChannelMinMaxObserver's qscheme only support "
                                      "torch.per_channel_symmetric, torch.per_channel_affine "
                                      "and torch.per_channel_affine_float_qparams.")
        if is_dynamic:
            raise NotImplementedError("PerChannelMinMaxObserver doesn't support dynamic "
                                      "quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", torch.tensor([]))
        self.register_buffer("max_val", torch.tensor([]))
        if self.qscheme is torch.per_channel_symmetric and self.reduce_range and \
                self.dtype is torch.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for "
                                      "quint8")

    def forward(self, x_orig):
        return self._forward(x_orig)

    def _forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        lo, hi = _per_channel_extremes(_as_float(x_orig), self.ch_axis)
        if self.min_val.numel() and self.max_val.numel():
            lo = np.minimum(lo, self.min_val._array)
            hi = np.maximum(hi, self.max_val._array)
        _store(self.min_val, lo)
        _store(self.max_val, hi)
        return x_orig

    def calculate_qparams(self):
        """Per-channel ``(scales, zero_points)``."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # the buffers take whatever number of channels the checkpoint has
        for name in ("min_val", "max_val"):
            key = prefix + name
            if key in state_dict:
                val = state_dict[key]
                getattr(self, name).resize_(val.shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def reset_min_max_vals(self):
        """Forget the observed ranges."""
        self.min_val = torch.tensor([])
        self.max_val = torch.tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel min/max as exponential moving averages (see
    :class:`MovingAverageMinMaxObserver`)."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=torch.quint8,
                 qscheme=torch.per_channel_affine, reduce_range=False, quant_min=None,
                 quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        if not is_per_channel(qscheme):
            raise NotImplementedError("MovingAveragePerChannelMinMaxObserver's qscheme only "
                                      "support torch.per_channel_symmetric, "
                                      "torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        if is_dynamic:
            raise NotImplementedError("MovingAveragePerChannelMinMaxObserver doesn't support "
                                      "dynamic quantization")
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme,
                         reduce_range=reduce_range, quant_min=quant_min, quant_max=quant_max,
                         eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.averaging_constant = averaging_constant

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        lo, hi = _per_channel_extremes(_as_float(x_orig), self.ch_axis)
        if self.min_val.numel() and self.max_val.numel():
            c = np.float32(self.averaging_constant)
            lo = self.min_val._array + c * (lo - self.min_val._array)
            hi = self.max_val._array + c * (hi - self.max_val._array)
        _store(self.min_val, lo)
        _store(self.max_val, hi)
        return x_orig


class HistogramObserver(UniformQuantizationObserverBase):
    """Keeps a histogram of the values seen (``bins`` bins over the running min/max) and picks
    the clipping range that minimises the L2 quantization error before computing the
    parameters as :class:`MinMaxObserver` does.

    Args:
        bins (int): histogram bins (2048 by default).
        (the others as for :class:`UniformQuantizationObserverBase`.)
    """

    def __init__(self, bins=2048, dtype=torch.quint8, qscheme=torch.per_tensor_affine,
                 reduce_range=False, quant_min=None, quant_max=None, factory_kwargs=None,
                 eps=_EPS, is_dynamic=False, **kwargs):
        if not is_per_tensor(qscheme):
            raise NotImplementedError("HistogramObserver's qscheme only support "
                                      "torch.per_tensor_symmetric                     and "
                                      "torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max,
                         factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        self.bins = bins
        self.register_buffer("histogram", torch.zeros(self.bins))
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))
        self.dst_nbins = 2 ** torch.iinfo(self.dtype).bits if self.dtype._category >= 0 \
            else 2 ** self.dtype.np.bits
        self.upsample_rate = 16  # sub-bins per bin when re-binning onto a wider range

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = _as_float(x_orig).reshape(-1)
        lo, hi = x.min(), x.max()
        if lo == -np.inf or hi == np.inf:
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[np.abs(x) != np.inf]
            if x.size == 0:
                return x_orig
            lo, hi = x.min(), x.max()
        cur_lo, cur_hi = self.min_val._array[()], self.max_val._array[()]
        if cur_lo == np.inf or cur_hi == -np.inf:
            _store(self.min_val, lo)
            _store(self.max_val, hi)
            _store(self.histogram, _histogram.histc(x, self.bins, lo, hi))
            return x_orig
        new_lo, new_hi = min(cur_lo, lo), max(cur_hi, hi)
        update = _histogram.histc(x, self.bins, new_lo, new_hi)
        hist = self.histogram._array
        if new_lo == cur_lo and new_hi == cur_hi:
            combined = hist + update
        else:
            combined = _histogram.combine(hist, cur_lo, cur_hi, update, new_lo, new_hi,
                                          self.bins, self.upsample_rate)
        _store(self.histogram, combined)
        _store(self.min_val, new_lo)
        _store(self.max_val, new_hi)
        return x_orig

    def calculate_qparams(self):
        """``(scale, zero_point)`` for the L2-optimal clipping range of the histogram."""
        if self.min_val._array == np.inf and self.max_val._array == -np.inf:
            warnings.warn("must run observer before calling calculate_qparams.                "
                          "                    Returning default scale and zero point ",
                          stacklevel=2)
            return torch.tensor([1.0]), torch.tensor([0])
        if self.bins != len(self.histogram):
            raise AssertionError("The number of bins in histogram should be equal to the "
                                 "number of bins supplied while making this observer")
        lo, hi = _histogram.search_range(self.histogram._array, self.min_val._array[()],
                                         self.max_val._array[()], self.bins, self.dst_nbins)
        return self._calculate_qparams(torch.tensor(lo), torch.tensor(hi))

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "min_val"] = self.min_val
        destination[prefix + "max_val"] = self.max_val

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 3:
            for name, fill in (("min_val", float("inf")), ("max_val", float("-inf"))):
                key = prefix + name
                if key in state_dict and tuple(state_dict[key].shape) == (0,):
                    state_dict[key] = torch.tensor(fill)
        for name in ("min_val", "max_val"):
            key = prefix + name
            if key in state_dict:
                setattr(self, name, state_dict[key])
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


from ._simple_observers import (  # noqa: E402,F401
    FixedQParamsObserver, NoopObserver, PlaceholderObserver, RecordingObserver,
    ReuseInputObserver,
)


def get_observer_state_dict(mod):
    """The entries of ``mod.state_dict()`` that belong to observers
    (``activation_post_process`` submodules)."""
    full = mod.state_dict()
    od = OrderedDict((k, v) for k, v in full.items() if "activation_post_process" in k)
    od._metadata = full._metadata
    return od


def load_observer_state_dict(mod, obs_dict):
    """Load observer statistics saved by :func:`get_observer_state_dict` into ``mod``."""
    from .quantize import _is_activation_post_process

    missing, unexpected = [], []
    for name, module in mod.named_modules():
        if _is_activation_post_process(module):
            module._load_from_state_dict(obs_dict, name + ".", {}, False, missing, unexpected,
                                         [])
    for k in missing:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Missing keys for observer {k} in state_dict")  # noqa: TRY002
    for k in unexpected:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Unexpected keys for observer {k} in state_dict")  # noqa: TRY002


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = MinMaxObserver.with_args(dtype=torch.qint8,
                                                   qscheme=torch.per_tensor_symmetric)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=torch.qint8, qscheme=torch.per_tensor_symmetric, quant_min=-127, quant_max=127,
    eps=2 ** -12)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=torch.qint8, qscheme=torch.per_channel_symmetric, quant_min=-127, quant_max=127,
    eps=2 ** -12)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=torch.quint8, quant_min=0, quant_max=255, is_dynamic=True)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=torch.quint8, qscheme=torch.per_channel_affine_float_qparams, ch_axis=0)
default_float_qparams_observer_4bit = PerChannelMinMaxObserver.with_args(
    dtype=torch.quint4x2, qscheme=torch.per_channel_affine_float_qparams, ch_axis=0)
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype=torch.quint8, quant_min=0, quant_max=255)
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype=torch.quint8, quant_min=0, quant_max=255)
default_symmetric_fixed_qparams_observer = default_fixed_qparams_range_neg1to1_observer
default_affine_fixed_qparams_observer = default_fixed_qparams_range_0to1_observer
default_reuse_input_observer = ReuseInputObserver
