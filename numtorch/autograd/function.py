"""User-defined differentiable functions: ``autograd.Function``.

Two forms are supported:

* the modern static form: ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` as
  staticmethods, called through ``MyFn.apply(*args)`` (optionally with ``setup_context``);
* the 0.x instance form of the old docs: ``forward(self, *args)`` / ``backward(self, *grads)``
  as plain methods, called as ``MyFn()(*args)``; ``self`` is then the context.

The context object is the graph node, exactly like ``Op`` instances for built-in ops.
"""

import functools
import inspect
import warnings
import weakref

from .. import backend
from .._class_repr import TorchNamed, torch_name
from . import _custom_views, _func_transforms, graph
from .anomaly_mode import _flags as _anomaly, forward_stack
from .graph import Node, edge_of
from .grad_mode import InferenceVersion, _state, no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable", "InplaceFunction",
           "NestedIOFunction"]


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function: saves tensors and carries flags to ``backward``."""

    _fw_saved = ()  # what save_for_forward kept: ``saved_tensors`` inside ``jvp``
    _in_jvp = False

    def __init__(self, fn_cls=None):
        self._seq = next(graph._sequence)
        self._fn_cls = fn_cls
        self.to_save = ()
        self._saved_in = None
        self._dirty = ()
        self._non_differentiable = ()
        self.materialize_grads = True
        self._edges = ()
        self._released = False

    @property
    def next_functions(self):
        # torch lists the tensor arguments only (a number or a callback passed to apply has
        # no edge at all, not an empty one)
        edges = Node.next_functions.fget(self)
        meta = getattr(self, "_in_meta", None)
        if not meta or len(meta) != len(edges):
            return edges
        return tuple(e for e, m in zip(edges, meta) if m is not None)

    def __call__(self, *grads):
        # torch's node of a custom Function is a Python object without a call (its backward
        # runs through ``apply``); the built-in nodes are callable (Node.__call__)
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    # -- the ctx API ---------------------------------------------------------------------
    def save_for_backward(self, *tensors):
        """Keep tensors (inputs or outputs of forward, or None) for ``backward``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, graph.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for ``jvp`` (read there as ``ctx.saved_tensors``; apart from what
        ``save_for_backward`` keeps for ``backward``, as torch's)."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, graph.Tensor):
                raise TypeError("save_for_forward expects all arguments to be tensors; you "
                                "should save non-tensors as attributes on ctx.")
        self._fw_saved = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that forward modified in place (they are returned as outputs)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether ``backward`` receives zeros (True, default) or None for unused outputs."""
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        if self._in_jvp:
            return tuple(self._fw_saved)
        if self._saved_in is None:
            if self._released:
                raise RuntimeError(graph._FREED)
            return ()
        out = []
        for entry in self._saved_in:
            if entry is None:
                out.append(None)
                continue
            t, vc, version, out_idx, arr = entry
            if type(arr) is graph._Packed:  # kept through saved_tensors_hooks
                u = arr.tensor()
                if out_idx is None:
                    out.append(u)
                    continue
                arr, vc = u._array, u._vc
            elif vc[0] != version:
                # a saved input is named by the node that last wrote it (its grad_fn now)
                edge = (graph._UNSET if out_idx is not None else
                        None if t._grad_fn is None else (t._grad_fn, t._output_nr))
                raise RuntimeError(graph._modified_message(self, arr, out_idx or 0, vc[0],
                                                           version, output=out_idx is not None,
                                                           edge=edge))
            if out_idx is not None:  # an output: rebuilt so it does not keep ctx in a cycle
                t = graph._make(arr)
                t._vc = vc
                if _state.enabled and out_idx < self._n_out:
                    t._requires_grad, t._grad_fn, t._output_nr = True, self, out_idx
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    @property
    def needs_input_grad(self):
        return tuple(e is not None for e in self._edges)

    def name(self):
        cls = self._fn_cls
        return (cls.__name__ + "Backward") if cls is not None else "FunctionBackward"

    def __repr__(self):
        return f"<{torch_name(type(self))} object at {hex(id(self))}>"

    # -- engine interface ----------------------------------------------------------------
    def _release(self):
        self._saved_in = self._saved = None
        self._released = True

    def _run(self, grads, create_graph, root_arrays):
        if self.materialize_grads:
            # (an output that was not a tensor, m[1] None, gets None: there is nothing to fill)
            grads = tuple(g if g is not None or m[1] is None else graph._make(
                backend.xp_of(self._xp_ref).zeros(m[0], dtype=m[1]))
                for g, m in zip(grads, self._out_meta))
        res = self._call_backward(grads)
        if not isinstance(res, tuple):
            res = (res,)
        n_in = len(self._edges)
        if len(res) != n_in:
            if len(res) > n_in and all(r is None for r in res[n_in:]):
                res = res[:n_in]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n_in}, got {len(res)})")
        meta = getattr(self, "_in_meta", None) or (True,) * n_in
        for i, r in enumerate(res):
            if r is None:
                continue
            if meta[i] is None:  # torch checks every input, not only those needing grad
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {i + 1}, but the corresponding forward "
                                   "input was not a Variable")
            if not isinstance(r, graph.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        return res

    def _call_backward(self, grads):
        if _func_transforms.LINEARIZING[0] and self._fn_cls is not None and \
                self._fn_cls.jvp is not Function.jvp:
            return _jvp_transposed(self, grads)
        return self._fn_cls.backward(self, *grads)

    def _call_jvp(self, tangents):
        """The Function's ``jvp`` with ``saved_tensors`` reading what ``save_for_forward``
        kept; checks the number of tangents it returns."""
        self._in_jvp = True
        try:
            out = self._fn_cls.jvp(self, *tangents)
        finally:
            self._in_jvp = False
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != self._n_out:
            raise RuntimeError(f"Function's jvp returned an invalid number of forward "
                               f"gradients (expected {self._n_out} but got {len(out)})")
        return out


def _jvp_transposed(node, grads):
    """``node``'s vector-Jacobian product when ``torch.func``'s forward-mode transforms
    linearize (``_func_transforms.linearizing``): the transforms differentiate ``u -> J^T u``
    with respect to ``u`` to get ``J t``, so the map must be the transpose of the Function's
    ``jvp`` (torch's forward mode runs ``jvp``, not ``backward``). Its value is zero (the
    cotangents ``u`` are zeros there), its gradient calls ``jvp``."""
    live = [i for i, g in enumerate(grads)
            if isinstance(g, graph.Tensor) and g.requires_grad]
    metas = getattr(node, "_in_logical", None) or node._in_meta
    wanted = [k for k, (e, m) in enumerate(zip(node._edges, metas))
              if e is not None and m is not None and m[1].kind in "fcV"]
    if not live or not wanted:
        return (None,) * len(node._edges)
    zeros = _JvpTranspose.apply(node, (live, wanted, metas), *[grads[i] for i in live])
    zeros = zeros if isinstance(zeros, tuple) else (zeros,)
    res = [None] * len(node._edges)
    for k, z in zip(wanted, zeros):
        res[k] = z
    return tuple(res)


_CTX_CLASSES = weakref.WeakKeyDictionary()  # Function subclass -> {ctx base: node class}


def _ctx_class(fn_cls, base):
    """The node class of ``fn_cls``: a ``base`` subclass named ``<Function>Backward``, the name
    torch gives a custom Function's node (and its ctx)."""
    per = _CTX_CLASSES.get(fn_cls)
    if per is None:
        per = _CTX_CLASSES[fn_cls] = {}
    c = per.get(base)
    if c is None:
        name = fn_cls.__name__ + "Backward"
        c = per[base] = TorchNamed(name, (base,), {"__module__": __name__, "__qualname__": name})
    return c


class _LegacyCtx(FunctionCtx):
    """Context for the 0.x instance form: the Function object itself plays ``ctx``."""

    def __init__(self, fn):
        super().__init__(type(fn))
        self._fn = fn

    def _call_backward(self, grads):
        fn = self._fn
        fn.saved_variables = self.saved_tensors
        fn.needs_input_grad = self.needs_input_grad
        return type(fn).backward(fn, *grads)


def _run_function(ctx, forward, args, kwargs):
    """Run ``forward`` without recording, then join its outputs to the graph through ctx."""
    tensor_args = [a for a in args if isinstance(a, graph.Tensor)]
    record = _state.enabled and any(a.requires_grad for a in tensor_args)
    ctx._edges = tuple(edge_of(a) if isinstance(a, graph.Tensor) and _state.enabled else None
                       for a in args)
    # numbered after the accumulators edge_of may just have made for its inputs: the engine
    # runs nodes in decreasing creation order, so a leaf's accumulator must come before every
    # node that feeds it (a module with a full backward hook called twice on one input)
    ctx._seq = next(graph._sequence)
    ctx._in_meta = [(a._array.shape, a._array.dtype) if isinstance(a, graph.Tensor) else None
                    for a in args]
    if record and _anomaly["enabled"]:  # the forward's stack, shown when backward fails
        ctx._anomaly_trace = forward_stack()
    tangents = _input_tangents(ctx, args)
    with no_grad():
        if tangents is None:
            outputs = forward(*args, **kwargs)
        else:
            outputs = _forward_on_primals(forward, args, kwargs)
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    dirty_ids = {id(t) for t in ctx._dirty}
    for t in ctx._dirty:  # torch counts a marked in-place change once more, in any grad mode
        if isinstance(t, graph.Tensor):
            t._vc[0] += 1
            if record:  # torch's checks of a recorded in-place change, after forward ran
                base = t._base
                if t._grad_fn is None and t._requires_grad:  # a leaf, a view made one or not
                    raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                       "in-place operation.")
                if base is not None and base._grad_fn is None and \
                        (base._requires_grad or t.requires_grad):
                    raise RuntimeError("a view of a leaf Variable that requires grad is being "
                                       "used in an in-place operation.")
    if record and any(not any(t is a for a in tensor_args) for t in ctx._dirty):
        warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                      "Tensors that have been mutated should be passed to ctx.mark_dirty().",
                      stacklevel=3)
    if ctx._dirty and not all(any(t is o for o in outs) for t in ctx._dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    non_diff = {id(t) for t in ctx._non_differentiable}
    # (asked of the objects forward returned)
    diff = [record and isinstance(o, graph.Tensor) and id(o) not in non_diff
            and o._array.dtype.kind in "fcV" for o in outs]
    n_diff = sum(diff)
    wrapped = []
    aliased = [None] * len(outs)  # per output: the input returned as-is, or the viewed base
    for i, o in enumerate(outs):
        if not isinstance(o, graph.Tensor):
            wrapped.append(o)
            continue
        source = None  # the tensor whose memory a non-dirty output shares (torch: a view)
        if id(o) not in dirty_ids:
            given = next((a for a in tensor_args if o is a), None)
            aliased[i] = given if given is not None else o._base
            if given is not None:
                # an input returned unchanged: hand back an alias so the input keeps its
                # history (a view of it, except under no_grad or when it is a non-differentiable
                # output of an input that requires grad: then a plain alias, as torch's)
                alias = graph._make(o._array)
                alias._vc = o._vc
                o = alias
                if _state.enabled and (diff[i] or not given.requires_grad):
                    source = given
                if any(t is given for t in ctx.to_save) and \
                        _uses_setup_context(ctx):
                    raise RuntimeError(_SAVED_AS_IS)
            elif o._base is not None:
                source = o._base
        if not diff[i]:
            if source is not None:
                _custom_views.untracked(o, source, n_diff)
        elif source is not None:
            _custom_views.wire(ctx, o, i, source, n_diff)
        else:
            if id(o) in dirty_ids and o._base is not None and o._view_fn is not None:
                # a view written in place: its base now routes the written region through
                # this node (CopySlices) and the view is rebuilt from the base, as for any
                # in-place op on a view (the base kept its old history: wrong gradients)
                from . import inplace

                new = graph._make(o._array)
                new._requires_grad, new._grad_fn, new._output_nr = True, ctx, i
                inplace._rebase(o, new)
            else:
                o._requires_grad, o._grad_fn, o._output_nr = True, ctx, i
                o._base = None
        wrapped.append(o)
    ctx._n_out = len(outs)
    ctx._out_meta = tuple((o._array.shape, o._array.dtype) if isinstance(o, graph.Tensor)
                          else ((), None) for o in wrapped)
    ref = next((o for o in wrapped if isinstance(o, graph.Tensor)), None)
    ctx._xp_ref = ref._array if ref is not None else None
    if record:
        saved = []
        for t in ctx.to_save:
            if t is None:
                saved.append(None)
                continue
            if type(t._vc) is InferenceVersion:
                raise RuntimeError(graph._INFERENCE_SAVED)
            out_idx = next((k for k, o in enumerate(wrapped) if o is t), None)
            hooks = graph._packing() if graph._SAVED_HOOKS[0] else None
            if hooks is not None:
                saved.append((None, None, 0, out_idx, graph._Packed(t, hooks)))
                continue
            saved.append((t, t._vc, t._vc[0], out_idx, t._array))
        ctx._saved_in = saved
        if saved:  # the engine frees what a node keeps (without retain_graph) when it has run
            ctx._saved = saved
    else:
        ctx._saved_in = [None if t is None else (t, t._vc, t._vc[0], None, t._array)
                         for t in ctx.to_save]
        ctx._edges = tuple(None for _ in args)
    ctx.to_save = ()
    if tangents is not None:
        _give_tangents(ctx, tangents, wrapped, args, aliased, dirty_ids, outs)
    return wrapped[0] if single else tuple(wrapped)


_SAVED_AS_IS = ("An input that has been returned as-is as output is being saved for backward. "
                "This is not supported if you override setup_context. You should return and "
                "save a view of the input instead, e.g. with x.view_as(x) or setup ctx inside "
                "the forward function itself.")


def _uses_setup_context(ctx):
    cls = getattr(ctx, "_fn_cls", None)
    return cls is not None and cls.setup_context is not Function.setup_context


def _input_tangents(ctx, args):
    """The forward-mode tangents of ``args`` (None per arg without one), or None when no
    dual level is open or no arg carries a tangent."""
    from . import forward_ad

    if forward_ad._state["level"] is None or not isinstance(ctx, FunctionCtx) \
            or isinstance(ctx, _LegacyCtx):
        return None
    tangents = [forward_ad._tangent(a) if isinstance(a, graph.Tensor) else None for a in args]
    return tangents if any(t is not None for t in tangents) else None


def _forward_on_primals(forward, args, kwargs):
    # a custom Function's forward sees plain values: its outputs' tangents come from jvp
    from . import forward_ad

    busy = forward_ad._state["busy"]
    forward_ad._state["busy"] = True
    try:
        return forward(*args, **kwargs)
    finally:
        forward_ad._state["busy"] = busy


def _give_tangents(ctx, tangents, wrapped, args, aliased, dirty_ids, outs):
    from . import forward_ad

    # a floating-point input without a tangent gets zeros, as torch's
    from .. import zeros_like

    full = [zeros_like(a.detach()) if t is None and isinstance(a, graph.Tensor) and
            _is_float(a) else t for a, t in zip(args, tangents)]
    out = ctx._call_jvp(full)
    non_diff = {id(t) for t in ctx._non_differentiable}
    for i, (o, t, src) in enumerate(zip(wrapped, out, aliased)):
        if t is None or not isinstance(o, graph.Tensor):
            continue
        if id(outs[i]) in non_diff or o._array.dtype.kind not in "fcV":
            raise RuntimeError(f"Function's jvp returned a gradient at position {i}, but  the "
                               "corresponding forward output is not a differentiable Tensor."
                               "You should return None at that position instead.")
        if tuple(t.shape) != tuple(o.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size "
                               f"than that of the original Tensor, this is not supported. "
                               f"Tensor is of size {list(o.shape)} while the given forward "
                               f"gradient is of size {list(t.shape)}.")
        if id(outs[i]) in dirty_ids:
            k = next((k for k, a in enumerate(args) if a is outs[i]), None)
            if k is not None and tangents[k] is not None and t is not tangents[k]:
                raise RuntimeError("An inplace custom Function is not modifying the forward "
                                   "mode gradients inplace. If the forward is modifying an "
                                   "input inplace, then the jvp function must modify the "
                                   "corresponding gradient inplace.")
        if src is not None:
            _check_view_tangent(t, src, args, tangents)
        forward_ad._set_tangent(o, t)


def _is_float(t):
    return t._array.dtype.kind in "fcV"


def _root(t):
    return t._base if t._base is not None else t


def _check_view_tangent(t, src, args, tangents):
    """An output sharing memory with ``src`` (an input returned as-is, or the base of a view)
    needs a tangent that is the input's own or a view of its base, as torch requires."""
    k = next((k for k, a in enumerate(args) if a is src), None)
    if k is not None and t is tangents[k] and (t._base is not None or src._base is not None):
        # the input's tangent handed back as-is: torch's check is whether it is a view, which
        # the tangent of a view input (a dual made by make_dual among them) may be in torch
        # where numtorch keeps a tensor of its own; those pass
        return
    if t._base is None:
        raise RuntimeError("A custom Function's forward is returning a view (or an input "
                           "as-is) but the jvp is not returning a view.")
    given = next((tangents[k] for k, a in enumerate(args) if isinstance(a, graph.Tensor)
                  and tangents[k] is not None and _root(a) is _root(src)), None)
    if given is None:
        return
    if given._base is not None:
        if _root(t) is not given._base:
            raise RuntimeError("A custom Function is returning a view but the jvp is not "
                               "returning a view of the same base as the given grad input.")
    elif t._base is not given:
        raise RuntimeError("A custom Function is returning a view but the jvp is not returning "
                           "a view of the given grad input.")


class _FunctionMeta(TorchNamed):
    """Lets the 0.x instance form work: ``MyFn()(x)`` calls the instance's ``forward``; prints
    the class under torch's name (<class 'torch.autograd.function.Function'>)."""


_SIGNATURES = weakref.WeakKeyDictionary()


def _bound(cls, args, kwargs):
    """The arguments of a ctx-less ``forward`` (the ``setup_context`` form) as torch passes
    them: matched against the signature (a wrong call raises inspect's TypeError, "missing a
    required argument: 'x'"), defaults filled in, every parameter before ``*args`` given by
    position (``setup_context`` sees them all in ``inputs``). Keyword-only parameters end
    up as keywords, which torch's apply refuses; so does this."""
    sig = _SIGNATURES.get(cls)
    if sig is None:
        sig = _SIGNATURES[cls] = inspect.signature(cls.forward)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(f"forward() got an unexpected keyword argument "
                        f"'{next(iter(bound.kwargs))}'")
    return bound.args, {}


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations.

    Example:
        >>> class Exp(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         y = x.exp()
        ...         ctx.save_for_backward(y)
        ...         return y
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (y,) = ctx.saved_tensors
        ...         return grad * y
        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> Exp.apply(x).sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])

    The 0.x form (``forward(self, x)`` as a plain method, used as ``MyFn()(x)``) also works;
    then ``self`` plays the role of ``ctx``.
    """

    def __init__(self, *args, **kwargs):
        # torch warns on any instance (its methods are static); numtorch still runs the 0.x
        # instance form afterwards
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)
        self._legacy_ctx = None

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the function and record it in the graph (the modern, static form)."""
        ctx = _ctx_class(cls, FunctionCtx)(cls)
        run, batched = cls.forward, False
        if _func_transforms.KINDS:
            from ..func._custom_function import forward_under_transforms

            run, batched = forward_under_transforms(cls, Function, args)
        if cls.setup_context is not Function.setup_context:
            args, kwargs = _bound(cls, args, kwargs)

            def forward(*a, **k):
                out = run(*a, **k)
                cls.setup_context(ctx, a, out)
                return out
        else:
            def forward(*a, **k):
                return cls.forward(ctx, *a, **k)
        if batched:
            from ..func._custom_function import apply_batched

            return apply_batched(ctx, _run_function, forward, args, kwargs)
        return _run_function(ctx, forward, args, kwargs)

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Optional: fill ``ctx`` from the inputs and output (forward then takes no ctx)."""
        return None

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Compute the outputs from the inputs (subclasses override)."""
        raise NotImplementedError("You must implement the forward function for custom "
                           "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Return one gradient (or None) per forward input (subclasses override)."""
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                           "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    generate_vmap_rule = False  # True: under vmap, forward runs on the batched inputs

    @staticmethod
    def vmap(info, in_dims, *args):
        """Under ``torch.func.vmap``: the outputs and their batch dims from batched inputs
        (subclasses override, or set ``generate_vmap_rule``)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set "
                                  "generate_vmap_rule=True.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the outputs' tangents from the inputs' (subclasses override)."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    def __call__(self, *args):
        """The 0.x call form: ``MyFn()(x)`` with ``forward(self, ...)`` as a plain method."""
        ctx = _ctx_class(type(self), _LegacyCtx)(self)
        self._legacy_ctx = ctx
        self.needs_input_grad = tuple(isinstance(a, graph.Tensor) and a.requires_grad
                                      for a in args)
        self.num_inputs = len(args)
        out = _run_function(ctx, type(self).forward.__get__(self), args, {})
        self.num_outputs = len(out) if isinstance(out, tuple) else 1
        return out

    # -- the 0.x instance API: ``self`` is the context inside forward/backward -------------
    def _ctx(self):
        ctx = self.__dict__.get("_legacy_ctx")
        if ctx is None:
            raise RuntimeError(f"{type(self).__name__}: this method is for the 0.x form, inside "
                               "forward() of a Function called as MyFn()(inputs)")
        return ctx

    def save_for_backward(self, *tensors):
        """0.x form: keep tensors for ``backward`` (read them as ``self.saved_tensors``)."""
        self._ctx().save_for_backward(*tensors)

    def mark_dirty(self, *args):
        """0.x form: declare inputs modified in place by forward."""
        self._ctx().mark_dirty(*args)

    def mark_non_differentiable(self, *args):
        """0.x form: declare outputs that get no gradient."""
        self._ctx().mark_non_differentiable(*args)

    def mark_shared_storage(self, *pairs):
        """0.x form: declared input/output storage sharing; numtorch tracks sharing itself."""
        self._ctx()

    @property
    def saved_tensors(self):
        """0.x form: the tensors given to ``save_for_backward``."""
        return self._ctx().saved_tensors

    @property
    def requires_grad(self):
        """0.x: whether any input required grad."""
        return any(self.__dict__.get("needs_input_grad", ()))

    @property
    def previous_functions(self):
        """0.x name of the graph edges: ``(node, output_nr)`` per input."""
        return self._ctx().next_functions


class _JvpTranspose(Function):
    """``u -> J^T u`` of a custom Function known through its ``jvp`` (``_jvp_transposed``)."""

    @staticmethod
    def forward(ctx, node, slots, *cotangents):
        wanted = slots[1]
        ctx.node, ctx.slots = node, slots
        xp = backend.xp_of(node._xp_ref) if node._xp_ref is not None else backend.get_xp("cpu")
        levels = getattr(node, "_in_levels", None)
        if levels is None:
            return tuple(graph._make(xp.zeros(slots[2][k][0], dtype=slots[2][k][1]))
                         for k in wanted)
        # a node recorded under vmap: zeros that vary over each input's levels (an unbatched
        # zero would make the tangents summed over the batch on the way back)
        from ..func import _batched as B

        out = []
        for k in wanted:
            shape, dtype = node._in_meta[k]
            z = graph._make(xp.zeros(shape, dtype=dtype))
            out.append(B.wrap(z, levels[k]) if levels[k] else z)
        return tuple(out)

    @staticmethod
    def backward(ctx, *tangents):
        from .. import zeros
        from .._dtype import from_numpy_dtype

        node, (live, wanted, metas) = ctx.node, ctx.slots

        full = [None if m is None or m[1].kind not in "fcV" else
                zeros(m[0], dtype=from_numpy_dtype(m[1])) for m in metas]
        for k, t in zip(wanted, tangents):
            if t is not None:
                full[k] = t
        out = node._call_jvp(full)
        metas_out = getattr(node, "_out_logical", None) or node._out_meta
        for i in live:
            t, shape = out[i], metas_out[i][0]
            if t is not None and tuple(t.shape) != tuple(shape):
                raise RuntimeError(f"Trying to set a forward gradient that has a different "
                                   f"size than that of the original Tensor, this is not "
                                   f"supported. Tensor is of size {list(shape)} while the given "
                                   f"forward gradient is of size {list(t.shape)}.")
        return (None, None) + tuple(out[i] for i in live)


class InplaceFunction(Function):
    """A Function that may modify its input in place (``inplace`` flag kept for 0.x code)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """0.x name kept for compatibility; behaves as Function."""


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class Error(Node):
    """The node of gradients that a ``@once_differentiable`` backward computed while a graph was
    being built (``create_graph=True`` with gradients that require grad): the first-order values
    are fine, differentiating them again raises. Torch names this node ``Error`` too.

    As in torch, its edges lead to fresh leaves, not to the graph that produced the incoming
    gradients: ``autograd.grad(..., inputs)`` skips it when it lies on no path to ``inputs``,
    while a plain ``backward()`` runs it and raises.
    """

    def __init__(self, outputs):
        self._seq = next(graph._sequence)
        leaves = [o for o in outputs if isinstance(o, graph.Tensor)]
        self._stubs = [graph._make(o._array) for o in leaves]
        for t in self._stubs:
            t._requires_grad = True
        self._edges = tuple((graph.accumulator(t), 0) for t in self._stubs)
        self._in_meta = tuple((t._array.shape, t._array.dtype) for t in self._stubs)
        self._n_out = len(outputs)
        self._out_meta = tuple((o._array.shape, o._array.dtype) if isinstance(o, graph.Tensor)
                               else ((), None) for o in outputs)

    def name(self):
        return "torch::autograd::Error"

    def _run(self, grads, create_graph, root_arrays):
        raise RuntimeError(_TWICE)


def once_differentiable(fn):
    """Decorate ``backward``: it runs without recording a graph.

    Under ``create_graph=True`` the gradients it returns are still correct first-order values;
    when the gradients it received require grad, its results hang off an ``Error`` node, so
    differentiating them again raises torch's error.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _state.enabled:
            return outputs
        if not any(isinstance(a, graph.Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = Error(outs)
        wrapped = []
        for i, o in enumerate(outs):
            if isinstance(o, graph.Tensor) and o._array.dtype.kind in "fcV":
                o = graph._make(o._array)
                o._requires_grad, o._grad_fn, o._output_nr = True, node, i
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
