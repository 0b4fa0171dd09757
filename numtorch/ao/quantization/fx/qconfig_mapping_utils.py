"""Which qconfig each node of a traced model gets, from a :class:`QConfigMapping`, and
whether the native backend quantizes an op with it."""

import operator
import re
from collections import defaultdict

import numtorch as torch

from ..fake_quantize import FixedQParamsFakeQuantize
from ..observer import FixedQParamsObserver
from ..utils import _parent_name, get_qconfig_dtypes

__all__ = []


def _object_type_qconfig(mapping, object_type, fallback):
    try:
        return mapping.object_type_qconfigs.get(object_type, fallback)
    except TypeError:  # unhashable target
        return fallback


def _module_name_regex_qconfig(mapping, module_name, fallback):
    for regex, qconfig in mapping.module_name_regex_qconfigs.items():
        if re.match(regex, module_name):
            return qconfig
    return fallback


def _module_name_qconfig(mapping, module_name, fallback):
    if module_name == "":
        return fallback
    if module_name in mapping.module_name_qconfigs:
        return mapping.module_name_qconfigs[module_name]
    parent, _ = _parent_name(module_name)
    return _module_name_qconfig(mapping, parent, fallback)


def _for_module_type_or_name(mapping, module_type, module_name, fallback):
    qconfig = _object_type_qconfig(mapping, module_type, fallback)
    qconfig = _module_name_regex_qconfig(mapping, module_name, qconfig)
    return _module_name_qconfig(mapping, module_name, qconfig)


def _for_name_type_order(mapping, module_path, object_type, index, fallback):
    return mapping.module_name_object_type_order_qconfigs.get(
        (module_path, object_type, index), fallback)


def update_qconfig_for_fusion(model, mapping):
    """A fused module (``ConvReLU2d`` ...) in the graph gets the qconfig its first part was
    given by object type; its other parts must have been given the same one."""
    from numtorch.ao.nn.intrinsic import _FusedModule

    from ..qconfig import qconfig_equals

    types = mapping.object_type_qconfigs
    if not types:
        return
    modules = dict(model.named_modules())
    for node in model.graph.nodes:
        if node.op != "call_module" or not isinstance(modules.get(node.target), _FusedModule):
            continue
        fused = modules[node.target]
        ops = list(fused._modules.values())
        fused_qconfig = types.get(type(ops[0]), None)
        for op in ops[1:]:
            if not qconfig_equals(types.get(type(op), None), fused_qconfig):
                raise LookupError(f"During fusion, we need to specify the same qconfigs for "
                                  f"all module types in {type(fused)} offending type: "
                                  f"{type(op)}")
        if fused_qconfig is not None:
            types[type(fused)] = fused_qconfig


def generate_node_name_to_qconfig(modules, graph, mapping, node_name_to_scope):
    """``{node name: qconfig or None}``; precedence: global < object type < module-name regex
    < module name (or a parent's) < (module name, object type, call index). Also sets
    ``.qconfig`` on each called module."""
    from ..quantize import _is_activation_post_process

    global_qconfig = mapping.global_qconfig
    out = {}
    counters = defaultdict(lambda: defaultdict(int))
    for node in graph.nodes:
        qconfig = None
        if node.op == "get_attr":
            module_name, _ = _parent_name(node.target)
            qconfig = _for_module_type_or_name(mapping, type(modules[module_name]),
                                               module_name, global_qconfig)
        elif node.op == "call_function":
            qconfig = _object_type_qconfig(mapping, node.target, global_qconfig)
            module_path, module_type = node_name_to_scope.get(node.name, ("", None))
            qconfig = _for_module_type_or_name(mapping, module_type, module_path, qconfig)
            try:
                index = counters[module_path][node.target]
                counters[module_path][node.target] += 1
                qconfig = _for_name_type_order(mapping, module_path, node.target, index,
                                               qconfig)
            except TypeError:
                pass
        elif node.op == "call_method":
            module_path, module_type = node_name_to_scope.get(node.name, ("", None))
            qconfig = _for_module_type_or_name(mapping, node.target, module_path,
                                               global_qconfig)
            qconfig = _for_module_type_or_name(mapping, module_type, module_path, qconfig)
        elif node.op == "call_module":
            module = modules[node.target]
            if _is_activation_post_process(module):
                continue
            qconfig = _for_module_type_or_name(mapping, type(module), node.target,
                                               global_qconfig)
            module_path, module_type = node_name_to_scope.get(node.name,
                                                              (node.target, type(module)))
            parent, _ = _parent_name(module_path)
            index = counters[parent][module_type]
            counters[parent][module_type] += 1
            qconfig = _for_name_type_order(mapping, parent, module_type, index, qconfig)
            module.qconfig = qconfig
        out[node.name] = qconfig
    return out


def qconfig_style(qconfig):
    """``"static"`` (quint8 activations, qint8 weights), ``"static_no_weight"`` (quint8
    activations, other weights), ``"dynamic"`` (quint8 dynamic / qint8 weight),
    ``"dynamic_fp16"``, or ``"other"``."""
    act, weight, is_dynamic = get_qconfig_dtypes(qconfig)
    if is_dynamic:
        if act is torch.quint8 and weight is torch.qint8:
            return "dynamic"
        if act is torch.float16 and weight is torch.float16:
            return "dynamic_fp16"
        return "other"
    if act is torch.quint8:
        return "static" if weight is torch.qint8 else "static_no_weight"
    return "other"


def fixed_qparams_ok(qconfig, neg1to1):
    """True if the qconfig's activation is the fixed-qparams observer an op with outputs in
    [0, 1] (or [-1, 1]) needs."""
    act = qconfig.activation()
    if not isinstance(act, (FixedQParamsObserver, FixedQParamsFakeQuantize)):
        return False
    scale, zero_point = act.calculate_qparams()
    want = (2.0 / 256.0, 128) if neg1to1 else (1.0 / 256.0, 0)
    return float(scale) == want[0] and int(zero_point) == want[1]


def node_has_no_tensors(node, modules, cache):
    """True if the node certainly computes no tensor (sizes, shapes, plain numbers)."""
    from numtorch.fx import Node

    from ..quantize import _is_activation_post_process

    if not isinstance(node, Node):
        return True
    if node in cache:
        return cache[node]
    if node.op in ("placeholder", "get_attr"):
        result = False
    elif node.op == "call_module":
        result = (_is_activation_post_process(modules[node.target])
                  and node_has_no_tensors(node.args[0], modules, cache))
    elif node.op == "call_function" and node.target is operator.getitem:
        result = node_has_no_tensors(node.args[0], modules, cache)
    elif (node.target is getattr and node.args[1] in ("ndim", "shape")) or (
            node.op == "call_method" and node.target == "size"):
        result = True
    else:
        result = True
        for arg in node.args:
            if isinstance(arg, list):
                if any(isinstance(item, Node) and not node_has_no_tensors(item, modules, cache)
                       for item in arg):
                    result = False
            elif isinstance(arg, Node):
                if not node_has_no_tensors(arg, modules, cache):
                    result = False
            elif not isinstance(arg, int):
                result = False  # torch counts any other constant as possibly a tensor
    cache[node] = result
    return result
