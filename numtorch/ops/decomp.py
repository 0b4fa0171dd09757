"""Matrix factorizations: Cholesky, QR (and its Householder form), SVD, symmetric and general
eigendecomposition. (LU is in lu_decomp.py.)

Each factorization is one ``Op`` whose forward calls NumPy's batched LAPACK wrappers (through
``self.xp``) and whose backward is written with numtorch ops, so second derivatives work.
Where an output's cotangent is identically zero and takes no part in a graph, backward treats
it as absent, as torch does for undefined gradients; this skips the terms that divide by
eigenvalue or singular-value gaps, which are infinite for repeated values.

The public functions here are torch's top-level names (``torch.svd``, ``torch.qr``, ...);
``numtorch.linalg`` wraps the same ops under the modern names.
"""

import numpy as np

from .. import _dtype, return_types
from .._tensor import _make
from ..autograd.graph import Op, rename_node
from ..backend import xp_of
from ._lautil import (
    LinAlgError, check_float, check_matrix, check_square, check_tensor, confirm_on_host, conj,
    diag_embed, diagonal, disp, eye_like, lapack_layout, mH, not_pd_error, raising, real,
    relayout, row_major, to_complex, to_numpy, tril,
)
from ._lautil import eigh as eigh_arrays
from ._pointwise import _out
from .comparison import where

__all__ = ["cholesky", "qr", "svd", "geqrf", "orgqr", "ormqr"]


def _absent(g):
    """True for a cotangent that is all zeros and not part of a graph (torch's undefined)."""
    return not g.requires_grad and not g._array.any()


def _not_implemented_dtype(kernel, t):
    return NotImplementedError(f'"{kernel}" not implemented for \'{disp(t)}\'')


# -- Cholesky -------------------------------------------------------------------------------------

class Cholesky(Op):
    """L = chol(A), A = L L^H; dA = L^-H Phi L^-1, Phi = sym(tril(L^H gL)) (Murray 2016)."""

    rows = False  # the factor of the transposed input, handed back transposed (upper=True)

    def node_name(node):  # a rule of the recorded node (called as a plain function)
        return "CholeskyBackward0" if node.fn == "cholesky" else "LinalgCholeskyExBackward0"

    def forward(self, a):
        xp = self.xp
        # column-major L (torch's layout) at no copy: the upper factor of A^T read from its
        # upper triangle (A's lower one) is L^T, row-major. With ``rows`` (the upper factor is
        # this one's conjugate transpose) L itself is row-major.
        flip = xp is np and not self.rows
        try:
            with raising(xp):
                if flip:
                    out = xp.linalg.cholesky(a.swapaxes(-1, -2), upper=True).swapaxes(-1, -2)
                else:
                    out = xp.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise not_pd_error(self.fn, a) from None
        if not xp.isfinite(out).all() and not xp.isfinite(a).all():
            raise not_pd_error(self.fn, a)
        out = row_major(xp, out) if self.rows else lapack_layout(xp, out)
        return self.save_output(out)

    def backward(self, grad):
        from .linsolve import solve_triangular

        low = self.saved_output()
        phi = tril(mH(low) @ grad)
        # the gradient of a Hermitian input: Phi's lower triangle halved on the diagonal and
        # mirrored above it
        phi = 0.5 * (phi + mH(tril(phi, -1)))
        g = solve_triangular(mH(low), phi, upper=True, left=True)
        return solve_triangular(low, g, upper=False, left=False)


def cholesky_factor(input, upper, fn):
    """The Cholesky factor (lower, or upper = the conjugate transpose of the lower factor of
    the conjugate transpose, so the upper triangle is what is read)."""
    if upper:  # one node in torch, the factor's
        u = mH(Cholesky.apply(mH(input), fn=fn, rows=True))
        return rename_node(u, "CholeskyBackward0" if fn == "cholesky" else
                           "LinalgCholeskyExBackward0")
    return Cholesky.apply(input, fn=fn)


