"""Shared pieces of the linear-algebra ops (decomp.py, linsolve.py, products.py, numtorch.linalg).

* ``LinAlgError`` and the argument checks, with torch's wording;
* small differentiable helpers built from primitive ops (triangles, diagonals, the conjugate
  transpose), so every backward that uses them can itself be differentiated;
* array-level fallbacks (LU with partial pivoting, triangular substitution, the matrix
  exponential) used when SciPy is missing or the arrays live on a GPU.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, is_device_array, to_host
from ._util import contiguous_strides, restride

__all__ = ["LinAlgError"]

_SVD_FAILED = ("linalg.svd: The algorithm failed to converge because the input matrix "
               "contained non-finite values.")


class _LinAlgError(RuntimeError):
    """Raised when a matrix function fails because of the values of its input (a singular
    matrix in ``inv``/``solve``, a matrix that is not positive-definite in ``cholesky``).

    A subclass of RuntimeError, as ``torch.linalg.LinAlgError`` is. Its name and module are
    torch's (``torch._C._LinAlgError``, torch's ``_C`` being numtorch itself), so tracebacks,
    ``type(e).__name__`` and pickles read as torch's do.
    """


_LinAlgError.__module__ = "numtorch"
LinAlgError = _LinAlgError  # torch.linalg.LinAlgError


# -- argument checks ------------------------------------------------------------------------------

def disp(t):
    """torch's display name of a tensor's dtype ("Float", "Double", "Long", ...)."""
    return _dtype._TYPE_DISPLAY[t.dtype.name]


def check_tensor(fn, t, name="A"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def check_float(fn, t, name="input", half_ok=False):
    """torch's dtype check of the matrix functions: float32/float64/complex only."""
    if t.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as {name}. "
                           f"Got {disp(t)}")
    if t.dtype is _dtype.float16 and not half_ok:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {disp(t)}")


def check_matrix(fn, t, name="A"):
    if t._array.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")


def check_square(fn, t, name="A"):
    check_matrix(fn, t, name)
    m, n = t._array.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")


def check_same_dtype(fn, a, b, an="A", bn="B"):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{fn}: Expected {an} and {bn} to have the same dtype, but found "
                           f"{an} of type {disp(a)} and {bn} of type {disp(b)} instead")


def square_float(fn, t, name="A"):
    """The usual checks for a function of square float matrices, in torch's order."""
    check_tensor(fn, t, name)
    check_matrix(fn, t, name)
    check_square(fn, t, name)
    check_float(fn, t)


def batch_prefix(batch_shape, flat_index):
    """torch's "(Batch element i): " prefix when the input is a batch of matrices."""
    if len(batch_shape) == 0:
        return ""
    return f"(Batch element {int(flat_index)}): "


def first_failure(info, batch_shape):
    """The flat index of the first nonzero ``info`` entry (or None) and its value."""
    flat = np.asarray(to_host(info)).reshape(-1)  # the solver's status codes, on the host
    bad = np.flatnonzero(flat)
    if bad.size == 0:
        return None, 0
    return int(bad[0]), int(flat[bad[0]])


def to_numpy(arr):
    """A NumPy copy of ``arr`` for the (slow, rare) error diagnostics."""
    return arr if type(arr) is np.ndarray else arr.get()


def singular_error(fn, a):
    """LinAlgError for ``inv``-style failures: name the first zero pivot, as LAPACK does."""
    a = to_numpy(a)
    _, _, info = lu_factor_array(np, a)
    idx, k = first_failure(info, a.shape[:-2])
    if idx is None:  # LAPACK and our LU disagreed on an exact zero: fall back to the last one
        idx, k = 0, a.shape[-1]
    return LinAlgError(f"{fn}: {batch_prefix(a.shape[:-2], idx)}The diagonal element {k} is "
                       f"zero, the inversion could not be completed because the input matrix "
                       f"is singular.")


def not_pd_error(fn, a, upper=False):
    """LinAlgError for a failed Cholesky factorization, naming the failing leading minor."""
    a = to_numpy(a)
    if upper:
        a = np.conj(np.swapaxes(a, -1, -2))
    _, info = cholesky_partial(np, a)
    idx, k = first_failure(info, a.shape[:-2])
    if idx is None:
        idx, k = 0, a.shape[-1]
    return LinAlgError(f"{fn}: {batch_prefix(a.shape[:-2], idx)}The factorization could not be "
                       f"completed because the input is not positive-definite (the leading "
                       f"minor of order {k} is not positive-definite).")


