"""``vmap``: the batching transform.

``vmap(f)(*args)`` moves each mapped argument's batch dim to the front of a fresh level,
hands ``f`` BatchedTensors (see ``_batched.py``), and runs ``f`` once; the ops inside run once
on the whole batch through their batching rules (``_rules.py``). The outputs' batch dims are
then moved to ``out_dims``. ``chunk_size`` runs the batch in pieces.
"""

import functools

from .._tensor import Tensor
from ..autograd import _func_transforms
from ..autograd import graph as _graph
from ..autograd import inplace as _inplace
from ..autograd._hook_chain import ChainedHook
from . import _batched as B
from . import _randomness
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ._rules import dispatch, dispatch_inplace

__all__ = ["vmap"]


class _VmapHook(ChainedHook):
    """The object ``Op.apply`` and the backward engine consult while a vmap is active (the
    profiler's hook protocol; a profiler that was active stays chained behind it)."""

    def op(self, cls, inputs, params):
        out = dispatch(cls, inputs, params)
        if out is not None:
            return out
        return self.run_below(cls, inputs, params)


_STATE = {"depth": 0, "hook": None, "trace": None}


def _inplace_trace(self, fn, args, kwargs):
    out = dispatch_inplace(self, fn, args, kwargs)
    if out is not None:
        return True
    prev = _STATE["trace"]
    return bool(prev is not None and prev(self, fn, args, kwargs))


def _enter(level):
    if _STATE["depth"] == 0:
        _STATE["hook"] = _graph._hook
        _STATE["trace"] = _inplace._TRACE[0]
        _graph._hook = _VmapHook(_graph._hook)
        _inplace._TRACE[0] = _inplace_trace
        _patch_getitem(True)
    _STATE["depth"] += 1
    B._ACTIVE.append(level)
    _func_transforms.KINDS.append("vmap")
    _randomness.install()


def _exit(level):
    _randomness.uninstall()
    _func_transforms.leave("vmap")
    B._ACTIVE.remove(level)
    _STATE["depth"] -= 1
    if _STATE["depth"] == 0:
        _graph._hook = _STATE["hook"]
        _inplace._TRACE[0] = _STATE["trace"]
        _patch_getitem(False)


def _fname(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorise ``func`` over a batch dimension of its arguments.

    ``vmap(func)(*args)`` returns what stacking ``func`` applied to each slice would, but runs
    ``func`` once: every op inside works on the whole batch at once.

    Args:
        func (callable): takes tensors (or nested tuples/lists/dicts of them) and returns
            tensors (or such structures).
        in_dims (int, None or nested tuple): the batch dim of each argument (None: not
            mapped; a nested tuple matches the arguments' structure). Default: 0.
        out_dims (int, None or nested tuple): where the batch dim goes in each output.
            Default: 0.
        randomness (str): ``"error"`` (random ops raise), ``"different"`` (independent per
            sample) or ``"same"`` (shared by the batch). Default: ``"error"``.
        chunk_size (int, optional): run at most this many samples at a time.

    Returns:
        callable: the batched function.

    Example:
        >>> x = torch.randn(5, 3)
        >>> torch.func.vmap(torch.dot)(x, x).shape
        torch.Size([5])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _check_in_dims(func, in_dims, args):
    name = _fname(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         f"to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         f"inputs, or you are trying to vmap over a function with no inputs. "
                         f"The latter is unsupported.")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure "
                         f"{tree_flatten(args)[1]}.")
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args),
                            args, "in_dims")
    if dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    size = None
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims must be "
                             f"int or None, got {type(d)}.")
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(x)}. We cannot vmap "
                             f"over non-Tensor arguments, please use None as the respective "
                             f"in_dim")
        nd = x.dim()
        if not -nd <= d < nd:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for some input, but that input is a Tensor of dimensionality "
                             f"{nd} so expected in_dim to satisfy -{nd} <= in_dim < {nd}.")
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one input "
                         f"must be a Tensor mapped over a dimension (in_dims must not be None "
                         f"for every input).")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    size = sizes[0]
    return leaves, spec, dims, size


def _move_in(x, d, level):
    """``x`` with its dim ``d`` made the batch dim of ``level``."""
    phys, levels = B.physical(x)
    k = len(levels)
    d = d % x.dim()
    if d:  # after the older levels (they have smaller ids); in place already: x itself
        phys = phys.movedim(k + d, k)
    return B.wrap(phys, levels + (level.id,))


