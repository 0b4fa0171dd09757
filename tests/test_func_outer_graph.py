"""torch.func transforms stay connected to the ordinary autograd graph outside them: a
function that closes over a tensor requiring grad gives results whose backward reaches that
tensor (MAML-style meta-gradients), as torch's do; under no_grad they do not."""

import pytest
import torch

import numtorch


def _both(build):
    """Run ``build(lib)`` in torch and numtorch; each returns a list of tensors or None."""
    return build(torch), build(numtorch)


def _same(a, b, atol=1e-6):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None
            continue
        assert tuple(x.shape) == tuple(y.shape)
        assert torch.allclose(x.detach(), torch.from_numpy(y.detach().numpy()), atol=atol)


def _closure_grad(lib, transform):
    g = lib.Generator().manual_seed(0)
    w = lib.randn(4, generator=g).requires_grad_(True)
    x = lib.randn(4, generator=g)
    cot = lib.randn(4, generator=g)

    def f(v):
        return (v.sin() * w * v).sum() if transform in ("grad", "hessian") else v.sin() * w * v

    if transform == "grad":
        r = lib.func.grad(f)(x)
    elif transform == "vjp":
        _, fn = lib.func.vjp(f, x)
        (r,) = fn(cot)
    elif transform == "jvp":
        _, r = lib.func.jvp(f, (x,), (cot,))
    elif transform == "jacrev":
        r = lib.func.jacrev(f)(x)
    else:
        r = lib.func.hessian(f)(x)
    flags = [r.requires_grad, r.grad_fn is not None]
    (r * lib.arange(r.numel()).reshape(r.shape).float()).sum().backward()
    return flags, [r, w.grad]


@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "jacrev", "hessian"])
def test_closure_over_a_weight_stays_connected(transform):
    (tf, tv), (nf, nv) = _both(lambda lib: _closure_grad(lib, transform))
    assert nf == tf == [True, True]
    _same(tv, nv, atol=1e-5)


def test_no_outer_graph_under_no_grad_or_without_captured_weights():
    for lib in (torch, numtorch):
        w = lib.ones(3, requires_grad=True)
        x = lib.arange(3.0)
        with lib.no_grad():
            r = lib.func.grad(lambda v: (v * v * w).sum())(x)
        assert not r.requires_grad
        r2 = lib.func.grad(lambda v: (v * v * v).sum())(x)
        assert not r2.requires_grad and r2.grad_fn is None
        g, value = lib.func.grad_and_value(lambda v: (v * w).sum())(x)
        assert g.requires_grad and value.requires_grad  # the gradient is w itself


def _maml(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    xs, ys = lib.randn(5, 3), lib.randn(5, 1)
    xq, yq = lib.randn(5, 3), lib.randn(5, 1)
    params = dict(model.named_parameters())

    def loss(p, x, y):
        return lib.nn.functional.mse_loss(lib.func.functional_call(model, p, (x,)), y)

    g = lib.func.grad(loss)(params, xs, ys)
    fast = {k: v - 0.1 * g[k] for k, v in params.items()}
    loss(fast, xq, yq).backward()
    return [p.grad for p in model.parameters()]


def test_maml_meta_gradient_matches_torch():
    t, n = _both(_maml)
    _same(t, n, atol=1e-6)


def _closure_module(lib):
    lib.manual_seed(1)
    lin = lib.nn.Linear(4, 2)
    x = lib.randn(4)
    # the gradient w.r.t. the input of a model whose weights are captured, then a penalty on
    # its norm trained into the weights (gradient penalty, as in WGAN-GP)
    gx = lib.func.grad(lambda v: lin(v).square().sum())(x)
    gx.norm().backward()
    return [gx, lin.weight.grad, lin.bias.grad]


def test_gradient_penalty_through_captured_module():
    t, n = _both(_closure_module)
    _same(t, n, atol=1e-6)
