"""The autodiff transforms of ``torch.func``: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian and linearize.

They run the function on fresh differentiable copies of the inputs and call the ordinary
autograd engine on the physical tensors (see ``_batched.py``). Inside ``vmap``:

* ``grad``/``vjp`` expand their inputs over every active vmap level before differentiating,
  so each sample gets its own gradient (``vmap(grad(f))`` gives per-sample gradients);
* a batched cotangent (``vmap(vjp_fn)``, as in ``jacrev``) makes the backward pass itself run
  batched: every backward op goes through the batching rules, once for all basis vectors.

Forward mode uses the double-vjp identity: ``g(u) = J^T u`` is linear in ``u``, so the
gradient of ``<g(u), t>`` with respect to ``u`` is ``J t``. Results equal torch's forward mode
(a custom ``autograd.Function`` takes part through its ``jvp``: ``_custom_function``).
Transforms nest: inner ones build their graphs whenever an outer one is running or an input
already requires grad.
"""

import functools

from .. import _grad_state, autograd
from ..autograd import _func_transforms
from .._tensor import Tensor
from ..autograd.grad_mode import inference_mode, is_grad_enabled, no_grad
from . import _batched as B
from ._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]

_DEPTH = [0]  # transforms running right now: the ones inside must build differentiable results


def _normal_mode(fn):
    """Run ``fn`` out of inference mode: torch's transforms record their graphs under
    ``inference_mode()`` too (their results come back as ordinary tensors)."""
    from .._grad_state import INFERENCE_ACTIVE

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not INFERENCE_ACTIVE[0]:
            return fn(*args, **kwargs)
        with inference_mode(False):
            return fn(*args, **kwargs)

    return run


def _normal(t):
    """``t``, or an ordinary copy of it when it was made in inference mode (the batched
    backward records graphs that save it)."""
    if isinstance(t, Tensor) and t.is_inference():
        with inference_mode(False):
            return t.clone()
    return t


def _spec_str(spec):
    if spec.is_leaf():
        return "*"
    kids = ", ".join(_spec_str(c) for c in spec.children())
    if spec.type is list:
        return f"[{kids}]"
    if spec.type is dict:
        return "{" + ", ".join(f"{k!r}: {_spec_str(c)}" for k, c in
                               zip(spec.context, spec.children())) + "}"
    return f"({kids}{',' if len(spec.children()) == 1 else ''})"


def _argnums(argnums, n):
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        nums, single = (argnums,), True
    elif isinstance(argnums, tuple) and argnums and all(
            isinstance(a, int) and not isinstance(a, bool) for a in argnums):
        nums, single = argnums, False
    elif isinstance(argnums, tuple) and not argnums:
        raise RuntimeError("argnums must be non-empty")
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
        out.append(a % n)
    if len(set(out)) != len(out):
        raise RuntimeError(f"argnums elements must be unique, got {tuple(out)}")
    return out, single


