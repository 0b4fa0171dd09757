"""Helpers of the quantization workflow: qscheme and qconfig predicates, integer ranges and
module-path utilities (torch's ``torch.ao.quantization.utils``)."""

import functools
import warnings

import numtorch as torch

from ._qparams import qmin_qmax
from .quant_type import QuantType

__all__ = ["NodePattern", "Pattern", "MatchAllNode", "check_node", "get_combined_dict",
           "is_per_tensor", "is_per_channel", "getattr_from_fqn", "get_qparam_dict",
           "get_swapped_custom_module_class", "activation_dtype", "weight_dtype",
           "activation_is_statically_quantized", "activation_is_dynamically_quantized",
           "activation_is_int8_quantized", "activation_is_int32_quantized",
           "weight_is_quantized", "weight_is_statically_quantized",
           "op_is_int8_dynamically_quantized", "get_qconfig_dtypes", "get_quant_type",
           "check_min_max_valid", "calculate_qmin_qmax",
           "has_no_children_ignoring_parametrizations", "get_fqn_to_example_inputs",
           "to_underlying_dtype", "determine_qparams", "validate_qmin_qmax",
           "DEPRECATION_WARNING"]

NodePattern = tuple
Pattern = tuple
DEPRECATION_WARNING = ("torch.ao.quantization is deprecated and will be removed in 2.10. \n"
                       "For migrations of users: \n1. Eager mode quantization "
                       "(torch.ao.quantization.quantize, torch.ao.quantization.quantize_dynamic"
                       "), please migrate to use torchao eager mode quantize_ API instead \n"
                       "2. FX graph mode quantization (torch.ao.quantization.quantize_fx."
                       "prepare_fx,torch.ao.quantization.quantize_fx.convert_fx, please "
                       "migrate to use torchao pt2e quantization API instead (prepare_pt2e, "
                       "convert_pt2e) \n3. pt2e quantization has been migrated to torchao "
                       "(https://github.com/pytorch/ao/tree/main/torchao/quantization/pt2e) \n"
                       "see https://github.com/pytorch/ao/issues/2259 for more details")


class MatchAllNode:
    """A pattern element matching any node (graph-mode pattern matching)."""


def check_node(node, modules):
    """``(is_call_function, is_call_method, is_call_module)`` for an FX-style node (only
    module calls can occur in numtorch, which has no FX graphs)."""
    op = getattr(node, "op", None)
    target = getattr(node, "target", None)
    return op == "call_function", op == "call_method", \
        op == "call_module" and target in modules


def get_combined_dict(default_dict, additional_dict):
    """A copy of ``default_dict`` updated with ``additional_dict``."""
    d = default_dict.copy()
    d.update(additional_dict)
    return d


def is_per_tensor(qscheme):
    """Whether ``qscheme`` has one scale for the whole tensor."""
    return qscheme == torch.per_tensor_affine or qscheme == torch.per_tensor_symmetric


def is_per_channel(qscheme):
    """Whether ``qscheme`` has one scale per channel."""
    return qscheme in (torch.per_channel_affine, torch.per_channel_affine_float_qparams,
                       torch.per_channel_symmetric)


def getattr_from_fqn(obj, fqn):
    """``obj.foo.bar.baz`` for ``fqn = "foo.bar.baz"``."""
    return functools.reduce(getattr, fqn.split("."), obj)


def to_underlying_dtype(qdtype):
    """The plain integer dtype a quantized dtype stores its values in."""
    table = {"quint8": torch.uint8, "qint8": torch.int8, "qint32": torch.int32,
             "quint4x2": torch.uint8, "quint2x4": torch.uint8, "uint8": torch.uint8,
             "int8": torch.int8, "int16": torch.int16, "int32": torch.int32}
    name = getattr(qdtype, "name", None)
    if name not in table:
        raise AssertionError("Unsupported dtype: " + str(qdtype))
    return table[name]


