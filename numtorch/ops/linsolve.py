"""Inverses, determinants and linear solvers: inv, det, slogdet, solve, triangular and Cholesky
solves, least squares, the pseudo-inverse and the matrix exponential.

Forward passes call NumPy's batched LAPACK wrappers through ``self.xp`` (SciPy's for triangular
solves and ``expm`` when it is installed); backward passes are numtorch ops, mostly further
solves, so second derivatives work.
"""

import contextlib
import math

import numpy as np

from .. import _dtype, return_types
from .._tensor import _make
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import Op, rename_node
from ._lautil import (
    LinAlgError, batch_prefix, check_float, check_matrix, check_square, check_tensor, conj, disp,
    expm_array, eye_like, first_failure, inv_array, lapack_layout, lapack_vectors,
    lu_factor_array, lu_transposed, lu_transposed_solve, mH, raising, scipy_linalg,
    singular_error, solve_triangular_array, square_float, swaps_to_permutation, to_numpy, tril,
    triu,
)
from ._pointwise import _out
from .comparison import where
from .unary import log

__all__ = ["inverse", "det", "logdet", "slogdet", "triangular_solve", "cholesky_solve",
           "cholesky_inverse", "matrix_exp"]


def _nie(kernel, t):
    return NotImplementedError(f'"{kernel}" not implemented for \'{disp(t)}\'')


def _xp_of(t):
    from ..backend import xp_of

    return xp_of(t._array)


# -- inverse, determinant -------------------------------------------------------------------------

def inv_noraise(xp, a):
    """Inverse through LU and substitution: singular matrices give inf/nan instead of raising."""
    lu_, piv, _ = lu_factor_array(xp, a)
    n = a.shape[-1]
    perm = swaps_to_permutation(xp, piv, n)
    # P^T A = L U, so A^-1 = U^-1 L^-1 P^T, and P^T is the identity with rows permuted
    pt = xp.eye(n, dtype=a.dtype)[perm]
    y = solve_triangular_array(xp, lu_, pt, upper=False, unit=True)
    with np.errstate(all="ignore"):
        return solve_triangular_array(xp, lu_, y, upper=True)


class Inverse(Op):
    """Y = A^-1; dA = -Y^H gY Y^H."""

    node_name = "LinalgInvExBackward0"  # torch's linalg kernel node

    def forward(self, a):
        try:
            y = inv_array(self.xp, a, raises=self.check)
        except np.linalg.LinAlgError:
            if self.check:
                raise singular_error(self.fn, a) from None
            y = lapack_layout(self.xp, inv_noraise(self.xp, a))
        if not y.size:  # inv_array's result is column-major already, an empty one aside
            y = lapack_layout(self.xp, y)
        return self.save_output(y)

    def backward(self, grad):
        yh = mH(self.saved_output())
        return -(yh @ grad @ yh)


def inverse_impl(A, fn="linalg.inv", check=True):
    """The checked inverse shared by ``torch.inverse`` and ``linalg.inv``."""
    square_float(fn, A)
    return Inverse.apply(A, fn=fn, check=check)


def inverse(input, *, out=None):
    """Inverse of square matrices (batched over leading dims).

    Raises:
        numtorch.linalg.LinAlgError: when a matrix is singular (names the zero pivot).

    Example:
        >>> torch.inverse(torch.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return _out(inverse_impl(input), out, exact=True)


def _lapack_operand(a):
    """The matrices torch's LU factors for det/slogdet: LAPACK reads memory column-major, so a
    row-major batch is factored as its transposes (det(A^T) = det(A), no copy); any other
    layout is copied column-major, A itself. Which one decides U's roundings: whether a
    nearly singular matrix gets an exact zero, and that zero's sign."""
    return a.swapaxes(-1, -2) if a.ndim >= 2 and a.flags.c_contiguous else a


def _torch_zero_signs(m, zero):
    """torch's signs for the exactly singular matrices of ``m`` (flat mask ``zero``): torch's
    det is U's diagonal from getrf's column steps times the row swaps' sign, so a zero is -0.
    where U's zero is -0. or an odd number of rows were swapped (``lu_factor_array`` rounds as
    torch's LAPACK does; NumPy's det and slogdet give +0.). Returns (flat indices, torch's
    products): a matrix NumPy's LU found singular and this one does not gets its tiny det."""
    n = m.shape[-1]
    which = np.flatnonzero(zero)
    lu_, piv, _ = lu_factor_array(np, m.reshape(-1, n, n)[which])
    odd = (piv != np.arange(n)).sum(-1) % 2 == 1
    prod = np.prod(lu_.diagonal(axis1=-2, axis2=-1), axis=-1) * np.where(odd, -1, 1).astype(
        m.dtype)
    return which, prod


