"""Function-level batching for the functions that compute on a tensor's values on the host.

Most functions reach the batching rules through their ops (``_rules.py``). A few read the
values themselves (``quantile``, ``bincount``, ``histc``, ``mode``, ``isin``,
``repeat_interleave`` with a tensor of repeats...), which a batched stand-in refuses. Torch
runs such functions once per sample and stacks the results (its batching fallback), so these
functions do the same while a vmap is active: the vectorised path is tried first, and only a
call whose values escaped the batching rules runs per sample.

Functions whose results have a data-dependent size raise torch's error instead, as under
torch's vmap.

``numtorch/_vmap_fallback.py`` wraps these functions (in ``numtorch`` and ``numtorch.ops``,
which the Tensor methods call) when numtorch is imported; the wrappers come here only while a
vmap runs.
"""

import warnings

from .._tensor import Tensor
from . import _batched as B
from ._batched_array import Escaped
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["call"]

_DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. "
            "Attempted to vmap over aten::{}. Please file an issue at "
            "https://github.com/pytorch/pytorch/issues if you need this feature.")
_NO_FALLBACK = "Batching rule not implemented for aten::{}. We could not generate a fallback."
_MASK = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot "
         "support this because for each batch this would return a differently shaped Tensor. "
         "Please file an issue at https://github.com/pytorch/pytorch/issues if you need this "
         "feature.")


def _bound(args, kwargs, names):
    """The argument called ``names[i]`` (i-th positional or by keyword); None if not given."""
    out = []
    for i, n in enumerate(names):
        out.append(args[i] if len(args) > i else kwargs.get(n))
    return out


def _unique_error(args, kwargs):
    (dim,) = _bound(args, kwargs, ("input", "sorted", "return_inverse", "return_counts",
                                   "dim"))[4:]
    return RuntimeError(_DYNAMIC.format("_unique2" if dim is None else "unique_dim"))


def _nonzero_error(args, kwargs):
    if kwargs.get("as_tuple"):
        return RuntimeError(_NO_FALLBACK.format("nonzero_numpy"))
    return RuntimeError(_DYNAMIC.format("nonzero"))


def _where_error(args, kwargs):
    if len(args) + len(kwargs) == 1:  # torch.where(condition): the nonzero positions
        return RuntimeError(_DYNAMIC.format("where"))
    return None


def _masked_select_error(args, kwargs):
    mask = _bound(args, kwargs, ("input", "mask"))[1]
    if B.is_batched(B.unwrap_owner(mask)) if isinstance(mask, Tensor) else False:
        return RuntimeError(_MASK)
    return None


def _geometry(x, size, stride, storage_offset):
    """``(phys, levels, size, stride, offset)`` of an ``as_strided`` call on BatchedTensor
    ``x``: the offset defaults to the first sample's (the physical tensor's)."""
    from ..ops.strided_views import _geometry_args

    phys, levels = B.physical(x)
    size, stride, offset = _geometry_args(phys, size, stride, storage_offset)
    return phys, levels, size, stride, offset


def _extent(size, stride):
    return sum((n - 1) * s for n, s in zip(size, stride))


def _as_strided(fn, args, kwargs):
    """torch's rule: each sample reads its own memory with ``size``/``stride``, from its own
    offset (``storage_offset`` counts for the first sample; the others are shifted by their
    distance from it), and the result must stay inside the sample's memory."""
    x, size, stride, storage_offset = _bound(args, kwargs, ("input", "size", "stride",
                                                           "storage_offset"))
    x = B.unwrap_owner(x)
    if not B.is_batched(x):
        return fn(*args, **kwargs)
    phys, levels, size, stride, offset = _geometry(x, size, stride, storage_offset)
    k = len(levels)
    pstride = phys.stride()
    lshape, lstride = tuple(phys.shape[k:]), pstride[k:]
    base = phys.storage_offset()
    if len(size) == len(stride) and all(n > 0 for n in size) and all(n > 0 for n in lshape):
        lo, hi = offset, offset + _extent(size, stride) + 1
        own_lo, own_hi = base, base + _extent(lshape, lstride) + 1
        if lo < own_lo or hi > own_hi:
            from ..ops._util import fmt_shape

            raise RuntimeError(
                f"result = tensor.as_strided({fmt_shape(size)}, {fmt_shape(stride)}, {offset}) "
                f"can access memory outside of `tensor`. `result` can access some memory in "
                f"range [{lo}, {hi}], but `tensor` can only access some memory in range "
                f"[{own_lo}, {own_hi}]. This is not supported inside of vmap, please try to "
                f"rewrite the `as_strided` call as a sequence of PyTorch view operations")
    from ..ops import as_strided

    out = as_strided(phys, tuple(phys.shape[:k]) + size, pstride[:k] + stride, offset)
    return B.wrap(out, levels)


