"""Layer norm's row form (ops/norm_rows.py) against torch: the recorded forward saves the
centred rows and the backward works from them; small no-graph inputs take the two-pass form.
Values, gradients with random cotangents, the sign of zero, rows far from zero mean, the
general fallback for non-contiguous output gradients, double backward and half types."""

import numpy as np
import pytest
import torch

import numtorch

SHAPES = [(1, 4, 8), (6, 16, 128), (300, 768), (7000, 40)]  # (7000, 40): several blocks


def _pair(shape, dtype=np.float32, seed=0, offset=0.0, scale=1.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * scale + offset).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype)
    b = rng.standard_normal(shape[-1]).astype(dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    return x, w, b, gy


def _run(lib, x, w, b, gy, affine=True, bias=True, ns=None):
    xt = lib.from_numpy(x.copy()).requires_grad_()
    wt = lib.from_numpy(w.copy()).requires_grad_() if affine else None
    bt = lib.from_numpy(b.copy()).requires_grad_() if bias else None
    y = lib.nn.functional.layer_norm(xt, ns or (x.shape[-1],), wt, bt)
    y.backward(lib.from_numpy(gy.copy()))
    grads = [xt.grad.numpy()] + [t.grad.numpy() for t in (wt, bt) if t is not None]
    return [y.detach().numpy()] + grads


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_values_and_grads(shape, dtype, affine, bias):
    x, w, b, gy = _pair(shape, dtype)
    got = _run(numtorch, x, w, b, gy, affine, bias)
    want = _run(torch, x, w, b, gy, affine, bias)
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.dtype == t.dtype and g.shape == t.shape
        np.testing.assert_allclose(g, t, **_tol(dtype))


@pytest.mark.parametrize("shape", [(5, 64), (4000, 48)])
def test_rows_far_from_zero_mean(shape):
    # the centred rows are formed once in the forward: no cancellation in the backward
    x, w, b, gy = _pair(shape, np.float32, seed=3, offset=1000.0, scale=0.5)
    got = _run(numtorch, x, w, b, gy)
    x64, w64, b64, gy64 = (a.astype(np.float64) for a in (x, w, b, gy))
    want = _run(torch, x64, w64, b64, gy64)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=5e-3, atol=5e-3 * np.abs(t).max())


def test_no_graph_small_and_constant_rows():
    x = np.array([[0.0, 1.0, 2.0, 3.0], [5.0, 5.0, 5.0, 5.0], [1e4, 1e4 + 1, 1e4 + 2, 1e4]],
                 dtype=np.float32)
    w = np.array([-1.5, 0.5, 2.0, -0.25], dtype=np.float32)
    for eps in (1e-5, 0.0):
        with numtorch.no_grad():
            got = numtorch.nn.functional.layer_norm(numtorch.from_numpy(x), (4,),
                                                    numtorch.from_numpy(w), eps=eps).numpy()
        want = torch.nn.functional.layer_norm(torch.from_numpy(x), (4,), torch.from_numpy(w),
                                              eps=eps).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)
        assert np.array_equal(np.signbit(got), np.signbit(want)) or eps == 0.0


@pytest.mark.parametrize("grad_mode", [True, False])
@pytest.mark.parametrize("n", [3, 5000])
def test_sign_of_zero_bias_free(grad_mode, n):
    # rows like [0, 1, 2]: the middle value normalises to +0.0; a negative weight must not
    # turn it into -0.0 (torch adds the absent bias as +0.0)
    x = np.tile(np.array([0.0, 1.0, 2.0], dtype=np.float32), (n, 1))
    w = np.array([-1.0, -2.0, -3.0], dtype=np.float32)
    outs = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_(grad_mode)
        wt = lib.from_numpy(w.copy()).requires_grad_(grad_mode)
        outs.append(lib.nn.functional.layer_norm(xt, (3,), wt).detach().numpy())
    assert np.array_equal(np.signbit(outs[0]), np.signbit(outs[1]))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(6, 16, 32), (4000, 40)])
@pytest.mark.parametrize("kind", ["sum", "transposed"])
def test_non_contiguous_output_gradient(shape, kind):
    # a transposed product hands a strided output gradient: the general backward takes the
    # saved centred rows (as xhat)
    x, w, b, gy = _pair(shape, np.float32, seed=5)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        wt = lib.from_numpy(w.copy()).requires_grad_()
        bt = lib.from_numpy(b.copy()).requires_grad_()
        y = lib.nn.functional.layer_norm(xt, (shape[-1],), wt, bt)
        c = lib.from_numpy(gy.copy())
        loss = y.sum() if kind == "sum" else (y.transpose(0, -1) * c.transpose(0, -1)).sum()
        loss.backward()
        res.append([xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()])
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=2e-4, atol=5e-4)


@pytest.mark.parametrize("shape", [(3, 4, 8), (20, 64)])
def test_double_backward(shape):
    x, w, b, gy = _pair(shape, np.float64, seed=7)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        wt = lib.from_numpy(w.copy()).requires_grad_()
        bt = lib.from_numpy(b.copy()).requires_grad_()
        y = lib.nn.functional.layer_norm(xt, (shape[-1],), wt, bt)
        gx, gw = lib.autograd.grad(y, (xt, wt), lib.from_numpy(gy.copy()), create_graph=True)
        ((gx * gx).sum() + (gw ** 3).sum()).backward()
        res.append([gx.detach().numpy(), gw.detach().numpy(), xt.grad.numpy(),
                    wt.grad.numpy()])
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_types(name):
    x, w, b, gy = _pair((6, 16, 64), np.float32, seed=9)
    res = []
    for lib in (numtorch, torch):
        dt = getattr(lib, name)
        xt = lib.from_numpy(x.copy()).to(dt).requires_grad_()
        wt = lib.from_numpy(w.copy()).to(dt).requires_grad_()
        bt = lib.from_numpy(b.copy()).to(dt).requires_grad_()
        y = lib.nn.functional.layer_norm(xt, (64,), wt, bt)
        y.backward(lib.from_numpy(gy.copy()).to(dt))
        assert y.dtype == dt and xt.grad.dtype == dt
        res.append([t.detach().float().numpy() for t in (y, xt.grad, wt.grad, bt.grad)])
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=2e-2, atol=5e-2 * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("shape", [(3, 4, 8), (70, 4, 8)])  # whole-array and block forms
@pytest.mark.parametrize("affine,bias", [(True, True), (False, False)])
def test_two_normalized_dims(shape, affine, bias):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal(shape[1:]).astype(np.float32)
    b = rng.standard_normal(shape[1:]).astype(np.float32)
    gy = rng.standard_normal(shape).astype(np.float32)
    got = _run(numtorch, x, w, b, gy, affine, bias, ns=shape[1:])
    want = _run(torch, x, w, b, gy, affine, bias, ns=shape[1:])
    for g, t in zip(got, want):
        assert g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=2e-4, atol=2e-5)
