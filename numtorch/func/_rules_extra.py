"""Batching rules that need more than shifting dims: indexing, matmul, linear, einsum, the
fused losses, random ops and in-place writes (see ``_rules.py`` for the generic ones)."""

import numpy as np

from .. import backend
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from . import _batched as B
from ._batched import BatchedTensor, _Logical
from ._rules import _has_logical, fallback, shift_params, wrap_outputs

__all__ = ["register", "random_rule", "inplace"]


def _sizes(levels):
    return tuple(B.level_size(lvl) for lvl in levels)


# ---------------------------------------------------------------------------------------------
# indexing


def _adjacent(index):
    """Positions of the array entries of ``index`` and whether they are consecutive."""
    pos = [i for i, v in enumerate(index) if isinstance(v, np.ndarray) or hasattr(v, "dtype")]
    return pos, (not pos or pos[-1] - pos[0] == len(pos) - 1)


def basic_index(cls, inputs, params, levels):
    """GetItem / SliceScatter: the index gets one full slice per batch dim in front."""
    (x,) = inputs
    p = shift_params(params, levels)
    p["index"] = (slice(None),) * len(levels) + tuple(params["index"])
    return B.wrap(cls.apply(B.materialize(x, levels), **p), levels)


def _spell_ellipsis(index, ndim):
    """``index`` with its Ellipsis replaced by full slices (``ndim`` logical dims)."""
    if not any(v is Ellipsis for v in index):
        return index
    used = 0
    for v in index:
        if v is None or v is Ellipsis:
            continue
        used += v.ndim if getattr(v, "dtype", None) == np.bool_ else 1
    i = next(j for j, v in enumerate(index) if v is Ellipsis)
    return index[:i] + (slice(None),) * (ndim - used) + index[i + 1:]


def adv_getitem(cls, inputs, params, levels):
    """``x[arrays]``; batched index arrays pick per sample through an arange per batch dim."""
    (x,) = inputs
    index = _spell_ellipsis(tuple(params["index"]), x._array.ndim)
    k = len(levels)
    pos, adjacent = _adjacent(index)
    arrays = [index[i] for i in pos]
    batched_idx = any(type(a) is _Logical for a in arrays)
    if any(type(a) is _Logical and a.dtype == np.bool_ for a in arrays):
        raise RuntimeError(BOOL_MASK)
    if batched_idx:
        levels = tuple(sorted(set(levels).union(*[a._owner._levels for a in arrays
                                                  if type(a) is _Logical])))
    xp_ = B.materialize(x, levels)
    k = len(levels)
    sizes = _sizes(levels)
    p = dict(params)
    if not batched_idx:
        p["index"] = (slice(None),) * k + index
        out = cls.apply(xp_, **p)
        if not adjacent:  # NumPy put the index dims first, the batch dims after them
            nb = len(np.broadcast_shapes(*[a.shape for a in arrays]))
            out = out.movedim(tuple(range(nb, nb + k)), tuple(range(k)))
        return B.wrap(out, levels)
    bshape = np.broadcast_shapes(*[a.shape for a in arrays])
    nb = len(bshape)
    new = []
    for v in index:
        if type(v) is _Logical:
            ph = B.materialize(v._owner, levels)._array
            new.append(ph.reshape(ph.shape[:k] + (1,) * (nb - v.ndim) + ph.shape[k:]))
        else:
            new.append(v)
    grids = []
    for j, s in enumerate(sizes):
        shape = [1] * (k + nb)
        shape[j] = s
        grids.append(np.arange(s).reshape(shape))
    if type(xp_._array) is not np.ndarray:
        from .. import backend

        xpm = backend.xp_of(xp_._array)
        grids = [xpm.asarray(g) for g in grids]
    p["index"] = tuple(grids) + tuple(new)
    out = cls.apply(xp_, **p)
    if pos[0] != 0 and adjacent:
        # logically the index dims replace the indexed dims in place; NumPy put them first
        before = pos[0]
        src = tuple(range(k + nb, k + nb + before))
        out = out.movedim(src, tuple(range(k, k + before)))
    return B.wrap(out, levels)


