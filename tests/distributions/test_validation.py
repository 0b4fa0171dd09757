"""Argument and value validation: torch's exception classes and messages, and the
Distribution base class's behaviour."""

import re
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.distributions._specs import SPEC_IDS, SPECS

pytestmark = pytest.mark.filterwarnings("ignore:Singular sample")


def _builtin_base(cls):
    return next(c for c in cls.__mro__ if c.__module__ == "builtins")


def _same_error(fn, first_line_only=False):
    """Run ``fn(lib)`` for both libraries; both raise the same class with the same message
    (module paths aside; only its first line with ``first_line_only``), or neither raises."""
    errs = []
    for lib in (torch, numtorch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib)
            errs.append(None)
        except Exception as e:
            errs.append(e)
    th, nt = errs
    if th is None:
        assert nt is None, f"numtorch raised {nt!r}, torch did not"
        return None
    assert nt is not None, f"torch raised {th!r}, numtorch did not"
    assert _builtin_base(type(nt)) is _builtin_base(type(th)), (nt, th)
    a, b = str(nt).replace("numtorch", "torch"), str(th)
    if "device='cuda" in a:  # torch runs on the CPU: its text lacks the device (and wraps
        # the printed tensor elsewhere)
        a, b = " ".join(re.sub(r",\s*device='cuda:\d+'", "", a).split()), " ".join(b.split())
    if first_line_only:
        a, b = a.split("\n")[0], b.split("\n")[0]
    assert a == b, (a, b)
    return nt


def _broken(arr, bad):
    out = np.array(arr, dtype=np.float64, copy=True)
    out.reshape(-1)[0] = bad
    return out


@pytest.mark.parametrize("name,make,params", SPECS, ids=SPEC_IDS)
def test_invalid_parameters(name, make, params):
    for i in range(len(params)):
        for bad in (-1.5, 1.5, np.nan):
            arrays = [p if j != i else _broken(p, bad) for j, p in enumerate(params)]
            # LKJCholesky reports its inner Beta's parameters, which differ by design (see
            # its class note): compare the message up to the values
            _same_error(lambda lib: make(lib, *[lib.from_numpy(a.copy()) for a in arrays]),
                        first_line_only=name == "LKJCholesky")


@pytest.mark.parametrize("name,make,params", SPECS, ids=SPEC_IDS)
def test_invalid_values(name, make, params):
    th = make(torch, *[torch.from_numpy(p) for p in params])
    with torch.no_grad():
        good = th.sample((2,)).numpy()
    is_long = good.dtype == np.int64
    for bad in (-0.5, 2.5, np.nan):
        if is_long and not np.isfinite(bad):
            continue
        v = _broken(good, bad)
        if is_long:
            v = v.astype(np.int64)
        for method in ("log_prob", "cdf"):
            def fn(lib):
                d = make(lib, *[lib.from_numpy(p.copy()) for p in params])
                getattr(d, method)(lib.from_numpy(v.copy()))
            err = _same_error(fn)
            if err is not None and method == "log_prob":
                assert isinstance(err, (ValueError, NotImplementedError))
    # a value that is not a tensor, and values of the wrong shape
    _same_error(lambda lib: make(lib, *[lib.from_numpy(p.copy()) for p in params]).log_prob(
        good.tolist()))
    for shape in [good.shape[:-1] + (good.shape[-1] + 1,), (5,) + good.shape[1:]]:
        wrong = np.resize(good, shape)
        _same_error(lambda lib: make(lib, *[lib.from_numpy(p.copy()) for p in params]).log_prob(
            lib.from_numpy(wrong.copy())))


def test_validation_can_be_turned_off():
    for lib in (torch, numtorch):
        D = lib.distributions
        d = D.Normal(lib.tensor([0.0]), lib.tensor([-1.0]), validate_args=False)
        assert d.log_prob(lib.tensor([1.0])).isnan().all()
        d = D.Uniform(0.0, 1.0, validate_args=False)
        assert d.log_prob(lib.tensor(3.0)).item() == float("-inf")
        try:
            D.Distribution.set_default_validate_args(False)
            D.Normal(0.0, -1.0)
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0)
        with pytest.raises(ValueError):
            D.Distribution.set_default_validate_args("yes")


