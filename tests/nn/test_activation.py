"""Activations against torch: functionals (values, gradients, second order), torch's choices
at the kinks, large-|x| numerics, in-place forms, modules, reprs and bad-input errors."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

SELU_ALPHA = 1.6732632423543772848170429916717

# name -> (fn(lib, x), second_order): every activation of torch.nn.functional
FUNCS = {
    "threshold": (lambda t, x: t.nn.functional.threshold(x, 0.3, -1.5), True),
    "relu": (lambda t, x: t.nn.functional.relu(x), True),
    "relu6": (lambda t, x: t.nn.functional.relu6(x * 3), True),
    "hardtanh": (lambda t, x: t.nn.functional.hardtanh(x), True),
    "hardtanh_bounds": (lambda t, x: t.nn.functional.hardtanh(x, -0.5, 2.0), True),
    "elu": (lambda t, x: t.nn.functional.elu(x), True),
    "elu_alpha": (lambda t, x: t.nn.functional.elu(x, 0.4), True),
    "selu": (lambda t, x: t.nn.functional.selu(x), True),
    "celu": (lambda t, x: t.nn.functional.celu(x), True),
    "celu_alpha": (lambda t, x: t.nn.functional.celu(x, 2.5), True),
    "leaky_relu": (lambda t, x: t.nn.functional.leaky_relu(x), True),
    "leaky_relu_slope": (lambda t, x: t.nn.functional.leaky_relu(x, 0.3), True),
    "rrelu_eval": (lambda t, x: t.nn.functional.rrelu(x, 0.1, 0.4), True),
    "glu": (lambda t, x: t.nn.functional.glu(x, -1), True),
    "glu_dim0": (lambda t, x: t.nn.functional.glu(x.transpose(0, -1), 0), True),
    "gelu": (lambda t, x: t.nn.functional.gelu(x), True),
    "gelu_tanh": (lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), True),
    "logsigmoid": (lambda t, x: t.nn.functional.logsigmoid(x), True),
    "hardshrink": (lambda t, x: t.nn.functional.hardshrink(x), True),
    "hardshrink_lambd": (lambda t, x: t.nn.functional.hardshrink(x, 1.3), True),
    "tanhshrink": (lambda t, x: t.nn.functional.tanhshrink(x), True),
    "softsign": (lambda t, x: t.nn.functional.softsign(x), True),
    "softplus": (lambda t, x: t.nn.functional.softplus(x), True),
    "softplus_beta": (lambda t, x: t.nn.functional.softplus(x, 2.0, 3.0), True),
    "softplus_neg_beta": (lambda t, x: t.nn.functional.softplus(x, -0.5), True),
    "softshrink": (lambda t, x: t.nn.functional.softshrink(x), True),
    "softshrink_lambd": (lambda t, x: t.nn.functional.softshrink(x, 1.1), True),
    "tanh": (lambda t, x: t.nn.functional.tanh(x), True),
    "sigmoid": (lambda t, x: t.nn.functional.sigmoid(x), True),
    "hardsigmoid": (lambda t, x: t.nn.functional.hardsigmoid(x), False),  # torch: no 2nd
    "silu": (lambda t, x: t.nn.functional.silu(x), True),
    "mish": (lambda t, x: t.nn.functional.mish(x), True),
    "hardswish": (lambda t, x: t.nn.functional.hardswish(x), True),
    "prelu_scalar": (lambda t, x: t.nn.functional.prelu(x.reshape(1, -1),
                                                        t.tensor([0.3], dtype=x.dtype)), True),
    "softmax": (lambda t, x: t.nn.functional.softmax(x, -1), True),
    "softmin": (lambda t, x: t.nn.functional.softmin(x, 0), True),
    "log_softmax": (lambda t, x: t.nn.functional.log_softmax(x, -1), True),
    "softmax_dtype": (lambda t, x: t.nn.functional.softmax(x, 0, dtype=t.float64), True),
}
SHAPES = [(), (7,), (3, 4), (2, 3, 4), (0, 4)]
# inputs in [-4, 4) cross every kink and threshold of the table (the cut-offs of softplus
# with beta=2 and threshold=3, hardswish's +-3, ...)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCS))
def test_functional_matches_torch(name, shape, dtype):
    fn, second = FUNCS[name]
    if name.startswith("glu") and shape in ((), (7,)):
        shape = (8,)
    check_op(fn, [shape], low=-4.0, high=4.0, dtype=dtype, second_order=second,
             non_contiguous=shape == (3, 4))


@pytest.mark.parametrize("name", list(FUNCS))
def test_functional_float16_matches_torch(name):
    check_op(FUNCS[name][0], [(3, 4)], low=-4.0, high=4.0, dtype="float16",
             second_order=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("weight", [(1,), (3,), ()], ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2)], ids=str)
def test_prelu_matches_torch_with_weight_gradient(shape, weight, dtype):
    check_op(lambda t, x, w: t.nn.functional.prelu(x, w), [shape, weight], dtype=dtype,
             non_contiguous=len(shape) == 2)


def test_prelu_one_dimensional_input_has_one_channel():
    check_op(lambda t, x, w: t.nn.functional.prelu(x, w), [(6,), (1,)])
    check_op(lambda t, x, w: t.nn.functional.prelu(x, w), [(), (1,)])  # one slope: 0-d is ok


# ---------------------------------------------------------------------------------------------
# kinks, infinities and NaN: torch's sub-gradient choices, tested on purpose

KINKS = np.array([-np.inf, -6.0, -3.0, -1.0, -0.5, -0.3, -0.0, 0.0, 0.3, 0.5, 1.0, 3.0, 6.0,
                  np.inf, np.nan])
AT_KINKS = {
    "relu": lambda t, x: t.nn.functional.relu(x),
    "relu6": lambda t, x: t.nn.functional.relu6(x),
    "hardtanh": lambda t, x: t.nn.functional.hardtanh(x),
    "threshold": lambda t, x: t.nn.functional.threshold(x, 0.3, -2.0),
    "threshold_int_like": lambda t, x: t.nn.functional.threshold(x, 1.0, 0.5),
    "leaky_relu": lambda t, x: t.nn.functional.leaky_relu(x, 0.2),
    "leaky_relu_zero_slope": lambda t, x: t.nn.functional.leaky_relu(x, 0.0),
    "leaky_relu_steep": lambda t, x: t.nn.functional.leaky_relu(x, 2.5),
    "leaky_relu_negative_slope": lambda t, x: t.nn.functional.leaky_relu(x, -0.5),
    "rrelu_eval": lambda t, x: t.nn.functional.rrelu(x),
    "hardshrink": lambda t, x: t.nn.functional.hardshrink(x),
    "softshrink": lambda t, x: t.nn.functional.softshrink(x),
    "hardsigmoid": lambda t, x: t.nn.functional.hardsigmoid(x),
    "hardswish": lambda t, x: t.nn.functional.hardswish(x),
    "elu": lambda t, x: t.nn.functional.elu(x),
    "selu": lambda t, x: t.nn.functional.selu(x),
    "celu": lambda t, x: t.nn.functional.celu(x, 2.0),
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "softplus_threshold": lambda t, x: t.nn.functional.softplus(x, 2.0, 1.0),
    "logsigmoid": lambda t, x: t.nn.functional.logsigmoid(x),
    "sigmoid": lambda t, x: t.nn.functional.sigmoid(x),
    "softsign": lambda t, x: t.nn.functional.softsign(x),
    "tanhshrink": lambda t, x: t.nn.functional.tanhshrink(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(AT_KINKS))
def test_gradient_choice_at_kinks_matches_torch(name, dtype):
    """Values, gradients and (except hardsigmoid) second derivatives at the kinks, at the
    bounds, at +-0, +-inf and NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's inf - inf notes
        check_op(AT_KINKS[name], [KINKS.astype(dtype)], dtype=dtype,
                 second_order=name != "hardsigmoid")