def index_accumulate(cls, inputs, params, levels):
    """The backward of ``x[arrays]`` (unbatched arrays) under a batched cotangent."""
    (g,) = inputs
    index = _spell_ellipsis(tuple(params["index"]), len(params["in_shape"]))
    if any(type(v) is _Logical for v in index):
        return fallback(cls, inputs, params, levels)
    k = len(levels)
    pos, adjacent = _adjacent(index)
    gp = B.materialize(g, levels)
    if pos and not adjacent:
        nb = len(np.broadcast_shapes(*[index[i].shape for i in pos]))
        gp = gp.movedim(tuple(range(k)), tuple(range(nb, nb + k)))
    p = shift_params(params, levels)
    p["index"] = (slice(None),) * k + index
    return B.wrap(cls.apply(gp, **p), levels)


# ---------------------------------------------------------------------------------------------
# products


def matmul(cls, inputs, params, levels):
    a, b = inputs
    na, nb = a._array.ndim, b._array.ndim
    k = len(levels)
    rank = max(na if na > 1 else 2, nb if nb > 1 else 2)

    def prep(x, nd, vector_axis):
        if type(x) is BatchedTensor:
            p = B.materialize(x, levels, expand=False)
            if nd == 1:
                p = p.unsqueeze(vector_axis)
                nd = 2
            if nd < rank:
                p = p.reshape(tuple(p.shape[:k]) + (1,) * (rank - nd) + tuple(p.shape[k:]))
            return p
        if nd == 1:
            return x.unsqueeze(vector_axis)
        return x

    out = cls.apply(prep(a, na, -2), prep(b, nb, -1))
    if na == 1:
        out = out.squeeze(-2)
    if nb == 1:
        out = out.squeeze(-1)
    return B.wrap(out, levels)


def linear(cls, inputs, params, levels):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    if type(w) is not BatchedTensor and type(bias) is not BatchedTensor:
        args = (B.materialize(x, levels),) + tuple(inputs[1:])
        return B.wrap(cls.apply(*args, **params), levels)
    from ..ops import matmul as _matmul

    y = _matmul(x, w.mT)  # per-sample weights: a batched product through the matmul rule
    return y if bias is None else y + bias


def einsum(cls, inputs, params, levels):
    terms, out = list(params["terms"]), params["out"]
    if any("." in t for t in terms) or "." in out:
        return fallback(cls, inputs, params, levels)
    used = set("".join(terms) + out)
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
    if len(free) < len(levels):
        return fallback(cls, inputs, params, levels)
    lead = "".join(free[:len(levels)])
    new_terms, args = [], []
    for x, t in zip(inputs, terms):
        if type(x) is BatchedTensor:
            args.append(B.materialize(x, levels))
            new_terms.append(lead + t)
        else:
            args.append(x)
            new_terms.append(t)
    return B.wrap(cls.apply(*args, terms=new_terms, out=lead + out), levels)


def conv(cls, inputs, params, levels):
    """Convolution: batched inputs fold into the sample dim; per-sample weights become groups
    of one convolution (the batch stacked along channels)."""
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    sizes = _sizes(levels)
    k = len(levels)
    total = int(np.prod(sizes))
    if type(w) is not BatchedTensor and type(bias) is not BatchedTensor:
        xp_ = B.materialize(x, levels)
        shape = tuple(xp_.shape)
        y = cls.apply(xp_.reshape((total * shape[k],) + shape[k + 1:]), *inputs[1:], **params)
        return B.wrap(y.reshape(sizes + (shape[k],) + tuple(y.shape[1:])), levels)
    xp_, wp = B.materialize(x, levels), B.materialize(w, levels)
    n, c = x.shape[0], x.shape[1]
    xs = xp_.reshape((total, n, c) + tuple(x.shape[2:])).movedim(0, 1)
    xs = xs.reshape((n, total * c) + tuple(x.shape[2:]))
    # the weight's first dim is the output channels (the input ones for a transposed
    # convolution); stacking along it makes each sample one group either way
    ws = wp.reshape((total * w.shape[0],) + tuple(w.shape[1:]))
    args = [xs, ws]
    if bias is not None:
        args.append(B.materialize(bias, levels).reshape((total * bias.shape[0],)))
    p = dict(params)
    p["groups"] = params["groups"] * total
    y = cls.apply(*args, **p)
    o = y.shape[1] // total
    y = y.reshape((n, total, o) + tuple(y.shape[2:])).movedim(1, 0)
    return B.wrap(y.reshape(sizes + (n, o) + tuple(y.shape[3:])), levels)


