"""Eager-mode quantization: propagate qconfigs, attach observers (``prepare``), calibrate,
and swap float modules for quantized ones (``convert``); the one-call forms ``quantize``,
``quantize_dynamic`` and ``quantize_qat``."""

import copy
import inspect
import itertools
import warnings

import numtorch as torch
from numtorch import nn
from numtorch.ao.nn import quantized as nnq
from numtorch.ao.nn.intrinsic import _FusedModule
from numtorch.nn.utils.parametrize import type_before_parametrizations

from .fake_quantize import FakeQuantizeBase
from .observer import ObserverBase
from .qconfig import (_activation_is_memoryless, _add_module_to_qconfig_obs_ctr,
                      _assert_valid_qconfig, default_dynamic_qconfig, float16_dynamic_qconfig,
                      float_qparams_weight_only_qconfig,
                      float_qparams_weight_only_qconfig_4bit)
from .quantization_mappings import (_get_special_act_post_process,
                                    _has_special_act_post_process,
                                    get_default_dynamic_quant_module_mappings,
                                    get_default_qat_module_mappings,
                                    get_default_qconfig_propagation_list,
                                    get_default_static_quant_module_mappings,
                                    get_default_static_quant_reference_module_mappings,
                                    no_observer_set)
from .stubs import DeQuantStub, QuantWrapper
from .utils import DEPRECATION_WARNING, get_qparam_dict, has_no_children_ignoring_parametrizations

__all__ = ["get_default_custom_config_dict", "propagate_qconfig_", "add_quant_dequant",
           "prepare", "quantize", "quantize_dynamic", "prepare_qat", "quantize_qat", "convert",
           "swap_module", "default_eval_fn"]


def _deprecated():
    """torch's deprecation warning of an eager/FX entry point, attributed to its caller: an
    entry point that calls others (quantize -> prepare, convert) warns once more for each,
    from inside the library, as torch does (hidden by the default filters)."""
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=3)


def _is_activation_post_process(module):
    """Whether ``module`` is an observer or fake quantizer."""
    return isinstance(module, (ObserverBase, FakeQuantizeBase))


is_activation_post_process = _is_activation_post_process

# torch maps LSTM and MultiheadAttention to its "quantizable" observed versions here; numtorch
# has none, so custom modules are only those the caller names
_DEFAULT_CUSTOM_CONFIG_DICT = {"float_to_observed_custom_module_class": {},
                               "observed_to_quantized_custom_module_class": {}}


def get_default_custom_config_dict():
    """The default custom-module configuration of prepare/convert."""
    return _DEFAULT_CUSTOM_CONFIG_DICT


def default_eval_fn(model, calib_data):
    """Run ``model`` on each ``(data, target)`` of ``calib_data`` (a calibration loop)."""
    for data, _target in calib_data:
        model(data)


def _propagate_qconfig_helper(module, qconfig_dict, qconfig_parent=None, prefix="",
                              prepare_custom_config_dict=None):
    qconfig = qconfig_dict.get(type_before_parametrizations(module), qconfig_parent)
    qconfig = qconfig_dict.get(prefix, qconfig)
    qconfig = getattr(module, "qconfig", qconfig)
    _assert_valid_qconfig(qconfig, module)
    qconfig = _add_module_to_qconfig_obs_ctr(qconfig, module)
    module.qconfig = qconfig
    for name, child in module.named_children():
        child_prefix = prefix + "." + name if prefix else name
        skip = prepare_custom_config_dict is not None and (
            name in prepare_custom_config_dict.get("non_traceable_module_name", [])
            or type(child) in prepare_custom_config_dict.get("non_traceable_module_class", []))
        if not skip:
            _propagate_qconfig_helper(child, qconfig_dict, qconfig, child_prefix)


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Give every submodule a ``qconfig`` attribute: its own if set, else the one
    ``qconfig_dict`` assigns to its type or path, else its parent's (in place)."""
    _propagate_qconfig_helper(module, qconfig_dict or {},
                              prepare_custom_config_dict=prepare_custom_config_dict or {})


