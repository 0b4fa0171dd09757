"""``QConfig``: which observer (or fake quantize) constructors a layer's activations and weights
get, and the default configurations for each backend (x86/fbgemm, qnnpack, onednn)."""

import copy
import warnings
from collections import namedtuple

import numtorch as torch
from numtorch import nn

from .fake_quantize import (FakeQuantize, FakeQuantizeBase, FusedMovingAvgObsFakeQuantize,
                            default_dynamic_fake_quant, default_embedding_fake_quant,
                            default_embedding_fake_quant_4bit, default_fake_quant,
                            default_fused_act_fake_quant,
                            default_fused_per_channel_wt_fake_quant,
                            default_fused_wt_fake_quant, default_per_channel_weight_fake_quant,
                            default_weight_fake_quant,
                            fused_per_channel_wt_fake_quant_range_neg_127_to_127,
                            fused_wt_fake_quant_range_neg_127_to_127)
from .observer import (HistogramObserver, MinMaxObserver, MovingAverageMinMaxObserver,
                       NoopObserver, PlaceholderObserver, ReuseInputObserver, _PartialWrapper,
                       default_debug_observer, default_dynamic_quant_observer,
                       default_float_qparams_observer, default_float_qparams_observer_4bit,
                       default_observer, default_per_channel_weight_observer,
                       default_placeholder_observer, default_reuse_input_observer,
                       default_weight_observer,
                       per_channel_weight_observer_range_neg_127_to_127,
                       weight_observer_range_neg_127_to_127)

__all__ = ["QConfig", "QConfigDynamic", "default_qconfig", "default_debug_qconfig",
           "default_per_channel_qconfig", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "float16_static_qconfig", "per_channel_dynamic_qconfig",
           "float_qparams_weight_only_qconfig", "float_qparams_weight_only_qconfig_4bit",
           "default_quint8_weight_qconfig", "default_qat_qconfig",
           "default_dynamic_qat_qconfig", "default_weight_only_qconfig",
           "default_activation_only_qconfig", "default_qat_qconfig_v2",
           "default_reuse_input_qconfig", "default_symmetric_qnnpack_qconfig",
           "default_per_channel_symmetric_qnnpack_qconfig",
           "default_symmetric_qnnpack_qat_qconfig",
           "default_per_channel_symmetric_qnnpack_qat_qconfig", "default_embedding_qat_qconfig",
           "default_embedding_qat_qconfig_4bit", "get_default_qconfig",
           "get_default_qat_qconfig", "get_default_qconfig_dict",
           "get_default_qat_qconfig_dict", "QConfigAny", "qconfig_equals"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """A pair of observer constructors: ``activation`` and ``weight``. They must be classes or
    ``with_args`` constructors (prepare makes one observer per layer), not instances.

    Example:
        >>> qc = torch.ao.quantization.QConfig(
        ...     activation=torch.ao.quantization.MinMaxObserver.with_args(dtype=torch.quint8),
        ...     weight=torch.ao.quantization.default_weight_observer)
    """

    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, nn.Module) or isinstance(weight, nn.Module):
            raise ValueError("QConfig received observer instance, please pass observer class "
                             "instead. Use MyObserver.with_args(x=1) to override arguments to "
                             "constructor if needed")
        return super().__new__(cls, activation, weight)


class QConfigDynamic(namedtuple("QConfigDynamic", ["activation", "weight"])):
    """The dynamic-quantization form of :class:`QConfig` (deprecated by torch: use QConfig).
    """

    __slots__ = ()

    def __new__(cls, activation=nn.Identity, weight=nn.Identity):
        warnings.warn("`QConfigDynamic` is going to be deprecated in PyTorch 1.12, please use "
                      "`QConfig` instead", FutureWarning, stacklevel=2)
        if isinstance(weight, nn.Module):
            raise ValueError("QConfigDynamic received observer instance, please pass observer "
                             "class instead. Use MyObserver.with_args(x=1) to override "
                             "arguments to constructor if needed")
        return super().__new__(cls, activation, weight)


QConfigAny = QConfig  # (torch: QConfig | None)

default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_debug_qconfig = QConfig(weight=default_weight_observer,
                                activation=default_debug_observer)
