"""Low-rank decompositions: ``torch.svd_lowrank``, ``torch.pca_lowrank`` and ``torch.lobpcg``.

``svd_lowrank`` is the randomized range finder of Halko, Martinsson and Tropp (2009): project
onto ``q`` random directions, sharpen with ``niter`` power iterations (re-orthonormalised by
QR each time), then take the exact SVD of the small projected matrix. Everything is composed
from numtorch's differentiable linalg ops, so gradients flow as in torch. Random directions
come from numtorch's generator (values are not torch's random stream; for a matrix of rank
``<= q`` the result is the exact truncated SVD, up to signs).
"""

__all__ = ["svd_lowrank", "pca_lowrank", "lobpcg"]


def _nt():
    import numtorch

    return numtorch


def _mH(x):
    return x.transpose(-2, -1).conj()


def _range_basis(A, q, niter):
    """An orthonormal ``(*, m, q)`` basis approximately spanning the range of ``A``."""
    nt = _nt()
    n = A.shape[-1]
    R = nt.randn(*A.shape[:-2], n, q, dtype=A.dtype, device=A.device)
    Q = nt.linalg.qr(A @ R).Q
    for _ in range(niter):
        Q = nt.linalg.qr(_mH(A) @ Q).Q
        Q = nt.linalg.qr(A @ Q).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate truncated SVD ``A ~ U diag(S) V^H`` of rank ``q`` (randomized).

    Args:
        A (Tensor): ``(*, m, n)``.
        q (int, optional): the rank to aim for (slightly above the wanted rank helps).
            Default: 6.
        niter (int, optional): power iterations; more sharpen the result. Default: 2.
        M (Tensor, optional): subtracted from ``A`` first (broadcastable to it).

    Returns:
        (Tensor, Tensor, Tensor): ``U`` ``(*, m, k)``, ``S`` ``(*, k)``, ``V`` ``(*, n, k)``
        with ``k = min(q, m, n)``.

    Example:
        >>> A = torch.randn(20, 3) @ torch.randn(3, 10)
        >>> U, S, V = torch.svd_lowrank(A, q=3)
        >>> torch.allclose(U @ torch.diag(S) @ V.T, A, atol=1e-4)
        True
    """
    nt = _nt()
    if M is not None:
        A = A - M
    q = 6 if q is None else q
    Q = _range_basis(A, q, niter)
    U, S, Vh = nt.linalg.svd(_mH(Q) @ A, full_matrices=False)
    k = min(q, A.shape[-2], A.shape[-1])
    return (Q @ U)[..., :k], S[..., :k], _mH(Vh)[..., :k]


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A`` by a randomized low-rank SVD.

    Args:
        A (Tensor): ``(*, m, n)``: ``m`` samples of ``n`` features.
        q (int, optional): components to return; ``min(6, m, n)`` by default.
        center (bool): subtract the mean of each feature (column) first. Default: True.
        niter (int): power iterations. Default: 2.

    Returns:
        (Tensor, Tensor, Tensor): ``U``, ``S``, ``V`` as :func:`svd_lowrank`; the columns of
        ``V`` are the principal directions.
    """
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (isinstance(q, int) and 0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not (isinstance(niter, int) and niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The ``k`` largest (or smallest) eigenpairs of the symmetric problem ``A x = e B x``.

    Args:
        A (Tensor): ``(*, m, m)`` symmetric.
        k (int, optional): eigenpairs wanted; ``X.shape[-1]`` or 1 by default.
        B (Tensor, optional): ``(*, m, m)`` symmetric positive definite; the identity by
            default.
        X (Tensor, optional): an initial guess ``(*, m, n)``; it only sets ``n``.
        n (int, optional): the size of the search subspace; must satisfy ``m >= 3 n``.
        largest (bool, optional): the largest eigenvalues (default) or the smallest.
        iK, niter, tol, method, tracker, ortho_*: accepted for compatibility.

    Returns:
        (Tensor, Tensor): eigenvalues ``(*, k)`` (largest first, or smallest first) and
        B-orthonormal eigenvectors ``(*, m, k)``.

    Note:
        numtorch solves the problem exactly with a dense symmetric eigensolver (after a
        Cholesky reduction when ``B`` is given), which is what LOBPCG's iterations converge
        to; ``niter``/``tol``/``tracker`` therefore have no effect. Gradients flow through
        the eigensolver.
    """
    nt = _nt()
    m = A.shape[-1]
    if k is None:
        k = 1 if X is None else X.shape[-1]
    if n is None:
        n = k if X is None else X.shape[-1]
    n = max(n, k)
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    largest = True if largest is None else largest
    if B is None:
        w, V = nt.linalg.eigh(A)
    else:
        L = nt.linalg.cholesky(B)
        # C = L^-1 A L^-H has the same eigenvalues; x = L^-H y
        Y = nt.linalg.solve_triangular(L, A, upper=False)
        C = _mH(nt.linalg.solve_triangular(L, _mH(Y), upper=False))
        w, V = nt.linalg.eigh(C)
        V = nt.linalg.solve_triangular(_mH(L), V, upper=True)
    if largest:
        w, V = w.flip(-1), V.flip(-1)
    return w[..., :k], V[..., :k]
