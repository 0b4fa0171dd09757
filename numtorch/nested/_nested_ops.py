"""What numtorch's functions and Tensor methods do on nested tensors (the dispatch table).

Each handler works on the flat buffer (``as_flat``) with ordinary numtorch ops, so autograd is
the dense one: elementwise ops are one call over the buffer; an op over the last dimensions
(``softmax``, ``linear``, a last-dim ``sum``) reshapes the buffer to ``(rows, *trailing)`` when
the components agree on those sizes; otherwise the components are padded into one dense
tensor, one dense op runs, and the valid part is taken back (``_remap``). Operations torch
refuses raise its exception and message; operations numtorch has not written yet raise
NotImplementedError naming the ATen operator, as torch does for an operator it lacks.
"""

import numpy as np

from .._layout import jagged, strided
from .._tensor import Tensor
from ._nested_tensor import NestedTensor, RaggedSize, as_flat, like, starts_of, wrap
from ._remap import remap

_NOT_RUN = ("Could not run 'aten::{}' with arguments from the '{}' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted during "
            "the selective/custom build process (if using custom build).")


def _nt():
    import numtorch

    return numtorch


def _F():
    import numtorch.nn.functional as F

    return F


def not_run(aten, backend="NestedTensorCPU"):
    """torch's NotImplementedError for an operator without a kernel for ``backend`` (its
    first sentence; torch goes on to list the backends the operator has)."""
    return NotImplementedError(_NOT_RUN.format(aten, backend))


# -- element positions -------------------------------------------------------------------------
def _coords(sizes):
    """Component number and per-dim coordinates of every buffer element (row-major)."""
    st = starts_of(sizes)
    comp = np.repeat(np.arange(len(sizes)), np.diff(st))
    rem = np.arange(st[-1], dtype=np.int64) - st[comp]
    coords = []
    for d in range(sizes.shape[1] - 1, -1, -1):
        s = sizes[comp, d]
        coords.append(rem % s)
        rem = rem // s
    coords.reverse()
    return comp, coords


def _padded_positions(sizes, padded):
    """Flat position in a dense ``(B, *padded)`` tensor of each buffer element."""
    comp, coords = _coords(sizes)
    pos = comp * int(np.prod(padded, dtype=np.int64))
    step = 1
    for d in range(len(padded) - 1, -1, -1):
        pos = pos + coords[d] * step
        step *= int(padded[d])
    return pos


def _max_sizes(sizes):
    return [int(s) for s in sizes.max(axis=0)] if len(sizes) else [0] * sizes.shape[1]


def pad(nt, padding, output_size=None):
    """The components padded into one dense tensor (differentiable in the buffer)."""
    sizes = nt._nsizes
    padded = _max_sizes(sizes)
    if nt._nlayout is jagged:
        return _pad_jagged(nt, padding, output_size, padded)
    if output_size is not None:
        output_size = [int(s) for s in output_size]
        if len(output_size) != nt.dim():
            raise RuntimeError("Length of output_size does not match NestedTensor dims. "
                               "Broadcasting is not supported.")
        if output_size[0] < len(sizes) or any(o < p for o, p in zip(output_size[1:], padded)):
            raise RuntimeError("Value in output_size is less than NestedTensor padded size. "
                               "Truncation is not supported.")
        batch, padded = output_size[0], output_size[1:]
    else:
        batch = len(sizes)
    flat = as_flat(nt)
    n = flat.shape[0]
    dst = _padded_positions(sizes, padded)
    return remap(flat, np.arange(n), dst, (batch, *padded), fill=padding,
                 node_name="ToPaddedTensorBackward0")


def _pad_jagged(nt, padding, output_size, padded):
    """Only the ragged length is padded to: ``output_size[ragged dim]`` (shorter truncates,
    the other entries are not read), else the length the offsets were declared with, else the
    longest."""
    c = nt._ridx - 1
    if output_size is not None:
        if len(output_size) <= nt._ridx:
            raise IndexError("list index out of range")
        length = int(output_size[nt._ridx])
    elif nt._ragged.pad_len is not None:
        length = nt._ragged.pad_len
    else:
        length = padded[c] if padded else 0
    padded = list(padded)
    padded[c] = length
    sizes = nt._nsizes
    flat = as_flat(nt)
    comp, coords = _coords(sizes)
    keep = coords[c] < length if len(coords) else np.ones(len(comp), bool)
    dst = _padded_positions(sizes, padded)[keep]
    return remap(flat, np.flatnonzero(keep), dst, (len(sizes), *padded), fill=padding,
                 node_name="ToPaddedTensorBackward0")


