"""fx graphs from a trace: the lifted graph of ``ExportedProgram.graph`` (parameters, buffers
and constants are inputs) and the module of ``ExportedProgram.module()`` (they are
attributes)."""

import operator

from .. import fx, nn
from ._dynamic import Sym
from ._trace import V

_OPERATORS = {"__getitem__": operator.getitem, "__setitem__": operator.setitem}


class Spec:
    """One input of the program: ``kind`` PARAMETER/BUFFER/CONSTANT_TENSOR/USER_INPUT,
    ``name`` (the placeholder), ``target`` (the state name), the value number."""

    constant = None  # a USER_INPUT that is a Python scalar: (its value at export,)

    def __init__(self, kind, name, target, value, persistent=None):
        self.kind, self.name, self.target, self.value = kind, name, target, value
        self.persistent = persistent


def _map(obj, values, sym):
    if isinstance(obj, V):
        return values[obj.k]
    if isinstance(obj, Sym):
        return sym(obj)
    if isinstance(obj, tuple):
        items = tuple(_map(o, values, sym) for o in obj)
        return type(obj)(*items) if hasattr(obj, "_fields") else items
    if isinstance(obj, list):
        return [_map(o, values, sym) for o in obj]
    if isinstance(obj, dict):
        return {k: _map(o, values, sym) for k, o in obj.items()}
    if isinstance(obj, slice):
        return slice(_map(obj.start, values, sym), _map(obj.stop, values, sym),
                     _map(obj.step, values, sym))
    return obj


def _unpack(g, node, outputs, values):
    """Name the call's tensors: ``node`` itself, or getitem nodes down its tuples."""
    if isinstance(outputs, int):
        values[outputs] = node
    elif isinstance(outputs, tuple):
        for i, sub in enumerate(outputs):
            if sub is not None:
                _unpack(g, g.call_function(operator.getitem, (node, i)), sub, values)


def _attach(root, path, module):
    *parents, leaf = path.split(".")
    owner = root
    for part in parents:
        if not hasattr(owner, part):
            owner.add_module(part, nn.Module())
        owner = getattr(owner, part)
    owner.add_module(leaf, module)


def build_graph(program, lifted):
    """The fx Graph of ``program`` (an ExportedProgram's parts)."""
    g = fx.Graph()
    values = {}
    for spec in program.input_specs:
        if lifted or spec.kind == "USER_INPUT":
            values[spec.value] = g.placeholder(spec.name)
    if not lifted:
        for spec in program.input_specs:
            if spec.kind != "USER_INPUT":
                values[spec.value] = g.get_attr(spec.target)
    sizes = {}

    def size_node(group):
        if group not in sizes:
            value, dim = program.group_source[group]
            sizes[group] = g.call_method("size", (values[value], dim))
        return sizes[group]

    def sym(s):
        node = s.const
        for group, coef in s.coefs.items():
            delta = g.call_function(operator.sub, (size_node(group), program.group_size[group]))
            term = delta if coef == 1 else g.call_function(operator.mul, (delta, coef))
            node = g.call_function(operator.add, (term, node)) if node != 0 else term
        return node

    for call in program.calls:
        args, kwargs = _map(call.args, values, sym), _map(call.kwargs, values, sym)
        if call.kind == "attr":
            node = g.call_function(getattr, (args[0], call.name))
        elif call.kind == "method" and call.name in _OPERATORS:
            node = g.call_function(_OPERATORS[call.name], tuple(args), kwargs)
        elif call.kind == "method":
            node = g.call_method(call.name, tuple(args), kwargs)
        elif call.kind == "module":
            node = g.call_module(call.name, tuple(args), kwargs)
        else:
            node = g.call_function(call.target, tuple(args), kwargs)
        _unpack(g, node, call.outputs, values)
    g.output(_map(program.output, values, sym))
    return g


def state_root(program):
    """A module tree holding the program's parameters, buffers and constants at their names."""
    root = nn.Module()
    for path, module in program.leaf_modules.items():
        _attach(root, path, module)
    for spec in program.input_specs:
        if spec.kind == "USER_INPUT" or any(spec.target.startswith(p + ".")
                                            for p in program.leaf_modules):
            continue
        *path, leaf = spec.target.split(".")
        owner = root
        for part in path:
            if not hasattr(owner, part):
                owner.add_module(part, nn.Module())
            owner = getattr(owner, part)
        tensor = program.tensor_of(spec)
        if spec.kind == "PARAMETER":
            owner.register_parameter(leaf, tensor)
        elif spec.kind == "BUFFER":
            owner.register_buffer(leaf, tensor, persistent=spec.persistent is not False)
        else:
            setattr(owner, leaf, tensor)
    return root


def graph_module(program, lifted):
    graph = build_graph(program, lifted)
    if lifted:
        root = nn.Module()
        for path, module in program.leaf_modules.items():
            _attach(root, path, module)
    else:
        root = state_root(program)
    return fx.GraphModule(root, graph)