def overwrite(cls, inputs, params, levels):
    """``copy_``'s value: ``v`` broadcast into ``x``'s (batched) shape."""
    x, v = inputs
    k = len(levels)
    xp_ = B.materialize(x, levels)
    if type(v) is BatchedTensor:
        vp = B.materialize(v, levels, expand=False)
        extra = x._array.ndim - v._array.ndim
        if extra > 0:
            vp = vp.reshape(tuple(vp.shape[:k]) + (1,) * extra + tuple(vp.shape[k:]))
        v = vp
    return B.wrap(cls.apply(xp_, v, **params), levels)


def fold_first(cls, inputs, params, levels):
    """Ops on ``(N, C, *spatial)`` (pooling): the batch dims fold into N."""
    (x,) = inputs
    sizes = _sizes(levels)
    total = int(np.prod(sizes))
    xp_ = B.materialize(x, levels)
    k = len(levels)
    shape = tuple(xp_.shape)
    p = dict(params)
    if p.get("in_shape") is not None:
        p["in_shape"] = (total * p["in_shape"][0],) + tuple(p["in_shape"][1:])
    out = cls.apply(xp_.reshape((total * shape[k],) + shape[k + 1:]), **p)

    def unfold(y):
        return y.reshape(sizes + (shape[k],) + tuple(y.shape[1:]))

    if type(out) is tuple:
        return tuple(B.wrap(unfold(y), levels) for y in out)
    return B.wrap(unfold(out), levels)


def window_max(cls, inputs, params, levels):
    """Adaptive max pooling: windows shared by every plane fold the batch dims into N;
    per-plane windows (fractional pooling) run per sample."""
    if params["index"].shape[0] != 1:
        return fallback(cls, inputs, params, levels)
    return fold_first(cls, inputs, params, levels)


def pool_index(cls, inputs, params, levels):
    """Max pooling's index ops (PoolScatter, PoolGather, MaxUnpool: ``(N, C, ...)`` values
    with a per-plane ``index`` taken from an unbatched forward): the batch dims fold into N,
    the index repeated once per sample."""
    (x,) = inputs
    index = params["index"]
    if _has_logical(index) or index.shape[0] != x.shape[0]:
        return fallback(cls, inputs, params, levels)
    sizes = _sizes(levels)
    total = int(np.prod(sizes))
    k = len(levels)
    xp_ = B.materialize(x, levels)
    shape = tuple(xp_.shape)
    p = dict(params)
    p["index"] = backend.xp_of(index).tile(index, (total,) + (1,) * (index.ndim - 1))
    if p.get("shape") is not None:
        p["shape"] = (total * p["shape"][0],) + tuple(p["shape"][1:])
    y = cls.apply(xp_.reshape((total * shape[k],) + shape[k + 1:]), **p)
    return B.wrap(y.reshape(sizes + (shape[k],) + tuple(y.shape[1:])), levels)


def embedding_backward(cls, inputs, params, levels):
    """The embedding gradient (rows added at fixed indices) is linear in each row's values:
    the batch dims move next to the row's dims, as if the rows were wider."""
    (g,) = inputs
    idx = params["indices"]
    if _has_logical(idx):
        return fallback(cls, inputs, params, levels)
    k = len(levels)
    gp = B.materialize(g, levels)  # (*batch, *idx.shape, *row)
    ni = idx.ndim
    perm = tuple(range(k, k + ni)) + tuple(range(k)) + tuple(range(k + ni, gp.dim()))
    moved = gp.permute(perm)  # (*idx.shape, *batch, *row)
    tail = tuple(moved.shape[ni:])
    y = cls.apply(moved.reshape(tuple(idx.shape) + (int(np.prod(tail)),)), **params)
    y = y.reshape((y.shape[0],) + tail)  # (num_weights, *batch, *row)
    return B.wrap(y.permute(tuple(range(1, k + 1)) + (0,) + tuple(range(k + 1, y.dim()))),
                  levels)