def _as_strided_(fn, args, kwargs):
    """torch runs ``as_strided_`` once per sample on a slice of the batch: the batched tensor
    keeps its geometry, and a sample whose new geometry leaves the storage raises."""
    import numpy as np

    from ..ops.strided_views import _check_geometry, _storage_size

    x, size, stride, storage_offset = _bound(args, kwargs, ("input", "size", "stride",
                                                           "storage_offset"))
    x = B.unwrap_owner(x)
    if not B.is_batched(x):
        return fn(*args, **kwargs)
    phys, levels, size, stride, offset = _geometry(x, size, stride, storage_offset)
    k = len(levels)
    numel = _storage_size(phys._array)
    item = phys._array.itemsize
    offsets = np.array([offset])
    if storage_offset is None:  # each sample from its own offset
        offsets = np.full((), offset, dtype=np.int64)
        for n, s in zip(phys.shape[:k], phys.stride()[:k]):
            offsets = offsets[..., None] + np.arange(n, dtype=np.int64) * s
        offsets = offsets.reshape(-1)
    first = offsets[:1]
    if len(size) == len(stride) and offsets.size and 0 not in size:
        bad = np.nonzero(offsets + 1 + _extent(size, stride) > numel)[0]
        if bad.size:
            first = offsets[bad[:1]]
    if offsets.size:
        _check_geometry(size, stride, int(first[0]), numel, item)
    return args[0]


_BN_UNBATCHED_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which "
    "will be updated in place, were not batched.\nIf you are using a module and do not need "
    "eval mode, please set `track_running_stats` to be False.If you are using a prebuilt "
    "module and do not need eval mode, please see the functorch website for resources on how "
    "to patch your module to work with vmap")


def _batch_norm(fn, args, kwargs):
    """Training batch norm with running statistics: torch updates batched running statistics
    per sample (the ensembling pattern: ``stack_module_state`` buffers under vmap) and raises
    when the input varies over a level the statistics do not."""
    names = ("input", "running_mean", "running_var", "weight", "bias", "training",
             "momentum", "eps")
    x, rm, rv, w, b, training, momentum, eps = _bound(args, kwargs, names)
    momentum = 0.1 if len(args) <= 6 and "momentum" not in kwargs else momentum
    eps = 1e-5 if len(args) <= 7 and "eps" not in kwargs else eps
    if not training or rm is None or rv is None or momentum is None:
        return fn(*args, **kwargs)
    x, rm, rv = (B.unwrap_owner(t) if isinstance(t, Tensor) else t for t in (x, rm, rv))
    from ..nn.functional.normalization import _verify_batch_size

    _verify_batch_size(tuple(x.shape), x.shape)  # (torch checks each sample's size first)
    own = set(B.physical(x)[1])
    if not (own <= set(B.physical(rm)[1]) and own <= set(B.physical(rv)[1])):
        raise RuntimeError(_BN_UNBATCHED_STATS)
    from ..autograd.grad_mode import no_grad

    out = fn(x, None, None, w, b, True, momentum, eps)
    dims = [0] + list(range(2, x.dim()))
    n = x.numel() // max(x.shape[1], 1)
    if n > 0:
        with no_grad():
            xd = x.detach()
            mean = xd.mean(dims)
            var = xd.var(dims, unbiased=False) * (n / max(n - 1, 1))
            rm.mul_(1 - momentum).add_(mean.to(rm.dtype) * momentum)
            rv.mul_(1 - momentum).add_(var.to(rv.dtype) * momentum)
    return out


def _grid_sample(fn, args, kwargs):
    """``grid_sample`` works on ``(N, C, *spatial)`` inputs with ``(N, *out, d)`` grids: the
    batch dims of both fold into N (one call for the whole batch)."""
    x, grid = (B.unwrap_owner(t) if isinstance(t, Tensor) else t
               for t in _bound(args, kwargs, ("input", "grid")))
    levels = B.union_levels([x, grid])
    rest = dict(zip(("mode", "padding_mode", "align_corners"), args[2:]))
    rest.update((k, v) for k, v in kwargs.items() if k not in ("input", "grid"))
    if x.dim() != grid.dim():  # (let the function raise its own error)
        return fn(*args, **kwargs)
    sizes = tuple(B.level_size(lvl) for lvl in levels)
    k = len(levels)
    xp_, gp = B.materialize(x, levels), B.materialize(grid, levels)
    n = 1
    for s_ in sizes:
        n *= s_
    out = fn(xp_.reshape((n * xp_.shape[k],) + tuple(xp_.shape[k + 1:])),
             gp.reshape((n * gp.shape[k],) + tuple(gp.shape[k + 1:])), **rest)
    return B.wrap(out.reshape(sizes + (xp_.shape[k],) + tuple(out.shape[1:])), levels)


