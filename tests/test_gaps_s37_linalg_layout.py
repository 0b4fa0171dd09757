"""Gap (s37): the memory layout of LAPACK-backed linalg results, as torch gives them.

torch returns what LAPACK wrote: matrices column-major inside row-major batches (a (2, 3, 3)
result has strides (9, 1, 3)), except where its kernel hands back a transpose (``solve`` and
``lu_solve`` with ``left=False``, ``torch.svd``'s V, the row-major ``linalg.lu`` factors). A
batch of vectors solved by ``linalg.solve`` is one column-major (batch, n) block. ``lstsq``
returns the first n rows of its (max(m, n), k) right-hand-side buffer. The layout shows in
stride(), is_contiguous(), view() and the *_like factories; values and gradients must not
change. Every case runs the same call in torch and numtorch and compares all of it.
"""

import numpy as np
import pytest
import torch

import numtorch


def _spd(T, a):
    n = a.shape[-1]
    return a @ a.mH + n * T.eye(n, dtype=a.dtype)


def _inputs(T, shape, dtype, seed):
    """The same random (A, SPD A, B matrix, B vectors) in both libraries, from NumPy."""
    rng = np.random.default_rng(seed)
    npdt = {"float64": np.float64, "float32": np.float32, "complex128": np.complex128}[dtype]

    def draw(*s):
        x = rng.standard_normal(s)
        if npdt is np.complex128:
            x = x + 1j * rng.standard_normal(s)
        return T.from_numpy(x.astype(npdt))

    a = draw(*shape)
    b = draw(*shape[:-1], 2)
    v = draw(*shape[:-1])
    return a, _spd(T, a), b, v


