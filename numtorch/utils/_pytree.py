"""Nested containers as trees: ``torch.utils._pytree``.

A pytree is a leaf or a registered container whose children are pytrees. Flattening gives the
leaves in order plus a ``TreeSpec`` recording each container's type and *context* (whatever its
unflatten function needs beyond the children: a dict's keys, a namedtuple's class). Built-in
nodes are tuple, list, dict, namedtuple, OrderedDict, defaultdict and deque; everything else is
a leaf unless registered with :func:`register_pytree_node` or :func:`register_dataclass`.
``torch.func`` uses this module for its ``in_dims``/``out_dims`` and nested inputs.
"""

import collections
import dataclasses
import warnings
from typing import Any, NamedTuple

__all__ = [
    "SUPPORTED_NODES",
    "Context",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "LeafSpec",
    "MappingKey",
    "PyTree",
    "SequenceKey",
    "TreeSpec",
    "arg_tree_leaves",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "is_structseq",
    "is_structseq_class",
    "is_structseq_instance",
    "key_get",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "tree_all",
    "tree_all_only",
    "tree_any",
    "tree_any_only",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_is_leaf",
    "tree_iter",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_map_with_path",
    "tree_structure",
    "tree_unflatten",
    "treespec_dict",
    "treespec_dumps",
    "treespec_leaf",
    "treespec_loads",
    "treespec_pprint",
    "treespec_tuple",
]

PyTree = Any
Context = Any


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


KeyEntry = Any
KeyPath = tuple


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Any
    unflatten_fn: Any
    flatten_with_keys_fn: Any = None


SUPPORTED_NODES = {}


class _SerializeNodeDef(NamedTuple):
    """How a node type is named and its context written in :func:`treespec_dumps`."""
    typ: Any
    serialized_type_name: str
    to_dumpable_context: Any
    from_dumpable_context: Any


SUPPORTED_SERIALIZED_TYPES = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE = {}
NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"
_NAMEDTUPLE_NAMES = {}  # namedtuple class -> serialized name (see _register_namedtuple)


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make ``cls`` a container: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``; ``flatten_with_keys_fn(obj)`` gives
    ``([(key, child), ...], context)`` for the ``*_with_path`` functions."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if serialized_type_name is not None:
        SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
            cls, serialized_type_name, to_dumpable_context, from_dumpable_context)
        SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


def register_dataclass(cls, *, field_names=None, drop_field_names=None):
    """Register a dataclass: its fields (all of them, or ``field_names``) are the children."""
    if not dataclasses.is_dataclass(cls):
        raise ValueError(f"register_dataclass expects a dataclass, got {cls}")
    drop = list(drop_field_names or [])
    names = list(field_names) if field_names is not None else [
        f.name for f in dataclasses.fields(cls) if f.init and f.name not in drop]

    def flatten(obj):
        return [getattr(obj, n) for n in names], [names, []]

    def unflatten(values, context):
        return cls(**dict(zip(context[0], values)))

    def with_keys(obj):
        return [(GetAttrKey(n), getattr(obj, n)) for n in names], [names, []]

    register_pytree_node(cls, flatten, unflatten, flatten_with_keys_fn=with_keys)


def is_namedtuple_class(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and \
        isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj):
    """A namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _seq_keys(children):
    return [SequenceKey(i) for i in range(len(children))]


# the built-in nodes' functions, by torch's private names (libraries register their own
# dict-like classes with them: transformers' ModelOutput uses _dict_flatten_with_keys)
def _tuple_flatten(t):
    return list(t), None


def _tuple_flatten_with_keys(t):
    return list(zip(_seq_keys(t), t)), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(t):
    return list(t), None


def _list_flatten_with_keys(t):
    return list(zip(_seq_keys(t), t)), None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


class structseq(tuple):  # (torch's name)
    """The kind of C struct sequences (``torch.return_types.max``, ``os.stat_result``): tuples
    with ``n_fields`` and no ``_fields``; each such type becomes a node of its own."""

    __slots__ = ()


def is_structseq_class(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and all(
        isinstance(getattr(cls, n, None), int)
        for n in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))


def is_structseq_instance(obj):
    return is_structseq_class(type(obj))


def is_structseq(obj):
    """A struct-sequence class or instance."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _register_structseq(cls):
    register_pytree_node(cls, _tuple_flatten, lambda values, context: cls(values),
                         flatten_with_keys_fn=_tuple_flatten_with_keys)


def _namedtuple_flatten(t):
    return list(t), type(t)


