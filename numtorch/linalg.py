"""``numtorch.linalg``: torch's modern linear-algebra namespace.

Matrix functions take batches of matrices ``(*, m, n)`` and work on the last two dims. The
factorizations and solvers are the ops of ``numtorch/ops/decomp.py`` and ``solve.py``; norms,
``cond``, ``matrix_rank``, ``multi_dot``, ``cross``, ``vecdot``, ``vander``, ``tensorinv`` and
``tensorsolve`` are compositions of differentiable ops.

Errors follow torch: shape and dtype problems raise RuntimeError, and failures caused by the
values of the input (a singular matrix, one that is not positive-definite) raise
:class:`LinAlgError`, a RuntimeError subclass.
"""

import math
import numbers

import numpy as np

from . import _dtype, return_types
from ._tensor import Tensor, _make
from .backend import xp_of
from .ops import blas as _blas
from .ops import decomp as _decomp
from .ops import linsolve as _solve
from .ops._lautil import (
    LinAlgError, check_float, check_matrix, check_square, check_tensor, disp, first_failure,
    lu_factor_array, cholesky_partial, mH, square_float,
)
from .ops.linalg import matmul  # noqa: F401  (torch.linalg.matmul is torch.matmul)

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
           "tensorsolve", "vander", "vecdot", "vector_norm"]


def _out(result, out):
    if out is None:
        return result
    from .ops.elementwise import _out as write_out

    if isinstance(result, tuple):
        for r, o in zip(result, out):
            write_out(r, o)
        return out
    return write_out(result, out)


# -- inverses and determinants --------------------------------------------------------------------

