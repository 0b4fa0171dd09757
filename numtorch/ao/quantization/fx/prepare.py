"""Observer insertion: match each node to the way the native backend quantizes it, give it
its qconfig, and insert observers (or fake quantizers) on its inputs and output."""

import warnings

import numtorch as torch
from numtorch.fx import Node

from ..quantize import _is_activation_post_process
from ..utils import DEPRECATION_WARNING, _parent_name
from . import _op_kinds
from .fuse import rebuild
from .qconfig_mapping_utils import (
    fixed_qparams_ok,
    generate_node_name_to_qconfig,
    node_has_no_tensors,
    qconfig_style,
    update_qconfig_for_fusion,
)

__all__ = ["STATE_KEY", "Match", "prepare"]

STATE_KEY = "_observed_graph_module_attrs"


class Match:
    """One quantization pattern in the graph: its kind (see :mod:`._op_kinds`), the names of
    its first and last nodes, whether a ReLU is folded into it, and whether it is quantized
    (``style`` is ``"static"``, ``"dynamic"``/``"dynamic_fp16"``, or None when left float)."""

    def __init__(self, kind, root, last, relu=False):
        self.kind = kind
        self.root = root
        self.last = last
        self.relu = relu
        self.style = None
        self.num_tensor_args = 0

    def __repr__(self):
        return f"Match({self.kind}, {self.root}..{self.last}, style={self.style})"


class ObservedState:
    """What ``convert_fx`` needs to know about a prepared model (kept in ``model.meta``)."""

    def __init__(self, matches, node_name_to_qconfig, node_name_to_scope, is_qat):
        self.matches = matches
        self.node_name_to_qconfig = node_name_to_qconfig
        self.node_name_to_scope = node_name_to_scope
        self.is_qat = is_qat


def _find_matches(graph, modules):
    """``{node name: Match}`` for every node in a pattern, found from the last node back
    (a binary op or ``F.linear`` takes the ReLU that is its only user)."""
    t = _op_kinds.tables()
    matches = {}
    for node in reversed(list(graph.nodes)):
        if node.name in matches or node.op not in ("call_module", "call_function",
                                                   "call_method"):
            continue
        key = _op_kinds.op_key(node, modules)
        kind = _op_kinds.classify(key)
        if key in t["relu_after_binary"] if _op_kinds._hashable(key) else False:
            prev = node.args[0] if node.args else None
            if isinstance(prev, Node) and prev.name not in matches and len(prev.users) == 1:
                prev_key = _op_kinds.op_key(prev, modules)
                prev_kind = _op_kinds.classify(prev_key)
                # (module, relu): a float conv/linear whose ReLU was not fused (its batch
                # norm was); torch matches nn.ReLU and F.relu there, not torch.relu
                plain = prev_kind == "weighted" and prev_key in _op_kinds.plain_weighted()
                if (prev_kind == "binary" or ((prev_kind == "f_linear" or plain)
                                              and key is not torch.relu)):
                    m = Match("weighted" if plain else prev_kind, prev.name, node.name,
                              relu=True)
                    matches[prev.name] = matches[node.name] = m
                    continue
        if kind is not None:
            matches[node.name] = Match(kind, node.name, node.name)
    return matches


def _style_for(match, key, qconfig, modules, nodes, cache):
    """How the backend quantizes this match with this qconfig (None: left float)."""
    if qconfig is None:
        return None
    style = qconfig_style(qconfig)
    kind = match.kind
    t = _op_kinds.tables()
    if kind == "weighted" or kind == "f_linear":
        linear = kind == "f_linear" or key in t["linear_like"]
        if style == "static" or (linear and style in ("dynamic", "dynamic_fp16")):
            return style
        return None
    if kind == "torch_only":
        if key in t["torch_only_dynamic"]:
            return style if style in ("dynamic", "dynamic_fp16") else None
        if key in t["torch_only_weight_only"]:
            act, weight = qconfig.activation(), qconfig.weight()
            ok = act.dtype is torch.float and weight.dtype in (torch.quint8, torch.quint4x2)
            return "weight_only" if ok else None
        return "static" if style in ("static", "static_no_weight") else None
    if style not in ("static", "static_no_weight"):
        return None
    if kind == "fixed" and not fixed_qparams_ok(qconfig, key in t["fixed_neg1to1"]):
        return None
    return "static"


def _count_tensor_args(node, modules, cache):
    return sum(1 for a in node.args if isinstance(a, Node)
               and not node_has_no_tensors(a, modules, cache))


def _new_observer_name(model):
    i = 0
    while hasattr(model, f"activation_post_process_{i}"):
        i += 1
    return f"activation_post_process_{i}"