def cholesky(input, upper=False, *, out=None):
    """Cholesky factor of symmetric (Hermitian) positive-definite matrices.

    Args:
        input (Tensor): ``(*, n, n)`` matrices; only the lower triangle is read (the upper one
            when ``upper=True``).
        upper (bool): return upper triangular ``U`` with ``A = U^H U`` instead of lower ``L``
            with ``A = L L^H``. Default: False.

    Raises:
        numtorch.linalg.LinAlgError: when a matrix is not positive-definite.

    Example:
        >>> torch.cholesky(torch.tensor([[4., 2.], [2., 5.]]))
        tensor([[2., 0.],
                [1., 2.]])

    Note:
        Deprecated in torch in favour of :func:`numtorch.linalg.cholesky`.
    """
    check_tensor("cholesky", input, "input")
    from .._warn_once import warn_once

    warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and "
              "will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
              "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
              "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
              "transform will produce equivalent results for all valid (symmetric positive "
              "definite) inputs.", UserWarning, stacklevel=2)
    check_matrix("cholesky", input)
    check_square("cholesky", input)
    if input.dtype._category < _dtype._FLOAT or input.dtype.itemsize == 2:
        raise _not_implemented_dtype("cholesky_cpu", input)
    res = cholesky_factor(input, upper, "cholesky")
    if not input._array.size:  # torch's deprecated spelling returns an empty input row-major
        res = relayout(res, False)
    return _out(res, out)


# -- symmetric / Hermitian eigendecomposition -----------------------------------------------------

class Eigh(Op):
    """A = V diag(L) V^H; dA = V (diag(gL) + skew(V^H gV) / (L_j - L_i)) V^H."""

    node_name = "LinalgEighBackward0"  # torch's linalg kernel node

    def forward(self, a):
        if not (self.vectors or self._recording):
            return eigh_arrays(self.xp, a, self.uplo, vectors=False)
        w, v = eigh_arrays(self.xp, a, self.uplo)
        return self.save_output(w, 0), self.save_output(lapack_layout(self.xp, v), 1)

    def backward(self, gl, gv):
        w, v = self.saved_output(0), self.saved_output(1)
        vh = mH(v)
        if _absent(gv):
            return (v * gl.unsqueeze(-2)) @ vh
        vhgv = vh @ gv
        if vhgv._array.dtype.kind == "c":  # a loss must not depend on the vectors' phases
            d = diagonal(vhgv)._array
            if d.size and float(self.xp.abs(d.imag).max()) > 1e-2 * max(
                    1.0, float(self.xp.abs(d).max())):
                raise RuntimeError("linalg_eigh_backward: The eigenvectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this quantity, so it is "
                                   "ill-defined.")
        skew = 0.5 * (vhgv - mH(vhgv))
        gaps = w.unsqueeze(-2) - w.unsqueeze(-1) + eye_like(v)
        on_diag = _make(self.xp.eye(v.shape[-1], dtype=bool))
        inner = where(on_diag, diag_embed(gl).to(skew.dtype), skew / gaps)
        return v @ inner @ vh


def eigh(input, UPLO="L", vectors=True, fn="linalg.eigh"):
    """Eigenvalues (ascending) and eigenvectors of symmetric/Hermitian matrices (see
    :func:`numtorch.linalg.eigh`); ``vectors=False`` returns only the eigenvalues."""
    check_tensor(fn, input, "input")
    check_matrix("linalg.eigh", input)
    check_square("linalg.eigh", input)
    if input.dtype._category < _dtype._FLOAT or input.dtype.itemsize == 2:
        raise _not_implemented_dtype("linalg_eigh_cpu", input)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    res = Eigh.apply(input, uplo=UPLO, vectors=vectors, fn="linalg.eigh")
    if not vectors:
        return res[0] if isinstance(res, tuple) else res
    return return_types.linalg_eigh(res)


# -- general eigendecomposition -------------------------------------------------------------------