SMOOTH_AT_ZERO = {
    "gelu": lambda t, x: t.nn.functional.gelu(x),
    "gelu_tanh": lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda t, x: t.nn.functional.silu(x),
    "mish": lambda t, x: t.nn.functional.mish(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SMOOTH_AT_ZERO))
def test_smooth_activations_at_zero_and_tails(name, dtype):
    x = np.array([-12.0, -6.0, -3.0, -0.0, 0.0, 1e-4, 3.0, 6.0, 12.0, np.nan], dtype=dtype)
    check_op(SMOOTH_AT_ZERO[name], [x], dtype=dtype)


LARGE = {
    "softplus": lambda t, x: t.nn.functional.softplus(x),
    "softplus_beta": lambda t, x: t.nn.functional.softplus(x, 0.5, 100.0),
    "logsigmoid": lambda t, x: t.nn.functional.logsigmoid(x),
    "sigmoid": lambda t, x: t.nn.functional.sigmoid(x),
    "silu": lambda t, x: t.nn.functional.silu(x),
    "mish": lambda t, x: t.nn.functional.mish(x),
    "elu": lambda t, x: t.nn.functional.elu(x),
    "selu": lambda t, x: t.nn.functional.selu(x),
    "celu": lambda t, x: t.nn.functional.celu(x, 0.5),
    "gelu": lambda t, x: t.nn.functional.gelu(x),
    "gelu_tanh": lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    "hardswish": lambda t, x: t.nn.functional.hardswish(x),
    "tanhshrink": lambda t, x: t.nn.functional.tanhshrink(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(LARGE))
def test_large_inputs_are_stable_and_silent(name, dtype):
    """At +-100 (and beyond) the values and gradients are torch's, with no NumPy warnings."""
    x = np.array([-1000.0, -100.0, -90.0, -50.0, -20.0, 20.0, 50.0, 90.0, 100.0, 1000.0],
                 dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # torch's own second derivative of mish overflows to NaN at +100; ours is finite
        check_op(LARGE[name], [x], dtype=dtype, second_order=name != "mish")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_tail_rounds_as_torch(dtype):
    """Deep in the left tail GELU is torch's x / 2 (1 + erf(x / sqrt 2)) in the dtype, whose
    1 + erf cancels (0 below about -5.5 in float32, -8 in float64), not the exact x Phi(x).
    float32: torch's oneDNN kernel for contiguous inputs has its own erf (a few ulps of 1)."""
    x = np.linspace(-12.0, 9.0, 2101).astype(dtype)
    got = numtorch.nn.functional.gelu(numtorch.from_numpy(x)).numpy()
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    atol = 4e-7 * np.abs(x) if dtype == "float32" else 2.3e-16 * np.abs(x)
    assert np.all(np.abs(got - want) <= atol)
    assert np.array_equal(got[x < -8] == 0, want[x < -8] == 0)


# ---------------------------------------------------------------------------------------------
# in-place forms

INPLACE = {
    "relu_": lambda t, x: t.nn.functional.relu_(x),
    "relu_kw": lambda t, x: t.nn.functional.relu(x, inplace=True),
    "relu6": lambda t, x: t.nn.functional.relu6(x, inplace=True),
    "threshold_": lambda t, x: t.nn.functional.threshold_(x, 0.2, 3.0),
    "threshold_kw": lambda t, x: t.nn.functional.threshold(x, 0.2, 3.0, True),
    "hardtanh_": lambda t, x: t.nn.functional.hardtanh_(x, -0.5, 0.5),
    "elu_": lambda t, x: t.nn.functional.elu_(x, 0.7),
    "elu_kw": lambda t, x: t.nn.functional.elu(x, inplace=True),
    "selu_": lambda t, x: t.nn.functional.selu_(x),
    "celu_": lambda t, x: t.nn.functional.celu_(x, 1.5),
    "leaky_relu_": lambda t, x: t.nn.functional.leaky_relu_(x, 0.1),
    "rrelu_eval_": lambda t, x: t.nn.functional.rrelu_(x),
    "silu_kw": lambda t, x: t.nn.functional.silu(x, inplace=True),
    "mish_kw": lambda t, x: t.nn.functional.mish(x, inplace=True),
    "hardswish_kw": lambda t, x: t.nn.functional.hardswish(x, inplace=True),
    "hardsigmoid_kw": lambda t, x: t.nn.functional.hardsigmoid(x, inplace=True),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_forms_match_torch(name):
    fn = INPLACE[name]

    def run(t, x):
        y = x * 1.0  # a non-leaf to write into
        out = fn(t, y)
        assert out is y
        return out * 2.0

    check_op(run, [(3, 5)], low=-4.0, high=4.0, second_order=name != "hardsigmoid_kw")


@pytest.mark.parametrize("name", ["relu_", "elu_", "leaky_relu_", "hardtanh_"])
def test_inplace_on_leaf_requiring_grad_raises(name):
    def run(t, x):
        x.requires_grad_(True)
        INPLACE[name](t, x)

    check_raises(run, [np.ones(3)], match="leaf Variable")


def test_relu_and_threshold_keep_integer_dtype():
    x = np.array([-3, 0, 2, 5])
    check_op(lambda t, v: t.nn.functional.relu(v), [x])
    check_op(lambda t, v: t.nn.functional.threshold(v, 1, 7.5), [x])
    check_op(lambda t, v: t.nn.functional.hardtanh(v, -1.5, 2.5), [x])
    check_op(lambda t, v: t.nn.functional.relu6(v), [x])
    check_op(lambda t, v: t.nn.functional.sigmoid(v), [x])


def test_complex_sigmoid_and_silu_match_torch():
    x = np.array([1 + 1j, -0.5j, 2 - 3j, 0.3 + 0.2j])
    check_op(lambda t, v: t.nn.functional.sigmoid(v), [x], second_order=False)
    check_op(lambda t, v: t.nn.functional.silu(v), [x.astype(np.complex64)], dtype="float32",
             grad=False)
    check_raises(lambda t, v: t.nn.functional.silu(v.requires_grad_()), [x],
                 match="silu does not support automatic differentiation")


# ---------------------------------------------------------------------------------------------
# the softmax family


def test_softmax_without_dim_warns_and_picks_torch_dim():
    for shape in [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        x = np.random.default_rng(0).standard_normal(shape)
        for name in ["softmax", "softmin", "log_softmax"]:
            with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name}"):
                got = getattr(numtorch.nn.functional, name)(numtorch.tensor(x))
            with pytest.warns(UserWarning):
                want = getattr(torch.nn.functional, name)(torch.tensor(x))
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_modules_match_torch(dtype):
    for make, shape in [(lambda t: t.nn.Softmax(dim=1), (3, 4, 5)),
                        (lambda t: t.nn.Softmin(dim=-1), (3, 4)),
                        (lambda t: t.nn.LogSoftmax(dim=0), (3, 4)),
                        (lambda t: t.nn.Softmax2d(), (2, 3, 4, 5)),
                        (lambda t: t.nn.Softmax2d(), (3, 4, 5))]:
        check_module(make, [shape], dtype=dtype)


def test_softmax_with_dtype_casts_integer_input():
    x = np.arange(6).reshape(2, 3)
    check_op(lambda t, v: t.nn.functional.log_softmax(v, 1, dtype=t.float32), [x],
             dtype="float32")
    check_op(lambda t, v: t.nn.functional.softmin(v, 1, dtype=t.float64), [x])


# ---------------------------------------------------------------------------------------------
# random activations: statistics and seeding (never value-for-value against torch)


def test_rrelu_training_slopes_are_uniform_and_are_the_gradient():
    numtorch.manual_seed(0)
    x = -numtorch.rand(200000, dtype=numtorch.float64) - 0.5
    x.requires_grad_(True)
    y = numtorch.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 3e-3
    assert abs(slopes.var() - 0.2 ** 2 / 12) < 1e-4  # the variance of U(0.1, 0.3)
    y.backward(numtorch.ones_like(y))
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)
    pos = numtorch.rand(10, dtype=numtorch.float64) + 0.1
    np.testing.assert_array_equal(
        numtorch.nn.functional.rrelu(pos, training=True).numpy(), pos.numpy())


def test_rrelu_training_is_reproducible_with_a_seed():
    x = numtorch.linspace(-2, 2, 50)
    numtorch.manual_seed(3)
    a = numtorch.nn.functional.rrelu(x, training=True)
    numtorch.manual_seed(3)
    b = numtorch.nn.functional.rrelu(x, training=True)
    c = numtorch.nn.functional.rrelu(x, training=True)
    assert bool((a == b).all()) and not bool((a == c).all())


def test_rrelu_module_uses_random_slopes_only_in_training():
    m = numtorch.nn.RReLU(0.1, 0.5)
    x = -numtorch.ones(1000)
    assert len(set(m(x).tolist())) > 100
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), np.full(1000, -0.3, dtype=np.float32))