def _insert_observer(model, modules, graph, node, observer):
    name = _new_observer_name(model)
    setattr(model, name, observer)
    modules[name] = observer
    with graph.inserting_after(node):
        return graph.create_node("call_module", name, (node,), {})


def _observer_dtype(observer):
    return observer.dtype, bool(getattr(observer, "is_dynamic", False))


class _Inserter:
    def __init__(self, model, modules, matches, node_name_to_qconfig):
        self.model = model
        self.modules = modules
        self.graph = model.graph
        self.matches = matches
        self.qconfigs = node_name_to_qconfig
        self.cache = {}

    def output_dtype(self, arg):
        """The dtype the value ``arg`` has in the quantized model, as declared so far."""
        if arg.op == "call_module" and _is_activation_post_process(self.modules[arg.target]):
            return _observer_dtype(self.modules[arg.target])[0]
        if node_has_no_tensors(arg, self.modules, self.cache):
            return None
        m = self.matches.get(arg.name)
        if m is not None and m.style is not None and m.last == arg.name:
            act = self.qconfigs[arg.name].activation()
            return act.dtype
        return torch.float

    def input_observer(self, node, arg, match, role, is_zeroth):
        # torch gives every node of a pattern the observers of its last node's qconfig
        qconfig = self.qconfigs[match.last]
        ctr = qconfig.weight if role == "weight" else qconfig.activation
        observer = ctr()
        dtype, dynamic = _observer_dtype(observer)
        prev = self.output_dtype(arg)
        if dynamic:
            needed = is_zeroth
        else:
            needed = dtype in (torch.quint8, torch.qint8, torch.float16) and \
                prev in (torch.quint8, torch.qint8, torch.float16, torch.float) and dtype != prev
        if not needed:
            return arg
        for user in arg.users:
            if user.op == "call_module":
                existing = self.modules[user.target]
                if type(existing) is type(observer) and existing.dtype == dtype:
                    return user
        return _insert_observer(self.model, self.modules, self.graph, arg, observer)

    def insert_inputs(self, node, match):
        def visit(a, idx):
            if isinstance(a, (list, tuple)):
                return type(a)(visit(x, None) for x in a)
            if not isinstance(a, Node):
                return a
            if match.kind == "f_lowered" and idx != 0:  # only the input is observed
                return a
            role = "activation"
            if match.kind == "f_linear" and idx is not None and idx >= 1:
                role = "weight" if idx == 1 else "bias"
            if role == "bias":
                return a
            return self.input_observer(node, a, match, role, is_zeroth=idx == 0)

        node.args = tuple(visit(a, i) for i, a in enumerate(node.args))
        node.kwargs = {k: (a if k == "bias" else visit(a, "kw")) for k, a in node.kwargs.items()}

    def insert_output(self, node, match):
        observer = self.qconfigs[node.name].activation()
        dtype, dynamic = _observer_dtype(observer)
        if dynamic or dtype not in (torch.quint8, torch.qint8, torch.float16):
            return
        obs_node = _insert_observer(self.model, self.modules, self.graph, node, observer)
        for user in list(node.users):
            if user is not obs_node:
                user.replace_input_with(node, obs_node)
        share = match.kind in ("share",) or (match.kind == "binary"
                                              and match.num_tensor_args == 1)
        if share and not self.share_observers(node):
            obs_node.replace_all_uses_with(node)
            self.graph.erase_node(obs_node)

    def share_observers(self, node):
        """Make the observers of all inputs and of the output the first input's observer."""
        first = next((a for a in node.args if isinstance(a, (Node, list, tuple))), None)
        if first is None:
            return False
        cur = first[0] if isinstance(first, (list, tuple)) else first
        while not self.is_observer(cur):
            if not isinstance(cur, Node) or cur.op == "placeholder":
                return False
            nxt = next((a for a in cur.args if isinstance(a, Node)), None)
            if nxt is None:
                return False
            cur = nxt
        shared = self.modules[cur.target]
        if isinstance(first, (list, tuple)):
            for other in first[1:]:
                while not self.is_observer(other):
                    if not isinstance(other, Node) or not other.args:
                        return False
                    other = other.args[0]
                self.set_observer(other.target, shared)
        for user in node.users:
            self.set_observer(user.target, shared)
        return True

    def is_observer(self, n):
        return isinstance(n, Node) and n.op == "call_module" and \
            _is_activation_post_process(self.modules[n.target])

    def set_observer(self, target, observer):
        parent, name = _parent_name(target)
        setattr(self.modules[parent], name, observer)
        self.modules[target] = observer