def get_qparam_dict(observer_or_fake_quant):
    """The quantization parameters an observer (or fake quant) describes, as a dict with
    ``qscheme``, ``dtype``, ``scale``, ``zero_point`` (and ``axis``, ``quant_min``,
    ``quant_max``)."""
    from .observer import PlaceholderObserver

    qscheme = getattr(observer_or_fake_quant, "qscheme", None)
    dtype = observer_or_fake_quant.dtype
    qparams = {"qscheme": qscheme, "dtype": dtype}
    if not qscheme or isinstance(observer_or_fake_quant, PlaceholderObserver):
        return {"qscheme": None, "dtype": dtype}
    if is_per_tensor(qscheme):
        qscheme = torch.per_tensor_affine
    elif is_per_channel(qscheme):
        if qscheme == torch.per_channel_symmetric:
            qscheme = torch.per_channel_affine
        qparams["axis"] = observer_or_fake_quant.ch_axis
    else:
        raise RuntimeError(f"Unrecognized qscheme: {qscheme}")
    qparams["qscheme"] = qscheme
    qparams["scale"], qparams["zero_point"] = observer_or_fake_quant.calculate_qparams()
    for name in ("quant_min", "quant_max"):
        if hasattr(observer_or_fake_quant, name):
            qparams[name] = getattr(observer_or_fake_quant, name)
    return qparams


def get_swapped_custom_module_class(custom_module, custom_module_class_mapping, qconfig):
    """The observed/quantized class a custom module is swapped to under ``qconfig``."""
    class_mapping = custom_module_class_mapping.get(get_quant_type(qconfig), {})
    if type(custom_module) not in class_mapping:
        raise AssertionError(f"did not find corresponding observed module class for "
                             f"{type(custom_module)} in mapping: {class_mapping}")
    return class_mapping[type(custom_module)]


def activation_dtype(qconfig):
    """The activation dtype ``qconfig`` asks for."""
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine activation dtype")
    return qconfig.activation().dtype


def weight_dtype(qconfig):
    """The weight dtype ``qconfig`` asks for."""
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine weight dtype")
    return qconfig.weight().dtype


def _named(dt, *names):
    return getattr(dt, "name", None) in names


def activation_is_statically_quantized(qconfig):
    """Whether activations get fixed quantization parameters (quantized or float16)."""
    return _named(activation_dtype(qconfig), "quint8", "qint8", "qint32", "float16", "uint8",
                  "int8", "int16", "int32") and not activation_is_dynamically_quantized(qconfig)


def activation_is_dynamically_quantized(qconfig):
    """Whether activations are quantized with parameters chosen at run time."""
    return get_qconfig_dtypes(qconfig)[2]


def activation_is_int8_quantized(qconfig):
    """Whether activations are quantized to 8 bits."""
    return _named(activation_dtype(qconfig), "quint8", "qint8", "uint8", "int8")


def activation_is_int32_quantized(qconfig):
    """Whether activations are quantized to 32 bits."""
    return _named(activation_dtype(qconfig), "qint32", "int32")


def weight_is_quantized(qconfig):
    """Whether weights are quantized (to an integer type or float16)."""
    return _named(weight_dtype(qconfig), "quint8", "qint8", "float16", "quint4x2", "uint8",
                  "int8", "int16", "int32")


def weight_is_statically_quantized(qconfig):
    """Whether weights are quantized to 8-bit integers."""
    return _named(weight_dtype(qconfig), "quint8", "qint8", "uint8", "int8")


def op_is_int8_dynamically_quantized(qconfig):
    """Whether ``qconfig`` is int8 dynamic quantization (quint8 activations chosen at run
    time, qint8 weights)."""
    act, wt, dynamic = get_qconfig_dtypes(qconfig)
    return _named(act, "quint8", "uint8") and _named(wt, "qint8", "int8") and dynamic


def get_qconfig_dtypes(qconfig):
    """``(activation_dtype, weight_dtype, activation_is_dynamic)``."""
    if qconfig is None:
        raise AssertionError("qconfig must be provided to extract dtypes")
    activation, weight = qconfig.activation(), qconfig.weight()
    return activation.dtype, weight.dtype, getattr(activation, "is_dynamic", False)


