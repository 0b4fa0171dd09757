"""Which parameters get gradients, and which raise, through each distribution's rsample,
log_prob, cdf, icdf, entropy, mean and variance: numtorch against torch (values compared
where they are deterministic; for rsample only whether each parameter gets a gradient)."""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch


def _p(lib, *v):
    return lib.tensor(v, dtype=lib.float64, requires_grad=True)


def _t(lib, *v):
    return lib.tensor(v, dtype=lib.float64)


CASES = {  # name: (parameters, a point in the support, a probability)
    "Normal": (lambda L: dict(loc=_p(L, 0.3, -1.0), scale=_p(L, 1.2, 0.7)), (0.1, 0.5), True),
    "Gamma": (lambda L: dict(concentration=_p(L, 2.0, 3.0), rate=_p(L, 1.5, 0.5)), (1.0, 2.0),
              True),
    "Chi2": (lambda L: dict(df=_p(L, 2.0, 3.0)), (1.0, 2.0), True),
    "InverseGamma": (lambda L: dict(concentration=_p(L, 2.0, 3.0), rate=_p(L, 1.5, 0.5)),
                     (1.0, 2.0), True),
    "StudentT": (lambda L: dict(df=_p(L, 2.0, 3.0, 0.8), loc=_p(L, 0.3, -1.0, 0.0),
                                scale=_p(L, 1.2, 0.7, 1.0)), (0.1, 0.5, 0.2), True),
    "Exponential": (lambda L: dict(rate=_p(L, 1.5, 0.5)), (1.0, 2.0), True),
    "Uniform": (lambda L: dict(low=_p(L, 0.0, -1.0), high=_p(L, 2.0, 3.0)), (1.0, 2.0), True),
    "Laplace": (lambda L: dict(loc=_p(L, 0.3, -1.0), scale=_p(L, 1.2, 0.7)), (0.1, 0.5), True),
    "Cauchy": (lambda L: dict(loc=_p(L, 0.3, -1.0), scale=_p(L, 1.2, 0.7)), (0.1, 0.5), True),
    "Gumbel": (lambda L: dict(loc=_p(L, 0.3, -1.0), scale=_p(L, 1.2, 0.7)), (0.1, 0.5), True),
    "Pareto": (lambda L: dict(scale=_p(L, 1.2, 0.7), alpha=_p(L, 2.0, 3.0)), (1.5, 2.5), True),
    "Weibull": (lambda L: dict(scale=_p(L, 1.2, 0.7), concentration=_p(L, 2.0, 3.0)),
                (1.5, 2.5), True),
    "Beta": (lambda L: dict(concentration1=_p(L, 2.0, 3.0), concentration0=_p(L, 1.5, 0.5)),
             (0.3, 0.6), False),
    "Kumaraswamy": (lambda L: dict(concentration1=_p(L, 2.0, 3.0),
                                   concentration0=_p(L, 1.5, 0.5)), (0.3, 0.6), True),
    "FisherSnedecor": (lambda L: dict(df1=_p(L, 2.0, 3.0), df2=_p(L, 4.0, 5.0)), (1.0, 2.0),
                       False),
    "ContinuousBernoulli": (lambda L: dict(probs=_p(L, 0.3, 0.8)), (0.1, 0.5), True),
    "Poisson": (lambda L: dict(rate=_p(L, 1.5, 0.5)), (1.0, 2.0), False),
    "NegativeBinomial": (lambda L: dict(total_count=_p(L, 5.0, 6.0), probs=_p(L, 0.3, 0.8)),
                         (1.0, 2.0), False),
    "Dirichlet": (lambda L: dict(concentration=_p(L, 2.0, 3.0)), (0.3, 0.7), False),
    "VonMises": (lambda L: dict(loc=_p(L, 0.3, -1.0), concentration=_p(L, 2.0, 3.0)),
                 (0.1, 0.5), False),
}


def _outcome(params, fn):
    for p in params.values():
        p.grad = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn().sum().backward()
    except Exception as e:  # noqa: BLE001  (the error itself is compared)
        return type(e).__name__, str(e).split("\n")[0]
    return {k: None if p.grad is None else p.grad.numpy().copy() for k, p in params.items()}


def _all(lib, name):
    make, x, icdf = CASES[name]
    out = {}
    for what in ("has_rsample", "rsample", "log_prob", "cdf", "icdf", "entropy", "mean",
                 "variance"):
        params = make(lib)
        d = getattr(lib.distributions, name)(**params)
        fns = {"rsample": lambda: d.rsample((3,)), "log_prob": lambda: d.log_prob(_t(lib, *x)),
               "cdf": lambda: d.cdf(_t(lib, *x)), "entropy": d.entropy,
               "icdf": lambda: d.icdf(_t(lib, *((0.2, 0.9, 0.5)[:len(x)]))),
               "mean": lambda: d.mean, "variance": lambda: d.variance}
        if what == "has_rsample":
            out[what] = d.has_rsample
        elif what != "icdf" or icdf:
            out[what] = _outcome(params, fns[what])
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_parameter_gradients_match_torch(name):
    ours, ref = _all(numtorch, name), _all(torch, name)
    assert ours.keys() == ref.keys()
    for what in ref:
        a, b = ours[what], ref[what]
        if not isinstance(b, dict):
            assert a == b, (what, a, b)
            continue
        assert isinstance(a, dict) and a.keys() == b.keys(), (what, a, b)
        for k in b:
            assert (a[k] is None) == (b[k] is None), (what, k)
            if b[k] is not None and what != "rsample":
                np.testing.assert_allclose(a[k], b[k], rtol=1e-6, atol=1e-9,
                                           err_msg=f"{what} {k}")


def test_student_t_variance_gradient_is_zero_where_infinite_or_undefined():
    for lib in (numtorch, torch):
        df = _p(lib, 1.5, 2.0, 0.5, 4.0)
        scale = _p(lib, 2.0, 2.0, 2.0, 2.0)
        v = lib.distributions.StudentT(df, 0.0, scale).variance
        assert math.isinf(v[0].item()) and math.isnan(v[2].item())
        v.sum().backward()
        np.testing.assert_allclose(df.grad.numpy(), [0, 0, 0, -2.0])
        np.testing.assert_allclose(scale.grad.numpy(), [0, 0, 0, 8.0])
