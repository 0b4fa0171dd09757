"""LU factorization with partial pivoting: lu_factor (packed, LAPACK getrf's layout),
lu_unpack, and solves with the packed factors.

The factorization is one ``Op`` (SciPy's getrf for large matrices, else a column loop
vectorised over the batch); its backward and the solves are numtorch ops, so second
derivatives work.
"""

import warnings

import numpy as np

from .. import _dtype, return_types
from .._tensor import _make
from ..autograd.graph import Op
from ._lautil import (
    check_tensor, disp, eye_like, first_failure, lapack_layout, lu_factor_array, mH, relayout,
    scipy_linalg, swaps_to_permutation, tril, triu,
)
from ._pointwise import _out

__all__ = ["lu", "lu_unpack", "lu_solve"]


def _xp(arr):
    from ..backend import xp_of

    return xp_of(arr)


class LUFactor(Op):
    """P^T A = L U packed in one matrix (LAPACK getrf); dA from the square LU formula
    P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H, extended to the tall and wide parts."""

    node_name = "LinalgLuFactorExBackward0"  # torch's linalg kernel node

    def forward(self, a):
        xp = self.xp
        sl = scipy_linalg(xp)
        m, n = a.shape[-2:]
        # SciPy loops over the batch in Python; the column loop below is vectorised over it
        # and faster for small matrices
        if sl is not None and m == n and a.size and n >= 64:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SciPy warns about exactly singular input
                lu, piv = sl.lu_factor(a, check_finite=False)
        else:
            lu, piv, _ = lu_factor_array(xp, a)
        pivots = (piv + 1).astype(xp.int32)
        self.save(pivots=pivots)
        return self.save_output(lapack_layout(xp, lu)), pivots

    def backward(self, glu, gpiv):
        lu_ = self.saved_output()
        perm = permutation_matrix(self.saved("pivots"), lu_)
        return lu_factor_backward(lu_, perm, glu)


def lu_factor_backward(lu_, perm, glu):
    """dA for P^T A = L U given the packed factors, the permutation matrix and d(packed)."""
    from .join import cat
    from .linsolve import solve_triangular

    m, n = lu_.shape[-2:]
    k = min(m, n)
    low = tril(lu_[..., :, :k], -1) + eye_like(lu_, m)[:, :k]
    up = triu(lu_[..., :k, :])
    gl = tril(glu[..., :, :k], -1)
    gu = triu(glu[..., :k, :])
    l1, u1 = low[..., :k, :], up[..., :, :k]
    gl1, gu1 = gl[..., :k, :], gu[..., :, :k]
    extra = None
    if m > n:  # L2 = A2 U^-1: its gradient flows to A2 and (through U) to A1
        l2, gl2 = low[..., k:, :], gl[..., k:, :]
        extra = solve_triangular(mH(u1), gl2, upper=False, left=False)  # gL2 U^-H
        gu1 = gu1 - mH(l2) @ extra
    elif m < n:  # U2 = L^-1 A2
        u2, gu2 = up[..., :, k:], gu[..., :, k:]
        extra = solve_triangular(mH(l1), gu2, upper=True, left=True, unitriangular=True)
        gl1 = gl1 - extra @ mH(u2)
    inner = tril(mH(l1) @ gl1, -1) + triu(gu1 @ mH(u1))
    inner = solve_triangular(mH(l1), inner, upper=True, left=True, unitriangular=True)
    ga = solve_triangular(mH(u1), inner, upper=False, left=False)
    if extra is not None:
        ga = cat([ga, extra], dim=-2 if m > n else -1)
    return perm @ ga


def permutation_matrix(pivots, like):
    """The matrix P with A = P L U from 1-based LAPACK row swaps (no grad)."""
    xp = _xp(pivots)
    m = like.shape[-2]
    perm = swaps_to_permutation(xp, pivots.astype(np.int64) - 1, m)
    # row i of P^T A is row perm[i] of A, so P[perm[i], i] = 1
    eye = xp.eye(m, dtype=like._array.dtype)
    return _make(xp.ascontiguousarray(xp.swapaxes(eye[perm], -1, -2)))


