"""How an operation on DTensors runs: choose the output placements from the inputs', move
the inputs there (differentiably), compute on the local pieces, wrap the results.

Rules by kind of operation (torch's sharding propagation, in its main cases):
- pointwise: the output keeps the first sharded operand's Shard; other operands are brought
  to the same layout (a broadcast dimension stays Replicate). Partial survives only linear
  operations (Partial +/- Partial, negation, scaling by a number); otherwise it is reduced.
- reductions: reducing over a sharded dimension gives Partial (sum: sum, amax: max, amin:
  min); the other reductions gather that dimension first. Unreduced shards keep their place.
- matmul: batch/row shards of the left operand and column shards of the right one pass
  through; contracting two shards gives Partial(sum).
- softmax over an unsharded dimension, transposes and permutes keep (moved) shards; views
  keep a shard whose dimension survives unchanged.
- anything else: every input gathered to Replicate, computed whole, Replicate out.
"""

import math

from ..._tensor import Tensor
from ..._torch_function import DisableTorchFunctionSubclass
from ._api import DTensor, _alias, _redistribute, _Spec, _wrap
from ._redistribute import ReduceGrad
from .placement_types import Partial, Replicate, Shard

_PASSTHROUGH = frozenset({
    "backward", "requires_grad_", "retain_grad", "register_hook", "is_floating_point",
    "register_post_accumulate_grad_hook", "element_size", "is_complex", "get_device",
    "__get__", "data_ptr", "untyped_storage", "storage",
})
_POINTWISE = frozenset(["abs", "absolute", "acos", "acosh", "add", "addcdiv", "addcmul", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "clone", "contiguous", "copy", "cos", "cosh", "deg2rad", "detach", "digamma", "div", "divide", "double", "dropout", "elu", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "float", "floor", "floor_divide", "fmod", "frac", "gelu", "ge", "greater", "greater_equal", "gt", "half", "hardsigmoid", "hardswish", "hardtanh", "isfinite", "isinf", "isnan", "le", "leaky_relu", "lerp", "lgamma", "less", "less_equal", "log", "log10", "log1p", "log2", "log_sigmoid", "logical_and", "logical_not", "logical_or", "logical_xor", "logit", "lt", "masked_fill", "maximum", "minimum", "mish", "mul", "multiply", "nan_to_num", "ne", "neg", "negative", "not_equal", "positive", "pow", "rad2deg", "reciprocal", "relu", "relu6", "remainder", "round", "rsqrt", "selu", "sigmoid", "sign", "sgn", "silu", "sin", "sinc", "sinh", "softplus", "sqrt", "square", "sub", "subtract", "tan", "tanh", "threshold", "to", "true_divide", "trunc", "type_as", "where", "xlogy", "zero", "fill", "ones_like", "zeros_like", "empty_like", "full_like", "bfloat16", "int", "long", "bool"])
_LINEAR = frozenset({"add", "sub", "subtract", "neg", "negative", "positive", "mul",
                     "multiply", "div", "divide", "true_divide", "clone", "contiguous",
                     "detach", "to", "float", "double", "half", "bfloat16", "type_as", "copy",
                     "zero"})
_PARTIAL_REDUCE = {"sum": "sum", "nansum": "sum", "amax": "max", "amin": "min"}
_REDUCTIONS = frozenset({"sum", "nansum", "mean", "amax", "amin", "max", "min", "prod",
                         "norm", "logsumexp", "var", "std", "argmax", "argmin", "all", "any",
                         "count_nonzero"})
_MATMUL = frozenset({"matmul", "mm", "bmm"})
_SOFTMAX = frozenset({"softmax", "log_softmax"})
_VIEWS = frozenset({"view", "reshape"})


def _name(func):
    name = getattr(func, "__name__", "")
    return name


def _walk(args, kwargs):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a
    yield from kwargs.values()


