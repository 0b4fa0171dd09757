"""Layer norm's row form after session 40 (ops/norm_rows.py: row sums of squares by np.vecdot,
256K-value blocks) against torch: values and gradients with random cotangents on nanoGPT /
minGPT shapes, inputs spanning several blocks, odd and non-contiguous inputs, no affine or a
weight without bias, float32/float64/bfloat16, second order, rows far from zero mean in
some blocks only, the einsum fallback, and the same bits for 1 and 2 threads."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import norm_rows

# (12, 64, 128): nanoGPT's CPU model; (2, 700, 384): 537,600 values, three blocks with a
# partial one; (3, 5, 129) and (7, 3): odd rows; (4, 1): one value per row (general path)
SHAPES = [(12, 64, 128), (2, 700, 384), (3, 5, 129), (7, 3), (4, 1)]


def _arrays(shape, dtype, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) + offset
    w, b = rng.standard_normal(shape[-1]), rng.standard_normal(shape[-1])
    gy = rng.standard_normal(shape)
    return [a.astype(dtype) for a in (x, w, b, gy)]


def _tensor(lib, a, dtype_name):
    t = lib.from_numpy(a.copy())
    return t.to(getattr(lib, dtype_name)) if dtype_name == "bfloat16" else t


def _run(lib, arrays, weight=True, bias=True, dtype_name=None, transpose=False):
    x, w, b, gy = arrays
    xt = _tensor(lib, x, dtype_name).requires_grad_()
    src = xt.transpose(0, 1) if transpose else xt  # non-contiguous rows
    wt = _tensor(lib, w, dtype_name).requires_grad_() if weight else None
    bt = _tensor(lib, b, dtype_name).requires_grad_() if bias else None
    y = lib.nn.functional.layer_norm(src, (src.shape[-1],), wt, bt)
    g = _tensor(lib, gy, dtype_name)
    y.backward(g.transpose(0, 1) if transpose else g)
    out = [y] + [xt.grad] + [t.grad for t in (wt, bt) if t is not None]
    return [o.detach().float().numpy() if dtype_name == "bfloat16" else o.detach().numpy()
            for o in out]


def _check(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.dtype == t.dtype and g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=rtol, atol=atol * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weight,bias", [(True, True), (True, False), (False, False)])
def test_float32_values_and_grads(shape, weight, bias):
    arrays = _arrays(shape, np.float32)
    got = _run(numtorch, arrays, weight, bias)
    want = _run(torch, arrays, weight, bias)
    _check(got, want, 2e-4, 2e-5)


@pytest.mark.parametrize("shape", [(12, 64, 128), (2, 700, 384)])
def test_float64_values_and_grads(shape):
    arrays = _arrays(shape, np.float64, seed=1)
    _check(_run(numtorch, arrays), _run(torch, arrays), 1e-10, 1e-12)


@pytest.mark.parametrize("shape", [(12, 64, 128), (3, 5, 129)])
def test_bfloat16_values_and_grads(shape):
    arrays = _arrays(shape, np.float32, seed=2)
    got = _run(numtorch, arrays, dtype_name="bfloat16")
    want = _run(torch, arrays, dtype_name="bfloat16")
    _check(got[:2], want[:2], 2e-2, 2e-2)  # y and the input gradient: a bfloat16 ulp or two
    # the weight and bias gradients sum 768 rows: torch's bfloat16 sums are off the exact sum
    # of the bfloat16 values by up to ~3%; ours must be at least as close to it as torch's
    exact = _run(torch, [torch.from_numpy(a).bfloat16().double().numpy() for a in arrays])
    for g, t, e in zip(got[2:], want[2:], exact[2:]):
        assert np.abs(g - e).max() <= np.abs(t - e).max() + 0.05 * np.abs(e).max() / 128


@pytest.mark.parametrize("shape", [(64, 12, 128), (700, 2, 384)])
def test_non_contiguous_input(shape):
    arrays = _arrays(shape, np.float32, seed=4)
    got = _run(numtorch, arrays, transpose=True)
    want = _run(torch, arrays, transpose=True)
    _check(got, want, 2e-4, 2e-5)


def test_module_without_bias_matches_torch():
    x, _, _, gy = _arrays((12, 64, 128), np.float32, seed=5)
    outs = []
    for lib in (numtorch, torch):
        lib.manual_seed(0)
        m = lib.nn.LayerNorm(128, bias=False)
        with lib.no_grad():
            m.weight.copy_(lib.linspace(-2, 2, 128))
        xt = lib.from_numpy(x.copy()).requires_grad_()
        m(xt).backward(lib.from_numpy(gy.copy()))
        assert m.bias is None
        outs.append([xt.grad.numpy(), m.weight.grad.numpy()])
    _check(outs[0], outs[1], 2e-4, 2e-5)


def test_rows_far_from_zero_mean_in_some_blocks():
    # the first block's rows sit at 1000 (two-pass variance, centred backward), the others
    # at zero mean (one pass, backward from x itself)
    x, w, b, gy = _arrays((1500, 384), np.float32, seed=6)
    x[:300] = x[:300] * np.float32(0.5) + np.float32(1000)
    got = _run(numtorch, [x, w, b, gy])
    want = _run(torch, [a.astype(np.float64) for a in (x, w, b, gy)])
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=5e-3, atol=5e-3 * np.abs(t).max())


def test_einsum_fallback_matches_torch(monkeypatch):
    # NumPy 1 has no vecdot: the einsum row sums give the same results within tolerance
    monkeypatch.setattr(norm_rows, "_row_dots", lambda a: np.einsum("ij,ij->i", a, a))
    arrays = _arrays((2, 700, 384), np.float32, seed=7)
    _check(_run(numtorch, arrays), _run(torch, arrays), 2e-4, 2e-5)


def test_second_order_matches_torch():
    x, w, b, gy = _arrays((6, 130, 96), np.float64, seed=8)
    outs = []
    for lib in (numtorch, torch):
        xt, wt, bt = (lib.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))
        y = lib.nn.functional.layer_norm(xt, (96,), wt, bt)
        gx, gw = lib.autograd.grad(y, (xt, wt), lib.from_numpy(gy.copy()), create_graph=True)
        s = (gx * gx).sum() + (gw * gw).sum()
        outs.append([a.detach().numpy() for a in lib.autograd.grad(s, (xt, wt, bt),
                                                                    allow_unused=True)
                     if a is not None])
    _check(outs[0], outs[1], 1e-8, 1e-10)


def test_one_and_two_threads_give_the_same_bits():
    arrays = _arrays((2, 1400, 384), np.float32, seed=9)
    before = numtorch.get_num_threads()
    try:
        numtorch.set_num_threads(1)
        one = _run(numtorch, arrays)
        numtorch.set_num_threads(2)
        two = _run(numtorch, arrays)
    finally:
        numtorch.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape", [(12, 64, 128), (2, 700, 384)])
def test_no_graph_forward_matches_torch(shape):
    x, w, b, _ = _arrays(shape, np.float32, seed=10)
    outs = []
    for lib in (numtorch, torch):
        with lib.no_grad():
            y = lib.nn.functional.layer_norm(lib.from_numpy(x), (shape[-1],),
                                             lib.from_numpy(w), lib.from_numpy(b))
        outs.append(y.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=2e-4, atol=2e-5)