def _has_zero(d):
    """Whether the host det(s) ``d`` (an array or a NumPy scalar) hold a zero; cheaper than
    .all()."""
    return np.count_nonzero(d) < d.size if type(d) is np.ndarray else d == 0


def _put(d, which, values):
    """``d`` (an array or a NumPy scalar) with its flat entries ``which`` replaced."""
    flat = np.array(d).reshape(-1)
    flat[which] = values
    return flat.reshape(np.shape(d)).astype(d.dtype, copy=False) if np.ndim(d) else \
        d.dtype.type(flat[0])


_LU_DET_MAX = 8  # the column steps below give torch's bits up to 16 x 16; 8 bounds their cost


def _lu_det(m):
    """det of the (..., n, n) float array ``m`` (torch's LAPACK operand) rounded as torch's: U's
    diagonal from right-looking column steps, multiplied in order, times the row swaps' sign.
    MKL scales a column by the pivot's reciprocal, except the next-to-last column of a matrix
    of 4 rows or fewer, which it divides (bit-identical on 300 random and 300 integer matrices
    of each n <= 16, float32 and float64; NumPy's det, exp of summed logs, matched 2-65% and
    printed an integral determinant as 18.0000)."""
    n = m.shape[-1]
    if m.ndim == 2:
        return _lu_det_one(m)
    lu = np.array(m.reshape((-1, n, n)), copy=True)
    rows = np.arange(lu.shape[0])
    odd = np.zeros(lu.shape[0], bool)
    for j in range(n - 1):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        odd ^= p != j
        swap = lu[rows, p]
        lu[rows, p] = lu[:, j]
        lu[:, j] = swap
        piv = lu[:, j, j]
        piv = np.where(piv == 0, lu.dtype.type(1), piv)[:, None]  # a zero pivot: column kept
        if j == n - 2 and n <= 4:
            lu[:, j + 1:, j] /= piv
        else:
            lu[:, j + 1:, j] *= 1 / piv
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    d = lu[:, 0, 0].copy()
    for j in range(1, n):
        d *= lu[:, j, j]
    d = np.where(odd, -d, d).reshape(m.shape[:-2])
    return d if d.ndim else d[()]


def _lu_det_one(m):
    """``_lu_det`` of one matrix in scalars: the same IEEE steps without an array call per
    step (a 3 x 3: 42 -> 9 us). Python floats are doubles; float32 steps use NumPy's float32
    scalars, which round each operation to single precision as the array kernel does."""
    n = m.shape[0]
    f = float if m.dtype == np.float64 else m.dtype.type
    lu = [[f(v) for v in row] for row in m.tolist()]
    one, sign = f(1), 1
    for j in range(n - 1):
        p = max(range(j, n), key=lambda i: abs(lu[i][j]))  # the first largest, as idamax
        if p != j:
            lu[p], lu[j], sign = lu[j], lu[p], -sign
        piv = lu[j][j] or one
        inv = None if (j == n - 2 and n <= 4) else one / piv
        urow = lu[j]
        for i in range(j + 1, n):
            row = lu[i]
            lij = row[j] / piv if inv is None else row[j] * inv
            row[j] = lij
            for k in range(j + 1, n):
                row[k] = row[k] - lij * urow[k]
    d = lu[0][0]
    for j in range(1, n):
        d = d * lu[j][j]
    return m.dtype.type(-d if sign < 0 else d)