def _substitute(args, kwargs, table):
    def sub(a):
        if isinstance(a, DTensor):
            return table[id(a)]
        if isinstance(a, (list, tuple)) and any(isinstance(b, DTensor) for b in a):
            return type(a)(sub(b) for b in a)
        return a

    return [sub(a) for a in args], {k: sub(v) for k, v in kwargs.items()}


def _check_mixed(name, args, kwargs):
    for a in _walk(args, kwargs):
        if isinstance(a, Tensor) and not isinstance(a, DTensor) and a.dim() > 0:
            # torch names the aten overload: copy_ has only .default, the others .Tensor
            overload = "default" if name == "copy_" else "Tensor"
            raise RuntimeError(f"aten.{name}.{overload} got mixed torch.Tensor and DTensor, "
                               "need to convert all torch.Tensor to DTensor before calling "
                               "distributed operators!")


def dispatch(func, args, kwargs):
    name = _name(func)
    if name in _PASSTHROUGH:
        with DisableTorchFunctionSubclass():
            return func(*args, **kwargs)
    inplace = False
    base = name
    if name.startswith("__") and name.endswith("__"):
        base = name[2:-2]
        if base[:1] in "ri" and base[1:] in _POINTWISE | _MATMUL:
            inplace = base[0] == "i"
            base = base[1:]
    if base.endswith("_") and base[:-1] in _POINTWISE:
        inplace, base = True, base[:-1]
    dts = [a for a in _walk(args, kwargs) if isinstance(a, DTensor)]
    _check_mixed(base + "_" if inplace else base, args, kwargs)
    if base == "linear":
        return _linear(*args, **kwargs)
    if inplace:
        return _inplace(func, base, args, kwargs, dts)
    if base == "setitem":
        return _setitem(func, args, kwargs, dts)
    if base in _POINTWISE:
        return _pointwise(func, base, args, kwargs, dts)
    if base in _REDUCTIONS:
        return _reduction(func, base, args, kwargs, dts)
    if base in _MATMUL and len(dts) == 2:
        return _matmul(func, args, kwargs, dts)
    if base in _SOFTMAX:
        return _softmax(func, args, kwargs, dts)
    if base in ("t", "transpose", "permute", "swapaxes", "swapdims"):
        return _permute(func, base, args, kwargs, dts)
    if base in _VIEWS | {"flatten", "unsqueeze", "squeeze", "contiguous"}:
        return _view(func, base, args, kwargs, dts)
    return _replicated(func, args, kwargs, dts)


# -- running on local pieces ------------------------------------------------------------------

def _operand(d, target, out):
    """The local piece of ``d`` moved to ``target``, behind a gradient reduction over the
    mesh dimensions where it is replicated but the result ``out`` is not (see ReduceGrad)."""
    local = _alias(_redistribute(d, target))
    if out is None or not local.requires_grad:
        return local
    dims = tuple(i for i, (t, o) in enumerate(zip(target, out))
                 if isinstance(t, Replicate) and not isinstance(o, Replicate))
    if not dims:
        return local
    return ReduceGrad.apply(local, mesh=d._spec.mesh, mesh_dims=dims)


def _run(func, args, kwargs, dts, targets, out=None):
    """func on the local pieces of ``dts`` moved to ``targets`` (one placement tuple each);
    ``out``: the result's placements."""
    table = {id(d): _operand(d, t, out) for d, t in zip(dts, targets)}
    largs, lkwargs = _substitute(args, kwargs, table)
    with DisableTorchFunctionSubclass():
        return func(*largs, **lkwargs)


def _global_shape(func, args, kwargs):
    """The output shape(s) ``func`` gives on the global shapes (run on meta tensors)."""
    from ... import _creation, autograd

    def meta(a):
        if isinstance(a, Tensor):
            shape = a._spec.shape if isinstance(a, DTensor) else tuple(a.shape)
            return _creation.empty(shape, dtype=a.dtype, device="meta")
        if isinstance(a, (list, tuple)) and any(isinstance(b, Tensor) for b in a):
            return type(a)(meta(b) for b in a)
        return a

    with DisableTorchFunctionSubclass(), autograd.no_grad():
        out = func(*[meta(a) for a in args], **{k: meta(v) for k, v in kwargs.items()})
    if isinstance(out, Tensor):
        return tuple(out.shape)
    return [tuple(o.shape) if isinstance(o, Tensor) else None for o in out]