# -- differentiable helpers (compositions of primitive ops) ---------------------------------------

def tril(x, k=0):
    """The lower triangle (``j - i <= k``) of the matrices in ``x``, zeros elsewhere."""
    return Triangle.apply(x, k=k, upper=False)


def triu(x, k=0):
    """The upper triangle (``j - i >= k``) of the matrices in ``x``, zeros elsewhere."""
    return Triangle.apply(x, k=k, upper=True)


class Triangle(Op):
    """y = triu(x, k) or tril(x, k); dx = the same triangle of g (a linear projection)."""

    def forward(self, x):
        out = self.xp.triu(x, self.k) if self.upper else self.xp.tril(x, self.k)
        # torch's kernel writes a fresh row-major result whatever the input's strides
        return out if out.flags.c_contiguous else self.xp.ascontiguousarray(out)

    def backward(self, grad):
        return Triangle.apply(grad, k=self.k, upper=self.upper)


def diagonal(x):
    """The main diagonals of the matrices in ``x``, shape ``(..., min(m, n))``."""
    from ._einsum import einsum

    m, n = x._array.shape[-2:]
    if m != n:
        k = min(m, n)
        x = x[..., :k, :k]
    return einsum("...ii->...i", x)


def diag_embed(v):
    """Square matrices with ``v`` on their diagonals (differentiable)."""
    return DiagEmbed.apply(v)


class DiagEmbed(Op):
    """y = matrices with diagonal v; dv = the diagonal of g."""

    def forward(self, v):
        n = v.shape[-1]
        out = self.xp.zeros(v.shape + (n,), dtype=v.dtype)
        idx = self.xp.arange(n)
        out[..., idx, idx] = v
        return out

    def backward(self, grad):
        return diagonal(grad)


def eye_like(x, n=None):
    """An ``n`` by ``n`` identity of ``x``'s dtype and device (no grad)."""
    xp = _xp(x)
    n = x._array.shape[-1] if n is None else n
    return _make(xp.eye(n, dtype=x._array.dtype))


def conj(x):
    """Complex conjugate (the tensor itself for real dtypes)."""
    if x._array.dtype.kind != "c":
        return x
    return Conj.apply(x)


def mH(x):
    """The conjugate transpose of the matrices in ``x``."""
    return conj(x).mT


def real(x):
    """The real part of a complex tensor (differentiable); real tensors pass through."""
    if x._array.dtype.kind != "c":
        return x
    return Real.apply(x)


def imag(x):
    """The imaginary part of a complex tensor (differentiable)."""
    return Imag.apply(x)


def to_complex(x, dtype):
    """Cast a real tensor to the complex dtype ``dtype`` (a NumPy dtype), differentiably."""
    if x._array.dtype == dtype:
        return x
    return ToComplex.apply(x, dtype=dtype)


class Conj(Op):
    """y = conj(x); dx = conj(g)."""

    def forward(self, x):
        return self.xp.conj(x)

    def backward(self, grad):
        return conj(grad)


class Real(Op):
    """y = Re(x) for complex x; dx = g (as a complex tensor)."""

    def forward(self, x):
        self.cdtype = x.dtype
        return x.real.copy()

    def backward(self, grad):
        return to_complex(grad, self.cdtype)


class Imag(Op):
    """y = Im(x) for complex x; dx = i g (torch's convention for complex gradients)."""

    def forward(self, x):
        self.cdtype = x.dtype
        return x.imag.copy()

    def backward(self, grad):
        return to_complex(grad, self.cdtype) * 1j


class ToComplex(Op):
    """y = x + 0j; dx = Re(g)."""

    def forward(self, x):
        return x.astype(self.dtype)

    def backward(self, grad):
        return real(grad)


def _xp(t):
    from ..backend import xp_of

    a = t._array
    return np if type(a) is np.ndarray else xp_of(a)


def scipy_linalg(xp):
    """``scipy.linalg`` for NumPy arrays when SciPy is installed, else None."""
    get = getattr(helpers_for(xp), "scipy_linalg", None)
    return get() if get is not None else None


# -- array-level algorithms (fallbacks and error diagnostics) -------------------------------------