def unpad(dense, sizes):
    """The buffer of the components of shapes ``sizes`` read from the front of ``dense``."""
    src = _padded_positions(sizes, dense.shape[1:])
    return remap(dense, src, np.arange(len(src)), (len(src),))


def to_padded_tensor(input, padding, output_size=None):
    """See :func:`numtorch.nested.to_padded_tensor`."""
    return pad(input, padding, output_size)


# -- dispatch ----------------------------------------------------------------------------------
_HANDLERS = {}


# the ATen overload torch names when a function has no nested kernel
_ATEN = {"square": "pow.Tensor_Scalar", "mean": "mean.dim", "log_softmax": "_log_softmax",
         "__pow__": "pow.Tensor_Scalar"}


def dispatch(func, args, kwargs):
    name = getattr(func, "__name__", "")
    handler = _HANDLERS.get(name)
    if handler is None:
        if name == "mean" and len(args) < 2 and "dim" not in kwargs:
            raise not_run("mean")
        raise not_run(_ATEN.get(name, name))
    if name in _UNARY_NAMES:  # the caller's own function on the buffer (F.relu(inplace=))
        return handler(func, *args, **kwargs)
    return handler(*args, **kwargs)


def _register(*names):
    def deco(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return deco


def _canon(dim, n):
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def _shape_text(nt):
    return "(" + ", ".join(str(s) for s in nt._sym_sizes()) + ")"


# -- elementwise -------------------------------------------------------------------------------
# unary functions torch 2.13 runs on both layouts, and those it runs on the jagged one only
_BOTH = ("relu", "gelu", "silu", "sin", "cos", "neg", "abs", "tanh", "sqrt", "sgn",
         "logical_not", "negative", "absolute")
_JAGGED_ONLY = ("exp", "sigmoid", "log", "rsqrt", "square", "sign", "floor", "ceil", "round",
                "reciprocal", "log1p", "expm1", "erf", "leaky_relu", "hardswish", "mish",
                "softplus", "elu", "hardtanh", "relu6", "trunc")


def _unary(name, strided_ok):
    def handler(func, input, *args, **kwargs):
        if input._nlayout is strided and not strided_ok:
            raise not_run(_ATEN.get(name, name))
        if kwargs.get("inplace"):
            raise not_run(name + "_")
        return like(input, func(as_flat(input), *args, **kwargs))
    return handler


for _name in _BOTH:
    _HANDLERS[_name] = _unary(_name, True)
for _name in _JAGGED_ONLY:
    _HANDLERS[_name] = _unary(_name, False)
_UNARY_NAMES = frozenset(_BOTH + _JAGGED_ONLY)


def _other_rows(nt, dense):
    """A dense operand of a jagged op, broadcast against its ``(total, *inner)`` values."""
    if dense.dim() < nt.dim():
        return dense
    lengths = _nt().as_tensor(nt._nsizes[:, 0])
    d = dense.squeeze(1)
    if d.shape[0] == 1:
        return d
    return _nt().repeat_interleave(d, lengths, dim=0)


def _binary(name, aten, reflected=False):
    def handler(input, other, *args, **kwargs):
        nt = _nt()
        fn = getattr(nt, name)
        a_nested = isinstance(input, NestedTensor)
        b_nested = isinstance(other, NestedTensor)
        base = input if a_nested else other
        if a_nested and b_nested:
            if input._nlayout is jagged or other._nlayout is jagged:
                if input._ragged is not other._ragged or \
                        not np.array_equal(input._nsizes, other._nsizes):
                    raise RuntimeError(
                        f"cannot call binary pointwise function {aten}.Tensor with inputs of "
                        f"shapes {_shape_text(input)} and {_shape_text(other)}")
            elif input._nsizes.shape != other._nsizes.shape or \
                    not np.array_equal(input._nsizes, other._nsizes):
                raise RuntimeError(f"{name} does not support broadcasting when given a "
                                   "NestedTensor")
            out = fn(as_flat(input), as_flat(other), *args, **kwargs)
            return like(base, out)
        dense = other if a_nested else input
        if isinstance(dense, Tensor):
            if base._nlayout is jagged and base._ridx != 1:
                raise NotImplementedError("numtorch: a dense operand with a transposed jagged "
                                          "nested tensor is not implemented")
            if base._nlayout is strided:
                which = ("a nested self and non-nested other" if a_nested else
                         "a non-nested self and nested other")
                raise RuntimeError(f"Expected both self and other to be nested, but got {which}")
            inner = tuple(int(s) for s in base._nsizes[0, 1:]) if len(base._nsizes) else ()
            rows = as_flat(base).reshape(-1, *inner)
            dense = _other_rows(base, dense)
            out = fn(rows, dense, *args, **kwargs) if a_nested else \
                fn(dense, rows, *args, **kwargs)
            return like(base, out.reshape(-1))
        if reflected and base._nlayout is strided:
            raise not_run(aten)
        flat = as_flat(base)
        out = fn(flat, other, *args, **kwargs) if a_nested else fn(input, flat, *args, **kwargs)
        return like(base, out)
    return handler


for _name in ("add", "sub", "mul", "div"):
    _HANDLERS[_name] = _binary(_name, _name)
_HANDLERS["subtract"] = _HANDLERS["sub"]
_HANDLERS["multiply"] = _HANDLERS["mul"]
_HANDLERS["divide"] = _HANDLERS["true_divide"] = _HANDLERS["div"]


@_register("__rsub__")
def _rsub(input, other):
    if input._nlayout is strided:
        raise not_run("rsub.Scalar")
    return like(input, _nt().sub(other, as_flat(input)))


@_register("__rtruediv__", "__rdiv__")
def _rdiv(input, other):
    if input._nlayout is strided:
        raise not_run("reciprocal")
    return like(input, _nt().div(other, as_flat(input)))


@_register("pow", "__pow__")
def _pow(input, exponent):
    if not isinstance(input, NestedTensor) or isinstance(exponent, Tensor):
        raise not_run("pow.Tensor_Tensor")
    if input._nlayout is strided:
        raise not_run("pow.Tensor_Scalar")
    return like(input, _nt().pow(as_flat(input), exponent))


# -- over the last dimensions ------------------------------------------------------------------
def _trailing(nt, first):
    """The sizes of component dims ``first:`` when every component agrees on them, else None."""
    tail = nt._nsizes[:, first:]
    if len(tail) and (tail != tail[0]).any():
        return None
    return tuple(int(s) for s in tail[0]) if len(tail) else None


def _softmax_like(which):
    def handler(input, dim=None, *args, dtype=None, **kwargs):
        if dim is None:
            raise TypeError(f"{which}() missing required argument 'dim'")
        d = _canon(dim, input.dim())
        if d == 0:
            if input._nlayout is jagged:
                raise RuntimeError(f"{which}(): not supported when reducing across the batch "
                                   "dimension for NestedTensor")
            raise RuntimeError(f"Cannot apply {which} across nested dimension 0")
        if input._nlayout is jagged and d == input._ridx != 1:
            raise RuntimeError(f"{which}(): not supported when reducing along the ragged "
                               "dimension for ragged_idx > 1 for NestedTensor")
        if which == "log_softmax":
            if input._nlayout is strided:
                raise not_run("_log_softmax")
            if d == 1:
                raise RuntimeError("log_softmax(): not supported when reducing along the ragged "
                                   "dimension for NestedTensor")
        fn = getattr(_F(), which)
        tail = _trailing(input, d - 1)
        if tail is not None:  # one call over (rows, *tail)
            out = fn(as_flat(input).reshape(-1, *tail), dim=1, dtype=dtype)
            return like(input, out.reshape(-1))
        # ragged along or after dim: pad with the lowest finite value (weight 0, no NaN rows)
        low = float(np.finfo(input._array.dtype).min)
        dense = fn(pad(input, low), dim=d, dtype=dtype)
        return like(input, unpad(dense, input._nsizes))
    return handler


_HANDLERS["softmax"] = _softmax_like("softmax")
_HANDLERS["log_softmax"] = _softmax_like("log_softmax")


@_register("linear")
def _linear(input, weight, bias=None):
    if input._nlayout is jagged and input._nperm is not None:
        raise ValueError("NestedTensor linear_default(input: jt, weight: t, bias: t?): expected "
                         "input to be a contiguous jagged layout NestedTensor")
    k = _trailing(input, input.dim() - 2)
    if k is None:
        raise RuntimeError("Expected all tensors in nested tensor to have the same trailing "
                           "dimension")
    out = _F().linear(as_flat(input).reshape(-1, k[0]), weight, bias)
    sizes = input._nsizes.copy()
    sizes[:, -1] = out.shape[-1]
    return like(input, out.reshape(-1), sizes)


@_register("matmul", "bmm", "__matmul__")
def _matmul(input, other):
    if not isinstance(input, NestedTensor):
        raise not_run("matmul")
    if input._nlayout is jagged:
        if isinstance(other, NestedTensor):
            raise RuntimeError(f"matmul(): not supported between inputs of shapes "
                               f"{_shape_text(input)} and {other.shape}")
        return _jagged_dense_matmul(input, other)
    if not isinstance(other, NestedTensor):
        raise RuntimeError("Expected both to be nested, but got a nested self and non-nested "  # noqa: TRY004
                           "other")
    return _nested_bmm(input, other)


def _jagged_dense_matmul(nt, w):
    k = _trailing(nt, nt.dim() - 2)
    if w.dim() == 2 and k is not None:  # one GEMM over every row
        out = _nt().matmul(as_flat(nt).reshape(-1, k[0]), w)
    elif w.dim() == 3 and nt.dim() == 3:  # one weight per component: padded batched GEMM
        out = unpad(_nt().bmm(pad(nt, 0.0), w), _matmul_sizes(nt._nsizes, w.shape[-1]))
        sizes = nt._nsizes.copy()
        sizes[:, -1] = w.shape[-1]
        return like(nt, out, sizes)
    else:
        raise RuntimeError(f"matmul(): not supported between inputs of shapes "
                           f"{_shape_text(nt)} and {tuple(w.shape)}")
    sizes = nt._nsizes.copy()
    sizes[:, -1] = out.shape[-1]
    return like(nt, out.reshape(-1), sizes)


def _matmul_sizes(sizes, n):
    out = sizes.copy()
    out[:, -1] = n
    return out


def _nested_bmm(a, b):
    if a.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    sa, sb = a._nsizes, b._nsizes
    if len(sa) != len(sb):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{len(sa)}, ...] but got: [{len(sb)}, ...].")
    bad = np.flatnonzero(sa[:, 1] != sb[:, 0])
    if len(bad):
        i = int(bad[0])
        raise RuntimeError(f"{i}-th nested matrices in batch cannot be multiplied "
                           f"({sa[i, 0]}x{sa[i, 1]} and {sb[i, 0]}x{sb[i, 1]})")
    # zero padding leaves the valid block of each product exact
    dense = _nt().bmm(pad(a, 0.0), pad(b, 0.0))
    sizes = np.stack([sa[:, 0], sb[:, 1]], axis=1)
    return wrap(unpad(dense, sizes), sizes, strided)


