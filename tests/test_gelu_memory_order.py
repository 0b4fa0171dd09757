"""GELU on float32 inputs laid out in another axis order (ConvNeXt's channels-last
activations, transposes) runs the row kernels on the memory-order view: the same bits as on
a contiguous copy, values and gradients as torch's, the result keeping the input's layout."""

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(3)


def _layouts(lib, a):
    t = lib.tensor(a)
    return {
        "contiguous": t,
        "channels_last": t.contiguous(memory_format=lib.channels_last),
        "transposed": t.transpose(1, 3),
        "permuted": t.permute(2, 0, 3, 1),
    }


def _run(lib, a, g, layout, approximate, copy=False):
    x = _layouts(lib, a)[layout].detach()
    gy = _layouts(lib, g)[layout]
    if copy:  # the same logical tensors, contiguous
        x, gy = x.contiguous(), gy.contiguous()
    x.requires_grad_(True)
    y = lib.nn.functional.gelu(x, approximate=approximate)
    (gx,) = lib.autograd.grad(y, x, gy)
    with lib.no_grad():
        y0 = lib.nn.functional.gelu(x, approximate=approximate)
    return [t.detach().contiguous().numpy() for t in (y, gx, y0)], y.stride(), y0.stride()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("layout", ["channels_last", "transposed", "permuted"])
def test_values_grads_and_strides(approximate, layout):
    a = (RNG.standard_normal((2, 24, 5, 7)) * 3).astype(np.float32)
    g = RNG.standard_normal((2, 24, 5, 7)).astype(np.float32)
    have, *strides = _run(numtorch, a, g, layout, approximate)
    want, *want_strides = _run(torch, a, g, layout, approximate)
    assert strides == want_strides
    for h, w in zip(have, want):
        np.testing.assert_allclose(h, w, rtol=2e-6, atol=1e-5)
    # the memory-order view gives what a contiguous input gives (torch's own kernels differ
    # between layouts, in the last bit), but where erf is +-1 (|x| >= 5.54): torch's oneDNN
    # kernel (contiguous inputs only) has its own slope there (tests/test_parity_s51_nn2.py)
    flat, *_ = _run(numtorch, a, g, layout, approximate, copy=True)
    x = _layouts(numtorch, a)[layout].contiguous().numpy()
    keep = np.abs(x) < 5.54 if approximate == "none" else ...
    for h, f in zip(have, flat):
        np.testing.assert_array_equal(h[keep], f[keep])
