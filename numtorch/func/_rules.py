"""Batching rules: how one op call on BatchedTensors becomes one call on physical tensors.

Most ops get their rule from what they are, not one by one:

* elementwise ops (the pointwise families, activations, casts, comparisons, ``where``) run on
  the physical operands with the batch dims aligned: an operand missing a level gets a size-1
  dim there, and a logically lower-rank operand gets size-1 dims after the batch dims, so
  broadcasting lines up as it does per sample;
* ops with dimension arguments (reductions, softmax, cumulative ops, cat, flip, gather, the
  FFTs, reshape/expand...) run on operands expanded to every level, with each non-negative dim
  argument moved past the batch dims and each shape argument extended by the batch sizes
  (negative dims already count from the end, so they stay);
* ops that act on trailing dims only (matrix functions, ``tril``, padding, ``view_as_real``)
  run on the expanded operands as they are.

Indexing, matmul, linear, einsum, the fused losses and the random ops have rules of their own
(``_rules_extra.py``); every other op falls back to one call per sample, with a warning, as
torch's vmap does for ops it has no rule for.
"""

import warnings

from .._tensor import Tensor
from ..autograd import graph as _graph
from . import _batched as B
from ._batched import BatchedTensor, _Logical

__all__ = ["dispatch", "dispatch_inplace"]

DIM_KEYS = frozenset(("dim", "dims", "d1", "d2", "dim0", "dim1", "axis"))
SHAPE_KEYS = frozenset(("shape", "in_shape", "src_shape"))

_RULES = {}


def _owner(x):
    """A plain tensor around a BatchedTensor's stand-in array is that BatchedTensor."""
    if type(x) is Tensor and type(x._array) is _Logical and x._array._owner is not None:
        return x._array._owner
    return x


def _has_logical(v):
    if type(v) is _Logical:
        return True
    if isinstance(v, (tuple, list)):
        return any(type(i) is _Logical for i in v)
    return False


def dispatch(cls, inputs, params):
    """Run ``cls`` on BatchedTensor ``inputs`` by its batching rule; None when nothing is
    batched (the op then runs as usual)."""
    batched = False
    for x in inputs:
        if type(x) is BatchedTensor or (type(x) is Tensor and type(x._array) is _Logical):
            batched = True
            break
    rng = params.get("rng")
    if not batched:
        if any(_has_logical(v) for v in params.values()):
            batched = True
        elif rng is None or not getattr(rng, "is_vmap_rng", False):
            return None
    if not _RULES:
        _build_table()
    inputs = tuple(_owner(x) for x in inputs)
    levels = B.union_levels(inputs)
    carried = [a._owner for v in params.values() if _has_logical(v)
               for a in (v if isinstance(v, (tuple, list)) else (v,))
               if type(a) is _Logical and a._owner is not None]
    if carried:  # batched index arrays among the parameters: their levels count too
        levels = B.union_levels(inputs + tuple(carried))
    if rng is not None and getattr(rng, "is_vmap_rng", False):
        from ._rules_extra import random_rule

        return random_rule(cls, inputs, params, levels)
    rule = _RULES.get(cls)
    if rule is None:
        rule = _RULES.get(getattr(cls, "_op_cls", cls))
    if rule is None and cls not in _UNRULED:
        # an op module imported after the table was built (multi_view's Unbind, ...): its
        # classes get their rules now; a class still without one is asked about only once
        _UNRULED.add(cls)
        _build_table()
        rule = _RULES.get(cls) or _RULES.get(getattr(cls, "_op_cls", cls))
    if rule is None:
        rule = fallback
    return rule(cls, inputs, params, levels)


_UNRULED = set()  # op classes that had no rule when the table was rebuilt for them


def wrap_outputs(out, levels):
    if type(out) is tuple:
        return tuple(B.wrap(o, levels) for o in out)
    return B.wrap(out, levels)


# ---------------------------------------------------------------------------------------------
# generic rules


def elementwise(cls, inputs, params, levels):
    """Broadcasting ops: align batch dims and logical ranks, then one call."""
    rank = max((x._array.ndim for x in inputs if isinstance(x, Tensor)), default=0)
    new = []
    for x in inputs:
        if type(x) is BatchedTensor:
            p = B.materialize(x, levels, expand=False)
            nd = x._array.ndim
            if nd < rank:
                k = len(levels)
                p = p.reshape(tuple(p.shape[:k]) + (1,) * (rank - nd) + tuple(p.shape[k:]))
            new.append(p)
        else:
            new.append(x)
    if any(_has_logical(v) for v in params.values()):
        return fallback(cls, inputs, params, levels)
    return wrap_outputs(cls.apply(*new, **params), levels)


