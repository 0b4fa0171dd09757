"""``torch.fx.passes.split_module``: cut a traced module into submodules, one per partition.

A callback assigns every computing node to a partition. Each partition becomes a
``GraphModule`` (``submod_<partition>``) whose inputs are the values it reads from outside
(graph inputs, attributes, other partitions' results, in the order it first reads them) and
whose outputs are the values that later partitions or the graph's output read. The returned
module calls the partitions in a dependency order and passes the values between them.
"""

import inspect
import operator

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import map_arg

__all__ = ["Partition", "split_module"]


class Partition:
    """The nodes of one partition and what crosses its border.

    Attributes:
        name (str): the partition's id, as a string.
        submod_name (str): ``submod_<name>``.
        node_names (list of str): its nodes, in the original order.
        inputs, outputs (dict): value names read from / provided to other partitions (the
            values are unused: dicts keep the order of first use).
        dependencies, dependents (dict): partitions this one reads from / that read it.
        graph (Graph): the partition's graph; environment maps original nodes to its nodes.
        targets (dict): submodule/attribute name -> object, for its ``GraphModule``.
    """

    def __init__(self, name):
        self.name = name
        self.submod_name = f"submod_{name}"
        self.node_names = []
        self.inputs = {}
        self.outputs = {}
        self.dependencies = {}
        self.dependents = {}
        self.graph = Graph()
        self.environment = {}
        self.targets = {}

    def __repr__(self):
        return (f"name: {self.name},\n nodes: {self.node_names},\n inputs: {self.inputs},\n"
                f" outputs: {self.outputs},\n partitions depended on: {self.dependencies},\n"
                f" partition dependents: {self.dependents}")


def _resolve(root, target, message):
    obj = root
    for atom in target.split("."):
        if not hasattr(obj, atom):
            raise AttributeError(message)
        obj = getattr(obj, atom)
    return obj


def _assign_partitions(m, split_callback, partitions):
    """Call ``split_callback`` on every computing node and record what crosses borders."""
    owner = {}  # node -> partition name

    def cross(def_node, use_node):
        defined, used = owner.get(def_node), owner.get(use_node)
        if defined == used:
            return
        if defined is not None:
            partitions[defined].outputs.setdefault(def_node.name)
            if used is not None:
                partitions[defined].dependents.setdefault(used)
        if used is not None:
            partitions[used].inputs.setdefault(def_node.name)
            if defined is not None:
                partitions[used].dependencies.setdefault(defined)

    for node in m.graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            continue
        if node.op == "output":
            map_arg(node.args[0], lambda n: cross(n, None))
            continue
        name = str(split_callback(node))
        partition = partitions.get(name)
        if partition is None:
            partition = partitions[name] = Partition(name)
        partition.node_names.append(node.name)
        owner[node] = name
        map_arg(node.args, lambda n, use=node: cross(n, use))
        map_arg(node.kwargs, lambda n, use=node: cross(n, use))
    return owner


def _dependency_order(partitions):
    """Partition names so that each comes after those it reads from."""
    waiting = {name: dict(p.dependencies) for name, p in partitions.items()}
    ready = [name for name, deps in waiting.items() if not deps]
    order = []
    while ready:
        name = ready.pop()
        order.append(name)
        for dependent in partitions[name].dependents:
            waiting[dependent].pop(name)
            if not waiting[dependent]:
                ready.append(dependent)
    if len(order) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")
    return order


def split_module(m, root_m, split_callback, qualname_map=None, keep_original_order=False,
                 keep_original_node_name=False, partition_affix=None):
    """Split the traced ``m`` into one submodule per partition of its nodes.

    Args:
        m (GraphModule): the traced module.
        root_m (nn.Module): the module it was traced from (kept for torch's signature; the
            attributes come from ``m``).
        split_callback (Callable[[Node], int]): the partition of a node (called once for
            every node that is not a placeholder, attribute read or the output).
        qualname_map (dict, optional): filled with ``"submod_<i>.<name>"`` -> the original
            qualified name of every submodule/attribute a partition uses.
        keep_original_order (bool): lay the partition calls out in the order the original
            graph first reaches each partition (instead of a dependency order).
        keep_original_node_name (bool): keep node names inside the partitions (by default
            they are named afresh after what they call).
        partition_affix (str, optional): inserted in the submodule names
            (``submod_<affix>_<i>``).

    Returns:
        GraphModule: calls ``submod_<i>`` in turn; each is a ``GraphModule``.
    """
    partitions = {}
    orig_nodes = {n.name: n for n in m.graph.nodes}
    owner = _assign_partitions(m, split_callback, partitions)
    if partition_affix is not None:
        for p in partitions.values():
            p.submod_name = f"submod_{partition_affix}_{p.name}"
    order = _dependency_order(partitions)
    if keep_original_order:
        first_seen = []
        for node in m.graph.nodes:
            name = owner.get(node)
            if name is not None and name not in first_seen:
                first_seen.append(name)
        order = first_seen

    for name in order:
        p = partitions[name]
        for inp in p.inputs:
            placeholder = p.graph.placeholder(inp, type_expr=orig_nodes[inp].type)
            placeholder.meta = dict(orig_nodes[inp].meta)
            p.environment[orig_nodes[inp]] = placeholder

    for node in m.graph.nodes:
        name = owner.get(node)
        if name is None:
            continue
        p = partitions[name]
        env = p.environment
        args = map_arg(node.args, lambda n, env=env: env[n])
        kwargs = map_arg(node.kwargs, lambda n, env=env: env[n])
        target = node.target
        if node.op in ("call_module", "get_attr"):
            value = _resolve(m, target, f"Operator target {node.target} not found!")
            target = "_".join(node.target.split("."))  # flat names inside a partition
            p.targets[target] = value
            if qualname_map is not None:
                qualname_map[f"{p.submod_name}.{target}"] = node.target
        new = p.graph.create_node(node.op, target, args, kwargs, type_expr=node.type,
                                  name=node.name if keep_original_node_name else None)
        new.meta = dict(node.meta)
        env[node] = new

    base = Graph()
    base_env, base_attrs = {}, {}

    def add_attr(node):
        base_env[node.name] = base.get_attr(node.target)
        base_attrs[node.target] = _resolve(m, node.target, f"Node target {node.target} not found!")
    for node in m.graph.nodes:
        if node.op == "placeholder":
            default = node.args[0] if node.args else inspect.Signature.empty
            base_env[node.name] = base.placeholder(node.target, type_expr=node.type,
                                                   default_value=default)
            base_env[node.name].meta = dict(node.meta)
        elif node.op == "get_attr" and not keep_original_order:
            add_attr(node)

    for name in order:
        p = partitions[name]
        if keep_original_order:  # attributes are read just before their first user
            for inp in p.inputs:
                if inp not in base_env and orig_nodes[inp].op == "get_attr":
                    add_attr(orig_nodes[inp])
        outs = tuple(p.environment[orig_nodes[o]] for o in p.outputs)
        p.graph.output(outs[0] if len(outs) == 1 else outs)
        base_attrs[p.submod_name] = GraphModule(p.targets, p.graph)
        call = base.call_module(p.submod_name, tuple(base_env[i] for i in p.inputs))
        if len(p.outputs) > 1:
            for k, out_name in enumerate(p.outputs):
                base_env[out_name] = base.call_function(operator.getitem, (call, k))
        elif len(p.outputs) == 1:
            base_env[next(iter(p.outputs))] = call

    for node in m.graph.nodes:
        if node.op == "output":
            base.output(map_arg(node.args[0], lambda n: base_env[n.name]))
    return GraphModule(base_attrs, base)
