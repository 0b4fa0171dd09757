"""The LAPACK-named functions of PyTorch 0.x: gesv, gels, potrf, potrs, potri, pstrf, trtrs,
eig and symeig.

torch 2.x no longer has them; old programs call them, so each is kept here with the 0.x
argument order and result layout, computed by the modern functions named in its docstring.
The matrices may also be batches (0.x took single matrices).
"""

import numpy as np

from .. import return_types
from .._tensor import _make
from ..backend import xp_of
from ._lautil import check_float, check_square, check_tensor, imag, real
from ._pointwise import _out
from .comparison import where

__all__ = ["gesv", "gels", "potrf", "potrs", "potri", "pstrf", "trtrs", "eig", "symeig", "solve",
           "lstsq", "matrix_rank"]


def _as_matrix(b):
    """0.x accepted a 1-D right-hand side as one column."""
    return (b.unsqueeze(-1), True) if b._array.ndim == 1 else (b, False)


def gesv(B, A, *, out=None):
    """Solve ``A X = B`` and return the LU factorization used (LAPACK's gesv).

    Modern equivalent: ``X = torch.linalg.solve(A, B)`` and
    ``LU = torch.linalg.lu_factor(A).LU``.

    Args:
        B (Tensor): right-hand sides ``(*, m, k)`` (a 1-D ``B`` is one column; ``X`` is then
            1-D too).
        A (Tensor): square matrices ``(*, m, m)``.

    Returns:
        ``(X, LU)``: the solution and ``A``'s packed LU factors (L below the diagonal with
        implicit unit diagonal, U on and above it; rows in pivoted order).

    Example:
        >>> X, LU = torch.gesv(torch.tensor([[2.], [4.]]), torch.tensor([[2., 0.], [0., 4.]]))
        >>> X
        tensor([[1.],
                [1.]])
    """
    from ..linalg import lu_factor, solve

    b, vector = _as_matrix(B)
    x = solve(A, b)
    lu_ = lu_factor(A).LU
    res = (x.squeeze(-1) if vector else x, lu_)
    return _out(res, out)


def gels(B, A, *, out=None):
    """Least squares (``m >= n``) or minimum norm (``m < n``) solution of ``A X = B``
    (LAPACK's gels).

    Modern equivalent: ``torch.linalg.lstsq(A, B).solution`` for the solution and
    ``torch.geqrf(A)`` for the factorization.

    Args:
        B (Tensor): ``(m, k)`` (a 1-D ``B`` is one column).
        A (Tensor): ``(m, n)`` of full rank.

    Returns:
        ``(X, qr)``: ``X`` has ``max(m, n)`` rows; its first ``n`` rows are the solution and,
        when ``m > n``, the remaining ``m - n`` rows hold the components of the residual
        ``B - A X`` orthogonal to ``A``'s columns (``Q^T B`` below row ``n``), so the squared
        residual norm of column ``j`` is the sum of squares of ``X[n:, j]``. ``qr`` is
        ``A``'s QR factorization in LAPACK's compact form (as :func:`numtorch.geqrf`).

    Note:
        Gradients flow into the solution rows; the residual rows are differentiable in ``B``
        only (they depend on a basis of the residual space that is not unique).

    Example:
        >>> A = torch.tensor([[1., 0.], [0., 1.], [0., 0.]])
        >>> X, _ = torch.gels(torch.tensor([[1.], [2.], [3.]]), A)
        >>> X
        tensor([[1.],
                [2.],
                [3.]])
    """
    from ..linalg import lstsq
    from .decomp import geqrf
    from .join import cat

    b, vector = _as_matrix(B)
    sol = lstsq(A, b).solution
    m, n = A.shape[-2:]
    x = sol
    if m > n:
        xp = xp_of(A._array)
        q = xp.linalg.qr(A._array, mode="complete")[0]
        q_rest = _make(xp.ascontiguousarray(xp.conj(xp.swapaxes(q[..., :, n:], -1, -2))))
        x = cat([sol, q_rest @ b], dim=-2)
    a_qr = geqrf(A.detach())[0]
    return _out((x.squeeze(-1) if vector else x, a_qr), out)


