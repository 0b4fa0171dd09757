"""``QConfigMapping``: which qconfig each part of a model gets (globally, by module type or
function, by module-name regex, by module name, or by name/type/occurrence)."""

from collections import OrderedDict

import numtorch as torch

from .fake_quantize import FixedQParamsFakeQuantize, default_weight_fake_quant
from .observer import (default_fixed_qparams_range_0to1_observer,
                       default_fixed_qparams_range_neg1to1_observer,
                       default_placeholder_observer, default_weight_observer)
from .qconfig import (QConfig, default_quint8_weight_qconfig, default_reuse_input_qconfig,
                      default_symmetric_qnnpack_qat_qconfig, default_symmetric_qnnpack_qconfig,
                      get_default_qat_qconfig, get_default_qconfig)

__all__ = ["get_default_qconfig_mapping", "get_default_qat_qconfig_mapping", "QConfigMapping"]

_GLOBAL_DICT_KEY = ""
_OBJECT_TYPE_DICT_KEY = "object_type"
_MODULE_NAME_REGEX_DICT_KEY = "module_name_regex"
_MODULE_NAME_DICT_KEY = "module_name"
_MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY = "module_name_object_type_order"
_QCONFIG_STYLE_ORDER = ["global_qconfig", "object_type_qconfigs", "module_name_regex_qconfigs",
                        "module_name_qconfigs", "module_name_object_type_order_qconfigs"]


def _fixed_qparams_ops():
    """Ops whose outputs have a fixed range, with the observer for that range."""
    nn, F = torch.nn, torch.nn.functional
    zero_one, neg_one_one = (default_fixed_qparams_range_0to1_observer,
                             default_fixed_qparams_range_neg1to1_observer)
    return {nn.Hardsigmoid: zero_one, F.hardsigmoid: zero_one, "hardsigmoid": zero_one,
            "hardsigmoid_": zero_one, nn.Sigmoid: zero_one, torch.sigmoid: zero_one,
            "sigmoid": zero_one, "sigmoid_": zero_one, nn.Softmax: zero_one,
            nn.Tanh: neg_one_one, torch.tanh: neg_one_one, "tanh": neg_one_one,
            "tanh_": neg_one_one}


class QConfigMapping:
    """From model parts to :class:`QConfig` s; later (more specific) styles win: global <
    object type < module-name regex < module name < (name, type, index).

    Each ``set_*`` method returns the mapping, so calls chain.
    """

    def __init__(self):
        self.global_qconfig = None
        self.object_type_qconfigs = OrderedDict()
        self.module_name_regex_qconfigs = OrderedDict()
        self.module_name_qconfigs = OrderedDict()
        self.module_name_object_type_order_qconfigs = OrderedDict()

    def set_global(self, global_qconfig):
        """The qconfig of everything not matched otherwise."""
        self.global_qconfig = global_qconfig
        return self

    def set_object_type(self, object_type, qconfig):
        """The qconfig of a module class, a function, or a method name."""
        self.object_type_qconfigs[object_type] = qconfig
        return self

    def set_module_name_regex(self, module_name_regex, qconfig):
        """The qconfig of modules whose names match (regexes tried in registration order)."""
        self.module_name_regex_qconfigs[module_name_regex] = qconfig
        return self

    def set_module_name(self, module_name, qconfig):
        """The qconfig of the module at this path."""
        self.module_name_qconfigs[module_name] = qconfig
        return self

    def set_module_name_object_type_order(self, module_name, object_type, index, qconfig):
        """The qconfig of the ``index``-th call of ``object_type`` inside ``module_name``."""
        self.module_name_object_type_order_qconfigs[(module_name, object_type, index)] = qconfig
        return self

    def __repr__(self):
        out = self.__class__.__name__ + " ("
        for style in _QCONFIG_STYLE_ORDER:
            out += f"\n {style}"
            qconfigs = getattr(self, style)
            if isinstance(qconfigs, OrderedDict) and qconfigs:
                for key, qconfig in qconfigs.items():
                    out += f"\n  {key}: {qconfig}"
            else:
                out += f"\n  {qconfigs}"
        return out + "\n)"

    def to_dict(self):
        """The dictionary form (keys ``""``, ``"object_type"``, ``"module_name_regex"``,
        ``"module_name"``, ``"module_name_object_type_order"``; values lists of tuples)."""
        return {
            _GLOBAL_DICT_KEY: self.global_qconfig,
            _OBJECT_TYPE_DICT_KEY: list(self.object_type_qconfigs.items()),
            _MODULE_NAME_REGEX_DICT_KEY: list(self.module_name_regex_qconfigs.items()),
            _MODULE_NAME_DICT_KEY: list(self.module_name_qconfigs.items()),
            _MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY: [
                (*k, v) for k, v in self.module_name_object_type_order_qconfigs.items()],
        }

    @classmethod
    def from_dict(cls, qconfig_dict):
        """A mapping from :meth:`to_dict`'s form (every key optional)."""
        conf = cls()
        if _GLOBAL_DICT_KEY in qconfig_dict:
            conf.set_global(qconfig_dict[_GLOBAL_DICT_KEY])
        for object_type, qconfig in qconfig_dict.get(_OBJECT_TYPE_DICT_KEY, []):
            conf.set_object_type(object_type, qconfig)
        for regex, qconfig in qconfig_dict.get(_MODULE_NAME_REGEX_DICT_KEY, []):
            conf.set_module_name_regex(regex, qconfig)
        for name, qconfig in qconfig_dict.get(_MODULE_NAME_DICT_KEY, []):
            conf.set_module_name(name, qconfig)
        for name, object_type, index, qconfig in qconfig_dict.get(
                _MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY, []):
            conf.set_module_name_object_type_order(name, object_type, index, qconfig)
        return conf


