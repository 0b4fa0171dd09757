"""A custom ``autograd.Function`` inside ``torch.func`` transforms, with torch's rules:

* any transform needs the ``setup_context`` form (``forward`` without ``ctx``);
* ``vmap`` (also the one inside ``jacfwd``) needs a ``vmap`` staticmethod or
  ``generate_vmap_rule = True``. With the staticmethod, the Function's forward values come from
  it, called once for the innermost level its inputs vary over, with each such input's batch
  dim first and the level's size and randomness in ``info``; the Function's ``backward`` still
  gives the gradients;
* forward-mode transforms (``jvp``, ``jacfwd``, ``linearize``) need a ``jvp`` staticmethod
  when an input carries a tangent.

numtorch's forward-mode transforms get ``J t`` by differentiating the linear map
``u -> J^T u`` (the double-vjp identity, ``_grad.py``); in the backward pass that builds this
map a Function answers with the transpose of its ``jvp`` (``autograd.function.
_jvp_transposed``), so the tangents come from its ``jvp`` as in torch, not from ``backward``."""

from collections import namedtuple

from ..autograd import _func_transforms, graph
from ..autograd.grad_mode import _state
from . import _batched as B
from ._pytree import tree_flatten, tree_unflatten

_DOCS = " For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
_NEEDS_SETUP = ("In order to use an autograd.Function with functorch transforms (vmap, grad, "
                "jvp, jacrev, ...), it must override the setup_context staticmethod." + _DOCS)
_NEEDS_JVP = ("You must implement the jvp function for custom autograd.Function to use it "
              "with forward mode AD.")

VmapInfo = namedtuple("VmapInfo", ["batch_size", "randomness"])


def forward_under_transforms(cls, base, args):
    """Check ``cls`` against the running transforms; returns the forward ``apply`` should run
    (``cls.forward``, or one that calls ``cls.vmap``) and whether an input is batched (then
    ``apply_batched`` records it). ``base`` is ``autograd.Function``."""
    batched = any(B.is_batched(a) for a in args)
    if cls.__module__.startswith("numtorch.") and \
            not getattr(cls, "_user_rules_under_transforms", False):
        return cls.forward, batched  # numtorch's own Functions (hooks, ...)
    kinds = _func_transforms.KINDS
    if cls.setup_context is base.setup_context:
        raise RuntimeError(_NEEDS_SETUP)
    own_vmap = cls.vmap is not base.vmap
    if "vmap" in kinds and not own_vmap and not getattr(cls, "generate_vmap_rule", False):
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap "
                           "support. Please override and implement the vmap staticmethod or "
                           "set generate_vmap_rule=True." + _DOCS)
    if "jvp" in kinds and cls.jvp is base.jvp and any(
            isinstance(a, graph.Tensor) and a.requires_grad for a in args):
        raise NotImplementedError(_NEEDS_JVP)
    if own_vmap and not getattr(cls, "generate_vmap_rule", False) and batched:
        return (lambda *a, **k: _forward_by_vmap_rule(cls, a, k)), True
    return cls.forward, batched


def _forward_by_vmap_rule(cls, args, kwargs):
    from ._vmap import _move_in

    inner = max((v for a in args if B.is_batched(a) for v in a._levels), default=None)
    if inner is None:
        return cls.forward(*args, **kwargs)
    level = next(v for v in B.active_levels() if v.id == inner)
    in_dims = tuple(0 if B.is_batched(a) and inner in a._levels else None for a in args)
    lowered = [B.lower(a, (inner,)) if d == 0 else a for a, d in zip(args, in_dims)]
    result = _run_rule_outside(level, lambda: cls.vmap(
        VmapInfo(level.size, level.randomness), in_dims, *lowered, **kwargs))
    if not isinstance(result, tuple):
        raise RuntimeError(_TWO_RETURNS + f"Got a {type(result)} instead")  # noqa: TRY004
    if len(result) != 2:
        raise RuntimeError(_TWO_RETURNS + f"Got {len(result)} returns instead")
    out, out_dims = result
    flat, spec = tree_flatten(out)
    dims = []
    if not _broadcast_dims(out_dims, out, dims):
        raise RuntimeError(
            f"The autograd.Function's vmap staticmethod returned an incompatible (output, "
            f"out_dims) tuple. Expected out_dims={out_dims} to be compatible with the structure "
            f"of `output`. out_dims has structure {tree_flatten(out_dims)[1]} but output has "
            f"structure {spec}." + _DOCS)
    moved = []
    for o, d in zip(flat, dims):
        if not isinstance(o, graph.Tensor):  # (torch's classes of error, here and above)
            raise ValueError(f"vmap(apply, ...): `apply` must only return Tensors, got type "  # noqa: TRY004
                             f"{type(o)}. Did you mean to set out_dims= to None for output?")
        moved.append(o if d is None else _move_in(o, d, level))
    return tree_unflatten(moved, spec)


def _run_rule_outside(level, run):
    """Run a vmap staticmethod as torch does: with ``level`` and the levels inside it left
    for the call (its ops, random draws included, act on the lowered tensors as plain ones;
    torch.rand there draws once, whatever the randomness flag), then entered again."""
    from ._vmap import _enter, _exit

    active = B.active_levels()
    inner = active[active.index(level):]
    kinds = list(_func_transforms.KINDS)
    for lv in reversed(inner):
        _exit(lv)
    try:
        return run()
    finally:
        for lv in inner:
            _enter(lv)
        _func_transforms.KINDS[:] = kinds