def potrf(a, upper=True, *, out=None):
    """Cholesky factor of a symmetric positive-definite matrix (LAPACK's potrf); upper
    triangular by default, as in 0.x.

    Modern equivalent: ``torch.linalg.cholesky(a, upper=upper)``.

    Example:
        >>> torch.potrf(torch.tensor([[4., 2.], [2., 5.]]))
        tensor([[2., 1.],
                [0., 2.]])
    """
    from ..linalg import cholesky

    return cholesky(a, upper=upper, out=out)


def potrs(b, u, upper=True, *, out=None):
    """Solve ``A X = b`` from the Cholesky factor ``u`` of ``A`` (LAPACK's potrs).

    Modern equivalent: ``torch.cholesky_solve(b, u, upper=upper)``. ``upper`` defaults to
    True as in 0.x (``A = u^T u``). A 1-D ``b`` is one column.

    Example:
        >>> u = torch.tensor([[2., 1.], [0., 1.]])
        >>> torch.potrs(torch.tensor([[6.], [4.]]), u)
        tensor([[1.],
                [1.]])
    """
    from .linsolve import cholesky_solve

    bb, vector = _as_matrix(b)
    x = cholesky_solve(bb, u, upper=upper)
    return _out(x.squeeze(-1) if vector else x, out)