default_per_channel_qconfig = QConfig(activation=default_observer,
                                      weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                  weight=default_weight_observer)
float16_dynamic_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=torch.float16, is_dynamic=True),
    weight=PlaceholderObserver.with_args(dtype=torch.float16))
float16_static_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=torch.float16),
                                 weight=PlaceholderObserver.with_args(dtype=torch.float16))
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)
float_qparams_weight_only_qconfig = QConfig(activation=default_placeholder_observer,
                                            weight=default_float_qparams_observer)
float_qparams_weight_only_qconfig_4bit = QConfig(activation=default_placeholder_observer,
                                                 weight=default_float_qparams_observer_4bit)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_dynamic_qat_qconfig = QConfig(activation=default_dynamic_fake_quant,
                                      weight=default_weight_fake_quant)
default_weight_only_qconfig = QConfig(activation=nn.Identity, weight=default_weight_fake_quant)
default_activation_only_qconfig = QConfig(activation=default_fake_quant, weight=nn.Identity)
default_qat_qconfig_v2 = QConfig(activation=default_fused_act_fake_quant,
                                 weight=default_fused_wt_fake_quant)
default_reuse_input_qconfig = QConfig(activation=default_reuse_input_observer,
                                      weight=NoopObserver)
default_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=torch.qint8, reduce_range=False,
                                           eps=2 ** -12),
    weight=weight_observer_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=torch.qint8, reduce_range=False,
                                           eps=2 ** -12),
    weight=per_channel_weight_observer_range_neg_127_to_127)
default_embedding_qat_qconfig = QConfig(activation=NoopObserver.with_args(dtype=torch.float32),
                                        weight=default_embedding_fake_quant)
default_embedding_qat_qconfig_4bit = QConfig(
    activation=NoopObserver.with_args(dtype=torch.float32),
    weight=default_embedding_fake_quant_4bit)
default_quint8_weight_qconfig = QConfig(activation=HistogramObserver, weight=MinMaxObserver)
default_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(
        observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
        reduce_range=False, eps=2 ** -12),
    weight=fused_wt_fake_quant_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(
        observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=torch.qint8,
        reduce_range=False, eps=2 ** -12),
    weight=fused_per_channel_wt_fake_quant_range_neg_127_to_127)
_default_fp32_placeholder_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=torch.float32),
    weight=PlaceholderObserver.with_args(dtype=torch.float32))
_default_quint8_placeholder_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=torch.quint8), weight=None)

_BACKENDS = ["fbgemm", "x86", "qnnpack", "onednn"]


def _check_backend(backend):
    if backend not in _BACKENDS:
        raise AssertionError("backend: " + str(backend)
                             + f" not supported. backend must be one of {_BACKENDS}")


def get_default_qconfig(backend="x86", version=0):
    """The post-training (static) qconfig for ``backend``: a histogram activation observer
    (with ``reduce_range`` on x86/fbgemm) and per-channel symmetric weights (per-tensor on
    qnnpack).

    Example:
        >>> torch.ao.quantization.get_default_qconfig("fbgemm").weight
        functools.partial(<class 'torch.ao.quantization.observer.PerChannelMinMaxObserver'>, ...
    """
    _check_backend(backend)
    if version != 0:
        raise AssertionError("Version number: " + str(version)
                             + " in get_default_qconfig is not supported. Version number must "
                               "be 0")
    if backend == "qnnpack":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                       weight=default_weight_observer)
    if backend == "onednn":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                       weight=default_per_channel_weight_observer)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                   weight=default_per_channel_weight_observer)