class _Inputs:
    """Differentiable stand-ins for the inputs being differentiated (a pytree each)."""

    def __init__(self, trees, expand, writable=False):
        levels_all = tuple(v.id for v in B.active_levels() if not v.internal) if expand else ()
        # leaves made to require grad from now on are func's own (see _keep_graph)
        self.leaf_count = _grad_state.func_leaf_count()
        self.epoch = _grad_state.next_epoch()  # (the transform's number, see running)
        self.specs, self.trees = [], []
        self.leaves, self.levels, self.connect = [], [], False
        self.written = []  # (caller's tensor, the copy func got, its version) with ``writable``
        for tree in trees:
            flat, spec = tree_flatten(tree)
            new = []
            for x in flat:
                if not isinstance(x, Tensor):
                    raise ValueError(f"Thing passed to transform API must be Tensor, got "
                                     f"{type(x)}")
                if not (x.dtype.is_floating_point or x.dtype.is_complex):
                    if writable:  # forward mode names the primal
                        raise ValueError(f"Expected primal to be floating point or complex, "
                                         f"but got: {x.dtype}")
                    raise RuntimeError("only Tensors of floating point dtype can require "
                                       "gradients")
                x = B.unwrap_owner(x)
                phys, own = B.physical(x)
                lv = tuple(sorted(set(own) | set(levels_all)))
                p = B.materialize(x, lv) if lv != own else phys
                if p.requires_grad:
                    self.connect = True
                    leaf = p.view_as(p)
                elif p.is_inference():  # (made under inference_mode: a normal copy to record)
                    with inference_mode(False):
                        leaf = p.clone()._set_requires_grad(True)
                else:
                    leaf = p.detach()._set_requires_grad(True)
                if leaf._base is None:  # (a view keeps its base's counter)
                    _func_transforms.mark_made_inside(leaf, self.epoch)
                self.leaves.append(leaf)
                self.levels.append(lv)
                if writable:  # forward mode: func may write its inputs in place, as torch's
                    arg = leaf.clone()  # dual tensors allow (a leaf refuses)
                    _func_transforms.mark_made_inside(arg, self.epoch)
                    if p is phys:
                        self.written.append((phys, arg, arg._version))
                    leaf = arg
                new.append(B.wrap(leaf, lv))
            self.specs.append(spec)
            self.trees.append(tree_unflatten(new, spec))

    def write_back(self):
        """Copy inputs that func changed in place back into the caller's tensors."""
        for orig, arg, version in self.written:
            if arg._version != version:
                with no_grad():
                    orig.copy_(arg.detach())

    def grads(self, gs):
        """Per-input results (pytrees) from the engine's gradients for the leaves."""
        from .. import zeros_like

        it = iter(zip(gs, self.leaves, self.levels))
        out = []
        for spec in self.specs:
            vals = []
            for _ in range(spec.num_leaves):
                g, leaf, lv = next(it)
                if g is None:
                    g = zeros_like(leaf)
                vals.append(B.lift(g, lv))
            out.append(tree_unflatten(vals, spec))
        return out


def _call(func, args, idx, trees, kwargs, kind="grad", epoch=None):
    if kind == "grad":
        from ..autograd import _graph_api

        if _graph_api._stack.hooks:  # (saved_tensors_hooks active around the transform)
            raise RuntimeError(_graph_api.FUNC_GRAD_HOOKS)
    a = list(args)
    for i, t in zip(idx, trees):
        a[i] = t
    others = [x for i, arg in enumerate(args) if i not in idx
              for x in tree_flatten(arg)[0] if isinstance(x, Tensor)] if epoch else ()
    _DEPTH[0] += 1
    try:
        # the transform records its graph under no_grad and inference_mode too, as torch's
        with inference_mode(False), _func_transforms.running(kind, epoch, others):
            return func(*a, **kwargs)
    finally:
        _DEPTH[0] -= 1


def _build_graph():
    return _DEPTH[0] > 0


def _keep_graph(ins, outs, grad_was_enabled):
    """Whether results must stay differentiable: inside another transform, for inputs that
    already require grad, or (with grad mode on at the call) when ``func`` closed over
    tensors that require grad, whose graph the results then stay connected to, as torch's
    do (``grad(f)(x).sum().backward()`` fills a captured weight's ``.grad``)."""
    if _build_graph() or ins.connect:
        return True
    return grad_was_enabled and _reaches_outer_leaf(outs, ins.leaves, ins.leaf_count)


def _reaches_outer_leaf(outs, leaves, leaf_count):
    from ..autograd._graph_walk import reaches_other_leaf

    return reaches_other_leaf([o.grad_fn for o in outs if isinstance(o, Tensor)], leaves,
                              made_after=leaf_count)


def _detached(x, keep):
    if keep or not isinstance(x, Tensor):
        return x
    return x.detach()


def _aux_leaf(t, keep):
    if not isinstance(t, Tensor):
        raise RuntimeError(f"Expected tensors, got unsupported type {type(t)}")
    return _detached(B.unwrap_owner(t), keep)