# -- shape -------------------------------------------------------------------------------------
@_register("transpose", "swapaxes", "swapdims")
def _transpose(input, dim0, dim1):
    n = input.dim()
    d0, d1 = _canon(dim0, n), _canon(dim1, n)
    if 0 in (d0, d1) and d0 != d1:
        if input._nlayout is jagged:
            raise ValueError("Transpose is not supported on the batch dimension for jagged NT")
        raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
    if d0 == d1:
        return input
    ridx = input._ridx
    if input._nlayout is jagged and ridx in (d0, d1):  # the ragged dim moves with it
        ridx = d1 if ridx == d0 else d0
    old = input._nsizes
    new = old.copy()
    new[:, [d0 - 1, d1 - 1]] = old[:, [d1 - 1, d0 - 1]]
    comp, coords = _coords(new)  # each output element's coordinates, read from the input
    coords[d0 - 1], coords[d1 - 1] = coords[d1 - 1], coords[d0 - 1]
    src = starts_of(old)[comp]
    step = np.ones(len(comp), np.int64)
    for d in range(old.shape[1] - 1, -1, -1):
        src = src + coords[d] * step
        step = step * old[comp, d]
    flat = as_flat(input)
    perm = list(input._nperm or range(old.shape[1]))
    perm[d0 - 1], perm[d1 - 1] = perm[d1 - 1], perm[d0 - 1]
    perm = None if perm == sorted(perm) else tuple(perm)
    out = remap(flat, src, np.arange(len(src)), (len(src),), node_name="TransposeBackward0")
    return like(input, out, new, ridx, perm)


