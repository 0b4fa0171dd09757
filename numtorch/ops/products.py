"""BLAS-style products built on matmul: baddbmm, addbmm, addmv, addr, kron, tensordot,
chain_matmul, matrix_power, cartesian_prod and cross; and the products of ``numtorch.linalg``
(multi_dot, cross, vecdot, vander, diagonal).

Each is a composition of differentiable ops (one GEMM where the shape allows), so gradients of
every order come from matmul's. ``beta * input + alpha * product`` follows torch's rules:
``beta == 0`` ignores ``input`` entirely (NaN and inf in it do not propagate), and integer
tensors take integer scalars.
"""

import numbers
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd import graph as _graph
from ..autograd.graph import rename_node
from ..backend import xp_of
from ._lautil import check_matrix, check_square, check_tensor, disp, eye_like
from ._pointwise import _out
from .matmul import matmul
from .bitwise import logical_or
from .comparison import where
from ._util import as_index, no_dims_error

__all__ = ["baddbmm", "addbmm", "addmv", "addr", "kron", "tensordot", "chain_matmul",
           "matrix_power", "cartesian_prod", "cross"]


def _legacy_scalars(fn, args, n_tensors):
    """torch's deprecated overloads ``fn(beta, input, alpha, t1, t2)`` / ``fn(beta, input, t1,
    t2)``: split leading or interleaved numbers from the tensors (with torch's warning)."""
    nums = [a for a in args if isinstance(a, numbers.Number) and not isinstance(a, Tensor)]
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not nums:
        return tensors, None, None
    if len(tensors) != n_tensors or len(nums) > 2:
        raise TypeError(f"{fn}() received an invalid combination of arguments")
    warnings.warn(f"This overload of {fn} is deprecated: pass beta and alpha as keyword "
                  f"arguments, {fn}(input, ..., *, beta=1, alpha=1).", UserWarning, stacklevel=3)
    beta = nums[0]
    alpha = nums[1] if len(nums) > 1 else 1
    return tensors, beta, alpha


def _combine(fn, input, prod, beta, alpha, integral_float_error=False):
    """``beta * input + alpha * prod`` with ``input`` broadcast to ``prod``'s shape."""
    shape = tuple(prod.shape)
    try:
        ok = np.broadcast_shapes(tuple(input.shape), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        _expand_error(input.shape, shape)
    if integral_float_error and input.dtype._category <= _dtype._INT:
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not "
                                   f"be a floating point number.")
    beta, alpha = scalars_as(input.dtype, beta, alpha)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # input is ignored, values and all (torch's rule)
        return prod
    scaled = input if beta == 1 else input * beta
    return scaled + prod


def _all_half(input, t1, t2):
    """Whether the three operands share one reduced float dtype (float16 or bfloat16)."""
    dt = input.dtype
    return dt in (_dtype.float16, _dtype.bfloat16) and t1.dtype is dt is t2.dtype


def half_fused(fn, input, t1, t2, beta, alpha):
    """``fn`` (addmm, baddbmm or addmv) of float16/bfloat16 operands as torch's CPU kernels
    compute it: product, scaling and sum in float32, then one rounding (rounding the product
    first gives values one ulp off). None when the dtypes are not all one reduced float."""
    if not _all_half(input, t1, t2):
        return None
    f32 = _dtype.float32
    return fn(input.to(f32), t1.to(f32), t2.to(f32), beta=beta, alpha=alpha).to(input.dtype)