@_normal_mode
def _grad_and_value(func, argnums, has_aux, args, kwargs):
    idx, single = _argnums(argnums, len(args))
    ins = _Inputs([args[i] for i in idx], expand=True)
    grad_on = is_grad_enabled()
    out = _call(func, args, idx, ins.trees, kwargs, epoch=ins.epoch)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                               "tuple: (output, aux) if has_aux is True")
        out, aux = out
    if not isinstance(out, Tensor):
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                           f"got {type(out)}")
    out = B.unwrap_owner(out)
    if out.dtype.is_complex:
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but "
                           f"got {out.dtype}")
    if out.dim() != 0:
        raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                           f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted to use "
                           f"the vjp or jacrev APIs instead?")
    phys, _ = B.physical(out)
    keep = _keep_graph(ins, [phys], grad_on)
    if phys.requires_grad:
        from .. import ones_like

        gs = autograd.grad([phys], ins.leaves, [ones_like(phys)], create_graph=keep,
                           allow_unused=True)
    else:
        gs = [None] * len(ins.leaves)
    res = ins.grads(gs)
    res = res[0] if single else tuple(res)
    value = _detached(out, keep)
    if has_aux:  # torch hands aux back unwrapped from this level too: no graph to its inputs
        aux = tree_map(lambda t: _aux_leaf(t, keep), aux)
        return res, (value, aux)
    return res, value


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, but the returned function gives ``(gradient, value)`` (and
    ``(gradient, (value, aux))`` with ``has_aux``).

    Example:
        >>> g, v = torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning one scalar tensor, as a function.

    Args:
        func (callable): returns a 0-d tensor (and an auxiliary value with ``has_aux``).
        argnums (int or tuple of ints): which positional arguments to differentiate (each
            may be a tensor or a nested tuple/list/dict of tensors). Default: 0.
        has_aux (bool): ``func`` returns ``(output, aux)``; the wrapper then returns
            ``(gradient, aux)``. Default: False.

    Returns:
        callable: gives the gradient(s), shaped like the chosen arguments.

    Example:
        >>> torch.func.grad(lambda x: x.sin().sum())(torch.tensor([0.0]))
        tensor([1.])
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


@_normal_mode
def vjp(func, *primals, has_aux=False):
    """``func(*primals)`` and a function computing vector-Jacobian products at ``primals``.

    Returns:
        tuple: ``(output, vjp_fn)`` (and ``aux``), where ``vjp_fn(cotangents)`` takes
        cotangents shaped like ``output`` and returns a tuple with one gradient per primal.
        ``vjp_fn`` may be called many times, and under ``vmap``.

    Example:
        >>> out, vjp_fn = torch.func.vjp(torch.sin, torch.tensor([0.0, 1.0]))
        >>> vjp_fn(torch.ones(2))
        (tensor([1.0000, 0.5403]),)
    """
    ins = _Inputs(primals, expand=True)
    grad_on = is_grad_enabled()
    out = _call(func, primals, range(len(primals)), ins.trees, {}, epoch=ins.epoch)
    flat_out, out_spec, aux = _tensor_outputs(out, has_aux, "vjp(f, *primals)", "f(*primals)")
    for o in flat_out:
        if not (o.dtype.is_floating_point or o.dtype.is_complex):
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or "
                               f"complex Tensors, got Tensor with dtype {o.dtype}")
    keep = _keep_graph(ins, [B.physical(o)[0] for o in flat_out], grad_on)

    @_normal_mode
    def vjp_fn(cotangents):
        flat_c, c_spec = tree_flatten(cotangents)
        if c_spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{_spec_str(c_spec)}, primal output: {_spec_str(out_spec)}")
        outs, gos = [], []
        for i, (o, c) in enumerate(zip(flat_out, flat_c)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"torch.Size({list(c.shape)}) and output[{i}] has a shape "
                                   f"of torch.Size({list(o.shape)}).")
            phys, lv = B.physical(o)
            if phys.requires_grad:
                outs.append(phys)
                gos.append(B.lower(_normal(B.unwrap_owner(c)), lv))
        batched = any(B.is_batched(g) for g in gos)
        if outs:
            gs = autograd.grad(outs, ins.leaves, gos, retain_graph=True,
                               create_graph=keep or batched, allow_unused=True)
        else:
            gs = [None] * len(ins.leaves)
        res = ins.grads(gs)
        if batched and not keep:
            res = [tree_unflatten([_detached(v, False) for v in tree_flatten(r)[0]],
                                  tree_flatten(r)[1]) for r in res]
        return tuple(res)

    shown = tree_unflatten([_detached(o, keep) for o in flat_out], out_spec)
    if has_aux:  # unwrapped from this level, as grad's aux
        return shown, vjp_fn, tree_map(lambda t: _aux_leaf(t, keep), aux)
    return shown, vjp_fn


