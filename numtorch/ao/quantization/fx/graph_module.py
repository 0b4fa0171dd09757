"""``QuantizedGraphModule``: the GraphModule ``convert_fx`` returns; its state dict carries
the packed weights of lowered ``F.linear`` calls (``_packed_weight_*``)."""

import numtorch as torch
from numtorch.fx import Graph, GraphModule, Node
from numtorch.fx.node import map_aggregate

__all__ = ["QuantizedGraphModule"]


def _save_packed_weight(module, destination, prefix, keep_vars):
    for name in dir(module):
        if "_packed_weight" in name and isinstance(getattr(module, name), torch.ScriptObject):
            destination[prefix + name] = getattr(module, name)


class QuantizedGraphModule(GraphModule):
    """A GraphModule whose ``state_dict`` includes its packed weights and whose
    ``load_state_dict`` takes them back (top-level ``_packed_weight*`` entries)."""

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__(root, graph, class_name)
        self._register_state_dict_hook(_save_packed_weight)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name in [k for k in state_dict if k.startswith("_packed_weight")
                     and isinstance(state_dict[k], torch.ScriptObject)]:
            setattr(self, name, state_dict.pop(name))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs)

    def __reduce__(self):
        # the graph travels as its node list: re-tracing the code (how a plain GraphModule
        # is rebuilt) cannot run quantized kernels on proxies
        state = {k: v for k, v in self.__dict__.items()
                 if k not in ("_graph", "_code", "_code_globals")}

        def ref(a):
            return _NodeRef(a.name) if isinstance(a, Node) else a

        nodes = [(n.name, n.op, _target_ref(n), map_aggregate(n.args, ref),
                  map_aggregate(n.kwargs, ref)) for n in self.graph.nodes]
        return (_rebuild, (state, nodes))


class _TorchName:
    """A function pickled by the name torch prints for it (``torch.cat``)."""

    def __init__(self, name):
        self.name = name


def _target_ref(node):
    from numtorch.fx._names import torch_name_of

    if node.op == "call_function":
        name = torch_name_of(node.target)
        if name is not None:
            return _TorchName(name)
    return node.target


class _NodeRef:
    """A node named in a pickled node list."""

    def __init__(self, name):
        self.name = name


def _plain(a):
    """immutable containers back to tuples/lists/dicts as nodes take them."""
    if isinstance(a, tuple):
        return tuple(_plain(x) for x in a)
    if isinstance(a, list):
        return [_plain(x) for x in a]
    if isinstance(a, dict):
        return {k: _plain(v) for k, v in a.items()}
    return a


def _rebuild(state, nodes):
    from numtorch import nn

    graph, env = Graph(), {}

    def deref(a):
        return env[a.name] if isinstance(a, _NodeRef) else a

    from numtorch.fx._codegen import _resolve

    for name, op, target, args, kwargs in nodes:
        if isinstance(target, _TorchName):
            target = _resolve(target.name)
        args = _plain(map_aggregate(args, deref))
        kwargs = _plain(map_aggregate(kwargs, deref))
        if op == "output":
            env[name] = graph.output(args[0])
        else:
            env[name] = graph.create_node(op, target, tuple(args), dict(kwargs), name=name)
    root = nn.Module()
    root.__dict__.update(state)
    return QuantizedGraphModule(root, graph)
