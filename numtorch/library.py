"""``torch.library``: user-defined operators (``custom_op``) with optional autograd formulas,
per-device kernels and fake (shape-only) implementations.

numtorch runs programs eagerly, so an operator is its Python implementation called through
a :class:`CustomOpDef`; a registered autograd formula runs through
:class:`numtorch.autograd.Function` (the node is named as torch names it), and the fake
implementation is kept for code that asks for it. Every operator is also reachable as
``torch.ops.<namespace>.<name>`` (see numtorch/_ops_tree.py); operators declared by a schema
string (``define``, ``impl``, ``Library``) live in numtorch/_ops_library.py.
"""

import inspect

from . import _library_rules, _ops_tree
from ._library_fake import FakeImplCtx, get_ctx
from ._ops_library import Library, _tensors, define, defined, impl
from ._ops_schema import FunctionSchema, annotation_type, default_text, returns_text
from ._tensor import Tensor
from .autograd import graph as _graph
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled, no_grad

__all__ = ["custom_op", "CustomOpDef", "register_fake", "register_autograd",
           "register_kernel", "register_vmap", "register_autocast", "opcheck", "impl_abstract",
           "infer_schema", "Library", "define", "impl", "get_ctx", "FakeImplCtx",
           "triton_op", "wrap_triton", "fallthrough_kernel"]

_REGISTRY = {}  # "namespace::name" -> CustomOpDef