@_register("sum")
def _sum(input, dim=None, keepdim=False, *, dtype=None):
    nt = _nt()
    n = input.dim()
    if dim is None:
        if input._nlayout is strided:
            raise not_run("sum")
        return nt.sum(as_flat(input), dtype=dtype)
    dims = sorted({_canon(d, n) for d in ((dim,) if isinstance(dim, int) else dim)})
    if input._nlayout is strided:
        for d in dims:
            if d != n - 1:
                raise RuntimeError("NestedTensor can only be reduced across the last dimension "
                                   f"for now got dimension {d} instead.")
        if not keepdim:
            raise RuntimeError("NestedTensor always requires keepdim=True for now.")
    r = input._ridx if input._nlayout is jagged else 1
    if input._nlayout is jagged and r != 1 and (0 in dims or r in dims):
        raise NotImplementedError("numtorch: sum of a transposed jagged nested tensor over the "
                                  "batch or ragged dimension is not implemented")
    if 0 in dims and 1 not in dims:
        raise RuntimeError("sum(): reducing along the batch dimension but not the ragged "
                           "dimension is not supported for nested tensors")
    if 1 in dims and input._nlayout is jagged and r == 1:
        if 0 in dims:  # batch and ragged together: the rows of the values
            rest = [d - 1 for d in dims if d > 1]
            out = nt.sum(input.values(), dim=[0] + rest, keepdim=keepdim, dtype=dtype)
            return out
        return nt.sum(pad(input, 0.0), dim=dims, keepdim=keepdim, dtype=dtype)
    tail = _trailing(input, dims[0] - 1)
    rows = as_flat(input).reshape(-1, *tail)
    out = nt.sum(rows, dim=[d - dims[0] + 1 for d in dims], keepdim=True, dtype=dtype)
    sizes = input._nsizes.copy()
    sizes[:, [d - 1 for d in dims]] = 1
    if not keepdim:
        sizes = np.delete(sizes, [d - 1 for d in dims], axis=1)
        r -= sum(d < r for d in dims)
    return like(input, out.reshape(-1), sizes, r if input._nlayout is jagged else None)