def _observer_forward_hook(self, input, output):
    return self.activation_post_process(output)


def _observer_forward_pre_hook(self, input):
    return self.activation_post_process(input[0])


def _register_activation_post_process_hook(module, pre_hook=False):
    if not hasattr(module, "activation_post_process"):
        raise AssertionError("Expect activation_post_process attribute already attached to "
                             "the module")
    if pre_hook:
        module.register_forward_pre_hook(_observer_forward_pre_hook, prepend=True)
    else:
        module.register_forward_hook(_observer_forward_hook, prepend=True)


def _add_observer_(module, qconfig_propagation_list=None, non_leaf_module_list=None,
                   device=None, custom_module_class_mapping=None):
    """Attach an ``activation_post_process`` observer (and its hook) to every leaf module
    with a qconfig whose type is in ``qconfig_propagation_list``."""
    if qconfig_propagation_list is None:
        qconfig_propagation_list = get_default_qconfig_propagation_list()
    custom_module_class_mapping = custom_module_class_mapping or {}

    def make_observer(qconfig, special=None):
        return qconfig.activation() if special is None else special()

    def needs_observation(m):
        return hasattr(m, "qconfig") and m.qconfig is not None

    def insert(m, special=None):
        if needs_observation(m) and not isinstance(m, DeQuantStub):
            m.add_module("activation_post_process", make_observer(m.qconfig, special))
            _register_activation_post_process_hook(
                m, pre_hook=_activation_is_memoryless(m.qconfig))

    for name, child in module.named_children():
        child_type = type_before_parametrizations(child)
        if child_type is nn.Dropout:
            continue
        if issubclass(child_type, (nnq.FloatFunctional, nnq.QFunctional)):
            if needs_observation(child):
                if not hasattr(child, "activation_post_process"):
                    raise AssertionError(f"functional class {child_type} has no pre-defined "
                                         f"`activation_post_process`")
                child.activation_post_process = make_observer(child.qconfig)
        elif isinstance(child, _FusedModule):
            if needs_observation(child):
                insert(child)
        elif non_leaf_module_list is not None and child_type in non_leaf_module_list:
            if needs_observation(child):
                insert(child)
        elif _has_special_act_post_process(child):
            insert(child, _get_special_act_post_process(child))
        elif needs_observation(child) and child_type in custom_module_class_mapping:
            observed = custom_module_class_mapping[child_type].from_float(child)
            setattr(module, name, observed)
            if not issubclass(custom_module_class_mapping[child_type],
                              tuple(no_observer_set())):
                insert(observed)
        else:
            _add_observer_(child, qconfig_propagation_list, non_leaf_module_list, device,
                           custom_module_class_mapping)
    module_type = type_before_parametrizations(module)
    if has_no_children_ignoring_parametrizations(module) and \
            not isinstance(module, nn.Sequential) and module_type in qconfig_propagation_list:
        insert(module)
    if hasattr(module, "weight_fake_quant") and not isinstance(module, nn.Sequential) and \
            module_type in qconfig_propagation_list:
        insert(module)


def add_quant_dequant(module):
    """Wrap every leaf module that has a qconfig in a :class:`QuantWrapper`."""
    if has_no_children_ignoring_parametrizations(module) and \
            getattr(module, "qconfig", None):
        return QuantWrapper(module)
    for name, child in module.named_children():
        module._modules[name] = add_quant_dequant(child)
    return module


