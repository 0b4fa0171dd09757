"""Helpers shared by the quantized modules: weight quantization from an observer, the repr
that hides packed parameters, and tuple expansion."""

import abc
import collections
import itertools

import numpy as np

import numtorch as torch
from numtorch.nn.modules.module import _addindent

__all__ = ["WeightedQuantizedModule"]


class WeightedQuantizedModule(torch.nn.Module, metaclass=abc.ABCMeta):
    """Quantized modules with weights, which can also be built from reference modules."""

    @classmethod
    @abc.abstractmethod
    def from_reference(cls, ref_module, output_scale, output_zero_point):
        raise NotImplementedError


def _get_weight_observer(observer):
    return getattr(observer, "activation_post_process", observer)


def _needs_weight_clamping(observer, dtype):
    observer = _get_weight_observer(observer)
    key = getattr(dtype, "np", None)
    if getattr(dtype, "name", None) in ("qint8", "quint8", "qint32"):
        return observer.quant_min > key.qmin or observer.quant_max < key.qmax
    return False


def _clamp_weights(qweight, observer, scale, zp):
    """``qweight`` with its integers clamped to the observer's narrower range."""
    if not _needs_weight_clamping(observer, qweight.dtype):
        return qweight
    observer = _get_weight_observer(observer)
    ints = qweight.int_repr().clamp(observer.quant_min, observer.quant_max)
    if observer.qscheme in (torch.per_tensor_symmetric, torch.per_tensor_affine):
        return torch._make_per_tensor_quantized_tensor(ints, scale.item(), zp.item())
    return torch._make_per_channel_quantized_tensor(ints, scale, zp, axis=observer.ch_axis)


def _quantize_weight(float_wt, observer):
    """``float_wt`` quantized with the parameters ``observer`` computed (per tensor, per
    channel or with float qparams), clamped to the observer's range."""
    wt_scale, wt_zp = observer.calculate_qparams()
    if observer.qscheme in (torch.per_tensor_symmetric, torch.per_tensor_affine):
        qweight = torch.quantize_per_tensor(float_wt, float(wt_scale), int(wt_zp), torch.qint8)
    elif observer.qscheme in (torch.per_channel_symmetric, torch.per_channel_affine):
        qweight = torch.quantize_per_channel(float_wt, wt_scale.to(torch.double),
                                             wt_zp.to(torch.int64), observer.ch_axis,
                                             torch.qint8)
    elif observer.qscheme == torch.per_channel_affine_float_qparams:
        qweight = torch.quantize_per_channel(float_wt, wt_scale.to(torch.float),
                                             wt_zp.to(torch.float), observer.ch_axis,
                                             observer.dtype)
    else:
        raise ValueError("Unexpected qscheme " + str(observer.qscheme))
    return _clamp_weights(qweight, observer, wt_scale, wt_zp)


def _quantize_and_dequantize_weight(weight, weight_qscheme, weight_dtype, weight_scale,
                                    weight_zero_point, weight_axis_int):
    """The float weight after a round trip through its quantized form."""
    if weight_qscheme == torch.per_tensor_affine:
        q = torch.quantize_per_tensor(weight, float(weight_scale), int(weight_zero_point),
                                      weight_dtype)
    else:
        q = torch.quantize_per_channel(weight, weight_scale, weight_zero_point,
                                       weight_axis_int, weight_dtype)
    return q.dequantize()


def _ntuple_from_first(n):
    """``parse(x)``: an n-tuple repeating the first element of ``x`` (or ``x``)."""
    def parse(x):
        while isinstance(x, collections.abc.Sequence):
            if len(x) == n:
                break
            x = x[0]
        return tuple(itertools.repeat(x, n))
    return parse


_pair_from_first = _ntuple_from_first(2)


def _hide_packed_params_repr(self, params):
    """The module repr without the child of type ``params`` (the packed weights)."""
    extra = self.extra_repr()
    extra_lines = extra.split("\n") if extra else []
    child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                   for key, module in self._modules.items() if not isinstance(module, params)]
    lines = extra_lines + child_lines
    main = self._get_name() + "("
    if lines:
        if len(extra_lines) == 1 and not child_lines:
            main += extra_lines[0]
        else:
            main += "\n  " + "\n  ".join(lines) + "\n"
    return main + ")"


def _float_bias(b):
    """A bias as a plain float32 tensor (or None)."""
    if b is None:
        return None
    return b.detach().float() if b.dtype is not torch.float32 or b.requires_grad else b


def _np(t):
    return np.asarray(t.detach()._array)