@_register("mean")
def _mean(input, dim=None, keepdim=False, *, dtype=None):
    if input._nlayout is strided or dim is None:
        raise not_run("mean.dim" if dim is not None else "mean")
    dims = sorted({_canon(d, input.dim()) for d in ((dim,) if isinstance(dim, int) else dim)})
    if dims[0] < 2:
        raise NotImplementedError("numtorch: mean of a jagged nested tensor over the batch or "
                                  "ragged dimension is not implemented")
    count = int(np.prod(input._nsizes[0, [d - 1 for d in dims]])) if len(input._nsizes) else 1
    total = _sum(input, dims, keepdim, dtype=dtype)
    return like(total, as_flat(total) / count)


@_register("layer_norm")
def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if input._nlayout is strided and (weight is None or bias is None):
        raise ValueError("NestedTensor layer_norm requires weight and bias")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
        tuple(normalized_shape)
    tail = _trailing(input, input.dim() - 1 - len(shape))
    if tail != shape:
        raise RuntimeError(f"numtorch: layer_norm over {list(shape)} needs every component to "
                           f"end in those sizes")
    rows = as_flat(input).reshape(-1, *shape)
    return like(input, _F().layer_norm(rows, shape, weight, bias, eps).reshape(-1))


# -- components --------------------------------------------------------------------------------
def getitem(nt, key):
    """``nt[i]`` (a component) and ``nt[i, ...]`` (indexing into it)."""
    rest = ()
    if isinstance(key, tuple):
        key, rest = (key[0], key[1:]) if key else (slice(None), ())
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        if nt._nlayout is jagged:
            raise RuntimeError("slice(): not supported for NestedTensor on dim=0")
        raise not_run("slice.Tensor")
    b = len(nt._nsizes)
    if not -b <= key < b:
        if nt._nlayout is jagged:
            raise IndexError("tuple index out of range")
        raise IndexError(f"index {key} is out of bounds for dimension 0 with size {b}")
    comp = nt.unbind()[key]
    return comp[rest] if rest else comp


