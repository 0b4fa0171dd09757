"""Every distribution family against torch: log_prob, cdf, icdf, entropy and moments (values,
gradients for a random cotangent and second order), shapes, expand, support, repr."""

import re
import math

import numpy as np
import pytest
import scipy.special as sp
import torch

import numtorch
from tests.distributions._specs import SPEC_IDS, SPECS
from tests.oracle import check_op

pytestmark = pytest.mark.filterwarnings("ignore:Singular sample")

METHODS = ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev",
           "perplexity"]
VALUE_METHODS = {"log_prob", "cdf", "icdf"}

# torch evaluates log I0 by a polynomial approximation (relative error ~1e-7, ~3e-5 for
# I1/I0 at large kappa); numtorch's is exact, checked against SciPy below
RTOL = {("VonMises", m): 5e-5 for m in ("log_prob", "variance", "stddev")}
RTOL.update({("GeneralizedPareto", m): 2e-5 for m in METHODS})  # computed in float32
# torch 2.13's Kumaraswamy.mode is NaN almost everywhere; numtorch returns the true mode
DIVERGES = {("Kumaraswamy", "mode")}


def _th(make, params):
    return make(torch, *[torch.from_numpy(p) for p in params])


def _nt(make, params):
    return make(numtorch, *[numtorch.from_numpy(p) for p in params])


def _values(make, params, method):
    """Points to evaluate ``method`` at: draws from torch's distribution, or probabilities
    for ``icdf``."""
    th = _th(make, params)
    if method == "icdf":
        return np.random.default_rng(0).uniform(0.05, 0.95, tuple(th.batch_shape))
    torch.manual_seed(3)
    with torch.no_grad():
        return th.sample((2,)).numpy()


def _torch_result(make, params, method, value):
    th = _th(make, params)
    attr = getattr(th, method)
    if method in VALUE_METHODS:
        return attr(torch.from_numpy(value))
    return attr() if callable(attr) else attr


def _gamma_cdf_spec(name, make, params):
    """torch cannot differentiate the incomplete gamma function in its first argument: for
    the gamma family's cdf the shape parameter is a constant."""
    if name == "Gamma":
        a = params[0]
        return (lambda lib, b: lib.distributions.Gamma(lib.from_numpy(a.copy()), b)), params[1:]
    if name == "Chi2":
        return (lambda lib: lib.distributions.Chi2(lib.from_numpy(params[0].copy()))), []
    if name == "InverseGamma":
        a = params[0]
        return (lambda lib, b: lib.distributions.InverseGamma(lib.from_numpy(a.copy()), b),
                params[1:])
    return make, params


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name,make,params", SPECS, ids=SPEC_IDS)
def test_method_against_torch(name, make, params, method):
    if (name, method) in DIVERGES:
        return
    value = _values(make, params, method) if method in VALUE_METHODS else None
    try:
        _torch_result(make, params, method, value)
    except NotImplementedError:
        # torch does not have it: neither may numtorch
        nt = _nt(make, params)
        with pytest.raises(NotImplementedError):
            attr = getattr(nt, method)
            if method in VALUE_METHODS:
                attr(numtorch.from_numpy(value))
            elif callable(attr):
                attr()
        return
    if method == "cdf":
        make, params = _gamma_cdf_spec(name, make, params)
    rtol = RTOL.get((name, method))
    if method in VALUE_METHODS:
        def fn(lib, *xs):
            return getattr(make(lib, *xs[:-1]), method)(xs[-1])
        arrays = list(params) + [value]
    else:
        def fn(lib, *xs):
            attr = getattr(make(lib, *xs), method)
            return attr() if callable(attr) else attr
        arrays = list(params)
    check_op(fn, arrays, rtol=rtol, atol=1e-9 if rtol is None else 1e-7)


