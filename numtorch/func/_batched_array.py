"""The logical-shape stand-in array of a BatchedTensor (its ``_array``).

Functions above the ops read ``t._array`` for shapes and dtypes, and some compute with it
directly (argument checks, sorting, one-hot encoding, ``full_like``). The stand-in is a view of
the first sample, so that metadata is right; computing with it answers for the whole batch:

* ufuncs run elementwise on the physical arrays (batch dims aligned) and give stand-ins;
* reductions over every element cover all samples (an argument check sees the whole batch);
  reductions over axes, and the NumPy functions with an ``axis`` (sort, argsort, flip,
  cumulative sums, ``take_along_axis``, ``concatenate``...), get the axis moved past the batch
  dims;
* ``astype``, ``copy``, ``reshape``, ``transpose`` and basic indexing act per sample;
* writes (``a[idx] = v``) go to every sample.

Anything else raises, so a value never silently comes from one sample only.
"""

import numpy as np

__all__ = ["Escaped", "_Logical", "refuse_values"]

_META_FUNCS = {np.result_type, np.shape, np.ndim, np.size, np.broadcast_shapes,
               np.iscomplexobj, np.isrealobj, np.can_cast, np.min_scalar_type}


class Escaped(RuntimeError):
    """A batched stand-in's values were asked for outside the batching rules (the functions
    of ``_fallback.py`` then run once per sample)."""


def _escaped():
    return Escaped("vmap: a batched tensor's values were used outside of numtorch's "
                   "batching rules (by code that reads a tensor's array directly); this "
                   "operation cannot be vmapped")


def refuse_values(array):
    """Raise when ``array`` is a batched stand-in: for code that goes on with a tensor's values
    on the host (counts, sizes), which the stand-in holds for the first sample only (NumPy
    functions that dispatch on another argument read it as a plain array)."""
    if type(array) is _Logical and array._owner is not None:
        raise _escaped()


def _B():
    from . import _batched

    return _batched


class _Logical(np.ndarray):
    """The stand-in; ``_owner`` is the BatchedTensor it stands for (None for arrays derived
    from it in ways that are not batched, which then refuse all computation)."""

    _owner = None

    def get(self):
        """Already on the host (code that takes a non-``ndarray`` for a CuPy array calls
        this to bring it over)."""
        return self

    # -- per-sample methods -----------------------------------------------------------------
    def _phys(self):
        if self._owner is None:
            raise _escaped()
        return self._owner._bt._array, self._owner._levels

    def astype(self, dtype, *args, **kwargs):
        arr, levels = self._phys()
        return _result(arr.astype(dtype, *args, **kwargs), levels)

    def copy(self, order="C"):
        arr, levels = self._phys()
        return _result(arr.copy(order), levels)

    def reshape(self, *shape, **kwargs):
        arr, levels = self._phys()
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        shape = np.empty(self.shape, dtype=np.bool_).reshape(shape).shape  # resolves -1
        return _result(arr.reshape(arr.shape[:len(levels)] + tuple(shape), **kwargs), levels)

    def ravel(self, order="C"):
        return self.reshape(-1)

    def transpose(self, *axes):
        arr, levels = self._phys()
        k = len(levels)
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = tuple(range(self.ndim))[::-1] if not axes else tuple(a % self.ndim for a in axes)
        return _result(arr.transpose(tuple(range(k)) + tuple(a + k for a in axes)), levels)

    @property
    def T(self):
        return self.transpose()

    def swapaxes(self, a, b):
        order = list(range(self.ndim))
        order[a], order[b] = order[b], order[a]
        return self.transpose(order)

    def __getitem__(self, index):
        if self._owner is None:
            return super().__getitem__(index)
        idx = index if isinstance(index, tuple) else (index,)
        if any(isinstance(v, np.ndarray) for v in idx):
            raise _escaped()
        arr, levels = self._phys()
        return _result(arr[(slice(None),) * len(levels) + idx], levels)

    def __setitem__(self, index, value):
        """A write into the stand-in goes to every sample of the batch."""
        owner = self._owner
        if owner is None:
            return super().__setitem__(index, value)
        idx = index if isinstance(index, tuple) else (index,)
        arrays = [i for i, v in enumerate(idx) if isinstance(v, np.ndarray)]
        if any(type(idx[i]) is _Logical for i in arrays) or (
                arrays and arrays[-1] - arrays[0] != len(arrays) - 1):
            raise _escaped()
        k = len(owner._levels)
        target_nd = np.ndarray.__getitem__(self.view(np.ndarray), index).ndim
        if type(value) is _Logical and value._owner is not None:
            if not set(value._owner._levels) <= set(owner._levels):
                raise RuntimeError("vmap: a batched value cannot be written into a tensor that "
                                   "is not batched over the same dims")
            v = _B().materialize(value._owner, owner._levels)._array
            v = v.reshape(v.shape[:k] + (1,) * (target_nd - value.ndim) + v.shape[k:])
        else:
            v = value
        owner._bt._array[(slice(None),) * k + idx] = v

    # -- NumPy protocols ------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        out = kwargs.pop("out", None)
        if kwargs.get("where", True) is not True:
            raise _escaped()
        kwargs.pop("where", None)
        if out is not None and any(o is not None for o in out):
            # in place (``hit |= isnan(a)``): into a stand-in's whole batch
            if method != "__call__" or len(out) != 1 or type(out[0]) is not _Logical:
                raise _escaped()
            res = _Logical.__array_ufunc__(self, ufunc, method, *args, **kwargs)
            dst = out[0]
            arr, levels = dst._phys()
            _, src_levels = res._phys()
            if not set(src_levels) <= set(levels):
                raise _escaped()
            arr[...] = _aligned(res, levels, dst.ndim)
            return dst
        if method in ("reduce", "accumulate") and len(args) == 1 and args[0] is self:
            arr, levels = self._phys()
            axis = kwargs.pop("axis", None if method == "reduce" else 0)
            if axis is None:  # every element of every sample (argument checks)
                return getattr(ufunc, method)(arr, axis=None, **kwargs)
            k = len(levels)
            axes = axis if isinstance(axis, tuple) else (axis,)
            axes = tuple(a % self.ndim + k for a in axes)
            res = getattr(ufunc, method)(arr, axis=axes if method == "reduce" else axes[0],
                                         **kwargs)
            return _result(res, levels)
        if method != "__call__":
            raise _escaped()
        owners = [a._owner for a in args if type(a) is _Logical]
        if any(o is None for o in owners):
            raise _escaped()
        levels = _B().union_levels(owners)
        rank = max(np.ndim(a) for a in args)
        phys = [_aligned(a, levels, rank) if type(a) is _Logical else a for a in args]
        res = ufunc(*phys, **kwargs)
        if isinstance(res, tuple):
            return tuple(_result(r, levels) for r in res)
        return _result(res, levels)

    def __array_function__(self, func, types, args, kwargs):
        if func in _META_FUNCS:
            return super().__array_function__(func, (np.ndarray,), args, kwargs)
        handler = _FUNCS.get(func)
        if handler is None:
            name = _DYNAMIC_SHAPE.get(func)
            if name is not None:  # a result whose size depends on each sample's values
                raise RuntimeError(f"vmap: We do not support batching operators that can output "
                                   f"dynamic shape. Attempted to vmap over aten::{name}. Please "
                                   f"file an issue at https://github.com/pytorch/pytorch/issues "
                                   f"if you need this feature.")
            raise _escaped()
        return handler(func, list(args), dict(kwargs))