def _embedding(fn, args, kwargs):
    """``max_norm`` renormalises the looked-up rows of the table in place: per sample when
    the table is batched, torch's in-place error when only the indices are."""
    names = ("input", "weight", "padding_idx", "max_norm")
    _, weight, _, max_norm = _bound(args, kwargs, names)
    if max_norm is None:
        return fn(*args, **kwargs)
    weight = B.unwrap_owner(weight)
    if not B.is_batched(weight):
        from ._rules_extra import unbatched_self_error

        raise unbatched_self_error("aten::embedding_renorm_")
    leaves, spec = tree_flatten((args, kwargs))
    owners, _ = _batched_leaves(leaves)
    return _per_sample("embedding_renorm_", fn, owners, spec)  # torch's per-sample op


def _one_hot(fn, args, kwargs):
    tensor, num_classes = _bound(args, kwargs, ("tensor", "num_classes"))
    if isinstance(tensor, Tensor) and tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor.")  # (torch's vmap text)
    if num_classes is None or num_classes < 1:
        raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an "
                           "explicit positive num_classes argument.")
    return fn(*args, **kwargs)


def _mode(fn, args, kwargs):
    """``torch.mode`` (torch has a batching rule: no warning): one call on the physical
    tensor, the reduced dim moved past the batch dims."""
    x, dim, keepdim = _bound(args, kwargs, ("input", "dim", "keepdim"))
    x = B.unwrap_owner(x) if isinstance(x, Tensor) else x
    nd = max(x.dim(), 1) if isinstance(x, Tensor) else 0
    d = -1 if dim is None else dim
    if not (isinstance(x, Tensor) and B.is_batched(x)) or "out" in kwargs or \
            type(d) is not int or not -nd <= d < nd:
        return NotImplemented  # (the per-sample path, with its errors)
    levels = B.union_levels([x])
    k = len(levels)
    p = B.materialize(x, levels)
    if x.dim() == 0:
        p = p.unsqueeze(-1)
    out = fn(p, d % nd + k, bool(keepdim) and x.dim() > 0)
    leaves, spec = tree_flatten(out)
    return tree_unflatten([B.wrap(o, levels) for o in leaves], spec)


def _trailing(*cores):
    """A rule for matrix functions that treat leading dims as batch dims (the LU and LDL
    families, ``matrix_rank``, ``lstsq``): ``cores`` gives each tensor parameter's name and
    its number of core (trailing) dims. The batch dims of every tensor argument become
    leading physical dims (size-1 dims line up logical batch dims of different ranks) and the
    function runs once; each result carries the batch dims in front (a result the same for
    every sample, such as an empty ``residuals``, is expanded over them)."""
    def rule(fn, args, kwargs):
        names = [n for n, _ in cores]
        vals = _bound(args, kwargs, names)
        vals = [B.unwrap_owner(v) if isinstance(v, Tensor) else v for v in vals]
        if any(isinstance(v, Tensor) and v.dim() < c for v, (_, c) in zip(vals, cores)):
            return fn(*args, **kwargs)  # (its own error, about the per-sample shape)
        levels = B.union_levels(vals)
        k = len(levels)
        sizes = tuple(B.level_size(lvl) for lvl in levels)
        rank = max((v.dim() - c for v, (_, c) in zip(vals, cores)
                    if isinstance(v, Tensor)), default=0)
        new_args, new_kwargs = list(args), dict(kwargs)
        for i, (v, (name, c)) in enumerate(zip(vals, cores)):
            if not isinstance(v, Tensor):
                continue
            p = B.materialize(v, levels)
            missing = rank - max(v.dim() - c, 0)
            if missing > 0:
                p = p.reshape(tuple(p.shape[:k]) + (1,) * missing + tuple(p.shape[k:]))
            if i < len(args):
                new_args[i] = p
            else:
                new_kwargs[name] = p
        out = fn(*new_args, **new_kwargs)
        leaves, spec = tree_flatten(out)
        res = []
        for o in leaves:
            if isinstance(o, Tensor):
                if tuple(o.shape[:k]) != sizes:
                    o = o.expand(sizes + tuple(o.shape))
                o = B.wrap(o, levels)
            res.append(o)
        return tree_unflatten(res, spec)

    return rule