FLOAT32 = ["Normal", "Gamma", "Beta", "Categorical-logits", "MultivariateNormal-tril",
           "Binomial-probs", "Dirichlet", "VonMises"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_log_prob_and_entropy(name):
    _, make, params = SPECS[SPEC_IDS.index(name)]
    p32 = [p.astype(np.float32) for p in params]
    value = _values(make, p32, "log_prob")
    rtol = 2e-4 if name != "VonMises" else 1e-3
    check_op(lambda lib, *xs: make(lib, *xs[:-1]).log_prob(xs[-1]), p32 + [value],
             dtype="float32", rtol=rtol, second_order=False)
    if name != "VonMises":
        check_op(lambda lib, *xs: make(lib, *xs).entropy(), p32, dtype="float32",
                 rtol=rtol, second_order=False)


def _norm_repr(text):
    return text.replace("numtorch", "torch")


@pytest.mark.parametrize("name,make,params", SPECS, ids=SPEC_IDS)
def test_shapes_flags_support_and_repr(name, make, params):
    th, nt = _th(make, params), _nt(make, params)
    assert nt.batch_shape == th.batch_shape and nt.event_shape == th.event_shape
    assert type(nt.batch_shape) is numtorch.Size
    assert nt.has_rsample == th.has_rsample
    assert nt.has_enumerate_support == th.has_enumerate_support
    assert repr(nt) == repr(th)
    # torch runs on the CPU: a cuda bound prints its device
    assert re.sub(r",\s*device='cuda:\d+'", "", repr(nt.support)) == repr(th.support)
    assert nt.support.event_dim == th.support.event_dim
    assert nt.support.is_discrete == th.support.is_discrete
    assert list(nt.arg_constraints) == list(th.arg_constraints)
    for k in nt.arg_constraints:
        assert re.sub(r",\s*device='cuda:\d+'", "", repr(nt.arg_constraints[k])) == \
            repr(th.arg_constraints[k])
    for shape in [(), (2,), (3, 1)]:
        s = nt.sample(shape)
        assert tuple(s.shape) == tuple(th.sample(shape).shape)
        assert s.dtype.is_floating_point == th.sample().dtype.is_floating_point
        assert not s.requires_grad
        assert bool(nt.support.check(s).all())
        if th.has_rsample:
            assert tuple(nt.rsample(shape).shape) == tuple(th.rsample(shape).shape)
    # the support says the same as torch's about torch's draws and about bad values
    v = _values(make, params, "log_prob")
    bad = v.copy()
    bad.reshape(-1)[0] = -7.5
    for arr in (v, bad):
        a = nt.support.check(numtorch.from_numpy(arr.copy()))
        b = th.support.check(torch.from_numpy(arr.copy()))
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name,make,params", SPECS, ids=SPEC_IDS)
def test_expand(name, make, params):
    th, nt = _th(make, params), _nt(make, params)
    new_batch = (2,) + tuple(th.batch_shape)
    te, ne = th.expand(new_batch), nt.expand(numtorch.Size(new_batch))
    assert type(ne) is type(nt)
    assert ne.batch_shape == te.batch_shape and ne.event_shape == te.event_shape
    assert ne._validate_args == nt._validate_args
    v = _values(make, params, "log_prob")[0]
    np.testing.assert_allclose(ne.log_prob(numtorch.from_numpy(v.copy())).detach().numpy(),
                               te.log_prob(torch.from_numpy(v.copy())).detach().numpy(),
                               rtol=5e-5, atol=1e-9)
    assert tuple(ne.sample((3,)).shape) == tuple(te.sample((3,)).shape)


ENUMERABLE = ["Bernoulli-probs", "Categorical-logits", "OneHotCategorical",
              "Binomial-logits", "OneHotCategoricalStraightThrough"]


@pytest.mark.parametrize("name", ENUMERABLE)
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(name, expand):
    _, make, params = SPECS[SPEC_IDS.index(name)]
    a = _nt(make, params).enumerate_support(expand=expand)
    b = _th(make, params).enumerate_support(expand=expand)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_enumerate_support_errors():
    D, T = numtorch.distributions, torch.distributions
    for lib, M in ((numtorch, D), (torch, T)):
        d = M.Binomial(lib.tensor([3.0, 4.0]), lib.tensor(0.3))
        for fn in (d.enumerate_support, d.entropy):
            with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
                fn()
        ind = M.Independent(M.Bernoulli(lib.full((2,), 0.5)), 1)
        assert not ind.has_enumerate_support
        with pytest.raises(NotImplementedError, match="cartesian product"):
            ind.enumerate_support()


def test_von_mises_is_exact():
    k = np.array([1e-6, 0.3, 1.0, 5.0, 40.0, 900.0])
    x = np.array([0.5, -2.0, 3.0, 0.1, -0.05, 0.01])
    d = numtorch.distributions.VonMises(numtorch.zeros(6, dtype=numtorch.float64),
                                        numtorch.from_numpy(k))
    want = k * np.cos(x) - math.log(2 * math.pi) - np.log(sp.ive(0, k)) - k
    np.testing.assert_allclose(d.log_prob(numtorch.from_numpy(x)).numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(d.variance.numpy(), 1 - sp.ive(1, k) / sp.ive(0, k),
                               rtol=1e-12)
    # d/dk log I0(k) = I1/I0 and d/dk (I1/I0) = 1 - r/k - r^2, to second order
    kt = numtorch.from_numpy(k.copy()).requires_grad_()
    dist = numtorch.distributions.VonMises(numtorch.zeros(6, dtype=numtorch.float64), kt)
    lp = dist.log_prob(numtorch.zeros(6, dtype=numtorch.float64)).sum()
    (g,) = numtorch.autograd.grad(lp, kt, create_graph=True)
    r = sp.ive(1, k) / sp.ive(0, k)
    np.testing.assert_allclose(g.detach().numpy(), 1 - r, rtol=1e-10, atol=1e-12)
    (h,) = numtorch.autograd.grad(g.sum(), kt)
    np.testing.assert_allclose(h.numpy(), -(1 - r / k - r * r), rtol=1e-6, atol=1e-9)


def test_kumaraswamy_mode_is_the_density_peak():
    a = np.array([2.0, 3.0, 1.0, 0.5, 2.0])
    b = np.array([3.0, 1.5, 2.0, 2.0, 0.7])
    m = numtorch.distributions.Kumaraswamy(numtorch.from_numpy(a), numtorch.from_numpy(b)).mode
    with np.errstate(divide="ignore", invalid="ignore"):
        want = ((a - 1) / (a * b - 1)) ** (1 / a)
    want[(a < 1) | (b < 1)] = np.nan
    np.testing.assert_allclose(m.numpy(), want, rtol=1e-12)


def test_gamma_cdf_gradient_in_concentration_raises_torch_error():
    # torch has no derivative of igamma in its first argument: the cdf's value and its rate
    # gradient are there, a concentration that needs a gradient raises in backward
    a = np.array([0.3, 1.0, 4.0, 30.0])
    x = np.array([0.2, 1.5, 3.0, 33.0])
    for lib in (numtorch, torch):
        at = lib.from_numpy(a.copy()).requires_grad_()
        rate = lib.ones(4, dtype=lib.float64, requires_grad=True)
        cdf = lib.distributions.Gamma(at, rate).cdf(lib.from_numpy(x))
        np.testing.assert_allclose(cdf.detach().numpy(), sp.gammainc(a, x), rtol=1e-9)
        with pytest.raises(NotImplementedError,
                           match=r"^the derivative for 'igamma: input' is not implemented\.$"):
            cdf.sum().backward()
        for d in (lib.distributions.Chi2(at), lib.distributions.InverseGamma(at, 1.0)):
            with pytest.raises(NotImplementedError, match="igamma: input"):
                d.cdf(lib.from_numpy(x + 0.5)).sum().backward()
    rate_n = numtorch.ones(4, dtype=numtorch.float64, requires_grad=True)
    (g,) = numtorch.autograd.grad(numtorch.distributions.Gamma(numtorch.from_numpy(a), rate_n)
                                  .cdf(numtorch.from_numpy(x)).sum(), rate_n)
    rate_t = torch.ones(4, dtype=torch.float64, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.distributions.Gamma(torch.from_numpy(a), rate_t)
                                .cdf(torch.from_numpy(x)).sum(), rate_t)
    np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-10)