# the C type torch converts a Python scalar to for a kernel of each dtype (half types compute
# in float), named as its overflow error names them
_SCALAR_CTYPE = {"float64": "double", "float32": "float", "float16": "float",
                 "bfloat16": "float", "int64": "int64_t", "int32": "int", "int16": "int16_t",
                 "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def scalars_as(dtype, *values):
    """The Python scalars ``values`` (beta, alpha) as the kernel of ``dtype`` reads them:
    truncated to int for integer tensors; a complex or out-of-range value is torch's error."""
    out = []
    for v in values:
        if isinstance(v, bool) or dtype.is_complex:
            out.append(v)
            continue
        ctype = _SCALAR_CTYPE.get(dtype.name, dtype.name)
        if isinstance(v, complex):
            if v.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
            v = v.real
        if dtype._category <= _dtype._INT:
            v = int(v)
            info = np.iinfo(dtype.name) if dtype is not _dtype.bool else None
            # unsigned types also take negated values, which wrap around
            low = -info.max if info is not None and info.min == 0 else getattr(info, "min", 0)
            if info is not None and not low <= v <= info.max:
                raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        out.append(v)
    return out


def _expand_error(have, target):
    have, target = list(have), list(target)
    n = len(target)
    pad = [1] * (n - len(have)) + have
    dim = next((i for i in range(n - 1, -1, -1)
                if pad[i] != target[i] and pad[i] != 1), 0) if len(have) <= n else 0
    size = pad[dim] if len(have) <= n else have[0]
    raise RuntimeError(f"The expanded size of the tensor ({target[dim] if target else 0}) must "
                       f"match the existing size ({size}) at non-singleton dimension {dim}.  "
                       f"Target sizes: {target}.  Tensor sizes: {have}")


def _need(fn, *pairs):
    for name, t in pairs:
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def baddbmm(input, *args, beta=1, alpha=1, out=None, **named):
    """Return ``beta * input + alpha * (batch1 @ batch2)`` for 3-D batches.

    Args:
        input (Tensor): added term, broadcastable to ``(b, n, p)``.
        batch1 (Tensor): ``(b, n, m)``.
        batch2 (Tensor): ``(b, m, p)``.
        beta (Number): multiplier of ``input`` (0 ignores its values). Default: 1.
        alpha (Number): multiplier of the products. Default: 1.

    Example:
        >>> torch.baddbmm(torch.zeros(2, 1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1))
        tensor([[[3.]],
        <BLANKLINE>
                [[3.]]])
    """
    (input, batch1, batch2), beta, alpha = _args3("baddbmm", input, args, beta, alpha, named)
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
        return hook.count_call("baddbmm", baddbmm, (input, batch1, batch2),
                               {"beta": beta, "alpha": alpha, "out": out})
    from .matmul import bmm

    if input.dtype is _dtype.bool:
        raise NotImplementedError("\"baddbmm\" not implemented for 'Bool'")
    if not (input.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input)}, "
                           f"batch1: {_cname(batch1)}, batch2: {_cname(batch2)}")
    r = half_fused(baddbmm, input, batch1, batch2, beta, alpha)
    if r is None:
        r = _combine("baddbmm", input, bmm(batch1, batch2), beta, alpha)
    return _out(rename_node(r, "BaddbmmBackward0"), out, exact=True)


def _cname(t):
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(
        t.dtype.name, t.dtype.name)


_ARG_NAMES = {"baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2"),
              "addmv": ("mat", "vec"), "addr": ("vec1", "vec2")}


def _args3(fn, input, args, beta, alpha, named=None):
    """(input, t1, t2), beta, alpha from the modern or the deprecated positional form.

    ``named`` holds the two tensors passed by keyword (``batch1=``, ``mat=``, ``vec1=`` ...).
    """
    if named:
        names = _ARG_NAMES[fn]
        for key in named:
            if key not in names:
                raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
        args = tuple(args)
        for name in names[len(args):]:
            if name in named:
                args += (named.pop(name),)
        if named:
            raise TypeError(f"{fn}() got multiple values for argument '{next(iter(named))}'")
    allargs = (input,) + tuple(args)
    tensors, b, a = _legacy_scalars(fn, allargs, 3)
    if b is not None:
        beta, alpha = b, a
    if len(tensors) != 3:
        raise TypeError(f"{fn}() missing required arguments: expected 3 tensors, got "
                        f"{len(tensors)}")
    return tensors, beta, alpha


def addbmm(input, *args, beta=1, alpha=1, out=None, **named):
    """Return ``beta * input + alpha * sum_i (batch1[i] @ batch2[i])``.

    The batch sum runs inside one GEMM: ``batch1`` is laid out as ``(n, b*m)`` and ``batch2``
    as ``(b*m, p)``.

    Example:
        >>> torch.addbmm(torch.zeros(1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1))
        tensor([[6.]])
    """
    (input, batch1, batch2), beta, alpha = _args3("addbmm", input, args, beta, alpha, named)
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
        return hook.count_call("addbmm", addbmm, (input, batch1, batch2),
                               {"beta": beta, "alpha": alpha, "out": out})
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t._array.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    b, n, m = batch1.shape
    b2, m2, p = batch2.shape
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and "
                           f"{b2}")
    if m != m2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    if input.dtype is not batch1.dtype or batch1.dtype is not batch2.dtype:
        other = batch2 if input.dtype is batch1.dtype else batch1
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {disp(input)} and "
                           f"{disp(other)}")
    if input.dtype is _dtype.bool:
        raise NotImplementedError("\"addbmm\" not implemented for 'Bool'")
    if b and _all_half(input, batch1, batch2):
        # torch's kernel adds one batch's product at a time, rounding after each
        from .matmul import addmm

        r = addmm(input, batch1[0], batch2[0], beta=beta, alpha=alpha)
        for i in range(1, b):
            r = addmm(r, batch1[i], batch2[i], alpha=alpha)
        return _out(rename_node(r, "AddbmmBackward0"), out)
    lhs = batch1.permute(1, 0, 2).reshape(n, b * m)
    prod = matmul(lhs, batch2.reshape(b * m, p))
    return _out(rename_node(_combine("addbmm", input, prod, beta, alpha), "AddbmmBackward0"), out)