class Eig(Op):
    """A V = V diag(L) (complex); dA = V^-H (diag(gL) + P(V^H gV) / conj(L_j - L_i)) V^H,
    where P removes the part that rescales unit-norm columns; real inputs take the real part."""

    node_name = "LinalgEigBackward0"  # torch's linalg kernel node

    def forward(self, a):
        xp = self.xp
        if not xp.isfinite(a).all():
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
        cdt = np.result_type(a.dtype, np.complex64)
        self.real_input = a.dtype.kind != "c"
        # array libraries without a general eigensolver (CuPy) compute it on the host
        lib = xp if hasattr(xp.linalg, "eig") else np
        host = a if lib is xp else to_numpy(a)
        if self.vectors or self._recording:
            w, v = lib.linalg.eig(host)
            w, v = xp.asarray(w.astype(cdt, copy=False)), xp.asarray(v.astype(cdt, copy=False))
            return self.save_output(w, 0), self.save_output(lapack_layout(xp, v), 1)
        return xp.asarray(lib.linalg.eigvals(host).astype(cdt, copy=False))

    def backward(self, gl, gv):
        from .linsolve import solve

        w, v = self.saved_output(0), self.saved_output(1)
        vh = mH(v)
        eye = _make(self.xp.eye(v.shape[-1], dtype=bool))
        if _absent(gv):
            inner = diag_embed(gl)
        else:
            vhgv = vh @ gv
            d = diagonal(vhgv)
            if d._array.size and float(self.xp.abs(d._array.imag).max()) > 1e-2 * max(
                    1.0, float(self.xp.abs(d._array).max())):
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this quantity, so it is "
                                   "ill-defined.")
            vhgv = vhgv - vh @ (v * to_complex(real(d), v._array.dtype).unsqueeze(-2))
            wc = conj(w)
            gaps = wc.unsqueeze(-2) - wc.unsqueeze(-1) + eye_like(v)
            inner = vhgv / gaps
            if not _absent(gl):
                inner = where(eye, diag_embed(gl), inner)
        ga = solve(vh, inner @ vh)
        return real(ga) if self.real_input else ga


def _eig_checks(fn, input):
    check_tensor(fn, input, "input")
    check_matrix(fn, input)
    check_square(fn, input)
    if input.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"Unknown Complex ScalarType for {disp(input)}")
    if input.dtype.itemsize == 2:
        raise _not_implemented_dtype("linalg_eig_out_cpu", input)


def eig(input, vectors=True, fn="linalg.eig"):
    """Complex eigenvalues and eigenvectors of square matrices (see
    :func:`numtorch.linalg.eig`); ``vectors=False`` returns only the eigenvalues."""
    _eig_checks(fn, input)
    res = Eig.apply(input, vectors=vectors)
    if not vectors:
        return res[0] if isinstance(res, tuple) else res
    return res


# -- singular value decomposition -----------------------------------------------------------------