def inv(A, *, out=None):
    """Inverse of square matrices.

    Raises:
        LinAlgError: when a matrix is singular.

    Example:
        >>> torch.linalg.inv(torch.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return _out(_solve.inverse_impl(A), out)


def inv_ex(A, *, check_errors=False, out=None):
    """Inverse and LAPACK's ``info`` (0, or the 1-based index of the first zero pivot).

    Singular matrices give inf/nan entries and a nonzero ``info`` instead of an error unless
    ``check_errors`` is True.

    Example:
        >>> torch.linalg.inv_ex(torch.tensor([[2., 0.], [0., 4.]])).info
        tensor(0, dtype=torch.int32)
    """
    square_float("linalg.inv_ex", A)
    try:
        res = _solve.Inverse.apply(A, fn="linalg.inv_ex", check=True)
        info = _zeros_info(A)
    except LinAlgError:
        if check_errors:
            raise
        res = _solve.Inverse.apply(A, fn="linalg.inv_ex", check=False)
        info = _make(lu_factor_array(xp_of(A._array), A._array)[2])
    return _out(return_types.linalg_inv_ex((res, info)), out)


def _zeros_info(A):
    return _make(xp_of(A._array).zeros(tuple(A.shape[:-2]), dtype=np.int32))


def det(A, *, out=None):
    """Determinant of square matrices.

    Example:
        >>> torch.linalg.det(torch.tensor([[1., 2.], [3., 4.]]))
        tensor(-2.0000)
    """
    return _out(_solve.det_impl(A), out)


def slogdet(A, *, out=None):
    """Sign and log of the absolute value of the determinant (see :func:`numtorch.slogdet`).

    Example:
        >>> torch.linalg.slogdet(torch.eye(2) * 2).logabsdet
        tensor(1.3863)
    """
    return _out(return_types.linalg_slogdet(_solve.slogdet_impl(A, "linalg.slogdet")), out)


def matrix_exp(A):
    """Matrix exponential (see :func:`numtorch.matrix_exp`).

    Example:
        >>> torch.linalg.matrix_exp(torch.zeros(1, 1))
        tensor([[1.]])
    """
    return _solve.matrix_exp_impl(A)


def matrix_power(A, n, *, out=None):
    """Integer power of square matrices (see :func:`numtorch.matrix_power`).

    Example:
        >>> torch.linalg.matrix_power(torch.eye(2) * 2, -1)
        tensor([[0.5000, 0.0000],
                [0.0000, 0.5000]])
    """
    return _blas.matrix_power(A, n, out=out)


def pinv(A, *args, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse.

    Singular values (absolute eigenvalues when ``hermitian``) at or below
    ``max(atol, rtol * largest)`` are treated as zero. Without either tolerance, ``rtol`` is
    ``eps * max(m, n)``; with only ``atol`` (> 0), ``rtol`` is 0.

    Args:
        A (Tensor): ``(*, m, n)`` matrices.
        rcond (float or Tensor, optional, positional): the old name of ``rtol``.
        atol, rtol (float or Tensor, optional): absolute and relative tolerances.
        hermitian (bool): use the faster eigendecomposition for Hermitian ``A``.

    Example:
        >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    if args:
        if atol is not None or rtol is not None:
            raise TypeError("linalg_pinv() received an invalid combination of arguments: pass "
                            "either rcond or atol/rtol")
        rtol = args[0]
        if len(args) > 1:
            hermitian = args[1]
    return _out(_solve.pinv_impl(A, atol=atol, rtol=rtol, hermitian=hermitian), out)


# -- factorizations -------------------------------------------------------------------------------

def cholesky(A, *, upper=False, out=None):
    """Cholesky factor ``L`` (``A = L L^H``) of Hermitian positive-definite matrices.

    Only the lower triangle of ``A`` is read (the upper one when ``upper=True``, which returns
    ``U = L^H``).

    Raises:
        LinAlgError: when a matrix is not positive-definite.

    Example:
        >>> torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 5.]]))
        tensor([[2., 0.],
                [1., 2.]])
    """
    _cholesky_checks("linalg.cholesky", A)
    return _out(_decomp.cholesky_factor(A, upper, "linalg.cholesky"), out)


def _cholesky_checks(fn, A):
    check_tensor(fn, A, "A")
    check_matrix(fn, A)
    check_square(fn, A)
    if A.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{disp(A)}")
    if A.dtype.itemsize == 2:
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{disp(A)}'")


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """Cholesky factor and LAPACK's ``info`` (the order of the first leading minor that is not
    positive-definite, 0 on success); no error unless ``check_errors``.

    Note:
        Where the factorization fails, ``L`` holds what LAPACK's unblocked algorithm leaves
        (not differentiable).

    Example:
        >>> torch.linalg.cholesky_ex(torch.tensor([[1., 2.], [2., 1.]])).info
        tensor(2, dtype=torch.int32)
    """
    _cholesky_checks("linalg.cholesky_ex", A)
    try:
        low = _decomp.cholesky_factor(A, upper, "linalg.cholesky")
        info = _zeros_info(A)
    except LinAlgError:
        if check_errors:
            raise
        xp = xp_of(A._array)
        a = xp.conj(xp.swapaxes(A._array, -1, -2)) if upper else A._array
        arr, info_arr = cholesky_partial(xp, a)
        if upper:
            arr = xp.conj(xp.swapaxes(arr, -1, -2))
        low, info = _make(arr), _make(info_arr)
    return _out(return_types.linalg_cholesky_ex((low, info)), out)


def qr(A, mode="reduced", *, out=None):
    """QR decomposition ``A = Q R``.

    Args:
        A (Tensor): ``(*, m, n)`` matrices.
        mode (str): ``'reduced'`` (``Q`` is ``m x k``), ``'complete'`` (``Q`` is ``m x m``) or
            ``'r'`` (only ``R``; ``Q`` is empty). Default: ``'reduced'``.

    Example:
        >>> Q, R = torch.linalg.qr(torch.tensor([[3., 1.], [4., 2.]]))
        >>> (Q @ R).round()
        tensor([[3., 1.],
                [4., 2.]])
    """
    return _out(return_types.linalg_qr(_decomp.qr_parts(A, mode, "linalg.qr")), out)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh``.

    Args:
        A (Tensor): ``(*, m, n)`` matrices.
        full_matrices (bool): square ``U`` and ``Vh`` when True, reduced (``k = min(m, n)``
            columns/rows) when False. Default: True.
        driver (str, optional): accepted for compatibility (a CUDA-only choice in torch).

    Example:
        >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., -2.]])).S
        tensor([3., 2.])
    """
    _decomp._svd_checks("linalg.svd", A)
    return _out(return_types.linalg_svd(_decomp.svd_parts(A, full_matrices, True)), out)


def svdvals(A, *, driver=None, out=None):
    """Singular values of ``A`` in descending order.

    Example:
        >>> torch.linalg.svdvals(torch.tensor([[3., 0.], [0., -2.]]))
        tensor([3., 2.])
    """
    _decomp._svd_checks("linalg.svdvals", A)
    return _out(_decomp.svd_parts(A, False, False)[1], out)


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of Hermitian matrices.

    Args:
        A (Tensor): ``(*, n, n)``; only the triangle named by ``UPLO`` is read.
        UPLO (str): ``'L'`` or ``'U'``. Default: ``'L'``.

    Example:
        >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    return _out(_decomp.eigh(A, UPLO, True), out)


