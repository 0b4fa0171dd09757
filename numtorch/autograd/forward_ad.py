"""Forward-mode automatic differentiation: ``dual_level``, ``make_dual``, ``unpack_dual``.

Inside a ``dual_level`` a tensor may carry a tangent; every op applied to such "dual" tensors
gives its outputs the Jacobian-vector product of the op with the inputs' tangents.

numtorch computes each op's JVP generically from its reverse-mode rule, by the double-vjp
identity: with ``g(u) = J^T u`` (the op's vjp, recorded with ``create_graph``), ``J t`` is the
gradient of ``<g(u), t>`` with respect to ``u``. So every op with a twice-differentiable
backward gets forward mode with no rule of its own, at about three times the cost of the op.
While a level is open, ``Op.apply`` is wrapped to do this (only for calls whose inputs carry
tangents; others pay one scan of their inputs), and in-place ops move the tangent of their
out-of-place result onto the tensor they write.

Note: tangents live on the tensor objects, not on their memory: writing in place through a
view of a dual tensor does not update the base's tangent. A custom ``autograd.Function``
runs its forward on plain values and gets its outputs' tangents from its own ``jvp`` (torch's
rule; without one, forward mode raises NotImplementedError).
"""

import weakref
from collections import namedtuple

from .. import _random
from . import _graph_api, graph, inplace
from .grad_mode import enable_grad, no_grad

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

_state = {"level": None, "apply": None, "trace": None, "busy": False, "setitem": None}
_DUALS = {}  # id(tensor) -> weakref, the tensors holding a tangent in the open level


class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """``(primal, tangent)`` as returned by :func:`unpack_dual` (``tangent`` may be None)."""

    __slots__ = ()


def _tangent(t):
    extra = t._extra
    own = extra.get("fw_grad") if extra else None
    base = t._base
    if own is not None and base is not None and t._view_fn is not None:
        # a view reads its tangent through its base's (when the base has one), so a write
        # into the base, or into another view of it, shows in every view as in torch
        bt = base._extra.get("fw_grad") if base._extra else None
        if bt is not None:
            return _viewed(t, bt)
    return own


def _viewed(view, tangent):
    """``view``'s view chain replayed on the tangent of its base."""
    prev = _state["busy"]
    _state["busy"] = True
    try:
        with no_grad():
            return graph.replay_view(view._view_fn, tangent)
    finally:
        _state["busy"] = prev


def _write_through(view, tangent):
    """After an in-place write into ``view``: its base's tangent takes ``tangent`` in the
    viewed region (a base without one gets zeros elsewhere)."""
    base = view._base
    bt = base._extra.get("fw_grad") if base._extra else None
    from .. import zeros_like

    if bt is not None:
        new = bt.clone()
    else:
        # the base gets a tangent now: the tangents its dual views hold (make_dual's alias of
        # it, or of a part of it) fill it first, so the regions not written keep theirs
        new = zeros_like(base.detach(), dtype=tangent.dtype)
        with no_grad():
            for ref in list(_DUALS.values()):
                d = ref()
                if d is not None and d is not view and d._base is base and \
                        d._view_fn is not None and d._extra.get("fw_grad") is not None:
                    _viewed(d, new).copy_(d._extra["fw_grad"])
    with no_grad():
        _viewed(view, new).copy_(tangent)
    _set_tangent(base, new)


def _set_tangent(t, tangent):
    if t._extra is None:
        t._extra = {}
    if tangent is None:
        t._extra.pop("fw_grad", None)
        return
    t._extra["fw_grad"] = tangent
    _DUALS[id(t)] = weakref.ref(t)


def _is_float(t):
    return t._array.dtype.kind in "fcV"


def _jvp(cls, inputs, params, rng_state):
    """Tangents of ``cls.apply(*inputs, **params)``'s outputs (None where there is none)."""
    from .. import autograd

    rule = _RULES.get(cls.__name__)
    if rule is not None:
        with no_grad():
            return [rule(inputs, params)], False, None
    # forward over reverse: with grad mode on and an input (or a tangent) that requires grad,
    # the tangents stay joined to the graph (``tangent.backward()`` reaches the weights)
    keep = _grad_on() and any(
        isinstance(x, graph.Tensor) and (x.requires_grad or (
            (t := _tangent(x)) is not None and t.requires_grad)) for x in inputs)
    xs, diff, tans = [], [], []
    for x in inputs:
        if isinstance(x, graph.Tensor):
            tan = _tangent(x)
            if keep and x.requires_grad:
                leaf = x.view_as(x) if tan is not None and _is_float(x) else x
            else:
                leaf = graph._make(x._array)
            if tan is not None and _is_float(x):
                if not leaf.requires_grad:
                    leaf._set_requires_grad(True)
                diff.append(leaf)
                tans.append(tan)
            xs.append(leaf)
        else:
            xs.append(x)
    with enable_grad(), _random.fork_rng():
        if rng_state is not None:  # random ops draw what the primal call drew
            _random.set_rng_state(rng_state)
        ys = cls.apply(*xs, **params)
        multi = type(ys) is tuple
        ys = ys if multi else (ys,)
        live = [k for k, y in enumerate(ys) if isinstance(y, graph.Tensor) and y.requires_grad]
        out = [None] * len(ys)
        if not live:
            return out, multi, ys
        us = [graph._make(_zeros(ys[k]._array))._set_requires_grad(True) for k in live]
        gs = autograd.grad([ys[k] for k in live], diff, us, create_graph=True,
                           allow_unused=True)
        terms = [_pairing(g, t) for g, t in zip(gs, tans) if g is not None and g.requires_grad]
        jts = autograd.grad(sum(terms), us, allow_unused=True, create_graph=keep) \
            if terms else [None] * len(us)
    for k, u, jt in zip(live, us, jts):
        if jt is None:
            out[k] = u.detach() * 0
        else:
            out[k] = jt if keep else jt.detach()
    return out, multi, ys