def tap_gather_backward(cls, inputs, params, levels):
    """grid_sample's gradient scatter (``(N, C, K)`` values summed at a per-sample ``index``):
    the batch dims fold into the channels (each sample's index serves all of them)."""
    (g,) = inputs
    if _has_logical(params["index"]):
        return fallback(cls, inputs, params, levels)
    k = len(levels)
    sizes = _sizes(levels)
    total = int(np.prod(sizes))
    gp = B.materialize(g, levels).movedim(k, 0)  # (N, *batch, C, K)
    n, c, kk = gp.shape[0], gp.shape[-2], gp.shape[-1]
    y = cls.apply(gp.reshape((n, total * c, kk)), **params)
    y = y.reshape((n,) + sizes + (c, y.shape[-1]))
    return B.wrap(y.movedim(0, k), levels)


def embedding(cls, inputs, params, levels):
    """Row lookup: batched indices look up as they are; per-sample tables are stacked into
    one table and the indices offset into each sample's block."""
    w, idx = inputs
    if type(w) is not BatchedTensor:
        return B.wrap(cls.apply(w, B.materialize(idx, levels), **params), levels)
    if params.get("padding_idx", -1) >= 0 or params.get("scale_grad_by_freq"):
        return fallback(cls, inputs, params, levels)
    sizes = _sizes(levels)
    total = int(np.prod(sizes))
    wp = B.materialize(w, levels)
    v = w.shape[0]
    table = wp.reshape((total * v,) + tuple(w.shape[1:]))
    ip = B.materialize(idx, levels)._array.reshape((total,) + tuple(idx.shape))
    offset = (np.arange(total) * v).reshape((total,) + (1,) * idx.dim())
    if type(ip) is not np.ndarray:
        from .. import backend

        offset = backend.xp_of(ip).asarray(offset)
    y = cls.apply(table, _make(ip + offset), **params)
    return B.wrap(y.reshape(sizes + tuple(y.shape[1:])), levels)


def normalize_affine(cls, inputs, params, levels):
    """batch/layer/group/instance norm: the statistics dims move past the batch dims; the
    affine parameters broadcast from the right (per-sample ones get size-1 dims after their
    batch dims)."""
    x = inputs[0]
    if params.get("stats") is not None:
        raise RuntimeError("Batch norm got a batched tensor as input while the running_mean "
                           "or running_var, which will be updated in place, were not batched."
                           "\nIf you are using a module and do not need eval mode, please set "
                           "`track_running_stats` to be False.If you are using a prebuilt "
                           "module and do not need eval mode, please see the functorch website "
                           "for resources on how to patch your module to work with vmap")
    k = len(levels)
    args = [B.materialize(x, levels)]
    for p in inputs[1:]:
        if type(p) is BatchedTensor:
            q = B.materialize(p, levels)
            extra = x._array.ndim - p._array.ndim
            p = q.reshape(tuple(q.shape[:k]) + (1,) * extra + tuple(q.shape[k:]))
        args.append(p)
    return B.wrap(cls.apply(*args, **shift_params(params, levels)), levels)


def _grown(a, sizes):
    """A saved per-sample array repeated over the batch dims in front (a contiguous copy)."""
    if a is None:
        return None
    xp = backend.xp_of(a)
    return xp.ascontiguousarray(xp.broadcast_to(a, sizes + tuple(a.shape)))


def normalize_affine_backward(cls, inputs, params, levels):
    """The norms' backward with a batched output gradient (a Jacobian or Hessian of layer /
    group / batch norm): the batch dims become extra leading dims of one call, the saved
    statistics repeated over them, the weight and bias gradients kept per sample."""
    gy, x = inputs[0], inputs[1]
    if any(type(t) is BatchedTensor for t in inputs[1:]) or \
            any(_has_logical(v) for v in params.values()):
        return fallback(cls, inputs, params, levels)
    k = len(levels)
    sizes = _sizes(levels)
    gyp = B.materialize(gy, levels)
    p = dict(params)
    p["dims"] = tuple(d + k if d >= 0 else d for d in params["dims"])
    for key in ("data", "invstd", "mean"):
        p[key] = _grown(params.get(key), sizes)
    nd = x.dim()
    for key in ("w_shape", "b_shape"):
        if params.get(key) is not None:
            p[key] = sizes + (1,) * (nd - len(params[key])) + tuple(params[key])
    res = cls.apply(gyp, x.expand(tuple(gyp.shape)), *inputs[2:], **p)
    res = res if type(res) is tuple else (res,)
    out = []
    for key, r in zip(params["outs"], res):
        if key != "x":
            r = r.reshape(sizes + tuple(params[key + "_shape"]))
        out.append(B.wrap(r, levels))
    return tuple(out) if len(out) > 1 else out[0]