def get_default_qat_qconfig(backend="x86", version=1):
    """The quantization-aware-training qconfig for ``backend``: moving-average fake quantize
    for activations (fused in version 1) and weights."""
    _check_backend(backend)
    if version not in (0, 1):
        raise AssertionError("Version number: " + str(version)
                             + "in get_default_qat_qconfig is not supported. Version number "
                               "must be 0 or 1")
    fq = FakeQuantize if version == 0 else FusedMovingAvgObsFakeQuantize
    kwargs = dict(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
    if backend in ("fbgemm", "x86"):
        kwargs["reduce_range"] = True
    elif backend == "qnnpack":
        kwargs["reduce_range"] = False
    if version == 0:
        weight = default_weight_fake_quant if backend == "qnnpack" else \
            default_per_channel_weight_fake_quant
    else:
        weight = default_fused_wt_fake_quant if backend == "qnnpack" else \
            default_fused_per_channel_wt_fake_quant
    return QConfig(activation=fq.with_args(**kwargs), weight=weight)


def get_default_qconfig_dict(backend="x86", version=0):
    """Deprecated: ``get_default_qconfig_mapping(backend, version).to_dict()``."""
    warnings.warn("`torch.ao.quantization.get_default_qconfig_dict` is deprecated and will be "
                  "removed in a future version. Please use `torch.ao.quantization."
                  "get_default_qconfig_mapping` instead.", FutureWarning, stacklevel=2)
    from .qconfig_mapping import get_default_qconfig_mapping

    return get_default_qconfig_mapping(backend, version).to_dict()


def get_default_qat_qconfig_dict(backend="x86", version=1):
    """Deprecated: ``get_default_qat_qconfig_mapping(backend, version).to_dict()``."""
    warnings.warn("`torch.ao.quantization.get_default_qat_qconfig_dict` is deprecated and will "
                  "be removed in a future version. Please use `torch.ao.quantization."
                  "get_default_qat_qconfig_mapping` instead.", FutureWarning, stacklevel=2)
    from .qconfig_mapping import get_default_qat_qconfig_mapping

    return get_default_qat_qconfig_mapping(backend, version).to_dict()


def _assert_valid_qconfig(qconfig, mod):
    """Per-channel weight observers are refused for transposed convolutions."""
    if qconfig is None or qconfig.weight is None:
        return
    if isinstance(mod, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
        from .observer import MovingAveragePerChannelMinMaxObserver, PerChannelMinMaxObserver

        if isinstance(qconfig.weight(), (PerChannelMinMaxObserver,
                                         MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Per channel weight observer is not supported yet for "
                                 "ConvTranspose{n}d.")


def _add_module_to_qconfig_obs_ctr(qconfig, module):
    """``qconfig`` itself: numtorch's observers are created on the CPU like their modules.

    torch tries each constructor once with a ``factory_kwargs`` argument here (to place the
    observers on the module's device), so each module given a qconfig builds one activation
    and one weight observer; built here too, so that their construction warnings
    (``reduce_range``...) and errors come as often and as early as in torch."""
    if module is None or qconfig is None:
        return qconfig
    for ctr in (getattr(qconfig, "activation", None), getattr(qconfig, "weight", None)):
        try:
            ctr.with_args(factory_kwargs=None)()
        except (AttributeError, TypeError):  # no with_args / no factory_kwargs argument
            pass
    return qconfig


def _obs_or_fq_ctr_equals(a, b):
    if isinstance(a, _PartialWrapper) and isinstance(b, _PartialWrapper):
        return _partial_wrapper_equals(a, b)
    return a == b


def _partial_wrapper_equals(a, b):
    ka, kb = copy.copy(a.p.keywords), copy.copy(b.p.keywords)
    same = True
    if "observer" in ka and "observer" in kb:
        same = _obs_or_fq_ctr_equals(ka.pop("observer"), kb.pop("observer"))
    return a.p.func == b.p.func and a.p.args == b.p.args and same and ka == kb


def qconfig_equals(q1, q2):
    """Whether two qconfigs build the same observers (``with_args`` constructors compared by
    class and arguments)."""
    if q1 is None or q2 is None:
        return q1 == q2
    try:
        return _obs_or_fq_ctr_equals(q1.activation, q2.activation) and \
            _obs_or_fq_ctr_equals(q1.weight, q2.weight)
    except AttributeError:
        return q1 == q2


def _activation_is_memoryless(qconfig):
    """Whether the activation observer keeps no history (averaging constant 1)."""
    act = qconfig.activation()
    if isinstance(act, FakeQuantizeBase) and hasattr(act, "activation_post_process"):
        act = act.activation_post_process
    return getattr(act, "averaging_constant", None) == 1


def _is_reuse_input_qconfig(qconfig):
    return qconfig is not None and isinstance(qconfig.activation(), ReuseInputObserver) and \
        isinstance(qconfig.weight(), NoopObserver)