def _grad_on():
    from .grad_mode import is_grad_enabled

    return is_grad_enabled()


def _match_arity(out, tangents, ys):
    """The tangent of a single primal output when the recorded call returned several: an op
    that computes extra factors only for backward (svdvals' U and V, eigvalsh's vectors)."""
    same = [(t, y) for t, y in zip(tangents, ys) if isinstance(y, graph.Tensor) and
            tuple(y.shape) == tuple(out.shape) and y._array.dtype == out._array.dtype]
    if len(same) > 1:
        same = [(t, y) for t, y in same if bool((y._array == out._array).all())]
    return [same[0][0] if same else None]


def _hardsigmoid_jvp(inputs, params):
    from ..ops.activation import HardsigmoidBackward

    x = inputs[0]
    return HardsigmoidBackward.apply(x.detach(), _tangent(x))


# ops whose backward torch does not differentiate but whose forward AD it defines: the
# double-vjp identity cannot reach them, so their JVP is written out (a slope times t)
_RULES = {"Hardsigmoid": _hardsigmoid_jvp}


def _zeros(arr):
    """Zeros like ``arr``, an array also when 0-d (``arr * 0`` is a NumPy scalar there)."""
    out = arr.copy()
    out.fill(0)
    return out


def _pairing(g, t):
    """Re<g, t>: the vjp is the adjoint of the jvp for this real inner product, so its
    gradient in u is J t also for complex inputs or outputs (a complex scalar has no grad)."""
    if g.is_complex() or t.is_complex():
        return (g.conj() * t).real.sum() if g.is_complex() else (g * t.real).sum()
    return (g * t).sum()


def _make_dual_apply(original):
    def apply(cls, *inputs, **params):
        if _state["busy"] or not cls.differentiable:
            return original(cls, *inputs, **params)
        for x in inputs:
            if isinstance(x, graph.Tensor) and x._extra and "fw_grad" in x._extra:
                break
        else:
            return original(cls, *inputs, **params)
        rng = _random.get_rng_state()
        out = original(cls, *inputs, **params)
        _state["busy"] = True
        try:
            saved_hooks, _graph_api._stack.hooks = _graph_api._stack.hooks, ()
            # the JVP's own recorded graph is scratch: an active saved_tensors_hooks (a
            # checkpoint's) must not see what it saves
            tangents, multi, ys = _jvp(cls, inputs, params, rng)
        finally:
            _graph_api._stack.hooks = saved_hooks
            _state["busy"] = False
        if multi and type(out) is not tuple:
            tangents, multi = _match_arity(out, tangents, ys), False
        for o, t in zip(out if multi else (out,), tangents):
            if t is not None and isinstance(o, graph.Tensor) and _is_float(o):
                _set_tangent(o, t)
                node = o._grad_fn
                if node is not None:  # (its saved output, rebuilt, gets the tangent too)
                    graph._FW_OUT.setdefault(id(node), (node, {}))[1][o._output_nr] = t
        return out
    return apply


def _inplace_hook(self, fn, args, kwargs):
    """Give ``self`` the tangent of ``fn(self, ...)`` when an in-place op writes into it."""
    prev = _state["trace"]
    if prev is not None and prev(self, fn, args, kwargs):
        return True
    if _state["busy"]:
        return False
    duals = [a for a in (self,) + tuple(args) if isinstance(a, graph.Tensor) and _tangent(a)
             is not None]
    if not duals:
        return False
    with no_grad():
        res = fn(self, *args, **kwargs)
    tangent = _tangent(res)
    inplace._TRACE[0] = prev
    try:
        inplace.apply_inplace(self, fn, *args, **kwargs)
    finally:
        inplace._TRACE[0] = _inplace_hook
    if tangent is None and _tangent(self) is not None:  # overwritten by constants (fill_)
        from .. import zeros_like

        tangent = zeros_like(self.detach())
    if tangent is not None and self._base is not None and self._view_fn is not None:
        _write_through(self, tangent)
    _set_tangent(self, _write_into(self, tangent))
    return True