CASES = {
    "qr": lambda T, a, p, b, v: T.linalg.qr(a),
    "qr_complete": lambda T, a, p, b, v: T.linalg.qr(a, mode="complete"),
    "qr_r": lambda T, a, p, b, v: T.linalg.qr(a, mode="r"),
    "torch_qr": lambda T, a, p, b, v: T.qr(a),
    "cholesky": lambda T, a, p, b, v: T.linalg.cholesky(p),
    "cholesky_upper": lambda T, a, p, b, v: T.linalg.cholesky(p, upper=True),
    "cholesky_ex": lambda T, a, p, b, v: T.linalg.cholesky_ex(p),
    "cholesky_ex_upper": lambda T, a, p, b, v: T.linalg.cholesky_ex(p, upper=True),
    "cholesky_ex_fail": lambda T, a, p, b, v: T.linalg.cholesky_ex(p - 1e3 * T.eye(
        p.shape[-1], dtype=p.dtype)),
    "svd": lambda T, a, p, b, v: T.linalg.svd(a),
    "svd_reduced": lambda T, a, p, b, v: T.linalg.svd(a, full_matrices=False),
    "torch_svd": lambda T, a, p, b, v: T.svd(a),
    "eigh": lambda T, a, p, b, v: T.linalg.eigh(p),
    "eigh_upper": lambda T, a, p, b, v: T.linalg.eigh(p, UPLO="U"),
    "inv": lambda T, a, p, b, v: T.linalg.inv(p),
    "inv_ex": lambda T, a, p, b, v: T.linalg.inv_ex(p),
    "inverse": lambda T, a, p, b, v: T.inverse(p),
    "matrix_power_m1": lambda T, a, p, b, v: T.linalg.matrix_power(p, -1),
    "matrix_power_m2": lambda T, a, p, b, v: T.linalg.matrix_power(p, -2),
    "solve": lambda T, a, p, b, v: T.linalg.solve(p, b),
    "solve_ex": lambda T, a, p, b, v: T.linalg.solve_ex(p, b),
    "solve_vectors": lambda T, a, p, b, v: T.linalg.solve(p, v),
    "solve_one_vector": lambda T, a, p, b, v: T.linalg.solve(p, v.reshape(-1)[:p.shape[-1]]),
    "solve_right": lambda T, a, p, b, v: T.linalg.solve(p, b.mT, left=False),
    "lu_factor": lambda T, a, p, b, v: T.linalg.lu_factor(a),
    "lu_factor_ex": lambda T, a, p, b, v: T.linalg.lu_factor_ex(a),
    "lu": lambda T, a, p, b, v: T.linalg.lu(a),
    "lu_unpack": lambda T, a, p, b, v: T.lu_unpack(*T.linalg.lu_factor(a)),
    "lu_solve": lambda T, a, p, b, v: T.linalg.lu_solve(*T.linalg.lu_factor(p), b),
    "lu_solve_adjoint": lambda T, a, p, b, v: T.linalg.lu_solve(*T.linalg.lu_factor(p), b,
                                                                adjoint=True),
    "lu_solve_right": lambda T, a, p, b, v: T.linalg.lu_solve(*T.linalg.lu_factor(p), b.mT,
                                                              left=False),
    "lu_solve_right_adjoint": lambda T, a, p, b, v: T.linalg.lu_solve(
        *T.linalg.lu_factor(p), b.mT, left=False, adjoint=True),
    "lstsq": lambda T, a, p, b, v: T.linalg.lstsq(p, b).solution,
    "lstsq_vector": lambda T, a, p, b, v: T.linalg.lstsq(p, b[..., :1]).solution,
    "cholesky_solve": lambda T, a, p, b, v: T.cholesky_solve(b, T.linalg.cholesky(p)),
    "cholesky_solve_upper": lambda T, a, p, b, v: T.cholesky_solve(
        b, T.linalg.cholesky(p, upper=True), upper=True),
    "cholesky_inverse": lambda T, a, p, b, v: T.cholesky_inverse(T.linalg.cholesky(p)),
    "cholesky_inverse_upper": lambda T, a, p, b, v: T.cholesky_inverse(
        T.linalg.cholesky(p, upper=True), upper=True),
    "geqrf": lambda T, a, p, b, v: T.geqrf(a),
    "householder_product": lambda T, a, p, b, v: T.linalg.householder_product(*T.geqrf(a)),
    "orgqr": lambda T, a, p, b, v: T.orgqr(*T.geqrf(a)),
    "ormqr": lambda T, a, p, b, v: T.ormqr(*T.geqrf(a), b),
    "ormqr_right": lambda T, a, p, b, v: T.ormqr(*T.geqrf(a), b.mT, left=False,
                                                 transpose=True),
    "ldl_factor": lambda T, a, p, b, v: T.linalg.ldl_factor(p),
    "ldl_solve": lambda T, a, p, b, v: T.linalg.ldl_solve(*T.linalg.ldl_factor(p), b),
    "solve_triangular": lambda T, a, p, b, v: T.linalg.solve_triangular(p, b, upper=True),
    "solve_triangular_lower": lambda T, a, p, b, v: T.linalg.solve_triangular(p, b,
                                                                              upper=False),
    "solve_triangular_right": lambda T, a, p, b, v: T.linalg.solve_triangular(
        p, b.mT, upper=False, left=False),
    "triangular_solve": lambda T, a, p, b, v: T.triangular_solve(b, p),
    "pinv": lambda T, a, p, b, v: T.linalg.pinv(a),
    "matrix_exp": lambda T, a, p, b, v: T.linalg.matrix_exp(a),
}
REAL_ONLY = {"ldl_factor", "ldl_solve"}
SHAPES = [(3, 3), (2, 3, 3), (2, 2, 3, 3), (1, 3, 3), (3, 1, 1), (4, 2, 2)]


def _flat(r, T):
    if isinstance(r, T.Tensor):
        return [r]
    return [t for t in r if isinstance(t, T.Tensor)]