def lu_factor_array(xp, a):
    """LU with partial pivoting of (..., m, n) arrays, LAPACK getrf's conventions.

    Returns ``(lu, piv, info)``: ``lu`` packs unit-lower L below the diagonal and U on and
    above it, ``piv`` holds 0-based row swaps (row i was swapped with row piv[i]), and
    ``info`` is the 1-based index of the first exactly-zero pivot (0 if none). The loop runs
    over columns; each step is one vectorised update over the whole batch.
    """
    lu = xp.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    nb = math.prod(batch)  # (an explicit count: -1 is ambiguous for empty matrices)
    lu = lu.reshape((nb, m, n))
    piv = xp.zeros((nb, k), dtype=xp.int64)
    info = xp.zeros(nb, dtype=xp.int32)
    rows = xp.arange(nb)
    for j in range(k):
        p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = p
        swap = lu[rows, p].copy()
        lu[rows, p] = lu[:, j]
        lu[:, j] = swap
        d = lu[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        safe = xp.where(zero, 1, d)
        # a zero pivot leaves its column unscaled, as LAPACK does
        lu[:, j + 1:, j] = xp.where(zero[:, None], lu[:, j + 1:, j], lu[:, j + 1:, j] /
                                    safe[:, None])
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(batch + (m, n)), piv.reshape(batch + (k,)), info.reshape(batch)


def lu_transposed(xp, a):
    """LAPACK's LU of every ``A^T`` in ``a`` (..., n, n), for solves that reuse it, or None
    where it does not pay (no SciPy, a GPU array, n < 64, an empty batch).

    Why ``A^T``: a C-ordered matrix is its transpose in Fortran order, so getrf gets every
    matrix without a transposing copy, and getrs's ``trans`` option solves with ``A`` (or,
    through conjugates, ``A^H``). One getrf per matrix: for n >= 64 its O(n^3) work dwarfs the
    Python call, and NumPy has no batched LU to call instead.

    Returns:
        ``(lu, piv, info)``: factors and 0-based pivots per matrix (batch shape kept), and
        getrf's ``info`` (> 0 where a matrix is exactly singular).
    """
    sl = scipy_linalg(xp)
    n = a.shape[-1]
    if sl is None or n < 64 or a.size == 0 or a.dtype.kind not in "fc":
        return None
    from .._threads import fit_blas_threads

    fit_blas_threads()
    getrf = sl.lapack.get_lapack_funcs("getrf", (a,))
    flat = a.reshape(-1, n, n)
    lu = np.empty(flat.shape, dtype=a.dtype)
    piv = np.empty(flat.shape[:2], dtype=np.int32)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for i in range(flat.shape[0]):
        f, p, info[i] = getrf(flat[i].T)
        lu[i], piv[i] = f.T, p
    batch = a.shape[:-2]
    return lu.reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def lu_transposed_solve(lu, piv, b, adjoint=False):
    """Solve ``A X = B`` (``A^H X = B`` when ``adjoint``) for every matrix of the broadcast
    batch, from :func:`lu_transposed`'s factors of ``A^T``; ``b`` is (..., n, k)."""
    sl = scipy_linalg(np)
    getrs = sl.lapack.get_lapack_funcs("getrs", (lu, b))
    n = lu.shape[-1]
    shape = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu_b = np.broadcast_to(lu, shape + (n, n)).reshape(-1, n, n)
    piv_b = np.broadcast_to(piv, shape + (n,)).reshape(-1, n)
    rhs = np.broadcast_to(b, shape + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    # A = M^T for the factored M: A X = B is getrs with 'T'; A^H = conj(M), so A^H X = B is
    # M conj(X) = conj(B), getrs without transposition
    cplx = lu.dtype.kind == "c"
    if adjoint and cplx:
        rhs = rhs.conj()
    # column-major, as getrs writes it
    out = np.empty(rhs.shape[:-2] + rhs.shape[:-3:-1],
                   dtype=np.result_type(lu.dtype, b.dtype)).swapaxes(-1, -2)
    trans = 0 if adjoint else 1
    for i in range(out.shape[0]):
        out[i] = getrs(lu_b[i].T, piv_b[i], rhs[i], trans=trans)[0]
    if adjoint and cplx:
        np.conjugate(out, out=out)
    return out.reshape(shape + b.shape[-2:])


def swaps_to_permutation(xp, piv, m):
    """Row order after LAPACK's swaps: ``perm[..., i]`` is the row of A that is row i of
    ``P^T A``, from 0-based swaps ``piv`` (row i exchanged with row piv[i], in order)."""
    k = piv.shape[-1]
    batch = piv.shape[:-1]
    nb = math.prod(batch)
    flat = piv.reshape(nb, k)
    if nb < k:  # few large matrices: plain Python swaps are cheapest
        host = to_numpy(flat).tolist()
        out = []
        for swaps in host:
            perm = list(range(m))
            for i, p in enumerate(swaps):
                perm[i], perm[p] = perm[p], perm[i]
            out.append(perm)
        perm = xp.asarray(np.array(out, dtype=np.int64).reshape(nb, m))
    else:  # many small matrices: one vectorised step per swap
        perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()
        rows = xp.arange(nb)
        for i in range(k):
            p = flat[:, i]
            a, b = perm[:, i].copy(), perm[rows, p].copy()
            perm[:, i], perm[rows, p] = b, a
    return perm.reshape(batch + (m,))


def cholesky_partial(xp, a):
    """Left-looking Cholesky of the lower triangles of (..., n, n) arrays, as LAPACK potf2.

    Returns ``(L, info)``. Where a leading minor of order k is not positive-definite,
    ``info`` is k, L holds the columns finished so far, the failed pivot on the diagonal and
    the input's lower triangle elsewhere (what LAPACK leaves behind).
    """
    n = a.shape[-1]
    batch = a.shape[:-2]
    low = xp.tril(xp.array(a, copy=True)).reshape((-1, n, n))
    info = xp.zeros(low.shape[0], dtype=xp.int32)
    for j in range(n):
        active = info == 0
        row = low[:, j, :j]
        ajj = low[:, j, j] - xp.real(xp.sum(row * xp.conj(row), axis=-1))
        fail = active & ~(xp.real(ajj) > 0)
        info = xp.where(fail, j + 1, info)
        ok = active & ~fail
        d = xp.sqrt(xp.where(ok, ajj, 1))
        low[:, j, j] = xp.where(ok, d, xp.where(fail, ajj, low[:, j, j]))
        col = low[:, j + 1:, j]
        if j:
            col = col - (low[:, j + 1:, :j] @ xp.conj(row)[..., None])[..., 0]
        low[:, j + 1:, j] = xp.where(ok[:, None], col / d[:, None], low[:, j + 1:, j])
    return low.reshape(batch + (n, n)), info.reshape(batch)


def inv_array(xp, a, raises=True):
    """Inverse of (..., n, n) arrays; raises ``numpy.linalg.LinAlgError`` if one is singular
    (on a GPU only with ``raises``: otherwise the check's synchronisation is skipped and a
    singular matrix gives inf/NaN).

    For n >= 32 LAPACK's getrf + getri (through SciPy, one call pair per matrix) is several
    times faster than NumPy's ``inv``, which solves against the identity; NumPy's batched
    call wins for small matrices.
    """
    sl = scipy_linalg(xp)
    n = a.shape[-1]
    if sl is None or n < 32 or a.size == 0:
        # inv(A^T)^T = inv(A): the batched call's row-major result read transposed is
        # LAPACK's column-major layout (torch's), with no copy
        at = a.swapaxes(-1, -2)
        if not raises:
            return xp.linalg.inv(at).swapaxes(-1, -2)
        with raising(xp):
            return xp.linalg.inv(at).swapaxes(-1, -2)
    getrf, getri = sl.lapack.get_lapack_funcs(("getrf", "getri"), (a,))
    flat = a.reshape(-1, n, n)
    out = np.empty(flat.shape, dtype=flat.dtype).swapaxes(-1, -2)  # getri's Fortran order
    for i in range(flat.shape[0]):
        lu_, piv, info = getrf(flat[i])
        if info > 0:
            raise np.linalg.LinAlgError("Singular matrix")
        out[i], info = getri(lu_, piv)
    return out.reshape(a.shape)


def solve_triangular_array(xp, a, b, upper, unit=False):
    """Solve A X = B for triangular A (only its ``upper``/lower triangle is read).

    Large matrices go to SciPy's trsm when it is installed. Otherwise a lower triangular
    system becomes an upper one by reversing the order of its rows and columns; the LU
    factorization of an upper triangular matrix needs no row exchanges and subtracts only
    zeros, so the batched ``xp.linalg.solve`` then does exactly back substitution, for the whole
    batch in one call. A zero on the diagonal (where LU gives up) falls back to substitution
    row by row, which gives inf/nan as torch's solver does.
    """
    n = a.shape[-1]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dt = np.result_type(a.dtype, b.dtype)
    if a.size == 0 or b.size == 0:
        return xp.zeros(shape + (n, b.shape[-1]), dtype=dt)
    sl = scipy_linalg(xp)
    if sl is not None and n >= 64:
        # large matrices: LAPACK's trsm costs O(n^2 k) against the O(n^3) of an LU, which
        # outweighs SciPy's Python loop over the batch
        try:
            with np.errstate(all="ignore"):
                x = sl.solve_triangular(np.broadcast_to(a, shape + (n, n)),
                                        np.broadcast_to(b, shape + b.shape[-2:]),
                                        lower=not upper, unit_diagonal=unit, check_finite=False)
            return x.astype(dt, copy=False)
        except np.linalg.LinAlgError:
            pass  # a zero on the diagonal: substitution below gives torch's inf/nan
    m = xp.triu(a) if upper else xp.tril(a)
    if unit:
        m = xp.where(xp.eye(n, dtype=bool), xp.ones((), dtype=m.dtype), m)
    if not upper:
        m, b = m[..., ::-1, ::-1], b[..., ::-1, :]
    try:
        x = xp.linalg.solve(xp.broadcast_to(m, shape + (n, n)),
                            xp.broadcast_to(b, shape + b.shape[-2:]))
    except np.linalg.LinAlgError:
        x = _back_substitution(xp, m, b, shape)
    if not upper:  # undo the reversal in a fresh array: tensors never have negative strides
        x = lapack_layout(xp, x[..., ::-1, :])
    return x.astype(dt, copy=False)


def _back_substitution(xp, u, b, shape):
    """Solve U X = B for upper triangular U one row at a time, vectorised over the batch."""
    n = u.shape[-1]
    x = xp.array(xp.broadcast_to(b, shape + b.shape[-2:]), copy=True)
    with np.errstate(all="ignore"):
        for i in range(n - 1, -1, -1):
            acc = xp.matmul(u[..., i:i + 1, i + 1:], x[..., i + 1:, :])
            x[..., i:i + 1, :] = (x[..., i:i + 1, :] - acc) / u[..., i:i + 1, i:i + 1]
    return x


# Pade(13) coefficients of exp (Higham, "The scaling and squaring method for the matrix
# exponential revisited", 2005) and the 1-norm bound below which no scaling is needed
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def expm_array(xp, a):
    """exp of (..., n, n) arrays: SciPy when present, else Pade(13) with scaling and squaring."""
    sl = scipy_linalg(xp)
    if sl is not None and a.size:
        return sl.expm(a).astype(a.dtype, copy=False)
    if a.size == 0:
        return xp.array(a, copy=True)
    n = a.shape[-1]
    norm1 = xp.abs(a).sum(axis=-2).max(axis=-1)
    s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm1, 1e-300) / _THETA13))).astype(int)
    x = a / (2.0 ** s)[..., None, None].astype(a.real.dtype)
    b = _PADE13
    ident = xp.broadcast_to(xp.eye(n, dtype=a.dtype), a.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4
             + b[3] * x2 + b[1] * ident)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 \
        + b[0] * ident
    r = xp.linalg.solve(v - u, v + u)
    for k in range(int(s.max()) if s.size else 0):
        r = xp.where((k < s)[..., None, None], r @ r, r)
    return r