class Det(Op):
    """d = det(A); dA = g conj(d) A^-H, the cofactor matrix (an SVD form for singular A)."""

    node_name = "LinalgDetBackward0"  # torch's linalg kernel node

    def forward(self, a):
        self.save_inputs(a)
        m = _lapack_operand(a)
        if type(m) is np.ndarray and m.dtype.char in "fd" and 0 < m.shape[-1] <= _LU_DET_MAX:
            return self.save_output(_lu_det(m))
        factored = _getrf_each(a)
        if factored is not None:
            d, lu_, piv = factored
            if self._recording:
                self._lu = (lu_, piv)  # for backward_arrays: the inverse from these factors
        else:
            d = self.xp.linalg.det(m)
        if type(m) is np.ndarray and m.dtype.kind == "f" and m.shape[-1] and _has_zero(d):
            d = _put(d, *_torch_zero_signs(m, np.reshape(d == 0, -1)))
        return self.save_output(d)

    def backward(self, grad):
        a = self.saved_inputs()
        d = self.saved_output()
        xp = self.xp
        zero = None
        if not is_grad_enabled():
            # torch's first-order rule (no create_graph): a matrix whose determinant is 0
            # (singular, or underflowed) gets a zero gradient; a differentiable backward
            # takes the SVD form below, the cofactor matrix, for every matrix
            zero = d._array == 0
            zero = zero if bool(zero.any()) else None
        scale = (grad * conj(d)).unsqueeze(-1).unsqueeze(-1)
        inv = Inverse.apply(a, fn="linalg.det", check=False)
        if _well_conditioned(xp, a._array, d._array, inv._array, zero):
            return _zero_where(xp, scale * mH(inv), zero)
        wide = _WIDER.get(a._array.dtype.char)
        if wide is not None:
            # single precision with a condition number above 1/sqrt(eps32) (most random
            # 128x128 matrices: 46 of 64): the inverse in double precision is accurate up to
            # 1/sqrt(eps64), and much cheaper than the SVD form (det forward and backward of
            # 64 x 128^2 on one thread: 172-186 -> 76 ms; torch 46)
            a2 = a.to(wide)
            inv2 = Inverse.apply(a2, fn="linalg.det", check=False)
            if _well_conditioned(xp, a2._array, d._array, inv2._array, zero):
                return _zero_where(xp, (scale.to(wide) * mH(inv2)).to(a.dtype), zero)
        return _zero_where(xp, grad.unsqueeze(-1).unsqueeze(-1) * _cofactor_svd(a), zero)

    def backward_arrays(self, g):
        """``backward``'s first-order rule for a real batch factored in ``forward``: the
        inverses from those LU factors (LAPACK getri), matrices with a zero determinant given a
        zero gradient; the rest goes to ``backward`` (NotImplemented)."""
        lu = self.__dict__.get("_lu")
        if lu is None:
            return NotImplemented
        a = self.saved_input_arrays()
        d = self.saved_output_array()
        cof = _cofactors_from_lu(a, d, g, *lu)
        return NotImplemented if cof is None else cof


_WIDER = {"f": _dtype.float64, "F": _dtype.complex128}  # single -> double precision


def _getrf_each(a):
    """(det, LU, pivots) of a real float CPU batch ``a`` (..., n, n) through SciPy's getrf, one
    call per matrix; None without SciPy or for other arrays. As torch, LAPACK factors the
    row-major matrices as their transposes (``_lapack_operand``): LU holds the factors of
    each A^T in place (column-major), and det = prod(diag U) times the swaps' sign, the
    product torch forms (NumPy's det exponentiates a sum of logarithms). Per matrix, NumPy's
    det took 8.2 ms for 64 x 128^2 float32 (one thread) and this 5.2."""
    sl = scipy_linalg(np)
    n = a.shape[-1]
    if sl is None or type(a) is not np.ndarray or a.dtype.char not in "fd" or not a.size or \
            not a.flags.c_contiguous:  # (other layouts: torch factors A itself)
        return None
    work = np.array(a.reshape(-1, n, n), order="C", copy=True)
    lu_ = work.swapaxes(-1, -2)  # each matrix A^T, Fortran-contiguous: factored in place
    getrf = sl.lapack.get_lapack_funcs(("getrf",), (work,))[0]
    piv = np.empty((work.shape[0], n), dtype=np.int64)
    for i in range(work.shape[0]):
        _, piv[i], _ = getrf(lu_[i], overwrite_a=True)
    odd = np.count_nonzero(piv != np.arange(n), axis=-1) % 2 == 1
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        d = np.prod(np.diagonal(lu_, axis1=-2, axis2=-1), axis=-1)
    d = np.where(odd, -d, d).astype(a.dtype, copy=False)
    return d.reshape(a.shape[:-2]), lu_, piv


