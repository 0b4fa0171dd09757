"""Python-number parameters, boundary values (zero probabilities, -inf logits, the ends of a
support) and dtypes, against torch."""

import math

import numpy as np
import pytest
import torch

import numtorch

NUMBER_CASES = [
    ("Normal", (0.5, 2.0), 1.0),
    ("Uniform", (0.0, 3.0), 1.0),
    ("Exponential", (1.5,), 0.7),
    ("Laplace", (0.0, 1.0), -0.5),
    ("Cauchy", (0.0, 1.0), 3.0),
    ("Gamma", (2.0, 3.0), 0.5),
    ("Chi2", (3.0,), 2.0),
    ("Beta", (2.0, 3.0), 0.25),
    ("Bernoulli", (0.3,), 1.0),
    ("Binomial", (10, 0.3), 4.0),
    ("NegativeBinomial", (3.0, 0.3), 2.0),
    ("Poisson", (2.0,), 3.0),
    ("Geometric", (0.3,), 2.0),
    ("LogNormal", (0.0, 1.0), 2.0),
    ("StudentT", (3.0,), 0.5),
    ("HalfNormal", (1.5,), 0.5),
    ("HalfCauchy", (1.5,), 0.5),
    ("Gumbel", (0.0, 2.0), 1.0),
    ("Weibull", (1.0, 2.0), 0.5),
    ("Pareto", (1.0, 2.0), 3.0),
    ("Kumaraswamy", (2.0, 3.0), 0.4),
    ("FisherSnedecor", (3.0, 5.0), 1.2),
    ("ContinuousBernoulli", (0.3,), 0.6),
    ("VonMises", (0.0, 2.0), 0.5),
    ("InverseGamma", (3.0, 2.0), 0.5),
    ("GeneralizedPareto", (0.0, 1.0, 0.2), 1.5),
    ("LKJCholesky", (2, 1.5), None),
]


@pytest.mark.parametrize("name,args,value", NUMBER_CASES, ids=[c[0] for c in NUMBER_CASES])
def test_number_parameters(name, args, value):
    a = getattr(numtorch.distributions, name)(*args)
    b = getattr(torch.distributions, name)(*args)
    assert repr(a) == repr(b)
    assert a.batch_shape == b.batch_shape and a.event_shape == b.event_shape
    s = a.sample()
    assert str(s.dtype) == str(b.sample().dtype) and tuple(s.shape) == tuple(b.sample().shape)
    if value is None:
        value_a, value_b = numtorch.eye(2), torch.eye(2)
    else:
        value_a, value_b = numtorch.tensor(value), torch.tensor(value)
    la, lb = a.log_prob(value_a), b.log_prob(value_b)
    assert str(la.dtype) == str(lb.dtype) and tuple(la.shape) == tuple(lb.shape)
    np.testing.assert_allclose(la.numpy(), lb.numpy(), rtol=5e-5)


def _compare(fn, rtol=1e-6):
    a, b = fn(numtorch), fn(torch)
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=1e-7,
                               equal_nan=True)


