"""Regression losses against torch: l1, mse, smooth l1, huber, Poisson/Gaussian NLL, KL div.

Values, gradients with respect to input and target (random cotangent) and second order,
float64 and float32, every reduction; torch's warnings and errors.
"""

import warnings

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
REDUCTIONS = ["none", "mean", "sum"]


def rnd(shape, dtype, low=-2.0, high=2.0, seed=1):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _quiet(fn):
    """Run fn with warnings silenced (the size-mismatch warning is tested on its own)."""
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["l1_loss", "mse_loss"])
def test_l1_mse_match_torch(name, reduction, dtype):
    check_op(lambda t, x, y: getattr(t.nn.functional, name)(x, y, reduction=reduction),
             [(3, 4), (3, 4)], dtype=dtype)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("shapes", [[(3, 4), (4,)], [(4,), (3, 4)], [(), (2, 3)],
                                    [(0, 3), (0, 3)]])
def test_pointwise_losses_broadcast_and_empty_like_torch(name, shapes):
    check_op(_quiet(lambda t, x, y: getattr(t.nn.functional, name)(x, y)), shapes)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss"])
def test_weighted_pointwise_losses_match_torch(name, reduction, dtype):
    w = rnd((3, 4), dtype, 0.1, 1.0, seed=5)
    check_op(lambda t, x, y, w: getattr(t.nn.functional, name)(x, y, reduction=reduction,
                                                                weight=w),
             [(3, 4), (3, 4), w], dtype=dtype)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss"])
def test_weighted_losses_reject_weight_of_other_size(name):
    check_raises(lambda t, x, y, w: getattr(t.nn.functional, name)(x, y, weight=w),
                 [rnd((3, 4), "float32"), rnd((3, 4), "float32"), rnd((4,), "float32")],
                 match="Weights and input must have the same size.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.5, 0.0])
def test_smooth_l1_matches_torch(beta, reduction, dtype):
    check_op(lambda t, x, y: t.nn.functional.smooth_l1_loss(x, y, reduction=reduction,
                                                             beta=beta),
             [(4, 5), (4, 5)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.3, 3.0])
def test_huber_matches_torch(delta, reduction, dtype):
    check_op(lambda t, x, y: t.nn.functional.huber_loss(x, y, reduction=reduction,
                                                         delta=delta),
             [(4, 5), (4, 5)], dtype=dtype)


def test_smooth_l1_and_huber_reject_bad_parameters():
    x = rnd((3,), "float32")
    check_raises(lambda t, a: t.nn.functional.smooth_l1_loss(a, a, beta=-1.0), [x],
                 match="smooth_l1_loss does not support negative values for beta.")
    for delta in (0.0, -1.0):
        check_raises(lambda t, a: t.nn.functional.huber_loss(a, a, delta=delta), [x],
                     match="huber_loss does not support non-positive values for delta.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (True, True), (False, False),
                                            (False, True)])
def test_poisson_nll_matches_torch(log_input, full, reduction, dtype):
    low = -1.0 if log_input else 0.2
    x = rnd((3, 4), dtype, low, 2.0, seed=2)
    # counts, some <= 1 (no Stirling term), some above; positive so log(target) is finite
    y = rnd((3, 4), dtype, 0.2, 5.0, seed=3)
    check_op(lambda t, x, y: t.nn.functional.poisson_nll_loss(
        x, y, log_input=log_input, full=full, reduction=reduction), [x, y], dtype=dtype)


def test_poisson_nll_eps_and_zero_counts_match_torch():
    x = rnd((5,), "float64", 0.0, 2.0)
    x[0] = 0.0
    y = np.array([0.0, 1.0, 2.0, 0.0, 7.0])
    check_op(lambda t, x, y: t.nn.functional.poisson_nll_loss(x, y, log_input=False, eps=0.1,
                                                               full=True, reduction="none"),
             [x, y], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("var_shape", [(3, 4), (3,), (3, 1), (1, 4)])
def test_gaussian_nll_matches_torch(var_shape, full, reduction, dtype):
    v = rnd(var_shape, dtype, 0.2, 2.0, seed=4)
    check_op(lambda t, x, y, v: t.nn.functional.gaussian_nll_loss(x, y, v, full=full,
                                                                   reduction=reduction),
             [(3, 4), (3, 4), v], dtype=dtype)


def test_gaussian_nll_float_var_and_eps_clamp_match_torch():
    check_op(lambda t, x, y: t.nn.functional.gaussian_nll_loss(x, y, 0.5), [(3, 4), (3, 4)])
    # variances under eps are clamped in value but keep their gradient (torch's no_grad clamp)
    v = np.array([1e-9, 0.5, 1e-8, 2.0])
    check_op(lambda t, x, y, v: t.nn.functional.gaussian_nll_loss(x, y, v, eps=1e-3),
             [(4,), (4,), v], rtol=1e-6)


@pytest.mark.parametrize("var_shape", [(4,), (3, 2), (1, 1), (2, 3, 4)])
def test_gaussian_nll_rejects_var_of_incorrect_size(var_shape):
    check_raises(lambda t, x, v: t.nn.functional.gaussian_nll_loss(x, x, v),
                 [rnd((3, 4), "float32"), rnd(var_shape, "float32", 0.1, 1.0)],
                 match="var is of incorrect size")


def test_gaussian_nll_rejects_negative_var_and_bad_reduction():
    x = rnd((3, 4), "float32")
    check_raises(lambda t, a: t.nn.functional.gaussian_nll_loss(a, a, -0.5), [x],
                 match="var has negative entry/entries")
    check_raises(lambda t, a: t.nn.functional.gaussian_nll_loss(a, a, -a.abs()), [x],
                 match="var has negative entry/entries")
    check_raises(lambda t, a: t.nn.functional.gaussian_nll_loss(a, a, a.abs(), reduction="x"),
                 [x], match="x is not valid")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(log_target, reduction, dtype):
    y = rnd((3, 4), dtype, -2.0, 0.0, seed=6) if log_target else rnd((3, 4), dtype, 0.1, 1.0)
    check_op(_quiet(lambda t, x, y: t.nn.functional.kl_div(x, y, reduction=reduction,
                                                            log_target=log_target)),
             [(3, 4), y], dtype=dtype)


def test_kl_div_zero_target_and_scalar_batchmean_match_torch():
    y = np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    check_op(lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="none"), [(2, 3), y],
             grad=False)
    check_op(lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="batchmean"),
             [(), np.array(0.3)])