_A = ("A", 2)


def scalar_indices(indices):
    """``indices`` with each 0-d batched integer tensor (one position per sample, which
    torch reads as an int) made a 1-element index: the write lands on the same element."""
    if not isinstance(indices, (tuple, list)):
        return indices

    def one(i):
        i = B.unwrap_owner(i) if isinstance(i, Tensor) else i
        if B.is_batched(i) and i.dim() == 0 and not i.dtype.is_floating_point and \
                not i.dtype.is_complex and i.dtype.name != "bool":
            return i.unsqueeze(0)
        return i

    return type(indices)(one(i) for i in indices)


def _index_put(fn, args, kwargs):
    args = list(args)
    if len(args) > 1:
        args[1] = scalar_indices(args[1])
    elif "indices" in kwargs:
        kwargs = dict(kwargs, indices=scalar_indices(kwargs["indices"]))
    return fn(*args, **kwargs)

def _like(fn, args, kwargs):
    """``zeros_like(x)`` (``ones_like``, ``full_like``, ``empty_like``) of a BatchedTensor is
    batched like ``x``, as torch's: a later in-place write of per-sample values fits it."""
    x = B.unwrap_owner(args[0] if args else kwargs["input"])
    if not B.is_batched(x):
        return fn(*args, **kwargs)
    phys, levels = B.physical(x)
    if args:
        out = fn(phys, *args[1:], **kwargs)
    else:
        out = fn(**dict(kwargs, input=phys))
    return B.wrap(out, levels)


# function name -> its batching rule (called with the function, args and kwargs)
_RULES = {"as_strided": _as_strided, "as_strided_": _as_strided_, "batch_norm": _batch_norm,
          "grid_sample": _grid_sample, "embedding": _embedding, "one_hot": _one_hot,
          "lu": _trailing(_A), "lu_solve": _trailing(("b", 2), ("LU_data", 2), ("LU_pivots", 1)),
          "lu_unpack": _trailing(("LU_data", 2), ("LU_pivots", 1)),
          "linalg.lu_factor": _trailing(_A), "linalg.lu_factor_ex": _trailing(_A),
          "linalg.lu": _trailing(_A),
          "linalg.lu_solve": _trailing(("LU", 2), ("pivots", 1), ("B", 2)),
          "linalg.matrix_rank": _trailing(_A, ("tol", 0), ("hermitian", 0), ("atol", 0),
                                          ("rtol", 0)),
          "linalg.ldl_factor": _trailing(_A), "linalg.ldl_factor_ex": _trailing(_A),
          "linalg.ldl_solve": _trailing(("LD", 2), ("pivots", 1), ("B", 2)),
          "linalg.lstsq": _trailing(_A, ("B", 2)),
          "index_put": _index_put, "index_put_": _index_put, "zeros_like": _like,
          "ones_like": _like, "full_like": _like, "empty_like": _like, "mode": _mode}

# name -> None (run per sample when the values escape), "per-sample" (always), or a function of
# (args, kwargs) giving torch's exception (None: run as usual)
_FUNCTIONS = {
    "quantile": None, "nanquantile": None, "bincount": None, "histc": None,
    "histogram": None, "mode": None, "isin": None, "repeat_interleave": None,
    "argwhere": "per-sample",  # torch's fallback: equal counts stack, others fail in stack
    "histogramdd": lambda a, k: RuntimeError(_NO_FALLBACK.format("histogramdd")),
    "unique": _unique_error,
    "unique_consecutive": lambda a, k: RuntimeError(_DYNAMIC.format("unique_consecutive")),
    "nonzero": _nonzero_error,
    "where": _where_error,
    "masked_select": _masked_select_error,
    "ctc_loss": None, "hash_tensor": None,
    "equal": lambda a, k: RuntimeError(_NO_FALLBACK.format("equal")),
    "isclose": None,
    "is_nonzero": lambda a, k: RuntimeError(B.data_dependent_message()),
    "allclose": lambda a, k: RuntimeError(
        "vmap over torch.allclose isn't supported yet. Please file an issue at "
        "https://github.com/pytorch/pytorch/issues if you need this feature."),
    "as_strided_scatter": lambda a, k: RuntimeError(
        "Error: aten::as_strided_scatter requires special handling, and does not yet have a "
        "batching rule. Feel free to file a github issue!"),
}