def _cofactors_from_lu(a, d, g, lu_, piv):
    """g det(A) A^-T per matrix of the real batch ``a`` from its transposes' LU factors
    (``_getrf_each``): getri gives (A^T)^-1 = A^-T directly. A single-precision matrix with
    a 1-norm condition number above 1/sqrt(eps) is inverted again in double precision
    (``Det.backward``'s rule: accurate up to 1/sqrt(eps64)); None where that is not enough
    either (the SVD form) or an inverse fails."""
    sl = scipy_linalg(np)
    n = a.shape[-1]
    flat_a = a.reshape(-1, n, n)
    dt = a.dtype
    dflat = d.reshape(-1)
    gflat = np.broadcast_to(g, d.shape).reshape(-1)
    zero = dflat == 0
    getri = sl.lapack.get_lapack_funcs(("getri",), (lu_,))[0]
    inv = np.zeros(flat_a.shape, dtype=dt)
    for i in np.flatnonzero(~zero):
        inv[i], info = getri(lu_[i], piv[i])
        if info:
            return None
    with np.errstate(over="ignore", invalid="ignore"):
        scale = gflat * dflat  # torch's g det^*, rounded in the input's precision
        # cond_1(A) = |A|_1 |A^-1|_1, and A^-1's column sums are inv's row sums
        cond = np.abs(flat_a).sum(-2).max(-1) * np.abs(inv).sum(-1).max(-1)
        ill = ~zero & ~(cond * math.sqrt(float(np.finfo(dt).eps)) <= 1)
        out = inv
        out *= scale[:, None, None]
        out[zero] = 0
    if not ill.any():
        return out.reshape(a.shape)
    if dt != np.float32:
        return None
    which = np.flatnonzero(ill)
    wide = flat_a[which].astype(np.float64)
    try:
        inv64 = inv_array(np, wide.swapaxes(-1, -2))  # (A^T)^-1, in double precision
    except np.linalg.LinAlgError:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        cond = np.abs(wide).sum(-2).max(-1) * np.abs(inv64).sum(-1).max(-1)
        if not (cond * math.sqrt(float(np.finfo(np.float64).eps)) <= 1).all():
            return None
        out[which] = (scale[which].astype(np.float64)[:, None, None] * inv64).astype(dt)
    return out.reshape(a.shape)


def _zero_where(xp, cofactors, zero):
    """``cofactors`` with the matrices where ``zero`` (an array over the batch, or None)
    holds set to 0 (first-order backward only: no graph is recorded)."""
    if zero is None:
        return cofactors
    arr = cofactors._array
    return _make(xp.where(zero[..., None, None], arr.dtype.type(0), arr))


def _well_conditioned(xp, a, d, inv, skip=None):
    """Whether ``det(A) A^-1`` is an accurate cofactor matrix for every matrix of ``a`` (those
    where ``skip`` holds excepted): no zero determinant and a 1-norm condition number below
    1/sqrt(eps). Not only ``d == 0``: a GPU's LU (fused multiply-adds) can leave an exactly
    singular matrix a determinant of 1e-16 and a huge finite inverse, whose product is right
    to first order but whose derivative is rounding noise. The SVD form is exact for every
    matrix. One host synchronisation."""
    if a.size == 0:
        return True
    eps = float(np.finfo(a.real.dtype).eps)
    cond = xp.abs(a).sum(-2).max(-1) * xp.abs(inv).sum(-2).max(-1)
    ok = (d != 0) & (cond * math.sqrt(eps) <= 1)
    # a matrix with a NaN or inf: its inverse-based gradient is NaN, as torch's (the SVD
    # form would refuse it)
    ok |= ~xp.isfinite(a).all(axis=(-2, -1))
    if skip is not None:
        ok |= skip
    return bool(ok.all())


def _cofactor_svd(a):
    """det(A) A^-H without inverting A: U diag(prod_{j != i} s_j) V^H det(U V^H)^*."""
    from .decomp import svd_parts
    from .join import cat
    from .rearrange import flip

    u, s, vh = svd_parts(a, False, True)
    one = s[..., :1] * 0 + 1
    before = cat([one, s[..., :-1]], dim=-1).cumprod(-1)
    after = flip(cat([one, flip(s, [-1])[..., :-1]], dim=-1).cumprod(-1), [-1])
    phase = conj(Det.apply(u) * Det.apply(vh))
    return phase.unsqueeze(-1).unsqueeze(-1) * ((u * (before * after).unsqueeze(-2)) @ vh)


def det_impl(A, fn="linalg.det"):
    check_tensor(fn, A, "A")
    check_matrix(fn, A)
    check_square(fn, A)
    if A.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{disp(A)}")
    if A.dtype.itemsize == 2:
        raise _nie("lu_cpu", A)
    return Det.apply(A)