def svd(xp, a, **kwargs):
    """``xp.linalg.svd(a, **kwargs)`` with torch's error for non-finite input (every torch
    function built on the SVD reports it as ``linalg.svd``)."""
    try:
        with raising(xp):
            out = xp.linalg.svd(a, **kwargs)
        confirm_on_host(a, out[1] if kwargs.get("compute_uv", True) else out,
                        lambda h: np.linalg.svd(h, compute_uv=False))
        return out
    except np.linalg.LinAlgError:
        raise LinAlgError(_SVD_FAILED) from None


def eigh(xp, a, uplo="L", vectors=True):
    """``xp.linalg.eigh`` (``eigvalsh`` without ``vectors``) with torch's error where the
    solver fails (NaN input); every torch function built on it reports ``linalg.eigh``."""
    try:
        with raising(xp):
            out = xp.linalg.eigh(a, UPLO=uplo) if vectors else xp.linalg.eigvalsh(a, UPLO=uplo)
        confirm_on_host(a, out[0] if vectors else out,
                        lambda h: np.linalg.eigvalsh(h, UPLO=uplo))
        return tuple(out) if vectors else out
    except np.linalg.LinAlgError:
        raise LinAlgError(f"linalg.eigh: The algorithm failed to converge because the input "
                          f"matrix is ill-conditioned or has too many repeated eigenvalues "
                          f"(error code: {a.shape[-1] - 1}).") from None