def _batched_leaves(leaves):
    owners = [B.unwrap_owner(x) if isinstance(x, Tensor) else x for x in leaves]
    return owners, any(B.is_batched(x) for x in owners)


def call(name, fn, args, kwargs):
    """``fn(*args, **kwargs)`` (the numtorch function ``name``) while a vmap is active."""
    if name in ("rrelu", "rrelu_"):  # torch refuses it inside vmap, batched or not
        inplace = name == "rrelu_" or bool(_bound(args, kwargs, (
            "input", "lower", "upper", "training", "inplace"))[4])
        raise RuntimeError(f"vmap: we do not yet support aten::rrelu{'_' if inplace else ''}. "
                           f"Please file an issue")
    leaves, spec = tree_flatten((args, kwargs))
    owners, any_batched = _batched_leaves(leaves)
    if not any_batched:
        return fn(*args, **kwargs)
    rule = _RULES.get(name)
    if rule is not None:
        res = rule(fn, args, kwargs)
        if res is not NotImplemented:
            return res
    error = _FUNCTIONS[name]
    if error in (None, "per-sample") and not all(
            B.level_size(lvl) for lvl in B.union_levels(owners)):
        if error is None:  # (a vectorised path may cope with the empty batch)
            try:
                return fn(*args, **kwargs)
            except Exception as e:  # torch's fallback error instead
                raise _empty_batch_error(name, owners, spec) from e
        raise _empty_batch_error(name, owners, spec)
    if error == "per-sample":
        return _per_sample(name, fn, owners, spec)
    if error is not None:
        exc = error(args, kwargs)
        if exc is not None:
            raise exc
        return fn(*args, **kwargs)
    try:
        return fn(*args, **kwargs)
    except Escaped:
        pass
    return _per_sample(name, fn, owners, spec)


def _empty_batch_error(name, owners, spec):
    """torch's fallback refuses an empty batch (named by the overload: ``quantile.scalar``
    for a number ``q``)."""
    return RuntimeError(f"Batching rule not implemented for aten::{_overload(name, owners, spec)}"
                        f". The fallback path does not support vmap over dims of size 0.")


def _overload(name, owners, spec):
    """The aten overload torch's fallback names for the call (``quantile.scalar`` for a
    number ``q``, ``isin.Tensor_Scalar``...)."""
    if name in ("quantile", "nanquantile"):
        args, kwargs = tree_unflatten(owners, spec)
        q = args[1] if len(args) > 1 else kwargs.get("q")
        if not isinstance(q, Tensor):
            name += ".scalar"
    elif name == "isin":
        args, kwargs = tree_unflatten(owners, spec)
        a, b = _bound(args, kwargs, ("elements", "test_elements"))
        name += "." + "_".join("Tensor" if isinstance(v, Tensor) else "Scalar" for v in (a, b))
    return name


def _per_sample(name, fn, owners, spec):
    """torch's batching fallback: ``fn`` once per sample (all levels flattened), the results
    stacked (a size that differs between samples fails in ``stack``, as in torch)."""
    warnings.warn(f"There is a performance drop because we have not yet implemented the "
                  f"batching rule for aten::{_overload(name, owners, spec)}. Please file us an "
                  f"issue on GitHub so that we can prioritize its implementation.", UserWarning,
                  stacklevel=4)  # torch's text
    levels = B.union_levels(owners)
    sizes = tuple(B.level_size(lvl) for lvl in levels)
    total = 1
    for s in sizes:
        total *= s
    k = len(levels)
    flat = []
    for x in owners:
        if B.is_batched(x):
            p = B.materialize(x, levels)
            flat.append(p.reshape((total,) + tuple(p.shape[k:])))
        else:
            flat.append(None)
    results = []
    for b in range(total):
        leaves = [f[b] if f is not None else x for f, x in zip(flat, owners)]
        args, kwargs = tree_unflatten(leaves, spec)
        results.append(fn(*args, **kwargs))
    if not results:
        raise _empty_batch_error(name, owners, spec)
    out_leaves = [tree_flatten(r) for r in results]
    out_spec = out_leaves[0][1]
    stacked = []
    for i, first in enumerate(out_leaves[0][0]):
        if not isinstance(first, Tensor):
            stacked.append(first)
            continue
        from ..ops import stack

        s = stack([r[0][i] for r in out_leaves])
        stacked.append(B.wrap(s.reshape(sizes + tuple(s.shape[1:])), levels))
    return tree_unflatten(stacked, out_spec)
