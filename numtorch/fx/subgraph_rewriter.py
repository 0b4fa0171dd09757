"""``replace_pattern``: find every copy of a small graph inside a bigger one and swap in
another (``torch.fx.subgraph_rewriter``).

Matching follows data dependencies, not names: starting from each candidate node for the
pattern's returned value, the pattern is walked backwards, each pattern node has to meet a
node with the same opcode and target, and literal arguments have to be equal. The pattern's
inputs (placeholders) match any node, consistently. Matches never overlap, and nodes inside a
match other than its result may not be used outside it.
"""

from collections import namedtuple

from .graph_module import GraphModule
from .node import Node, map_arg

__all__ = ["Match", "replace_pattern"]

Match = namedtuple("Match", ["anchor", "nodes_map"])


def _as_graph(fn):
    from ._symbolic_trace import symbolic_trace

    if isinstance(fn, GraphModule):
        return fn.graph, fn
    gm = symbolic_trace(fn)
    return gm.graph, gm


class _Matcher:
    def __init__(self, pattern):
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        output = next(n for n in pattern.nodes if n.op == "output")
        ret = output.args[0]
        self.returns = list(ret) if isinstance(ret, (tuple, list)) else [ret]
        self.anchor = self.returns[-1]

    def match_at(self, node, taken):
        mapping = {}
        if not self._match(self.anchor, node, mapping, taken):
            return None
        for r in self.returns[:-1]:
            if r not in mapping:
                return None
        # nodes inside the match (besides the results) must not be used outside it
        inner = {p: g for p, g in mapping.items() if p.op != "placeholder"}
        results = {mapping[r] for r in self.returns}
        matched = set(inner.values())
        for g in matched:
            if g in results:
                continue
            if any(u not in matched for u in g.users):
                return None
        return mapping

    def _match(self, pn, gn, mapping, taken):
        if pn in mapping:
            return mapping[pn] is gn
        if pn.op == "placeholder":
            if not isinstance(gn, Node):
                return False
            if gn in mapping.values() and any(
                    mapping[p] is gn for p in mapping if p.op != "placeholder"):
                return False
            mapping[pn] = gn
            return True
        if not isinstance(gn, Node) or gn in taken or gn.op != pn.op:
            return False
        if pn.op == "get_attr" or pn.op == "call_module":
            same = True
        else:
            same = pn.target == gn.target
        if not same or len(pn.args) != len(gn.args) or set(pn.kwargs) != set(gn.kwargs):
            return False
        if gn in mapping.values():
            return False
        mapping[pn] = gn
        saved = dict(mapping)
        pairs = list(zip(pn.args, gn.args)) + [(pn.kwargs[k], gn.kwargs[k]) for k in pn.kwargs]
        for pa, ga in pairs:
            if not self._match_arg(pa, ga, mapping, taken):
                mapping.clear()
                mapping.update(saved)
                del mapping[pn]
                return False
        return True

    def _match_arg(self, pa, ga, mapping, taken):
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._match(pa, ga, mapping, taken)
        if isinstance(pa, (list, tuple)):
            return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and all(
                self._match_arg(a, b, mapping, taken) for a, b in zip(pa, ga))
        if isinstance(pa, dict):
            return isinstance(ga, dict) and set(pa) == set(ga) and all(
                self._match_arg(pa[k], ga[k], mapping, taken) for k in pa)
        return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga


def replace_pattern(gm, pattern, replacement):
    """Replace every non-overlapping match of ``pattern`` in ``gm`` by ``replacement``.

    Args:
        gm (GraphModule): the module to rewrite (in place; it is recompiled).
        pattern (Callable or GraphModule): the subgraph to find; its inputs match any value.
        replacement (Callable or GraphModule): what to put instead; its inputs receive the
            values the pattern's inputs matched, in order.

    Returns:
        list[Match]: for each replacement, the node that was the pattern's result (``anchor``)
        and the map from pattern nodes to the graph's nodes (``nodes_map``).
    """
    pattern_graph, _ = _as_graph(pattern)
    replacement_graph, replacement_gm = _as_graph(replacement)
    matcher = _Matcher(pattern_graph)
    graph = gm.graph
    taken = set()
    matches = []
    for node in list(graph.nodes):
        if node.op in ("placeholder", "output") or node in taken:
            continue
        mapping = matcher.match_at(node, taken)
        if mapping is None:
            continue
        taken.update(g for p, g in mapping.items() if p.op != "placeholder")
        matches.append(Match(anchor=matcher.anchor, nodes_map=dict(mapping)))

    rep_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    for match in matches:
        mapping = match.nodes_map
        inputs = [mapping[p] for p in matcher.placeholders]
        val_map = dict(zip(rep_placeholders, inputs))
        # torch puts the replacement just before the first user of the matched results
        results = {mapping[r] for r in matcher.returns}
        insert_at = mapping[matcher.anchor]
        for candidate in graph.nodes:
            if any(candidate in r.users for r in results):
                insert_at = candidate
                break
        with graph.inserting_before(insert_at):
            new_out = None
            for rnode in replacement_graph.nodes:
                if rnode.op == "placeholder":
                    continue
                if rnode.op == "output":
                    new_out = map_arg(rnode.args[0], val_map.__getitem__)
                    break
                if rnode.op in ("get_attr", "call_module") and replacement_gm is not None:
                    _copy_target(replacement_gm, gm, rnode.target)
                val_map[rnode] = graph.node_copy(rnode, val_map.__getitem__)
        outs = list(new_out) if isinstance(new_out, (tuple, list)) else [new_out]
        for p_ret, new in zip(matcher.returns, outs):
            old = mapping[p_ret]
            if isinstance(new, Node):
                old.replace_all_uses_with(new)
            else:
                for user in list(old.users):
                    user._replace_input(old, new)
        for p_node in reversed(list(pattern_graph.nodes)):
            if p_node.op in ("placeholder", "output"):
                continue
            g_node = mapping[p_node]
            if not g_node._erased and not g_node.users:
                graph.erase_node(g_node)
    gm.recompile()
    return matches


def _copy_target(src, dst, target):
    """Give ``dst`` the attribute the replacement reads at ``target``, unless it has one."""
    from .graph_module import _copy_attr

    obj = dst
    for atom in target.split("."):
        if not hasattr(obj, atom):
            _copy_attr(src, dst, target)
            return
        obj = getattr(obj, atom)