# ---------------------------------------------------------------------------------------------
# losses: computed per element ("none") on the whole batch, then reduced per sample


def pointwise_loss(cls, inputs, params, levels):
    k = len(levels)
    rank = max(x._array.ndim for x in inputs if isinstance(x, Tensor))
    new = []
    for x in inputs:
        p = B.materialize(x, levels)
        nd = x._array.ndim
        if nd < rank:
            p = p.reshape(tuple(p.shape[:k]) + (1,) * (rank - nd) + tuple(p.shape[k:]))
        new.append(p)
    shape = np.broadcast_shapes(*[tuple(p.shape) for p in new])
    new = [p.expand(shape) if tuple(p.shape) != shape else p for p in new]
    red = params.get("reduction", "mean")
    p = dict(params)
    p["reduction"] = "none"
    loss = cls.apply(*new, **p)
    return B.wrap(_reduce(loss, k, red), levels)


def _reduce(loss, k, red, denom=None):
    dims = tuple(range(k, loss.ndim))
    if red == "none" or not dims and denom is None:
        return loss
    total = loss.sum(dims) if dims else loss
    if red == "sum":
        return total
    if denom is None:
        n = 1
        for d in dims:
            n *= loss.shape[d]
        return total / n
    return total / denom


def class_loss(cls, inputs, params, levels):
    """cross_entropy / nll_loss with class indices: the batch dims join the sample dim."""
    x, t = inputs
    k = len(levels)
    sizes = _sizes(levels)
    total = int(np.prod(sizes)) if sizes else 1
    xp_, tp = B.materialize(x, levels), B.materialize(t, levels)
    red = params.get("reduction", "mean")
    p = dict(params)
    p["reduction"] = "none"
    if x._array.ndim == 1:  # one sample of C scores: every reduction gives its loss
        loss = cls.apply(xp_.reshape((total,) + tuple(x.shape)), tp.reshape((total,)), **p)
        return B.wrap(loss.reshape(sizes), levels)
    n = x.shape[0]
    rest = tuple(x.shape[1:])
    loss = cls.apply(xp_.reshape((total * n,) + rest),
                     tp.reshape((total * n,) + tuple(t.shape[1:])), **p)
    loss = loss.reshape(sizes + (n,) + tuple(t.shape[1:]))
    denom = None
    if red == "mean":
        ta = tp._array
        valid = ta != params.get("ignore_index", -100)
        w = params.get("weight")
        if w is not None:
            safe = np.where(valid, ta, 0) if type(ta) is np.ndarray else ta * valid
            wt = w[safe] * valid
        else:
            wt = valid.astype(loss._array.dtype)
        d = wt.reshape(sizes + (-1,)).sum(-1).astype(loss._array.dtype)
        denom = _make(d)
    return B.wrap(_reduce(loss, k, red, denom), levels)


class SelectTiedBatched(Op):
    """``SelectTied`` (the gradient of ``median()`` over all elements) for a batch of samples
    ``(*batch, *shape)``: ``value`` holds each sample's chosen entry; dy/dx spreads each
    sample's gradient evenly over its entries equal to it (NaN equal to NaN)."""

    def forward(self, x):
        xp, v, k = self.xp, self.value, self.k
        if self._recording:
            vb = v.reshape(v.shape + (1,) * (x.ndim - k))
            mask = (x == vb) | (xp.isnan(x) & xp.isnan(vb))
            self.save(mask=mask, count=mask.sum(axis=tuple(range(k, x.ndim)), keepdims=True))
        return xp.asarray(v, dtype=x.dtype)

    def backward(self, grad):
        mask = self.saved("mask")
        dt = grad._array.dtype
        g = grad.reshape(tuple(grad.shape) + (1,) * (mask.ndim - grad.dim()))
        return (g / _make(self.saved("count").astype(dt))) * _make(mask.astype(dt))