def test_kl_div_mean_warns_like_torch():
    import numtorch
    import torch

    for lib in (numtorch, torch):
        x = lib.zeros(2, 3)
        with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
            lib.nn.functional.kl_div(x, x.exp())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.functional.kl_div(x, x.exp(), reduction="batchmean")


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_target_size_mismatch_warns_like_torch(name):
    import numtorch
    import torch

    msgs = []
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning) as rec:
            getattr(lib.nn.functional, name)(lib.zeros(3, 4), lib.zeros(4))
        msgs.append(str(rec[0].message))
        assert rec[0].filename == __file__  # points at the caller, as torch's stacklevel
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "kl_div",
                                  "poisson_nll_loss"])
def test_invalid_reduction_raises_value_error(name):
    x = rnd((3,), "float32", 0.1, 1.0)
    check_raises(lambda t, a: getattr(t.nn.functional, name)(a, a, reduction="foo"), [x],
                 match="foo is not a valid value for reduction")


def test_incompatible_shapes_raise_like_torch():
    a, b = rnd((3, 4), "float32"), rnd((2, 4), "float32")
    for name in ("l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "poisson_nll_loss"):
        check_raises(_quiet(lambda t, x, y: getattr(t.nn.functional, name)(x, y)), [a, b],
                     match="must match the size of tensor b")


def test_integer_inputs_follow_torch():
    x = np.arange(6).reshape(2, 3)
    y = np.arange(6).reshape(2, 3)[::-1].copy()
    check_op(lambda t, a, b: t.nn.functional.l1_loss(a, b, reduction="none"), [x, y],
             grad=False)
    check_op(lambda t, a, b: t.nn.functional.l1_loss(a, b, reduction="sum"), [x, y],
             grad=False)
    for name in ("mse_loss", "smooth_l1_loss", "huber_loss"):
        check_raises(lambda t, a, b: getattr(t.nn.functional, name)(a, b), [x, y])


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "poisson_nll_loss",
                                  "kl_div"])
@pytest.mark.parametrize("size_average,reduce", [(None, False), (False, None), (True, True),
                                                 (False, True), (True, False)])
def test_legacy_size_average_reduce_map_like_torch(name, size_average, reduce):
    x = rnd((3, 4), "float64", 0.1, 1.0)
    y = rnd((3, 4), "float64", 0.1, 1.0, seed=9)
    fn = _quiet(lambda t, a, b: getattr(t.nn.functional, name)(
        a, b, size_average=size_average, reduce=reduce, reduction="sum"))
    check_op(fn, [x, y], second_order=False)


def test_legacy_arguments_warn_like_torch():
    import numtorch
    import torch

    msgs = []
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning) as rec:
            lib.nn.functional.mse_loss(lib.zeros(2), lib.zeros(2), size_average=False)
        msgs.append([str(r.message) for r in rec])
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}),
                                     ("smooth_l1_loss", {"beta": 0.7}),
                                     ("huber_loss", {"delta": 0.7})])
def test_fused_pointwise_backward_differentiates_in_the_cotangent(name, kw, reduction):
    import numtorch
    import torch

    x, y = rnd((3, 4), "float64"), rnd((3, 4), "float64", seed=2)
    res = []
    for lib in (numtorch, torch):
        a, b = lib.from_numpy(x.copy()).requires_grad_(), lib.from_numpy(y.copy())
        out = getattr(lib.nn.functional, name)(a, b, reduction=reduction, **kw)
        u = lib.ones(tuple(out.shape), dtype=lib.float64).mul(1.5).requires_grad_()
        (g,) = lib.autograd.grad(out, a, u, create_graph=True)
        (gu,) = lib.autograd.grad((g * lib.from_numpy(y.copy())).sum(), u)
        res.append(gu.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-12)


def test_elementwise_mean_is_the_deprecated_mean_like_torch():
    import numtorch
    import torch

    vals = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(rnd((3, 4), "float64"))
        with pytest.warns(UserWarning, match="reduction='elementwise_mean' is deprecated"):
            vals.append(float(lib.nn.functional.mse_loss(x, x * 0.5,
                                                         reduction="elementwise_mean")))
    np.testing.assert_allclose(vals[0], vals[1], rtol=1e-12)