def values(nt):
    """The buffer, shaped ``(total, *inner)`` for the jagged layout."""
    flat = as_flat(nt)
    if nt._nlayout is not jagged:
        return flat
    if nt._ridx == 1:
        inner = tuple(int(s) for s in nt._nsizes[0, 1:]) if len(nt._nsizes) else ()
        return flat.view(-1, *inner)
    # the components joined along their ragged dim: one gather of the buffer
    c = nt._ridx - 1
    sizes = nt._nsizes
    shape = [int(s) for s in sizes[0]]
    offs = np.concatenate(([0], np.cumsum(sizes[:, c])))
    shape[c] = int(offs[-1])
    comp, coords = _coords(sizes)
    coords[c] = coords[c] + offs[comp]
    dst = np.ravel_multi_index(coords, shape) if len(comp) else np.zeros(0, np.int64)
    return remap(flat, np.arange(len(comp)), dst, shape)


# methods and *_like functions that keep the structure: the caller's function on the buffer
_SAME_STRUCTURE = ("float", "double", "half", "bfloat16", "cpu", "zeros_like", "ones_like",
                   "empty_like", "full_like")
_UNARY_NAMES = _UNARY_NAMES | frozenset(_SAME_STRUCTURE)


def _same_structure(func, input, *args, **kwargs):
    return like(input, func(as_flat(input), *args, **kwargs))


for _name in _SAME_STRUCTURE:
    _HANDLERS[_name] = _same_structure


@_register("contiguous")
def _contiguous(input, memory_format=None):
    if input._nperm is None:
        return input
    # the buffer is already in component order: only the transposed-view mark goes
    return like(input, as_flat(input).view(-1), input._nsizes)


@_register("unbind")
def _unbind(input, dim=0):
    return input.unbind(dim)


@_register("numpy")
def _numpy(input, *, force=False):
    if input._nlayout is strided:
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file "
                           "an issue.")
    raise RuntimeError(".numpy() is not supported for tensor subclasses.")


@_register("tolist")
def _tolist(input):
    if input._nlayout is strided:
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support strides. Please "
                           "file an issue.")
    raise RuntimeError(".tolist() is not supported for tensor subclasses, got NestedTensor")


def _compare(name):
    binary = _binary(name, name)

    def handler(input, other):
        if input._nlayout is strided or (isinstance(other, NestedTensor) and
                                         other._nlayout is strided):
            if isinstance(other, NestedTensor):
                if name == "eq":
                    raise RuntimeError(f"{name} does not support nested tensor as other value.")
                raise not_run(f"{name}.Tensor")
            if isinstance(other, Tensor) or name not in _STRIDED_SCALAR_COMPARE:
                raise not_run(f"{name}.Scalar")
        return binary(input, other)
    return handler


_STRIDED_SCALAR_COMPARE = ("eq", "ge")  # the comparisons torch 2.13 has for strided ones


@_register("item")
def _item(input):
    raise RuntimeError(f"a Tensor with {input.numel()} elements cannot be converted to Scalar")


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _HANDLERS[_name] = _compare(_name)
for _op, _name in (("__eq__", "eq"), ("__ne__", "ne"), ("__lt__", "lt"), ("__le__", "le"),
                   ("__gt__", "gt"), ("__ge__", "ge")):
    _HANDLERS[_op] = _HANDLERS[_name]


@_register("dropout")
def _dropout(input, p=0.5, training=True, inplace=False):
    return like(input, _F().dropout(as_flat(input), p, training))


@_register("clone")
def _clone(input, *, memory_format=None):
    return input.clone()


@_register("detach")
def _detach(input):
    return input.detach()


@_register("to_padded_tensor")
def _to_padded(input, padding, output_size=None):
    return pad(input, padding, output_size)


@_register("is_same_size")
def _is_same_size(input, other):
    return isinstance(other, NestedTensor) and np.array_equal(input._nsizes, other._nsizes)


