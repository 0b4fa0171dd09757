"""float16/bfloat16 results that torch computes in float32 and rounds once (lerp, uneven
adaptive average pooling, scaled_dot_product_attention's math path) or with its CPU flash
kernel's roundings (4-d attention): numtorch's values are torch's, bit for bit."""

import numpy as np
import pytest
import torch

import numtorch as nt

HALF = ["float16", "bfloat16"]


def _data(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _within_an_ulp(x, y, dtype, scale=2.0 ** -14):
    # a value within one unit in the last place of torch's (or of the output's scale, where
    # a long sum cancels): the order of a reduction's roundings may still differ (torch's
    # own kernels differ between CPUs)
    np.testing.assert_allclose(x, y, rtol=EPS[dtype], atol=EPS[dtype] * scale)


def _both(fn):
    out = []
    for lib in (nt, torch):
        r = fn(lib)
        out.append(np.asarray(r.float().detach().tolist(), dtype=np.float32))
    return out


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("weight", [0.3, 0.7, -0.2, 1.0, "tensor"])
def test_lerp_rounds_once(dtype, weight):
    a, b, w = _data((64,), 0), _data((64,), 1) * 0.1 + _data((64,), 0), _data((64,), 2)

    def run(lib):
        d = getattr(lib, dtype)
        wt = lib.tensor(w).to(d) if weight == "tensor" else weight
        return lib.lerp(lib.tensor(a).to(d), lib.tensor(b).to(d), wt)

    x, y = _both(run)
    np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", HALF)
def test_lerp_half_gradients(dtype):
    def run(lib):
        d = getattr(lib, dtype)
        a = lib.tensor(_data((8,), 0)).to(d).requires_grad_()
        b = lib.tensor(_data((8,), 1)).to(d).requires_grad_()
        w = lib.tensor(_data((8,), 2)).to(d).requires_grad_()
        r = lib.lerp(a, b, w)
        g = lib.tensor(_data((8,), 3)).to(d)
        return lib.cat(lib.autograd.grad(r, (a, b, w), g))

    x, y = _both(run)
    np.testing.assert_allclose(x, y, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("out", [(4, 4), (3, 5), (2, 2)])
def test_adaptive_avg_pool_uneven_windows(dtype, out):
    def run(lib):
        x = lib.tensor(_data((2, 3, 9, 9), 0)).to(getattr(lib, dtype))
        return lib.nn.functional.adaptive_avg_pool2d(x, out)

    x, y = _both(run)
    _within_an_ulp(x, y, dtype)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", [(2, 2, 8, 33), (1, 3, 64, 32), (4, 8, 33), (5, 7)])
@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float", "dead_row"])
def test_sdpa_half_forward(dtype, shape, mask):
    def run(lib):
        d = getattr(lib, dtype)
        q, k, v = (lib.tensor(_data(shape, i)).to(d) for i in range(3))
        n = shape[-2]
        kw = {}
        allowed = np.random.default_rng(5).random((n, n)) > 0.3
        if mask == "causal":
            kw["is_causal"] = True
        elif mask in ("bool", "dead_row"):
            if mask == "dead_row":
                allowed[1] = False
            kw["attn_mask"] = lib.tensor(allowed)
        elif mask == "float":
            allowed[:, 0] = True
            kw["attn_mask"] = lib.tensor(np.where(allowed, 0.0, -np.inf).astype(np.float32)).to(d)
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)

    x, y = _both(run)
    # torch's flash kernel works through 64 keys in blocks: there, half the output's scale
    _within_an_ulp(x, y, dtype, 2.0 ** -14 if shape[-2] < 64 else np.abs(y).max() / 2)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", [(2, 2, 6, 8), (3, 6, 8)])
def test_sdpa_half_backward(dtype, shape):
    def run(lib):
        d = getattr(lib, dtype)
        q, k, v = (lib.tensor(_data(shape, i)).to(d).requires_grad_() for i in range(3))
        m = np.ones((6, 6), dtype=bool)
        m[2] = False
        o = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=lib.tensor(m))
        g = lib.tensor(_data(shape, 9)).to(d)
        names.append(o.grad_fn.name())
        return lib.cat([t.flatten() for t in lib.autograd.grad(o, (q, k, v), g)])

    names = []
    x, y = _both(run)
    assert names[0] == names[1]
    assert np.isfinite(x).all()
    tol = 5e-3 if dtype == "float16" else 4e-2
    np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_half(dtype, training):
    x = _data((8, 16, 9, 9), 0) * 3 + 1
    w, b, r0 = _data((16,), 1), _data((16,), 2), _data((16,), 3)

    def run(lib):
        d = getattr(lib, dtype)
        rm, rv = lib.tensor(r0).to(d), lib.tensor(np.abs(r0) + 0.5).to(d)
        y = lib.nn.functional.batch_norm(lib.tensor(x).to(d), rm, rv, lib.tensor(w).to(d),
                                         lib.tensor(b).to(d), training=training)
        return lib.cat([y.flatten(), rm, rv])

    got, want = _both(run)
    if dtype == "float16" or not training:  # torch's bfloat16 statistics differ in order
        _within_an_ulp(got, want, dtype)
        assert np.mean(got == want) > 0.99
    else:
        _within_an_ulp(got, want, dtype, np.abs(want).max())


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", [(16, 33), (300, 8), (8, 300), (5, 3), (4, 6, 50), (2, 1000)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_half(dtype, shape, name):
    x = _data(shape, 0) * 2
    for dim in range(len(shape)):
        def run(lib, dim=dim):
            return getattr(lib, name)(lib.tensor(x).to(getattr(lib, dtype)), dim)

        got, want = _both(run)
        # torch's vectorised kernels round some of these in another order: within an ulp,
        # and mostly the same bits
        _within_an_ulp(got, want, dtype, np.abs(want).max())
        assert np.mean(got == want) > 0.8
