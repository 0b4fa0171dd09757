"""The NumPy fast path of argument validation (``constraints.all_hold``) agrees with the
tensor-op ``check`` it stands in for, and with torch's verdicts, on edge values."""

import math

import pytest
import torch as ref

import numtorch as torch
from numtorch.distributions import constraints as C

CASES = [
    ("simplex", [[0.25, 0.75], [0.5, 0.5]]),
    ("simplex", [[0.25, 0.70], [0.5, 0.5]]),
    ("simplex", [[-0.25, 1.25]]),
    ("simplex", [[math.nan, 1.0]]),
    ("real_vector", [[1.0, math.inf]]),
    ("real_vector", [[1.0, math.nan]]),
    ("real", [1.0, -math.inf]),
    ("positive", [1.0, 0.0]),
    ("positive", [1.0, 2.0]),
    ("nonnegative", [0.0, 2.0]),
    ("unit_interval", [0.0, 1.0]),
    ("unit_interval", [0.0, 1.5]),
    ("boolean", [0.0, 1.0]),
    ("boolean", [0.0, 0.5]),
    ("nonnegative_integer", [0.0, 3.0]),
    ("nonnegative_integer", [0.0, 2.5]),
    ("positive_integer", [0, 3]),
    ("positive_integer", [1, 3]),
]


@pytest.mark.parametrize("name,values", CASES)
def test_all_hold_matches_torch(name, values):
    value = torch.tensor(values)
    want = bool(getattr(ref.distributions.constraints, name).check(ref.tensor(values)).all())
    assert C.all_hold(getattr(C, name), value) is want
    assert bool(getattr(C, name).check(value).all()) is want


@pytest.mark.parametrize("make,values", [
    (lambda: C.integer_interval(0, 3), [0, 3, 4]),
    (lambda: C.integer_interval(0, 3), [0.0, 1.5]),
    (lambda: C.integer_interval(0, 3), [0, 1, 2]),
    (lambda: C.interval(-1.0, 1.0), [[-1.0, 1.0]]),
    (lambda: C.half_open_interval(-1.0, 1.0), [-1.0, 1.0]),
    (lambda: C.less_than(2), [1, 2]),
    (lambda: C.greater_than_eq(2), [2, 3]),
    (lambda: C.integer_interval(0, 3), [True, False]),
])
def test_all_hold_matches_check(make, values):
    constraint, value = make(), torch.tensor(values)
    assert C.all_hold(constraint, value) is bool(constraint.check(value).all())


def test_overridden_check_is_respected():
    class Picky(C._Simplex):
        def check(self, value):
            return value.sum(-1) > 5

    assert C.all_hold(Picky(), torch.tensor([[0.5, 0.5]])) is False


def test_validation_errors_match_torch():
    for lib in (torch, ref):
        with pytest.raises(ValueError, match="to satisfy the constraint Simplex"):
            lib.distributions.Categorical(probs=lib.tensor([[-0.5, 1.5]]) + 0)
        d = lib.distributions.Categorical(logits=lib.zeros(3))
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(lib.tensor(3))
        with pytest.raises(ValueError, match="Expected parameter logits"):
            lib.distributions.Categorical(logits=lib.tensor([0.0, math.nan]))


@pytest.mark.parametrize("param_shape,value_shape", [
    ((4,), ()), ((4,), (3,)), ((2, 4), (2,)), ((2, 4), (5, 2)), ((3, 1, 4), (1, 5)),
    ((1, 4), (1,)), ((2, 4), (1,)),
])
def test_categorical_log_prob_broadcasts_as_torch(param_shape, value_shape):
    import numpy as np

    rng = np.random.default_rng(0)
    logits = rng.standard_normal(param_shape).astype(np.float32)
    value = rng.integers(0, 4, value_shape)
    cot = None
    results = []
    for lib in (torch, ref):
        lg = lib.tensor(logits, requires_grad=True)
        out = lib.distributions.Categorical(logits=lg).log_prob(lib.tensor(value))
        if cot is None:
            cot = rng.standard_normal(tuple(out.shape)).astype(np.float32)
        out.backward(lib.tensor(cot))
        results.append((tuple(out.shape), out.detach().numpy(), lg.grad.numpy()))
    (s1, v1, g1), (s2, v2, g2) = results
    assert s1 == s2
    np.testing.assert_allclose(v1, v2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("param_shape,sample_shape", [
    ((4,), ()), ((4,), (3,)), ((1, 4), ()), ((1, 4), (5,)), ((3, 4), (2, 5)), ((3, 1, 4), (2,)),
])
def test_categorical_sample_shapes_as_torch(param_shape, sample_shape):
    probs = [0.1, 0.2, 0.3, 0.4]
    got = torch.distributions.Categorical(torch.tensor(probs).expand(param_shape)).sample(
        sample_shape)
    want = ref.distributions.Categorical(ref.tensor(probs).expand(param_shape)).sample(
        sample_shape)
    assert tuple(got.shape) == tuple(want.shape) and got.dtype is torch.int64
    assert bool(((got >= 0) & (got < 4)).all())


def test_categorical_sample_follows_each_row():
    # rows with all their mass on one category: the draws must keep rows and samples apart
    probs = torch.eye(3)[[2, 0, 1]]
    draws = torch.distributions.Categorical(probs).sample((4,))
    assert draws.tolist() == [[2, 0, 1]] * 4
