"""Batched tensors: how ``vmap`` runs a function once on a whole batch.

A ``BatchedTensor`` is what the vmapped function sees for a mapped argument. It looks like one
sample: ``shape``, ``dim()``, ``dtype`` are the per-sample (logical) ones. Underneath it holds
one ordinary tensor, the *physical* value, whose leading dims are the batch dims of the active
vmap levels it varies over (outermost level first), followed by the logical dims.

Every op reaches ``Op.apply``; while a vmap is active, ``Op.apply`` first offers the call to
the batching dispatcher (``_rules.dispatch``), which rewrites the call onto the physical
tensors (dims shifted past the batch dims, shapes extended, operands aligned) and runs the op
once. Autograd therefore records the physical ops: gradients of a vmapped computation, and
per-sample gradients (``vmap(grad(f))``), come from the ordinary engine.

``_array`` of a BatchedTensor is a read-only stand-in of the logical shape (a view of the
first sample) so that argument checks, dtype rules and shape arithmetic in the functions above
the ops work unchanged. Computing with it directly would read one sample only, so the stand-in
refuses NumPy computation: a value that escapes the batching rules fails loudly.
"""

import itertools

import numpy as np

from .._tensor import Tensor, _make
from ._batched_array import _Logical

__all__ = ["BatchedTensor", "Level", "active_levels", "level_size", "wrap", "physical",
           "materialize", "logical_ndim", "is_batched"]

_ids = itertools.count(1)
_ACTIVE = []  # the active vmap levels, outermost first
_SIZES = {}  # level id -> batch size (kept while any tensor may still name the level)



class Level:
    """One active vmap: its id (larger for inner vmaps), batch size and randomness mode."""

    __slots__ = ("id", "size", "randomness", "internal", "stand_ins")

    def __init__(self, size, randomness, internal=False):
        self.id = next(_ids)
        self.size = size
        self.randomness = randomness
        self.internal = internal  # a vmap over basis vectors inside jacrev/jacfwd
        self.stand_ins = []  # of this level's BatchedTensors, released when it ends (release)
        _SIZES[self.id] = size

    def release(self):
        """Detach the stand-ins of the BatchedTensors made at this level from their owners: a
        stand-in and its owner hold each other (a cycle that kept the batched arrays alive
        until the garbage collector ran); an escaped one refuses computation, as documented."""
        for rep in self.stand_ins:
            rep._owner = None
        self.stand_ins = []


def active_levels():
    return _ACTIVE


def level_size(lvl):
    return _SIZES[lvl]


_DATA_DEPENDENT = ("vmap: It looks like you're attempting to use a Tensor in some "
                   "data-dependent control flow. We don't support that yet, please file an "
                   "issue at https://github.com/pytorch/pytorch/issues .")


# torch's answer for both when another transform (grad, jvp) runs inside the vmap: the value
# reaches the vmap level wrapped, and torch cannot tell which of the two it was
_WRAPPED_VALUE = ("vmap: It looks like you're either (1) calling .item() on a Tensor or (2) "
                  "attempting to use a Tensor in some data-dependent control flow or (3) "
                  "encountering this error in PyTorch internals. For (1): we don't support vmap "
                  "over calling .item() on a Tensor, please try to rewrite what you're doing "
                  "with other operations. For (2): we don't support data-dependent control flow "
                  "in vmap yet, please file an issue at https://github.com/pytorch/pytorch/issues "
                  ". For (3): please file an issue.")


_REQUIRES_GRAD_IN_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, "
    "vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead.")


def _active_transform():
    from ..autograd._func_transforms import KINDS

    return bool(KINDS)


def data_dependent_message():
    """torch's message for a batched value used in control flow (``bool``, ``is_nonzero``)."""
    return _WRAPPED_VALUE if _under_other_transform() else _DATA_DEPENDENT


def _under_other_transform():
    from ..autograd._func_transforms import KINDS

    return bool(KINDS) and KINDS[-1] != "vmap"


# torch's answer when a batched tensor's memory is read directly (tolist, numpy)
_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