def vmap_basis(func, out_dims=0, randomness="error", chunk_size=None):
    """vmap over the rows of an identity inside jacrev/jacfwd: its level is internal, so
    grad/vjp inside do not expand their inputs over it."""
    def wrapped(*args):
        return _vmap_call(func, 0, out_dims, randomness, chunk_size, args, {}, internal=True)

    return wrapped


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs, internal=False):
    leaves, spec, dims, size = _check_in_dims(func, in_dims, args)
    if chunk_size is None:
        return _run(func, leaves, spec, dims, size, out_dims, randomness, kwargs, internal)
    if chunk_size >= size:
        out = _run(func, leaves, spec, dims, size, out_dims, randomness, kwargs, internal)
        if not internal and any(d is None for d in _out_dims(func, out_dims, out)):
            raise _chunked_none_error()
        return out
    from .. import _random
    from ..ops import cat

    state = _random.get_rng_state() if randomness == "same" else None
    results = []
    for start in range(0, size, chunk_size):
        n = min(chunk_size, size - start)
        part = [x.narrow(d, start, n) if d is not None else x for x, d in zip(leaves, dims)]
        if state is not None:
            _random.set_rng_state(state)
        results.append(_run(func, part, spec, dims, n, out_dims, randomness, kwargs,
                            internal))
    flat = [tree_flatten(r)[0] for r in results]
    out_spec = tree_flatten(results[0])[1]
    odims = _out_dims(func, out_dims, results[0])
    if not internal and any(d is None for d in odims):
        raise _chunked_none_error()
    joined = [cat([f[i] for f in flat], d) if d is not None else flat[0][i]
              for i, d in enumerate(odims)]
    return tree_unflatten(joined, out_spec)


def _chunked_none_error():
    """torch joins chunked outputs with ``cat`` along their out_dims, which a None out_dim
    fails (even when one chunk covers the batch)."""
    return TypeError("cat(): argument 'dim' must be int, not NoneType")


def _out_dims(func, out_dims, outputs):
    leaves, _ = tree_flatten(outputs)
    if isinstance(out_dims, (int, type(None))) and not isinstance(out_dims, bool):
        return [out_dims] * len(leaves)
    if not isinstance(out_dims, (tuple, list, dict)):
        raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims}): `out_dims` must be "
                         f"an int, None or a python collection of ints representing where in "
                         f"the outputs the vmapped dimension should appear.")
    dims = broadcast_prefix(out_dims, outputs, "out_dims")
    if dims is not None and not _same_containers(out_dims, outputs):
        dims = None  # (torch matches out_dims' tuples and lists exactly)
    if dims is None:
        raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         f"is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {tree_flatten(out_dims)[1]} but outputs has structure "
                         f"{tree_flatten(outputs)[1]}.")
    return dims


def _run(func, leaves, spec, dims, size, out_dims, randomness, kwargs, internal=False):
    level = B.Level(size, randomness, internal)
    _enter(level)
    try:
        mapped = [_move_in(x, d, level) if d is not None else x for x, d in zip(leaves, dims)]
        out = func(*tree_unflatten(mapped, spec), **kwargs)
    finally:
        _exit(level)
    try:
        out_leaves, out_spec = tree_flatten(out)
        odims = _out_dims(func, out_dims, out)
        result = [_move_out(func, o, d, level) for o, d in zip(out_leaves, odims)]
    finally:
        B._SIZES.pop(level.id, None)  # the level is gone (keeps the table from growing)
        level.release()
    return tree_unflatten(result, out_spec)


def _same_containers(prefix, tree):
    """Whether the tuples/lists of ``prefix`` are the same kind as ``tree``'s there."""
    if type(prefix) in (tuple, list):
        if type(tree) in (tuple, list) and type(tree) is not type(prefix):
            return False
        if type(tree) in (tuple, list):
            return all(_same_containers(p, t) for p, t in zip(prefix, tree))
    if isinstance(prefix, dict) and isinstance(tree, dict):
        return all(_same_containers(prefix[k], tree[k]) for k in prefix if k in tree)
    return True


def _move_out(func, o, d, level):
    name = _fname(func)
    if d is None:
        if B.is_batched(o) and level.id in o._levels:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             f"out_dim is None")
        return o
    if not isinstance(o, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(o)}. Did you mean to set out_dims= to None for output?")
    if type(o) is Tensor and type(o._array) is B._Logical and o._array._owner is not None:
        o = o._array._owner
    phys, levels = B.physical(o)
    nd = o.dim()
    from ..ops._util import canonical_dim

    d = canonical_dim(d, nd + 1)
    if level.id not in levels:  # the output does not vary over this level: broadcast it
        k = len(levels)
        phys = phys.unsqueeze(k + d)
        shape = list(phys.shape)
        shape[k + d] = level.size
        return B.wrap(phys.expand(shape), levels)
    i = levels.index(level.id)
    rest = tuple(v for v in levels if v != level.id)
    if i != len(rest) + d:  # (an input returned as it is stays that tensor, as in torch)
        phys = phys.movedim(i, len(rest) + d)
    return B.wrap(phys, rest)


# -- a 0-d batched integer index (``x[i]`` with one index per sample) -------------------------
_ORIGINAL_GETITEM = []