def det(input, *, out=None):
    """Determinant of square matrices.

    Example:
        >>> torch.det(torch.tensor([[2., 1.], [1., 3.]]))
        tensor(5.)
    """
    return _out(det_impl(input), out)


class SlogDet(Op):
    """(sign, log|det A|); d(log|det|)/dA = A^-H (real A: the sign is locally constant)."""

    node_name = "LinalgSlogdetBackward0"  # torch's linalg kernel node

    def forward(self, a):
        self.save_inputs(a)
        xp = self.xp
        m = _lapack_operand(a)
        sign, logabs = xp.linalg.slogdet(m)
        if a.dtype.kind != "c":
            sign = xp.where(xp.isnan(logabs), sign.dtype.type(0), sign)  # torch: no sign for NaN
            if type(m) is np.ndarray and m.shape[-1] and _has_zero(sign):
                which, prod = _torch_zero_signs(m, np.reshape((sign == 0) & (logabs == -np.inf),
                                                              -1))  # (not NaN's 0 sign)
                signs = np.nan_to_num(np.sign(prod))  # NaN input: torch's sign is 0.
                sign = _put(sign, which, np.where(prod == 0, prod, signs))
                with np.errstate(divide="ignore"):
                    logabs = _put(logabs, which, np.log(np.abs(prod)))
        return self.save_output(sign, 0), logabs

    def backward(self, gsign, glog):
        a = self.saved_inputs()
        inv_h = mH(Inverse.apply(a, fn="linalg.slogdet", check=False))
        if a._array.dtype.kind != "c":
            return glog.unsqueeze(-1).unsqueeze(-1) * inv_h
        # complex A: the sign turns with Im tr(A^-1 dA), so its cotangent adds i Im(s^* g_s)
        from ._lautil import imag, to_complex

        sign = self.saved_output(0)
        g = to_complex(glog, a._array.dtype) + 1j * to_complex(imag(conj(sign) * gsign),
                                                                a._array.dtype)
        return g.unsqueeze(-1).unsqueeze(-1) * inv_h


def slogdet_impl(A, fn):
    square_float(fn, A)
    return SlogDet.apply(A)


def slogdet(input, *, out=None):
    """Sign and natural log of the absolute value of the determinant.

    Returns:
        ``(sign, logabsdet)`` named tuple; ``sign`` is 0 and ``logabsdet`` is ``-inf`` for a
        singular matrix.

    Example:
        >>> torch.slogdet(torch.tensor([[2., 0.], [0., -3.]]))
        torch.return_types.slogdet(
        sign=tensor(-1.),
        logabsdet=tensor(1.7918))
    """
    return _out(return_types.slogdet(slogdet_impl(input, "linalg.slogdet")), out)


def logdet(input):
    """Natural log of the determinant: NaN where it is negative, ``-inf`` where it is 0.

    Example:
        >>> torch.logdet(torch.tensor([[2., 0.], [0., 3.]]))
        tensor(1.7918)
    """
    sign, logabs = slogdet_impl(input, "logdet")
    if input._array.dtype.kind == "c":
        return logabs + log(sign)
    return where(sign < 0, math.nan, logabs)


# -- general and triangular solves ----------------------------------------------------------------