_TWO_RETURNS = ("Expected the vmap staticmethod to have two returns, an output and out_dims with "
                "pytree structure compatible with the output. ")


def _broadcast_dims(dims, tree, out):
    """``dims`` (an out_dims prefix of ``tree``) repeated over ``tree``'s leaves into ``out``;
    False when the structures differ (torch requires the same container types)."""
    if isinstance(dims, (tuple, list, dict)):
        if type(dims) is not type(tree) or len(dims) != len(tree):
            return False
        if isinstance(dims, dict):
            return set(dims) == set(tree) and all(_broadcast_dims(dims[k], tree[k], out)
                                                  for k in tree)
        return all(_broadcast_dims(d, t, out) for d, t in zip(dims, tree))
    out.extend([dims] * tree_flatten(tree)[1].num_leaves)
    return True


def apply_batched(ctx, run_function, forward, args, kwargs):
    """``Function.apply`` when inputs vary over vmap levels. The forward runs on the batched
    inputs as usual; the graph, though, lives on the physical tensors (batched ops record
    there), so the node is joined to the inputs' and outputs' physical tensors, and its
    backward wraps the physical gradients back into the levels before ``backward`` runs
    (``_BatchedNode``)."""
    outs = run_function(ctx, forward, args, kwargs)
    single = not isinstance(outs, tuple)
    outs = (outs,) if single else outs
    levels = B.union_levels([*args, *outs])
    ctx._vmap_levels = [v for v in B.active_levels() if v.id in levels]
    ctx._in_levels = [B.physical(a)[1] if isinstance(a, graph.Tensor) else () for a in args]
    ctx._out_levels = [B.physical(o)[1] if isinstance(o, graph.Tensor) else () for o in outs]
    phys_in = [B.physical(a)[0] if isinstance(a, graph.Tensor) else None for a in args]
    if ctx._saved_in:  # a saved output comes back as saved, batched (not rebuilt from arrays)
        ctx._saved_in = [e if e is None or e[3] is None else (e[0], e[1], e[2], None, e[4])
                         for e in ctx._saved_in]
    if not any(getattr(o, "_grad_fn", None) is ctx for o in outs):
        return outs[0] if single else outs
    # (the jvp of a custom Function sees logical shapes)
    ctx._in_logical, ctx._out_logical = ctx._in_meta, ctx._out_meta
    ctx._edges = tuple(graph.edge_of(p) if p is not None and p.requires_grad and _state.enabled
                       else None for p in phys_in)
    ctx._in_meta = [None if p is None else (p._array.shape, p._array.dtype) for p in phys_in]
    metas = []
    for i, o in enumerate(outs):
        if not isinstance(o, graph.Tensor):
            metas.append(((), None))
            continue
        p = B.physical(o)[0]
        metas.append((p._array.shape, p._array.dtype))
        if o._grad_fn is ctx and p is not o:
            p._requires_grad, p._grad_fn, p._output_nr, p._base = True, ctx, i, None
    ctx._out_meta = tuple(metas)
    ctx.__class__ = _batched_node_class(type(ctx))
    return outs[0] if single else outs


_NODE_CLASSES = {}


def _batched_node_class(ctx_cls):
    c = _NODE_CLASSES.get(ctx_cls)
    if c is None:  # keeps the node's name (<Function>Backward) for grad_fn
        c = _NODE_CLASSES[ctx_cls] = type(ctx_cls.__name__, (_BatchedNode, ctx_cls),
                                          {"__module__": ctx_cls.__module__,
                                           "__qualname__": ctx_cls.__qualname__})
    return c


class _BatchedNode:
    """Mixed into a custom Function's ctx recorded on batched inputs: the engine hands it
    physical gradients; ``backward`` gets them wrapped in the output's levels (the levels are
    re-entered when the vmap has already returned, as in ``grad(vmap(f))``), and its results
    go back physical, summed over levels the input does not vary over."""

    def _run(self, grads, create_graph, root_arrays):
        from .. import zeros
        from ._vmap import _enter, _exit

        revived = [v for v in self._vmap_levels if v not in B.active_levels()]
        for v in revived:
            B._SIZES[v.id] = v.size
            _enter(v)
        try:
            wrapped = []
            for g, lv, m in zip(grads, self._out_levels, self._out_meta):
                if g is None and self.materialize_grads and m[1] is not None:
                    g = zeros(m[0], dtype=_dtype_of(m[1]))
                wrapped.append(g if g is None or not lv else B.wrap(g, lv))
            materialize = self.materialize_grads
            self.materialize_grads = False  # done above, in physical shapes
            try:
                res = super()._run(tuple(wrapped), create_graph, root_arrays)
            finally:
                self.materialize_grads = materialize
            return tuple(_to_physical(r, lv) for r, lv in zip(res, self._in_levels))
        finally:
            for v in reversed(revived):
                _exit(v)
                B._SIZES.pop(v.id, None)


def _dtype_of(np_dtype):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(np_dtype)


def _to_physical(r, in_levels):
    """A gradient from ``backward`` as the physical tensor of an input varying over
    ``in_levels``: levels it lacks are expanded, levels the input lacks are summed out."""
    if r is None or not isinstance(r, graph.Tensor):
        return r
    own = B.physical(r)[1]
    full = tuple(sorted(set(own) | set(in_levels)))
    if not full:
        return r
    phys = B.materialize(r, full)
    extra = [i for i, v in enumerate(full) if v not in in_levels]
    return phys.sum(dim=extra) if extra else phys
