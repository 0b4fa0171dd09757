"""``cupy.linalg``'s failure behaviour and ``cupyx.errstate``/``seterr``/``geterr``.

CuPy's solvers do not raise for singular, not positive-definite or non-convergent input: the
cuSOLVER/cuBLAS status codes (``devInfo``) stay on the device, because reading them means a
host synchronisation. Only inside ``cupyx.errstate(linalg='raise')`` does CuPy read them and
raise ``numpy.linalg.LinAlgError`` with its own wording ("Error reported by dgetrf in
cuSOLVER. devInfo = [2]. ..."). Otherwise the results are whatever the routine left behind:
inf/NaN from a division by a zero pivot, or finite values that look valid (a Cholesky factor
whose failed columns are the input's).

The LU-based routines (``inv``, ``solve``, ``det``, ``slogdet``) factor as the GPU does: the
update ``a - l*u`` of every elimination step is one fused multiply-add (rounded once; emulated
here in a wider type), so a matrix that is exactly singular on the CPU can get a tiny nonzero
pivot instead of a zero one: ``det([[1, 2, 3], [2, 4, 6], [1, 0, 1]])`` is -6.7e-16 on a GPU,
0 on the CPU, and ``inv`` of it is huge but finite. CuPy's ``det`` is ``sign * exp(logdet)``
of that factorization, ``inv`` and ``det`` factor ``A^T`` (C-ordered memory handed to
column-major cuBLAS), ``solve`` factors ``A`` and does not broadcast batches.
"""

import contextlib
import threading

import numpy as np

from ._array import STATS

_CONFIG = threading.local()

# a type in which the product of two numbers of the key type is (nearly) exact
_WIDE = {"f": np.float64, "d": np.longdouble, "F": np.complex128, "D": np.clongdouble}
_T = {"f": "s", "d": "d", "F": "c", "D": "z"}  # BLAS's type letters in routine names


def _mode():
    return getattr(_CONFIG, "linalg", "ignore")


def geterr():
    """CuPy's ``cupyx.geterr``: only ``linalg`` has a setting."""
    return {"divide": None, "over": None, "under": None, "invalid": None, "linalg": _mode()}