BOUNDARY = {
    "bernoulli-01": lambda lib: lib.distributions.Bernoulli(lib.tensor([0.0, 1.0, 0.0, 1.0])
                                                            ).log_prob(lib.tensor([0.0, 1.0,
                                                                                  1.0, 0.0])),
    "bernoulli-entropy-01": lambda lib: lib.distributions.Bernoulli(
        lib.tensor([0.0, 1.0, 0.5])).entropy(),
    "categorical-neg-inf": lambda lib: lib.distributions.Categorical(
        logits=lib.tensor([[0.0, -math.inf, 1.0]])).entropy(),
    "categorical-zero-prob": lambda lib: lib.distributions.Categorical(
        lib.tensor([0.0, 0.3, 0.7])).log_prob(lib.tensor([0, 1, 2])),
    "multinomial-zero-prob": lambda lib: lib.distributions.Multinomial(
        3, lib.tensor([0.0, 0.4, 0.6])).log_prob(lib.tensor([0.0, 1.0, 2.0])),
    "multinomial-entropy": lambda lib: lib.distributions.Multinomial(
        4, lib.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])).entropy(),
    "geometric-one": lambda lib: lib.distributions.Geometric(
        lib.tensor([1.0, 1.0, 0.5])).log_prob(lib.tensor([0.0, 2.0, 0.0])),
    "poisson-zero-rate": lambda lib: lib.distributions.Poisson(
        lib.tensor([0.0, 0.0, 2.0])).log_prob(lib.tensor([0.0, 1.0, 0.0])),
    "binomial-01": lambda lib: lib.distributions.Binomial(
        4, lib.tensor([0.0, 1.0, 0.0, 1.0])).log_prob(lib.tensor([0.0, 4.0, 2.0, 3.0])),
    "negbin-zero-count": lambda lib: lib.distributions.NegativeBinomial(
        lib.tensor([0.0, 0.0, 2.0]), lib.tensor([0.3, 0.3, 0.0])).log_prob(
        lib.tensor([0.0, 1.0, 0.0])),
    "uniform-outside": lambda lib: lib.distributions.Uniform(0.0, 1.0, validate_args=False
                                                             ).log_prob(lib.tensor([-1.0, 0.0,
                                                                                   1.0, 2.0])),
    "uniform-cdf-outside": lambda lib: lib.distributions.Uniform(
        0.0, 1.0, validate_args=False).cdf(lib.tensor([-1.0, 0.5, 2.0])),
    "halfnormal-negative": lambda lib: lib.distributions.HalfNormal(
        1.0, validate_args=False).log_prob(lib.tensor([-1.0, 0.0, 1.0])),
    "exponential-icdf-ends": lambda lib: lib.distributions.Exponential(2.0).icdf(
        lib.tensor([0.0, 0.5, 1.0])),
    "normal-icdf-ends": lambda lib: lib.distributions.Normal(0.0, 1.0).icdf(
        lib.tensor([0.0, 0.5, 1.0])),
    "laplace-cdf-icdf": lambda lib: lib.distributions.Laplace(0.0, 1.0).icdf(
        lib.distributions.Laplace(0.0, 1.0).cdf(lib.tensor([-30.0, -1.0, 0.0, 2.0]))),
    "gamma-cdf-zero": lambda lib: lib.distributions.Gamma(lib.tensor([0.5, 2.0]), 1.0).cdf(
        lib.tensor([0.0, 0.0])),
    "gamma-log-prob-zero": lambda lib: lib.distributions.Gamma(
        lib.tensor([0.5, 1.0, 2.0]), 1.0).log_prob(lib.tensor([0.0, 0.0, 0.0])),
    "dirichlet-corner-mode": lambda lib: lib.distributions.Dirichlet(
        lib.tensor([[0.5, 0.3, 0.9], [2.0, 3.0, 0.5], [1.0, 1.0, 1.0]])).mode,
    "beta-mode": lambda lib: lib.distributions.Beta(lib.tensor([0.5, 2.0, 1.0, 3.0]),
                                                    lib.tensor([0.5, 3.0, 1.0, 0.5])).mode,
    "gamma-mode": lambda lib: lib.distributions.Gamma(lib.tensor([0.5, 1.0, 3.0]), 2.0).mode,
    "binomial-mode": lambda lib: lib.distributions.Binomial(
        10, lib.tensor([0.0, 0.3, 0.95, 1.0])).mode,
    "bernoulli-mode": lambda lib: lib.distributions.Bernoulli(
        lib.tensor([0.2, 0.5, 0.7])).mode,
    "studentt-moments": lambda lib: lib.stack([
        lib.distributions.StudentT(lib.tensor([0.5, 1.5, 2.0, 3.0])).mean,
        lib.distributions.StudentT(lib.tensor([0.5, 1.5, 2.0, 3.0])).variance]),
    "pareto-moments": lambda lib: lib.stack([
        lib.distributions.Pareto(1.0, lib.tensor([0.5, 1.5, 3.0])).mean,
        lib.distributions.Pareto(1.0, lib.tensor([0.5, 1.5, 3.0])).variance]),
    # float64: in float32 the closed form just outside ``lims`` cancels to ~1e-5 absolute
    "cb-near-half": lambda lib: lib.distributions.ContinuousBernoulli(
        lib.tensor([0.4989, 0.499, 0.4995, 0.5, 0.501, 0.5011], dtype=lib.float64)).log_prob(
        lib.full((6,), 0.3, dtype=lib.float64)),
    "cb-cdf-ends": lambda lib: lib.distributions.ContinuousBernoulli(
        lib.tensor([0.2, 0.5, 0.8])).cdf(lib.tensor([0.0, 1.0, 0.5])),
    "mixture-cdf": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.tensor([0.2, 0.8])),
        lib.distributions.Normal(lib.tensor([-1.0, 2.0]), lib.tensor([0.5, 1.0]))).cdf(
        lib.tensor([[-1.0], [0.5], [3.0]])),
}


@pytest.mark.parametrize("case", list(BOUNDARY))
def test_boundary_values(case):
    _compare(BOUNDARY[case])


