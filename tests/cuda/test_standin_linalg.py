"""cupy.linalg's failures on the CuPy stand-in, and numtorch's errors on top of them.

CuPy 14 reads the cuSOLVER/cuBLAS status codes only inside ``cupyx.errstate(linalg='raise')``
(cupy/linalg/_util.py): by default a singular, not positive-definite or NaN matrix gives inf,
NaN or plausible garbage, never an error. Its LU routines round each update ``a - l*u`` once
(fused multiply-add), so an exactly singular matrix may get a tiny nonzero pivot: the H100 gave
``det = -6.7e-16`` for the rank-2 matrix below, where the CPU's LAPACK gives 0. numtorch reads
the codes (one synchronisation, as torch) and diagnoses failures on a host copy, so its messages
on a GPU are the CPU's.
"""

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin

cp, cpx = standin.modules()

SINGULAR = np.array([[1., 2.], [2., 4.]])
NOT_PD = np.array([[1., 2.], [2., 1.]])
RANK2 = np.array([[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]])


def test_bad_input_gives_values_not_errors_by_default():
    with np.errstate(all="ignore"):
        assert not cp.isfinite(cp.linalg.inv(cp.asarray(SINGULAR))).all().item()
        assert not cp.isfinite(cp.linalg.solve(cp.asarray(SINGULAR), cp.ones(2))).all().item()
        # a failed Cholesky factor looks like a valid one (what cuSOLVER left in place)
        assert cp.isfinite(cp.linalg.cholesky(cp.asarray(NOT_PD))).all().item()
        nan = cp.full((3, 3), np.nan)
        assert cp.isnan(cp.linalg.eigvalsh(nan)).all().item()
        assert cp.isnan(cp.linalg.svd(nan)[1]).all().item()


@pytest.mark.parametrize("call,routine", [
    (lambda: cp.linalg.inv(cp.asarray(SINGULAR)), "dgetrf in cuSOLVER"),
    (lambda: cp.linalg.inv(cp.asarray(np.stack([np.eye(2), SINGULAR]))),
     "dgetrfBatched in cuBLAS"),
    (lambda: cp.linalg.solve(cp.asarray(SINGULAR), cp.ones(2)), "dgetrf"),
    (lambda: cp.linalg.cholesky(cp.asarray(NOT_PD)), r"dpotrf in cuSOLVER. devInfo = \[2\]"),
    (lambda: cp.linalg.eigh(cp.full((3, 3), np.nan)), "syevd"),
    (lambda: cp.linalg.svd(cp.full((3, 3), np.nan)), "gesvd"),
])
def test_errstate_raise_reads_the_status_codes(call, routine):
    with cpx.errstate(linalg="raise"):
        standin.reset_stats()
        with pytest.raises(np.linalg.LinAlgError, match="Error reported by " + routine):
            call()
        assert standin.STATS["sync"] == 1
    assert cpx.geterr()["linalg"] == "ignore"
    with pytest.raises(NotImplementedError):
        cpx.seterr(divide="raise")


def test_lu_rounds_as_the_gpu_does():
    a = cp.asarray(RANK2)
    d = cp.linalg.det(a).item()
    assert d != 0 and abs(d) < 1e-15  # exactly 0 with NumPy's LAPACK
    assert np.linalg.det(RANK2) == 0
    assert cp.isfinite(cp.linalg.inv(a)).all().item()  # huge, finite: no zero pivot
    sign, logdet = cp.linalg.slogdet(cp.asarray(SINGULAR))
    assert sign.item() == 0 and logdet.item() == -np.inf
    x = np.random.default_rng(0).standard_normal((2, 4, 4))
    np.testing.assert_allclose(cp.linalg.inv(cp.asarray(x)).get(), np.linalg.inv(x), 1e-10)
    np.testing.assert_allclose(cp.linalg.det(cp.asarray(x)).get(), np.linalg.det(x), 1e-10)


def test_numtorch_raises_torchs_errors_after_one_synchronisation():
    with standin.active():
        a = numtorch.tensor(np.stack([np.eye(2), SINGULAR]), device="cuda")
        standin.reset_stats()
        with pytest.raises(numtorch.linalg.LinAlgError, match=r"^linalg.inv: \(Batch element "
                           r"1\): The diagonal element 2 is zero"):
            numtorch.linalg.inv(a)
        good = numtorch.tensor(np.stack([np.eye(2), 2 * np.eye(2)]), device="cuda")
        standin.reset_stats()
        numtorch.linalg.inv(good)
        numtorch.linalg.solve(good, good)
        numtorch.linalg.cholesky(good)
        assert standin.STATS["sync"] <= 4  # one each (cholesky also checks its values)


def test_det_second_derivative_at_a_gpu_singular_matrix():
    # det(RANK2) is 1e-16 on the GPU: the inverse form of the gradient would be noise there
    with standin.active():
        x = numtorch.tensor(RANK2, device="cuda", requires_grad=True)
        g, = numtorch.autograd.grad(numtorch.linalg.det(x), x, create_graph=True)
        gg, = numtorch.autograd.grad(g.sum(), x)
        g, gg = g.detach().cpu().numpy(), gg.cpu().numpy()
    t = torch.tensor(RANK2, requires_grad=True)
    tg, = torch.autograd.grad(torch.linalg.det(t), t, create_graph=True)
    tgg, = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(g, tg.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(gg, tgg.numpy(), atol=1e-12)


def test_ex_variants_report_info_on_the_device():
    # before numtorch read the status codes, inv_ex/solve_ex/cholesky_ex said info=0 on a GPU
    from tests.oracle import check_op, check_raises

    sing = np.stack([np.eye(2), SINGULAR])
    not_pd = np.array([[4., 2., 1.], [2., 1., 3.], [1., 3., 5.]])
    with standin.active():
        check_op(lambda t, x: t.linalg.inv_ex(x).info, [sing], grad=False, device="cuda")
        check_op(lambda t, x: t.linalg.cholesky_ex(x), [not_pd], grad=False, device="cuda")
        check_op(lambda t, x: t.linalg.solve_ex(x, x[..., 0]).info, [sing], grad=False,
                 device="cuda")
        check_raises(lambda t, x: t.linalg.cholesky_ex(x, check_errors=True), [not_pd],
                     match="minor of order 2", device="cuda")
