"""Flattening nested arguments: tuples, lists, dicts and namedtuples of leaves.

The function transforms take and return such structures (``in_dims=(0, {"w": None})``,
``has_aux`` outputs, ``functional_call`` dicts). A structure is flattened to its leaves plus a
spec that rebuilds it; two structures match when their specs are equal.
"""

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "TreeSpec", "LEAF"]


class TreeSpec:
    """The shape of a nested structure: its container type, keys and children."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind == other.kind
                and self.context == other.context and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, self.context, tuple(self.children)))

    @property
    def num_leaves(self):
        if self.kind is None:
            return 1
        return sum(c.num_leaves for c in self.children)

    def __repr__(self):
        if self.kind is None:
            return "*"
        name = self.kind.__name__ if isinstance(self.kind, type) else str(self.kind)
        inner = ",\n  ".join(repr(c) for c in self.children)
        return f"TreeSpec({name}, {self.context}, [{inner}])"


LEAF = TreeSpec(None, None, ())


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree):
    """``(leaves, spec)`` of a nested structure (anything else is a leaf)."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(x, leaves):
    if _is_namedtuple(x):
        return TreeSpec(type(x), None, [_flatten(v, leaves) for v in x])
    if type(x) in (tuple, list):
        return TreeSpec(type(x), None, [_flatten(v, leaves) for v in x])
    if isinstance(x, dict):
        keys = list(x.keys())
        return TreeSpec(dict, tuple(keys), [_flatten(x[k], leaves) for k in keys])
    leaves.append(x)
    return LEAF


def tree_unflatten(leaves, spec):
    """Rebuild the structure ``spec`` describes from ``leaves`` (in flattening order)."""
    it = iter(leaves)
    out = _build(spec, it)
    return out


def _build(spec, it):
    if spec.kind is None:
        return next(it)
    kids = [_build(c, it) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.context, kids))
    if spec.kind in (tuple, list):
        return spec.kind(kids)
    return spec.kind(*kids)  # a namedtuple


def tree_map(fn, tree):
    """Apply ``fn`` to every leaf, keeping the structure."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(v) for v in leaves], spec)


def broadcast_prefix(prefix, tree, what):
    """Leaves of ``prefix`` repeated over the subtrees of ``tree`` they stand for (an int in
    ``in_dims`` applies to a whole argument); None if the structures do not match."""
    out = []
    if not _match(prefix, tree, out):
        return None
    return out


def _match(prefix, tree, out):
    if type(prefix) in (tuple, list) or isinstance(prefix, dict) or _is_namedtuple(prefix):
        if isinstance(prefix, dict):
            if not isinstance(tree, dict) or set(prefix) != set(tree):
                return False
            return all(_match(prefix[k], tree[k], out) for k in tree)
        if type(tree) not in (tuple, list) and not _is_namedtuple(tree):
            return False
        if len(prefix) != len(tree):
            return False
        return all(_match(p, t, out) for p, t in zip(prefix, tree))
    out.extend([prefix] * tree_flatten(tree)[1].num_leaves)
    return True
