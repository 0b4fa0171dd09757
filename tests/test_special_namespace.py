"""torch.special against real torch: every public name, values on ordinary and edge inputs,
dtypes, gradients of first and second order, torch's non-differentiable functions and its
"not implemented" derivative errors."""

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(3)
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, np.inf, -np.inf, np.nan, 1e-8, 30.0, -30.0, 100.0]
XS = np.concatenate([RNG.uniform(-5, 5, 20), EDGES])
# torch's own Bessel/Airy kernels are accurate to about 1e-8 (Airy: 3e-5) in double
ROUGH = {"airy_ai": 1e-4, "bessel_j0": 1e-7, "bessel_j1": 1e-7, "bessel_y0": 1e-7,
         "bessel_y1": 1e-7}
NO_GRAD = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0"]
DIFF = ["entr", "erfcx", "i0e", "i1", "i1e", "log_ndtr", "ndtr", "expit", "exp2", "expm1",
        "log1p", "gammaln", "psi", "sinc", "erfc", "erf", "digamma", "i0"]
POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
        "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p"]


def _same(a, b, tol, what=""):
    assert isinstance(a, numtorch.Tensor), what
    assert tuple(a.shape) == tuple(b.shape), (what, tuple(a.shape), tuple(b.shape))
    assert str(a.dtype) == str(b.dtype), (what, a.dtype, b.dtype)
    assert a.requires_grad == b.requires_grad, (what, a.requires_grad, b.requires_grad)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=what)


def _raises(fn, match=None):
    with pytest.raises(Exception) as eb:
        fn(torch)
    with pytest.raises(type(eb.value)) as ea:
        fn(numtorch)
    want = str(eb.value) if match is None else match
    assert want in str(ea.value), (str(ea.value), str(eb.value))


def test_every_public_name():
    names = [n for n in dir(torch.special) if not n.startswith("_")]
    # torch.special also leaks `torch`, `common_args` and `multi_dim_common` (docstring
    # helpers): not functions
    missing = [n for n in names if not hasattr(numtorch.special, n)
               and n not in ("torch", "common_args", "multi_dim_common")]
    assert missing == []
    assert sorted(numtorch.special.__all__) == sorted(torch.special.__all__)


@pytest.mark.parametrize("name", NO_GRAD + DIFF + ["ndtri", "erfinv"])
def test_unary_values(name):
    for dt in (np.float64, np.float32):
        x = XS
        if name == "ndtri":
            x = np.concatenate([RNG.uniform(0, 1, 10), [0, 1, 0.5, -0.1, 1.1, np.nan]])
        elif name == "erfinv":
            x = np.concatenate([RNG.uniform(-1, 1, 10), [0, 1, -1, 2]])
        x = x.astype(dt)
        a = getattr(numtorch.special, name)(numtorch.tensor(x, requires_grad=True))
        b = getattr(torch.special, name)(torch.tensor(x, requires_grad=True))
        tol = ROUGH.get(name, 1e-10) if dt == np.float64 else max(ROUGH.get(name, 0), 2e-5)
        _same(a, b, tol, name)


@pytest.mark.parametrize("name", NO_GRAD + DIFF + POLY + ["ndtri", "erfcx", "log_ndtr"])
def test_dtypes(name):
    def call(L, x):
        fn = getattr(L.special, name)
        return fn(x, 3) if name in POLY else fn(x)

    for make in (lambda L: L.tensor([1, 2]), lambda L: L.tensor([True, False])):
        _same(call(numtorch, make(numtorch)), call(torch, make(torch)), 1e-5, name)
    for dt in ("float16", "complex64"):
        try:
            want = call(torch, torch.tensor([0.5]).to(getattr(torch, dt)))
        except NotImplementedError:
            _raises(lambda L: call(L, L.tensor([0.5]).to(getattr(L, dt))))
        else:
            got = call(numtorch, numtorch.tensor([0.5]).to(getattr(numtorch, dt)))
            _same(got, want, 2e-3, name)


def _grad2(name, x, fa, fb, tol=1e-9):
    a, b = numtorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = fa(a), fb(b)
    u = RNG.standard_normal(tuple(yb.shape))
    (ga,) = numtorch.autograd.grad(ya, a, numtorch.tensor(u), create_graph=True)
    (gb,) = torch.autograd.grad(yb, b, torch.tensor(u), create_graph=True)
    _same(ga, gb, tol, name + " grad")
    if not gb.requires_grad:
        return
    v = RNG.standard_normal(x.shape)
    (gga,) = numtorch.autograd.grad((ga * numtorch.tensor(v)).sum(), a)
    (ggb,) = torch.autograd.grad((gb * torch.tensor(v)).sum(), b)
    _same(gga, ggb, tol * 10, name + " second order")


@pytest.mark.parametrize("name", DIFF + ["ndtri"])
def test_unary_gradients(name):
    x = np.concatenate([RNG.uniform(-5, 5, 10), [1.0, -1.0, 0.5, 30.0, -30.0]])
    if name != "sinc":  # torch's second derivative of sinc at 0 is NaN
        x = np.concatenate([x, [0.0]])
    if name == "ndtri":
        x = RNG.uniform(0.01, 0.99, 10)
    _grad2(name, x, getattr(numtorch.special, name), getattr(torch.special, name))


@pytest.mark.parametrize("name", NO_GRAD + POLY)
def test_not_differentiable(name):
    def call(L):
        x = L.tensor([0.3, 0.7], requires_grad=True)
        fn = getattr(L.special, name)
        return fn(x, 4) if name in POLY else fn(x)

    a, b = call(numtorch), call(torch)
    assert not a.requires_grad and not b.requires_grad and a.grad_fn is None