def _get_default_qconfig_mapping(is_qat, backend, version):
    qconfig = get_default_qat_qconfig(backend, version) if is_qat else \
        get_default_qconfig(backend, version)
    default_weight = default_weight_fake_quant if is_qat else default_weight_observer
    transpose = QConfig(activation=qconfig.activation, weight=default_weight) \
        if backend in ("fbgemm", "x86") else qconfig
    layernorm = QConfig(activation=qconfig.activation, weight=default_placeholder_observer)
    nn, F = torch.nn, torch.nn.functional
    mapping = (QConfigMapping().set_global(qconfig)
               .set_object_type("reshape", default_reuse_input_qconfig)
               .set_object_type(nn.ConvTranspose1d, transpose)
               .set_object_type(nn.ConvTranspose2d, transpose)
               .set_object_type(nn.ConvTranspose3d, transpose)
               .set_object_type(F.conv_transpose1d, transpose)
               .set_object_type(F.conv_transpose2d, transpose)
               .set_object_type(F.conv_transpose3d, transpose)
               .set_object_type(F.layer_norm, layernorm)
               .set_object_type(nn.LayerNorm, layernorm)
               .set_object_type(nn.PReLU, default_quint8_weight_qconfig))
    by_observer = {}
    for op, observer in _fixed_qparams_ops().items():
        if observer not in by_observer:
            act = FixedQParamsFakeQuantize.with_args(observer=observer) if is_qat else observer
            by_observer[observer] = QConfig(activation=act, weight=default_weight)
        mapping.set_object_type(op, by_observer[observer])
    return mapping


def get_default_qconfig_mapping(backend="x86", version=0):
    """The default mapping for post-training quantization on ``backend``."""
    return _get_default_qconfig_mapping(False, backend, version)


def get_default_qat_qconfig_mapping(backend="x86", version=1):
    """The default mapping for quantization-aware training on ``backend``."""
    return _get_default_qconfig_mapping(True, backend, version)


def _get_default_qconfig_mapping_with_default_qconfig(is_qat, backend, default_qconfig):
    mapping = get_default_qat_qconfig_mapping(backend) if is_qat else \
        get_default_qconfig_mapping(backend)
    mapping.set_global(default_qconfig)
    fixed = _fixed_qparams_ops()
    for pattern in list(mapping.object_type_qconfigs):
        if pattern not in fixed:
            mapping.set_object_type(pattern, default_qconfig)
    return mapping


def _get_symmetric_qnnpack_qconfig_mapping():
    return _get_default_qconfig_mapping_with_default_qconfig(False, "qnnpack",
                                                             default_symmetric_qnnpack_qconfig)


def _get_symmetric_qnnpack_qat_qconfig_mapping():
    return _get_default_qconfig_mapping_with_default_qconfig(
        True, "qnnpack", default_symmetric_qnnpack_qat_qconfig)