def select_tied(cls, inputs, params, levels):
    """median() / nanmedian() over all elements: the per-sample chosen values (a batched
    ``value``) and tie masks in one op."""
    (x,) = inputs
    v = params["value"]
    if type(v) is not _Logical:
        return fallback(cls, inputs, params, levels)
    xp_ = B.materialize(x, levels)
    val = B.materialize(v._owner, levels)._array
    if tuple(val.shape) != _sizes(levels):
        return fallback(cls, inputs, params, levels)
    out = SelectTiedBatched.apply(xp_, value=val, k=len(levels),
                                  node_name=params.get("node_name"))
    return B.wrap(out, levels)


def _tile0(a, total):
    """A saved per-sample array (leading dim N) repeated ``total`` times along dim 0."""
    if a is None or getattr(a, "ndim", 0) == 0:
        return a
    return backend.xp_of(a).tile(a, (total,) + (1,) * (a.ndim - 1))


def _folded_grad(g, levels, total, tshape):
    """The batched loss gradient ``g`` (per sample: a scalar, or one value per target) as one
    value per target of the folded batch, ``(total * N, *rest)``."""
    gp = B.materialize(g, levels)
    k = len(levels)
    if g.dim() == 0:
        gp = gp.reshape(tuple(gp.shape[:k]) + (1,) * len(tshape))
    gp = gp.expand(tuple(gp.shape[:k]) + tuple(tshape))
    return gp.reshape((total * tshape[0],) + tuple(tshape[1:]))


def class_loss_backward(cls, inputs, params, levels):
    """The input gradient of cross_entropy / nll_loss with class indices for a batched output
    gradient (their Jacobians and Hessians): the batch dims fold into the sample dim, each
    sample's own gradient value spread over its targets, the saved per-target arrays repeated
    (the same values, zeros and NaNs as one call per sample)."""
    from ..ops.loss_ops import _target_index

    nll = len(inputs) == 1
    shape = tuple(params["shape"]) if nll else tuple(inputs[1].shape)
    idx = params.get("idx")
    if len(shape) < 2 or idx is None or idx[1] is None or \
            any(type(t) is BatchedTensor for t in inputs[1:]) or \
            any(_has_logical(v) for v in params.values()):
        return fallback(cls, inputs, params, levels)
    sizes = _sizes(levels)
    total = int(np.prod(sizes))
    n = shape[0]
    tshape = (n,) + shape[2:]
    g = _folded_grad(inputs[0], levels, total, tshape)
    p = dict(params)
    t = _tile0(idx[1], total)
    p["idx"] = _target_index(backend.xp_of(t), t)
    for key in ("wt", "e", "s", "a", "b", "c", "nan_at", "ignored"):
        if key in p:
            p[key] = _tile0(p[key], total)
    if p.get("from_log") is not None:
        p["from_log"] = tuple(_tile0(a, total) for a in p["from_log"])
    if p.get("flat") is not None:
        flat = p["flat"]
        xp = backend.xp_of(flat)
        step = xp.arange(total, dtype=flat.dtype) * int(np.prod(shape))
        p["flat"] = (flat.reshape(1, -1) + step.reshape(-1, 1)).reshape(-1)
    if nll:
        p["shape"] = (total * n,) + shape[1:]
        y = cls.apply(g, **p)
    else:
        x = inputs[1]
        y = cls.apply(g, x.expand((total,) + shape).reshape((total * n,) + shape[1:]), **p)
    return B.wrap(y.reshape(sizes + shape), levels)


# ---------------------------------------------------------------------------------------------
# randomness


_FRESH = {}  # id(output) -> True for values drawn per sample from unbatched operands


# sampling ops whose tensor operands are the distribution's parameters (not only a shape)
_DRAWS_FROM_OPERANDS = frozenset(["Normal", "Bernoulli", "Poisson", "StandardGamma",
                                  "SampleDirichlet"])


def random_rule(cls, inputs, params, levels):
    """A sampling op while vmap is active (its ``rng`` is a ``VmapRng``): refused in "error"
    mode; otherwise its operands get every level drawn per sample, and the draws are shared
    over the levels in "same" mode."""
    rng = params["rng"]
    if rng.mode() == "error":
        raise RuntimeError(rng.ERROR)
    diff = rng.levels()
    if cls.__name__ in _DRAWS_FROM_OPERANDS and any(lvl not in diff for lvl in levels):
        from ._randomness import SAME_BATCHED

        raise RuntimeError(SAME_BATCHED)  # torch: one draw cannot follow per-sample operands
    has_tensor = any(isinstance(x, Tensor) for x in inputs)
    full = tuple(sorted(set(levels) | set(diff))) if has_tensor else tuple(levels)
    p = dict(params)
    if not full:
        p["rng"] = rng.plain()
        return cls.apply(*inputs, **p)
    new = [B.materialize(x, full) if isinstance(x, Tensor) else x for x in inputs]
    p["rng"] = rng.sharing(full)
    out = wrap_outputs(cls.apply(*new, **p), full)
    if not levels:
        _FRESH.clear()
        _FRESH[id(out)] = True
    return out


