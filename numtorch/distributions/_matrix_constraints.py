"""Matrix constraints (triangular, Cholesky factors, symmetric and definite matrices).
Imported into :mod:`numtorch.distributions.constraints`, which is their public home."""

import numtorch as torch

from .constraints import Constraint


class _LowerTriangular(Constraint):
    """Square matrices that are zero above the diagonal."""

    event_dim = 2

    def check(self, value):
        same = value.tril() == value
        return same.reshape(value.shape[:-2] + (-1,)).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).reshape(value.shape[:-2] + (-1,)).all(-1)
        positive = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower & positive


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky factors with unit rows."""

    event_dim = 2

    def check(self, value):
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10
        norms = torch.linalg.norm(value.detach(), dim=-1)
        unit_rows = ((norms - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _Square(Constraint):
    """Matrices with as many rows as columns."""

    event_dim = 2

    def check(self, value):
        return torch.full(value.shape[:-2], value.shape[-2] == value.shape[-1],
                          dtype=torch.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (within an absolute 1e-6)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with non-negative eigenvalues."""

    def check(self, value):
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with positive eigenvalues (those with a Cholesky factor)."""

    def check(self, value):
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return torch.linalg.cholesky_ex(value).info.eq(0)