def _write_into(t, tangent):
    """The tangent ``t`` keeps after an in-place op gave it ``tangent``: when ``t`` still holds
    the tangent handed to make_dual, that tensor itself with ``tangent`` written into it (torch
    updates a dual's tangent in place, so the caller's tangent tensor changes with it)."""
    extra = t._extra
    old = extra.get("fw_grad") if extra else None
    if old is None or tangent is None or old is tangent or extra.get("fw_user") is not old:
        return tangent
    if old.requires_grad or tangent.requires_grad or old.dtype != tangent.dtype or \
            tuple(old.shape) != tuple(tangent.shape):
        return tangent
    with no_grad():
        old.copy_(tangent)
    return old


def _basic_index(index):
    idx = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or type(i) is int or type(i) is slice for i in idx)


def _setitem(self, index, value):
    """``x[index] = value`` in a dual level: with a tangent on either side and a basic index,
    a write into the view ``x[index]``, whose tangent then reaches x's (a raw array write
    would leave x's tangent as it was)."""
    if _basic_index(index) and (_tangent(self) is not None or isinstance(value, graph.Tensor)
                                and _tangent(value) is not None):
        view = self[index]
        if not isinstance(value, graph.Tensor):
            from .. import full_like

            value = full_like(view.detach(), value)
        view.copy_(value)
        return
    _state["setitem"](self, index, value)


def enter_dual_level():
    """Open the (single) forward-AD level and return its index, 0."""
    if _state["level"] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state["level"] = 0
    original = graph.Op.__dict__["apply"].__func__
    _state["apply"] = graph.Op.__dict__["apply"]
    wrapped = _make_dual_apply(original)
    graph.Op.apply = classmethod(wrapped)
    _state["trace"] = inplace._TRACE[0]
    inplace._TRACE[0] = _inplace_hook
    _state["setitem"] = graph.Tensor.__setitem__
    graph.Tensor.__setitem__ = _setitem
    return 0


def exit_dual_level(*, level=None):
    """Close the level: every tangent made in it is dropped."""
    if _state["level"] is None or (level is not None and level != _state["level"]):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    graph.Op.apply = _state["apply"]
    inplace._TRACE[0] = _state["trace"]
    graph.Tensor.__setitem__ = _state["setitem"]
    _state.update(level=None, apply=None, trace=None, setitem=None)
    for ref in list(_DUALS.values()):
        t = ref()
        if t is not None and t._extra:
            t._extra.pop("fw_grad", None)
    _DUALS.clear()
    graph._FW_OUT.clear()


class dual_level:
    """Context manager (or decorator) for a forward-AD level: tangents exist only inside.

    Example:
        >>> import numtorch.autograd.forward_ad as fwAD
        >>> x = torch.tensor([1.0, 2.0])
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(x, torch.ones(2)) ** 2
        ...     fwAD.unpack_dual(y).tangent
        tensor([2., 4.])
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return run


def _alias(tensor):
    """A view of ``tensor`` carrying its autograd history but no tangent."""
    prev = _state["busy"]
    _state["busy"] = True
    try:
        return tensor.view_as(tensor)
    finally:
        _state["busy"] = prev


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` (same shape) in the open level.

    Args:
        tensor (Tensor): the primal (floating point or complex).
        tangent (Tensor): its tangent, the direction of the directional derivative.
        level (int, optional): the level (only 0, the open one).

    Returns:
        Tensor: the dual tensor; ops on it give their outputs tangents.
    """
    if _state["level"] is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if level is not None and level != _state["level"]:
        raise RuntimeError("Invalid level given to _make_dual")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.dtype.is_floating_point or tangent.dtype.is_complex):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        got = list(tangent.shape)
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {got}.")
    if hasattr(tensor, "_bt") or hasattr(tangent, "_bt"):  # a BatchedTensor: inside vmap
        raise RuntimeError("Batching rule not implemented for aten::_make_dual; the fallback "
                           "path doesn't work on out= or view ops.")
    if _tangent(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {_state['level']} is not supported.")
    dual = _alias(tensor)
    if tangent.stride() != tensor.stride():
        # torch copies a tangent of another layout into one laid out as the primal
        from .. import empty_like

        tangent = empty_like(tensor, dtype=tangent.dtype).copy_(tangent.detach())
    # else: the tangent itself, as torch keeps it (unpack_dual(...).tangent is tangent)
    _set_tangent(dual, tangent)
    dual._extra["fw_user"] = tangent  # in-place ops on the dual write into it (_write_into)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor``: the primal as a view without tangent, and the
    tangent (None when it has none or no level is open)."""
    if _state["level"] is not None and not isinstance(tensor, graph.Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if _state["level"] is not None and hasattr(tensor, "_bt"):  # a BatchedTensor (vmap)
        raise RuntimeError("Batching rule not implemented for aten::_unpack_dual; the fallback "
                           "path doesn't work on out= or view ops.")
    tangent = _tangent(tensor) if _state["level"] is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_alias(tensor), tangent)
