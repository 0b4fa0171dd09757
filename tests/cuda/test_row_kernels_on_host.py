"""The whole-row RawKernels' CUDA sources (softmax rows, attention softmax, layer norm) run on
the host (tests/cuda/_host_cuda.py) against float64 NumPy, at shapes the unit tests' small
cases do not reach: hundreds of rows (grids of several blocks, a partial last block), row
lengths that are no power of two, a causal float mask of -inf, a row count that leaves a
partial chunk in layer norm's column sums. Skipped without a C++ compiler."""

import numpy as np
import pytest

from tests.cuda import _host_cuda

pytestmark = pytest.mark.skipif(_host_cuda.compiler() is None, reason="no C++ compiler")

A = pytest.importorskip("numtorch.backend._cupy_attention")
R = pytest.importorskip("numtorch.backend._cupy_rows")
TOL = {np.float32: 2e-6, np.float64: 1e-12}


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _causal(n, dt):
    with np.errstate(divide="ignore"):
        return np.log(np.tril(np.ones((n, n)))).astype(dt)


@pytest.fixture(params=[np.float32, np.float64], ids=["f32", "f64"])
def dt(request):
    return request.param


def test_softmax_rows_and_grad(dt):
    rng, m = np.random.default_rng(0), 35
    x = (rng.standard_normal((40, m, m)) * 3 + _causal(m, dt)).astype(dt)
    y = np.empty_like(x)
    _host_cuda.launch(A._SOFTMAX_ROWS_K, dt, x.size // m, (x, m, y))
    np.testing.assert_allclose(y, _softmax(x.astype(np.float64)), rtol=0, atol=TOL[dt])
    g, gx = rng.standard_normal(x.shape).astype(dt), np.empty_like(x)
    _host_cuda.launch(A._SOFTMAX_ROWS_GRAD_K, dt, x.size // m, (y, g, m, gx))
    y64, g64 = y.astype(np.float64), g.astype(np.float64)
    want = g64 * y64 - y64 * (g64 * y64).sum(-1, keepdims=True)
    np.testing.assert_allclose(gx, want, rtol=0, atol=4 * TOL[dt])


@pytest.mark.parametrize("causal", [False, True])
def test_attention_softmax_masked_and_causal(dt, causal):
    rng, m, scale = np.random.default_rng(1), 35, 0.125
    s = (rng.standard_normal((40, m, m)) * 3).astype(dt)
    if not causal:  # a float causal mask added before the kernel, as the MHA device path does
        s += _causal(m, dt)
    want = _softmax(s.astype(np.float64) * scale + (_causal(m, np.float64) if causal else 0))
    dead = np.empty(s.size // m, dtype=np.bool_)
    _host_cuda.launch(A._SOFTMAX_K, dt, s.size // m, (scale, m, m, True, causal, s, dead))
    np.testing.assert_allclose(s, want, rtol=0, atol=TOL[dt])
    assert not dead.any()


def test_attention_softmax_all_masked_rows_are_zero_and_flagged(dt):
    s = np.full((3, 4, 5), -np.inf, dt)
    s[1] = 0
    dead = np.empty(12, dtype=np.bool_)
    _host_cuda.launch(A._SOFTMAX_K, dt, 12, (1.0, 5, 4, True, False, s, dead))
    assert dead.tolist() == [True] * 4 + [False] * 4 + [True] * 4
    np.testing.assert_array_equal(s[0], 0)
    np.testing.assert_allclose(s[1], 0.2, atol=TOL[dt])


def test_attention_softmax_grad(dt):
    rng, (b, length, m) = np.random.default_rng(2), (40, 35, 35)
    p = _softmax(rng.standard_normal((b, length, m))).astype(dt)
    dp = rng.standard_normal(p.shape).astype(dt)
    want = p * (dp - (dp * p).sum(-1, keepdims=True)) * 0.5
    dst, pt = np.empty((b, m, length), dt), np.empty((b, m, length), dt)
    _host_cuda.launch(A._SOFTMAX_GRAD_K, dt, b * length, (p, 0.5, m, length, dp, dst, pt))
    np.testing.assert_allclose(dp, want, rtol=0, atol=4 * TOL[dt])
    np.testing.assert_array_equal(dst, dp.transpose(0, 2, 1))
    np.testing.assert_array_equal(pt, p.transpose(0, 2, 1))


def test_layer_norm_forward_and_gradients(dt):
    rng, n, rows, eps = np.random.default_rng(3), 200, 700, 1e-5  # 700 rows: a partial chunk
    x = rng.standard_normal((rows, n)).astype(dt)
    w, b = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    data, y, inv = np.empty_like(x), np.empty_like(x), np.empty(rows, dt)
    _host_cuda.launch(R._FORWARD_K, dt, rows, (x, w, b, eps, n, True, data, y, inv))
    x64 = x.astype(np.float64)
    xh = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + eps)
    np.testing.assert_allclose(y, xh * w + b, rtol=0, atol=20 * TOL[dt])
    gy, gx = rng.standard_normal(x.shape).astype(dt), np.empty_like(x)
    _host_cuda.launch(R._GRAD_ROWS_K, dt, rows, (gy, data, inv, w, n, gx))
    h = gy * w.astype(np.float64)
    want = (h - h.mean(1, keepdims=True) - xh * (h * xh).mean(1, keepdims=True)) * \
        inv.astype(np.float64)[:, None]
    np.testing.assert_allclose(gx, want, rtol=0, atol=20 * TOL[dt])
    chunks = -(-rows // R._CHUNK)
    pw, pb = np.empty(chunks * n), np.empty(chunks * n)
    _host_cuda.launch(R._GRAD_COLS_PART_K, dt, chunks * n, (gy, data, rows, n, R._CHUNK, pw, pb))
    gw, gb = np.empty(n, dt), np.empty(n, dt)
    _host_cuda.launch(R._GRAD_COLS_K, dt, n, (pw, pb, chunks, n, gw, gb))
    d64 = data.astype(np.float64)
    np.testing.assert_allclose(gw, (gy * d64).sum(0), rtol=4 * TOL[dt], atol=4 * TOL[dt])
    np.testing.assert_allclose(gb, gy.astype(np.float64).sum(0), rtol=4 * TOL[dt],
                               atol=4 * TOL[dt])