def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    """Propagate qconfigs and attach observers, ready for calibration.

    Args:
        model: the float model (with ``qconfig`` set on it or its submodules).
        inplace (bool): modify ``model`` instead of a deep copy.
        allow_list: module types that get observers (default: every quantizable type).
        observer_non_leaf_module_list: non-leaf module types observed as a whole.
        prepare_custom_config_dict: custom float -> observed module classes.

    Returns:
        The prepared model.
    """
    _deprecated()
    if prepare_custom_config_dict is None:
        prepare_custom_config_dict = get_default_custom_config_dict()
    custom = prepare_custom_config_dict.get("float_to_observed_custom_module_class", {})
    if not inplace:
        model = copy.deepcopy(model)
    propagation = allow_list if allow_list is not None else \
        get_default_qconfig_propagation_list()
    propagate_qconfig_(model, qconfig_dict=None)
    if not any(getattr(m, "qconfig", None) for m in model.modules()):
        warnings.warn("None of the submodule got qconfig applied. Make sure you passed correct "
                      "configuration through `qconfig_dict` or by assigning the `.qconfig` "
                      "attribute directly on submodules", stacklevel=2)
    _add_observer_(model, propagation, observer_non_leaf_module_list,
                   custom_module_class_mapping=custom)
    return model


def _remove_activation_post_process(module):
    if hasattr(module, "activation_post_process") and \
            _is_activation_post_process(module.activation_post_process):
        delattr(module, "activation_post_process")
    for hooks, fn in ((module._forward_pre_hooks, _observer_forward_pre_hook),
                      (module._forward_hooks, _observer_forward_hook)):
        for handle in [h for h, hook in hooks.items() if hook is fn]:
            hooks.pop(handle)


def _remove_qconfig(module):
    for child in module.children():
        _remove_qconfig(child)
    if hasattr(module, "qconfig"):
        del module.qconfig
    _remove_activation_post_process(module)


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    """Post-training static quantization in one call: prepare, ``run_fn(model, *run_args)``
    to calibrate, convert."""
    _deprecated()
    mapping = get_default_static_quant_module_mappings() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


_DYNAMIC_TYPES = (nn.Linear, nn.LSTM, nn.GRU, nn.LSTMCell, nn.RNNCell, nn.GRUCell)


def quantize_dynamic(model, qconfig_spec=None, dtype=torch.qint8, mapping=None,
                     inplace=False):
    """Dynamic quantization: quantize the weights of Linear and recurrent layers (or the
    module types / names in ``qconfig_spec``); activations are quantized on the fly.

    Args:
        model: the float model.
        qconfig_spec: ``{type or name: qconfig}``, or a set of types/names given the default
            qconfig of ``dtype``; default: Linear, LSTM, GRU and the cells.
        dtype: ``qint8`` (default), ``float16``, ``quint8``/``quint4x2`` (embeddings).
        mapping: float -> dynamic module classes.
        inplace (bool): modify ``model`` instead of a deep copy.

    Example:
        >>> qm = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(
        ...     torch.nn.Linear(4, 2)), {torch.nn.Linear}, dtype=torch.qint8)
    """
    _deprecated()
    defaults = {torch.qint8: default_dynamic_qconfig, torch.float16: float16_dynamic_qconfig,
                torch.quint8: float_qparams_weight_only_qconfig,
                torch.quint4x2: float_qparams_weight_only_qconfig_4bit}
    if qconfig_spec is None:
        if dtype is torch.qint8 or dtype is torch.float16:
            qconfig_spec = dict.fromkeys(_DYNAMIC_TYPES, defaults[dtype])
        elif dtype is torch.quint8:
            qconfig_spec = {nn.EmbeddingBag: defaults[dtype], nn.Embedding: defaults[dtype]}
        elif dtype is torch.quint4x2:
            qconfig_spec = {nn.EmbeddingBag: defaults[dtype]}
        else:
            raise ValueError(f"Don't know how to quantize with default settings for {dtype}. "
                             f"Provide full qconfig please")
    elif isinstance(qconfig_spec, set):
        if dtype not in defaults:
            raise RuntimeError("Unknown dtype specified for quantize_dynamic: ", str(dtype))
        qconfig_spec = dict(zip(qconfig_spec, itertools.repeat(defaults[dtype])))
    mapping = get_default_dynamic_quant_module_mappings() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping, inplace=True)
    return model