class Solve(Op):
    """X = A^-1 B (B a batch of matrices); dB = A^-H gX, dA = -dB X^H.

    For matrices of 64 rows and more the forward keeps its LU factors (of ``A^T``, see
    ``lu_transposed``) and ``backward_arrays`` solves with ``A^H`` from them: one
    factorization per matrix for forward and backward, where ``xp.linalg.solve`` twice
    factored twice (and NumPy's stacked solve runs LAPACK about half as fast as SciPy's getrf).
    ``backward`` (for ``create_graph``) stays a differentiable solve.
    """

    node_name = "LinalgSolveExBackward0"  # torch's linalg kernel node
    vector = False  # a batch of vectors (..., n, 1): torch's layout for them differs

    def forward(self, a, b):
        x = self._solve(a, b)
        return self.save_output(lapack_vectors(self.xp, x) if self.vector
                                else lapack_layout(self.xp, x))

    def _solve(self, a, b):
        xp = self.xp
        self.save_inputs(a)
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        self.lu = None
        try:
            fac = lu_transposed(xp, a) if xp is np else None
            if fac is not None and not fac[2].any():
                self.lu = fac[:2]
                return lu_transposed_solve(fac[0], fac[1], b)
            with raising(xp) if self.check else contextlib.nullcontext():
                x = xp.linalg.solve(xp.broadcast_to(a, shape + a.shape[-2:]),
                                    xp.broadcast_to(b, shape + b.shape[-2:]))
        except np.linalg.LinAlgError:
            if not self.check:
                with np.errstate(all="ignore"):
                    return inv_noraise(xp, a) @ b
            an = to_numpy(xp.broadcast_to(a, shape + a.shape[-2:]))
            _, _, info = lu_factor_array(np, an)
            idx, _ = first_failure(info, shape)
            raise LinAlgError(f"torch.linalg.solve: {batch_prefix(shape, idx or 0)}The solver "
                              f"failed because the input matrix is singular.") from None
        return x

    def backward_arrays(self, grad):
        if self.lu is None:
            return tuple(None if g is None else g._array for g in self.backward(_make(grad)))
        gb = lu_transposed_solve(self.lu[0], self.lu[1], grad, adjoint=True)
        ga = None
        if self.needs_input_grad[0]:
            x = self.saved_output()._array
            ga = -_dtype.opmath_matmul(np, gb, np.conj(np.swapaxes(x, -1, -2)))
        return ga, gb

    def backward(self, grad):
        a = self.saved_inputs()
        x = self.saved_output()
        gb = Solve.apply(mH(a), grad, check=False)
        ga = -(gb @ mH(x)) if self.needs_input_grad[0] else None
        return ga, gb


def solve(A, B, *, left=True, check=True, fn="linalg.solve"):
    """Solve ``A X = B`` (or ``X A = B`` when ``left`` is False) with torch's vector rule:
    ``B`` is a batch of vectors when it is 1-D or has ``A``'s shape minus the last dim."""
    check_tensor(fn, A, "A")
    check_tensor(fn, B, "B")
    check_matrix(fn, A)
    check_square(fn, A)
    check_float(fn, A)
    check_same_dtype(fn, A, B)
    if A.dtype.itemsize == 2:
        raise _nie("lu_cpu", A)
    n = A.shape[-1]
    vector = B._array.ndim == 1 or (B._array.ndim == A._array.ndim - 1
                                    and tuple(B.shape) == tuple(A.shape[:-1]))
    b = B.unsqueeze(-1) if vector else B
    if b._array.ndim < 2 or b.shape[-2 if left else -1] != n:
        shape = "x".join(str(s) for s in (tuple(B.shape[-1:]) + (1,) if vector
                                          else tuple(b.shape[-2:])))
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {shape})")
    _broadcast_check(A.shape[:-2], b.shape[:-2])
    if left:
        x = Solve.apply(A, b, check=check, vector=vector)
    else:
        x = mH(Solve.apply(mH(A), mH(b), check=check))
    return x.squeeze(-1) if vector else x


def check_same_dtype(fn, A, B):
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{disp(A)} and B of type {disp(B)} instead")


def _broadcast_check(sa, sb):
    """The broadcast of A's batch shape ``sa`` and B's ``sb``; torch's error when they clash
    (B is its tensor a, the first clash from the right is named)."""
    try:
        return np.broadcast_shapes(tuple(sa), tuple(sb))
    except ValueError:
        from .cast import copy_shape_error

        raise copy_shape_error(tuple(sb), tuple(sa)) from None


class TriangularSolve(Op):
    """X = A^-1 B (left) or B A^-1 for triangular A; dB = A^-H gX (or gX A^-H) and
    dA = -dB X^H (or -X^H dB) restricted to A's triangle (strict if unit diagonal)."""

    node_name = "LinalgSolveTriangularBackward0"  # torch's linalg kernel node

    def forward(self, a, b):
        xp = self.xp
        self.save_inputs(a)
        if self.left:
            x = solve_triangular_array(xp, a, b, self.upper, self.unit)
        else:  # X A = B  <=>  A^T X^T = B^T
            at = xp.swapaxes(a, -1, -2)
            x = xp.swapaxes(solve_triangular_array(xp, at, xp.swapaxes(b, -1, -2),
                                                   not self.upper, self.unit), -1, -2)
        return self.save_output(lapack_layout(xp, x.astype(a.dtype, copy=False)))

    def backward(self, grad):
        a = self.saved_inputs()
        x = self.saved_output()
        gb = TriangularSolve.apply(mH(a), grad, upper=not self.upper, left=self.left,
                                   unit=self.unit)
        ga = None
        if self.needs_input_grad[0]:
            ga = -(gb @ mH(x)) if self.left else -(mH(x) @ gb)
            k = 1 if self.unit else 0
            ga = triu(ga, k) if self.upper else tril(ga, -k)
        return ga, gb


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """Differentiable triangular solve with no argument checks (used inside backward passes)."""
    return TriangularSolve.apply(A, B, upper=upper, left=left, unit=unitriangular)


