"""Least squares and the pseudo-inverse: linalg.lstsq and linalg.pinv (torch.pinverse).

Both are computed through the SVD; their gradients come from the Golub-Pereyra formula for
the derivative of the pseudo-inverse, written with numtorch ops.
"""

import numpy as np

from .. import _dtype, return_types
from .._tensor import _make
from ..autograd.graph import Op
from ._lautil import check_tensor, disp, eigh, lapack_layout, mH, svd
from .unary import abs as abs_

__all__ = ["pinverse"]


def _xp_of(t):
    from ..backend import xp_of

    return xp_of(t._array)


def _pinv_vjp(a, p, gp):
    """dA for P = pinv(A): -P^H gP P^H + (I - A P) gP^H P P^H + P^H P gP^H (I - P A)."""
    ph = mH(p)
    gph = mH(gp)
    t1 = -(ph @ gp @ ph)
    pph = p @ ph
    t2 = gph @ pph - a @ (p @ (gph @ pph))
    php = ph @ p
    t3 = php @ gph - ((php @ gph) @ p) @ a
    return t1 + t2 + t3


class Pinv(Op):
    """P = A^+ (SVD, or eigh when hermitian, cutting values at max(atol, rtol * max)); dA by the
    Golub-Pereyra formula in A and P."""

    node_name = "LinalgPinvBackward0"  # torch's linalg kernel node

    def forward(self, a, atol, rtol):
        xp = self.xp
        self.save_inputs(a)
        m, n = a.shape[-2:]
        if min(m, n) == 0:
            return self.save_output(xp.zeros(a.shape[:-2] + (n, m), dtype=a.dtype))
        if self.hermitian:
            w, v = eigh(xp, a)
            absw = xp.abs(w)
            cut = xp.maximum(atol[..., None], rtol[..., None] * absw.max(-1, keepdims=True))
            winv = xp.where(absw > cut, 1 / xp.where(absw > cut, w, 1), 0).astype(w.dtype)
            p = (v * winv[..., None, :]) @ xp.conj(xp.swapaxes(v, -1, -2))
        else:
            u, s, vh = svd(xp, a, full_matrices=False)
            cut = xp.maximum(atol[..., None], rtol[..., None] * s[..., :1])
            sinv = xp.where(s > cut, 1 / xp.where(s > cut, s, 1), 0).astype(s.dtype)
            p = xp.conj(xp.swapaxes(vh, -1, -2)) * sinv[..., None, :] @ xp.conj(
                xp.swapaxes(u, -1, -2))
        return self.save_output(p.astype(a.dtype, copy=False))

    def backward(self, grad):
        a = self.saved_inputs()
        return _pinv_vjp(a, self.saved_output(), grad), None, None


def _tol_array(xp, value, dtype, batch):
    """atol/rtol as an array broadcast over the batch (a float or a Tensor)."""
    arr = value._array if hasattr(value, "_array") else xp.asarray(value)
    return xp.broadcast_to(xp.asarray(arr, dtype=np.dtype(dtype).type(0).real.dtype), batch)


def pinv_impl(A, atol=None, rtol=None, hermitian=False, fn="linalg.pinv"):
    """The pseudo-inverse with linalg.pinv's tolerance rules."""
    check_tensor(fn, A, "input")
    if A._array.ndim < 2 or A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        shape = ", ".join(str(s) for s in A.shape)
        raise RuntimeError(f"linalg.pinv({disp(A)}{{[{shape}]}}): expected a tensor with 2 or "
                           f"more dimensions of float, double, cfloat or cdouble types")
    xp = _xp_of(A)
    m, n = A.shape[-2:]
    if hermitian and m != n:  # (torch's check in the eigendecomposition it takes)
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")
    real_dt = A._array.real.dtype
    if rtol is None:
        rtol = 0.0 if (atol is not None and not _is_zero(atol)) else (
            float(np.finfo(real_dt).eps) * max(m, n))
    if atol is None:
        atol = 0.0
    batch = tuple(A.shape[:-2])
    at = _tol_array(xp, atol, real_dt, batch)
    rt = _tol_array(xp, rtol, real_dt, batch)
    return Pinv.apply(A, _make(at), _make(rt), hermitian=hermitian)


def _is_zero(v):
    return (not hasattr(v, "_array")) and v == 0


