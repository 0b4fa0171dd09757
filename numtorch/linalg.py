"""``numtorch.linalg``: torch's modern linear-algebra namespace.

Matrix functions take batches of matrices ``(*, m, n)`` and work on the last two dims. The
functions here check arguments and name results; the math lives in ``numtorch/ops``:
factorizations in ``decomp.py`` and ``lu_decomp.py``, solvers in ``linsolve.py`` and
``least_squares.py``, norms, ``cond`` and ``matrix_rank`` in ``matrix_norms.py``, and
``multi_dot``, ``cross``, ``vecdot``, ``vander`` and ``diagonal`` in ``ops/products.py``.

Errors follow torch: shape and dtype problems raise RuntimeError, and failures caused by the
values of the input (a singular matrix, one that is not positive-definite) raise
:class:`LinAlgError`, a RuntimeError subclass.
"""

import numbers

import numpy as np

from . import _dtype, return_types
from ._tensor import _make
from .backend import xp_of
from .ops import products as _products
from .ops import decomp as _decomp
from .ops import least_squares as _lsq
from .ops import linsolve as _solve
from .ops import lu_decomp as _lu
from .ops._lautil import (
    LinAlgError, check_matrix, check_square, check_tensor, cholesky_partial, disp, lapack_layout,
    lu_factor_array, square_float,
)
from ._ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: F401,E402  (LAPACK sytrf)
from .ops.products import (  # noqa: F401  (the products of torch.linalg)
    linalg_cross as cross, linalg_diagonal as diagonal, multi_dot, vander, vecdot,
)
from .ops.matmul import matmul  # noqa: F401  (torch.linalg.matmul is torch.matmul)
from .ops.matrix_norms import (  # noqa: F401
    cond, matrix_norm, matrix_rank, norm, vector_norm,
)
from .ops._pointwise import _out

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal",
           "eig", "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex",
           "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
           "tensorsolve", "vander", "vecdot", "vector_norm"]


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
    return _out(_solve.inverse_impl(A), out, exact=True)


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
    return _out(return_types.linalg_inv_ex((res, info)), out, exact=True)


def _zeros_info(A):
    return _make(xp_of(A._array).zeros(tuple(A.shape[:-2]), dtype=np.int32))


def det(A, *, out=None):
    """Determinant of square matrices.

    Example:
        >>> torch.linalg.det(torch.tensor([[2., 1.], [1., 3.]]))
        tensor(5.)
    """
    return _out(_solve.det_impl(A), out, exact=True)


def slogdet(A, *, out=None):
    """Sign and log of the absolute value of the determinant (see :func:`numtorch.slogdet`).

    Example:
        >>> torch.linalg.slogdet(torch.eye(2) * 2).logabsdet
        tensor(1.3863)
    """
    return _out(return_types.linalg_slogdet(_solve.slogdet_impl(A, "linalg.slogdet")), out,
                exact=True)


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
    return _products.matrix_power(A, n, out=out)


_NO_RCOND = object()  # rcond not passed (None is a wrong value for it, as in torch)
_PINV_FORMS = (
    ("(Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, "
     "Tensor out = None)"),
    ("(Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, "
     "Tensor out = None)"),
    "(Tensor input, Tensor rcond, bool hermitian = False, *, Tensor out = None)",
    "(Tensor input, float rcond, bool hermitian = False, *, Tensor out = None)",
)


