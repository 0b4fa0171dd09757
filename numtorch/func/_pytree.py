"""Nested arguments of the function transforms (``in_dims=(0, {"w": None})``, ``has_aux``
outputs, ``functional_call`` dicts): flattened with ``torch.utils._pytree``; two structures
match when their specs are equal. Here: matching an ``in_dims`` prefix against the inputs.
"""

from ..utils._pytree import (
    TreeSpec,
    tree_flatten,
    tree_map,
    tree_unflatten,
)
from ..utils._pytree import (
    is_namedtuple_instance as _is_namedtuple,
)

__all__ = ["TreeSpec", "broadcast_prefix", "tree_flatten", "tree_map", "tree_unflatten"]


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