def every_level(cls, inputs, params, levels):
    """Broadcasting ops that sum a gradient down to an operand's shape (DivBackward): every
    operand, batched or not, gets the batch dims at full size and the common logical rank,
    so that sum keeps the batch."""
    rank = max(x._array.ndim for x in inputs)
    k = len(levels)
    new = []
    for x in inputs:
        p = B.materialize(x, levels, expand=True)
        nd = x._array.ndim
        if nd < rank:
            p = p.reshape(tuple(p.shape[:k]) + (1,) * (rank - nd) + tuple(p.shape[k:]))
        new.append(p)
    return wrap_outputs(cls.apply(*new, **params), levels)


def shift_params(params, levels):
    """Dim arguments moved past ``len(levels)`` batch dims, shapes extended by the sizes."""
    k = len(levels)
    sizes = tuple(B.level_size(lvl) for lvl in levels)
    out = {}
    for key, v in params.items():
        if key in DIM_KEYS and v is not None:
            if isinstance(v, (set, frozenset, tuple, list)):
                v = type(v)(d + k if d >= 0 else d for d in v)
            else:
                v = v + k if v >= 0 else v
        elif key in SHAPE_KEYS and v is not None:
            v = sizes + tuple(v)
        out[key] = v
    return out


def dims(cls, inputs, params, levels):
    """Ops with dim/shape arguments (and trailing-dim ops): operands expanded to every level,
    arguments shifted."""
    if any(params.get(key, 0) is None for key in DIM_KEYS):  # "all dims": no shift applies
        if getattr(cls, "_op_cls", cls).__name__ == "Roll" and "dims" in params:
            return _roll_flat(cls, inputs, params, levels)
        return fallback(cls, inputs, params, levels)
    if any(_has_logical(v) for v in params.values()):
        return fallback(cls, inputs, params, levels)
    new = [B.materialize(x, levels) if isinstance(x, Tensor) else x for x in inputs]
    return wrap_outputs(cls.apply(*new, **shift_params(params, levels)), levels)


def _roll_flat(cls, inputs, params, levels):
    """``roll`` without dims rolls each sample's flattened values: one roll of the last dim
    of the batch-first physical tensor viewed as (*batch, numel)."""
    (x,) = inputs
    k = len(levels)
    p = B.materialize(x, levels)
    shape = tuple(p.shape)
    flat = p.reshape(shape[:k] + (-1,))
    y = cls.apply(flat, shifts=(params["shifts"],) if isinstance(params["shifts"], int)
                  else tuple(params["shifts"]), dims=(k,))
    return B.wrap(y.reshape(shape), levels)


def permute(cls, inputs, params, levels):
    k = len(levels)
    (x,) = inputs
    p = dict(params)
    p["dims"] = tuple(range(k)) + tuple(d + k for d in params["dims"])
    return B.wrap(cls.apply(B.materialize(x, levels), **p), levels)


def expand(cls, inputs, params, levels):
    """New leading logical dims go after the batch dims, not before them."""
    (x,) = inputs
    k = len(levels)
    p = B.materialize(x, levels)
    extra = len(params["shape"]) - x._array.ndim
    if extra:
        p = p.reshape(tuple(p.shape[:k]) + (1,) * extra + tuple(p.shape[k:]))
    return B.wrap(cls.apply(p, **shift_params(params, levels)), levels)


def diag_get(cls, inputs, params, levels):
    """``diag``/``trace`` of a matrix: the diagonal of the last two physical dims."""
    (x,) = inputs
    p = B.materialize(x, levels)
    return B.wrap(p.diagonal(params.get("offset", 0), -2, -1).contiguous(), levels)


def diag_put(cls, inputs, params, levels):
    """The backward of ``diag_get``: each sample's vector on the ``offset`` diagonal of a zero
    matrix of ``shape``, made as a square ``diag_embed`` cut or padded to that shape."""
    import numtorch as _nt

    (v,) = inputs
    rows, cols = params["shape"]
    e = _nt.diag_embed(B.materialize(v, levels), params.get("offset", 0), -2, -1)
    side = e.shape[-1]
    e = e.narrow(-2, 0, min(rows, side)).narrow(-1, 0, min(cols, side))
    e = _nt.nn.functional.pad(e, (0, max(cols - side, 0), 0, max(rows - side, 0)))
    return B.wrap(e, levels)


def repeat(cls, inputs, params, levels):
    (x,) = inputs
    k = len(levels)
    phys = B.materialize(x, levels)
    extra = len(params["repeats"]) - x._array.ndim
    if extra > 0:
        phys = phys.reshape(tuple(phys.shape[:k]) + (1,) * extra + tuple(phys.shape[k:]))
    p = dict(params)
    p["repeats"] = (1,) * k + tuple(params["repeats"])
    return B.wrap(cls.apply(phys, **p), levels)