# ---------------------------------------------------------------------------------------------
# in-place writes

_GUARD = [False]


def _identity(_, value):
    return value


# how torch names an in-place op in its "self is not batched" error (the op functions that
# reach ``inplace`` by their names); others are named as its fallback names them, "aten::op_"
_INPLACE_LABELS = {"mul": "inplace arithmetic", "div": "inplace arithmetic",
                   "sub": "inplace arithmetic", "copy_value": "inplace arithmetic",
                   "full_like_value": "fill_", "index_fill": "index_fill_",
                   "index_put": "index_put_", "index_add": "index_add_",
                   "scatter_add": "scatter_add_"}


# torch's error for indexing with (or writing through) a batched boolean mask
BOOL_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
             "Attempting to batch over indexing with a boolean mask.")


def unbatched_self_error(label):
    """torch's error for an in-place op whose ``self`` is not batched but an argument is."""
    from ..autograd import _func_transforms

    where = "in a vmap" if not label.startswith("aten::") else \
        f"at level {len(_func_transforms.KINDS)}"
    return RuntimeError(
        f"vmap: {label}(self, *extra_args) is not possible because there exists a Tensor "
        f"`other` in extra_args that has more elements than `self`. This happened due to "
        f"`other` being vmapped over but `self` not being vmapped over {where}. Please try to "
        f"use out-of-place operators instead of {label}. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead.")


# torch's overload names of the out= forms (others are "<name>.out")
_OUT_OVERLOADS = {"sum": "sum.IntList_out", "pow": "pow.Tensor_Scalar_out"}


_LIST_INPUT_OPS = frozenset(("cat", "concat", "concatenate", "stack", "hstack", "vstack",
                             "dstack", "column_stack", "row_stack"))

# frames of wrappers and helpers, not of the function the user called
_GENERIC_FRAMES = frozenset(("call", "fn", "wrapper", "wrapped", "inner", "_out", "_write_out",
                             "inplace", "_inplace_trace", "apply_inplace", "_out_error"))


def _out_error():
    """torch's error for ``op(..., out=t)`` on batched tensors, naming the numtorch function
    the user called (the first frame below the caller's code)."""
    import sys

    frame, name = sys._getframe(1), None
    while frame is not None:
        mod = frame.f_globals.get("__name__", "")
        if mod != "numtorch" and not mod.startswith("numtorch."):
            break
        code = frame.f_code.co_name
        if code not in _GENERIC_FRAMES:
            name = code
        elif code == "fn" and isinstance(frame.f_locals.get("name"), str):
            name = frame.f_locals["name"]  # a generated op function (its factory's name)
        frame = frame.f_back
    op = _OUT_OVERLOADS.get(name, f"{name}.out")
    if name in _LIST_INPUT_OPS:  # (torch has no fallback for a list of tensors)
        return RuntimeError(f"Batching rule not implemented for aten::{op}. We could not "
                            f"generate a fallback.")
    return RuntimeError(f"Batching rule not implemented for aten::{op}; the fallback path "
                        f"doesn't work on out= or view ops.")