def seterr(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    """CuPy's ``cupyx.seterr``: the floating-point kinds are not implemented there."""
    old = geterr()
    if divide is not None or over is not None or under is not None or invalid is not None:
        raise NotImplementedError()
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise NotImplementedError()
        _CONFIG.linalg = linalg
    return old


@contextlib.contextmanager
def errstate(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    """CuPy's ``cupyx.errstate``."""
    old = seterr(divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        seterr(linalg=old["linalg"])


def _check(routine, info, library="cuSOLVER"):
    """CuPy's devInfo check: nothing unless linalg='raise', then one host synchronisation."""
    if _mode() != "raise":
        return
    STATS["sync"] += 1
    info = np.asarray(info)
    if (info != 0).any():
        what = "devInfo" if library == "cuSOLVER" else "infoArray/devInfoArray"
        raise np.linalg.LinAlgError(f"Error reported by {routine} in {library}. {what} = "
                                    f"{info}. Please refer to the {library} documentation.")


def _square(a):
    if a.ndim < 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at "
                                    f"least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def _compute_dtype(*arrays):
    return np.result_type(*[a.dtype if a.dtype.kind in "fc" else np.float64 for a in arrays])


def _lu(m):
    """Row-pivoted LU of (nb, n, n) ``m`` with fused updates: ``(lu, swaps, info)``."""
    wide = _WIDE[m.dtype.char]
    lu = m.copy()
    nb, n = lu.shape[:2]
    swaps = np.zeros((nb, n), dtype=np.int64)
    info = np.zeros(nb, dtype=np.int32)
    rows = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(n):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
            swaps[:, j] = p
            top = lu[rows, p].copy()
            lu[rows, p] = lu[:, j]
            lu[:, j] = top
            d = lu[:, j, j]
            zero = d == 0
            info = np.where((info == 0) & zero, j + 1, info).astype(np.int32)
            recip = (1 / np.where(zero, 1, d)).astype(m.dtype)
            col = np.where(zero[:, None], lu[:, j + 1:, j], lu[:, j + 1:, j] * recip[:, None])
            lu[:, j + 1:, j] = col
            lu[:, j + 1:, j + 1:] = (lu[:, j + 1:, j + 1:].astype(wide) - col[:, :, None].astype(
                wide) * lu[:, j, None, j + 1:].astype(wide)).astype(m.dtype)
    return lu, swaps, info


def _lu_solve(lu, swaps, b):
    """Solve with :func:`_lu`'s factors for (nb, n, k) ``b`` (inf/NaN at zero pivots)."""
    x = b.astype(lu.dtype, copy=True)
    nb, n = lu.shape[:2]
    rows = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(n):
            p = swaps[:, j]
            top = x[rows, p].copy()
            x[rows, p] = x[:, j]
            x[:, j] = top
        for i in range(1, n):
            x[:, i] -= np.einsum("bj,bjk->bk", lu[:, i, :i], x[:, :i])
        for i in range(n - 1, -1, -1):
            acc = np.einsum("bj,bjk->bk", lu[:, i, i + 1:], x[:, i + 1:])
            x[:, i] = (x[:, i] - acc) / lu[:, i, i, None]
    return x


def inv(a):
    _square(a)
    dt = _compute_dtype(a)
    if a.size == 0:
        return np.empty(a.shape, dt)
    n = a.shape[-1]
    m = np.swapaxes(a, -1, -2).astype(dt).reshape(-1, n, n)
    lu, swaps, info = _lu(m)
    if a.ndim > 2:
        _check(_T[dt.char] + "getrfBatched", info, "cuBLAS")
    else:
        _check(_T[dt.char] + "getrf", info)
    eye = np.broadcast_to(np.eye(n, dtype=dt), m.shape)
    return np.swapaxes(_lu_solve(lu, swaps, eye), -1, -2).reshape(a.shape)


def solve(a, b):
    _square(a)
    if b.ndim == 0:
        raise ValueError("b must have at least one dimension")
    if b.ndim == 1:
        if a.shape[-1] != b.size:
            raise ValueError("a must have (..., M, M) shape and b must have (M,) for "
                             "one-dimensional b")
        b = np.broadcast_to(b, a.shape[:-1])
    elif a.shape[:-1] != b.shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for "
                         "multidimensional b")
    dt = _compute_dtype(a, b)
    if a.size == 0:
        return np.empty(b.shape, dt)
    n = a.shape[-1]
    m = a.astype(dt).reshape(-1, n, n)
    rhs = b.astype(dt).reshape(m.shape[0], n, -1)
    lu, swaps, info = _lu(m)
    _check(_T[dt.char] + "getrf", info)
    return _lu_solve(lu, swaps, rhs).reshape(b.shape)


def slogdet(a):
    _square(a)
    dt = _compute_dtype(a)
    real = np.dtype(dt.char.lower())
    batch = a.shape[:-2]
    if a.size == 0:
        return np.ones(batch, dt), np.zeros(batch, real)
    n = a.shape[-1]
    lu, swaps, info = _lu(np.swapaxes(a, -1, -2).astype(dt).reshape(-1, n, n))
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    with np.errstate(all="ignore"):
        logdet = np.log(np.abs(diag)).sum(-1).astype(real)
        flips = np.count_nonzero(swaps != np.arange(n), axis=-1)
        if dt.kind == "f":
            flips += np.count_nonzero(diag < 0, axis=-1)
        sign = ((flips % 2) * -2 + 1).astype(dt)
        if dt.kind == "c":
            sign = sign * np.prod(diag / np.abs(diag), axis=-1)
    singular = info > 0
    return (np.where(singular, dt.type(0), sign).reshape(batch),
            np.where(singular, real.type(-np.inf), logdet).reshape(batch))


def det(a):
    sign, logdet = slogdet(a)
    with np.errstate(all="ignore"):
        return sign * np.exp(logdet)


def _potrf_info(m):
    """The order of the first leading minor of each matrix that is not positive-definite."""
    info = np.zeros(m.shape[0], dtype=np.int32)
    for i, x in enumerate(m):
        for k in range(1, x.shape[-1] + 1):
            try:
                np.linalg.cholesky(x[:k, :k])
            except np.linalg.LinAlgError:
                info[i] = k
                break
    return info


def cholesky(a):
    _square(a)
    dt = _compute_dtype(a)
    try:
        out = np.linalg.cholesky(a.astype(dt))
        info = np.zeros(int(np.prod(a.shape[:-2])), dtype=np.int32)
    except np.linalg.LinAlgError:
        n = a.shape[-1]
        m = a.astype(dt).reshape(-1, n, n)
        info = _potrf_info(m)
        # the failed matrices keep what cuSOLVER left: here, their lower triangles unchanged
        out = np.tril(m)
        ok = info == 0
        if ok.any():
            out[ok] = np.linalg.cholesky(m[ok])
        out = out.reshape(a.shape)
    _check(_T[dt.char] + "potrf" + ("Batched" if a.ndim > 2 else ""), info)
    return out


def _nan_on_failure(routine, fn, shapes):
    """``fn()``; where NumPy's LAPACK fails, CuPy's result (NaN here) or its error."""
    try:
        out = fn()
        _check(routine, np.zeros(1, np.int32))
        return out
    except np.linalg.LinAlgError:
        _check(routine, np.ones(1, np.int32))
        res = tuple(np.full(s, np.nan, dtype=d) for s, d in shapes)
        return res if len(res) > 1 else res[0]


def eigh(a, UPLO="L"):
    _square(a)
    dt = _compute_dtype(a)
    real = np.dtype(dt.char.lower())
    return _nan_on_failure("syevd", lambda: tuple(np.linalg.eigh(a.astype(dt), UPLO)),
                           [(a.shape[:-1], real), (a.shape, dt)])


def eigvalsh(a, UPLO="L"):
    _square(a)
    dt = _compute_dtype(a)
    return _nan_on_failure("syevd", lambda: np.linalg.eigvalsh(a.astype(dt), UPLO),
                           [(a.shape[:-1], np.dtype(dt.char.lower()))])


def svd(a, full_matrices=True, compute_uv=True):
    dt = _compute_dtype(a)
    real = np.dtype(dt.char.lower())
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    if not compute_uv:
        shapes = [(batch + (k,), real)]
    else:
        shapes = [(batch + (m, m if full_matrices else k), dt), (batch + (k,), real),
                  (batch + (n if full_matrices else k, n), dt)]

    def run():
        r = np.linalg.svd(a.astype(dt), full_matrices=full_matrices, compute_uv=compute_uv)
        return tuple(r) if compute_uv else r

    return _nan_on_failure("gesvdj" if batch else "gesvd", run, shapes)


def install(linalg, cupyx, make_function):
    """Put the functions above into the stand-in ``cupy.linalg`` and ``cupyx``."""
    for name, params in (("inv", ["a"]), ("solve", ["a", "b"]), ("slogdet", ["a"]),
                         ("det", ["a"]), ("cholesky", ["a"]), ("eigh", ["a", "UPLO"]),
                         ("eigvalsh", ["a", "UPLO"]),
                         ("svd", ["a", "full_matrices", "compute_uv"])):
        setattr(linalg, name, make_function(name, globals()[name], params, f"linalg.{name}"))
    cupyx.errstate = errstate
    cupyx.seterr = seterr
    cupyx.geterr = geterr