def addmv(input, *args, beta=1, alpha=1, out=None, **named):
    """Return ``beta * input + alpha * (mat @ vec)``.

    Example:
        >>> torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(3), alpha=2)
        tensor([7., 7.])
    """
    (input, mat, vec), beta, alpha = _args3("addmv", input, args, beta, alpha, named)
    if mat._array.ndim != 2 or vec._array.ndim != 1 or input._array.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._array.ndim}, "
                           f"{mat._array.ndim}, {vec._array.ndim}")
    n, m = mat.shape
    if vec.shape[0] != m or (input._array.ndim == 1 and input.shape[0] not in (1, n)):
        size = input.shape[0] if input._array.ndim else 1
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{m}), vec "
                           f"({vec.shape[0]})")
    if not (input.dtype is mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{disp(input)}, {disp(mat)}, and {disp(vec)}")
    if input.dtype is _dtype.bool:
        raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")
    r = half_fused(addmv, input, mat, vec, beta, alpha)
    if r is None:
        r = _combine("addmv", input, matmul(mat, vec), beta, alpha)
    return _out(rename_node(r, "AddmvBackward0"), out, exact=True)


def addr(input, *args, beta=1, alpha=1, out=None, **named):
    """Return ``beta * input + alpha * outer(vec1, vec2)`` (dtypes promote as for ``*``).

    For bool tensors ``beta`` and ``alpha`` act as logical masks.

    Example:
        >>> torch.addr(torch.zeros(2, 2), torch.tensor([1., 2.]), torch.tensor([1., 3.]))
        tensor([[1., 3.],
                [2., 6.]])
    """
    (input, vec1, vec2), beta, alpha = _args3("addr", input, args, beta, alpha, named)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v._array.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got "
                               f"{v._array.ndim}-D")
    prod = vec1.unsqueeze(1) * vec2
    dt = _dtype.result_type(input, prod)
    if dt is _dtype.bool:
        shape = tuple(prod.shape)
        if np.broadcast_shapes(tuple(input.shape), shape) != shape:
            _expand_error(input.shape, shape)
        falses = _make(xp_of(prod._array).zeros(shape, dtype=bool))
        r = prod if alpha else falses
        return _out(logical_or(input, r) if beta else logical_or(falses, r), out)
    if input.dtype is not dt:
        input = input.to(dt)
    if prod.dtype is not dt:
        prod = prod.to(dt)
    return _out(_combine("addr", input, prod, beta, alpha, integral_float_error=True), out)


def kron(input, other, *, out=None):
    """Kronecker product: block ``(i, j, ...)`` of the result is ``input[i, j, ...] * other``.

    Example:
        >>> torch.kron(torch.tensor([1., 2.]), torch.tensor([1., 10.]))
        tensor([ 1., 10.,  2., 20.])
    """
    _need("kron", ("input", input), ("other", other))
    n = max(input._array.ndim, other._array.ndim)
    a = input.reshape((1,) * (n - input._array.ndim) + tuple(input.shape))
    b = other.reshape((1,) * (n - other._array.ndim) + tuple(other.shape))
    # interleave the axes: (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...) -> (a0*b0, a1*b1, ...)
    ea = a.reshape(tuple(x for s in a.shape for x in (s, 1)))
    eb = b.reshape(tuple(x for s in b.shape for x in (1, s)))
    prod = ea * eb
    r = prod.reshape(tuple(p * q for p, q in zip(a.shape, b.shape)))
    return _out(rename_node(r, "UnsafeViewBackward0"), out)  # torch's node name