def _run(name, shape, dtype, seed=0):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _flat(CASES[name](torch, *_inputs(torch, shape, dtype, seed)), torch)
        got = _flat(CASES[name](numtorch, *_inputs(numtorch, shape, dtype, seed)), numtorch)
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        assert tuple(g.shape) == tuple(r.shape)
        assert g.stride() == r.stride(), (name, r.stride(), g.stride())
        assert g.is_contiguous() == r.is_contiguous()
        if r.dtype.is_floating_point or r.dtype.is_complex:
            conj = r.is_conj()  # torch's lazy conjugate (numtorch conjugates at once)
            rv = r.resolve_conj().numpy()
            gv = g.numpy()
            if name.startswith(("svd", "torch_svd", "eigh", "qr", "torch_qr", "householder",
                                "orgqr", "geqrf", "ormqr", "ldl", "lu", "cholesky_ex_fail")):
                continue  # signs and phases of factors are free; layouts are what this checks
            tol = 1e-4 if dtype == "float32" else 1e-8
            np.testing.assert_allclose(gv, rv, rtol=tol, atol=tol)
            # .numpy() shares the layout
            assert conj or gv.strides == rv.strides


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_layout_float64(name, shape):
    _run(name, shape, "float64")


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("name", sorted(set(CASES) - REAL_ONLY))
def test_layout_other_dtypes(name, dtype):
    _run(name, (2, 3, 3), dtype, seed=1)


RECT = {
    "qr": lambda T, m: T.linalg.qr(m),
    "qr_complete": lambda T, m: T.linalg.qr(m, mode="complete"),
    "svd": lambda T, m: T.linalg.svd(m),
    "svd_reduced": lambda T, m: T.linalg.svd(m, full_matrices=False),
    "lu_factor": lambda T, m: T.linalg.lu_factor(m),
    "lu": lambda T, m: T.linalg.lu(m),
    "geqrf": lambda T, m: T.geqrf(m),
    "lstsq": lambda T, m: T.linalg.lstsq(m, T.ones(*m.shape[:-1], 2, dtype=m.dtype)).solution,
    "pinv": lambda T, m: T.linalg.pinv(m),
}


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 3), (2, 3, 4), (5, 1), (1, 5)],
                         ids=str)
@pytest.mark.parametrize("name", sorted(RECT))
def test_layout_rectangular(name, shape):
    x = np.random.default_rng(3).standard_normal(shape)
    ref = _flat(RECT[name](torch, torch.from_numpy(x)), torch)
    got = _flat(RECT[name](numtorch, numtorch.from_numpy(x)), numtorch)
    for r, g in zip(ref, got):
        assert (tuple(g.shape), g.stride()) == (tuple(r.shape), r.stride())
    if name == "lstsq":
        np.testing.assert_allclose(got[0].numpy(), ref[0].numpy(), rtol=1e-8, atol=1e-10)


EMPTY = {
    "inv": lambda T, s: T.linalg.inv(T.zeros(s)) if s[-1] == s[-2] else T.zeros(0),
    "qr": lambda T, s: T.linalg.qr(T.zeros(s)),
    "svd": lambda T, s: T.linalg.svd(T.zeros(s)),
    "eigh": lambda T, s: T.linalg.eigh(T.zeros(s)) if s[-1] == s[-2] else T.zeros(0),
    "cholesky": lambda T, s: T.linalg.cholesky(T.zeros(s)) if s[-1] == s[-2] else T.zeros(0),
    "torch_cholesky": lambda T, s: T.cholesky(T.zeros(s)) if s[-1] == s[-2] else T.zeros(0),
}


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (2, 0, 3), (2, 3, 0)], ids=str)
@pytest.mark.parametrize("name", sorted(EMPTY))
def test_layout_empty(name, shape):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _flat(EMPTY[name](torch, shape), torch)
        got = _flat(EMPTY[name](numtorch, shape), numtorch)
    for r, g in zip(ref, got):
        assert (tuple(g.shape), g.stride()) == (tuple(r.shape), r.stride())