def potri(u, upper=True, *, out=None):
    """Inverse of ``A`` from its Cholesky factor ``u`` (LAPACK's potri).

    Modern equivalent: ``torch.cholesky_inverse(u, upper=upper)`` (``upper`` defaults to True
    here, as in 0.x).

    Example:
        >>> torch.potri(torch.tensor([[2., 0.], [0., 1.]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    from .linsolve import cholesky_inverse

    return cholesky_inverse(u, upper=upper, out=out)


def pstrf(a, upper=True, tol=-1, *, out=None):
    """Pivoted Cholesky factorization of a symmetric positive semi-definite matrix (LAPACK's
    pstrf).

    No modern torch function; the result satisfies ``u^T u == a[piv][:, piv]`` (``upper``) or
    ``u u^T == a[piv][:, piv]`` (lower).

    Args:
        a (Tensor): ``(*, n, n)`` symmetric positive semi-definite; only the upper (or lower)
            triangle is read.
        upper (bool): return upper triangular ``u``. Default: True.
        tol (float): pivots at or below ``tol`` end the factorization (rank-deficient input);
            negative means ``n * eps * max(diag(a))``. Default: -1.

    Returns:
        ``(u, piv)``: the factor (rows/columns past the numerical rank are zero) and the
        0-based int32 permutation.

    Note:
        The factor is differentiable when ``a`` has full rank (it is then the Cholesky factor
        of the permuted matrix); rank-deficient factors carry no gradient.

    Example:
        >>> u, piv = torch.pstrf(torch.tensor([[1., 0.], [0., 4.]]))
        >>> piv
        tensor([1, 0], dtype=torch.int32)
    """
    from ..autograd.grad_mode import is_grad_enabled
    from ..linalg import cholesky

    check_tensor("pstrf", a, "a")
    check_square("pstrf", a)
    check_float("pstrf", a)
    xp = xp_of(a._array)
    arr = a._array
    sym = xp.conj(xp.swapaxes(arr, -1, -2)) if upper else arr  # work on the lower triangle
    low, perm, rank = _pivoted_cholesky(xp, sym, tol)
    n = arr.shape[-1]
    piv = _make(perm.astype(np.int32))
    if a.requires_grad and is_grad_enabled() and bool((rank == n).all()):
        idx = _make(perm.astype(np.int64))
        permuted = _take2(a, idx)
        u = cholesky(permuted, upper=upper)
    else:
        u = _make(xp.conj(xp.swapaxes(low, -1, -2)) if upper else low)
    return _out((u, piv), out)


def _take2(a, idx):
    """``a[..., idx, :][..., :, idx]`` for a batch of index vectors (differentiable)."""
    from .gather import take_along_dim

    rows = take_along_dim(a, idx.unsqueeze(-1), dim=-2)
    return take_along_dim(rows, idx.unsqueeze(-2), dim=-1)


def _pivoted_cholesky(xp, a, tol):
    """Right-looking pivoted Cholesky of the lower triangles of (..., n, n) arrays.

    Returns ``(L, perm, rank)`` with ``L L^H = a[perm][:, perm]`` up to the rank; each step
    picks the largest remaining diagonal entry (the first on ties), as LAPACK's pstf2.
    """
    n = a.shape[-1]
    batch = a.shape[:-2]
    low = xp.tril(a)
    work = (low + xp.conj(xp.swapaxes(xp.tril(a, -1), -1, -2))).reshape(-1, n, n).copy()
    nb = work.shape[0]
    perm = xp.broadcast_to(xp.arange(n), (nb, n)).copy()
    rank = xp.full(nb, n, dtype=np.int64)
    rows = xp.arange(nb)
    diag0 = xp.real(xp.diagonal(work, axis1=-2, axis2=-1))
    if tol is None or tol < 0:
        tol_b = n * np.finfo(work.real.dtype).eps * (diag0.max(-1) if n else 0)
    else:
        tol_b = xp.full(nb, tol, dtype=work.real.dtype)
    active = xp.ones(nb, dtype=bool)
    for j in range(n):
        d = xp.real(xp.diagonal(work, axis1=-2, axis2=-1))[:, j:]
        p = j + xp.argmax(d, axis=1)
        dmax = d[rows, p - j]
        stop = active & ~(dmax > tol_b)
        rank = xp.where(stop, j, rank)
        active = active & ~stop
        p = xp.where(active, p, j)
        # symmetric swap of row/column j and p
        for arr in (work,):
            r_j, r_p = arr[rows, j].copy(), arr[rows, p].copy()
            arr[rows, j], arr[rows, p] = r_p, r_j
            c_j, c_p = arr[rows, :, j].copy(), arr[rows, :, p].copy()
            arr[rows, :, j], arr[rows, :, p] = c_p, c_j
        pj, pp = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = pp, pj
        ajj = xp.sqrt(xp.where(active, xp.real(work[:, j, j]), 1))
        col = work[:, j + 1:, j] / ajj[:, None]
        work[:, j, j] = xp.where(active, ajj, work[:, j, j])
        work[:, j + 1:, j] = xp.where(active[:, None], col, work[:, j + 1:, j])
        upd = col[:, :, None] * xp.conj(col[:, None, :])
        work[:, j + 1:, j + 1:] -= xp.where(active[:, None, None], upd, 0)
    out = xp.tril(work)
    keep = xp.arange(n)[None, :] < rank[:, None]  # columns past the rank are zero
    out = out * keep[:, None, :]
    return out.reshape(batch + (n, n)), perm.reshape(batch + (n,)), rank.reshape(batch)


def trtrs(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Solve ``A X = b`` for triangular ``A`` (LAPACK's trtrs).

    Modern equivalent: ``torch.linalg.solve_triangular(A, b, upper=upper)`` (with ``A.mT`` and
    the other triangle when ``transpose``), or ``torch.triangular_solve(b, A, ...)``.

    Returns:
        ``(X, A_clone)``: the solution and a copy of ``A``, as 0.x returned them. A 1-D ``b``
        is one column (``X`` is then 1-D).

    Example:
        >>> X, _ = torch.trtrs(torch.tensor([[2.], [4.]]), torch.tensor([[2., 0.], [0., 4.]]))
        >>> X
        tensor([[1.],
                [1.]])
    """
    from .linsolve import _broadcast_clone, _check_b_a, solve_triangular

    check_tensor("trtrs", b, "b")
    check_tensor("trtrs", A, "A")
    bb, vector = _as_matrix(b)
    _check_b_a("triangular_solve_cpu", bb, A, "triangular_solve")
    coef = A.mT if transpose else A
    x = solve_triangular(coef, bb, upper=upper != transpose, unitriangular=unitriangular)
    res = (x.squeeze(-1) if vector else x, _broadcast_clone(A, x))
    return _out(return_types.triangular_solve(res), out)


