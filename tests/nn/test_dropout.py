"""Dropout: statistics, channel-wise masks, alpha dropout's moments, seeding, gradients, the
deterministic cases against torch (eval, p = 0, p = 1), warnings, errors and modules."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

F = numtorch.nn.functional

CHANNELWISE = [  # (function name, input shape, dims over which the mask is constant)
    ("dropout1d", (6, 40, 5), (2,)),
    ("dropout1d", (40, 5), (1,)),
    ("dropout2d", (6, 40, 3, 4), (2, 3)),
    ("dropout3d", (6, 40, 2, 3, 2), (2, 3, 4)),
    ("dropout3d", (40, 2, 3, 2), (1, 2, 3)),
    ("feature_alpha_dropout", (6, 40, 3, 4), (2, 3)),
]


def _call(name, x, p, **kw):
    training = kw.pop("training", True)
    return getattr(F, name)(x, p, training=training, **kw)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("dtype", [numtorch.float32, numtorch.float64])
def test_dropout_keeps_with_probability_one_minus_p_and_scales(p, dtype):
    numtorch.manual_seed(0)
    n = 200000
    x = numtorch.ones(n, dtype=dtype)
    y = F.dropout(x, p)
    assert y.dtype is dtype and tuple(y.shape) == (n,)
    v = y.numpy()
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1.0 / (1.0 - p), rtol=1e-6)
    sigma = np.sqrt(p * (1 - p) / n)
    assert abs(kept.mean() - (1 - p)) < 5 * sigma
    assert abs(v.mean() - 1.0) < 5 * sigma / (1 - p)  # the expectation is preserved


def test_dropout_gradient_is_mask_times_scale():
    numtorch.manual_seed(1)
    x = numtorch.randn(50, 40, dtype=numtorch.float64, requires_grad=True)
    g = numtorch.randn(50, 40, dtype=numtorch.float64)
    y = F.dropout(x, 0.3)
    y.backward(g)
    noise = (y / x).detach().numpy()
    assert set(np.round(np.unique(noise), 12)) == {0.0, round(1 / 0.7, 12)}
    np.testing.assert_allclose(x.grad.numpy(), g.numpy() * noise, rtol=1e-12)


@pytest.mark.parametrize("name", ["dropout", "dropout2d", "alpha_dropout",
                                  "feature_alpha_dropout"])
def test_second_order_gradient_is_zero(name):
    x = numtorch.randn(4, 6, 3, dtype=numtorch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = _call(name, x, 0.4)
    (g,) = numtorch.autograd.grad(y.sum(), x, create_graph=True)
    if g.requires_grad:  # the gradient is a constant mask: its own gradient is zero
        (gg,) = numtorch.autograd.grad(g.sum(), x, allow_unused=True)
        assert gg is None or float(gg.abs().sum()) == 0.0


@pytest.mark.parametrize("name,shape,spatial", CHANNELWISE,
                         ids=[f"{c[0]}-{len(c[1])}d" for c in CHANNELWISE])
def test_channelwise_masks_are_constant_over_spatial_dims(name, shape, spatial):
    numtorch.manual_seed(2)
    x = numtorch.ones(*shape, dtype=numtorch.float64)
    y = _call(name, x, 0.5).numpy()
    first = y[(Ellipsis,) + (slice(0, 1),) * len(spatial)]
    np.testing.assert_array_equal(y, np.broadcast_to(first, y.shape))
    if name.startswith("dropout"):
        kept = first != 0
        np.testing.assert_allclose(first[kept], 2.0)
        assert 0.3 < kept.mean() < 0.7  # 240 or 40 channels, one draw each


@pytest.mark.parametrize("name,shape,spatial", CHANNELWISE,
                         ids=[f"{c[0]}-{len(c[1])}d" for c in CHANNELWISE])
def test_channelwise_gradient_is_the_channel_mask(name, shape, spatial):
    numtorch.manual_seed(3)
    x = numtorch.ones(*shape, dtype=numtorch.float64, requires_grad=True)
    y = _call(name, x, 0.5)
    y.backward(numtorch.ones_like(y))
    expected = 2.0 * (y.detach().numpy() != 0) if name.startswith("dropout") else None
    if expected is not None:
        np.testing.assert_allclose(x.grad.numpy(), expected)
    else:
        g = x.grad.numpy()
        assert set(np.unique(np.round(g, 12))) <= {0.0, round(g.max(), 12)}


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout"])
def test_alpha_dropout_keeps_mean_and_variance_of_selu_outputs(name, p):
    numtorch.manual_seed(4)
    # SELU outputs of standard-normal pre-activations have mean ~0 and variance ~1
    x = F.selu(numtorch.randn(4000, 100, dtype=numtorch.float64))
    m0, v0 = x.mean().item(), x.var().item()
    y = _call(name, x, p)
    assert abs(y.mean().item() - m0) < 0.02
    assert abs(y.var().item() - v0) < 0.03
    if name == "alpha_dropout":  # dropped units all take a * (-s) + b = -s a (1 - p)
        s = 1.6732632423543772 * 1.0507009873554805
        a = ((s * s * p + 1) * (1 - p)) ** -0.5
        frac = np.isclose(y.numpy(), -s * a * (1 - p), rtol=0, atol=1e-12).mean()
        assert abs(frac - p) < 0.01


def test_alpha_dropout_gradient_is_the_scaled_mask():
    numtorch.manual_seed(5)
    x = numtorch.randn(300, 20, dtype=numtorch.float64, requires_grad=True)
    y = F.alpha_dropout(x, 0.3, training=True)
    y.backward(numtorch.ones_like(y))
    g = x.grad.numpy()
    s = 1.6732632423543772 * 1.0507009873554805
    a = ((s * s * 0.3 + 1) * 0.7) ** -0.5
    assert set(np.unique(np.round(g, 12))) == {0.0, round(a, 12)}
    assert abs((g == 0).mean() - 0.3) < 0.02


@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d",
                                  "alpha_dropout", "feature_alpha_dropout"])
def test_manual_seed_reproduces_masks(name):
    shape = {"dropout1d": (4, 8, 3), "dropout3d": (4, 8, 2, 2, 2)}.get(name, (4, 8, 3, 3))
    x = numtorch.randn(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numtorch.manual_seed(11)
        a = _call(name, x, 0.5)
        numtorch.manual_seed(11)
        b = _call(name, x, 0.5)
        c = _call(name, x, 0.5)
    assert bool((a == b).all())
    assert not bool((a == c).all())


@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d",
                                  "alpha_dropout", "feature_alpha_dropout"])
def test_eval_mode_and_zero_p_return_the_input(name):
    x = numtorch.randn(2, 3, 4, 5)
    if name == "dropout1d":
        x = x[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_eval = _call(name, x, 0.5, training=False)
        out_zero = _call(name, x, 0.0)
    np.testing.assert_array_equal(out_eval.numpy(), x.numpy())
    np.testing.assert_array_equal(out_zero.numpy(), x.numpy())
    if name in ("dropout", "alpha_dropout", "feature_alpha_dropout", "dropout2d"):
        assert out_eval is x  # torch hands back the very same tensor


DETERMINISTIC = {  # p == 0, p == 1 and eval: no randomness, so compared with torch
    "dropout_p1": lambda t, x: t.nn.functional.dropout(x, 1.0),
    "dropout_p0": lambda t, x: t.nn.functional.dropout(x, 0.0),
    "dropout_eval": lambda t, x: t.nn.functional.dropout(x, 0.5, training=False),
    "dropout2d_p1": lambda t, x: t.nn.functional.dropout2d(x, 1.0),
    "dropout3d_p1": lambda t, x: t.nn.functional.dropout3d(x.unsqueeze(0), 1.0),
    "dropout1d_p1": lambda t, x: t.nn.functional.dropout1d(x[0], 1.0),
    "alpha_p1": lambda t, x: t.nn.functional.alpha_dropout(x, 1.0, True),
    "alpha_eval": lambda t, x: t.nn.functional.alpha_dropout(x, 0.5),
    "feature_alpha_p1": lambda t, x: t.nn.functional.feature_alpha_dropout(x, 1.0, True),
    "inplace_p1": lambda t, x: t.nn.functional.dropout(x * 1.0, 1.0, inplace=True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(DETERMINISTIC))
def test_deterministic_cases_match_torch(name, dtype):
    check_op(DETERMINISTIC[name], [(2, 3, 4, 2)], dtype=dtype)


def test_p_one_keeps_nan_like_torch():
    x = np.array([np.nan, 1.0, -2.0])
    check_op(lambda t, v: t.nn.functional.dropout(v, 1.0), [x])
    check_op(lambda t, v: t.nn.functional.alpha_dropout(v, 1.0, True), [x])


@pytest.mark.parametrize("name", ["dropout", "dropout2d", "alpha_dropout"])
def test_inplace_writes_into_input(name):
    numtorch.manual_seed(6)
    x = numtorch.ones(3, 4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = _call(name, x, 0.5, inplace=True)
    assert y is x
    assert bool(((x == 2) | (x == 0)).all()) if name != "alpha_dropout" else \
        len(np.unique(x.numpy())) == 2


def test_inplace_tracks_gradient_through_a_non_leaf():
    numtorch.manual_seed(7)
    w = numtorch.ones(10, 10, requires_grad=True)
    y = w * 3.0
    F.dropout(y, 0.5, inplace=True)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3.0 * (y.detach().numpy() != 0) * 2.0)


# ---------------------------------------------------------------------------------------------
# errors and warnings


@pytest.mark.parametrize("p", [-0.1, 1.5, 2])
@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d",
                                  "alpha_dropout", "feature_alpha_dropout"])
def test_probability_outside_unit_interval_raises(name, p):
    check_raises(lambda t, x: getattr(t.nn.functional, name)(x, p), [np.ones((2, 3, 4))],
                 match=f"dropout probability has to be between 0 and 1, but got {p}")


@pytest.mark.parametrize("cls", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                 "AlphaDropout", "FeatureAlphaDropout"])
def test_module_constructor_checks_p(cls):
    check_raises(lambda t: getattr(t.nn, cls)(1.2),
                 match="dropout probability has to be between 0 and 1, but got 1.2")
    check_raises(lambda t: getattr(t.nn, cls)(-1), match="but got -1")


@pytest.mark.parametrize("shape", [(3,), (2, 2, 2, 2)], ids=str)
def test_dropout1d_requires_2d_or_3d(shape):
    check_raises(lambda t, x: t.nn.functional.dropout1d(x), [np.ones(shape)],
                 match=f"dropout1d: Expected 2D or 3D input, but received a {len(shape)}D")
    check_raises(lambda t, x: t.nn.functional.dropout1d(x, training=False), [np.ones(shape)],
                 match="Expected 2D or 3D input")


def test_feature_dropout_requires_two_dims():
    check_raises(lambda t, x: t.nn.functional.feature_alpha_dropout(x, 0.5, True),
                 [np.ones(3)], match="Feature dropout requires at least 2 dimensions")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_raises(lambda t, x: t.nn.functional.dropout2d(x), [np.ones(3)],
                     match="Feature dropout requires at least 2 dimensions")


@pytest.mark.parametrize("name,shape,match", [
    ("dropout2d", (2, 3, 4), "Received a 3D input to dropout2d"),
    ("dropout2d", (2, 3), "Received a 2-D input to dropout2d, which is deprecated"),
    ("dropout2d", (2, 3, 2, 2, 2), "Received a 5-D input to dropout2d"),
    ("dropout3d", (2, 3, 4), "Received a 3-D input to dropout3d, which is deprecated"),
    ("dropout3d", (2, 3, 2, 2, 2, 2), "Received a 6-D input to dropout3d"),
])
def test_deprecated_ranks_warn_like_torch(name, shape, match):
    for lib in (numtorch, torch):
        with pytest.warns(UserWarning, match=match):
            getattr(lib.nn.functional, name)(lib.ones(*shape), 0.5)


def test_dropout2d_reads_3d_input_as_batched_1d():
    numtorch.manual_seed(8)
    with pytest.warns(UserWarning):
        y = F.dropout2d(numtorch.ones(30, 20, 6), 0.5).numpy()
    np.testing.assert_array_equal(y, np.broadcast_to(y[:, :, :1], y.shape))


def test_dropout_of_integer_tensor_raises_like_torch():
    check_raises(lambda t, x: t.nn.functional.dropout(x, 0.5), [np.ones(4, dtype=np.int64)],
                 match="result type Float can't be cast to the desired output type Long")


def test_dropout_empty_and_scalar_inputs():
    assert tuple(F.dropout(numtorch.ones(0, 3), 0.5).shape) == (0, 3)
    numtorch.manual_seed(9)
    assert F.dropout(numtorch.tensor(1.0), 0.5).item() in (0.0, 2.0)


# ---------------------------------------------------------------------------------------------
# modules

MODULES = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]
SHAPES = {"Dropout1d": (2, 3, 4), "Dropout3d": (2, 3, 2, 2, 2)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cls", MODULES)
def test_module_in_eval_mode_is_identity_like_torch(cls, dtype):
    check_module(lambda t: getattr(t.nn, cls)(0.3), [SHAPES.get(cls, (2, 3, 4, 4))],
                 dtype=dtype, train=False)


@pytest.mark.parametrize("cls", MODULES)
def test_module_in_training_mode_drops(cls):
    numtorch.manual_seed(10)
    m = getattr(numtorch.nn, cls)(0.5)
    x = numtorch.ones(*SHAPES.get(cls, (8, 16, 4, 4)))
    assert m.training
    y = m(x)
    assert bool((y != x).any())
    m.eval()
    np.testing.assert_array_equal(m(x).numpy(), x.numpy())


@pytest.mark.parametrize("cls", MODULES)
def test_module_repr_matches_torch(cls):
    for args in [(), (0.2,), (0.3, True)]:
        assert repr(getattr(numtorch.nn, cls)(*args)) == repr(getattr(torch.nn, cls)(*args))


def test_modules_importable_from_torch_paths():
    from numtorch.nn.modules import dropout

    for name in dropout.__all__:
        assert getattr(numtorch.nn, name) is getattr(dropout, name)
        assert hasattr(torch.nn.modules.dropout, name)


def test_dropout_module_inplace_and_alpha_module_ignore_inplace_like_torch():
    numtorch.manual_seed(12)
    x = numtorch.ones(4, 4)
    assert numtorch.nn.Dropout(0.5, inplace=True)(x) is x
    y = numtorch.ones(4, 4)
    assert numtorch.nn.AlphaDropout(0.5, inplace=True)(y) is not y
    assert bool((y == 1).all())
