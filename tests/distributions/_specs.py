"""A table of distributions to compare with torch: how to build each one from a library
(``numtorch`` or ``torch``) and parameter tensors, and parameter arrays to build it from.

Each spec is ``(id, make, params)``: ``make(lib, *tensors)`` returns the distribution and
``params`` holds NumPy arrays (float ones become tensors that require gradients).
"""

import numpy as np

_rng = np.random.default_rng(1234)


def real(*shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, shape)


def pos(*shape, lo=0.5, hi=3.0):
    return _rng.uniform(lo, hi, shape)


def prob(*shape):
    return _rng.uniform(0.1, 0.9, shape)


def simplex(*shape):
    p = _rng.uniform(0.2, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


def spd(*batch, n=3):
    a = _rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def tril(*batch, n=3):
    a = np.tril(_rng.normal(size=batch + (n, n)) * 0.5, -1)
    return a + np.eye(n) * _rng.uniform(0.5, 1.5, batch + (n,))[..., None, :]


def D(lib):
    return lib.distributions


SPECS = [
    ("Normal", lambda lib, a, b: D(lib).Normal(a, b), [real(2, 3), pos(3)]),
    ("Uniform", lambda lib, a, b: D(lib).Uniform(a, b), [real(3, lo=-2, hi=-1), real(3, lo=1)]),
    ("Exponential", lambda lib, r: D(lib).Exponential(r), [pos(2, 3)]),
    ("Laplace", lambda lib, a, b: D(lib).Laplace(a, b), [real(3), pos(2, 3)]),
    ("Cauchy", lambda lib, a, b: D(lib).Cauchy(a, b), [real(3), pos(3)]),
    ("Gamma", lambda lib, a, b: D(lib).Gamma(a, b), [pos(2, 3), pos(3)]),
    ("Chi2", lambda lib, a: D(lib).Chi2(a), [pos(3, lo=1.0, hi=6.0)]),
    ("Beta", lambda lib, a, b: D(lib).Beta(a, b), [pos(2, 3), pos(3)]),
    ("Dirichlet", lambda lib, a: D(lib).Dirichlet(a), [pos(2, 4)]),
    ("Bernoulli-probs", lambda lib, p: D(lib).Bernoulli(probs=p), [prob(2, 3)]),
    ("Bernoulli-logits", lambda lib, x: D(lib).Bernoulli(logits=x), [real(3)]),
    ("Categorical-probs", lambda lib, p: D(lib).Categorical(probs=p), [simplex(2, 4)]),
    ("Categorical-logits", lambda lib, x: D(lib).Categorical(logits=x), [real(2, 4)]),
    ("OneHotCategorical", lambda lib, p: D(lib).OneHotCategorical(probs=p), [simplex(2, 4)]),
    ("OneHotCategoricalStraightThrough",
     lambda lib, x: D(lib).OneHotCategoricalStraightThrough(logits=x), [real(3, 4)]),
    ("Poisson", lambda lib, r: D(lib).Poisson(r), [pos(2, 3, hi=6.0)]),
    ("Binomial-probs", lambda lib, n, p: D(lib).Binomial(n, probs=p),
     [np.full(3, 6.0), prob(2, 3)]),
    ("Binomial-logits", lambda lib, p: D(lib).Binomial(5, logits=p), [real(3)]),
    ("Multinomial", lambda lib, p: D(lib).Multinomial(6, probs=p), [simplex(2, 3)]),
    ("Multinomial-logits", lambda lib, x: D(lib).Multinomial(4, logits=x), [real(3)]),
    ("Geometric-probs", lambda lib, p: D(lib).Geometric(probs=p), [prob(2, 3)]),
    ("Geometric-logits", lambda lib, x: D(lib).Geometric(logits=x), [real(3)]),
    ("NegativeBinomial-probs", lambda lib, n, p: D(lib).NegativeBinomial(n, probs=p),
     [pos(3), prob(2, 3)]),
    ("NegativeBinomial-logits", lambda lib, n, x: D(lib).NegativeBinomial(n, logits=x),
     [pos(3), real(3)]),
    ("LogNormal", lambda lib, a, b: D(lib).LogNormal(a, b), [real(2, 3, lo=-1, hi=1), pos(3)]),
    ("StudentT", lambda lib, df, a, b: D(lib).StudentT(df, a, b),
     [np.array([0.8, 1.5, 3.0, 6.0]), real(4), pos(4)]),
    ("HalfNormal", lambda lib, s: D(lib).HalfNormal(s), [pos(2, 3)]),
    ("HalfCauchy", lambda lib, s: D(lib).HalfCauchy(s), [pos(3)]),
    ("Gumbel", lambda lib, a, b: D(lib).Gumbel(a, b), [real(2, 3), pos(3)]),
    ("Weibull", lambda lib, s, k: D(lib).Weibull(s, k), [pos(3), pos(2, 3)]),
    ("Pareto", lambda lib, s, a: D(lib).Pareto(s, a), [pos(3), np.array([[0.7, 1.5, 3.0]])]),
    ("VonMises", lambda lib, a, k: D(lib).VonMises(a, k),
     [real(4, lo=-3, hi=3), np.array([0.3, 1.0, 5.0, 40.0])]),
    ("Kumaraswamy", lambda lib, a, b: D(lib).Kumaraswamy(a, b), [pos(2, 3), pos(3)]),
    ("InverseGamma", lambda lib, a, b: D(lib).InverseGamma(a, b),
     [np.array([0.7, 1.5, 3.0]), pos(3)]),
    ("ContinuousBernoulli-probs", lambda lib, p: D(lib).ContinuousBernoulli(probs=p),
     [np.array([0.1, 0.4995, 0.5, 0.7, 0.95])]),
    ("ContinuousBernoulli-logits", lambda lib, x: D(lib).ContinuousBernoulli(logits=x),
     [np.array([-3.0, -0.001, 0.0, 0.5, 2.0])]),
    ("FisherSnedecor", lambda lib, a, b: D(lib).FisherSnedecor(a, b),
     [np.array([1.5, 3.0, 5.0, 8.0]), np.array([1.5, 3.0, 4.5, 9.0])]),
    ("LogisticNormal", lambda lib, a, b: D(lib).LogisticNormal(a, b), [real(2, 3), pos(3)]),
    ("Independent", lambda lib, a, b: D(lib).Independent(D(lib).Normal(a, b), 1),
     [real(2, 3), pos(2, 3)]),
    ("MixtureSameFamily",
     lambda lib, w, a, b: D(lib).MixtureSameFamily(D(lib).Categorical(logits=w),
                                                   D(lib).Normal(a, b)),
     [real(2, 3), real(2, 3), pos(2, 3)]),
    ("MixtureSameFamily-mvn",
     lambda lib, w, a: D(lib).MixtureSameFamily(
         D(lib).Categorical(logits=w), D(lib).Independent(D(lib).Normal(a, 1.0), 1)),
     [real(3), real(3, 2)]),
    ("TransformedDistribution",
     lambda lib, a, b: D(lib).TransformedDistribution(
         D(lib).Normal(a, b), [D(lib).ExpTransform(), D(lib).AffineTransform(1.0, -2.0)]),
     [real(3), pos(3)]),
    ("RelaxedBernoulli", lambda lib, t, p: D(lib).RelaxedBernoulli(t, probs=p),
     [np.array(0.7), prob(3)]),
    ("RelaxedOneHotCategorical",
     lambda lib, t, x: D(lib).RelaxedOneHotCategorical(t, logits=x), [np.array(1.3), real(2, 3)]),
    ("MultivariateNormal-cov",
     lambda lib, m, c: D(lib).MultivariateNormal(m, covariance_matrix=c), [real(2, 3), spd()]),
    ("MultivariateNormal-prec",
     lambda lib, m, c: D(lib).MultivariateNormal(m, precision_matrix=c), [real(3), spd(2)]),
    ("MultivariateNormal-tril",
     lambda lib, m, t: D(lib).MultivariateNormal(m, scale_tril=t), [real(2, 3), tril(2)]),
    ("LowRankMultivariateNormal",
     lambda lib, m, w, d: D(lib).LowRankMultivariateNormal(m, w, d),
     [real(2, 3), real(3, 2), pos(3)]),
    ("LKJCholesky", lambda lib, c: D(lib).LKJCholesky(3, c), [np.array([0.5, 1.0, 2.5])]),
    ("Wishart-cov", lambda lib, df, c: D(lib).Wishart(df, covariance_matrix=c),
     [np.array([3.5, 6.0]), spd()]),
    ("Wishart-prec", lambda lib, df, c: D(lib).Wishart(df, precision_matrix=c),
     [np.array([[3.0], [5.0]]), spd(1, n=2)]),
    # in float32: torch 2.13's GeneralizedPareto.log_prob fails for float64 parameters
    ("GeneralizedPareto",
     lambda lib, a, b, c: D(lib).GeneralizedPareto(a.float(), b.float(), c.float()),
     [real(5), pos(5), np.array([-0.4, -0.1, 0.2, 0.45, 0.7])]),
    ("Wishart-tril", lambda lib, df, t: D(lib).Wishart(df, scale_tril=t),
     [np.array(4.0), tril(2)]),
]

SPEC_IDS = [s[0] for s in SPECS]