def _namedtuple_flatten_with_keys(t):
    return [(GetAttrKey(n), x) for n, x in zip(t._fields, t)], type(t)


def _namedtuple_unflatten(values, context):
    return context(*values)


def _ordereddict_unflatten(values, context):
    return collections.OrderedDict(zip(context, values))


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values, context):
    return collections.defaultdict(context[0], zip(context[1], values))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return list(zip(_seq_keys(d), d)), d.maxlen


def _deque_unflatten(values, context):
    return collections.deque(values, maxlen=context)


def _namedtuple_serialize(context):
    name = _NAMEDTUPLE_NAMES.get(context)
    if name is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't "
            f"register a serializated_type_name. Please register using "
            f"`_register_namedtuple`.")
    return name


def _namedtuple_deserialize(dumpable_context):
    for cls, name in _NAMEDTUPLE_NAMES.items():
        if name == dumpable_context:
            return cls
    raise NotImplementedError(f"Can't deserialize TreeSpec of namedtuple {dumpable_context!r}: "
                              f"no namedtuple class is registered under that name. Please "
                              f"register using `_register_namedtuple`.")


def _register_namedtuple(cls, *, serialized_type_name):
    """Give the namedtuple class ``cls`` a name for :func:`treespec_dumps`."""
    _NAMEDTUPLE_NAMES[cls] = serialized_type_name


def _defaultdict_serialize(context):
    factory, keys = context
    return {"default_factory_module": factory.__module__,
            "default_factory_name": factory.__qualname__, "dict_context": keys}


def _defaultdict_deserialize(dumpable_context):
    import importlib

    module = importlib.import_module(dumpable_context["default_factory_module"])
    return [getattr(module, dumpable_context["default_factory_name"]),
            dumpable_context["dict_context"]]


def _register_builtins():
    register_pytree_node(tuple, _tuple_flatten, _tuple_unflatten,
                         flatten_with_keys_fn=_tuple_flatten_with_keys,
                         serialized_type_name="builtins.tuple")
    register_pytree_node(list, _list_flatten, _list_unflatten,
                         flatten_with_keys_fn=_list_flatten_with_keys,
                         serialized_type_name="builtins.list")
    register_pytree_node(dict, _dict_flatten, _dict_unflatten,
                         flatten_with_keys_fn=_dict_flatten_with_keys,
                         serialized_type_name="builtins.dict")
    register_pytree_node(collections.namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
                         flatten_with_keys_fn=_namedtuple_flatten_with_keys,
                         serialized_type_name="collections.namedtuple",
                         to_dumpable_context=_namedtuple_serialize,
                         from_dumpable_context=_namedtuple_deserialize)
    register_pytree_node(collections.OrderedDict, _dict_flatten, _ordereddict_unflatten,
                         flatten_with_keys_fn=_dict_flatten_with_keys,
                         serialized_type_name="collections.OrderedDict")
    register_pytree_node(collections.defaultdict, _defaultdict_flatten,
                         _defaultdict_unflatten,
                         flatten_with_keys_fn=_defaultdict_flatten_with_keys,
                         serialized_type_name="collections.defaultdict",
                         to_dumpable_context=_defaultdict_serialize,
                         from_dumpable_context=_defaultdict_deserialize)
    register_pytree_node(collections.deque, _deque_flatten, _deque_unflatten,
                         flatten_with_keys_fn=_deque_flatten_with_keys,
                         serialized_type_name="collections.deque")
    from .._size import Size

    # torch.Size is a node whose children are the sizes; it unflattens to a plain tuple
    register_pytree_node(Size, _tuple_flatten, _size_unflatten,
                         flatten_with_keys_fn=_tuple_flatten_with_keys,
                         serialized_type_name="torch.Size")


def _size_unflatten(values, context):
    return tuple(values)


_register_builtins()
_register_pytree_node = register_pytree_node  # torch's older (private) name
_private_register_pytree_node = register_pytree_node


def _node_type(tree):
    """The registry key of ``tree``'s container type, or None for a leaf."""
    t = type(tree)
    if is_namedtuple_class(t) and t not in SUPPORTED_NODES:
        return collections.namedtuple
    if t not in SUPPORTED_NODES and is_structseq_class(t):
        _register_structseq(t)  # as torch does: the type itself is the node (context None)
    return t if t in SUPPORTED_NODES else None


def _get_node_type(tree):
    """The registry key of ``tree``: ``collections.namedtuple`` for a namedtuple whose class
    is not registered itself, else ``type(tree)`` (a leaf's own type: test membership in
    ``SUPPORTED_NODES`` to tell a leaf)."""
    if _is_namedtuple_instance(tree) and type(tree) not in SUPPORTED_NODES:
        return collections.namedtuple
    return type(tree)