def _dims_list(dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    return dims


def tensordot(a, b, dims=2, out=None):
    """Contract ``a`` and ``b`` over the given dims (one GEMM after permuting).

    Args:
        a (Tensor): left operand.
        b (Tensor): right operand (same dtype).
        dims (int or pair of lists): contract the last ``dims`` dims of ``a`` with the first
            ``dims`` of ``b``, or dims ``dims[0]`` of ``a`` with ``dims[1]`` of ``b``.

    Example:
        >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
        torch.Size([2, 4])
    """
    from ._util import canonical_dim
    _need("tensordot", ("a", a), ("b", b))
    dims = _dims_list(dims)
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._array.ndim or dims > b._array.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        da = list(range(a._array.ndim - dims, a._array.ndim))
        db = list(range(dims))
        shown = [(d - a._array.ndim, e) for d, e in zip(da, db)]
    else:
        da, db = dims
        da = [da] if isinstance(da, numbers.Integral) else list(da)
        db = [db] if isinstance(db, numbers.Integral) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        da = [canonical_dim(d, a._array.ndim) for d in da]
        db = [canonical_dim(d, b._array.ndim) for d in db]
        shown = list(zip(da, db))
    for (d, e), (sd, se) in zip(zip(da, db), shown):
        if a.shape[d] != b.shape[e]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[d]} in dim {sd} and second has size {b.shape[e]} in "
                               f"dim {se}")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    fa = [d for d in range(a._array.ndim) if d not in da]
    fb = [d for d in range(b._array.ndim) if d not in db]
    k = int(np.prod([a.shape[d] for d in da], dtype=np.int64))
    m = int(np.prod([a.shape[d] for d in fa], dtype=np.int64))  # (-1 is ambiguous for
    n = int(np.prod([b.shape[d] for d in fb], dtype=np.int64))  # an empty k)
    lhs = a.permute(tuple(fa + da)).reshape(m, k)
    rhs = b.permute(tuple(db + fb)).reshape(k, n)
    shape = [a.shape[d] for d in fa] + [b.shape[d] for d in fb]
    return _out(matmul(lhs, rhs).reshape(shape), out,
                exact="tensordot: Expected the output tensor to have dtype {want}, but got an "
                      "output tensor with dtype {got}")


def chain_matmul(*matrices, out=None):
    """Product of 2-D matrices, in the cheapest order (deprecated alias of
    :func:`numtorch.linalg.multi_dot` restricted to matrices).

    Example:
        >>> torch.chain_matmul(torch.ones(2, 3), torch.ones(3, 4), torch.ones(4, 1))
        tensor([[12.],
                [12.]])
    """
    from .._warn_once import warn_once

    warn_once("chain_matmul", "torch.chain_matmul is deprecated and will be removed in a future "
              "PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two "
              "or more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m._array.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m._array.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out)
    return multi_dot(list(matrices), out=out)


def matrix_power(input, n, *, out=None, fn="linalg.matrix_power"):
    """``input`` raised to the integer power ``n`` by repeated squaring.

    ``n == 0`` gives identity matrices, and a negative ``n`` the power of the inverse.

    Example:
        >>> torch.matrix_power(torch.tensor([[1., 1.], [0., 1.]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    n = as_index(n)
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    check_matrix(fn, input)
    check_square(fn, input)
    if n == 0:
        # an all-false selection: the identity, with a zero gradient (NaN in input is ignored)
        never = _make(xp_of(input._array).zeros((), dtype=bool))
        return _out(where(never, input, eye_like(input).expand(*input.shape)), out,
                    exact=True, castable="matrix_power")
    if n < 0:
        from .linsolve import inverse_impl

        input = inverse_impl(input)
        n = -n
    result = None
    power = input
    while True:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if not n:
            break
        power = matmul(power, power)
    return _out(result, out, exact=True, castable="matrix_power")


def cartesian_prod(*tensors):
    """Cartesian product of 1-D tensors: rows are all combinations, the last varying fastest.

    Example:
        >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
        tensor([[1, 3],
                [1, 4],
                [2, 3],
                [2, 4]])
    """
    from .join import check_elements, stack

    check_elements(tensors)
    for t in tensors:
        if t._array.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    sizes = [t.shape[0] for t in tensors]
    k = len(tensors)
    cols = []
    for i, t in enumerate(tensors):
        shape = [1] * k
        shape[i] = sizes[i]
        cols.append(t.reshape(shape).expand(tuple(sizes)).reshape(-1))
    return stack(cols, dim=1)


def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along ``dim``.

    Without ``dim`` the first dim of size 3 is used (deprecated; pass ``dim``, or use
    :func:`numtorch.linalg.cross`, whose default is -1).

    Example:
        >>> torch.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.]), dim=0)
        tensor([0., 0., 1.])
    """
    if dim is None:
        from .._warn_once import warn_once

        warn_once("cross_dim", "Using torch.cross without specifying the dim arg is "
                  "deprecated.\nPlease either pass the dim explicitly or simply use "
                  "torch.linalg.cross.\nThe default value of dim will change to agree with that "
                  "of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {disp(input)} but found {disp(other)}")
    return _out(linalg_cross(input, other, dim=dim, _name="linalg.cross"), out, exact=True)


# -- products of numtorch.linalg (not exported at numtorch.*) ------------------------------

def multi_dot(tensors, *, out=None):
    """Product of a chain of matrices, multiplied in the cheapest order.

    The first tensor may be 1-D (a row vector) and the last 1-D (a column vector); all others
    must be 2-D.

    Example:
        >>> torch.linalg.multi_dot([torch.ones(3), torch.ones(3, 2), torch.ones(2)])
        tensor(6.)
    """
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first._array.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first._array.ndim}D")
    if last._array.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got "
                           f"{last._array.ndim}D")
    for i in range(1, n - 1):
        if tensors[i]._array.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got "
                               f"{tensors[i]._array.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {_cpp(first)} and tensor {i} {_cpp(t)}")
    row = first._array.ndim == 1
    col = last._array.ndim == 1
    mats = list(tensors)
    if row:
        mats[0] = first.unsqueeze(0)
    if col:
        mats[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        a, b = mats[i], mats[i + 1]
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               f"cannot be multiplied")
    result = _chain(mats, _chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]]), 0,
                    n - 1)
    if row and col:
        result = result.reshape(())
    elif row:
        result = result.squeeze(0)
    elif col:
        result = result.squeeze(-1)
    return _out(rename_node(result, "ViewBackward0"), out,  # torch's node name
                exact="multi_dot(): expected out tensor to have dtype {want_c} but got {got_c}")