def test_gumbel_softmax_samples_follow_the_softmax():
    numtorch.manual_seed(0)
    logits = numtorch.tensor([[1.0, 0.0, -1.0, 2.0]]).expand(40000, 4)
    y = numtorch.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    assert set(np.unique(y.numpy()).tolist()) == {0.0, 1.0}
    np.testing.assert_array_equal(y.sum(-1).numpy(), np.ones(40000, dtype=np.float32))
    freq = y.mean(0).numpy()
    want = torch.softmax(torch.tensor([1.0, 0.0, -1.0, 2.0]), 0).numpy()
    np.testing.assert_allclose(freq, want, atol=0.01)  # about 4 standard errors
    soft = numtorch.nn.functional.gumbel_softmax(logits[:5], tau=2.0, dim=1)
    np.testing.assert_allclose(soft.sum(1).numpy(), np.ones(5), rtol=1e-6)
    assert float(soft.min()) > 0


def test_gumbel_softmax_hard_gradient_is_the_soft_gradient():
    logits = numtorch.randn(3, 5, requires_grad=True)
    g = numtorch.randn(3, 5)
    numtorch.manual_seed(7)
    numtorch.nn.functional.gumbel_softmax(logits, hard=True).backward(g)
    hard_grad = logits.grad.clone()
    logits.grad = None
    numtorch.manual_seed(7)
    numtorch.nn.functional.gumbel_softmax(logits, hard=False).backward(g)
    np.testing.assert_allclose(hard_grad.numpy(), logits.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_gumbel_softmax_eps_is_deprecated():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        numtorch.nn.functional.gumbel_softmax(numtorch.zeros(2, 3), eps=1e-5)


# ---------------------------------------------------------------------------------------------
# modules

MODULES = {
    "Threshold": (lambda t: t.nn.Threshold(0.1, 20.0), (3, 4)),
    "ReLU": (lambda t: t.nn.ReLU(), (3, 4)),
    "RReLU_eval": (lambda t: t.nn.RReLU(0.2, 0.6), (3, 4)),
    "Hardtanh": (lambda t: t.nn.Hardtanh(-0.5, 1.5), (3, 4)),
    "ReLU6": (lambda t: t.nn.ReLU6(), (3, 4)),
    "Sigmoid": (lambda t: t.nn.Sigmoid(), (3, 4)),
    "Hardsigmoid": (lambda t: t.nn.Hardsigmoid(), (3, 4)),
    "Tanh": (lambda t: t.nn.Tanh(), (3, 4)),
    "SiLU": (lambda t: t.nn.SiLU(), (3, 4)),
    "Mish": (lambda t: t.nn.Mish(), (3, 4)),
    "Hardswish": (lambda t: t.nn.Hardswish(), (3, 4)),
    "ELU": (lambda t: t.nn.ELU(0.5), (3, 4)),
    "CELU": (lambda t: t.nn.CELU(1.5), (3, 4)),
    "SELU": (lambda t: t.nn.SELU(), (3, 4)),
    "GLU": (lambda t: t.nn.GLU(1), (3, 4)),
    "GELU": (lambda t: t.nn.GELU(), (3, 4)),
    "GELU_tanh": (lambda t: t.nn.GELU("tanh"), (3, 4)),
    "Hardshrink": (lambda t: t.nn.Hardshrink(0.7), (3, 4)),
    "LeakyReLU": (lambda t: t.nn.LeakyReLU(0.2), (3, 4)),
    "LogSigmoid": (lambda t: t.nn.LogSigmoid(), (3, 4)),
    "Softplus": (lambda t: t.nn.Softplus(1.5, 2.0), (3, 4)),
    "Softshrink": (lambda t: t.nn.Softshrink(0.3), (3, 4)),
    "PReLU": (lambda t: t.nn.PReLU(), (3, 4)),
    "PReLU_channels": (lambda t: t.nn.PReLU(4, init=0.1), (2, 4, 3)),
    "PReLU_image": (lambda t: t.nn.PReLU(3), (2, 3, 2, 2)),
    "Softsign": (lambda t: t.nn.Softsign(), (3, 4)),
    "Tanhshrink": (lambda t: t.nn.Tanhshrink(), (3, 4)),
    "ReLU_inplace": (lambda t: t.nn.Sequential(t.nn.Linear(4, 4), t.nn.ReLU(inplace=True)),
                     (3, 4)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(MODULES))
def test_module_matches_torch(name, dtype):
    make, shape = MODULES[name]
    check_module(make, [shape], dtype=dtype, low=-4.0, high=4.0, train=name != "RReLU_eval")


def test_prelu_parameter_is_initialised_like_torch():
    m = numtorch.nn.PReLU(5, init=0.4, dtype=numtorch.float64)
    assert isinstance(m.weight, numtorch.nn.Parameter) and m.weight.requires_grad
    assert m.weight.dtype is numtorch.float64 and tuple(m.weight.shape) == (5,)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(5, 0.4))
    assert [n for n, _ in m.named_parameters()] == ["weight"]


REPRS = [
    lambda t: t.nn.Threshold(0.1, 20),
    lambda t: t.nn.Threshold(1, 2.5, inplace=True),
    lambda t: t.nn.ReLU(), lambda t: t.nn.ReLU(True),
    lambda t: t.nn.RReLU(), lambda t: t.nn.RReLU(0.1, 0.3, True),
    lambda t: t.nn.Hardtanh(), lambda t: t.nn.Hardtanh(-2, 3, True),
    lambda t: t.nn.ReLU6(), lambda t: t.nn.ReLU6(inplace=True),
    lambda t: t.nn.Sigmoid(), lambda t: t.nn.Hardsigmoid(True), lambda t: t.nn.Tanh(),
    lambda t: t.nn.SiLU(True), lambda t: t.nn.Mish(), lambda t: t.nn.Hardswish(True),
    lambda t: t.nn.ELU(), lambda t: t.nn.ELU(2, True), lambda t: t.nn.CELU(0.5),
    lambda t: t.nn.SELU(True), lambda t: t.nn.GLU(), lambda t: t.nn.GLU(0),
    lambda t: t.nn.GELU(), lambda t: t.nn.GELU("tanh"), lambda t: t.nn.Hardshrink(),
    lambda t: t.nn.Hardshrink(1), lambda t: t.nn.LeakyReLU(),
    lambda t: t.nn.LeakyReLU(0.2, True), lambda t: t.nn.LogSigmoid(),
    lambda t: t.nn.Softplus(), lambda t: t.nn.Softplus(2, 10), lambda t: t.nn.Softshrink(),
    lambda t: t.nn.PReLU(), lambda t: t.nn.PReLU(3, 0.1), lambda t: t.nn.Softsign(),
    lambda t: t.nn.Tanhshrink(), lambda t: t.nn.Softmin(1), lambda t: t.nn.Softmax(),
    lambda t: t.nn.Softmax(dim=-1), lambda t: t.nn.Softmax2d(),
    lambda t: t.nn.LogSoftmax(0),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_module_repr_matches_torch(i):
    assert repr(REPRS[i](numtorch)) == repr(REPRS[i](torch))


def test_modules_importable_from_torch_paths():
    from numtorch.nn.modules import activation

    for name in activation.__all__:
        assert getattr(numtorch.nn, name) is getattr(activation, name)
        assert hasattr(torch.nn.modules.activation, name)


def test_hardtanh_module_arguments():
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        m = numtorch.nn.Hardtanh(min_value=-3.0)
    assert m.min_val == -3.0
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        assert numtorch.nn.Hardtanh(max_value=4.0).max_val == 4.0
    check_raises(lambda t: t.nn.Hardtanh(2.0, 1.0), match="must be greater than min_val")
    assert numtorch.nn.ReLU6().min_val == 0.0 and numtorch.nn.ReLU6().max_val == 6.0


def test_inplace_module_writes_into_its_input():
    x = numtorch.tensor([-1.0, 2.0])
    assert numtorch.nn.ReLU(inplace=True)(x) is x
    assert x.tolist() == [0.0, 2.0]


# ---------------------------------------------------------------------------------------------
# bad input

F_ERRORS = [
    ("glu_odd", lambda t, x: t.nn.functional.glu(x), [np.ones((2, 3))], "Halving dimension"),
    ("glu_odd_dim0", lambda t, x: t.nn.functional.glu(x, 0), [np.ones((3, 2))],
     "dimension 0 is size 3"),
    ("glu_scalar", lambda t, x: t.nn.functional.glu(x), [np.array(1.0)], "scalars"),
    ("glu_dim", lambda t, x: t.nn.functional.glu(x, 2), [np.ones((2, 4))],
     "Dimension out of range"),
    ("glu_int", lambda t, x: t.nn.functional.glu(x), [np.ones(4, dtype=np.int64)], "glu_cpu"),
    ("prelu_mismatch", lambda t, x: t.nn.PReLU(3)(x), [np.ones((2, 4), dtype=np.float32)],
     "Found parameter numbers = 3 and channel size = 4."),
    ("prelu_1d_mismatch", lambda t, x: t.nn.PReLU(3)(x), [np.ones(3, dtype=np.float32)],
     "channel size = 1"),
    ("prelu_0d", lambda t, x: t.nn.PReLU(2)(x), [np.array(1.0, dtype=np.float32)],
     "Not allow zero-dim input tensor."),
    ("prelu_2d_weight", lambda t, x, w: t.nn.functional.prelu(x, w),
     [np.ones((2, 2)), np.ones((2, 2))], "ndim = 2"),
    ("prelu_dtype", lambda t, x, w: t.nn.functional.prelu(x, w),
     [np.ones((2, 2)), np.ones(2, dtype=np.float32)], "Type promoting not supported"),
    ("gelu_approximate", lambda t, x: t.nn.functional.gelu(x, approximate="erf"),
     [np.ones(2)], "approximate argument must be either none or tanh."),
    ("gelu_module_approximate", lambda t, x: t.nn.GELU("fast")(x), [np.ones(2)],
     "approximate argument"),
    ("hardtanh_bounds", lambda t, x: t.nn.functional.hardtanh(x, 2.0, 1.0), [np.ones(2)],
     "min_val cannot be greater than max_val"),
    ("rrelu_bounds", lambda t, x: t.nn.functional.rrelu(x, 0.5, 0.1, True), [np.ones(2)],
     "Lower bound should be less than or equal to the upper bound"),
    ("rrelu_bounds_eval", lambda t, x: t.nn.RReLU(0.5, 0.1).eval()(x), [np.ones(2)],
     "Lower bound"),
    ("softshrink_lambda", lambda t, x: t.nn.functional.softshrink(x, -1.0),
     [np.ones(2, dtype=np.float32)],
     "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -1"),
    ("celu_zero", lambda t, x: t.nn.functional.celu(x, 0.0), [np.ones(2)],
     "alpha cannot be 0 for CELU"),
    ("relu_bool", lambda t, x: t.nn.functional.relu(x), [np.ones(2, dtype=bool)],
     "Boolean inputs not supported for relu"),
    ("relu_complex", lambda t, x: t.nn.functional.relu(x), [np.ones(2, dtype=np.complex64)],
     "clamp is not supported for complex types"),
    ("hardtanh_bool", lambda t, x: t.nn.functional.hardtanh(x), [np.ones(2, dtype=bool)],
     "Bool inputs not supported for hardtanh"),
    ("relu_list", lambda t: t.nn.functional.relu([1.0, 2.0]), [],
     "argument 'input' (position 1) must be Tensor, not list"),
    ("softmax2d_dims", lambda t, x: t.nn.Softmax2d()(x), [np.ones((2, 2))],
     "Softmax2d: expected input to be 3D or 4D, got 2D instead"),
    ("softmax_dim", lambda t, x: t.nn.functional.softmax(x, 2), [np.ones((2, 2))],
     "Dimension out of range"),
    ("softmax_int", lambda t, x: t.nn.functional.softmax(x, 0), [np.ones(3, dtype=np.int64)],
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("log_softmax_int", lambda t, x: t.nn.functional.log_softmax(x, 0),
     [np.ones(3, dtype=np.int64)], "log_softmax_lastdim_kernel_impl"),
]
FLOAT_ONLY = [("elu", "elu_cpu"), ("selu", "elu_cpu"), ("celu", "elu_cpu"),
              ("leaky_relu", "leaky_relu_cpu"), ("hardshrink", "hardshrink_cpu"),
              ("softshrink", "softshrink_check"), ("hardsigmoid", "hardsigmoid_cpu"),
              ("hardswish", "hardswish_cpu"), ("softplus", "softplus_cpu"),
              ("logsigmoid", "log_sigmoid_cpu"), ("silu", "silu_cpu"), ("mish", "mish_cpu"),
              ("gelu", "GeluKernelImpl"), ("rrelu", "leaky_relu_cpu")]
for _name, _kernel in FLOAT_ONLY:
    for _dt, _disp in [(np.int64, "Long"), (np.bool_, "Bool")]:
        F_ERRORS.append((f"{_name}_{_disp}",
                         (lambda n: lambda t, x: getattr(t.nn.functional, n)(x))(_name),
                         [np.ones(3, dtype=_dt)], f'"{_kernel}" not implemented for \'{_disp}\''))
F_ERRORS.append(("threshold_bool", lambda t, x: t.nn.functional.threshold(x, 0, 1),
                 [np.ones(2, dtype=bool)], "\"threshold_cpu\" not implemented for 'Bool'"))
F_ERRORS.append(("rrelu_train_int", lambda t, x: t.nn.functional.rrelu(x, training=True),
                 [np.ones(2, dtype=np.int64)], "rrelu_with_noise_out_cpu"))


@pytest.mark.parametrize("case", F_ERRORS, ids=[c[0] for c in F_ERRORS])
def test_bad_input_raises_like_torch(case):
    _, fn, arrays, match = case
    check_raises(fn, arrays, match=match)


def test_hardsigmoid_double_backward_raises_like_torch():
    def run(t, x):
        x.requires_grad_(True)
        y = t.nn.functional.hardsigmoid(x)
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        t.autograd.grad(g.sum(), x)

    check_raises(run, [np.array([0.5, 1.0])], match="hardsigmoid_backward is not implemented")