@_register("type_as")
def _type_as(input, other):
    return input.to(other.dtype)



@_register("scaled_dot_product_attention")
def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
          enable_gqa=False):
    """Jagged ``(B, H, j, D)`` query/key/value: padded to one dense attention whose mask hides
    each component's padded keys, then the valid query rows are taken back."""
    parts = (query, key, value)
    if not all(isinstance(p, NestedTensor) and p._nlayout is jagged and p._ridx == 2 and
               p.dim() == 4 for p in parts):
        raise NotImplementedError("numtorch: scaled_dot_product_attention on nested tensors "
                                  "takes jagged (B, H, j, D) query, key and value")
    if attn_mask is not None or dropout_p or is_causal or enable_gqa:
        raise NotImplementedError("numtorch: scaled_dot_product_attention on nested tensors "
                                  "without attn_mask, dropout, is_causal or enable_gqa only")
    nt = _nt()
    qp, kp, vp = (pad(p, 0.0, _full_length(p)) for p in parts)
    klen = key._nsizes[:, 1]
    visible = np.arange(kp.shape[2])[None, :] < klen[:, None]  # (B, Lk)
    mask = nt.as_tensor(visible[:, None, None, :], device=qp.device)
    dense = _F().scaled_dot_product_attention(qp, kp, vp, attn_mask=mask, scale=scale)
    sizes = query._nsizes.copy()
    sizes[:, -1] = value._nsizes[0, -1]
    out = unpad(dense, sizes)
    # torch gives the result a ragged size of its own (a new offsets tensor)
    offsets = query._noffsets.clone()
    # torch's result is a transposed view of (B, j, H, D) values: not contiguous
    return wrap(out, sizes, jagged, RaggedSize(query._ragged.pad_len), offsets, 2, (1, 0, 2))


def _full_length(nt):
    """An output_size padding the ragged dim to the longest component exactly."""
    size = [len(nt._nsizes)] + _max_sizes(nt._nsizes)
    return size


def _new_sizes(input, what, shape):
    """Component sizes for ``reshape``/``view`` of a strided nested tensor: ``shape[0]`` is
    the batch (kept), a -1 in a component dim keeps that dim's own size, a -1 past the
    component's rank is inferred."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if input._nlayout is jagged:
        raise not_run(what)
    old = input._nsizes
    if not shape or shape[0] != old.shape[0]:
        raise RuntimeError(f"{what}: For now nested {what} cannot change or infer the implicit "
                           f"batch dimension")
    rest = np.array(shape[1:], np.int64)
    new = np.tile(rest, (old.shape[0], 1))
    for j, s in enumerate(shape[1:]):
        if s == -1 and j < old.shape[1]:
            new[:, j] = old[:, j]
    numel = old.prod(axis=1)
    free = new == -1
    if free.any():
        known = np.where(free, 1, new).prod(axis=1)
        new[free] = (numel // np.maximum(known, 1))[np.flatnonzero(free.any(axis=1))]
    bad = np.flatnonzero(new.prod(axis=1) != numel)
    if bad.size or (free.sum(axis=1) > 1).any():
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size "
                           f"{int(numel[bad[0]] if bad.size else numel[0])}")
    return new


@_register("reshape")
def _reshape(input, *shape):
    new = _new_sizes(input, "reshape", shape)
    return like(input, as_flat(input), new, input._ridx, None)


@_register("view")
def _view(input, *shape):
    new = _new_sizes(input, "view", shape)
    return like(input, as_flat(input), new, input._ridx, None)


@_register("narrow")
def _narrow(input, dim, start, length):
    """``nt.narrow(0, start, length)``: the components ``start .. start + length - 1``."""
    if input._nlayout is jagged:
        raise not_run("narrow")
    if _canon(dim, input.dim()) != 0:
        raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim}")
    n = input._nsizes.shape[0]
    start, length = int(start), int(length)
    if start < 0:
        start += n
    if length <= 0:  # (torch's words, also for a length of 0)
        raise RuntimeError("narrow(): length must be non-negative.")
    if not 0 <= start <= n or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    st = starts_of(input._nsizes)
    flat = as_flat(input)[int(st[start]):int(st[start + length])]
    return like(input, flat, input._nsizes[start:start + length].copy(), input._ridx, None)