def _cpp(t):
    return {"float32": "float", "float64": "double"}.get(t.dtype.name, t.dtype.name)


def _chain_order(dims):
    """Split points of the cheapest parenthesization (the classic O(n^3) DP)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j] = c
                    split[i][j] = k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def linalg_cross(input, other, *, dim=-1, out=None, _name="linalg.cross"):
    """Cross product of 3-vectors along ``dim`` (batch dims broadcast).

    Example:
        >>> torch.linalg.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
    """
    from ._util import canonical_dim
    from .indexing import index_select

    check_tensor(_name, input, "input")
    check_tensor(_name, other, "other")
    if input._array.ndim != other._array.ndim:
        raise RuntimeError(f"{_name}: inputs must have the same number of dimensions.")
    if not input._array.ndim:
        raise no_dims_error(dim)
    d = canonical_dim(dim, input._array.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"{_name}: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {disp(input)} but found {disp(other)}")
    xp = xp_of(input._array)
    i1 = _make(xp.asarray([1, 2, 0]))
    i2 = _make(xp.asarray([2, 0, 1]))
    r = (index_select(input, d, i1) * index_select(other, d, i2)
         - index_select(input, d, i2) * index_select(other, d, i1))
    return _out(rename_node(r, "LinalgCrossBackward0"), out, exact=True)


def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along ``dim``, conjugating ``x`` (batch dims broadcast).

    Example:
        >>> torch.linalg.vecdot(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., 1.]))
        tensor([3., 7.])
    """
    from ._lautil import conj

    check_tensor("linalg.vecdot", x, "x")
    check_tensor("linalg.vecdot", y, "y")
    if x.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {disp(x)}")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {disp(x)} and y of type {disp(y)} instead")
    return _out((conj(x) * y).sum(dim), out,
                exact="linalg.vecdot: Expected out of dtype{want} but found {got}")


def vander(x, *, N=None):
    """Vandermonde matrix with columns ``x**0, x**1, ..., x**(N-1)`` (increasing powers).

    Example:
        >>> torch.linalg.vander(torch.tensor([1., 2., 3.]))
        tensor([[1., 1., 1.],
                [1., 2., 4.],
                [1., 3., 9.]])
    """
    from .join import cat

    check_tensor("linalg.vander", x, "x")
    if x.dtype in (_dtype.bool, _dtype.float16, _dtype.bfloat16):  # (checked first, as torch)
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {_dtype._TYPE_DISPLAY[x.dtype.name]}")
    if x._array.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = (x * 0 + 1).unsqueeze(-1)
    reps = x.unsqueeze(-1).expand(*x.shape, n - 1)
    return cat([ones, reps], dim=-1).cumprod(-1)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals (``offset`` above the main one) of the matrices over ``dim1, dim2``,
    as a new last dim.

    Example:
        >>> torch.linalg.diagonal(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([1., 4.])
    """
    from .structure import diagonal

    # torch.diagonal under another signature: a view of A (writes reach A), as in torch
    return diagonal(A, offset, dim1, dim2)