def _parse_name(qualname):
    # torch unpacks the split as here: a name without "::" fails with Python's ValueError
    namespace, name = qualname.split("::")
    return namespace, name


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The operator schema torch infers from ``prototype_function``'s type annotations,
    e.g. ``"(Tensor(a0!) x, float k=1.0) -> Tensor"`` (prefixed by ``op_name`` if given).

    Raises:
        ValueError: a parameter without annotation, or of a type or default value an
        operator cannot take.
    """
    sig = inspect.signature(prototype_function)
    shown = str(sig).replace("numtorch.", "torch.")  # (Tensor's own module is numtorch)
    mutated = set(sig.parameters) if mutates_args == "unknown" else set(mutates_args)
    parts, star, alias = [], False, 0
    for p in sig.parameters.values():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type "
                             f"annotation. Got func with signature {shown})")
        type_ = annotation_type(p.annotation)
        if type_ is None:
            raise ValueError(f"infer_schema(func): Parameter {p.name} has unsupported type "
                             f"{p.annotation}. Got func with signature {shown})")
        if p.name in mutated and type_.startswith("Tensor"):
            type_ = type_.replace("Tensor", f"Tensor(a{alias}!)", 1)
            alias += 1
        text = f"{type_} {p.name}"
        if p.default is not inspect.Parameter.empty:
            default = default_text(p.default)
            if default is None:
                raise ValueError(f"infer_schema(func): Parameter {p.name} has an unsupported "
                                 f"default value type {type(p.default)}. Please file an issue "
                                 f"on GitHub so we can prioritize this. Got func with "
                                 f"signature {shown})")
            text += f"={default}"
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        parts.append(text)
    schema = f"({', '.join(parts)}) -> {returns_text(sig.return_annotation)}"
    return schema if op_name is None else op_name + schema


class CustomOpDef:
    """A custom operator made by :func:`custom_op`: call it like the function it wraps.

    Attributes:
        _namespace, _name, _qualname (str): ``"ns"``, ``"foo"`` and ``"ns::foo"``.
    """

    def __init__(self, namespace, name, fn, mutates_args):
        self._namespace, self._name = namespace, name
        self._qualname = f"{namespace}::{name}"
        self._init_fn = fn
        self._signature = inspect.signature(fn)
        self._mutates_args = mutates_args
        self._kernels = {}
        self._abstract_fn = None
        self._backward_fn = self._setup_context_fn = None
        self._vmap_fn = None
        self._autocast = {}  # device type -> dtype its float inputs are cast to
        self.__name__ = name
        self.__doc__ = fn.__doc__
        params = self._signature.parameters
        self._names = list(params)
        self._kw_only = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        self._autograd_cls = self._make_function()

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    # -- registration ---------------------------------------------------------------------
    def register_kernel(self, device_types, fn=None):
        """Use ``fn`` instead of the default implementation for inputs on
        ``device_types`` (``"cpu"``, ``"cuda"`` or a list); usable as a decorator."""
        def register(f):
            types = [device_types] if isinstance(device_types, str) or device_types is None \
                else list(device_types)
            for t in types:
                self._kernels[t] = f
            return f

        return register if fn is None else register(fn)

    def register_fake(self, fn):
        """Record the shape-only implementation (used by tracing compilers); returns
        ``fn``."""
        self._abstract_fn = fn
        return fn

    def register_vmap(self, fn=None):
        """Give the operator a batching rule: ``fn(info, in_dims, *args, **kwargs)`` returns
        ``(output, out_dims)``; ``info.batch_size``, ``info.randomness``. Without one, vmap
        calls the operator once per sample. Usable as a decorator."""
        def register(f):
            self._vmap_fn = f
            return f

        return register if fn is None else register(fn)

    def register_autocast(self, device_type, cast_inputs):
        """Under autocast on ``device_type``, cast the floating-point tensor inputs (not
        float64) to ``cast_inputs`` and run the operator with autocast off."""
        self._autocast[device_type] = cast_inputs

    def register_autograd(self, backward, /, *, setup_context=None):
        """Give the operator a derivative: ``setup_context(ctx, inputs, output)`` saves what
        ``backward(ctx, *grads)`` needs; ``backward`` returns one gradient per input."""
        self._backward_fn, self._setup_context_fn = backward, setup_context

    # -- calling ----------------------------------------------------------------------------
    def _kernel(self, args):
        if self._kernels:
            for t in _tensors(args):
                fn = self._kernels.get(t.device.type)
                if fn is not None:
                    return fn
            if None in self._kernels:
                return self._kernels[None]
        return self._init_fn

    def _make_function(self):
        """The autograd Function of this operator; its node is named as torch's
        (``GeneratedBackwardFor_<ns>_<name>_defaultBackward``)."""
        op = self

        def forward(*values):
            return op._run(values)

        def setup_context(ctx, inputs, output):
            # the setup_context form, which torch.func's transforms require
            if op._setup_context_fn is not None:
                op._setup_context_fn(ctx, tuple(inputs), output)

        def backward(ctx, *grads):
            if op._backward_fn is None:
                raise RuntimeError(f"Trying to backward through {op._namespace}.{op._name}"
                                   f".default but no autograd formula was registered. Please "
                                   f"use register_autograd to add one.")
            got = op._backward_fn(ctx, *grads)
            return got if isinstance(got, tuple) else (got,)

        name = f"GeneratedBackwardFor_{self._namespace}_{self._name}_default"
        return type(name, (Function,), {"forward": staticmethod(forward),
                                        "setup_context": staticmethod(setup_context),
                                        "backward": staticmethod(backward)})

    def _split(self, values):
        """The flat ``values`` of all parameters as (positional list, keyword dict)."""
        names, kw_only = self._names, self._kw_only
        pos = [v for n, v in zip(names, values) if n not in kw_only]
        kws = {n: v for n, v in zip(names, values) if n in kw_only}
        return pos, kws

    def _run(self, values):
        """Call the implementation with the flat ``values`` of all parameters."""
        pos, kws = self._split(values)
        kernel = self._kernel(values)
        with no_grad():
            out = kernel(*pos, **kws)
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, Tensor) and any(o is v for v in _tensors(values)):
                raise RuntimeError(f"{self._name} (with implementation in "
                                   f"{inspect.getmodule(kernel)}): The output of this custom "
                                   f"operator (1) must not also be an input to this custom "
                                   f"operator and (2) may not alias any inputs to this custom "
                                   f"operator or other returns.")
        return out

    def __call__(self, *args, **kwargs):
        hook = _graph._hook
        if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
            packet = getattr(_ops_tree.namespace(self._namespace), self._name)
            bound = self._signature.bind(*args, **kwargs)  # (formulas get torch's positions)
            return hook.count_call(packet, self, bound.args, bound.kwargs)
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [bound.arguments[n] for n in self._names]
        if self._autocast:
            cast = _library_rules.autocast_values(self, values)
            if cast is not None:
                from .amp import autocast

                with autocast(cast[0], enabled=False):
                    pos, kws = self._split(cast[1])
                    return self(*pos, **kws)
        batched = _library_rules.batched_call(self, values)
        if batched is not None:
            return batched
        if self._mutates_args or not is_grad_enabled() or not any(
                t.requires_grad for t in _tensors(values)):
            return self._run(values)
        return self._autograd_cls.apply(*values)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    """Make ``fn`` an operator named ``"namespace::name"`` (usable as a decorator).

    Args:
        name (str): ``"namespace::name"``.
        mutates_args (iterable of str or "unknown"): the parameters the function writes to
            (required, as in torch).
        device_types (str or list, optional): the devices ``fn`` is the kernel for.
        schema (str, optional): accepted; the parameters' annotations are checked instead.

    Returns:
        CustomOpDef: call it like ``fn``; add ``register_autograd``, ``register_kernel``,
        ``register_fake``.
    """
    namespace, opname = _parse_name(name)

    def make(f):
        text = infer_schema(f, mutates_args=mutates_args) if schema is None else schema
        parsed = FunctionSchema.parse(f"{namespace}::{opname}{text}")
        earlier = defined(parsed.name)
        if earlier is not None:
            raise RuntimeError(
                f"Tried to register an operator ({earlier.schema}) with the same name and "
                f"overload name multiple times. Each overload's schema should only be "
                f"registered with a single call to def(). Duplicate registration: registered "
                f"at {inspect.getsourcefile(f)}. Original registration: registered at "
                f"{earlier.where}")
        mutated = () if mutates_args == "unknown" else tuple(mutates_args)
        op = CustomOpDef(namespace, opname, f, mutated)
        op._schema = parsed
        if device_types is not None:
            op.register_kernel(device_types, f)
        _REGISTRY[op._qualname] = op
        packet = _ops_tree.namespace(namespace)._packet(opname)
        packet._overloads.clear()  # a second custom_op of one name replaces the first
        packet._add(parsed, lambda _schema, given: op(**given))
        return op

    return make if fn is None else make(fn)


def triton_op(name, fn=None, /, *, mutates_args, schema=None):
    """An operator whose implementation launches Triton kernels (through
    :func:`wrap_triton`); numtorch calls it as :func:`custom_op` does, eagerly."""
    return custom_op(name, fn, mutates_args=mutates_args, schema=schema)


def wrap_triton(triton_kernel, /):
    """A Triton kernel made callable from a :func:`triton_op`; needs the ``triton``
    package (absent: its ModuleNotFoundError, as in torch without it)."""
    import triton  # noqa: F401

    raise RuntimeError("numtorch cannot launch Triton kernels: its CUDA path runs CuPy "
                       "kernels")


def fallthrough_kernel():
    """A kernel marking a dispatch key to skip (``Library.impl(..., fallthrough_kernel)``);
    never called."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _lookup(op):
    """The CustomOpDef or DefinedOp named by ``op`` (either object, an OpOverload or packet,
    or ``"ns::name[.overload]"``)."""
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, _ops_tree.OpOverload):
        op = op.name()
    elif isinstance(op, _ops_tree.OpOverloadPacket):
        op = op._qualified_op_name
    found = _REGISTRY.get(op) or defined(op)
    if found is None:
        raise RuntimeError(f"operator {op} does not exist")
    return found


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """Register the fake implementation of ``op`` (a :class:`CustomOpDef` or its name);
    usable as a decorator."""
    target = _lookup(op)
    if isinstance(target, CustomOpDef):
        return target.register_fake if func is None else target.register_fake(func)

    def register(f):
        target.set_kernel("meta", f)
        return f

    return register if func is None else register(func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Register the derivative of ``op`` (a :class:`CustomOpDef` or its name); see
    :meth:`CustomOpDef.register_autograd`."""
    target = _lookup(op)
    if isinstance(target, CustomOpDef):
        target.register_autograd(backward, setup_context=setup_context)
    else:
        target.backward, target.setup_context = backward, setup_context


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register a per-device implementation of ``op``; see
    :meth:`CustomOpDef.register_kernel`."""
    target = _lookup(op)
    if isinstance(target, CustomOpDef):
        return target.register_kernel(device_types, func)

    def register(f):
        for t in [device_types] if isinstance(device_types, str) else device_types:
            target.set_kernel(t, f)
        return f

    return register if func is None else register(func)


def _custom(op, what):
    target = _lookup(op)
    if not isinstance(target, CustomOpDef):
        raise TypeError(f"{what}: expected a custom operator made with custom_op, got {op}")
    return target


def register_vmap(op, func=None, /, *, lib=None):
    """Register the batching rule of ``op``; see :meth:`CustomOpDef.register_vmap`."""
    return _custom(op, "register_vmap").register_vmap(func)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """Register autocast's input cast for ``op``; see :meth:`CustomOpDef.register_autocast`."""
    _custom(op, "register_autocast").register_autocast(device_type, cast_inputs)


def opcheck(op, args, kwargs=None, *, test_utils=None, raise_exception=True, atol=None,
            rtol=None):
    """Check a custom operator's registrations on example inputs, as torch's ``opcheck``:
    ``test_schema`` (no input it does not declare mutated changes), ``test_autograd_registration``,
    ``test_faketensor`` (the fake implementation gives the real output's shapes and dtypes)
    and ``test_aot_dispatch_static``/``_dynamic`` (forward and backward run).

    Returns:
        dict: test name -> "SUCCESS", or the exception (with ``raise_exception=False``).

    Raises:
        OpCheckError: the first failing test, when ``raise_exception``.
    """
    from ._library_opcheck import run

    return run(_custom(op, "opcheck"), args, kwargs or {}, test_utils, raise_exception)