def _aligned(rep, levels, rank, expand=False):
    """The physical array behind a stand-in, with size-1 dims (or, with ``expand``, the full
    batch sizes) for the levels it lacks and size-1 dims for the logical rank it lacks."""
    sizes = _B()._SIZES
    owner = rep._owner
    arr = owner._bt._array
    own = owner._levels
    lead = tuple(sizes[v] if v in own else 1 for v in levels)
    arr = arr.reshape(lead + (1,) * (rank - rep.ndim) + arr.shape[len(own):])
    if expand:
        full = tuple(sizes[v] for v in levels) + arr.shape[len(levels):]
        arr = np.broadcast_to(arr, full) if type(arr) is np.ndarray else arr
    return arr


def _result(res, levels):
    from .._tensor import _make

    return _B().wrap(_make(np.asarray(res) if type(res) is not np.ndarray else res),
                     levels)._array


# -- NumPy functions: which argument is the axis, and what None means -------------------------

def _with_axis(pos, default, none="escape"):
    """A handler for ``func(..., axis)``: the axis moves past the batch dims.

    ``none``: what ``axis=None`` means: "escape" (flattens: not batchable), "all" (every
    logical axis) or "reduce" (every element of every sample, an unbatched answer).
    """
    def handler(func, args, kwargs):
        if "axis" in kwargs:
            axis = kwargs["axis"]
        elif len(args) > pos:
            axis = args[pos]
        else:
            axis = default
        seq = isinstance(args[0], (list, tuple))
        arrays = list(args[0]) if seq else [args[0]]
        reps = [a for a in arrays + args[1:pos] if type(a) is _Logical]
        if any(r._owner is None for r in reps):
            raise _escaped()
        levels = _B().union_levels([r._owner for r in reps])
        k = len(levels)
        nd = np.ndim(arrays[0])
        if axis is None:
            if none == "reduce":
                return func(*[a._owner._bt._array if type(a) is _Logical else a for a in args],
                            **kwargs)
            if none != "all":
                raise _escaped()
            axis = tuple(range(nd))
        if isinstance(axis, tuple):
            axis = tuple(a % nd + k for a in axis)
        else:
            axis = axis + k if axis >= 0 else axis
        phys = [_aligned(a, levels, np.ndim(a), expand=True) if type(a) is _Logical
                else np.broadcast_to(a, tuple(_B()._SIZES[v] for v in levels) + np.shape(a))
                for a in arrays]
        sizes = tuple(_B()._SIZES[v] for v in levels)
        args = [phys if seq else phys[0]] + [
            _aligned(a, levels, np.ndim(a), expand=True) if type(a) is _Logical else
            # take_along_axis's plain indices pick the same entries from every sample
            np.broadcast_to(a, sizes + np.shape(a)) if func is np.take_along_axis and i == 1
            else a
            for i, a in enumerate(args[1:], 1)]
        if "axis" in kwargs or len(args) <= pos:
            kwargs["axis"] = axis
        else:
            args[pos] = axis
        res = func(*args, **kwargs)
        if isinstance(res, tuple):
            return tuple(_result(r, levels) for r in res)
        return _result(res, levels)

    return handler