def _wrap_out(out, mesh, placements, shape):
    if isinstance(out, Tensor):
        return _wrap(out, _Spec(mesh, placements, shape))
    if isinstance(out, (tuple, list)):
        shapes = shape if isinstance(shape, list) else [shape] * len(out)
        items = [_wrap_out(o, mesh, placements, s) if isinstance(o, Tensor) else o
                 for o, s in zip(out, shapes)]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out


def _replicated(func, args, kwargs, dts):
    mesh = dts[0]._spec.mesh
    full = (Replicate(),) * mesh.ndim
    out = _run(func, args, kwargs, dts, [full] * len(dts))
    if isinstance(out, Tensor):
        return _wrap(out, _Spec(mesh, full, tuple(out.shape)))
    if isinstance(out, (tuple, list)):
        items = [_wrap(o, _Spec(mesh, full, tuple(o.shape))) if isinstance(o, Tensor) else o
                 for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out


# -- pointwise ----------------------------------------------------------------------------

def _out_shape(dts, args, kwargs):
    shapes = [d._spec.shape for d in dts]
    shapes += [tuple(a.shape) for a in _walk(args, kwargs)
               if isinstance(a, Tensor) and not isinstance(a, DTensor)]
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for s in shapes:
        for k, n in enumerate(s):
            j = ndim - len(s) + k
            if n != 1:
                out[j] = n
    return tuple(out)


def _pointwise_layout(base, dts, out_shape, keep=None):
    """(output placements, target placements per operand)."""
    mesh = dts[0]._spec.mesh
    ndim = len(out_shape)
    only_dtensors_linear = base in _LINEAR and (base not in ("mul", "multiply", "div",
                                                            "divide", "true_divide")
                                                or len(dts) == 1)
    out = []
    for i in range(mesh.ndim):
        ps = [d._spec.placements[i] for d in dts]
        if keep is not None:
            out.append(keep[i])
            continue
        partial = [p for p in ps if isinstance(p, Partial)]
        if partial and only_dtensors_linear and len(partial) == len(ps) and \
                len(set(ps)) == 1 and (base not in ("add", "sub", "subtract") or len(ps) == 2):
            out.append(ps[0])
            continue
        chosen = Replicate()
        for d, p in zip(dts, ps):
            if isinstance(p, Shard):
                od = p.dim + ndim - d.dim()
                if d._spec.shape[p.dim] == out_shape[od] and out_shape[od] != 1:
                    chosen = Shard(od)
                    break
        out.append(chosen)
    targets = []
    for d in dts:
        t = []
        for i, p in enumerate(out):
            if isinstance(p, Shard):
                k = p.dim - (ndim - d.dim())
                t.append(Shard(k) if k >= 0 and d._spec.shape[k] != 1 else Replicate())
            elif isinstance(p, Partial):
                t.append(p)
            else:
                t.append(Replicate())
        targets.append(tuple(t))
    return tuple(out), targets


def _pointwise(func, base, args, kwargs, dts):
    shape = _out_shape(dts, args, kwargs)
    if base in ("to", "type_as", "float", "double", "half", "bfloat16", "int", "long", "bool",
                "clone", "contiguous", "detach", "ones_like", "zeros_like", "empty_like",
                "full_like", "dropout"):
        shape = dts[0]._spec.shape
    out_p, targets = _pointwise_layout(base, dts, shape)
    out = _run(func, args, kwargs, dts, targets, out_p)
    return _wrap_out(out, dts[0]._spec.mesh, out_p, shape)


def _inplace(func, base, args, kwargs, dts):
    self = args[0]
    if not isinstance(self, DTensor):
        raise TypeError(f"aten.{base}_: the tensor written in place must be a DTensor")
    if base not in _POINTWISE and base not in _MATMUL:
        raise NotImplementedError(f"numtorch's DTensor has no in-place rule for {base}_")
    _, targets = _pointwise_layout(base, dts, self._spec.shape, keep=self._spec.placements)
    others = [(d, t) for d, t in zip(dts, targets) if d is not self]
    table = {id(d): _operand(d, t, self._spec.placements) for d, t in others}
    local = _alias(self)
    table[id(self)] = local
    largs, lkwargs = _substitute(args, kwargs, table)
    with DisableTorchFunctionSubclass():
        func(*largs, **lkwargs)
    # the in-place op re-pointed the alias at its new graph node: so is the DTensor
    self._grad_fn = local.grad_fn
    self._output_nr = local._output_nr
    self._requires_grad = local._requires_grad
    self._array = local._array
    return self


def _setitem(func, args, kwargs, dts):
    self = args[0]
    if any(not isinstance(p, Replicate) for p in self._spec.placements):
        raise NotImplementedError("numtorch's DTensor supports item assignment only on a "
                                  "Replicate DTensor; redistribute it first")
    return _inplace(func, "copy", args, kwargs, dts)


# -- reductions --------------------------------------------------------------------------

def _reduced_dims(base, args, kwargs, ndim):
    dim = kwargs.get("dim", args[1] if len(args) > 1 and not isinstance(args[1], bool)
                     and base not in ("norm",) else None)
    if base == "norm":
        dim = kwargs.get("dim", args[2] if len(args) > 2 else None)
    keepdim = kwargs.get("keepdim", False)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return set(range(ndim)), keepdim, True
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    if len(args) > 2 and isinstance(args[2], bool):
        keepdim = args[2]
    return {d % ndim if ndim else 0 for d in dims}, keepdim, False


def _reduction(func, base, args, kwargs, dts):
    x = dts[0]
    if len(dts) != 1 or args[0] is not x:
        return _replicated(func, args, kwargs, dts)
    ndim = x.dim()
    reduced, keepdim, whole = _reduced_dims(base, args, kwargs, ndim)
    out, target = [], []
    for p in x._spec.placements:
        if isinstance(p, Shard) and p.dim in reduced:
            kind = _PARTIAL_REDUCE.get(base)
            if kind is not None and (base != "max" or whole):
                out.append(Partial(kind))
                target.append(p)
            else:
                out.append(Replicate())
                target.append(Replicate())
        elif isinstance(p, Shard):
            shift = 0 if keepdim else sum(1 for r in reduced if r < p.dim)
            out.append(Shard(p.dim - shift))
            target.append(p)
        elif isinstance(p, Partial) and base in ("sum", "nansum") and p.reduce_op == "sum":
            out.append(p)
            target.append(p)
        else:
            out.append(Replicate())
            target.append(Replicate())
    shape = _global_shape(func, args, kwargs)
    result = _run(func, args, kwargs, dts, [tuple(target)])
    return _wrap_out(result, x._spec.mesh, tuple(out), shape)


# -- matmul ---------------------------------------------------------------------------------

def _matmul(func, args, kwargs, dts):
    a, b = dts
    if a is not args[0]:
        a, b = b, a
    mesh = a._spec.mesh
    out_shape = _global_shape(func, args, kwargs)
    out_nd = len(out_shape)
    out, ta, tb = [], [], []
    for pa, pb in zip(a._spec.placements, b._spec.placements):
        if isinstance(pa, Partial) or isinstance(pb, Partial):
            pa = Replicate() if isinstance(pa, Partial) else pa
            pb = Replicate() if isinstance(pb, Partial) else pb
        a_contract = a.dim() - 1
        b_contract = 0 if b.dim() == 1 else b.dim() - 2
        if isinstance(pa, Shard) and pa.dim == a_contract and isinstance(pb, Shard) and \
                pb.dim == b_contract:
            out.append(Partial("sum"))
            ta.append(pa)
            tb.append(pb)
        elif isinstance(pa, Shard) and pa.dim != a_contract and a.dim() >= 2:
            out.append(Shard(pa.dim + out_nd - a.dim()))
            ta.append(pa)
            tb.append(Replicate())
        elif isinstance(pb, Shard) and b.dim() >= 2 and pb.dim == b.dim() - 1:
            out.append(Shard(out_nd - 1))
            ta.append(Replicate())
            tb.append(pb)
        else:
            out.append(Replicate())
            ta.append(Replicate())
            tb.append(Replicate())
    targets = [tuple(ta), tuple(tb)] if dts[0] is a else [tuple(tb), tuple(ta)]
    result = _run(func, args, kwargs, dts, targets, tuple(out))
    return _wrap_out(result, mesh, tuple(out), out_shape)


def _linear(input, weight, bias=None):
    # the operators dispatch again, so each step follows its own rule
    out = input @ (weight.t() if weight.dim() == 2 else weight)
    return out if bias is None else out + bias


# -- softmax, permutes, views ------------------------------------------------------------

def _softmax(func, args, kwargs, dts):
    x = dts[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
    dim = dim % x.dim() if dim is not None else None
    target = tuple(Replicate() if isinstance(p, Partial) or (isinstance(p, Shard) and
                                                             p.dim == dim) else p
                   for p in x._spec.placements)
    result = _run(func, args, kwargs, dts, [target])
    return _wrap_out(result, x._spec.mesh, target, x._spec.shape)


def _permute(func, base, args, kwargs, dts):
    x = dts[0]
    ndim = x.dim()
    if base == "t":
        order = list(range(ndim))[::-1]
    elif base == "permute":
        dims = args[1:] if len(args) > 2 or not isinstance(args[1], (list, tuple)) else args[1]
        dims = kwargs.get("dims", dims)
        order = [d % ndim for d in dims]
    else:
        d0 = kwargs.get("dim0", args[1] if len(args) > 1 else None) % ndim
        d1 = kwargs.get("dim1", args[2] if len(args) > 2 else None) % ndim
        order = list(range(ndim))
        order[d0], order[d1] = order[d1], order[d0]
    out = tuple(Shard(order.index(p.dim)) if isinstance(p, Shard) else p
                for p in x._spec.placements)
    shape = tuple(x._spec.shape[d] for d in order)
    result = _run(func, args, kwargs, dts, [x._spec.placements])
    return _wrap_out(result, x._spec.mesh, out, shape)


def _view(func, base, args, kwargs, dts):
    x = dts[0]
    shape = _global_shape(func, args, kwargs)
    shards = [p for p in x._spec.placements if isinstance(p, Shard)]
    if not shards:
        result = _run(func, args, kwargs, dts, [x._spec.placements])
        return _wrap_out(result, x._spec.mesh, x._spec.placements, shape)
    old = x._spec.shape
    mapping = {}
    for p in shards:
        prefix = math.prod(old[:p.dim])
        found = [k for k in range(len(shape)) if math.prod(shape[:k]) == prefix and
                 k < len(shape) and shape[k] == old[p.dim]]
        if not found:
            return _replicated(func, args, kwargs, dts)
        mapping[p.dim] = found[0]
    out = tuple(Shard(mapping[p.dim]) if isinstance(p, Shard) else p
                for p in x._spec.placements)
    local = _alias(x)
    if base in _VIEWS:
        local_shape = list(shape)
        for p in shards:
            local_shape[mapping[p.dim]] = local.size(p.dim)
        with DisableTorchFunctionSubclass():
            result = getattr(local, base)(local_shape)
    else:
        result = _run(func, args, kwargs, dts, [x._spec.placements])
    return _wrap_out(result, x._spec.mesh, out, shape)