def prepare_qat(model, mapping=None, inplace=False):
    """Prepare for quantization-aware training: swap layers for their QAT versions (fake
    quantized weights) and attach fake-quantize observers to activations."""
    _deprecated()
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    mapping = get_default_qat_module_mappings() if mapping is None else mapping
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_dict=None)
    convert(model, mapping=mapping, inplace=True, remove_qconfig=False)
    prepare(model, observer_non_leaf_module_list=set(mapping.values()), inplace=True)
    return model


def quantize_qat(model, run_fn, run_args, inplace=False):
    """Quantization-aware training in one call: prepare_qat, ``run_fn`` (training), convert.
    """
    _deprecated()
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, inplace=True)
    return model


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """Swap every module with a qconfig for its quantized class (``mapping``; the static one
    by default), using the parameters its observers collected; then drop qconfigs and
    observers (unless ``remove_qconfig=False``)."""
    _deprecated()
    if not inplace:
        module = copy.deepcopy(module)
    _convert(module, mapping, inplace=True, is_reference=is_reference,
             convert_custom_config_dict=convert_custom_config_dict,
             use_precomputed_fake_quant=use_precomputed_fake_quant)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def _convert(module, mapping=None, inplace=False, is_reference=False,
             convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    if mapping is None:
        mapping = get_default_static_quant_reference_module_mappings() if is_reference else \
            get_default_static_quant_module_mappings()
    if convert_custom_config_dict is None:
        convert_custom_config_dict = get_default_custom_config_dict()
    custom = convert_custom_config_dict.get("observed_to_quantized_custom_module_class", {})
    if not inplace:
        module = copy.deepcopy(module)
    reassign = {}
    for name, mod in module.named_children():
        if not isinstance(mod, _FusedModule) and \
                type_before_parametrizations(mod) not in custom:
            _convert(mod, mapping, True, is_reference, convert_custom_config_dict,
                     use_precomputed_fake_quant=use_precomputed_fake_quant)
        reassign[name] = swap_module(mod, mapping, custom, use_precomputed_fake_quant)
    for key, value in reassign.items():
        module._modules[key] = value
    return module


def swap_module(mod, mapping, custom_module_class_mapping, use_precomputed_fake_quant=False):
    """``mod`` converted to its quantized class if it has a qconfig and a mapping entry
    (hooks other than the observer's move along), else ``mod`` itself."""
    new_mod = mod
    if getattr(mod, "qconfig", None) is None:
        return new_mod
    mod_type = type_before_parametrizations(mod)
    swapped = False
    if mod_type in custom_module_class_mapping:
        new_mod = custom_module_class_mapping[mod_type].from_observed(mod)
        swapped = True
    elif mod_type in mapping:
        qmod = mapping[mod_type]
        if getattr(qmod, "_IS_REFERENCE", False):
            weight_post_process = mod.qconfig.weight()
            weight_post_process(mod.weight)
            new_mod = qmod.from_float(mod, get_qparam_dict(weight_post_process))
        elif "use_precomputed_fake_quant" in inspect.signature(qmod.from_float).parameters:
            new_mod = qmod.from_float(mod, use_precomputed_fake_quant=use_precomputed_fake_quant)
        else:
            new_mod = qmod.from_float(mod)
        swapped = True
    if swapped:
        for hook in mod._forward_pre_hooks.values():
            new_mod.register_forward_pre_hook(hook)
        for hook in mod._forward_hooks.values():
            if hook is not _observer_forward_hook:
                new_mod.register_forward_hook(hook)
    return new_mod


def _get_observer_dict(mod, target_dict, prefix=""):
    """Collect ``{path.activation_post_process: observer}`` of ``mod`` into ``target_dict``.
    """
    def join(p):
        return p if p == "" else p + "."

    if hasattr(mod, "activation_post_process"):
        target_dict[join(prefix) + "activation_post_process"] = mod.activation_post_process
    for name, child in mod.named_children():
        _get_observer_dict(child, target_dict, join(prefix) + name if prefix else name)