def _tensor_outputs(out, has_aux, api, call):
    """Split ``func``'s result ``out`` into (flat unwrapped tensors, their tree spec, aux),
    with torch's errors (``api`` and ``call`` name the transform and the call in them)."""
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                               "if has_aux is True")
        out, aux = out
    flat_out, out_spec = tree_flatten(out)
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected {call} to return only tensors, got "
                               f"unsupported type {type(o)}")
    return [B.unwrap_owner(o) for o in flat_out], out_spec, aux


def _linear_pushforward(func, primals, has_aux, strict):
    """Run ``func`` at ``primals`` and build ``g(u) = J^T u`` with graph; returns what
    ``jvp`` and ``linearize`` need."""
    ins = _Inputs(primals, expand=False, writable=True)
    ins.grad_on = is_grad_enabled()
    out = _call(func, primals, range(len(primals)), ins.trees, {}, "jvp", ins.epoch)
    ins.write_back()
    flat_out, out_spec, aux = _tensor_outputs(out, has_aux, "jvp(f, primals, tangents)",
                                              "f(*primals)")
    from .. import zeros_like

    us, outs = [], []
    for o in flat_out:
        phys, _ = B.physical(o)
        differentiable = phys.dtype.is_floating_point or phys.dtype.is_complex
        u = zeros_like(phys)._set_requires_grad(differentiable)
        us.append(u)
        if phys.requires_grad and differentiable:
            outs.append((phys, u))
    if outs:
        with _func_transforms.linearizing():  # a custom Function answers with its jvp
            gs = autograd.grad([p for p, _ in outs], ins.leaves, [u for _, u in outs],
                               create_graph=True, allow_unused=True)
    else:
        gs = [None] * len(ins.leaves)
    return ins, flat_out, out_spec, us, gs, aux


def _push(ins, flat_out, us, gs, flat_t, keep, keeps=None):
    """``J t`` for flat tangents ``flat_t`` (one per input leaf); ``keeps``: per output,
    whether its tangent stays differentiable (``keep`` for all when None)."""
    from .. import zeros_like

    pairs = [(g, B.lower(_normal(B.unwrap_owner(t)), lv))
             for g, t, lv in zip(gs, flat_t, ins.levels)
             if g is not None and g.requires_grad]
    batched = any(B.is_batched(t) for _, t in pairs)
    live = [u for u in us if u.requires_grad]  # (not the outputs of integer dtypes)
    jv = [None] * len(us)
    if pairs and live:
        got = iter(autograd.grad([g for g, _ in pairs], live, [t for _, t in pairs],
                                 retain_graph=True, create_graph=keep or batched,
                                 allow_unused=True))
        jv = [next(got) if u.requires_grad else None for u in us]
    res = []
    for i, (v, u, o) in enumerate(zip(jv, us, flat_out)):
        if v is None:
            v = zeros_like(u)
        v = B.lift(v, B.physical(o)[1])
        res.append(_detached(v, keep if keeps is None else keeps[i]))
    return res


def _check_jvp_args(primals, tangents):
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple of "
                           f"3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):  # torch's order of checks
        if not flat:
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to contain at "
                               f"least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to only "
                                   f"contain Tensors, got {type(x)}")
    for p, t in zip(flat_p, flat_t):  # torch's order: per pair, dtypes then sizes
        for name, v in (("primal", p), ("tangent", t)):
            if not (v.is_floating_point() or v.is_complex()):
                raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                                 f"{v.dtype}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size "
                               f"than that of the original Tensor, this is not supported. "
                               f"Tensor is of size {list(p.shape)} while the given forward "
                               f"gradient is of size {list(t.shape)}.")
    return flat_t