def solve_triangular_checked(A, B, upper, left, unitriangular, fn="linalg.solve_triangular"):
    """``linalg.solve_triangular`` with torch's checks."""
    check_tensor(fn, A, "A")
    check_tensor(fn, B, "B")
    if B._array.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    check_matrix(fn, A)
    check_square(fn, A)
    if A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        raise _nie("triangular_solve_cpu", A)
    if B.dtype is not A.dtype:
        B = B.to(A.dtype)
    n = A.shape[-1]
    if B.shape[-2 if left else -1] != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    _broadcast_check(A.shape[:-2], B.shape[:-2])
    return solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _check_b_a(fn_kernel, b, A, what):
    """The checks torch.triangular_solve and cholesky_solve share."""
    if A.dtype._category < _dtype._FLOAT or A.dtype.itemsize == 2:
        raise _nie(fn_kernel, A)
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{disp(b)} and A of type {disp(A)} instead.")
    if A._array.ndim < 2:
        raise RuntimeError(f"A should have at least 2 dimensions, but has {A._array.ndim} "
                           f"dimensions instead")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} "
                           f"matrices")
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {what}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    _broadcast_check(A.shape[:-2], b.shape[:-2])


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Solve ``A X = b`` for triangular ``A`` (the old interface of
    :func:`numtorch.linalg.solve_triangular`).

    Args:
        b (Tensor): right-hand sides ``(*, m, k)``.
        A (Tensor): triangular matrices ``(*, m, m)``; only the ``upper`` (or lower) triangle
            is read.
        upper (bool): whether ``A`` is upper triangular. Default: True.
        transpose (bool): solve ``A^T X = b`` instead. Default: False.
        unitriangular (bool): take ``A``'s diagonal to be ones. Default: False.

    Returns:
        ``(solution, cloned_coefficient)``: ``X`` and a copy of ``A``.

    Example:
        >>> torch.triangular_solve(torch.tensor([[2.], [4.]]),
        ...                        torch.tensor([[2., 0.], [0., 4.]])).solution
        tensor([[1.],
                [1.]])
    """
    check_tensor("triangular_solve", b, "input")
    check_tensor("triangular_solve", A, "A")
    if b._array.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b._array.ndim} dimensions instead")
    _check_b_a("triangular_solve_cpu", b, A, "triangular_solve")
    from .._warn_once import warn_once  # (torch warns once its checks have passed)

    warn_once("triangular_solve", "torch.triangular_solve is deprecated in favor of "
              "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
              "torch.linalg.solve_triangular has its arguments reversed and does not return a "
              "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be "
              "replaced with\nX = torch.linalg.solve_triangular(A, B).", UserWarning,
              stacklevel=2)
    coef = A.mT if transpose else A
    x = solve_triangular(coef, b, upper=upper != transpose, unitriangular=unitriangular)
    x = rename_node(x, "TriangularSolveBackward0")
    return _out(return_types.triangular_solve((x, _broadcast_clone(A, x))), out, exact=True)


def _broadcast_clone(A, x):
    """A copy of ``A`` broadcast to the batch shape of the solution ``x`` (as torch returns)."""
    shape = tuple(x.shape[:-2]) + tuple(A.shape[-2:])
    # a column-major copy, as LAPACK's working copy is
    full = A.expand(*shape) if tuple(A.shape) != shape else A
    from .. import contiguous_format

    return full.mT.clone(memory_format=contiguous_format).mT


# -- Cholesky-based solves ------------------------------------------------------------------------

def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solve ``A X = B`` given the Cholesky factor ``L`` of ``A`` (``A = L L^H``).

    Args:
        input (Tensor): right-hand sides ``B`` of shape ``(*, n, k)``.
        input2 (Tensor): Cholesky factors ``(*, n, n)``, lower (or upper when ``upper``).
        upper (bool): ``input2`` is upper triangular with ``A = U^H U``. Default: False.

    Example:
        >>> L = torch.tensor([[2., 0.], [1., 1.]])
        >>> torch.cholesky_solve(torch.tensor([[6.], [4.]]), L)
        tensor([[1.],
                [1.]])
    """
    check_tensor("cholesky_solve", input, "input")
    check_tensor("cholesky_solve", input2, "input2")
    if input._array.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input._array.ndim} "
                           f"dimensions instead")
    _check_b_a("cholesky_solve_cpu", input, input2, "cholesky_solve")
    return _out(CholeskySolve.apply(input, mH(input2) if upper else input2), out,
                castable="cholesky_solve")