_STATIC = ("quint8", "qint8", "quint4x2", "qint32", "uint8", "int8", "int16", "int32")


def get_quant_type(qconfig):
    """The :class:`QuantType` a qconfig describes."""
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine quant type")
    activation, weight = qconfig.activation(), qconfig.weight()
    dynamic = getattr(activation, "is_dynamic", False)
    if _named(weight.dtype, *_STATIC):
        if dynamic:
            return QuantType.DYNAMIC
        if _named(activation.dtype, *_STATIC):
            return QuantType.STATIC
        return QuantType.WEIGHT_ONLY
    if weight.dtype is torch.float16:
        if dynamic:
            return QuantType.DYNAMIC
        if activation.dtype is torch.float16:
            return QuantType.STATIC
    raise Exception(f"Unrecognized dtype combination in get_quant_type: "  # noqa: TRY002
                    f"activation({activation.dtype}),weight({weight.dtype})")


_NOT_RUN = "must run observer before calling calculate_qparams. Returning default values."


def check_min_max_valid(min_val, max_val):
    """Whether observed min/max tensors hold a range (warning when nothing was observed)."""
    if min_val.numel() == 0 or max_val.numel() == 0:
        warnings.warn(_NOT_RUN, stacklevel=2)
        return False
    if min_val.dim() == 0 or max_val.dim() == 0:
        if float(min_val) == float("inf") and float(max_val) == float("-inf"):
            warnings.warn(_NOT_RUN, stacklevel=2)
            return False
        if float(min_val) > float(max_val):
            raise AssertionError(f"min {min_val} should be less than max {max_val}")
    elif bool((min_val > max_val).any()):
        raise AssertionError(f"min {min_val} should be less than max {max_val}")
    return True


def calculate_qmin_qmax(quant_min, quant_max, has_customized_qrange, dtype, reduce_range):
    """The integer range for an observer: the custom one (halved with ``reduce_range``) or
    the dtype's 8-bit (or 32-bit) default."""
    return qmin_qmax(quant_min, quant_max, has_customized_qrange, getattr(dtype, "name", ""),
                     reduce_range)


def validate_qmin_qmax(quant_min, quant_max):
    """A custom range must contain 0 and be non-empty."""
    if not quant_min <= 0 <= quant_max:
        raise AssertionError("Used-specified quantization range must include 0.")
    if quant_min >= quant_max:
        raise AssertionError("qmin must be strictly less than qmax for user-specified "
                             "quantization range.")


def determine_qparams(min_val, max_val, quant_min, quant_max, dtype, eps,
                      has_customized_qrange, qscheme=torch.per_tensor_affine):
    """``(scale, zero_point)`` for min/max tensors as an observer computes them."""
    from .observer import observed_qparams

    eps = float(eps.reshape(-1)[0]) if isinstance(eps, torch.Tensor) else float(eps)
    return observed_qparams(min_val, max_val, qscheme, dtype, quant_min, quant_max, eps,
                            has_customized_qrange)


def has_no_children_ignoring_parametrizations(module):
    """Whether ``module`` has no submodules (a parametrization container aside)."""
    if len(module._modules) == 0:
        return True
    if "parametrizations" in module._modules and hasattr(module, "parametrizations"):
        return len(module._modules) == 1
    return False


def get_fqn_to_example_inputs(model, example_inputs):
    """``{module path: its positional inputs}`` recorded while running ``model`` once."""
    fqn_to_inputs = {}
    handles = []
    for name, mod in model.named_modules():
        def hook(m, args, _name=name):
            fqn_to_inputs[_name] = args
        handles.append(mod.register_forward_pre_hook(hook))
    try:
        model(*example_inputs)
    finally:
        for h in handles:
            h.remove()
    return fqn_to_inputs


def _parent_name(target):
    """``("foo", "bar")`` for ``"foo.bar"``; ``("", "bar")`` for ``"bar"``."""
    r = target.rsplit(".", 1)
    return ("", r[0]) if len(r) == 1 else (r[0], r[1])