class BatchedTensor(Tensor):
    """A tensor inside ``vmap``: one sample to the function, the whole batch underneath.

    Attributes:
        _bt: the physical tensor (batch dims first, one per level in ``_levels``).
        _levels: the ids of the vmap levels the value varies over, ascending.
    """

    def item(self):
        if _under_other_transform():
            raise RuntimeError(_WRAPPED_VALUE)
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't "
                           "support vmap over calling .item() on a Tensor, please try to "
                           "rewrite what you're doing with other operations. If error is "
                           "occurring somewhere inside PyTorch internals, please file a bug "
                           "report.")

    def __bool__(self):
        raise RuntimeError(data_dependent_message())

    def is_nonzero(self):
        raise RuntimeError(data_dependent_message())

    def __int__(self):  # torch reads a number through .item() (bool() is control flow)
        return self.item()

    __float__ = __index__ = __complex__ = __int__

    def __format__(self, spec):
        if self._array.ndim == 0:  # a 0-d tensor formats its .item(), as torch's
            return self.item()
        return super().__format__(spec)

    def tolist(self):
        raise RuntimeError(_NO_STORAGE)

    def numpy(self, *, force=False):
        raise RuntimeError(_NO_STORAGE)

    def data_ptr(self):
        raise RuntimeError(_NO_STORAGE)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(_NO_STORAGE)

    def __repr__(self, *, tensor_contents=None):
        # torch's nesting: one wrapper per level, the outermost vmap innermost, each level
        # numbered by its depth; the batch dims lead the physical value, so each bdim is 0
        depth = {getattr(lv, "id", lv): k + 1 for k, lv in enumerate(_ACTIVE)}
        text = repr(self._bt)
        for lvl in self._levels:
            inner = "\n".join("    " + line if line else line for line in text.split("\n"))
            text = f"BatchedTensor(lvl={depth.get(lvl, lvl)}, bdim=0, value=\n{inner}\n)"
        return text

    def detach(self):
        return wrap(self._bt.detach(), self._levels)

    @property
    def data(self):
        return wrap(self._bt.detach(), self._levels)

    def requires_grad_(self, requires_grad=True):
        if _active_transform():  # torch's refusal (autograd.functional inside vmap included)
            raise RuntimeError(_REQUIRES_GRAD_IN_TRANSFORM)
        self._bt.requires_grad_(requires_grad)
        self._requires_grad = self._bt.requires_grad
        return self

    @property
    def requires_grad(self):
        return self._bt.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if _active_transform():  # torch ignores the assignment inside a transform
            return
        self.requires_grad_(value)

    # torch's factory methods on a batched tensor give batched results (so an in-place random
    # fill of ``x.new_empty(shape)`` draws per sample, as dropout needs)
    def _new(self, make, size, kwargs):
        sizes = tuple(_SIZES[lvl] for lvl in self._levels)
        from .._size import parse_size

        shape = parse_size("new", size, None)
        kwargs.setdefault("dtype", self.dtype)
        kwargs.setdefault("device", self.device)
        return wrap(make(sizes + tuple(shape), **kwargs), self._levels)

    def new_zeros(self, *size, **kwargs):
        from .. import _creation

        return self._new(_creation.zeros, size, kwargs)

    def new_ones(self, *size, **kwargs):
        from .. import _creation

        return self._new(_creation.ones, size, kwargs)

    def new_empty(self, *size, **kwargs):
        from .. import _creation

        return self._new(_creation.empty, size, kwargs)

    def new_full(self, size, fill_value, **kwargs):
        from .. import _creation

        return self._new(lambda shape, **kw: _creation.full(shape, fill_value, **kw), (size,),
                         kwargs)

    # -- in-place metadata changes: the physical tensor becomes the batched result's -------
    def _restride_(self, name, *args):
        from .. import ops

        if name == "t" and self._array.ndim > 2:  # (torch names the in-place call)
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                               f"{self._array.ndim}D")
        phys, levels = physical(getattr(ops, name)(self, *args))
        self._bt, self._levels, self._vc = phys, levels, phys._vc
        self._refresh()
        return self

    def transpose_(self, dim0, dim1):
        return self._restride_("transpose", dim0, dim1)

    def t_(self):
        return self._restride_("t")

    def squeeze_(self, dim=None):
        return self._restride_("squeeze", dim)

    def unsqueeze_(self, dim):
        return self._restride_("unsqueeze", dim)

    def resize_(self, *sizes, memory_format=None):
        """torch's batching of ``resize_``: the physical tensor (batch dims first) is resized
        to the batch sizes followed by ``size`` (so a shrunk sample reads on into the next
        sample's elements, as in torch)."""
        size = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) \
            else sizes
        if self.requires_grad:  # torch's error
            return Tensor.resize_(self, *sizes, memory_format=memory_format)
        phys = self._bt
        lead = tuple(phys.shape[:len(self._levels)])
        Tensor.resize_(phys, lead + tuple(size))
        self._vc = phys._vc
        self._refresh()
        return self

    def index_put_(self, indices, values, accumulate=False):
        from ._fallback import scalar_indices

        return Tensor.index_put_(self, scalar_indices(indices), values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        from ._fallback import scalar_indices

        return Tensor.index_put(self, scalar_indices(indices), values, accumulate)

    def storage_offset(self):
        """The first sample's offset (the physical tensor's), as torch reports it."""
        return self._bt.storage_offset()

    def as_strided(self, size, stride, storage_offset=None):
        from ._fallback import call

        return call("as_strided", Tensor.as_strided, (self, size, stride, storage_offset), {})

    def as_strided_(self, size, stride, storage_offset=None):
        from ._fallback import call

        return call("as_strided_", Tensor.as_strided_, (self, size, stride, storage_offset),
                    {})

    def _refresh(self):
        """Re-read the stand-in and flags after the physical tensor changed in place."""
        self._array = _stand_in(self._bt._array, len(self._levels), self)
        self._requires_grad = self._bt.requires_grad


def _stand_in(arr, k, owner):
    if k == 0:
        return arr
    if type(arr) is not np.ndarray:  # CuPy: a plain view (no leak guard on the GPU)
        if all(arr.shape[:k]):
            return arr[(0,) * k + (Ellipsis,)]
        from .. import backend

        return backend.xp_of(arr).empty(arr.shape[k:], dtype=arr.dtype)
    if all(arr.shape[:k]):
        rep = arr[(0,) * k + (Ellipsis,)].view(_Logical)  # a 0-d array, never a scalar
    else:  # an empty batch has no first sample: any array of the right shape will do
        rep = np.empty(arr.shape[k:], dtype=arr.dtype).view(_Logical)
    rep._owner = owner
    inner = max(owner._levels, default=None)
    for level in reversed(_ACTIVE):
        if level.id == inner:
            level.stand_ins.append(rep)
            break
    return rep


def wrap(phys, levels):
    """A BatchedTensor over ``phys`` whose leading dims are ``levels`` (a plain tensor when
    ``levels`` is empty)."""
    if not levels:
        return phys
    t = object.__new__(BatchedTensor)
    t._bt = phys
    t._levels = tuple(levels)
    t._grad = t._grad_fn = t._base = t._accum = t._extra = None
    t._output_nr = 0
    t._vc = phys._vc
    t._array = _stand_in(phys._array, len(levels), t)
    t._requires_grad = phys.requires_grad
    return t


def is_batched(x):
    return type(x) is BatchedTensor


def physical(x):
    """``(phys, levels)`` of a BatchedTensor; ``(x, ())`` for anything else."""
    if type(x) is BatchedTensor:
        return x._bt, x._levels
    return x, ()


def logical_ndim(x):
    return x._array.ndim


def materialize(x, levels, expand=True):
    """``x`` as a physical tensor with a leading dim for every level in ``levels`` (a superset
    of its own): missing levels become size-1 dims, expanded to the batch size when
    ``expand``."""
    phys, own = physical(x)
    if own == tuple(levels):
        return phys
    if not isinstance(phys, Tensor):
        phys = _make(np.asarray(phys))
    shape = list(phys.shape[len(own):])
    lead = []
    it = iter(phys.shape[:len(own)])
    for lvl in levels:
        lead.append(next(it) if lvl in own else 1)
    if any(lvl not in levels for lvl in own):
        raise AssertionError("vmap: a tensor carries a level the operation does not know")
    out = phys.reshape(tuple(lead) + tuple(shape))
    if expand:
        sizes = tuple(_SIZES[lvl] for lvl in levels)
        if tuple(lead) != sizes:
            out = out.expand(sizes + tuple(shape))
    return out


def union_levels(xs):
    """The sorted union of the levels of the BatchedTensors among ``xs``."""
    seen = set()
    for x in xs:
        if type(x) is BatchedTensor:
            seen.update(x._levels)
    return tuple(sorted(seen))


def unwrap_owner(x):
    """A plain tensor around a BatchedTensor's stand-in array is that BatchedTensor."""
    if type(x) is Tensor and type(x._array) is _Logical and x._array._owner is not None:
        return x._array._owner
    return x


def lower(x, levels):
    """``x`` with the batch dims of ``levels`` turned into leading logical dims (in that
    order; ``x`` is expanded over any of them it lacks); its other levels stay batched."""
    phys, own = physical(x)
    keep = tuple(v for v in own if v not in levels)
    full = tuple(sorted(set(own) | set(levels)))
    phys = materialize(x, full)
    pos = {v: i for i, v in enumerate(full)}
    perm = [pos[v] for v in keep] + [pos[v] for v in levels]
    perm += list(range(len(full), phys.ndim))
    if perm != list(range(phys.ndim)):
        phys = phys.permute(perm)
    return wrap(phys, keep)


def lift(x, levels):
    """The inverse of :func:`lower`: the leading logical dims of ``x`` become the batch dims
    of ``levels``."""
    phys, own = physical(x)
    if any(v in own for v in levels):
        # a level that batches ``x`` and also leads its logical dims (a tangent or cotangent
        # batched over a level the graph's values vary over): the two index the same samples,
        # so each sample's value is on their diagonal
        k = len(own)
        rest = list(levels)
        for v in [v for v in levels if v in own]:
            i, j = own.index(v), k + rest.index(v)
            phys = phys.diagonal(0, i, j).movedim(-1, i)
            rest.remove(v)
        levels = tuple(rest)
    cur = list(own) + list(levels)
    full = sorted(cur)
    perm = [cur.index(v) for v in full] + list(range(len(cur), phys.ndim))
    if perm != list(range(phys.ndim)):
        phys = phys.permute(perm)
    return wrap(phys, tuple(full))