def fallback(cls, inputs, params, levels):
    """No rule: run the op once per sample and stack the results (correct, slow; warns as
    torch's performance fallback does)."""
    name = getattr(cls, "_op_cls", cls).__name__
    warnings.warn(f"vmap: there is no batching rule for the op {name}, so it runs once per "
                  f"sample (a performance drop, not an error). Please report it so a rule can "
                  f"be added.", UserWarning, stacklevel=4)
    sizes = tuple(B.level_size(lvl) for lvl in levels)
    total = 1
    for s in sizes:
        total *= s
    k = len(levels)
    flat = []
    for x in inputs:
        if type(x) is BatchedTensor:
            p = B.materialize(x, levels)
            flat.append(p.reshape((total,) + tuple(p.shape[k:])))
        else:
            flat.append(None)
    logical = {key: _flat_logical(v, levels, total) for key, v in params.items()
               if _has_logical(v)}
    results = []
    for b in range(total):
        args = [f[b] if f is not None else x for f, x in zip(flat, inputs)]
        kw = dict(params)
        for key, per in logical.items():
            kw[key] = per(b)
        results.append(cls.apply(*args, **kw))
    if not results:
        raise RuntimeError(f"vmap: cannot run the op {name} on an empty batch without a "
                           "batching rule")
    if type(results[0]) is tuple:
        outs = tuple(_stack([r[i] for r in results], sizes) for i in range(len(results[0])))
        return tuple(B.wrap(o, levels) for o in outs)
    return B.wrap(_stack(results, sizes), levels)


def _stack(items, sizes):
    from ..ops import stack

    s = stack(items)
    return s.reshape(sizes + tuple(s.shape[1:]))


def _flat_logical(v, levels, total):
    """Per-sample raw values of a parameter holding stand-in arrays (index arrays)."""
    def one(a, b):
        if type(a) is not _Logical:
            return a
        owner = a._owner
        p = B.materialize(owner, levels)
        arr = p._array.reshape((total,) + tuple(p.shape[len(levels):]))
        return arr[b]

    if isinstance(v, (tuple, list)):
        return lambda b: type(v)(one(a, b) for a in v)
    return lambda b: one(v, b)


# ---------------------------------------------------------------------------------------------
# the table


_ELEMENTWISE_MODULES = ("elementwise", "division", "unary", "comparison", "bitwise", "floating",
                        "special", "special_extra", "polynomials", "_smooth_activation",
                        "activation", "cast")
_DIMS = ("Sum Mean Prod Amax _Logic ExpandBack Cumsum Cumprod MaxDim ArgReduce Softmax "
         "LogSoftmax SoftmaxBackward LogSoftmaxBackward LogSumExp Var Norm LogCumSumExp Flip "
         "Roll Unfold UnfoldBackward Reshape Expand Gather GatherBackward Scatter Cat FftC2C "
         "FftR2C FftC2R Diagonal DiagonalScatter Resample ResampleBackward Split Unbind "
         "NormalizeBackward AxisWindowSum")
_TRAILING = ("Triangle DiagEmbed ViewAsReal ViewAsComplex ConstantPad Inverse Det SlogDet "
             "Cholesky MatrixExp SVD QR Eigh Solve TriangularSolve CholeskySolve LinearResize Pinv")


def _build_table():
    from .. import ops  # noqa: F401  (every op module is imported by now)
    from ..ops import _lautil, _activation_base, complex_ops
    from . import _rules_extra as X

    def walk(c):
        for s in c.__subclasses__():
            if s._op_cls is s:
                yield s
            yield from walk(s)

    by_name = {}
    for cls in walk(_graph.Op):
        mod = cls.__module__.rsplit(".", 1)[-1]
        by_name.setdefault(cls.__name__, []).append(cls)
        if mod in _ELEMENTWISE_MODULES:
            _RULES[cls] = elementwise
    for cls in (complex_ops.Angle, complex_ops.Complex, complex_ops.Conj, complex_ops.Imag,
                complex_ops.Real, _lautil.Conj, _lautil.Imag, _lautil.Real, _lautil.ToComplex,
                _activation_base.Select, _graph._CastForOp):
        _RULES[cls] = elementwise
    for cls in walk(_activation_base._Pointwise):
        _RULES[cls] = elementwise
    for group, rule in ((_DIMS, dims), (_TRAILING, dims)):
        for name in group.split():
            for cls in by_name.get(name, ()):
                _RULES[cls] = rule
    for name in ("Permute",):
        for cls in by_name.get(name, ()):
            _RULES[cls] = permute
    for cls in by_name.get("Repeat", ()):
        _RULES[cls] = repeat
    for cls in by_name.get("DiagGet", ()):
        _RULES[cls] = diag_get
    for cls in by_name.get("DiagPut", ()):
        _RULES[cls] = diag_put
    for name in ("DivBackward", "PointwiseLossBackward", "BinaryCrossEntropyBackward",
                 "BinaryCrossEntropyWithLogitsBackward"):
        for cls in by_name.get(name, ()):
            _RULES[cls] = every_level
    for cls in by_name.get("Expand", ()):
        _RULES[cls] = expand
    X.register(_RULES, by_name)


def dispatch_inplace(self, fn, args, kwargs):
    """``self.op_(...)`` inside vmap; None when neither ``self`` nor an argument is batched."""
    from ._rules_extra import inplace

    return inplace(self, fn, args, kwargs)
