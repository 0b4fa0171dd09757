"""``torch.export``: capture a module's forward as a graph with its state.

``export(model, args)`` runs the model once on the example inputs and records every numtorch
function and Tensor method it calls (a ``TorchFunctionMode``), giving an
:class:`ExportedProgram`: ``ep.module()`` runs the graph on new inputs, ``ep.graph`` /
``ep.graph_signature`` / ``ep.state_dict`` describe it, :func:`save` / :func:`load` store it.

As torch's export, Python between the calls runs once and is specialised: shapes become
constants (checked on every call, as torch's guards are), branches on tensor data are refused.
Dimensions declared dynamic (:class:`Dim`, ``Dim.AUTO``/``DYNAMIC``) are found by tracing again
at other sizes; integers computed from them stay expressions of the input's size.

The graph's nodes are numtorch's torch-level functions and Tensor methods, not ATen
operators; :func:`save` writes numtorch's own archive (torch's ``.pt2`` is not read or
written).
"""

import collections
import inspect

from .. import _tensor, nn
from .._dynamo.exc import UserError
from ..utils import _pytree
from . import _dynamic, _trace
from ._errors import ConstraintViolationError, GuardOnDataDependentSymNode
from ._graph import Spec
from ._serde import load, save
from .dynamic_shapes import Dim, dims, hint_range
from .exported_program import ExportedProgram
from .graph_signature import (
    ConstantArgument,
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)

__all__ = [
    "ConstantArgument",
    "Dim",
    "ExportGraphSignature",
    "ExportedProgram",
    "GuardOnDataDependentSymNode",
    "InputKind",
    "InputSpec",
    "OutputKind",
    "OutputSpec",
    "ShapesCollection",
    "TensorArgument",
    "UserError",
    "default_decompositions",
    "dims",
    "export",
    "export_for_training",
    "load",
    "register_dataclass",
    "save",
]

Tensor = _tensor.Tensor