CASES = {
    "bernoulli-both": lambda lib: lib.distributions.Bernoulli(0.3, 0.2),
    "bernoulli-none": lambda lib: lib.distributions.Bernoulli(),
    "geometric-zero": lambda lib: lib.distributions.Geometric(lib.tensor([0.0, 0.5])),
    "categorical-0d-probs": lambda lib: lib.distributions.Categorical(lib.tensor(0.5)),
    "categorical-0d-logits": lambda lib: lib.distributions.Categorical(logits=lib.tensor(0.5)),
    "dirichlet-0d": lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    "multinomial-float-count": lambda lib: lib.distributions.Multinomial(
        3.0, lib.tensor([0.5, 0.5])),
    "broadcast-all-type": lambda lib: lib.distributions.Normal("a", 1.0),
    "broadcast-shapes": lambda lib: lib.distributions.Normal(lib.zeros(2), lib.ones(3)),
    "uniform-order": lambda lib: lib.distributions.Uniform(lib.tensor([1.0, 0.0]),
                                                           lib.tensor([2.0, 0.0])),
    "cb-invalid": lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([1.5]),
                                                                    validate_args=False),
    "cb-unchecked": lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([1.5])),
    "mvn-0d-loc": lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(1)),
    "mvn-two": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2),
                                                                scale_tril=lib.eye(2)),
    "mvn-none": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)),
    "mvn-1d-cov": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    "mvn-1d-prec": lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), precision_matrix=lib.ones(2)),
    "mvn-1d-tril": lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.ones(2)),
    "mvn-not-pd": lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "lowrank-loc": lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.tensor(0.0), lib.ones(2, 1), lib.ones(2)),
    "lowrank-factor-1d": lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2), lib.ones(2)),
    "lowrank-factor-rows": lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(3, 1), lib.ones(2)),
    "lowrank-diag": lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(2), lib.ones(2, 1), lib.ones(3)),
    "lowrank-batch": lambda lib: lib.distributions.LowRankMultivariateNormal(
        lib.zeros(3, 2), lib.ones(4, 2, 1), lib.ones(2)),
    "wishart-df": lambda lib: lib.distributions.Wishart(lib.tensor(0.5), lib.eye(2)),
    "wishart-two": lambda lib: lib.distributions.Wishart(lib.tensor(3.0), lib.eye(2),
                                                         lib.eye(2)),
    "wishart-1d": lambda lib: lib.distributions.Wishart(lib.tensor(3.0), lib.ones(2)),
    "lkj-dim": lambda lib: lib.distributions.LKJCholesky(1, 1.0),
    "mixture-not-categorical": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Normal(0.0, 1.0), lib.distributions.Normal(lib.zeros(2), 1.0)),
    "mixture-not-distribution": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(2)), 3),
    "mixture-batch": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3, 2)),
        lib.distributions.Normal(lib.zeros(4, 2), 1.0)),
    "mixture-components": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3)),
        lib.distributions.Normal(lib.zeros(2), 1.0)),
    "independent-ndims": lambda lib: lib.distributions.Independent(
        lib.distributions.Normal(lib.zeros(2), 1.0), 2),
    "transformed-bad-list": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), [lib.distributions.ExpTransform(), 3]),
    "transformed-bad-type": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), 3),
    "transformed-event-dim": lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), lib.distributions.StickBreakingTransform()),
    "relaxed-both": lambda lib: lib.distributions.RelaxedBernoulli(lib.tensor(1.0), 0.3, 0.2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_constructor_errors(case):
    assert _same_error(CASES[case]) is not None or case == "cb-unchecked"


def test_base_class():
    for lib in (torch, numtorch):
        D = lib.distributions
        d = D.Distribution(lib.Size([2]), validate_args=False)
        for name in ("mean", "variance", "stddev", "support", "arg_constraints"):
            with pytest.raises(NotImplementedError):
                getattr(d, name)
        with pytest.raises(NotImplementedError, match="does not implement mode"):
            d.mode
        for name in ("rsample", "entropy", "enumerate_support", "perplexity", "sample"):
            with pytest.raises(NotImplementedError):
                getattr(d, name)()
        for name in ("log_prob", "cdf", "icdf"):
            with pytest.raises(NotImplementedError):
                getattr(d, name)(lib.zeros(2))
        with pytest.raises(NotImplementedError):
            d.expand((2,))
        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            D.Distribution(lib.Size([2]), validate_args=True)
        with pytest.warns(FutureWarning, match="will be deprecated"):
            assert tuple(D.Normal(lib.zeros(2), 1.0).sample_n(3).shape) == (3, 2)
        assert D.Normal(0.0, 1.0)._extended_shape((4,)) == lib.Size([4])

        class Shifted(D.Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)

        with pytest.raises(NotImplementedError, match="must also define a custom .expand"):
            Shifted(lib.zeros(2)).expand([3, 2])


def test_lazy_parameters_are_not_validated_twice():
    # probs given: logits (a lazy property) is derived, not checked, and is differentiable
    for lib in (torch, numtorch):
        p = lib.tensor([0.2, 0.7], requires_grad=True)
        d = lib.distributions.Bernoulli(probs=p)
        assert "logits" not in d.__dict__
        with lib.no_grad():
            d.sample()
        d.logits.sum().backward()
        assert p.grad is not None
