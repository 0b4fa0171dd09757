"""``torch.linalg.ldl_factor`` / ``ldl_factor_ex`` / ``ldl_solve``: the Bunch-Kaufman LDL^T
factorization of symmetric (or Hermitian) matrices and solves with it.

These are LAPACK's ``?sytrf``/``?hetrf`` and ``?sytrs``/``?hetrs`` (through SciPy, one matrix
at a time), so ``LD`` and ``pivots`` are exactly LAPACK's compact form, as torch returns
them. Like torch, neither has a derivative: backward through them raises.
"""

import numpy as np

from . import _dtype, return_types
from ._tensor import Tensor
from .autograd.graph import Op
from .ops._lautil import lapack_layout
from .ops._pointwise import _out

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

ldl_factor_t = return_types._make("linalg_ldl_factor", ["LD", "pivots"])
ldl_factor_ex_t = return_types._make("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
return_types.linalg_ldl_factor = ldl_factor_t
return_types.linalg_ldl_factor_ex = ldl_factor_ex_t


def _lapack(name, a):
    from ._quiet_import import import_module

    lapack = import_module("scipy.linalg.lapack")

    (fn,) = lapack.get_lapack_funcs((name,), (a,))
    return fn


def _host(a):
    return a if type(a) is np.ndarray else a.get()


class LDLFactor(Op):
    """LD, pivots (1-based, LAPACK's 2x2-block encoding) and info per matrix; no derivative
    (as in torch)."""

    node_name = "LinalgLdlFactorExBackward0"

    def forward(self, a):
        xp = self.xp
        host = _host(a)
        name = "hetrf" if self.hermitian and host.dtype.kind == "c" else "sytrf"
        batch, n = host.shape[:-2], host.shape[-1]
        flat = host.reshape((int(np.prod(batch)), n, n))  # (-1 is ambiguous when empty)
        ld = np.zeros_like(flat).swapaxes(-1, -2)  # column-major, as sytrf writes it
        piv = np.zeros(flat.shape[:1] + (n,), dtype=np.int32)
        info = np.zeros(flat.shape[:1], dtype=np.int32)
        if n:
            fn = _lapack(name, flat[:1])
            for i, m in enumerate(flat):
                lu, ipiv, inf = fn(m, lower=1)
                ld[i], piv[i], info[i] = np.tril(lu), ipiv, inf
        return (lapack_layout(xp, xp.asarray(ld.reshape(host.shape))),
                xp.asarray(piv.reshape(batch + (n,))),
                xp.asarray(info.reshape(batch)))

    def backward(self, *grads):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


class LDLSolve(Op):
    """X with A X = B from A's LDL^T factors; no derivative (as in torch)."""

    node_name = "LinalgLdlSolveBackward0"

    def forward(self, ld, piv, b):
        xp = self.xp
        ld, piv, b = _host(ld), _host(piv), _host(b)
        n, k = b.shape[-2], b.shape[-1]
        batch = np.broadcast_shapes(ld.shape[:-2], piv.shape[:-1], b.shape[:-2])
        ld = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((-1, n, n))
        piv = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, n))
        flat_b = np.broadcast_to(b, batch + (n, k)).reshape((-1, n, k))
        out = np.empty_like(flat_b.swapaxes(-1, -2), order="C").swapaxes(-1, -2)
        if flat_b.size:
            name = "hetrs" if self.hermitian and ld.dtype.kind == "c" else "sytrs"
            fn = _lapack(name, ld[:1])
            for i in range(out.shape[0]):
                out[i], _ = fn(ld[i], piv[i], flat_b[i], lower=1)
        return lapack_layout(xp, xp.asarray(out.reshape(batch + (n, k))))

    def backward(self, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def _check_input(fn, A):
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_{fn}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"torch.linalg.{fn}: The input tensor A must have at least 2 "
                           f"dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.{fn}: A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if A.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"torch.linalg.{fn}: Expected a floating point or complex tensor "
                           f"as input. Got {_dtype._TYPE_DISPLAY[A.dtype.name]}")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """The LDL^T (Bunch-Kaufman) factorization of symmetric ``A``, with LAPACK's status.

    Args:
        A (Tensor): ``(*, n, n)`` float or complex; only its lower triangle is read.
        hermitian (bool): treat complex ``A`` as Hermitian (LDL^H) rather than symmetric.
        check_errors (bool): raise if a factorization reports a problem.

    Returns:
        (Tensor, Tensor, Tensor): ``LD`` (L below the diagonal, D's blocks on it), the
        int32 ``pivots`` (LAPACK's 1-based encoding) and ``info`` (0, or ``i`` when
        ``D[i-1, i-1]`` is exactly zero).
    """
    _check_input("ldl_factor_ex", A)
    ld, piv, info = LDLFactor.apply(A, hermitian=hermitian)
    if check_errors and bool((info != 0).any()):
        bad = int(info.reshape(-1)[(info.reshape(-1) != 0).nonzero()[0, 0]])
        raise RuntimeError(f"torch.linalg.ldl_factor_ex: Unknown error code: {bad}.")
    return _out(ldl_factor_ex_t((ld, piv, info)), out, exact=True)


def ldl_factor(A, *, hermitian=False, out=None):
    """:func:`ldl_factor_ex` without ``info``, raising when a factorization reports a
    problem (an exactly zero pivot)."""
    _check_input("ldl_factor_ex", A)  # torch checks (and words) it as ldl_factor_ex
    ld, piv, info = LDLFactor.apply(A, hermitian=hermitian)
    if bool((info != 0).any()):
        bad = int(info.reshape(-1)[(info.reshape(-1) != 0).nonzero()[0, 0]])
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {bad}.")
    return _out(ldl_factor_t((ld, piv)), out, exact=True)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solve ``A X = B`` from ``A``'s factors ``(LD, pivots)`` of :func:`ldl_factor`.

    Args:
        LD (Tensor): ``(*, n, n)``.
        pivots (Tensor): ``(*, n)`` int32.
        B (Tensor): ``(*, n, k)`` of ``LD``'s dtype; batch dimensions broadcast.
        hermitian (bool): the factors are of a Hermitian ``A`` (LDL^H).

    Returns:
        Tensor: ``X`` ``(*, n, k)``.
    """
    for name, t in (("LD", LD), ("pivots", pivots), ("B", B)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linalg_ldl_solve(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if B.dim() < 2:
        raise RuntimeError("torch.linalg.ldl_solve: Expected B to have at least 2 dimensions, "
                           f"but it has {B.dim()} dimensions instead")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A "
                           f"matrix is {n} by {n} but each b matrix is {B.shape[-2]} by "
                           f"{B.shape[-1]}")
    if B.dtype is not LD.dtype:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected LD and B to have the same "
                           f"dtype, but found LD of type {_dtype._TYPE_DISPLAY[LD.dtype.name]}"
                           f" and B of type {_dtype._TYPE_DISPLAY[B.dtype.name]} instead")
    from .ops.linsolve import _broadcast_check

    _broadcast_check(LD.shape[:-2], B.shape[:-2])
    return _out(LDLSolve.apply(LD, pivots, B, hermitian=hermitian), out, exact=True)
