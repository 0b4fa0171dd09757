"""Norms and numbers of matrices for ``numtorch.linalg``: vector_norm, matrix_norm, norm, cond
and matrix_rank, composed of differentiable ops (the vector norm is ``_statistics.Norm``; the
spectral and nuclear norms go through the SVD op)."""

import math
import numbers

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..backend import xp_of
from ._lautil import check_matrix, check_tensor, disp, eigh, square_float, svd
from ._pointwise import _out
from .comparison import where

__all__ = []


def _svdvals(A):
    from .decomp import _svd_checks, svd_parts

    _svd_checks("linalg.svdvals", A)
    return svd_parts(A, False, False)[1]


def _check_norm_dtype(have, want, fn="linalg.vector_norm"):
    """torch's rules for vector_norm's (and matrix_norm's, torch.norm's) ``dtype=``:
    floating, complex exactly for complex inputs, and never narrower than the input's."""
    name = _dtype._TYPE_DISPLAY
    if want._category < _dtype._FLOAT:
        raise RuntimeError(f"{fn}: dtype should be floating point or complex, "
                           f"but got {name[want.name]}")
    if have.is_complex != want.is_complex:
        kind = "complex for complex" if have.is_complex else "real for real"
        raise RuntimeError(f"{fn}: dtype should be {kind} inputs, but got "
                           f"{name[want.name]}")
    if _dtype.promote_types(have, want) is not want:
        raise RuntimeError(f"{fn}: the dtype of the input ({name[have.name]}) "
                           f"should be convertible without narrowing to the specified dtype "
                           f"({name[want.name]})")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ``ord``-norm over ``dim`` (all elements when None).

    Args:
        x (Tensor): a floating point or complex tensor.
        ord (float): ``inf``, ``-inf``, ``0`` (count of nonzeros) or any real. Default: 2.
        dim (int or tuple of ints, optional): dims to reduce. Default: all.
        keepdim (bool): keep reduced dims with size 1. Default: False.
        dtype (dtype, optional): compute in this (floating) dtype.

    Example:
        >>> torch.linalg.vector_norm(torch.tensor([3., 4.]))
        tensor(5.)
    """
    from ._statistics import Norm, _dims_or_all

    check_tensor("linalg.vector_norm", x, "x")
    if isinstance(ord, Tensor) and not ord._array.ndim:  # torch reads a 0-d tensor's number
        ord = ord.item()
    if isinstance(ord, str) or not isinstance(ord, numbers.Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if x.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {disp(x)}")
    if dtype is not None:
        from ._util import check_dtype

        check_dtype(dtype, fn="linalg_vector_norm")
        dtype = _dtype.as_dtype(dtype)
        _check_norm_dtype(x.dtype, dtype)
    if dtype is not None and dtype is not x.dtype:
        x = x.to(dtype)
    ndim = x._array.ndim
    dims = _dims_or_all(dim, ndim, "linalg.vector_norm")
    p = float(ord)
    check_empty_norm(p, x._array.shape, dim, dims)
    return _out(Norm.apply(x, p=p, dims=dims, keepdim=keepdim), out, exact=True)


def check_empty_norm(p, shape, dim, dims):
    """torch's errors for a negative or infinite order over empty input (no identity); the
    order prints as C++ prints a double (``-1``, ``-2.5``, ``inf``)."""
    if not (p < 0 or math.isinf(p)) or 0 not in shape:
        return
    if dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                           f"tensor because the operation does not have an identity")
    for d in dims:
        if shape[d] == 0:
            # (torch's text runs the dimension into "because")
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               f"operation does not have an identity")


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims in ``dim``.

    Args:
        A (Tensor): ``(*, m, n)`` floating point or complex matrices.
        ord: ``'fro'`` (default), ``'nuc'`` (sum of singular values), ``2``/``-2`` (largest /
            smallest singular value), ``1``/``-1`` (max / min column sum of absolute values),
            ``inf``/``-inf`` (max / min row sum).
        dim (2-tuple of ints): the matrix dims. Default: ``(-2, -1)``.
        keepdim (bool): keep the reduced dims with size 1. Default: False.
        dtype (dtype, optional): compute in this dtype.

    Example:
        >>> torch.linalg.matrix_norm(torch.tensor([[1., -2.], [3., 4.]]), ord=1)
        tensor(6.)
    """
    from ._util import canonical_dim

    check_tensor("linalg.matrix_norm", A, "A")
    check_matrix("linalg.matrix_norm", A)
    if out is not None:
        return _out(matrix_norm(A, ord, dim, keepdim, dtype=dtype), out,
                    exact="linalg.matrix_norm expected out tensor dtype {want} but got: {got}")
    if A.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor "
                           f"as input. Got {disp(A)}")
    if dtype is not None:
        _check_norm_dtype(A.dtype, _dtype.as_dtype(dtype), "linalg.matrix_norm")
    if ord not in _MATRIX_ORDS or isinstance(ord, bool):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dim = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    ndim = A._array.ndim
    d0, d1 = canonical_dim(dim[0], ndim), canonical_dim(dim[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if dtype is not None:
        A = A.to(_dtype.as_dtype(dtype))
    if ord == "fro":
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ("nuc", 2, -2):
        m = A.movedim((d0, d1), (-2, -1))
        s = _svdvals(m)
        if ord == -2 and s.shape[-1] == 0:  # (torch's amin over the last dim of no values)
            raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        if ord == "nuc" or (ord == 2 and s.shape[-1] == 0):  # empty: torch's 0 for 2
            r = s.sum(-1)
        else:
            r = s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return _out(r, out)
    # 1 / -1: extreme column sum (sum over rows); inf / -inf: extreme row sum
    sum_dim, ext_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    r = A.abs().sum(sum_dim, keepdim=keepdim)
    if not keepdim and ext_dim > sum_dim:
        ext_dim -= 1
    if ord < 0:
        return _out(r.amin(ext_dim, keepdim=keepdim), out)
    # the largest of non-negative sums: 0 over an empty dim, as torch gives it
    return _out(r.sum(ext_dim, keepdim=keepdim) if r.shape[ext_dim] == 0
                else r.amax(ext_dim, keepdim=keepdim), out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a matrix norm when ``ord`` is a string or ``dim`` names two dims
    (or ``dim`` is None, ``ord`` is given and ``A`` is 2-D); a vector norm otherwise.

    With neither ``ord`` nor ``dim`` it is the 2-norm of all elements.

    Example:
        >>> torch.linalg.norm(torch.tensor([[3., 4.], [0., 0.]]))
        tensor(5.)
    """
    check_tensor("linalg.norm", A, "A")
    if out is not None:
        return _out(norm(A, ord, dim, keepdim, dtype=dtype), out,
                    exact="linalg.norm expected out tensor dtype {want} but got: {got}")
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dims)}")
        if isinstance(ord, str) or len(dims) == 2:
            if len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   f"{' '.join(str(d) for d in dims)}")
            if ord is None:  # the Frobenius norm is the 2-norm of all the entries (torch's
                return vector_norm(A, 2, dims, keepdim, dtype=dtype, out=out)  # errors too)
            return matrix_norm(A, ord, dims, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    ndim = A._array.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {ndim}D.")
    if ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if isinstance(ord, str):
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)


def cond(A, p=None, *, out=None):
    """Condition number of ``A`` in the norm ``p``.

    ``p`` is None or 2 (largest over smallest singular value; any shape), -2 (the inverse
    ratio), or ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1 (``norm(A) * norm(inv(A))``;
    square matrices, inf where singular).

    Example:
        >>> torch.linalg.cond(torch.tensor([[2., 0.], [0., 1.]]))
        tensor(2.)
    """
    check_tensor("linalg.cond", A, "A")
    if A._array.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None,) + _MATRIX_ORDS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    m, n = A.shape[-2:]
    if m * n == 0 and (not isinstance(p, str) or m == n):
        # empty matrices: torch's 0 (in A's real dtype, also an integer one) for any shape,
        # square for 'fro' and 'nuc'
        return _out(A.new_zeros(A.shape[:-2]).abs(), out, castable="linalg.cond")
    if p in (None, 2, -2):
        s = _svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return _out(big / small if p != -2 else small / big, out, castable="linalg.cond")
    if m != n:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {m} by {n} matrices")
    square_float("linalg.inv", A)  # (torch's check of the inverse it takes)
    from ..linalg import inv_ex

    inverse, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    if bool((info._array != 0).any()):
        r = where(info != 0, math.inf, r)
    return _out(r, out, castable="linalg.cond")


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Number of singular values (absolute eigenvalues when ``hermitian``) above
    ``max(atol, rtol * largest)``.

    Without tolerances ``rtol`` is ``eps * max(m, n)``; with ``atol`` > 0 alone it is 0. The
    deprecated ``tol`` means ``atol=tol, rtol=0``.

    Example:
        >>> torch.linalg.matrix_rank(torch.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
    """
    check_tensor("linalg.matrix_rank", A, "input")
    if A._array.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    if A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    xp = xp_of(A._array)
    a = A._array
    m, n = a.shape[-2:]
    if min(m, n) == 0:
        return _out(_make(xp.zeros(a.shape[:-2], dtype=np.int64)), out)
    s = xp.abs(eigh(xp, a, vectors=False)) if hermitian else svd(xp, a, compute_uv=False)
    real_dt = s.dtype
    eps = float(np.finfo(real_dt).eps)
    if rtol is None:
        rtol = 0.0 if (atol is not None and not _zero_number(atol)) else eps * max(m, n)
    atol = 0.0 if atol is None else atol
    at = xp.asarray(atol._array if isinstance(atol, Tensor) else atol, dtype=real_dt)
    rt = xp.asarray(rtol._array if isinstance(rtol, Tensor) else rtol, dtype=real_dt)
    cut = xp.maximum(at[..., None], rt[..., None] * s.max(-1, keepdims=True))
    return _out(_make(xp.asarray((s > cut).sum(-1), dtype=np.int64)), out)


def _zero_number(v):
    return not isinstance(v, Tensor) and v == 0
