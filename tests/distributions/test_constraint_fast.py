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