def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of Hermitian matrices (see :func:`eigh`).

    Example:
        >>> torch.linalg.eigvalsh(torch.tensor([[2., 0.], [0., 1.]]))
        tensor([1., 2.])
    """
    return _out(_decomp.eigh(A, UPLO, False), out)


def eig(A, *, out=None):
    """Eigenvalues and eigenvectors of square matrices, always complex.

    Eigenvectors have unit norm, as LAPACK's geev returns them.

    Example:
        >>> torch.linalg.eig(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([2.+0.j, 1.+0.j])
    """
    return _out(return_types.linalg_eig(_decomp.eig(A, True, "linalg.eig")), out)


def eigvals(A, *, out=None):
    """Eigenvalues of square matrices, always complex (see :func:`eig`).

    Example:
        >>> torch.linalg.eigvals(torch.tensor([[0., -1.], [1., 0.]]))
        tensor([0.+1.j, 0.-1.j])
    """
    return _out(_decomp.eig(A, False, "linalg.eigvals"), out)


def householder_product(A, tau, *, out=None):
    """Product of Householder reflectors ``H_1 ... H_k`` (first ``n`` columns), as LAPACK's
    orgqr computes it from :func:`numtorch.geqrf`'s output.

    Example:
        >>> a, tau = torch.geqrf(torch.eye(2))
        >>> torch.linalg.householder_product(a, tau).abs()
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _out(_decomp.householder_product(A, tau), out)


def lu_factor(A, *, pivot=True, out=None):
    """LU factorization with partial pivoting in LAPACK's packed form ``(LU, pivots)``.

    ``pivots`` are 1-based int32 row swaps. Raises for exactly singular matrices (use
    :func:`lu_factor_ex` to get ``info`` instead).

    Example:
        >>> torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]])).pivots
        tensor([2, 2], dtype=torch.int32)
    """
    lu_, piv, _ = _decomp.lu_factor_parts(A, pivot, "torch.lu_factor", check=True)
    return _out(return_types.linalg_lu_factor((lu_, piv)), out)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """:func:`lu_factor` plus LAPACK's ``info`` (1-based index of the first zero pivot).

    Example:
        >>> torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [2., 4.]])).info
        tensor(2, dtype=torch.int32)
    """
    lu_, piv, info = _decomp.lu_factor_parts(A, pivot, "torch.lu_factor", check=check_errors)
    return _out(return_types.linalg_lu_factor_ex((lu_, piv, info)), out)


def lu(A, *, pivot=True, out=None):
    """LU factorization ``A = P L U`` (unit lower ``L``, upper ``U``, permutation ``P``).

    Example:
        >>> P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    lu_, piv, _ = _decomp.lu_factor_parts(A, pivot, "linalg.lu", check=False)
    p, low, up = _decomp.lu_unpack(lu_, piv)
    return _out(return_types.linalg_lu((p, low, up)), out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve ``A X = B`` (``X A = B`` when not ``left``; with ``A^H`` when ``adjoint``) from
    the output of :func:`lu_factor`.

    Example:
        >>> LU, piv = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
        >>> torch.linalg.lu_solve(LU, piv, torch.tensor([[5.], [11.]]))
        tensor([[1.0000],
                [2.0000]])
    """
    return _out(_solve.lu_solve_impl(LU, pivots, B, left=left, adjoint=adjoint), out)


# -- solvers --------------------------------------------------------------------------------------

def solve(A, B, *, left=True, out=None):
    """Solve ``A X = B`` for square ``A`` (``X A = B`` when ``left`` is False).

    ``B`` is a (batch of) vector(s) when it is 1-D or has ``A``'s shape without its last dim;
    otherwise a (batch of) matrices. Batch dims broadcast.

    Raises:
        LinAlgError: when ``A`` is singular.

    Example:
        >>> torch.linalg.solve(torch.tensor([[2., 0.], [0., 4.]]), torch.tensor([2., 4.]))
        tensor([1., 1.])
    """
    return _out(_solve.solve(A, B, left=left), out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """:func:`solve` plus LAPACK's ``info``; singular matrices give inf/nan and a nonzero
    ``info`` unless ``check_errors``.

    Example:
        >>> torch.linalg.solve_ex(torch.eye(2), torch.ones(2)).info
        tensor(0, dtype=torch.int32)
    """
    try:
        x = _solve.solve(A, B, left=left, fn="linalg.solve_ex")
        info = _zeros_info(A)
    except LinAlgError:
        if check_errors:
            raise
        x = _solve.solve(A, B, left=left, check=False, fn="linalg.solve_ex")
        info = _make(lu_factor_array(xp_of(A._array), A._array)[2])
    return _out(return_types.linalg_solve_ex((x, info)), out)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solve ``A X = B`` (or ``X A = B``) for triangular ``A``.

    Only the triangle named by ``upper`` is read; ``unitriangular`` takes the diagonal to be
    ones. A singular ``A`` gives inf/nan, without an error.

    Example:
        >>> torch.linalg.solve_triangular(torch.tensor([[2., 1.], [0., 4.]]),
        ...                               torch.tensor([[3.], [4.]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    return _out(_solve.solve_triangular_checked(A, B, upper, left, unitriangular), out)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (minimum norm when ``A`` is rank-deficient).

    Args:
        A (Tensor): ``(*, m, n)``.
        B (Tensor): ``(*, m, k)``, or ``(*, m)`` when it has one dim fewer than ``A``.
        rcond (float, optional): singular values below ``rcond`` times the largest count as
            zero. Default: ``eps * max(m, n)``.
        driver (str, optional): ``'gelsy'`` (default), ``'gelsd'``, ``'gelss'`` or ``'gels'``;
            it decides which optional fields are filled, as in torch.

    Returns:
        ``(solution, residuals, rank, singular_values)``: ``residuals`` (squared residual
        norms per column) only when ``m > n``, every matrix has full rank and the driver is
        not ``'gelsy'``; ``rank`` unless the driver is ``'gels'``; ``singular_values`` only
        for ``'gelsd'`` and ``'gelss'``. Fields not computed are empty tensors.

    Note:
        Every driver is computed through the SVD, so rank-deficient problems get the minimum
        norm solution (torch's ``'gels'`` assumes full rank).

    Example:
        >>> A = torch.tensor([[1., 0.], [0., 1.], [0., 0.]])
        >>> torch.linalg.lstsq(A, torch.tensor([[1.], [2.], [3.]])).solution
        tensor([[1.],
                [2.]])
    """
    return _solve.lstsq_impl(A, B, rcond, driver)


# -- norms and numbers ----------------------------------------------------------------------------

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
    from .ops._statistics import Norm, _dims_or_all

    check_tensor("linalg.vector_norm", x, "x")
    if isinstance(ord, str) or not isinstance(ord, numbers.Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if dtype is not None:
        dtype = _dtype.as_dtype(dtype)
        if dtype._category < _dtype._FLOAT:
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, "
                               f"but got {_dtype._TYPE_DISPLAY[dtype.name]}")
    if x.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {disp(x)}")
    if dtype is not None and dtype is not x.dtype:
        x = x.to(dtype)
    ndim = x._array.ndim
    dims = _dims_or_all(dim, ndim, "linalg.vector_norm")
    p = float(ord)
    if (p < 0 or math.isinf(p)) and x._array.size == 0:
        if dim is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on an empty "
                               f"tensor because the operation does not have an identity")
        for d in dims:
            if x._array.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {p} norm on the "
                                   f"dimension {d} because this dimension is empty and the "
                                   f"operation does not have an identity")
    return _out(Norm.apply(x, p=p, dims=dims, keepdim=keepdim), out)


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
    from .ops._util import canonical_dim

    check_tensor("linalg.matrix_norm", A, "A")
    check_matrix("linalg.matrix_norm", A)
    if A.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor "
                           f"as input. Got {disp(A)}")
    if ord not in _MATRIX_ORDS or isinstance(ord, bool):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dim = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    ndim = A._array.ndim
    d0, d1 = canonical_dim(dim[0], ndim), canonical_dim(dim[1], ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if dtype is not None:
        A = A.to(_dtype.as_dtype(dtype))
    if ord == "fro":
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord in ("nuc", 2, -2):
        m = A.movedim((d0, d1), (-2, -1))
        s = svdvals(m)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return _out(r, out)
    # 1 / -1: extreme column sum (sum over rows); inf / -inf: extreme row sum
    sum_dim, ext_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    r = A.abs().sum(sum_dim, keepdim=True)
    r = r.amax(ext_dim, keepdim=True) if ord > 0 else r.amin(ext_dim, keepdim=True)
    if not keepdim:
        r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    return _out(r, out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm: a matrix norm when ``ord`` is a string or ``dim`` names two dims
    (or ``dim`` is None, ``ord`` is given and ``A`` is 2-D); a vector norm otherwise.

    With neither ``ord`` nor ``dim`` it is the 2-norm of all elements.

    Example:
        >>> torch.linalg.norm(torch.tensor([[3., 4.], [0., 0.]]))
        tensor(5.)
    """
    check_tensor("linalg.norm", A, "A")
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if isinstance(ord, str) or len(dims) == 2:
            if len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                   f"{' '.join(str(d) for d in dims)}")
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype,
                               out=out)
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
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions.")
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
    from .ops.elementwise import where

    check_tensor("linalg.cond", A, "A")
    if A._array.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None,) + _MATRIX_ORDS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return _out(big / small if p != -2 else small / big, out)
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {m} by {n} matrices")
    square_float("linalg.cond", A)
    inverse, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    if bool((info._array != 0).any()):
        r = where(info != 0, math.inf, r)
    return _out(r, out)


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
    s = xp.abs(xp.linalg.eigvalsh(a)) if hermitian else xp.linalg.svd(a, compute_uv=False)
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


# -- products -------------------------------------------------------------------------------------

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
    return _out(result, out)


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


def cross(input, other, *, dim=-1, out=None, _name="linalg.cross"):
    """Cross product of 3-vectors along ``dim`` (batch dims broadcast).

    Example:
        >>> torch.linalg.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
    """
    from .ops._util import canonical_dim
    from .ops.indexing import index_select

    check_tensor(_name, input, "input")
    check_tensor(_name, other, "other")
    if input._array.ndim != other._array.ndim:
        raise RuntimeError(f"{_name}: inputs must have the same number of dimensions.")
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
    return _out(r, out)


def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along ``dim``, conjugating ``x`` (batch dims broadcast).

    Example:
        >>> torch.linalg.vecdot(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., 1.]))
        tensor([3., 7.])
    """
    from .ops._lautil import conj

    check_tensor("linalg.vecdot", x, "x")
    check_tensor("linalg.vecdot", y, "y")
    if x.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {disp(x)}")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {disp(x)} and y of type {disp(y)} instead")
    return _out((conj(x) * y).sum(dim), out)


def vander(x, *, N=None):
    """Vandermonde matrix with columns ``x**0, x**1, ..., x**(N-1)`` (increasing powers).

    Example:
        >>> torch.linalg.vander(torch.tensor([1., 2., 3.]))
        tensor([[1., 1., 1.],
                [1., 2., 4.],
                [1., 3., 9.]])
    """
    from .ops.join import cat

    check_tensor("linalg.vander", x, "x")
    if x._array.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype is _dtype.bool:
        x = x.to(_dtype.int64)
    ones = (x * 0 + 1).unsqueeze(-1)
    reps = x.unsqueeze(-1).expand(*x.shape, n - 1)
    return cat([ones, reps], dim=-1).cumprod(-1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals (``offset`` above the main one) of the matrices over ``dim1, dim2``,
    as a new last dim.

    Example:
        >>> torch.linalg.diagonal(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([1., 4.])
    """
    from .ops._lautil import diagonal as main_diagonal

    m = A.movedim((dim1, dim2), (-2, -1))
    r, c = m.shape[-2:]
    if offset >= 0:
        m = m[..., :, offset:]
    else:
        m = m[..., -offset:, :]
    k = max(0, min(m.shape[-2], m.shape[-1]))
    return main_diagonal(m[..., :k, :k])


def tensorinv(A, ind=2, *, out=None):
    """Inverse of ``A`` seen as a linear map from its last ``ndim - ind`` dims to its first
    ``ind`` dims; the result has shape ``A.shape[ind:] + A.shape[:ind]``.

    Example:
        >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
        torch.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows = int(np.prod(out_shape, dtype=np.int64))
    cols = int(np.prod(in_shape, dtype=np.int64))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    r = inv(A.reshape(rows, cols)).reshape(*in_shape, *out_shape)
    return _out(r, out)


def tensorsolve(A, B, dims=None, *, out=None):
    """Solve ``tensordot(A, X, dims=X.ndim) = B`` for ``X`` of shape ``A.shape[B.ndim:]``.

    ``dims`` names dims of ``A`` to move to the end first.

    Example:
        >>> torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape
        torch.Size([6])
    """
    if dims is not None:
        dims = [dims] if isinstance(dims, numbers.Integral) else list(dims)
        nd = A._array.ndim
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(*(rest + dims))
    x_shape = tuple(A.shape[B._array.ndim:])
    rows = int(np.prod(tuple(B.shape), dtype=np.int64))
    cols = int(np.prod(x_shape, dtype=np.int64))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {cols} != {rows}")
    x = solve(A.reshape(rows, cols), B.reshape(rows))
    return _out(x.reshape(x_shape), out)