class CholeskySolve(Op):
    """X = (L L^H)^-1 B; dB = (L L^H)^-1 gX, dL = -(dB X^H + X dB^H) L.

    Only L's lower triangle is read, but like torch the derivative takes L as the full matrix
    of ``A = L L^H`` (its upper part gets a gradient too).
    """

    def forward(self, b, low):
        xp = self.xp
        self.save_inputs(low)
        y = solve_triangular_array(xp, low, b, upper=False)
        x = solve_triangular_array(xp, xp.conj(xp.swapaxes(low, -1, -2)), y, upper=True)
        return self.save_output(lapack_layout(xp, x.astype(low.dtype, copy=False)))

    def backward(self, grad):
        low = self.saved_inputs()
        x = self.saved_output()
        gb = CholeskySolve.apply(grad, low)
        gl = None
        if self.needs_input_grad[1]:
            sym = gb @ mH(x)
            gl = -((sym + mH(sym)) @ low)
        return gb, gl


def _check_factor_diagonal(factor):
    """torch's error for a triangular factor with a zero on its diagonal (a singular A)."""
    arr = factor._array
    n = arr.shape[-1]
    if arr.size == 0:
        return
    zero = to_numpy(arr.diagonal(axis1=-2, axis2=-1) == 0).reshape(-1, n)
    rows = np.flatnonzero(zero.any(axis=1))
    if rows.size:
        b = int(rows[0])
        i = int(np.argmax(zero[b])) + 1
        raise LinAlgError(f"cholesky_inverse: {batch_prefix(arr.shape[:-2], b)}The diagonal "
                          f"element {i} is zero, the inversion could not be completed because "
                          f"the input matrix is singular.")


def cholesky_inverse(input, upper=False, *, out=None):
    """Inverse of ``A`` from its Cholesky factor: ``(L L^H)^-1`` (or ``(U^H U)^-1``).

    Example:
        >>> torch.cholesky_inverse(torch.tensor([[2., 0.], [0., 1.]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    check_tensor("cholesky_inverse", input, "input")
    check_matrix("cholesky_inverse", input)
    check_square("cholesky_inverse", input)
    if input.dtype._category < _dtype._FLOAT or input.dtype.itemsize == 2:
        raise _nie("cholesky_inverse_out_cpu", input)
    _check_factor_diagonal(input)
    eye = eye_like(input)
    if input._array.ndim > 2:
        eye = eye.expand(*input.shape)
    r = CholeskySolve.apply(eye, mH(input) if upper else input)
    return _out(rename_node(r, "CholeskyInverseBackward0"), out, castable="cholesky_inverse")


# -- matrix exponential ---------------------------------------------------------------------------

class MatrixExp(Op):
    """Y = exp(A); dA = the top-right block of exp([[A^H, G], [0, A^H]])."""

    node_name = "LinalgMatrixExpBackward0"  # torch's linalg kernel node

    def forward(self, a):
        self.save_inputs(a)
        if a.dtype == np.float16:  # computed in float32, as torch's CPU kernel does
            return expm_array(self.xp, a.astype(np.float32)).astype(np.float16)
        return expm_array(self.xp, a)

    def backward(self, grad):
        from .join import cat

        a = self.saved_inputs()
        n = a.shape[-1]
        ah = mH(a)
        zero = ah * 0
        big = cat([cat([ah, grad], dim=-1), cat([zero, ah], dim=-1)], dim=-2)
        return MatrixExp.apply(big)[..., :n, n:]


def matrix_exp_impl(A, fn="linalg.matrix_exp"):
    check_tensor(fn, A, "A")
    check_matrix(fn, A)
    check_square(fn, A)
    check_float(fn, A, half_ok=True)
    return MatrixExp.apply(A)


def matrix_exp(A):
    """Matrix exponential ``sum_k A^k / k!`` of square matrices.

    Example:
        >>> torch.matrix_exp(torch.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return matrix_exp_impl(A)
