"""The 0.x LAPACK names (ops/lapack_legacy.py): gesv, gels, potrf, potrs, potri, pstrf, trtrs,
eig, symeig and the 1.x solve/lstsq/matrix_rank.

torch 2.13 no longer has these, so each is checked against the modern torch function it maps
to (one lambda per library: ``legacy`` on numtorch, the modern spelling on torch) and against
the 0.x semantics its docstring describes.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def both(legacy, modern):
    """A check_op lambda: ``legacy`` for numtorch, ``modern`` for torch."""
    return lambda t, *xs: (legacy if t is numtorch else modern)(t, *xs)


def _spd(t, x):
    return x @ x.mT + x.shape[-1] * t.eye(x.shape[-1], dtype=x.dtype)


def _heavy(t, x):
    return x + 3 * t.eye(x.shape[-1], dtype=x.dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sb,sa", [((3, 2), (3, 3)), ((3,), (3, 3)), ((2, 3, 1), (2, 3, 3))])
def test_gesv_is_solve_plus_lu(sb, sa, dtype):
    check_op(both(lambda t, b, a: t.gesv(b, _heavy(t, a)),
                  lambda t, b, a: (t.linalg.solve(_heavy(t, a), b),
                                   t.linalg.lu_factor(_heavy(t, a)).LU)),
             [sb, sa], dtype=dtype)
    check_op(both(lambda t, b, a: b.gesv(_heavy(t, a))[0],
                  lambda t, b, a: t.linalg.solve(_heavy(t, a), b)), [sb, sa], dtype=dtype)
    check_op(both(lambda t, b, a: t.solve(b, _heavy(t, a))[0],
                  lambda t, b, a: t.linalg.solve(_heavy(t, a), b)), [sb, sa], dtype=dtype)


def test_gesv_raises_for_singular_matrices():
    with pytest.raises(numtorch.linalg.LinAlgError, match="singular"):
        numtorch.gesv(numtorch.ones(2, 1), numtorch.tensor([[1., 2.], [2., 4.]]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sb,sa", [((5, 2), (5, 3)), ((5,), (5, 3)), ((3, 2), (3, 3)),
                                   ((2, 2), (2, 4))])
def test_gels_solution_rows_are_lstsq(sb, sa, dtype):
    n = sa[1]
    check_op(both(lambda t, b, a: t.gels(b, a)[0][:n],
                  lambda t, b, a: t.linalg.lstsq(a, b).solution), [sb, sa], dtype=dtype)
    check_op(both(lambda t, b, a: b.lstsq(a)[0][:n],
                  lambda t, b, a: t.linalg.lstsq(a, b).solution), [sb, sa], dtype=dtype)
    check_op(both(lambda t, b, a: t.gels(b, a)[1], lambda t, b, a: t.geqrf(a).a), [sb, sa],
             dtype=dtype, grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gels_residual_rows_hold_the_residual_norms(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 3)).astype(dtype)
    b = rng.standard_normal((6, 2)).astype(dtype)
    x, _ = numtorch.gels(numtorch.from_numpy(b), numtorch.from_numpy(a))
    assert tuple(x.shape) == (6, 2)
    ref = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver="gelsd")
    rtol = 1e-10 if dtype == "float64" else 1e-4
    np.testing.assert_allclose((x.numpy()[3:] ** 2).sum(0), ref.residuals.numpy(), rtol=rtol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
def test_potrf_potrs_potri_are_cholesky_functions(upper, dtype):
    check_op(both(lambda t, x: t.potrf(_spd(t, x), upper),
                  lambda t, x: t.linalg.cholesky(_spd(t, x), upper=upper)), [(2, 3, 3)],
             dtype=dtype)
    check_op(both(lambda t, b, u: t.potrs(b, _heavy(t, u), upper),
                  lambda t, b, u: t.cholesky_solve(b, _heavy(t, u), upper)),
             [(3, 2), (3, 3)], dtype=dtype)
    check_op(both(lambda t, u: t.potri(_heavy(t, u), upper),
                  lambda t, u: t.cholesky_inverse(_heavy(t, u), upper)), [(3, 3)], dtype=dtype)


def test_potrf_is_upper_by_default_and_methods_exist():
    check_op(both(lambda t, x: _spd(t, x).potrf(), lambda t, x: t.linalg.cholesky(
        _spd(t, x), upper=True)), [(3, 3)])
    check_op(both(lambda t, b, u: b.potrs(_heavy(t, u)), lambda t, b, u: t.cholesky_solve(
        b, _heavy(t, u), upper=True)), [(3, 1), (3, 3)])
    check_op(both(lambda t, b, u: t.potrs(b, _heavy(t, u)), lambda t, b, u: t.cholesky_solve(
        b.unsqueeze(-1), _heavy(t, u), upper=True).squeeze(-1)), [(3,), (3, 3)])
    check_op(both(lambda t, u: _heavy(t, u).potri(), lambda t, u: t.cholesky_inverse(
        _heavy(t, u), upper=True)), [(3, 3)])
    check_raises(lambda t, x: t.potrf(x) if t is numtorch else t.linalg.cholesky(x),
                 [np.array([[1., 2.], [2., 1.]])], match="not positive-definite")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_trtrs_is_triangular_solve(upper, transpose, unit, dtype):
    check_op(both(lambda t, b, a: t.trtrs(b, _heavy(t, a), upper, transpose, unit),
                  lambda t, b, a: t.triangular_solve(b, _heavy(t, a), upper, transpose, unit)),
             [(3, 2), (3, 3)], dtype=dtype)
    check_op(both(lambda t, b, a: b.trtrs(_heavy(t, a), upper, transpose, unit)[0],
                  lambda t, b, a: t.triangular_solve(b, _heavy(t, a), upper, transpose,
                                                     unit)[0]), [(2, 3, 2), (3, 3)], dtype=dtype)


def _pstrf_reference(a, upper):
    """The modern spelling: Cholesky of ``a[piv][:, piv]`` with piv from numtorch."""
    _, piv = numtorch.pstrf(numtorch.from_numpy(a.copy()), upper)
    p = piv.numpy().astype(np.int64)
    return p, torch.linalg.cholesky(torch.from_numpy(a[np.ix_(p, p)].copy()), upper=upper)


@pytest.mark.parametrize("upper", [True, False])
def test_pstrf_of_positive_definite_matrices(upper):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 4))
    a = x @ x.T + np.diag([0.1, 5., 1., 3.])
    u, piv = numtorch.pstrf(numtorch.from_numpy(a.copy()), upper)
    assert piv.dtype is numtorch.int32
    p, ref = _pstrf_reference(a, upper)
    np.testing.assert_allclose(u.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)
    diag = np.diag(a[np.ix_(p, p)])
    assert diag[0] == a.diagonal().max()  # the largest diagonal entry is pivoted first
    # gradients: those of the Cholesky factor of the permuted matrix
    t_in = numtorch.from_numpy(a.copy()).requires_grad_()
    assert gradcheck(lambda z: numtorch.pstrf((z + z.mT) / 2, upper)[0], (t_in,))


def test_pstrf_of_semidefinite_matrices_stops_at_the_rank():
    v = np.array([[1., 2., 0.], [0., 1., 1.]])
    a = v.T @ v  # rank 2
    u, piv = numtorch.pstrf(numtorch.from_numpy(a.copy()))
    p = piv.numpy()
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), a[np.ix_(p, p)], atol=1e-12)
    assert np.all(u.numpy()[2] == 0)
    assert sorted(p.tolist()) == [0, 1, 2]
    u2, _ = numtorch.pstrf(numtorch.from_numpy(np.stack([a, np.eye(3)])), upper=False)
    np.testing.assert_allclose(u2.numpy()[1], np.eye(3))


def test_eig_packs_complex_results_like_0x():
    a = np.array([[0., -2., 1.], [1., 0., 0.], [0., 0., 3.]])
    e, v = numtorch.eig(numtorch.from_numpy(a.copy()), True)
    w, vc = torch.linalg.eig(torch.from_numpy(a.copy()))
    np.testing.assert_allclose(e.numpy(), torch.view_as_real(w).numpy(), atol=1e-12)
    assert e.dtype is numtorch.float64 and v.dtype is numtorch.float64
    vc = vc.numpy()
    # rebuild the complex eigenvectors from the packed real columns and compare up to phase
    rebuilt = np.empty_like(vc)
    imag = e.numpy()[:, 1]
    for j in range(3):
        if imag[j] > 0:
            rebuilt[:, j] = v.numpy()[:, j] + 1j * v.numpy()[:, j + 1]
        elif imag[j] < 0:
            rebuilt[:, j] = v.numpy()[:, j - 1] - 1j * v.numpy()[:, j]
        else:
            rebuilt[:, j] = v.numpy()[:, j]
    phase = rebuilt[:1] / vc[:1]
    np.testing.assert_allclose(rebuilt, vc * phase, atol=1e-12)
    np.testing.assert_allclose(a @ rebuilt, rebuilt * (e.numpy()[:, 0] + 1j * imag), atol=1e-12)
    e2, v2 = numtorch.from_numpy(a.copy()).eig()
    np.testing.assert_array_equal(e2.numpy(), e.numpy())
    assert tuple(v2.shape) == (0,)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_values_have_gradients_of_eigvals(dtype):
    check_op(both(lambda t, x: t.eig(x)[0],
                  lambda t, x: t.view_as_real(t.linalg.eigvals(x))), [(3, 3)], dtype=dtype,
             second_order=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
def test_symeig_is_eigh(upper, dtype):
    uplo = "U" if upper else "L"
    check_op(both(lambda t, x: t.symeig(x, False, upper)[0],
                  lambda t, x: t.linalg.eigvalsh(x, UPLO=uplo)), [(2, 3, 3)], dtype=dtype)

    def legacy(t, x):
        w, v = x.symeig(True, upper)
        return w, v * v[..., :1, :].sign()

    def modern(t, x):
        w, v = t.linalg.eigh(x, UPLO=uplo)
        return w, v * v[..., :1, :].sign()

    check_op(both(legacy, modern), [(3, 3)], dtype=dtype)
    res = numtorch.symeig(numtorch.eye(3))
    assert type(res).__name__ == "symeig" and tuple(res.eigenvectors.shape) == (0,)


def test_matrix_rank_1x():
    check_op(both(lambda t, x: t.matrix_rank(x), lambda t, x: t.linalg.matrix_rank(x)),
             [np.outer([1., 2.], [3., 4.])], grad=False)
    check_op(both(lambda t, x: t.matrix_rank(x, 0.5), lambda t, x: t.linalg.matrix_rank(
        x, atol=0.5, rtol=0)), [np.diag([1., 0.4, 2.])], grad=False)


def test_second_derivatives_of_legacy_solvers():
    rng = np.random.default_rng(5)
    a = numtorch.from_numpy(rng.standard_normal((3, 3)) + 3 * np.eye(3)).requires_grad_()
    b = numtorch.from_numpy(rng.standard_normal((3, 2))).requires_grad_()
    assert gradgradcheck(lambda x, y: numtorch.gesv(y, x)[0], (a, b))
    assert gradgradcheck(lambda x, y: numtorch.trtrs(y, x)[0], (a, b))
    # potrs reads one triangle while its gradient (like torch's) takes the factor as a full
    # matrix, so the finite differences run over upper triangular factors only
    upper = numtorch.from_numpy(np.triu(np.ones((3, 3))))
    assert gradgradcheck(lambda x, y: numtorch.potrs(y, x * upper), (a, b))


@pytest.mark.parametrize("fn,arrays,match", [
    (lambda t, a: t.pstrf(a), [np.ones((2, 3))], "2 by 3 matrices"),
    (lambda t, a: t.pstrf(a), [np.eye(2, dtype=np.int64)], "Expected a floating point"),
    (lambda t, b, a: t.trtrs(b, a), [np.ones((4, 1)), np.eye(3)],
     "each A matrix is 3 by 3 but each b matrix is 4 by 1"),
    (lambda t, b, a: t.gesv(b, a), [np.ones((4, 1)), np.eye(3)], "Incompatible shapes"),
    (lambda t, b, a: t.gels(b, a), [np.ones((4, 1)), np.eye(3)], "should match"),
    (lambda t, a: t.symeig(a), [np.ones((2, 3))], "A must be batches of square matrices"),
    (lambda t, a: t.eig(a), [np.ones((2, 3))], "A must be batches of square matrices"),
])
def test_bad_input_raises_runtime_error(fn, arrays, match):
    nt = [numtorch.from_numpy(a.copy()) for a in arrays]
    with pytest.raises(RuntimeError) as info:
        fn(numtorch, *nt)
    assert match in str(info.value)
