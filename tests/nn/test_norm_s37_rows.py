"""Layer norm's row form after session 37 (ops/norm_rows.py, backend/_blas_gemm.py) against torch:
the recorded forward saves x itself with the row means (no centred copy), the backward works
from x except in blocks whose means could cancel, per-row/per-column terms go through an
accumulating GEMM of NumPy's OpenBLAS, and inputs of up to 16K values take whole-array
forms in both directions. Values, gradients with random cotangents, double backward, the
sign of zero, strided output gradients, saved-tensor checks and half types."""

import importlib

import numpy as np
import pytest
import torch

import numtorch

norm_rows = importlib.import_module("numtorch.ops.norm_rows")
norm_blas = importlib.import_module("numtorch.backend._blas_gemm")

# (300, 768) and (64, 32, 128): two blocks each; (20, 700): whole-array form (14K values)
SHAPES = [(300, 768), (64, 32, 128), (20, 700), (9000, 3)]


def _data(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype)
    b = rng.standard_normal(shape[-1]).astype(dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    return x, w, b, gy


def _grads(lib, x, w, b, gy, affine=True, bias=True):
    xt = lib.from_numpy(x.copy()).requires_grad_()
    wt = lib.from_numpy(w.copy()).requires_grad_() if affine else None
    bt = lib.from_numpy(b.copy()).requires_grad_() if bias else None
    y = lib.nn.functional.layer_norm(xt, (x.shape[-1],), wt, bt)
    y.backward(lib.from_numpy(gy.copy()))
    return [y.detach().numpy(), xt.grad.numpy()] + [
        t.grad.numpy() for t in (wt, bt) if t is not None]


def _on_device():
    """Whether numtorch's tensors live on a (stand-in) GPU: the row form is CPU-only."""
    return numtorch.backend.is_device_array(numtorch.zeros(1)._array)


def _close(got, want, rtol, atol_scale):
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.dtype == t.dtype and g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=rtol, atol=atol_scale * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_values_and_grads_match_torch(shape, dtype, affine, bias):
    x, w, b, gy = _data(shape, dtype)
    got = _grads(numtorch, x, w, b, gy, affine, bias)
    want = _grads(torch, x, w, b, gy, affine, bias)
    if dtype == np.float32:
        _close(got, want, 2e-4, 3e-6)
    else:
        _close(got, want, 1e-9, 1e-11)


def test_recorded_forward_saves_x_and_means():
    if _on_device():
        pytest.skip("the row form is the CPU's")
    x, w, b, _ = _data((300, 768))
    xt = numtorch.from_numpy(x).requires_grad_()
    y = numtorch.nn.functional.layer_norm(xt, (768,), numtorch.from_numpy(w),
                                          numtorch.from_numpy(b))
    extra = y.grad_fn._saved["extra"]
    data = extra["data"]
    assert data.shape == x.shape and np.shares_memory(data, x)  # x itself: no centred copy
    np.testing.assert_allclose(extra["mean"], x.mean(1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_mixing_far_and_near_means(dtype):
    # some blocks hold rows with mean 3000 std 0.5 (the backward centres those blocks), others
    # standard rows (the backward works from x): both against float64 torch
    rng = np.random.default_rng(5)
    rows, n = 400, 512  # 400 rows: two blocks of 256 rows
    x = rng.standard_normal((rows, n))
    far = rng.random(rows) < 0.1
    far[:256] = False  # the first block: no far row, the x form
    far[300] = True
    x[far] = x[far] * 0.5 + 3000.0
    x = x.astype(dtype)
    w, b = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    gy = rng.standard_normal((rows, n)).astype(dtype)
    got = _grads(numtorch, x, w, b, gy)
    want = _grads(torch, *(a.astype(np.float64) for a in (x, w, b, gy)))
    if dtype == np.float64:
        for g, t in zip(got, want):
            np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-9 * np.abs(t).max())
        return
    # within 1.5x float32 torch's own error against float64 (working from x in the far
    # blocks would give the weight gradient 3.7x it)
    t32 = _grads(torch, x, w, b, gy)
    for g, t, tt in zip(got, t32, want):
        scale = np.abs(tt).max()
        assert np.abs(g - tt).max() / scale <= 1.5 * np.abs(t - tt).max() / scale + 1e-6


def test_moderate_means_from_x_stay_accurate():
    # means up to 4 standard deviations: the x form; its cancellation stays within float32
    # torch's own error against float64
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((512, 256)) + rng.uniform(-4, 4, (512, 1))).astype(np.float32)
    w, b = (rng.standard_normal(256).astype(np.float32) for _ in range(2))
    gy = rng.standard_normal(x.shape).astype(np.float32)
    got = _grads(numtorch, x, w, b, gy)
    t32 = _grads(torch, x, w, b, gy)
    t64 = _grads(torch, *(a.astype(np.float64) for a in (x, w, b, gy)))
    for g, t, tt in zip(got, t32, t64):
        assert np.abs(g - tt).max() <= 3 * np.abs(t - tt).max() + 1e-6


def test_strided_output_gradient_takes_the_general_path():
    x, w, b, _ = _data((256, 96), seed=2)
    c = np.random.default_rng(3).standard_normal((96, 256)).astype(np.float32)
    out = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        wt, bt = (lib.from_numpy(a.copy()).requires_grad_() for a in (w, b))
        y = lib.nn.functional.layer_norm(xt, (96,), wt, bt)
        (y.transpose(0, 1) * lib.from_numpy(c)).sum().backward()
        out.append([xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()])
    _close(out[0], out[1], 2e-4, 3e-6)


def test_retain_graph_twice_and_double_backward():
    x, w, b, gy = _data((200, 128), np.float64, seed=4)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        wt, bt = (lib.from_numpy(a.copy()).requires_grad_() for a in (w, b))
        y = lib.nn.functional.layer_norm(xt, (128,), wt, bt)
        g = lib.from_numpy(gy.copy())
        first = lib.autograd.grad(y, [xt, wt, bt], g, retain_graph=True)
        second = lib.autograd.grad(y, [xt, wt, bt], g, create_graph=True)
        for p, q in zip(first, second):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        v = np.random.default_rng(9).standard_normal(x.shape)
        gg = lib.autograd.grad((second[0] * lib.from_numpy(v)).sum(), [xt, wt])
        res.append([t.detach().numpy() for t in second] + [t.numpy() for t in gg])
    _close(res[0], res[1], 1e-8, 1e-10)


def test_in_place_change_of_x_after_forward_raises():
    x, w, b, gy = _data((200, 128))
    msgs = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        h = xt * 1
        y = lib.nn.functional.layer_norm(h, (128,), lib.from_numpy(w), lib.from_numpy(b))
        with lib.no_grad():
            h.add_(1)
        with pytest.raises(RuntimeError) as err:
            y.backward(lib.from_numpy(gy))
        msgs.append(str(err.value))
    assert all("modified by an inplace operation" in m for m in msgs)


@pytest.mark.parametrize("grad_mode", [True, False])
def test_sign_of_zero_bias_free_block_form(grad_mode):
    if _on_device():
        pytest.skip("the row form is the CPU's (the GPU path keeps -0.0 here)")
    x = np.tile(np.array([0.0, 1.0, 2.0], dtype=np.float32), (7000, 1))  # 21K values
    w = np.array([-1.0, -2.0, -3.0], dtype=np.float32)
    outs = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_(grad_mode)
        with lib.set_grad_enabled(grad_mode):
            y = lib.nn.functional.layer_norm(xt, (3,), lib.from_numpy(w))
        outs.append(y.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    assert np.array_equal(np.signbit(outs[0]), np.signbit(outs[1]))


@pytest.mark.parametrize("shape", [(300, 768), (20, 700)])
def test_no_graph_forward_matches_recorded(shape):
    x, w, b, _ = _data(shape, seed=6)
    args = (numtorch.from_numpy(w), numtorch.from_numpy(b))
    with numtorch.no_grad():
        a = numtorch.nn.functional.layer_norm(numtorch.from_numpy(x), (shape[-1],), *args)
    xt = numtorch.from_numpy(x).requires_grad_()
    c = numtorch.nn.functional.layer_norm(xt, (shape[-1],), *args)
    np.testing.assert_array_equal(a.numpy(), c.detach().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_block_form(dtype):
    x, w, b, gy = _data((128, 256), seed=8)
    res = []
    for lib in (numtorch, torch):
        dt = getattr(lib, dtype)
        xt = lib.from_numpy(x).to(dt).requires_grad_()
        wt, bt = (lib.from_numpy(a).to(dt).requires_grad_() for a in (w, b))
        y = lib.nn.functional.layer_norm(xt, (256,), wt, bt)
        y.backward(lib.from_numpy(gy).to(dt))
        assert y.dtype == dt and xt.grad.dtype == dt
        res.append([t.float().numpy() for t in (y.detach(), xt.grad, wt.grad, bt.grad)])
    tol = 2e-2 if dtype == "bfloat16" else 4e-3
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=tol, atol=tol * max(1.0, np.abs(t).max()))


def test_numpy_fallback_without_the_library(monkeypatch):
    # no BLAS symbol found: the same operations through NumPy's matmul and add
    x, w, b, gy = _data((300, 768), seed=10)
    fast = _grads(numtorch, x, w, b, gy)
    monkeypatch.setattr(norm_blas, "_gemm_for", lambda dt: None)
    slow = _grads(numtorch, x, w, b, gy)
    _close(fast, slow, 1e-6, 1e-7)
    _close(slow, _grads(torch, x, w, b, gy), 2e-4, 3e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("beta", [0, 1])
def test_blas_gemm_block_matches_numpy(dtype, k, beta):
    rng = np.random.default_rng(12)
    big = rng.standard_normal((40, 33)).astype(dtype)
    u_full = rng.standard_normal((k, 50)).astype(dtype)  # rows of stride 50, 17 used
    v = rng.standard_normal((k, 33)).astype(dtype)
    block = big[5:22]
    if beta == 0:
        block[...] = np.nan  # never read
    want = np.matmul(u_full[:, :17].T, v) + (block if beta else 0)
    before = big.copy()
    fn = norm_blas.gemm_fn(np.dtype(dtype))
    fn(block, u_full[:, :17], v, beta, norm_blas.ptr(block), norm_blas.ptr(u_full),
       norm_blas.ptr(v))
    np.testing.assert_allclose(block, want, rtol=1e-6 if dtype == np.float32 else 1e-14)
    np.testing.assert_array_equal(big[:5], before[:5])  # rows outside the block untouched
    np.testing.assert_array_equal(big[22:], before[22:])
    if k == 1:  # c + u_i (v a row of ones): NumPy's own sum, bit for bit
        c = rng.standard_normal((17, 33)).astype(dtype)
        ones = norm_blas.ones(33, np.dtype(dtype))[0].reshape(1, 33)
        want = c + u_full[0, :17].reshape(17, 1)
        fn(c, u_full[:1, :17], ones, 1, norm_blas.ptr(c), norm_blas.ptr(u_full),
           norm_blas.ptr(ones))
        np.testing.assert_array_equal(c, want)