def test_tensorinv_views_of_column_major():
    x = np.random.default_rng(4).standard_normal((6, 2, 3))
    for ind, arr in ((1, x), (2, x.reshape(2, 3, 6))):
        r = torch.linalg.tensorinv(torch.from_numpy(arr), ind=ind)
        g = numtorch.linalg.tensorinv(numtorch.from_numpy(arr), ind=ind)
        assert g.stride() == r.stride()
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-8, atol=1e-10)


def test_view_and_like_follow_the_layout():
    """view() of a column-major result fails as torch's does; *_like keep the strides and
    rand_like fills in memory order (the same numbers at the same addresses)."""
    x = np.random.default_rng(5).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    r = torch.linalg.inv(torch.from_numpy(x))
    g = numtorch.linalg.inv(numtorch.from_numpy(x))
    with pytest.raises(RuntimeError) as er:
        r.view(2, 9)
    with pytest.raises(RuntimeError) as eg:
        g.view(2, 9)
    assert str(eg.value) == str(er.value)
    assert g.mT.view(2, 9).stride() == r.mT.view(2, 9).stride()
    for like in ("empty_like", "zeros_like", "randn_like", "rand_like"):
        assert getattr(numtorch, like)(g).stride() == getattr(torch, like)(r).stride()
    torch.manual_seed(7)
    numtorch.manual_seed(7)
    rr = torch.rand_like(r)
    gg = numtorch.rand_like(g)
    np.testing.assert_array_equal(gg.numpy(), rr.numpy())
    assert g.contiguous().stride() == r.contiguous().stride() == (9, 3, 1)


GRADS = {
    "inv": lambda T, a: T.linalg.inv(a),
    "cholesky": lambda T, a: T.linalg.cholesky(a @ a.mT + 3 * T.eye(3, dtype=a.dtype)),
    "cholesky_upper": lambda T, a: T.linalg.cholesky(a @ a.mT + 3 * T.eye(3, dtype=a.dtype),
                                                     upper=True),
    "solve": lambda T, a: T.linalg.solve(a, a[..., :2] + 1),
    "solve_vectors": lambda T, a: T.linalg.solve(a, a[..., 0] + 1),
    "qr_q": lambda T, a: T.linalg.qr(a)[0],
    "qr_r": lambda T, a: T.linalg.qr(a)[1],
    "svd_s": lambda T, a: T.linalg.svdvals(a),
    "eigh_vals": lambda T, a: T.linalg.eigh(a + a.mT)[0],
    "lu_solve": lambda T, a: T.linalg.lu_solve(*T.linalg.lu_factor(a), a[..., :2].clone()),
    "lstsq": lambda T, a: T.linalg.lstsq(a, a[..., :2] + 1).solution,
    "cholesky_solve": lambda T, a: T.cholesky_solve(a[..., :2].clone(), T.linalg.cholesky(
        a @ a.mT + 3 * T.eye(3, dtype=a.dtype))),
    "solve_triangular": lambda T, a: T.linalg.solve_triangular(a + 3 * T.eye(3, dtype=a.dtype),
                                                               a[..., :2], upper=False),
    "householder_product": lambda T, a: T.linalg.householder_product(a, a[..., 0, :2]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_through_the_layouts(name):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    grads = []
    for T in (torch, numtorch):
        a = T.from_numpy(x.copy()).requires_grad_()
        y = GRADS[name](T, a)
        w = T.from_numpy(np.random.default_rng(8).standard_normal(tuple(y.shape)))
        (g,) = T.autograd.grad((y * w).sum(), a, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), a)
        grads.append((y.stride(), g.detach().numpy(), gg.numpy()))
    (rs, rg, rgg), (ns, ng, ngg) = grads
    assert ns == rs
    np.testing.assert_allclose(ng, rg, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ngg, rgg, rtol=1e-6, atol=1e-8)