def _is_namedtuple_instance(tree):
    return is_namedtuple_class(type(tree))


def _is_leaf(tree, is_leaf=None):
    """True when ``tree`` is not a registered container (or ``is_leaf(tree)`` says so)."""
    warnings.warn("torch.utils._pytree._is_leaf is private and will be removed in a future "
                  "release. Please use torch.utils._pytree.tree_is_leaf instead.",
                  FutureWarning, stacklevel=2)
    return tree_is_leaf(tree, is_leaf)


def _hashable(x):
    if isinstance(x, list):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        return tuple((k, _hashable(v)) for k, v in x.items())
    return x


class TreeSpec:
    """A flattened tree's structure: ``type`` (None for a leaf), ``context`` and the
    children's specs."""

    __slots__ = ("_children", "_num_children", "context", "num_leaves", "num_nodes", "type")

    def __init__(self, type, context, children_specs):
        self.type, self.context = type, context
        self._children = list(children_specs)
        self.num_leaves = 1 if type is None else sum(c.num_leaves for c in self._children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)
        self._num_children = len(self._children)

    @property
    def children_specs(self):
        """The children's specs (the list itself; torch 2.13 deprecates this name)."""
        warnings.warn("`treespec.children_specs` is deprecated. Use `treespec.child(index)` to "
                      "access a single child, or `treespec.children()` to get all children.",
                      FutureWarning, stacklevel=2)
        return self._children

    @property
    def num_children(self):
        return self._num_children

    def is_leaf(self):
        return self.type is None

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type == other.type and self.context == other.context
                and self._children == other._children)

    def __hash__(self):
        return hash((self.type, _hashable(self.context), tuple(self._children)))

    def _repr(self, indent):
        if self.type is None:
            return "*"
        name = getattr(self.type, "__name__", str(self.type))
        out = f"TreeSpec({name}, {self.context!r}, ["
        kids = self._children
        if kids:
            indent += 2
            out += kids[0]._repr(indent)
            out += "," if len(kids) > 1 else ""
            out += ",".join("\n" + " " * indent + k._repr(indent) for k in kids[1:])
        return out + "])"

    def __repr__(self):
        return self._repr(0)

    def unflatten(self, leaves):
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self}).")
        it = iter(leaves)
        return self._build(it)

    def _build(self, it):
        if self.type is None:
            return next(it)
        kids = [c._build(it) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(kids, self.context)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have at least this
        spec's structure)."""
        out = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree, out):
        if self.type is None:
            out.append(tree)
            return
        node = _node_type(tree)
        if node != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got "
                             f"{type(tree)!r}.")
        kids, ctx = SUPPORTED_NODES[node].flatten_fn(tree)
        if len(kids) != len(self._children):
            raise ValueError(f"Node arity mismatch; expected {len(self._children)}, but "
                             f"got {len(kids)}.")
        if ctx != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        for spec, kid in zip(self._children, kids):
            spec._up_to(kid, out)


class LeafSpec(TreeSpec):
    """The spec of a single leaf (printed ``*``). Building one directly is deprecated in
    torch 2.13 (FutureWarning); ``treespec_leaf()`` is the quiet spelling."""

    def __init__(self):
        warnings.warn("`isinstance(treespec, LeafSpec)` is deprecated, use "
                      "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__(None, None, [])


def _leaf_spec():
    spec = LeafSpec.__new__(LeafSpec)
    TreeSpec.__init__(spec, None, None, [])
    return spec


def treespec_leaf():
    return _leaf_spec()


def treespec_tuple(iterable=()):
    return TreeSpec(tuple, None, list(iterable))


def treespec_dict(mapping=(), **kwargs):
    d = dict(mapping, **kwargs)
    return TreeSpec(dict, list(d.keys()), list(d.values()))


def tree_is_leaf(tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


def _flatten(tree, leaves, is_leaf):
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    node = _node_type(tree)
    kids, ctx = SUPPORTED_NODES[node].flatten_fn(tree)
    return TreeSpec(node, ctx, [_flatten(k, leaves, is_leaf) for k in kids])


_LEAF = _leaf_spec()
_LEAF_SPEC = _LEAF


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treespec)`` of ``tree``; ``is_leaf(x)`` may stop the descent early."""
    leaves = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_unflatten(leaves, treespec):
    """The tree ``treespec`` describes, with ``leaves`` in flattening order."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of "
                        f"type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves, lazily."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    kids, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for k in kids:
        yield from tree_iter(k, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``func`` applied leaf by leaf (to the matching leaves of ``tree`` and ``rests``)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(leaves, *others)])