def test_float_dtypes_follow_parameters():
    for dt in ("float32", "float64"):
        a = numtorch.distributions.Gamma(numtorch.ones(2, dtype=getattr(numtorch, dt)), 1.0)
        assert str(a.rsample().dtype) == f"torch.{dt}"
        assert str(a.log_prob(numtorch.ones(2, dtype=getattr(numtorch, dt))).dtype) == \
            f"torch.{dt}"
        d = numtorch.distributions.Dirichlet(numtorch.ones(3, dtype=getattr(numtorch, dt)))
        assert str(d.rsample().dtype) == f"torch.{dt}"
        v = numtorch.distributions.VonMises(numtorch.zeros(2, dtype=getattr(numtorch, dt)),
                                            numtorch.ones(2, dtype=getattr(numtorch, dt)))
        assert str(v.sample().dtype) == f"torch.{dt}"
    assert str(numtorch.distributions.Categorical(numtorch.ones(3)).sample().dtype) == \
        "torch.int64"
    assert str(numtorch.distributions.Poisson(2.0).sample().dtype) == "torch.float32"


def test_exponential_family_entropy_and_bregman_kl():
    # the generic entropy (through autograd on the log normaliser) equals each closed form
    cases = [("Gamma", (np.array([0.7, 2.0, 5.0]), np.array([1.5, 0.5, 2.0]))),
             ("Normal", (np.array([0.5, -1.0, 2.0]), np.array([0.3, 1.0, 2.0]))),
             ("Bernoulli", (np.array([0.2, 0.5, 0.9]),)),
             ("Exponential", (np.array([0.5, 2.0, 3.0]),)),
             ("ContinuousBernoulli", (np.array([0.2, 0.5, 0.9]),))]
    for name, args in cases:
        out = []
        for lib in (numtorch, torch):
            d = getattr(lib.distributions, name)(*[lib.from_numpy(a.copy()) for a in args])
            out.append((lib.distributions.ExponentialFamily.entropy(d), d.entropy()))
        (a, a_closed), (b, _) = out
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(a.detach().numpy(), a_closed.numpy(), rtol=1e-6)
    # torch gives Beta and Dirichlet no carrier measure: the generic entropy is unavailable
    for lib in (numtorch, torch):
        d = lib.distributions.Beta(lib.tensor([1.0, 2.0]), lib.tensor([2.0, 3.0]))
        with pytest.raises(NotImplementedError):
            lib.distributions.ExponentialFamily.entropy(d)


def test_pickle_and_lazy_import():
    import pickle
    import subprocess
    import sys

    D = numtorch.distributions
    for d in (D.Normal(numtorch.zeros(2), 1.0), D.LogNormal(0.0, 1.0),
              D.MultivariateNormal(numtorch.zeros(2), numtorch.eye(2)),
              D.TransformedDistribution(D.Normal(0.0, 1.0), [D.SigmoidTransform().inv])):
        e = pickle.loads(pickle.dumps(d))
        assert type(e) is type(d) and e.batch_shape == d.batch_shape
        x = d.sample()
        np.testing.assert_allclose(e.log_prob(x).numpy(), d.log_prob(x).numpy())
    code = ("import sys, numtorch; assert 'numtorch.distributions' not in sys.modules; "
            "import numtorch.distributions as D; assert numtorch.distributions is D; "
            "assert numtorch.distributions.Normal is D.normal.Normal")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("logits_shape,value_shape", [
    ((1, 16), ()), ((16,), ()), ((3, 5), (1,)), ((3, 5), (2, 3)), ((3, 5), (4, 1)),
    ((5,), (2, 3)), ((3, 5), (2,))])
def test_categorical_log_prob_broadcast_int_values(logits_shape, value_shape):
    """Integer values whose shape differs from the batch shape broadcast as torch's do
    (values, shapes, gradients to the logits, and the clash error)."""
    rng = np.random.default_rng(0)
    lg = rng.standard_normal(logits_shape).astype(np.float32)
    v = rng.integers(0, logits_shape[-1], value_shape)
    got = []
    for lib in (numtorch, torch):
        logits = lib.tensor(lg, requires_grad=True)
        try:
            lp = lib.distributions.Categorical(logits=logits).log_prob(lib.tensor(v))
        except (RuntimeError, ValueError) as e:
            got.append((type(e).__name__, str(e)))
            continue
        cot = lib.tensor(np.linspace(-1, 1, int(np.prod(lp.shape))).reshape(tuple(lp.shape))
                         .astype(np.float32))
        lp.backward(cot)
        got.append((lp.detach().numpy(), logits.grad.numpy()))
    (a, b) = got
    if isinstance(a[0], str) or isinstance(b[0], str):
        assert a == b
    else:
        assert a[0].shape == b[0].shape and a[0].dtype == b[0].dtype
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6, atol=1e-6)