def _qat_module_mapping():
    from numtorch.ao.nn import intrinsic as nni
    from numtorch.ao.nn import qat as nnqat
    from numtorch.ao.nn.intrinsic import qat as nniqat

    nn = torch.nn
    return {nn.Conv1d: nnqat.Conv1d, nn.Conv2d: nnqat.Conv2d, nn.Conv3d: nnqat.Conv3d,
            nn.Linear: nnqat.Linear, nni.ConvReLU1d: nniqat.ConvReLU1d,
            nni.ConvReLU2d: nniqat.ConvReLU2d, nni.ConvReLU3d: nniqat.ConvReLU3d,
            nni.LinearReLU: nniqat.LinearReLU, nni.ConvBn1d: nniqat.ConvBn1d,
            nni.ConvBn2d: nniqat.ConvBn2d, nni.ConvBn3d: nniqat.ConvBn3d,
            nni.ConvBnReLU1d: nniqat.ConvBnReLU1d, nni.ConvBnReLU2d: nniqat.ConvBnReLU2d,
            nni.ConvBnReLU3d: nniqat.ConvBnReLU3d, nni.LinearBn1d: nniqat.LinearBn1d}


def _qat_swap(module, mapping):
    """Swap (recursively, in place) each module with a qconfig for its QAT version."""
    for name, child in list(module.named_children()):
        qat_cls = mapping.get(type(child))
        if qat_cls is not None and getattr(child, "qconfig", None) is not None:
            setattr(module, name, qat_cls.from_float(child))
        else:
            _qat_swap(child, mapping)


def _propagate_qconfig(model, mapping):
    """Every module's ``qconfig`` from the global, object-type and module-name settings
    (torch does this before the QAT swap)."""
    from ..quantize import propagate_qconfig_

    flat = {"": mapping.global_qconfig}
    flat.update(mapping.object_type_qconfigs)
    flat.update(mapping.module_name_qconfigs)
    propagate_qconfig_(model, flat)


def prepare(model, qconfig_mapping, is_qat, node_name_to_scope):
    """Insert observers into the fused GraphModule ``model`` (in place) and return it."""
    update_qconfig_for_fusion(model, qconfig_mapping)
    _propagate_qconfig(model, qconfig_mapping)
    if is_qat:
        # torch swaps through the (deprecated) eager convert: one more deprecation warning
        warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
        qat_mapping = _qat_module_mapping()
        _qat_swap(model, qat_mapping)
        types = qconfig_mapping.object_type_qconfigs
        for float_cls, qat_cls in qat_mapping.items():
            if float_cls in types:
                types[qat_cls] = types[float_cls]
    modules = dict(model.named_modules(remove_duplicate=False))
    node_name_to_qconfig = generate_node_name_to_qconfig(modules, model.graph, qconfig_mapping,
                                                         node_name_to_scope)
    matches = _find_matches(model.graph, modules)
    cache = {}
    nodes = {n.name: n for n in model.graph.nodes}
    for name, match in matches.items():
        if name != match.last:
            continue
        root = nodes[match.root]
        if node_has_no_tensors(root, modules, cache):
            continue
        key = _op_kinds.op_key(root, modules)
        qconfigs = [node_name_to_qconfig.get(match.root), node_name_to_qconfig.get(match.last)]
        style = _style_for(match, key, qconfigs[-1], modules, nodes, cache)
        if match.kind == "torch_only" and style is not None:
            raise NotImplementedError(
                f"numtorch's FX graph mode quantization does not quantize "
                f"{_op_kinds.describe(key)} yet (torch's native backend does), so the "
                f"converted model would differ from torch's; give it a None qconfig "
                f"(qconfig_mapping.set_object_type(..., None) or set_module_name) to keep it "
                f"in float")
        if match.kind == "torch_only":
            continue
        if match.kind == "binary":
            match.num_tensor_args = _count_tensor_args(root, modules, cache)
            if match.num_tensor_args == 0:
                continue
        if match.kind == "f_linear" and style is not None:
            weight = root.args[1] if len(root.args) > 1 else root.kwargs.get("weight")
            if not (isinstance(weight, Node) and weight.op == "get_attr") or (
                    style == "dynamic_fp16" and match.relu):
                raise NotImplementedError(
                    "numtorch's FX graph mode quantization quantizes F.linear only with a "
                    "weight that is a module attribute (and without a ReLU when float16 "
                    "dynamic); give it a None qconfig to keep it in float")
        match.style = style
    inserter = _Inserter(model, modules, matches, node_name_to_qconfig)
    for node in list(model.graph.nodes):
        match = matches.get(node.name)
        if match is None or match.style is None:
            continue
        if node.name == match.root:
            inserter.insert_inputs(node, match)
        if node.name == match.last and match.style == "static":
            inserter.insert_output(node, match)
    model.graph.lint()
    model = rebuild(model)
    model.meta[STATE_KEY] = ObservedState(matches, node_name_to_qconfig, node_name_to_scope,
                                          is_qat)
    return model