def eig(a, eigenvectors=False, *, out=None):
    """Eigenvalues (and eigenvectors) of a real square matrix in 0.x's real layout.

    Modern equivalent: ``torch.linalg.eig(a)`` (or ``torch.linalg.eigvals(a)``), which returns
    complex tensors; here they are packed as 0.x (LAPACK's geev) did.

    Returns:
        ``(e, v)``: ``e`` is ``(n, 2)``, the real and imaginary parts of each eigenvalue.
        ``v`` is ``(n, n)`` and real: column ``j`` is the eigenvector of a real eigenvalue;
        for a complex-conjugate pair ``j, j+1`` (positive imaginary part first), columns ``j``
        and ``j+1`` hold the real and imaginary parts of the eigenvector of eigenvalue ``j``
        (the other one is its conjugate). ``v`` is empty unless ``eigenvectors`` is True.

    Example:
        >>> e, v = torch.eig(torch.tensor([[0., -1.], [1., 0.]]))
        >>> e
        tensor([[ 0.,  1.],
                [ 0., -1.]])
    """
    from ..linalg import eig as linalg_eig
    from ..linalg import eigvals
    from .join import stack

    check_tensor("eig", a, "a")
    if eigenvectors:
        w, vc = linalg_eig(a)
    else:
        w, vc = eigvals(a), None
    wi = imag(w)
    e = stack([real(w), wi], dim=-1)
    if vc is None:
        v = _make(xp_of(a._array).zeros((0,), dtype=a._array.dtype))
    else:
        second = (wi < 0).unsqueeze(-2)  # the conjugate partner of a pair: -Im of itself
        v = where(second, -imag(vc), real(vc))
    return _out((e, v), out)


def symeig(a, eigenvectors=False, upper=True, *, out=None):
    """Eigenvalues (ascending) and, optionally, eigenvectors of a symmetric matrix.

    Modern equivalent: ``torch.linalg.eigh(a, UPLO='U' if upper else 'L')`` (or
    ``torch.linalg.eigvalsh``). Only the ``upper`` (default) or lower triangle is read.

    Returns:
        ``(eigenvalues, eigenvectors)``; ``eigenvectors`` is an empty tensor unless
        ``eigenvectors`` is True.

    Example:
        >>> torch.symeig(torch.tensor([[2., 1.], [1., 2.]])).eigenvalues
        tensor([1., 3.])
    """
    from ..linalg import eigh, eigvalsh

    uplo = "U" if upper else "L"
    if eigenvectors:
        w, v = eigh(a, UPLO=uplo)
    else:
        w = eigvalsh(a, UPLO=uplo)
        v = _make(xp_of(a._array).zeros((0,), dtype=a._array.dtype))
    return _out(return_types.symeig((w, v)), out)


def solve(input, A, *, out=None):
    """The 1.x name of :func:`gesv`: ``(solution, LU)`` of ``A X = input``.

    Modern equivalent: ``torch.linalg.solve(A, input)`` (and ``torch.linalg.lu_factor(A)``).

    Example:
        >>> torch.solve(torch.tensor([[2.], [4.]]), torch.tensor([[2., 0.], [0., 4.]]))[0]
        tensor([[1.],
                [1.]])
    """
    res = gesv(input, A, out=out)
    return res if out is not None else return_types.solve(tuple(res))


def lstsq(input, A, *, out=None):
    """The 1.x name of :func:`gels`: ``(solution, QR)`` with the solution in the first ``n``
    rows and the residual components below them when ``m > n``.

    Modern equivalent: ``torch.linalg.lstsq(A, input).solution``.

    Example:
        >>> A = torch.tensor([[1., 0.], [0., 1.], [0., 0.]])
        >>> torch.lstsq(torch.tensor([[1.], [2.], [3.]]), A)[0][:2]
        tensor([[1.],
                [2.]])
    """
    return gels(input, A, out=out)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """The 1.x ``torch.matrix_rank``: singular values above ``tol`` (default
    ``eps * max(m, n) * largest``) are counted.

    Modern equivalent: ``torch.linalg.matrix_rank(input, atol=tol, rtol=0 if tol else None,
    hermitian=symmetric)``.

    Example:
        >>> torch.matrix_rank(torch.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
    """
    from ..linalg import matrix_rank as linalg_matrix_rank

    return linalg_matrix_rank(input, tol, symmetric, out=out)