def _is_scalar_index(i):
    return (B.is_batched(i) and i.dim() == 0 and not i.dtype.is_floating_point
            and not i.dtype.is_complex and i.dtype.name != "bool")


def _getitem_in_vmap(self, index):
    """``x[index]`` while vmap runs: a 0-d batched integer index (torch reads 0-d indices as
    ints) is looked up as a 1-element index, and its dim removed again."""
    original = _ORIGINAL_GETITEM[0]
    idx = index if isinstance(index, tuple) else (index,)
    if not any(_is_scalar_index(i) for i in idx):
        return original(self, index)
    new = tuple(i.unsqueeze(0) if _is_scalar_index(i) else i for i in idx)
    out = original(self, new)

    def advanced(i):
        return isinstance(i, (Tensor, list)) or hasattr(i, "dtype") and hasattr(i, "ndim")

    adv = [k for k, i in enumerate(idx) if advanced(i)]
    if any(not _is_scalar_index(idx[k]) and getattr(idx[k], "ndim", 1) >= 1 for k in adv):
        return out  # another index array sets the shape; the size-1 index broadcasts away
    if adv[-1] - adv[0] != len(adv) - 1:
        return out.squeeze(0)
    consumed = sum(0 if i is None or i is Ellipsis else 1 for i in idx)
    pos = 0
    for i in idx[:adv[0]]:
        if i is None or isinstance(i, slice):
            pos += 1
        elif i is Ellipsis:
            pos += self.dim() - consumed
    return out.squeeze(pos)


def _setitem_in_vmap(self, index, value):
    """``x[index] = value`` while vmap runs: a batched value cannot go into a tensor that is
    not batched over its levels (a plain array write would copy one sample into it)."""
    theirs = value._levels if type(value) is B.BatchedTensor else ()
    own = self._levels if type(self) is B.BatchedTensor else ()
    if not set(theirs) <= set(own):
        idx = index if isinstance(index, tuple) else (index,)
        adv = any(isinstance(i, (Tensor, list)) or hasattr(i, "ndim") for i in idx)
        from ._rules_extra import unbatched_self_error

        raise unbatched_self_error("index_put_" if adv else "inplace arithmetic")
    idx = index if isinstance(index, tuple) else (index,)
    if any(B.is_batched(B.unwrap_owner(i)) and i.dtype.name == "bool" for i in idx
           if isinstance(i, Tensor)):
        from ._rules_extra import BOOL_MASK

        raise RuntimeError(BOOL_MASK)  # (a per-sample mask writes a varying number of places)
    if any(_is_scalar_index(i) for i in idx):
        index, value = _scalar_index_write(self, idx, value)
    idx = index if isinstance(index, tuple) else (index,)
    if any(type(i) is B.BatchedTensor for i in idx):
        idx = tuple(_int_index(i, self) if type(i) is int else i for i in idx)
    if any(type(i) is B.BatchedTensor for i in idx) and all(
            isinstance(i, Tensor) and not i.dtype.is_floating_point and not i.dtype.is_complex
            and i.dtype.name != "bool" for i in idx):
        # per-sample positions: index_put_ has a batching rule, a raw array write has none
        if not isinstance(value, Tensor):
            from .._from_data import tensor

            value = tensor(value, dtype=self.dtype, device=self.device)
        self.index_put_(idx, value)
        return
    _ORIGINAL_SETITEM[0](self, index, value)


def _int_index(i, like):
    from .._from_data import tensor

    return tensor(i, device=like.device)


def _scalar_index_write(self, idx, value):
    """``b[i] = v`` with a batched 0-d integer ``i`` (torch reads it as an int): written as
    ``b[i[None]]``, with ``v`` given the size-1 dim the read ``_getitem_in_vmap`` removes."""
    target = _getitem_in_vmap(self, idx)
    new = tuple(i.unsqueeze(0) if _is_scalar_index(i) else i for i in idx)
    wide = _ORIGINAL_GETITEM[0](self, new)
    if isinstance(value, Tensor) and wide.dim() > target.dim():
        pos = next(k for k in range(wide.dim()) if k >= target.dim() or
                   wide.shape[k] != target.shape[k])
        lead = target.dim() - value.dim()  # value's dims align with the target's last ones
        if pos >= lead:
            value = value.unsqueeze(pos - lead)
    return new, value


_ORIGINAL_SETITEM = []


def _patch_getitem(on):
    if on:
        _ORIGINAL_GETITEM.append(Tensor.__getitem__)
        Tensor.__getitem__ = _getitem_in_vmap
        _ORIGINAL_SETITEM.append(Tensor.__setitem__)
        Tensor.__setitem__ = _setitem_in_vmap
    else:
        Tensor.__getitem__ = _ORIGINAL_GETITEM.pop()
        Tensor.__setitem__ = _ORIGINAL_SETITEM.pop()