def pinverse(input, rcond=1e-15):
    """Moore-Penrose pseudo-inverse (singular values below ``rcond * max`` are dropped).

    Example:
        >>> torch.pinverse(torch.tensor([[2., 0.], [0., 0.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    return pinv_impl(input, rtol=rcond)


def _lapack_rows(xp, x, m):
    """``x`` (..., n, k) as the first n rows of a column-major (..., max(m, n), k) block: LAPACK
    solves in place in the right-hand sides' buffer, and torch hands back that view."""
    n, k = x.shape[-2:]
    rows = max(m, n)
    buf = xp.empty(x.shape[:-2] + (k, rows), dtype=x.dtype)
    buf = lapack_layout(xp, xp.swapaxes(buf, -1, -2))
    buf[..., :n, :] = x
    return buf[..., :n, :]


class Lstsq(Op):
    """X = A^+ B through the SVD (the minimum-norm least-squares solution); the gradients are
    those of pinv(A) @ B, as in torch."""

    node_name = "LinalgLstsqBackward0"  # torch's linalg kernel node

    def forward(self, a, b):
        xp = self.xp
        self.save_inputs(a, b)
        m, n = a.shape[-2:]
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, shape + a.shape[-2:])
        b = xp.broadcast_to(b, shape + b.shape[-2:])
        if min(m, n) == 0:
            self.rank = xp.zeros(shape, dtype=xp.int64)
            self.sv = xp.zeros(shape + (0,), dtype=a.real.dtype)
            return _lapack_rows(xp, xp.zeros(shape + (n, b.shape[-1]), dtype=a.dtype), m)
        u, s, vh = svd(xp, a, full_matrices=False)
        keep = s > self.rcond * s[..., :1]
        self.rank = xp.asarray(keep.sum(-1), dtype=xp.int64)
        self.sv = s
        sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
        uhb = xp.conj(xp.swapaxes(u, -1, -2)) @ b
        return _lapack_rows(xp, xp.conj(xp.swapaxes(vh, -1, -2)) @ (sinv[..., None] * uhb), m)

    def backward(self, grad):
        a, b = self.saved_inputs()
        p = pinv_impl(a)
        ga = _pinv_vjp(a, p, grad @ mH(b)) if self.needs_input_grad[0] else None
        gb = mH(p) @ grad if self.needs_input_grad[1] else None
        return ga, gb


def lstsq_impl(A, B, rcond=None, driver=None, fn="torch.linalg.lstsq"):
    """``linalg.lstsq``: (solution, residuals, rank, singular_values) with torch's rules for
    which fields each driver fills."""
    check_tensor(fn, A, "input")
    check_tensor(fn, B, "other")
    if A._array.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {disp(A)} and other's dtype {disp(B)}")
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    driver = driver or "gelsy"
    if driver not in drivers:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of "
                           f"({', '.join(drivers)})")
    vector = B._array.ndim == A._array.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    if b._array.ndim < 2 or b.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2:]
    if rcond is None:
        rcond = float(np.finfo(A._array.real.dtype).eps) * max(m, n)
    try:
        x = Lstsq.apply(A, b, rcond=rcond)
    except ValueError:
        try:
            np.broadcast_shapes(A.shape[:-2], b.shape[:-2])
        except ValueError:
            from .cast import copy_shape_error  # torch's text (A is its tensor a)

            raise copy_shape_error(tuple(A.shape[:-2]), tuple(b.shape[:-2])) from None
        raise
    node = x.grad_fn
    rank_arr, sv_arr = _lstsq_extras(A, b, rcond, x, node)
    xp = _xp_of(A)
    real_dt = A._array.real.dtype
    empty = _make(xp.zeros((0,), dtype=real_dt))
    full_rank = bool((rank_arr == min(m, n)).all()) if rank_arr is not None else True
    if driver != "gelsy" and m > n and full_rank:
        r = abs_(A @ x - b)
        residuals = (r * r).sum(-2)
    else:  # empty, but an output of the graph like torch's
        residuals = abs_(x.reshape(-1)[:0])
    rank = _make(rank_arr) if driver != "gels" else _make(xp.zeros((0,), dtype=xp.int64))
    sv = _make(sv_arr) if driver in ("gelsd", "gelss") else empty
    sol = x.squeeze(-1) if vector else x
    return return_types.linalg_lstsq((sol, residuals, rank, sv))


def _lstsq_extras(A, b, rcond, x, node):
    """Rank and singular values from the forward pass (recomputed when no node was kept)."""
    if node is not None and hasattr(node, "rank"):
        return node.rank, node.sv
    probe = Lstsq.__new__(Lstsq)
    probe.xp = _xp_of(A)
    probe.rcond = rcond
    probe._recording = False
    probe.forward(A._array, b._array)
    return probe.rank, probe.sv
