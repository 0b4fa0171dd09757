"""kl_divergence for every pair torch registers (values, gradients, infinite cases), the
dispatch rules of register_kl, and the Bregman fallback for exponential families."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op

_rng = np.random.default_rng(11)


def _u(lo, hi, *shape):
    return _rng.uniform(lo, hi, shape)


def _spd(n=2):
    a = _rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def D(lib):
    return lib.distributions


def _pair_params():
    """Two parameter sets (for p and q) per family; batch shape (3,) throughout."""
    return {
        "Bernoulli": [[_u(0.1, 0.9, 3)], [np.array([0.3, 0.0, 1.0])]],
        "Beta": [[_u(0.5, 3, 3), _u(0.5, 3, 3)], [_u(0.5, 3, 3), _u(0.5, 3, 3)]],
        "Binomial": [[_u(0.1, 0.9, 3)], [_u(0.1, 0.9, 3)]],
        "Categorical": [[_u(-2, 2, 3, 4)], [_u(-2, 2, 3, 4)]],
        "Cauchy": [[_u(-2, 2, 3), _u(0.5, 2, 3)], [_u(-2, 2, 3), _u(0.5, 2, 3)]],
        "ContinuousBernoulli": [[np.array([0.2, 0.4999, 0.8])], [np.array([0.6, 0.3, 0.5005])]],
        "Dirichlet": [[_u(0.5, 3, 3, 4)], [_u(0.5, 3, 3, 4)]],
        "Exponential": [[_u(0.5, 3, 3)], [_u(0.5, 3, 3)]],
        "Gamma": [[_u(0.5, 3, 3), _u(0.5, 3, 3)], [_u(0.5, 3, 3), _u(0.5, 3, 3)]],
        "Geometric": [[_u(0.1, 0.9, 3)], [_u(0.1, 0.9, 3)]],
        "Gumbel": [[_u(-2, 2, 3), _u(0.5, 2, 3)], [_u(-2, 2, 3), _u(0.5, 2, 3)]],
        "HalfNormal": [[_u(0.5, 2, 3)], [_u(0.5, 2, 3)]],
        "Independent": [[_u(-2, 2, 3, 2), _u(0.5, 2, 3, 2)], [_u(-2, 2, 3, 2), _u(0.5, 2, 3, 2)]],
        "Laplace": [[_u(-2, 2, 3), _u(0.5, 2, 3)], [_u(-2, 2, 3), _u(0.5, 2, 3)]],
        "LowRankMultivariateNormal": [[_u(-1, 1, 3, 2), _u(-1, 1, 2, 1), _u(0.5, 2, 2)],
                                      [_u(-1, 1, 2), _u(-1, 1, 3, 2, 2), _u(0.5, 2, 3, 2)]],
        "MultivariateNormal": [[_u(-1, 1, 3, 2), _spd()], [_u(-1, 1, 2), _spd()]],
        "Normal": [[_u(-2, 2, 3), _u(0.5, 2, 3)], [_u(-2, 2, 3), _u(0.5, 2, 3)]],
        "OneHotCategorical": [[_u(-2, 2, 3, 4)], [_u(-2, 2, 3, 4)]],
        "Pareto": [[np.array([1.0, 2.0, 0.5]), np.array([0.8, 2.5, 3.0])],
                   [np.array([1.5, 1.0, 0.4]), np.array([1.2, 2.0, 3.5])]],
        "Poisson": [[_u(0.5, 4, 3)], [_u(0.5, 4, 3)]],
        "TransformedDistribution": [[_u(-1, 1, 3), _u(0.5, 2, 3)], [_u(-1, 1, 3), _u(0.5, 2, 3)]],
        "Uniform": [[np.array([0.1, -1.0, 0.2]), np.array([0.7, 0.5, 0.9])],
                    [np.array([0.0, -0.5, 0.0]), np.array([1.0, 2.0, 1.0])]],
        "ExponentialFamily": [[np.array([4.0, 5.5, 3.0])], [np.array([3.5, 4.0, 6.0])]],
    }


PARAMS = _pair_params()

MAKERS = {
    "Bernoulli": lambda lib, p: D(lib).Bernoulli(probs=p),
    "Beta": lambda lib, a, b: D(lib).Beta(a, b),
    "Binomial": lambda lib, p: D(lib).Binomial(4, probs=p),
    "Categorical": lambda lib, x: D(lib).Categorical(logits=x),
    "Cauchy": lambda lib, a, b: D(lib).Cauchy(a, b),
    "ContinuousBernoulli": lambda lib, p: D(lib).ContinuousBernoulli(probs=p),
    "Dirichlet": lambda lib, a: D(lib).Dirichlet(a),
    "Exponential": lambda lib, r: D(lib).Exponential(r),
    "Gamma": lambda lib, a, b: D(lib).Gamma(a, b),
    "Geometric": lambda lib, p: D(lib).Geometric(probs=p),
    "Gumbel": lambda lib, a, b: D(lib).Gumbel(a, b),
    "HalfNormal": lambda lib, s: D(lib).HalfNormal(s),
    "Independent": lambda lib, a, b: D(lib).Independent(D(lib).Normal(a, b), 1),
    "Laplace": lambda lib, a, b: D(lib).Laplace(a, b),
    "LowRankMultivariateNormal": lambda lib, m, w, d: D(lib).LowRankMultivariateNormal(m, w, d),
    "MultivariateNormal": lambda lib, m, c: D(lib).MultivariateNormal(m, c),
    "Normal": lambda lib, a, b: D(lib).Normal(a, b),
    "OneHotCategorical": lambda lib, x: D(lib).OneHotCategorical(logits=x),
    "Pareto": lambda lib, s, a: D(lib).Pareto(s, a),
    "Poisson": lambda lib, r: D(lib).Poisson(r),
    "TransformedDistribution": lambda lib, a, b: D(lib).TransformedDistribution(
        D(lib).Normal(a, b), [D(lib).ExpTransform(), D(lib).AffineTransform(1.0, 2.0)]),
    "Uniform": lambda lib, a, b: D(lib).Uniform(a, b),
    # reaches the generic Bregman-divergence pair (no closed form registered for Wishart)
    "ExponentialFamily": lambda lib, df: D(lib).Wishart(df, covariance_matrix=lib.eye(
        2, dtype=lib.float64) * 1.5),
}

PAIRS = sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY)


def test_the_registry_matches_torch():
    ours = sorted((p.__name__, q.__name__) for p, q in numtorch.distributions.kl._KL_REGISTRY)
    assert ours == PAIRS


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p}-{q}" for p, q in PAIRS])
def test_kl_pair(pair):
    pn, qn = pair
    mp, mq = MAKERS[pn], MAKERS[qn]
    pp, qp = PARAMS[pn][0], PARAMS[qn][1]
    k = len(pp)

    def fn(lib, *xs):
        return lib.distributions.kl_divergence(mp(lib, *xs[:k]), mq(lib, *xs[k:]))

    check_op(fn, pp + qp, atol=1e-8)


def test_kl_errors_and_infinities():
    for lib in (torch, numtorch):
        M = lib.distributions
        with pytest.raises(NotImplementedError,
                           match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q "
                                 "type Categorical"):
            M.kl_divergence(M.Normal(0.0, 1.0), M.Categorical(lib.ones(2)))
        with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
            M.kl_divergence(M.Binomial(3, lib.tensor(0.3)), M.Binomial(5, lib.tensor(0.3)))
        assert M.kl_divergence(M.Binomial(5, lib.tensor(0.3)),
                               M.Binomial(3, lib.tensor(0.3))).item() == float("inf")
        with pytest.raises(NotImplementedError, match="cross KL-divergence between different"):
            M.kl_divergence(M.Chi2(3.0), M.Dirichlet(lib.ones(2)))
        with pytest.raises(NotImplementedError):
            M.kl_divergence(M.Independent(M.Normal(lib.zeros(2, 2), 1.0), 1),
                            M.Independent(M.Normal(lib.zeros(2, 2), 1.0), 2))
        with pytest.raises(NotImplementedError):
            M.kl_divergence(M.LogNormal(0.0, 1.0), M.Weibull(1.0, 1.0))
        with pytest.raises(ValueError, match="different event shapes"):
            M.kl_divergence(M.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                            M.MultivariateNormal(lib.zeros(3), lib.eye(3)))
        # same transforms: KL of the bases
        kl = M.kl_divergence(M.LogNormal(0.0, 1.0), M.LogNormal(0.5, 2.0))
        assert abs(kl.item() - M.kl_divergence(M.Normal(0.0, 1.0), M.Normal(0.5, 2.0)).item()) \
            < 1e-6


def test_register_kl_dispatch():
    for lib in (torch, numtorch):
        M = lib.distributions

        class A(M.Normal):
            pass

        class B(M.Normal):
            pass

        def left(p, q):
            return lib.tensor(1.0)

        def right(p, q):
            return lib.tensor(2.0)

        reg = M.kl._KL_REGISTRY
        try:
            M.register_kl(A, M.Normal)(left)
            M.register_kl(M.Normal, B)(right)
            assert M.kl_divergence(A(0.0, 1.0), M.Normal(0.0, 1.0)).item() == 1.0
            assert M.kl_divergence(M.Normal(0.0, 1.0), B(0.0, 1.0)).item() == 2.0
            with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence\\(A, B\\). "
                                                    "Please register_kl\\(A, B\\)"):
                assert M.kl_divergence(A(0.0, 1.0), B(0.0, 1.0)).item() == 1.0
            M.register_kl(A, B)(right)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert M.kl_divergence(A(0.0, 1.0), B(0.0, 1.0)).item() == 2.0
        finally:
            for key in [(A, M.Normal), (M.Normal, B), (A, B)]:
                reg.pop(key, None)
            M.kl._KL_MEMOIZE.clear()
        with pytest.raises(TypeError):
            M.register_kl(1, M.Normal)
