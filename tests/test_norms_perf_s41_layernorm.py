"""Layer norm's row form for memory-bound inputs (session 41: past
``norm_rows._SCRATCH_BYTES`` the (invstd w) block is made in a reused scratch block and one
multiply writes the output) against torch: values and gradients with random cotangents,
float32 and float64, no affine, rows far from zero mean in some blocks (the centred form),
second order; and the same bits as the in-place form."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import norm_rows

# (3, 1000, 384): 4.6 MB in float32, five blocks with a partial one; (2, 700, 384) float64
# (4.3 MB); (5000, 250): rows that do not divide the block
SHAPES = [(3, 1000, 384), (5000, 250)]


def _arrays(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    w, b = rng.standard_normal(shape[-1]), rng.standard_normal(shape[-1])
    gy = rng.standard_normal(shape)
    return [a.astype(dtype) for a in (x, w, b, gy)]


def _run(lib, arrays, affine=True):
    x, w, b, gy = arrays
    xt = lib.from_numpy(x.copy()).requires_grad_()
    wt = lib.from_numpy(w.copy()).requires_grad_() if affine else None
    bt = lib.from_numpy(b.copy()).requires_grad_() if affine else None
    y = lib.nn.functional.layer_norm(xt, (x.shape[-1],), wt, bt)
    y.backward(lib.from_numpy(gy.copy()))
    out = [y, xt.grad] + ([wt.grad, bt.grad] if affine else [])
    return [o.detach().numpy() for o in out]


def _check(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.dtype == t.dtype and g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=rtol, atol=atol * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_float32_big(shape, affine):
    arrays = _arrays(shape, np.float32)
    assert arrays[0].nbytes > norm_rows._SCRATCH_BYTES
    _check(_run(numtorch, arrays, affine), _run(torch, arrays, affine), 2e-4, 2e-5)


def test_float64_big():
    arrays = _arrays((2, 700, 384), np.float64, seed=1)
    assert arrays[0].nbytes > norm_rows._SCRATCH_BYTES
    _check(_run(numtorch, arrays), _run(torch, arrays), 1e-10, 1e-12)


def test_far_rows_in_some_blocks():
    """Rows with a mean of 100 standard deviations in the second block: that block takes the
    centred form in both directions; the others the one-pass form."""
    x, w, b, gy = _arrays((3, 1000, 384), np.float32, seed=2)
    x[0, 700:760] += 100.0
    _check(_run(numtorch, [x, w, b, gy]), _run(torch, [x, w, b, gy]), 2e-3, 2e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_bits_as_in_place_form(dtype, monkeypatch):
    arrays = _arrays((3, 1000, 384), dtype, seed=3)
    got = _run(numtorch, arrays)
    monkeypatch.setattr(norm_rows, "_SCRATCH_BYTES", 1 << 62)
    want = _run(numtorch, arrays)
    for g, t in zip(got, want):
        np.testing.assert_array_equal(g, t)


def test_second_order_big():
    x, w, b, gy = _arrays((2, 800, 384), np.float64, seed=4)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        wt = lib.from_numpy(w.copy()).requires_grad_()
        y = lib.nn.functional.layer_norm(xt, (384,), wt, lib.from_numpy(b.copy()))
        (gx,) = lib.autograd.grad(y, (xt,), lib.from_numpy(gy.copy()), create_graph=True)
        v = lib.from_numpy(np.cos(x))
        res.append([a.detach().numpy() for a in lib.autograd.grad((gx * v).sum(), (xt, wt))])
    _check(res[0], res[1], 1e-9, 1e-11)