class SVD(Op):
    """A = U diag(S) Vh; dA from the standard formulas (gaps S_j^2 - S_i^2 in the denominators;
    extra terms for the non-square part of U or V)."""

    node_name = "LinalgSvdBackward0"  # torch's linalg kernel node

    def forward(self, a):
        xp = self.xp
        try:
            with raising(xp):
                if self.compute_uv or self._recording:
                    u, s, vh = xp.linalg.svd(a, full_matrices=self.full_matrices)
                else:
                    u = vh = None
                    s = xp.linalg.svd(a, compute_uv=False)
            confirm_on_host(a, s, lambda h: np.linalg.svd(h, compute_uv=False))
            if u is None:
                return s
            u, vh = lapack_layout(xp, u), lapack_layout(xp, vh)
            return self.save_output(u, 0), self.save_output(s, 1), self.save_output(vh, 2)
        except np.linalg.LinAlgError:
            raise LinAlgError(f"{self.fn}: The algorithm failed to converge because the input "
                              f"matrix contained non-finite values.") from None

    def backward(self, gu, gs, gvh):
        u, s, vh = (self.saved_output(i) for i in range(3))
        m, n = u.shape[-2], vh.shape[-1]
        k = min(m, n)
        if self.full_matrices:
            u, gu, vh, gvh = u[..., :k], gu[..., :k], vh[..., :k, :], gvh[..., :k, :]
        has_u, has_v = not _absent(gu), not _absent(gvh)
        if not has_u and not has_v:
            return (u * gs.unsqueeze(-2).to(u.dtype)) @ vh
        is_complex = u.dtype.is_complex
        s2 = s * s
        gaps = s2.unsqueeze(-2) - s2.unsqueeze(-1) + eye_like(s.unsqueeze(-1), k)
        if has_u:
            uhgu = u.mH @ gu
            j = uhgu - uhgu.mH
        if has_v:
            vhgv = vh @ gvh.mH
            kk = vhgv - vhgv.mH
        if has_u and has_v:
            inner = (j * s.unsqueeze(-2) + s.unsqueeze(-1) * kk) / gaps
        elif has_u:
            inner = (j / gaps) * s.unsqueeze(-2)
        else:
            inner = s.unsqueeze(-1) * (kk / gaps)
        if is_complex:
            inner = inner + diag_embed(self._phase_term(s, uhgu if has_u else None,
                                                         vhgv if has_v else None)
                                       - inner.diagonal(0, -2, -1))
        inner = inner + diag_embed(gs)
        if m > n and has_u:
            gus = gu / s.unsqueeze(-2)
            return (u @ inner + gus - u @ (u.mH @ gus)) @ vh
        if m < n and has_v:
            sgv = gvh / s.unsqueeze(-1)
            return u @ (inner @ vh + sgv - (sgv @ vh.mH) @ vh)
        return u @ inner @ vh

    @staticmethod
    def _phase_term(s, uhgu, vhgv):
        """The diagonal of complex SVD's inner gradient: i Im(diag(U^H gU)) / S. The vectors
        are defined up to a phase e^{i phi} per column (the same for U's and V's), so a loss
        is well defined only if Im(diag(U^H gU)) = -Im(diag(V^H gV)) (torch's check)."""
        from .. import ops

        im_u = ops.imag(uhgu.diagonal(0, -2, -1)) if uhgu is not None else ops.zeros_like(s)
        im_v = ops.imag(vhgv.diagonal(0, -2, -1)) if vhgv is not None else ops.zeros_like(s)
        if not ops.allclose(im_u.detach(), -im_v.detach(), rtol=1e-2, atol=1e-2):
            raise RuntimeError("svd_backward: The singular vectors in the complex case are "
                               "specified up to multiplication by e^{i phi}. The specified loss "
                               "function depends on this phase term, making it ill-defined.")
        return ops.complex(ops.zeros_like(s), im_u / s) if uhgu is not None else \
            ops.complex(ops.zeros_like(s), -im_v / s)


def _svd_checks(fn, input):
    check_tensor(fn, input, "input")
    check_matrix("linalg.svd", input)
    check_float("linalg.svd", input, half_ok=True)
    if input.dtype.itemsize == 2:
        raise _not_implemented_dtype("linalg_svd_cpu", input)


def svd_parts(input, full_matrices=True, compute_uv=True):
    """(U, S, Vh) of ``input`` (U and Vh are None when ``compute_uv`` is False)."""
    res = SVD.apply(input, full_matrices=full_matrices, compute_uv=compute_uv, fn="linalg.svd")
    if not compute_uv:
        return None, (res[1] if isinstance(res, tuple) else res), None
    return res


def svd(input, some=True, compute_uv=True, *, out=None):
    """Singular value decomposition ``input = U diag(S) V^H``, returned as ``(U, S, V)``.

    Args:
        input (Tensor): ``(*, m, n)`` matrices.
        some (bool): reduced factors (``U`` is ``m x k``, ``V`` is ``n x k``, ``k = min(m,
            n)``) when True, square ones when False. Default: True.
        compute_uv (bool): when False, ``U`` and ``V`` are zero-filled square matrices and
            only ``S`` is computed (as in torch). Default: True.

    Returns:
        ``(U, S, V)`` named tuple; note ``V``, not ``V^H`` (see :func:`numtorch.linalg.svd`).

    Example:
        >>> U, S, V = torch.svd(torch.tensor([[3., 0.], [0., -2.]]))
        >>> S
        tensor([3., 2.])
    """
    _svd_checks("svd", input)
    if not compute_uv:
        _, s, _ = svd_parts(input, False, False)
        xp = xp_of(input._array)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        u = _make(xp.zeros(batch + (m, m), dtype=input._array.dtype))
        v = _make(xp.zeros(batch + (n, n), dtype=input._array.dtype))
        return _out(return_types.svd((u, s, v)), out)
    u, s, vh = svd_parts(input, not some, True)
    return _out(return_types.svd((u, s, mH(vh))), out)