def _leaves(name, value, out):
    """Flatten one forward argument into (placeholder name, leaf) pairs as torch names them."""
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            _leaves(f"{name}_{i}", v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _leaves(f"{name}_{k}", v, out)
    elif _registered_node(value) is not None:
        # a class registered with register_pytree_node (transformers' DynamicCache): its
        # children are inputs, named by their key paths, as torch names them
        for key, v in _registered_children(value):
            _leaves(f"{name}_{key}", v, out)
    else:
        out.append((name, value))
    return out


def _registered_node(value):
    """The pytree NodeDef of a value of a class registered by the user (not a builtin)."""
    node = _pytree.SUPPORTED_NODES.get(type(value))
    return None if node is None or type(value) in _BUILTIN_NODES else node


def _registered_children(value):
    """(name part, child) pairs of a registered node: from its keys when it has
    ``flatten_with_keys_fn``, its child positions otherwise."""
    node = _registered_node(value)
    if node.flatten_with_keys_fn is not None:
        pairs, _ = node.flatten_with_keys_fn(value)
        return [(_key_name(k), v) for k, v in pairs]
    children, _ = node.flatten_fn(value)
    return list(enumerate(children))


def _key_name(key):
    for attr in ("key", "idx", "name"):
        if hasattr(key, attr):
            return getattr(key, attr)
    return str(key)


def _fresh(value):
    """A copy of the containers in ``value`` (tuples, lists, dicts, registered nodes) holding
    the same leaves."""
    if type(value) is tuple:
        return tuple(_fresh(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*[_fresh(v) for v in value])
    if type(value) is list:
        return [_fresh(v) for v in value]
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if _registered_node(value) is not None:
        return _rebuild_node(value, _fresh)
    return value


def _rebuild_node(value, fill):
    """A registered node rebuilt from its children passed through ``fill``."""
    node = _registered_node(value)
    children, context = node.flatten_fn(value)
    return node.unflatten_fn([fill(c) for c in children], context)


def _dim_specs(spec, value, where):
    """{dim: spec} for one tensor from a dict/tuple/list/None spec."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        return dict(spec)
    if isinstance(spec, (tuple, list)):
        return dict(enumerate(spec))
    raise UserError(f"Unexpected dynamic_shape {spec!r} of {where}: expected a dict from "
                    "dimension to Dim, a tuple/list of them, or None")


def _spec_leaves(spec, value, name, out):
    """Match ``spec`` to the structure of ``value``: (placeholder name, {dim: spec}) pairs."""
    if isinstance(value, Tensor):
        out.append((name, _dim_specs(spec, value, name)))
    elif isinstance(value, (tuple, list)):
        if spec is None:
            spec = [None] * len(value)
        if not isinstance(spec, (tuple, list)) or len(spec) != len(value):
            raise UserError("Detected mismatch between the structure of `inputs` and "
                            f"`dynamic_shapes`: `inputs['{name}']` has {len(value)} elements, "
                            f"but `dynamic_shapes['{name}']` does not match it")
        for i, (s, v) in enumerate(zip(spec, value)):
            _spec_leaves(s, v, f"{name}_{i}", out)
    elif isinstance(value, dict):
        spec = spec or {}
        for k, v in value.items():
            _spec_leaves(spec.get(k), v, f"{name}_{k}", out)
    return out


def _bound(mod, args, kwargs):
    sig = inspect.signature(mod.forward)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise UserError(f"The example inputs do not match {type(mod).__name__}.forward: "
                        f"{e}") from None
    named = []
    for pname, value in bound.arguments.items():
        kind = sig.parameters[pname].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            named += [(f"{pname}_{i}", v) for i, v in enumerate(value)]
        elif kind == inspect.Parameter.VAR_KEYWORD:
            named += list(value.items())
        else:
            named.append((pname, value))
    return named


def _dynamic_groups(named, dynamic_shapes):
    """{group: ([(flat index, dim)], lo, hi)} and the static sizes to check at call time."""
    if dynamic_shapes is None:
        return {}
    names = [n for n, _ in named]
    if isinstance(dynamic_shapes, dict):
        extra = [k for k in dynamic_shapes if k not in names]
        if extra:
            raise UserError("When `dynamic_shapes` is specified as a dict, its top-level keys "
                            f"must be the arg names {names} of `inputs`, but here they are "
                            f"{list(dynamic_shapes)}. Alternatively, you could also ignore arg "
                            "names entirely and specify `dynamic_shapes` as a list/tuple "
                            "matching `inputs`.")
        specs = [dynamic_shapes.get(n) for n in names]
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(named):
            raise UserError("Detected mismatch between the structure of `inputs` and "
                            f"`dynamic_shapes`: `inputs` has {len(named)} elements, but "
                            f"`dynamic_shapes` has {len(dynamic_shapes)} elements")
        specs = list(dynamic_shapes)
    else:
        raise UserError(f"Unexpected type of `dynamic_shapes`: {type(dynamic_shapes).__name__}"
                        " (expected a dict, tuple or list)")
    leaves = []
    for (name, value), spec in zip(named, specs):
        _spec_leaves(spec, value, name, leaves)
    return leaves


class _Parts:
    """Everything an ExportedProgram is made of (built by export(), rebuilt by load())."""

    out_spec = None  # the output's pytree spec where it has non-plain containers
    in_spec = None  # the pytree spec of (args, kwargs) at export

    def __init__(self, input_specs, calls, output, tensors, group_source, group_size,
                 group_range, guards, in_names, example_inputs, leaf_modules=None):
        self.input_specs, self.calls, self.output = input_specs, calls, output
        self.tensors = tensors              # value number -> tensor, for the state
        self.group_source = group_source    # group -> (value number of an input, dim)
        self.group_size = group_size        # group -> size at export
        self.group_range = group_range      # group -> (lo, hi)
        self.guards = guards                # [(leaf name, kind, payload)]
        self.in_names = in_names            # forward's parameter names, in order
        self.example_inputs = example_inputs
        self.leaf_modules = leaf_modules or {}  # path -> submodule called as one node

    def tensor_of(self, spec):
        return self.tensors[spec.value]

    def _check_structure(self, args, kwargs):
        """torch's checks of a call's inputs against the export-time (args, kwargs): the same
        keywords (in any order), then the same pytree structure."""
        expected = list(self.in_spec.children()[1].context)
        if set(kwargs) != set(expected):
            raise ValueError(f"Ran into a kwarg keyword mismatch: Got the following keywords "
                             f"{list(kwargs)} but expected {expected}")
        got = _pytree.tree_flatten((tuple(args), {k: kwargs[k] for k in expected}))[1]
        if got != self.in_spec:
            raise ValueError(
                "Trying to flatten user inputs with exported input tree spec: \n"
                f"{self.in_spec}\nbut actually got inputs with tree spec of: \n{got}.\n"
                "Please check that the inputs have the same number and type of args and "
                "kwargs as the ones you used when tracing.")

    def guard(self, module, args, kwargs):
        """The exported module's forward pre-hook: flatten the call's inputs as at export and
        check them against the shapes and values the program was specialised on."""
        bound = {}
        for name, value in zip(self.in_names, args):
            bound[name] = value
        bound.update(kwargs)
        if self.in_spec is not None:
            self._check_structure(args, kwargs)
        leaves = []
        for name in self.in_names:
            if name in bound:
                _leaves(name, bound[name], leaves)
        values = dict(leaves)
        sizes = {}
        for leaf, kind, payload in self.guards:
            if leaf not in values:
                raise ValueError(f"Trying to flatten user inputs with the exported input "
                                 f"structure, but the input {leaf!r} is missing")
            v = values[leaf]
            if kind == "value":
                if not isinstance(v, Tensor) and v != payload:
                    raise AssertionError(f"Guard failed: {leaf} == {payload!r}")
                continue
            dim, lo, hi, group = payload
            if not isinstance(v, Tensor) or v.dim() <= dim:
                continue
            n = v.shape[dim]
            where = f"{leaf}.size()[{dim}]"
            if kind == "static" and n != lo:
                raise AssertionError(f"Guard failed: {where} == {lo}")
            if kind == "dynamic":
                if hi != float("inf") and n > hi:
                    raise AssertionError(f"Guard failed: {where} <= {hi}")
                if lo > 2 and n < lo:
                    raise AssertionError(f"Guard failed: {where} >= {lo}")
                if group in sizes and sizes[group][0] != n:
                    raise AssertionError(f"Guard failed: {where} == {sizes[group][1]}")
                sizes.setdefault(group, (n, where))
        flat = tuple(v for name, v in leaves
                     if any(s.name == name for s in self.input_specs))
        return flat, {}


def _state(mod):
    """(params, buffers, constants) as lists of (name, tensor[, persistent])."""
    params = list(mod.named_parameters())
    buffers = []
    for name, b in mod.named_buffers():
        owner_name, _, leaf = name.rpartition(".")
        owner = mod.get_submodule(owner_name) if owner_name else mod
        persistent = leaf not in getattr(owner, "_non_persistent_buffers_set", ())
        buffers.append((name, b, persistent))
    seen = {id(t) for _, t in params} | {id(t) for _, t, _ in buffers}
    constants = []
    for prefix, sub in mod.named_modules():
        for attr, value in vars(sub).items():
            if isinstance(value, Tensor) and id(value) not in seen:
                seen.add(id(value))
                constants.append((f"{prefix}.{attr}" if prefix else attr, value))
    return params, buffers, constants


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
           preserve_module_call_signature=(), prefer_deferred_runtime_asserts_over_guards=False):
    """Capture ``mod``'s forward on the example inputs ``args`` / ``kwargs`` as an
    :class:`ExportedProgram`.

    Args:
        mod (nn.Module): the model.
        args (tuple): example positional inputs.
        kwargs (dict, optional): example keyword inputs.
        dynamic_shapes: per input, ``{dim: Dim(...)}`` (or a tuple over dims) for the sizes
            that may vary; as a dict keyed by the forward's argument names or a tuple in
            their order. Unlisted sizes are static.
        strict: accepted for torch's signature; tracing is always the non-strict kind.

    Raises:
        UserError: the inputs or ``dynamic_shapes`` do not fit the model, or the program
            takes another path when a dynamic size changes.
        GuardOnDataDependentSymNode: the program reads a tensor's value in Python.
    """
    from .. import get_rng_state, no_grad, set_rng_state

    if not isinstance(mod, nn.Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got "  # noqa: TRY004 - torch raises ValueError
                         f"{type(mod)}.")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got "
                        f"{type(args)}")
    kwargs = dict(kwargs or {})
    named = _bound(mod, args, kwargs)
    # the structure of the inputs before the runs below (a cache object may fill up in them)
    in_spec = _pytree.tree_flatten((tuple(args), kwargs))[1]
    leaves = []
    for name, value in named:
        _leaves(name, value, leaves)
    params, buffers, constants = _state(mod)
    user = [(n, v) for n, v in leaves if isinstance(v, Tensor)]
    known = [t for _, t in params] + [t for _, t, _ in buffers] + [t for _, t in constants]
    known += [v for _, v in user]

    def specs_and_tensors(trace):
        specs, tensors, k = [], {}, 0
        for name, t in params:
            specs.append(Spec("PARAMETER", "p_" + name.replace(".", "_"), name, k))
            tensors[k] = t
            k += 1
        for name, t, persistent in buffers:
            specs.append(Spec("BUFFER", "b_" + name.replace(".", "_"), name, k, persistent))
            tensors[k] = t
            k += 1
        for name, t in constants:
            specs.append(Spec("CONSTANT_TENSOR", "c_" + name.replace(".", "_"), name, k))
            tensors[k] = t
            k += 1
        for i, (value, t) in enumerate(trace.constants):
            specs.append(Spec("CONSTANT_TENSOR", f"c_lifted_tensor_{i}", f"lifted_tensor_{i}",
                              value))
            tensors[value] = t
        for name, value in leaves:
            if isinstance(value, Tensor):
                specs.append(Spec("USER_INPUT", name, None, k))
                k += 1
            elif isinstance(value, _CONSTANT_INPUTS):
                # a Python scalar input: a placeholder the graph does not read, as torch's
                spec = Spec("USER_INPUT", name, None, f"const:{name}")
                spec.constant = (value,)
                specs.append(spec)
        return specs, tensors

    leaf_specs = _dynamic_groups(named, dynamic_shapes)
    value_of = {name: len(known) - len(user) + i for i, (name, _) in enumerate(user)}
    user_index = {name: i for i, (name, _) in enumerate(user)}
    groups, guards, group_range = {}, [], {}
    dyn_dims = {}
    for name, dimspec in leaf_specs:
        tensor = dict(user)[name]
        for dim, spec in dimspec.items():
            if isinstance(spec, int) and not isinstance(spec, bool):
                if tensor.shape[dim] != spec:
                    raise ConstraintViolationError(
                    f"Static shape constraint of {spec} does not match input size of "
                    f"{tensor.shape[dim]}, for L['{name}'].size()[{dim}]")
                continue
            rng = hint_range(spec)
            if rng is None:
                continue
            gname, lo, hi, auto = rng
            group = gname or f"{name}.size()[{dim}]"
            members = groups.setdefault(group, ([], lo, hi, auto))[0]
            members.append((user_index[name], dim))
            dyn_dims[(name, dim)] = group
            # a named Dim keeps the range it was given (min 0 by default); AUTO and DYNAMIC
            # sizes are reported from 2, as torch reports them
            group_range[group] = (lo if gname else max(lo, 2), hi)

    # the traces run the real model: keep its state and the random stream as they were
    saved = [(t, t.detach().clone()) for t in known[:len(known) - len(user)]]
    rng_state = get_rng_state()

    def restore():
        with no_grad():
            for t, copy in saved:
                if t.shape == copy.shape:
                    t.copy_(copy)
        set_rng_state(rng_state)

    def rebuild(flat_user):
        it = iter(flat_user)

        def fill(value):
            if isinstance(value, Tensor):
                return next(it)
            if isinstance(value, tuple):
                return tuple(fill(v) for v in value)
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if _registered_node(value) is not None:
                return _rebuild_node(value, fill)
            return value

        return fill(args), fill(kwargs)

    def retrace(flat_user):
        a, kw = rebuild(flat_user)
        restore()
        trace, _ = _trace.run(mod, a, kw, known[:len(known) - len(user)] + list(flat_user))
        return trace

    try:
        # the model runs on fresh containers holding the same tensors, so one that fills an
        # input list or cache in place leaves the caller's example as it was (as torch's)
        base, result = _trace.run(mod, _fresh(args), _fresh(kwargs), known)
        group_size = _dynamic.symbolize(base, retrace, [v for _, v in user], groups) \
            if groups else {}
    finally:
        restore()
    for name, value in leaves:
        if not isinstance(value, Tensor):
            guards.append((name, "value", value))
            continue
        for dim, n in enumerate(value.shape):
            group = dyn_dims.get((name, dim))
            if group is None or group not in group_size:  # static, or an AUTO left static
                guards.append((name, "static", (dim, n, n, None)))
            else:
                _, lo, hi, _ = groups[group]
                guards.append((name, "dynamic", (dim, lo, hi, group)))
    groups = {g: v for g, v in groups.items() if g in group_size}
    group_range = {g: v for g, v in group_range.items() if g in group_size}
    specs, tensors = specs_and_tensors(base)
    group_source = {g: (value_of[user[members[0][0]][0]], members[0][1])
                    for g, (members, _, _, _) in groups.items()}
    in_names = [n for n, _ in named]
    parts = _Parts(specs, base.calls, base.output, tensors, group_source, group_size,
                   group_range, guards, in_names, (args, kwargs), _trace.opaque_modules(mod))
    parts.out_spec = _output_spec(result)
    parts.in_spec = in_spec
    return ExportedProgram(parts)


_PLAIN_NODES = (tuple, list, dict, collections.namedtuple)
_CONSTANT_INPUTS = (bool, int, float, str, type(None))
_BUILTIN_NODES = (tuple, list, dict, collections.OrderedDict, collections.defaultdict,
                  collections.deque)


def _output_spec(result):
    """The pytree spec of the output when it holds containers the graph returns as plain
    ones (an OrderedDict, a registered node such as transformers' ModelOutput, which is a
    dict subclass): ``module()`` rebuilds them, as torch's out_spec does. None otherwise."""
    spec = _pytree.tree_flatten(result)[1]
    stack = [spec]
    while stack:
        s = stack.pop()
        if s.type is not None and s.type not in _PLAIN_NODES:
            return spec
        stack.extend(s.children())
    return None


def export_for_training(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
                        preserve_module_call_signature=()):
    """The older name of :func:`export` (the same program)."""
    return export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                  preserve_module_call_signature=preserve_module_call_signature)


class ShapesCollection:
    """Build ``dynamic_shapes`` by tensor: ``sc[x] = {0: Dim("b")}``, then
    ``sc.dynamic_shapes(model, args, kwargs)``."""

    def __init__(self):
        self._by_id = {}

    def __setitem__(self, tensor, spec):
        self._by_id[id(tensor)] = (tensor, spec)

    def __getitem__(self, tensor):
        return self._by_id[id(tensor)][1]

    def __contains__(self, tensor):
        return id(tensor) in self._by_id

    def dynamic_shapes(self, m, args, kwargs=None):
        def spec(value):
            if isinstance(value, Tensor):
                return self._by_id.get(id(value), (None, None))[1]
            if isinstance(value, (tuple, list)):
                return type(value)(spec(v) for v in value)
            if isinstance(value, dict):
                return {k: spec(v) for k, v in value.items()}
            return None

        return {name: spec(value) for name, value in _bound(m, args, dict(kwargs or {}))}


def default_decompositions():
    """The decomposition table :meth:`ExportedProgram.run_decompositions` would use: empty,
    as numtorch's graphs hold torch-level calls."""
    return {}


def register_dataclass(cls, *, serialized_type_name=None):
    """Let a dataclass be an input or output of an exported program (a pytree node)."""
    import dataclasses

    fields = [f.name for f in dataclasses.fields(cls)]
    _pytree.register_pytree_node(
        cls, lambda obj: ([getattr(obj, f) for f in fields], None),
        lambda values, _: cls(**dict(zip(fields, values))),
        serialized_type_name=serialized_type_name)