@_normal_mode
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``func(*primals)`` and its Jacobian-vector product with ``tangents`` (forward mode).

    Args:
        func (callable): takes ``len(primals)`` arguments, returns tensors.
        primals (tuple): the point (tensors or nested structures of them).
        tangents (tuple): the direction, structured like ``primals``.
        has_aux (bool): ``func`` returns ``(output, aux)``; aux is returned third.

    Returns:
        tuple: ``(output, jvp_out)`` (and ``aux``).

    Example:
        >>> torch.func.jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([2.0]),))
        (tensor([0.]), tensor([2.]))
    """
    flat_t = _check_jvp_args(primals, tangents)
    ins, flat_out, out_spec, us, gs, aux = _linear_pushforward(func, primals, has_aux, strict)
    # each output (and its tangent) stays differentiable only if it reaches a tensor that
    # requires grad outside the transform, as torch's do
    keeps = [_keep_graph(ins, [B.physical(o)[0]], ins.grad_on) for o in flat_out]
    jv = _push(ins, flat_out, us, gs, flat_t, any(keeps), keeps)
    out = tree_unflatten([_detached(o, k) for o, k in zip(flat_out, keeps)], out_spec)
    res = (out, tree_unflatten(jv, out_spec))
    if has_aux:  # unwrapped from this level, as grad's aux
        return res + (tree_map(lambda t: _aux_leaf(t, any(keeps)), aux),)
    return res


def _check_linearize_tangents(primals, tangents):
    """torch's checks of the tangents handed to ``linearize``'s ``jvp_fn``."""
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as the "
                           f"primals {p_spec}")
    for i, (p, t) in enumerate(zip(flat_p, flat_t)):
        if tuple(t.shape) != tuple(p.shape):
            raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't "
                               f"match the shape {p.shape} of the corresponding primal.")
        if t.dtype != p.dtype:
            raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't "
                               f"match the dtype {p.dtype} of the corresponding primal.")
    return flat_t


@_normal_mode
def linearize(func, *primals):
    """``func(*primals)`` and a function giving Jacobian-vector products at ``primals``
    (the function runs once; each call of ``jvp_fn(*tangents)`` reuses its graph).

    Example:
        >>> out, jvp_fn = torch.func.linearize(torch.sin, torch.tensor([0.0]))
        >>> jvp_fn(torch.tensor([3.0]))
        tensor([3.])
    """
    ins, flat_out, out_spec, us, gs, _ = _linear_pushforward(func, primals, False, False)
    keep = _keep_graph(ins, [B.physical(o)[0] for o in flat_out], ins.grad_on)

    @_normal_mode
    def jvp_fn(*tangents):
        flat_t = _check_linearize_tangents(primals, tangents)
        return tree_unflatten(_push(ins, flat_out, us, gs, flat_t, keep), out_spec)

    return tree_unflatten([_detached(o, keep) for o in flat_out], out_spec), jvp_fn


def _eye_rows(n_total, offset, like):
    """Rows of the ``n_total``-by-``n_total`` identity restricted to ``like``'s block,
    reshaped to ``(n_total, *like.shape)`` in ``like``'s dtype and device."""
    from .. import zeros

    n = like.numel()
    basis = zeros(n_total, n, dtype=like.dtype, device=like.device)
    if n:
        import numpy as np

        rows = np.arange(offset, offset + n)
        basis._array[rows, np.arange(n)] = 1
    return basis.reshape((n_total,) + tuple(like.shape))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode: one vjp per output element, all of them in
    one batched backward pass (``vmap`` over the rows of the identity).

    Returns:
        callable: gives ``jac`` (``jac[i][j]`` for output ``i`` and argument ``j`` when there
        are several), each of shape ``output.shape + input.shape``.

    Example:
        >>> torch.func.jacrev(torch.sin)(torch.tensor([0.0, 0.0]))
        tensor([[1., 0.],
                [0., 1.]])
    """
    from ._vmap import vmap_basis

    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    @_normal_mode
    def wrapper(*args, **kwargs):
        _no_kwargs(func, kwargs)
        idx, single = _argnums(argnums, len(args))

        def part(*ps):
            a = list(args)
            for i, p in zip(idx, ps):
                a[i] = p
            return func(*a, **kwargs)

        _check_real("jacrev", "inputs", tree_flatten(tuple(args[i] for i in idx))[0])
        res = vjp(part, *[args[i] for i in idx], has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        flat_out, out_spec = tree_flatten(out)
        _check_real("jacrev", "outputs", flat_out)
        total = sum(o.numel() for o in flat_out)
        offsets, acc = [], 0
        for o in flat_out:
            offsets.append(acc)
            acc += o.numel()
        basis = [_eye_rows(total, off, o) for off, o in zip(offsets, flat_out)]
        rows = vmap_basis(lambda *c: vjp_fn(tree_unflatten(list(c), out_spec)),
                          chunk_size=chunk_size)(*basis) if total else None
        jac = []
        for k, (o, off) in enumerate(zip(flat_out, offsets)):
            per_arg = []
            for j, i in enumerate(idx):
                flat_p, p_spec = tree_flatten(args[i])
                if rows is None:
                    vals = [_zeros(tuple(o.shape) + tuple(p.shape), p) for p in flat_p]
                else:
                    flat_r = tree_flatten(rows[j])[0]
                    vals = [r.narrow(0, off, o.numel()).reshape(tuple(o.shape) + tuple(p.shape))
                            for r, p in zip(flat_r, flat_p)]
                per_arg.append(tree_unflatten(vals, p_spec))
            jac.append(per_arg[0] if single else tuple(per_arg))
        result = tree_unflatten(jac, out_spec)
        return (result, res[2]) if has_aux else result

    return wrapper


def _no_kwargs(func, kwargs):
    """torch's jacrev/jacfwd functions take positional arguments only."""
    if kwargs:
        name = getattr(func, "__qualname__", getattr(func, "__name__", "wrapper"))
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _check_real(api, what, leaves):
    """torch's jacobians refuse complex inputs and outputs (it names the flattened index)."""
    for i, t in enumerate(leaves):
        if isinstance(t, Tensor) and t.dtype.is_complex:
            raise RuntimeError(f"{api}: Expected all {what} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def _zeros(shape, like):
    from .. import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode: one jvp per input element, all of them in one
    batched pass (``vmap`` over the rows of the identity).

    Returns:
        callable: gives ``jac`` shaped as :func:`jacrev`'s.

    Example:
        >>> torch.func.jacfwd(lambda x: x ** 2)(torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    from ._vmap import vmap_basis

    @functools.wraps(func)
    @_normal_mode
    def wrapper(*args, **kwargs):
        _no_kwargs(func, kwargs)
        idx, single = _argnums(argnums, len(args))
        primals = tuple(args[i] for i in idx)
        flat_p, p_spec = tree_flatten(primals)
        for p in flat_p:
            if not isinstance(p, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(p)}")
        _check_real("jacfwd", "inputs", flat_p)
        total = sum(p.numel() for p in flat_p)
        offsets, acc = [], 0
        for p in flat_p:
            offsets.append(acc)
            acc += p.numel()
        basis = [_eye_rows(total, off, p) for off, p in zip(offsets, flat_p)]

        def part(*ps):
            a = list(args)
            for i, p in zip(idx, ps):
                a[i] = p
            return func(*a, **kwargs)

        def push(*tans):
            r = jvp(part, primals, tree_unflatten(list(tans), p_spec), has_aux=has_aux)
            _check_real("jacfwd", "outputs", tree_flatten(r[0])[0])
            return (r[1], r[2]) if has_aux else r[1]

        out = vmap_basis(push, out_dims=(0, None) if has_aux else 0,
                         randomness=randomness)(*basis)
        tangents_out, aux = (out if has_aux else (out, None))
        flat_o, o_spec = tree_flatten(tangents_out)
        jac = []
        for t in flat_o:
            per_arg = []
            k = 0
            for j, i in enumerate(idx):
                flat_arg, a_spec = tree_flatten(args[i])
                vals = []
                for p in flat_arg:
                    n = p.numel()
                    block = t.narrow(0, offsets[k], n).movedim(0, -1)
                    vals.append(block.reshape(tuple(t.shape[1:]) + tuple(p.shape)))
                    k += 1
                per_arg.append(tree_unflatten(vals, a_spec))
            jac.append(per_arg[0] if single else tuple(per_arg))
        result = tree_unflatten(jac, o_spec)
        return (result, aux) if has_aux else result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function: ``jacfwd(jacrev(func))``.

    Example:
        >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