# -- QR -------------------------------------------------------------------------------------------

class QR(Op):
    """A = Q R; dA = [gQ + Q copyltu(M)] R^-H, M = R gR^H - gQ^H Q (square or tall part;
    a wide A splits into a square block and the rest)."""

    node_name = "LinalgQrBackward0"  # torch's linalg kernel node

    def forward(self, a):
        xp = self.xp
        self.shape = a.shape
        if self.mode == "r":
            r = xp.linalg.qr(a, mode="r")
            return xp.zeros((0,), dtype=a.dtype), lapack_layout(xp, r)
        q, r = xp.linalg.qr(a, mode=self.mode)
        q, r = lapack_layout(xp, q), lapack_layout(xp, r)
        return self.save_output(q, 0), self.save_output(r, 1)

    def backward(self, gq, gr):
        m, n = self.shape[-2:]
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        q, r = self.saved_output(0), self.saved_output(1)
        if m >= n:
            return _qr_square_backward(q, r, gq, gr)
        from .join import cat

        y = q @ r[..., m:]
        gv = gr[..., m:]
        gx = _qr_square_backward(q, r[..., :m], gq + y @ mH(gv), gr[..., :m])
        return cat([gx, q @ gv], dim=-1)


def _qr_square_backward(q, r, gq, gr):
    """dA for A = Q R with Q m x n (m >= n) and R n x n."""
    from .linsolve import solve_triangular

    m = r @ mH(gr) - mH(gq) @ q
    low = tril(m, -1)
    c = low + mH(low) + diag_embed(real(diagonal(m)).to(m.dtype))
    return solve_triangular(mH(r), gq + q @ c, upper=False, left=False)


def qr_parts(input, mode, fn):
    """(Q, R) of ``input`` for linalg.qr's modes."""
    check_tensor(fn, input, "A")
    check_matrix("linalg.qr", input)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    check_float("linalg.qr", input, half_ok=True)
    if input.dtype.itemsize == 2:
        raise _not_implemented_dtype("geqrf_cpu", input)
    return QR.apply(input, mode=mode)


def qr(input, some=True, *, out=None):
    """QR decomposition ``input = Q R`` with orthonormal ``Q`` and upper triangular ``R``.

    Args:
        input (Tensor): ``(*, m, n)`` matrices.
        some (bool): the reduced decomposition (``Q`` is ``m x k``) when True, the complete
            one (``Q`` is ``m x m``) when False. Default: True.

    Example:
        >>> Q, R = torch.qr(torch.tensor([[3., 1.], [4., 2.]]))
        >>> R.abs()
        tensor([[5.0000, 2.2000],
                [0.0000, 0.4000]])

    Note:
        Deprecated in torch in favour of :func:`numtorch.linalg.qr`.
    """
    from .._warn_once import warn_once

    warn_once("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in "
              "a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
              "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
              "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning,
              stacklevel=2)
    q, r = qr_parts(input, "reduced" if some else "complete", "qr")
    return _out(return_types.qr((q, r)), out)


# -- Householder form -----------------------------------------------------------------------------

