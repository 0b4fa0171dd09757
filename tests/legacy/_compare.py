"""Checking a legacy module against the same computation in real torch.

The module runs forward/backward on float64 numtorch tensors; the reference function gets
torch leaves holding the same input values and the module's parameters, and torch's
autograd gives the expected gradInput and parameter gradients for a random gradOutput.
"""

import numpy as np
import torch

import numtorch


def nt(a):
    return numtorch.tensor(np.asarray(a))


def to_torch(obj, grad=True):
    if isinstance(obj, numtorch.Tensor):
        t = torch.from_numpy(obj.numpy().copy())
        if grad and t.is_floating_point():
            t.requires_grad_()
        return t
    if isinstance(obj, (list, tuple)):
        return [to_torch(o, grad) for o in obj]
    return obj


def flat(obj):
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in flat(o)]
    return [obj]


def close(a, b, tol=1e-9):
    a = a.numpy() if isinstance(a, numtorch.Tensor) else a.detach().numpy()
    b = b.numpy() if isinstance(b, numtorch.Tensor) else b.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def check_module(module, input, reference, scale=0.5, rng=None):
    """Compare output, gradInput and scale * gradParameters with torch's ``reference``.

    ``reference(input, *params)`` gets torch tensors; params are the module's parameters in
    ``parameters()`` order."""
    rng = rng or np.random.default_rng(0)
    module.double()
    params = module.parameters()
    weights = params[0] if params else []
    before = [g.clone() for g in params[1]] if params else []
    out = module.forward(input)
    x_t = to_torch(input)
    w_t = [to_torch(w) for w in weights]
    out_t = reference(x_t, *w_t)
    for a, b in zip(flat(out), flat(out_t)):
        close(a, b)
    grad_out = [rng.standard_normal(tuple(o.shape)) for o in flat(out)]
    go = grad_out[0] if not isinstance(out, list) else None
    go_nt = nt(go) if go is not None else [nt(g) for g in grad_out]
    gi = module.backward(input, go_nt, scale)
    leaves = [t for t in flat(x_t) if t.requires_grad] + w_t
    outs = [o for o in flat(out_t) if o.requires_grad]
    gos = [torch.from_numpy(g) for g, o in zip(grad_out, flat(out_t)) if o.requires_grad]
    grads = torch.autograd.grad(outs, leaves, gos, allow_unused=True)
    n_in = len(leaves) - len(w_t)
    gi_flat = [g for g, x in zip(flat(gi), flat(x_t)) if x.requires_grad]
    for a, b, x in zip(gi_flat, grads[:n_in], [t for t in flat(x_t) if t.requires_grad]):
        close(a, b if b is not None else torch.zeros_like(x))
    if params:
        for acc, old, g in zip(params[1], before, grads[n_in:]):
            close(acc - old, scale * g)
    return out, gi