def raising(xp):
    """A context in which ``xp.linalg`` raises ``numpy.linalg.LinAlgError`` where the solver
    reports a failure (a singular or not positive-definite matrix, no convergence), as NumPy
    always does; on a GPU reading the solvers' status codes costs one host synchronisation.
    The caller then diagnoses the failure on a host copy, so messages are the CPU's."""
    return helpers_for(xp).linalg_raises()


def confirm_on_host(a, values, host_run):
    """On a GPU, where the factorization of ``a`` gave non-finite ``values`` (eigenvalues,
    singular values) without a reported failure, run ``host_run`` on a host copy of ``a``:
    the CPU's LAPACK then raises ``numpy.linalg.LinAlgError`` where it fails (NaN input), so
    both devices raise for the same inputs. One host synchronisation; nothing on the CPU."""
    if is_device_array(a) and values.size and not bool(_xp_arr(values).isfinite(values).all()):
        host_run(to_numpy(a))


def _xp_arr(a):
    from ..backend import xp_of

    return xp_of(a)


# -- result layouts -------------------------------------------------------------------------------
# torch hands back what LAPACK wrote: every matrix column-major, batches row-major around them
# (a (2, 3, 3) result has strides (9, 1, 3)). The layout shows through stride(), view(),
# .numpy() and the *_like factories (which keep strides and fill in memory order), so the
# LAPACK-backed ops give their results the same layout.