class Geqrf(Op):
    """(a, tau) = LAPACK geqrf(A): R above the diagonal, Householder vectors below.
    No derivative (as in torch)."""

    def forward(self, a):
        xp = self.xp
        m, n = a.shape[-2:]
        if min(m, n) == 0:
            return lapack_layout(xp, xp.array(a, copy=True)), xp.zeros(a.shape[:-2] + (0,),
                                                                        dtype=a.dtype)
        h, tau = xp.linalg.qr(a, mode="raw")  # h: the factors transposed, Fortran's layout
        return lapack_layout(xp, xp.swapaxes(h, -1, -2)), tau

    def backward(self, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input, *, out=None):
    """QR decomposition in LAPACK's compact (Householder) form.

    Returns ``(a, tau)``: ``a`` holds ``R`` on and above its diagonal and the Householder
    vectors (with implicit unit leading entries) below it; ``tau`` the reflector scales.
    :func:`orgqr` (``linalg.householder_product``) rebuilds ``Q`` from them.

    Example:
        >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
        >>> a[0, 0].abs()
        tensor(5.)
    """
    check_tensor("geqrf", input, "input")
    if input._array.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_float("geqrf", input)
    return _out(return_types.geqrf(Geqrf.apply(input)), out)


def householder_product(input, tau, fn="linalg.householder_product"):
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``
    (``v_i``: column ``i`` of ``input`` below the diagonal with a unit leading entry).

    Built from differentiable ops (one rank-1 update per reflector), so it is differentiable
    in ``input`` and ``tau``.
    """
    check_tensor(fn, input, "input")
    check_tensor(fn, tau, "tau")
    pre = "torch.linalg.householder_product"  # torch's prefix for orgqr too
    if input._array.ndim < 2:
        raise RuntimeError(f"{pre}: input must have at least 2 dimensions.")
    m, n = input.shape[-2:]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError(f"{pre}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{pre}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]")
    if tau.dtype is not input.dtype:
        raise RuntimeError(f"{pre}: tau dtype {disp(tau)} does not match "
                           f"input dtype {disp(input)}")
    vecs = _reflectors(input, k)
    q = eye_like(input, m)[:, :n]
    for i in range(k - 1, -1, -1):  # apply H_k first so each step is a rank-1 update of Q
        v = vecs[..., :, i:i + 1]
        q = q - (tau[..., i:i + 1].unsqueeze(-1) * v) @ (mH(v) @ q)
    return relayout(q)


def _reflectors(input, k):
    """The Householder vectors as columns: strict lower part of ``input`` plus unit diagonal."""
    m = input.shape[-2]
    low = tril(input[..., :, :k], -1)
    return low + eye_like(input, m)[:, :k]


def orgqr(input, tau):
    """Alias of :func:`numtorch.linalg.householder_product` (LAPACK's name).

    Example:
        >>> a, tau = torch.geqrf(torch.eye(2))
        >>> torch.orgqr(a, tau).abs()
        tensor([[1., 0.],
                [0., 1.]])
    """
    return householder_product(input, tau, fn="orgqr")


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """Multiply ``other`` by the ``m x m`` matrix ``Q`` of a Householder representation.

    Computes ``op(Q) @ other`` (``left=True``) or ``other @ op(Q)``, with ``op(Q) = Q^H``
    when ``transpose`` is True. ``(input, tau)`` is what :func:`geqrf` returns.

    Example:
        >>> a, tau = torch.geqrf(torch.eye(2))
        >>> torch.ormqr(a, tau, torch.ones(2, 1)).abs()
        tensor([[1.],
                [1.]])
    """
    check_tensor("ormqr", input, "input")
    m = input.shape[-2]
    k = tau.shape[-1]
    if other.shape[-2 if left else -1] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to "
                           f"input.shape[-2]")
    vecs = _reflectors(input, k)
    x = other
    # Q = H_1 ... H_k: Q x applies H_k first; Q^H x applies H_1 first (and mirrored on the right)
    first_last = (left and not transpose) or (not left and transpose)
    order = range(k - 1, -1, -1) if first_last else range(k)
    for i in order:
        v = vecs[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        t = conj(t) if transpose else t
        if left:
            x = x - (t * v) @ (mH(v) @ x)
        else:
            x = x - (x @ v) @ (t * mH(v))
    return _out(relayout(x), out)