def inplace(self, fn, args, kwargs):
    """``self.op_(...)`` while vmap is active: the op runs out of place through the rules and
    its result is written into the physical tensor; a batched result cannot go into an
    unbatched tensor (torch's errors)."""
    if _GUARD[0]:
        return None
    from ..autograd.grad_mode import _state
    from ..autograd.inplace import _shadow, apply_inplace

    own = self._levels if type(self) is BatchedTensor else ()
    if getattr(fn, "__qualname__", "") == "_write_out.<locals>.<lambda>" and (own or any(
            type(B.unwrap_owner(a)) is BatchedTensor for a in args if isinstance(a, Tensor))):
        raise _out_error()  # an ``out=`` write of batched values: torch's fallback refuses
    src = self
    if _state.enabled and (self.requires_grad or any(
            isinstance(a, Tensor) and a.requires_grad for a in args)):
        # as apply_inplace does: the op may save its input, which the write then changes
        src = B.wrap(_shadow(self._bt), own) if own else _shadow(self)
    out = fn(src, *args, **kwargs)
    theirs = out._levels if type(out) is BatchedTensor else ()
    if not set(theirs) <= set(own):
        if _FRESH.pop(id(out), False):
            raise RuntimeError("vmap: Cannot ask for different inplace randomness on an "
                               "unbatched tensor. This will appear like same randomness. If "
                               "this is necessary for your usage, please file an issue with "
                               "functorch.")
        name = getattr(fn, "__name__", "")
        if name not in ("add", "add_", "atan2"):  # these fail in torch's broadcast check
            label = _INPLACE_LABELS.get(name, f"aten::{name}_")
            if name == "masked_fill" and not (len(args) > 1 and type(
                    B.unwrap_owner(args[1])) is BatchedTensor):
                label = "inplace arithmetic"  # (a batched mask and a number: torch's rule)
            raise unbatched_self_error(label)
        sizes = [B.level_size(lvl) for lvl in theirs]
        mine = list(self.shape)
        if own:  # torch shows self with a size-1 dim for each level it lacks
            mine = [B.level_size(lvl) if lvl in own else 1
                    for lvl in sorted(set(own) | set(theirs))] + mine
        raise RuntimeError(f"output with shape {mine} doesn't match the broadcast "
                           f"shape {sizes + list(out.shape)}")
    _GUARD[0] = True
    try:
        if not own:
            apply_inplace(self, _identity, out)
            return self
        value = B.materialize(out, own)
        if tuple(value.shape) != tuple(self._bt.shape):
            value = value.expand(tuple(self._bt.shape))
        apply_inplace(self._bt, _identity, value)
    finally:
        _GUARD[0] = False
    self._refresh()
    return self


# ---------------------------------------------------------------------------------------------


def index_along_dim(cls, inputs, params, levels):
    """IndexAdd / IndexCopy / IndexFill (``x.index_add_(dim, index, src)``...): with a plain
    index, the batched operands expanded to every level and ``dim`` shifted past the batch
    dims (torch has these rules: no per-sample fallback, no warning)."""
    index = inputs[1]
    if B.is_batched(index) or any(_has_logical(v) for v in params.values()):
        return fallback(cls, inputs, params, levels)
    new = [x if i == 1 or not isinstance(x, Tensor) else B.materialize(x, levels)
           for i, x in enumerate(inputs)]
    return wrap_outputs(cls.apply(*new, **shift_params(params, levels)), levels)


def register(table, by_name):
    for name, rule in (("GetItem", basic_index), ("SliceScatter", basic_index),
                       ("AdvGetItem", adv_getitem), ("IndexAccumulate", index_accumulate),
                       ("MatMul", matmul), ("LinearFused", linear), ("Einsum", einsum),
                       ("PointwiseLoss", pointwise_loss), ("BinaryCrossEntropy", pointwise_loss),
                       ("BinaryCrossEntropyWithLogits", pointwise_loss),
                       ("CrossEntropyIndex", class_loss), ("NLLLoss", class_loss),
                       ("CrossEntropyIndexBackward", class_loss_backward),
                       ("NLLLossBackward", class_loss_backward),
                       ("Conv", conv), ("ConvTranspose", conv),
                       ("NormalizeAffine", normalize_affine),
                       ("NormalizeAffineBackward", normalize_affine_backward),
                       ("MaxPool", fold_first), ("AvgPool", fold_first),
                       ("Im2Col", fold_first), ("Col2Im", fold_first),
                       ("WindowMax", window_max), ("PoolScatter", pool_index),
                       ("PoolGather", pool_index), ("MaxUnpool", pool_index),
                       ("EmbeddingBackward", embedding_backward),
                       ("TapGatherBackward", tap_gather_backward),
                       ("SelectTied", select_tied),
                       ("AvgPoolBackward", fold_first), ("Embedding", embedding),
                       ("Overwrite", overwrite), ("IndexAdd", index_along_dim),
                       ("IndexCopy", index_along_dim), ("IndexFill", index_along_dim)):
        for cls in by_name.get(name, ()):
            table[cls] = rule
