"""float16/bfloat16 layer norm with 16-bit parameters, gradients as torch's CPU kernel rounds
them: the input gradient is computed in float32 from the row means and invstds rounded to the
input's dtype (torch keeps them in that dtype), the weight and bias gradients are summed in
16-bit chunk buffers (as for autocast's float32 parameters). Before, 35-45% of the input
gradient and ~50% of the weight/bias gradients differed in the last bit."""

import numpy as np
import pytest
import torch

import numtorch as nt


def _run(lib, dtype, shape, seed, **kw):
    rng = np.random.default_rng(seed)
    n = shape[-1]
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 2 + 0.5).to(
        getattr(lib, dtype)).requires_grad_()
    m = lib.nn.LayerNorm(n, **kw).to(getattr(lib, dtype))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(n).astype(np.float32)).to(x.dtype))
    y = m(x)
    g = lib.tensor(rng.standard_normal(shape).astype(np.float32)).to(x.dtype)
    grads = lib.autograd.grad(y, [x, *m.parameters()], g)
    return [y.detach().float().numpy()] + [t.float().numpy() for t in grads]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", [(14, 16), (3, 5, 64), (8, 768), (2, 3, 4, 10)])
def test_layer_norm_grads_bit_for_bit(dtype, shape):
    got, want = _run(nt, dtype, shape, 0), _run(torch, dtype, shape, 0)
    assert np.sum(got[0] != want[0]) <= 2  # (the forward's float32 sums: ~1 value in 1000)
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("kw", [{"elementwise_affine": False}, {"bias": False}])
def test_without_affine_parts(dtype, kw):
    got, want = _run(nt, dtype, (6, 32), 1, **kw), _run(torch, dtype, (6, 32), 1, **kw)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape,groups", [((4, 8, 6, 6), 2), ((2, 8, 5, 5), 4),
                                          ((2, 8, 16, 16), 8), ((2, 6, 4, 4, 4), 3)])
def test_group_norm_grads_bit_for_bit(dtype, shape, groups):
    """Group norm: the same rounded statistics (its weight/bias gradients are float32 sums
    there, rounded once)."""
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(0)
        c = shape[1]
        x = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 2 + 0.5).to(
            getattr(lib, dtype)).requires_grad_()
        m = lib.nn.GroupNorm(groups, c).to(x.dtype)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rng.standard_normal(c).astype(np.float32)).to(x.dtype))
        y = m(x)
        g = lib.tensor(rng.standard_normal(shape).astype(np.float32)).to(x.dtype)
        outs.append([y.detach().float().numpy()] + [
            t.float().numpy() for t in lib.autograd.grad(y, [x, *m.parameters()], g)])
    assert np.sum(outs[0][0] != outs[1][0]) <= 2
    for a, b in zip(outs[0][1:], outs[1][1:]):
        np.testing.assert_array_equal(a, b)