def lu_factor_parts(A, pivot, fn, check):
    """(LU, pivots, info) for ``A``; raises for exactly singular ``A`` when ``check``."""
    check_tensor(fn, A, "A")
    if A._array.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{disp(A)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    node_out = LUFactor.apply(A)
    lu_, piv = node_out
    info = lu_info(lu_)
    if check:
        idx, k = first_failure(info._array, A.shape[:-2])
        if idx is not None:
            pre = f"(Batch element {idx}): " if A._array.ndim > 2 else ""
            raise RuntimeError(f"torch.linalg.lu_factor: {pre}U[{k},{k}] is zero and using it "
                               f"on lu_solve would result in a division by zero. If you still "
                               f"want to perform the factorization, consider calling "
                               f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return lu_, piv, info


def lu_info(lu_):
    """getrf's info: the 1-based index of the first zero on U's diagonal (0 if none)."""
    xp = _xp(lu_._array)
    d = xp.diagonal(lu_._array, axis1=-2, axis2=-1)
    zero = d == 0
    if not d.shape[-1]:  # empty matrices: no pivots, info 0
        return _make(xp.zeros(d.shape[:-1], dtype=xp.int32))
    return _make(xp.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(xp.int32))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """Split a packed LU factorization into ``(P, L, U)`` with ``A = P L U``.

    Args:
        LU_data (Tensor): the packed factors from :func:`numtorch.linalg.lu_factor`.
        LU_pivots (Tensor): its 1-based int32 pivots.
        unpack_data (bool): return ``L`` and ``U`` (else empty tensors). Default: True.
        unpack_pivots (bool): return ``P`` (else an empty tensor). Default: True.

    Example:
        >>> LU, piv = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
        >>> P, L, U = torch.lu_unpack(LU, piv)
        >>> P
        tensor([[0., 1.],
                [1., 0.]])
    """
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = _make(LU_data._array[..., :0].reshape(-1)[:0].copy())
    if unpack_data:
        # fresh row-major factors, as torch's unpacking kernel writes them
        low = relayout(tril(LU_data[..., :, :k], -1) + eye_like(LU_data, m)[:, :k], False)
        up = relayout(triu(LU_data[..., :k, :]), False)
    else:
        low = up = empty
    if unpack_pivots:
        perm = permutation_matrix(LU_pivots._array, LU_data)
    else:
        perm = empty
    return _out(return_types.lu_unpack((perm, low, up)), out)


def lu(A, pivot=True, get_infos=False, out=None):
    """LU factorization with partial pivoting (the old interface of
    :func:`numtorch.linalg.lu_factor`).

    Returns:
        ``(LU, pivots)``, or ``(LU, pivots, infos)`` when ``get_infos`` is True (no error is
        raised for singular matrices then).

    Example:
        >>> LU, piv = torch.lu(torch.tensor([[1., 2.], [3., 4.]]))
        >>> piv
        tensor([2, 2], dtype=torch.int32)
    """
    from .._warn_once import warn_once

    warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / "
              "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\nLU, "
              "pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
              "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
              "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
              "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    lu_, piv, info = lu_factor_parts(A, pivot, "torch.lu_factor", check=not get_infos)
    if get_infos:
        return _out(return_types._lu_with_info((lu_, piv, info)), out)
    return _out((lu_, piv), out)



# -- solves with the packed factors --------------------------------------------------------------

def lu_solve_impl(LU, pivots, B, left=True, adjoint=False, fn="linalg.lu_solve"):
    """Solve with a packed LU factorization (differentiable in ``LU`` and ``B``)."""
    check_tensor(fn, LU, "LU")
    check_tensor(fn, B, "B")
    if LU._array.ndim < 2 or B._array.ndim < 2:
        raise RuntimeError(f"{fn}: Expected LU and B to have at least 2 dimensions")
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{LU.shape[-2]} by {n} matrices")
    if B.shape[-2 if left else -1] != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {disp(LU)} and B of type {disp(B)} instead")
    from .linsolve import _broadcast_check

    _broadcast_check(LU.shape[:-2], B.shape[:-2])
    p = permutation_matrix(pivots._array, LU)
    # torch's getrs writes column-major solutions, handed back transposed for X A = B
    return relayout(_lu_solve_parts(LU, p, B, left, adjoint), left)


def _lu_solve_parts(LU, p, B, left, adjoint):
    from .linsolve import solve_triangular

    # A = P L U; each case is two triangular solves and a permutation
    if left and not adjoint:  # X = U^-1 L^-1 P^T B
        y = solve_triangular(LU, mH(p) @ B, upper=False, unitriangular=True)
        return solve_triangular(LU, y, upper=True)
    if left:  # A^H X = B: X = P L^-H U^-H B
        y = solve_triangular(mH(LU), B, upper=False)
        return p @ solve_triangular(mH(LU), y, upper=True, unitriangular=True)
    if not adjoint:  # X A = B: X = B U^-1 L^-1 P^T
        y = solve_triangular(LU, B, upper=True, left=False)
        return solve_triangular(LU, y, upper=False, left=False, unitriangular=True) @ mH(p)
    # X A^H = B: X = B P L^-H U^-H
    y = solve_triangular(mH(LU), B @ p, upper=True, left=False, unitriangular=True)
    return solve_triangular(mH(LU), y, upper=False, left=False)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Solve ``A X = b`` from ``A``'s packed LU factorization (old argument order of
    :func:`numtorch.linalg.lu_solve`).

    Example:
        >>> A = torch.tensor([[1., 2.], [3., 4.]])
        >>> LU, piv = torch.linalg.lu_factor(A)
        >>> torch.lu_solve(torch.tensor([[5.], [11.]]), LU, piv)
        tensor([[1.],
                [2.]])
    """
    from .._warn_once import warn_once

    # torch's words, its missing space included
    warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand "
              "will be removed in a future PyTorch release.\nNote that torch.linalg.lu_solve "
              "has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
              "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning,
              stacklevel=2)
    return _out(lu_solve_impl(LU_data, LU_pivots, b, fn="lu_solve"), out)