def lapack_layout(xp, a):
    """``a`` with column-major matrices and row-major batches, exactly torch's strides
    (size-1 and size-0 dims included); no copy where ``a`` already is laid out so."""
    if a.ndim < 2 or not hasattr(a, "flags"):
        return a
    t = a.swapaxes(-1, -2)
    if t.flags.c_contiguous:
        if a.size and 1 not in a.shape:
            return a  # a dense C-ordered block's strides are determined: torch's
    elif a.size:
        return xp.ascontiguousarray(t).swapaxes(-1, -2)  # NumPy's fresh strides are torch's
    return row_major(xp, t).swapaxes(-1, -2)


def row_major(xp, a):
    """``a`` row-major with torch's strides (a copy only where it is not already)."""
    if not hasattr(a, "flags"):
        return a
    if a.flags.c_contiguous and a.size and 1 not in a.shape:
        return a
    want = tuple(s * a.itemsize for s in contiguous_strides(a.shape))
    if a.strides != want:
        if not a.flags.c_contiguous:
            a = xp.ascontiguousarray(a)
        a = restride(xp, a, want)
    return a


def lapack_vectors(xp, x):
    """The layout of a batched vector solve's (..., n, 1) result: torch solves the batch as one
    column-major (batch, n) block, so the vectors' last batch dim is the fastest."""
    if x.ndim < 3:
        return lapack_layout(xp, x)
    return lapack_layout(xp, x[..., 0])[..., None]


class Relayout(Op):
    """y = x laid out as torch's kernel leaves it (``column`` major matrices or row-major);
    dx = g. For results built from several ops whose torch kernel is one LAPACK call."""

    def forward(self, x):
        return lapack_layout(self.xp, x) if self.column else row_major(self.xp, x)

    def backward(self, grad):
        return grad


def relayout(t, column=True):
    """``t`` with LAPACK's column-major (or row-major) layout; the node keeps ``t``'s name."""
    fn = t._grad_fn
    out = Relayout.apply(t, column=column)
    if fn is not None and out._grad_fn is not None:
        rename_node(out, type(fn).__name__)
    return out