@pytest.mark.parametrize("name", ["xlog1py", "xlogy", "zeta", "gammainc", "gammaincc"])
def test_binary(name):
    fa, fb = getattr(numtorch.special, name), getattr(torch.special, name)
    for dt in (np.float64, np.float32):
        a = RNG.uniform(0.1, 4, (3, 1)).astype(dt)
        b = RNG.uniform(-0.5, 4, (4,)).astype(dt)
        if name == "zeta":
            a = a + 1
        if name == "xlog1py":
            a[0, 0], b[0], b[1] = 0, -1, -2
        _same(fa(numtorch.tensor(a), numtorch.tensor(b)), fb(torch.tensor(a), torch.tensor(b)),
              1e-10 if dt == np.float64 else 1e-5, name)
    a = RNG.uniform(0.1, 4, (3, 1)) + (name == "zeta")
    b = RNG.uniform(0.1, 4, (4,))
    if name in ("xlog1py", "xlogy"):
        _grad2(name, a, lambda t: fa(t, numtorch.tensor(b)), lambda t: fb(t, torch.tensor(b)))
        _same(fa(2.0, numtorch.tensor(b)), fb(2.0, torch.tensor(b)), 1e-10, name)
    _grad2(name, b, lambda t: fa(numtorch.tensor(a), t), lambda t: fb(torch.tensor(a), t))
    _raises(lambda L: getattr(L.special, name)(L.ones(3), L.ones(4)))
    _raises(lambda L: getattr(L.special, name)(2.0, 3.0))


def test_edge_values_binary():
    a = np.array([0.0, 1.0, -1.0, 2.0, 0.0, 0.5, 1.0])
    b = np.array([1.0, 0.0, 2.0, -1.0, 0.0, np.inf, np.nan])
    for name in ("gammainc", "gammaincc", "zeta", "xlog1py"):
        _same(getattr(numtorch.special, name)(numtorch.tensor(a), numtorch.tensor(b)),
              getattr(torch.special, name)(torch.tensor(a), torch.tensor(b)), 1e-12, name)


def test_not_implemented_derivatives():
    def grad_first(L, name):
        a = L.tensor([2.0], requires_grad=True)
        return L.autograd.grad(getattr(L.special, name)(a, L.tensor([1.5])).sum(), a)

    for name in ("zeta", "gammainc", "gammaincc"):
        _raises(lambda L: grad_first(L, name))
    _raises(lambda L: L.special.gammainc(L.tensor([1, 2]), L.tensor([3, 4])))
    _raises(lambda L: L.special.gammainc(2.0, L.tensor([1.0])))


@pytest.mark.parametrize("name", POLY)
def test_polynomials(name):
    fa, fb = getattr(numtorch.special, name), getattr(torch.special, name)
    x = np.concatenate([RNG.uniform(-1.2, 1.2, 30), [0, 1, -1, 0.5, 2, -2]])[:, None]
    deg = np.array([-1, 0, 1, 2, 3, 5, 7, 9, 10, 15])
    for dt in (np.float64, np.float32):
        _same(fa(numtorch.tensor(x.astype(dt)), numtorch.tensor(deg)),
              fb(torch.tensor(x.astype(dt)), torch.tensor(deg)),
              1e-9 if dt == np.float64 else 1e-4, name)
    _same(fa(numtorch.tensor(x), 3), fb(torch.tensor(x), 3), 1e-9, name)
    _same(fa(0.3, numtorch.tensor(deg)), fb(0.3, torch.tensor(deg)), 1e-6, name)
    _same(fa(numtorch.tensor(x), numtorch.tensor([2.5, 7.9])),
          fb(torch.tensor(x), torch.tensor([2.5, 7.9])), 1e-9, name)
    nan = np.full(6, np.nan)
    _same(fa(numtorch.tensor(nan), numtorch.tensor(deg[:6])),
          fb(torch.tensor(nan), torch.tensor(deg[:6])), 0, name)


def test_aliases_and_reductions():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    cases = [
        ("softmax", (1,), {}), ("softmax", (0,), {"dtype": "float64"}),
        ("log_softmax", (-1,), {}), ("logsumexp", (1,), {}), ("logsumexp", ((0, 1), True), {}),
        ("round", (), {"decimals": 1}), ("logit", (0.1,), {}), ("multigammaln", (1,), {}),
        ("polygamma", (), {}), ("expit", (), {}),
    ]
    for name, args, kw in cases:
        kwa = {k: getattr(numtorch, v) if k == "dtype" else v for k, v in kw.items()}
        kwb = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        xin = np.abs(x) + 1 if name == "multigammaln" else x
        if name == "polygamma":
            a = numtorch.special.polygamma(2, numtorch.tensor(np.abs(x) + 0.5))
            b = torch.special.polygamma(2, torch.tensor(np.abs(x) + 0.5))
        else:
            a = getattr(numtorch.special, name)(numtorch.tensor(xin), *args, **kwa)
            b = getattr(torch.special, name)(torch.tensor(xin), *args, **kwb)
        _same(a, b, 1e-5, name)
    out = numtorch.empty(0)
    r = numtorch.special.erfcx(numtorch.tensor([0.5, 1.0]), out=out)
    assert r is out
    _same(out, torch.special.erfcx(torch.tensor([0.5, 1.0])), 1e-6)
    _raises(lambda L: L.special.erfcx([1.0]), "must be Tensor, not list")