def pinv(A, *args, rcond=_NO_RCOND, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse.

    Singular values (absolute eigenvalues when ``hermitian``) at or below
    ``max(atol, rtol * largest)`` are treated as zero. Without either tolerance, ``rtol`` is
    ``eps * max(m, n)``; with only ``atol`` (> 0), ``rtol`` is 0.

    Args:
        A (Tensor): ``(*, m, n)`` matrices.
        rcond (float or Tensor, optional): the old name of ``rtol`` (not with ``atol`` or
            ``rtol``).
        atol, rtol (float or Tensor, optional): absolute and relative tolerances.
        hermitian (bool): use the faster eigendecomposition for Hermitian ``A``.

    Example:
        >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    if args or rcond is not _NO_RCOND:
        if args and rcond is not _NO_RCOND:
            raise TypeError("linalg_pinv() got multiple values for argument 'rcond'")
        given = args[0] if args else rcond
        if atol is not None or rtol is not None or given is None:
            from .ops._util import invalid_combination

            err = invalid_combination(_PINV_FORMS, _PINV_FORMS)
            raise TypeError(str(err).replace("pinv()", "linalg_pinv()", 1))
        rtol = given
        if len(args) > 1:
            hermitian = args[1]
    return _out(_lsq.pinv_impl(A, atol=atol, rtol=rtol, hermitian=hermitian), out,
                castable="linalg.pinv")


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
    return _out(_decomp.cholesky_factor(A, upper, "linalg.cholesky"), out, exact=True)


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
        low, info = _make(lapack_layout(xp, arr)), _make(info_arr)
    return _out(return_types.linalg_cholesky_ex((low, info)), out, exact=True)


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
    return _out(return_types.linalg_qr(_decomp.qr_parts(A, mode, "linalg.qr")), out, exact=True)


def _svd_driver(driver, A, fn):
    """torch's checks of ``driver=``: a string, and only for CUDA tensors (cuSOLVER's choice;
    numtorch's CUDA backend takes it and computes as without it)."""
    if driver is None:
        return
    if not isinstance(driver, str):
        raise TypeError(f"{fn}(): argument 'driver' must be str, not {type(driver).__name__}")
    if A.device.type != "cuda":
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """Singular value decomposition ``A = U diag(S) Vh``.

    Args:
        A (Tensor): ``(*, m, n)`` matrices.
        full_matrices (bool): square ``U`` and ``Vh`` when True, reduced (``k = min(m, n)``
            columns/rows) when False. Default: True.
        driver (str, optional): a CUDA-only choice in torch (an error for CPU tensors); on
            CUDA tensors accepted and not used.

    Example:
        >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., -2.]])).S
        tensor([3., 2.])
    """
    _decomp._svd_checks("linalg.svd", A)
    _svd_driver(driver, A, "linalg_svd")
    return _out(return_types.linalg_svd(_decomp.svd_parts(A, full_matrices, True)), out,
                exact=True)


def svdvals(A, *, driver=None, out=None):
    """Singular values of ``A`` in descending order.

    Example:
        >>> torch.linalg.svdvals(torch.tensor([[3., 0.], [0., -2.]]))
        tensor([3., 2.])
    """
    _decomp._svd_checks("linalg.svdvals", A)
    _svd_driver(driver, A, "linalg_svdvals")
    return _out(_decomp.svd_parts(A, False, False)[1], out, exact=True)


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of Hermitian matrices.

    Args:
        A (Tensor): ``(*, n, n)``; only the triangle named by ``UPLO`` is read.
        UPLO (str): ``'L'`` or ``'U'``. Default: ``'L'``.

    Example:
        >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    return _out(_decomp.eigh(A, UPLO, True), out, exact=True)


def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of Hermitian matrices (see :func:`eigh`).

    Example:
        >>> torch.linalg.eigvalsh(torch.tensor([[2., 0.], [0., 1.]]))
        tensor([1., 2.])
    """
    return _out(_decomp.eigh(A, UPLO, False), out, exact=True)


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
    return _out(_decomp.householder_product(A, tau), out,
                castable="torch.linalg.householder_product")


def lu_factor(A, *, pivot=True, out=None):
    """LU factorization with partial pivoting in LAPACK's packed form ``(LU, pivots)``.

    ``pivots`` are 1-based int32 row swaps. Raises for exactly singular matrices (use
    :func:`lu_factor_ex` to get ``info`` instead).

    Example:
        >>> torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]])).pivots
        tensor([2, 2], dtype=torch.int32)
    """
    lu_, piv, _ = _lu.lu_factor_parts(A, pivot, "torch.lu_factor", check=True)
    return _out(return_types.linalg_lu_factor((lu_, piv)), out, exact=True)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """:func:`lu_factor` plus LAPACK's ``info`` (1-based index of the first zero pivot).

    Example:
        >>> torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [2., 4.]])).info
        tensor(2, dtype=torch.int32)
    """
    lu_, piv, info = _lu.lu_factor_parts(A, pivot, "torch.lu_factor", check=check_errors)
    return _out(return_types.linalg_lu_factor_ex((lu_, piv, info)), out, exact=True)


def lu(A, *, pivot=True, out=None):
    """LU factorization ``A = P L U`` (unit lower ``L``, upper ``U``, permutation ``P``).

    Example:
        >>> P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
        >>> U
        tensor([[3.0000, 4.0000],
                [0.0000, 0.6667]])
    """
    lu_, piv, _ = _lu.lu_factor_parts(A, pivot, "linalg.lu", check=False)
    p, low, up = _lu.lu_unpack(lu_, piv)
    return _out(return_types.linalg_lu((p, low, up)), out, exact=True)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve ``A X = B`` (``X A = B`` when not ``left``; with ``A^H`` when ``adjoint``) from
    the output of :func:`lu_factor`.

    Example:
        >>> LU, piv = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
        >>> torch.linalg.lu_solve(LU, piv, torch.tensor([[5.], [11.]]))
        tensor([[1.],
                [2.]])
    """
    return _out(_lu.lu_solve_impl(LU, pivots, B, left=left, adjoint=adjoint), out, exact=True)


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
    return _out(_solve.solve(A, B, left=left), out, exact=True)


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
    return _out(return_types.linalg_solve_ex((x, info)), out, exact=True)


_REQUIRED = object()  # torch names a missing keyword-only argument its own way


def solve_triangular(A, B, *, upper=_REQUIRED, left=True, unitriangular=False, out=None):
    """Solve ``A X = B`` (or ``X A = B``) for triangular ``A``.

    Only the triangle named by ``upper`` is read; ``unitriangular`` takes the diagonal to be
    ones. A singular ``A`` gives inf/nan, without an error.

    Example:
        >>> torch.linalg.solve_triangular(torch.tensor([[2., 1.], [0., 4.]]),
        ...                               torch.tensor([[3.], [4.]]), upper=True)
        tensor([[1.],
                [1.]])
    """
    if upper is _REQUIRED:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: '
                        '"upper"')
    if not isinstance(upper, bool):
        raise TypeError(f"linalg_solve_triangular(): argument 'upper' must be bool, not "
                        f"{type(upper).__name__}")
    return _out(_solve.solve_triangular_checked(A, B, upper, left, unitriangular), out,
                exact="expected scalar type {want} but found {got}")


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
    return _lsq.lstsq_impl(A, B, rcond, driver)


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
    r = inv(A.reshape(rows, cols)).reshape((*in_shape, *out_shape))
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
        A = A.permute(tuple(rest + dims))
    x_shape = tuple(A.shape[B._array.ndim:])
    rows = int(np.prod(tuple(B.shape), dtype=np.int64))
    cols = int(np.prod(x_shape, dtype=np.int64))
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {cols} != {rows}")
    x = solve(A.reshape(rows, cols), B.reshape(rows))
    return _out(x.reshape(x_shape), out, castable="tensorsolve")


from ._builtin_names import name_as_builtins

name_as_builtins(globals(), "linalg_")