def _where(func, args, kwargs):
    if len(args) != 3 or kwargs:
        raise _escaped()
    reps = [a for a in args if type(a) is _Logical]
    if any(r._owner is None for r in reps):
        raise _escaped()
    levels = _B().union_levels([r._owner for r in reps])
    rank = max(np.ndim(a) for a in args)
    return _result(func(*[_aligned(a, levels, rank) if type(a) is _Logical else a
                          for a in args]), levels)


def _like(func, args, kwargs):
    a = args[0]
    arr, levels = a._phys()
    return _result(func(arr, *args[1:], **kwargs), levels)


_FUNCS = {}
# the NumPy function behind torch.nonzero, by torch's op name
_DYNAMIC_SHAPE = {np.nonzero: "nonzero"}
for _f, _pos, _default, _none in (
        (np.sort, 1, -1, "escape"), (np.argsort, 1, -1, "escape"), (np.flip, 1, None, "all"),
        (np.cumsum, 1, None, "escape"), (np.cumprod, 1, None, "escape"),
        (np.argmax, 1, None, "escape"), (np.argmin, 1, None, "escape"),
        (np.take_along_axis, 2, None, "escape"), (np.expand_dims, 1, None, "escape"),
        (np.concatenate, 1, 0, "escape"), (np.stack, 1, 0, "escape"),
        (np.partition, 2, -1, "escape"), (np.argpartition, 2, -1, "escape"),
        (np.sum, 1, None, "reduce"), (np.prod, 1, None, "reduce"), (np.any, 1, None, "reduce"),
        (np.all, 1, None, "reduce"), (np.max, 1, None, "reduce"), (np.min, 1, None, "reduce"),
        (np.amax, 1, None, "reduce"), (np.amin, 1, None, "reduce"),
        (np.mean, 1, None, "reduce"), (np.take, 2, None, "escape")):
    _FUNCS[_f] = _with_axis(_pos, _default, _none)
for _f in (np.full_like, np.zeros_like, np.ones_like, np.empty_like, np.copy,
           np.ascontiguousarray, np.isnan, np.isinf, np.isfinite):
    _FUNCS[_f] = _like
_FUNCS[np.where] = _where


def _searchsorted(func, args, kwargs):
    """``searchsorted(boundaries, values)``: shared boundaries search every sample's values at
    once; per-sample boundaries search sample by sample (a loop over the batch, not over
    elements)."""
    a, v = args[0], args[1]
    reps = [x for x in (a, v) if type(x) is _Logical]
    if len(args) > 2 or any(r._owner is None for r in reps) or np.ndim(a) != 1:
        raise _escaped()
    levels = _B().union_levels([r._owner for r in reps])
    if type(a) is not _Logical:  # one sequence for every sample
        return _result(func(a, _aligned(v, levels, np.ndim(v)), **kwargs), levels)
    sizes = tuple(_B()._SIZES[lvl] for lvl in levels)
    seqs = _aligned(a, levels, 1, expand=True).reshape(-1, a.shape[-1])
    vals = (_aligned(v, levels, np.ndim(v), expand=True) if type(v) is _Logical else
            np.broadcast_to(v, sizes + np.shape(v)))
    flat = vals.reshape((seqs.shape[0],) + np.shape(v))
    res = np.stack([func(seqs[i], flat[i], **kwargs) for i in range(seqs.shape[0])])
    return _result(res.reshape(sizes + np.shape(v)), levels)


_FUNCS[np.searchsorted] = _searchsorted


def _memory_query(func, args, kwargs):
    """Whether arrays may share memory: asked of the physical arrays (a write's overlap
    check, ``b[1:] = const`` into a batched ``b``)."""
    phys = [a._owner._bt._array if type(a) is _Logical and a._owner is not None else
            (a.view(np.ndarray) if type(a) is _Logical else a) for a in args]
    return func(*phys, **kwargs)


_FUNCS[np.may_share_memory] = _FUNCS[np.shares_memory] = _memory_query