def tree_map_(func, tree, *rests, is_leaf=None):
    """Like :func:`tree_map` for ``func``'s side effects; returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _type_pred(type_or_types_or_pred):
    t = type_or_types_or_pred
    if isinstance(t, type) or (isinstance(t, tuple) and all(isinstance(x, type) for x in t)):
        return lambda x: isinstance(x, t)
    if callable(t):
        return t
    raise TypeError(f"Unexpected type_or_types_or_pred: {t!r}")


def map_only(type_or_types_or_pred):
    """Decorator: the wrapped function applies to matching values, others pass through."""
    pred = _type_pred(type_or_types_or_pred)

    def wrap(func):
        def inner(x):
            return func(x) if pred(x) else x

        return inner

    return wrap


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    match = _type_pred(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if match(x))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    match = _type_pred(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if match(x))


def _keyed_children(tree):
    node = SUPPORTED_NODES[_node_type(tree)]
    if node.flatten_with_keys_fn is not None:
        return node.flatten_with_keys_fn(tree)[0]
    raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node.type}. Please pass a "
                     f"flatten_with_keys_fn argument to register_pytree_node.")


def _with_path(tree, path, out, is_leaf):
    if tree_is_leaf(tree, is_leaf):
        out.append((path, tree))
        return
    for key, kid in _keyed_children(tree):
        _with_path(kid, path + (key,), out, is_leaf)


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treespec)``."""
    out = []
    _with_path(tree, (), out, is_leaf)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """``func(key_path, leaf, *other_leaves)`` for every leaf."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(p, x, *o) for (p, x), *o in zip(pairs, *others)])


def keystr(kp):
    """A key path as source text: ``['a'][1].y``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The value at key path ``kp`` inside ``obj``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ---- writing a TreeSpec as JSON (torch's protocol 1) ----------------------------------------

DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
_SUPPORTED_PROTOCOLS = (1,)


def _treespec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    entry = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if entry is None:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            f"_register_pytree_node call with a `serialized_type_name` kwarg.")
    if entry.to_dumpable_context is not None:
        context = entry.to_dumpable_context(spec.context)
    else:
        import json

        try:
            context = json.dumps(spec.context)
        except TypeError as e:
            raise TypeError("Unable to serialize context. Please make the context json "
                            "dump-able, or register a custom serializer using "
                            "_register_pytree_node.") from e
    return {"type": entry.serialized_type_name, "context": context,
            "children_spec": [_treespec_to_json(c) for c in spec._children]}


def _json_to_treespec(data):
    if data["type"] is None and data["context"] is None and not data["children_spec"]:
        return _leaf_spec()
    if data["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Deserializing {data['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[data["type"]]
    entry = SUPPORTED_SERIALIZED_TYPES[typ]
    if entry.from_dumpable_context is not None:
        context = entry.from_dumpable_context(data["context"])
    else:
        import json

        context = json.loads(data["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in data["children_spec"]])


def treespec_dumps(treespec, protocol=None):
    """``treespec`` as a JSON string ``[protocol, {"type", "context", "children_spec"}]``:
    each node under its registered ``serialized_type_name``, its context through
    ``to_dumpable_context`` or as JSON text."""
    import json

    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item "
                        f"of type {type(treespec)}.")
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: "
                         f"{list(_SUPPORTED_PROTOCOLS)}")
    return json.dumps((protocol, _treespec_to_json(treespec)))


def treespec_loads(serialized):
    """The TreeSpec written by :func:`treespec_dumps`."""
    import json

    protocol, data = json.loads(serialized)
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: "
                         f"{list(_SUPPORTED_PROTOCOLS)}")
    return _json_to_treespec(data)


class _Asterisk(str):
    def __repr__(self):
        return "*"


def treespec_pprint(treespec):
    """The tree's shape with a ``*`` for each leaf, e.g. ``"{'a': [*, *], 'b': (*,)}"``."""
    return repr(treespec.unflatten([_Asterisk("*")] * treespec.num_leaves))


def arg_tree_leaves(*args, **kwargs):
    """The leaves of the positional arguments, then of the keyword arguments' values."""
    leaves = []
    for a in args:
        _flatten(a, leaves, None)
    for v in kwargs.values():
        _flatten(v, leaves, None)
    return leaves
