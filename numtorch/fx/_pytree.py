"""``torch.fx._pytree``: flatten a value along a given :class:`~numtorch.utils._pytree.TreeSpec`.

``tree_flatten_spec(value, spec)`` returns the leaves of ``value`` in the order ``spec``
describes. For a container type with a registered *spec flattener* (dict, list, tuple, named
tuples, the ``return_types`` results, and whatever a library registers with
:func:`register_pytree_flatten_spec`), the children are taken as the spec says: a dict by the
spec's keys (extra keys are ignored), a sequence by the spec's child count (extra items are
ignored). Any other value is flattened with ``tree_flatten`` and must then have exactly the
spec's structure. Libraries such as transformers register their cache classes here before
``torch.export``.
"""

from collections import namedtuple

from .. import return_types as _return_types
from ..utils._pytree import tree_flatten

__all__ = ["SUPPORTED_NODES", "SUPPORTED_NODES_EXACT_MATCH", "register_pytree_flatten_spec",
           "tree_flatten_spec"]

# type -> fn(value, spec) giving the children in the spec's order
SUPPORTED_NODES = {}
# type -> fn(value, spec) telling whether the value has exactly the spec's children (or None)
SUPPORTED_NODES_EXACT_MATCH = {}


def register_pytree_flatten_spec(cls, flatten_fn_spec, flatten_fn_exact_match_spec=None):
    """Flatten values of type ``cls`` along a spec with ``flatten_fn_spec(value, spec)``,
    which returns the children in the order of ``spec.children()``."""
    SUPPORTED_NODES[cls] = flatten_fn_spec
    SUPPORTED_NODES_EXACT_MATCH[cls] = flatten_fn_exact_match_spec


def _deregister_pytree_flatten_spec(cls):
    """Forget ``cls``'s spec flattener (KeyError when there is none)."""
    del SUPPORTED_NODES[cls]
    del SUPPORTED_NODES_EXACT_MATCH[cls]


def tree_flatten_spec(pytree, spec):
    """The leaves of ``pytree`` laid out as ``spec`` describes (a list)."""
    if spec.is_leaf():
        return [pytree]
    by_spec = SUPPORTED_NODES.get(spec.type)
    if by_spec is not None:
        leaves = []
        for child, child_spec in zip(by_spec(pytree, spec), spec.children()):
            leaves.extend(tree_flatten_spec(child, child_spec))
        return leaves
    leaves, actual = tree_flatten(pytree)
    if actual != spec:
        raise RuntimeError(
            f"Real spec {actual} of object {pytree} is different from expected spec {spec}. "
            "Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml")
    return leaves


def _dict_flatten_spec(d, spec):
    return [d[key] for key in spec.context]


def _sequence_flatten_spec(seq, spec):
    return [seq[i] for i in range(spec.num_children)]


def _exact_count(value, spec):
    return len(value) == spec.num_children


_list_flatten_spec = _tuple_flatten_spec = _namedtuple_flatten_spec = _sequence_flatten_spec

register_pytree_flatten_spec(dict, _dict_flatten_spec, _exact_count)
register_pytree_flatten_spec(list, _sequence_flatten_spec, _exact_count)
register_pytree_flatten_spec(tuple, _sequence_flatten_spec, _exact_count)
register_pytree_flatten_spec(namedtuple, _sequence_flatten_spec, _exact_count)
for _cls in vars(_return_types).values():
    if isinstance(_cls, type) and issubclass(_cls, tuple) and _cls is not tuple:
        register_pytree_flatten_spec(_cls, _sequence_flatten_spec, _exact_count)
del _cls
