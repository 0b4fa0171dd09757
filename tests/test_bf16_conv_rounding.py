"""bfloat16 convolutions as torch's CPU kernels round them: the sum and the bias in float32,
rounded once (the result was rounded before the bias was added in bfloat16: ~30% of values a
bit off); the gradients likewise from float32 sums."""

import numpy as np
import pytest
import torch

import numtorch as nt

CASES = [((4, 3, 12, 12), (8, 3, 3, 3), {"padding": 1}),
         ((2, 4, 9, 9), (6, 2, 3, 3), {"groups": 2, "stride": 2}),
         ((2, 8, 10, 10), (8, 1, 5, 5), {"groups": 8, "padding": 2}),
         ((2, 5, 7, 7), (4, 5, 1, 1), {}),
         ((3, 4, 16), (5, 4, 3), {"dilation": 2}),
         ((2, 3, 5, 6, 6), (4, 3, 3, 3, 3), {"padding": 1})]


def _run(lib, case, channels_last=False, bias=True):
    shape, wshape, kw = CASES[case]
    rng = np.random.default_rng(case)
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32)).to(lib.bfloat16)
    if channels_last:
        x = x.contiguous(memory_format=lib.channels_last)
    w = lib.tensor((rng.standard_normal(wshape) * 0.3).astype(np.float32)).to(lib.bfloat16)
    b = lib.tensor(rng.standard_normal(wshape[0]).astype(np.float32)).to(lib.bfloat16)
    leaves = [t.requires_grad_() for t in ((x, w, b) if bias else (x, w))]
    f = {3: lib.nn.functional.conv1d, 4: lib.nn.functional.conv2d,
         5: lib.nn.functional.conv3d}[len(shape)]
    y = f(x, w, b if bias else None, **kw)
    g = lib.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).to(y.dtype)
    grads = lib.autograd.grad(y, leaves, g)
    return [y.detach().float().numpy()] + [t.float().numpy() for t in grads] + [
        str(y.dtype), y.grad_fn.name(), y.is_contiguous(memory_format=lib.channels_last)
        if y.dim() == 4 else None]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("bias", [True, False])
def test_values_and_grads(case, bias):
    got, want = _run(nt, case, bias=bias), _run(torch, case, bias=bias)
    for a, b in zip(got[:-3], want[:-3]):
        # the float32 sums' own order: at most one value in thousands a bit apart
        assert np.mean(a != b) <= 1e-3
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)
    assert got[-3:] == want[-3:]


def test_channels_last_and_module():
    got, want = _run(nt, 0, channels_last=True), _run(torch, 0, channels_last=True)
    assert got[-3:] == want[-3:]
    assert np.mean(got[0] != want[0]) <= 1e-3
    outs = []
    for lib in (nt, torch):
        lib.manual_seed(0)
        m = lib.nn.Conv2d(3, 4, 3).to(lib.bfloat16)
        outs.append(m(lib.ones(1, 3, 5, 5, dtype=lib.bfloat16)).detach().float().numpy())
    np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_float16_forward_rounds_once(case):
    """float16: torch's forward sums and adds the bias in float32 and rounds once (~30% of
    values were a bit off); its input gradient keeps float16 arithmetic's roundings."""
    shape, wshape, kw = CASES[case]
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(case)
        x = lib.tensor(rng.standard_normal(shape).astype(np.float32)).half().requires_grad_()
        w = lib.tensor((rng.standard_normal(wshape) * 0.3).astype(np.float32)).half()
        b = lib.tensor(rng.standard_normal(wshape[0]).astype(np.float32)).half()
        f = {3: lib.nn.functional.conv1d, 4: lib.nn.functional.conv2d,
             5: lib.nn.functional.conv3d}[len(shape)]
        y = f(x, w, b, **kw)
        g = lib.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).half()
        (gx,) = lib.autograd.grad(y, x, g)
        outs.append((y.detach().float().numpy(), gx.float().numpy(), str(gx.dtype)))
    assert np.mean(outs[0][0] != outs[1][0]) <= 1e-3
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-2, atol=1e-2)
    assert outs[0][2] == outs[1][2]
