"""Fast paths chosen for speed must give torch's values: each test here fails if its path is
replaced by a slower generic one that rounds differently, or breaks a shape."""

import numpy as np
import pytest
import torch

import numtorch


def test_float32_cube_is_torch_bit_for_bit():
    # torch computes x ** 3 as (x * x) * x; NumPy's power rounds differently (and is ~1000x
    # slower), so bit equality pins the fast path
    x = np.random.default_rng(0).standard_normal(20000).astype(np.float32) * 3
    for e in (3, 3.0):
        ours = (numtorch.from_numpy(x) ** e).numpy()
        ref = (torch.from_numpy(x) ** e).numpy()
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("shape,dims", [
    ((4, 3, 5, 6), (0, 2, 3)),   # batch norm over N, H, W
    ((4, 3, 5, 6), (1, 2, 3)),   # group/layer norm over C, H, W
    ((2, 7, 8), (0, 1)),         # layer norm weight/bias gradient: leading dims
    ((3, 1, 4, 1), (0, 2)),      # size-1 dims on either side
    ((0, 3, 2), (0, 2)),         # empty
    ((5,), (0,)),
])
@pytest.mark.parametrize("two", [False, True])
def test_norm_sums_match_numpy(shape, dims, two):
    from numtorch.ops.norm_ops import _sum_keepdim

    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32) if two else None
    ref = (a.astype(np.float64) * (1 if b is None else b)).sum(axis=dims, keepdims=True)
    got = _sum_keepdim(np, a, dims, b)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    strided = np.asfortranarray(a)
    got = _sum_keepdim(np, strided, dims, None if b is None else np.asfortranarray(b))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_split_across_threads_is_bitwise_the_single_thread_result(monkeypatch, dtype):
    from numtorch.ops import _intraop

    x = np.random.default_rng(2).standard_normal((3, 1000)).astype(dtype) * 4
    g = np.random.default_rng(3).standard_normal((3, 1000)).astype(dtype)

    def run():
        t = numtorch.from_numpy(x.copy()).requires_grad_()
        y = numtorch.nn.functional.gelu(t)
        (gx,) = numtorch.autograd.grad(y, t, numtorch.from_numpy(g))
        return y.detach().numpy(), gx.numpy()

    one = run()
    calls = []
    real = _intraop.run_split

    def watched(kernel, n, unit=1):
        calls.append(_intraop.parts(n, unit))
        return real(kernel, n, unit)

    old = numtorch.get_num_threads()
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)  # as on an idle machine
    monkeypatch.setattr(_intraop, "_MIN_PART", 256)
    monkeypatch.setattr("numtorch.ops._smooth_activation._BLOCK", 300)  # blocks within parts
    monkeypatch.setattr("numtorch.ops._smooth_activation.run_split", watched)
    numtorch.set_num_threads(3)
    try:
        split = run()
    finally:
        numtorch.set_num_threads(old)
    if dtype == np.float32 and not numtorch.backend.is_device_array(
            numtorch.from_numpy(x)._array):  # device arrays are never split on the host
        assert calls and all(k == 3 for k in calls)
    for a, b in zip(one, split):
        np.testing.assert_array_equal(a, b)
    ref = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(split[0], ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shift", [1.0, 300.0])  # 300: the one-pass variance would cancel
def test_layer_norm_row_path_is_the_same_on_any_thread_count(monkeypatch, shift):
    """The row form's block grid does not depend on the thread count, so neither do its
    values (forward with and without grad, and the three gradients); they are torch's and
    the general path's within tolerance."""
    from numtorch.ops import _intraop, norm_rows

    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 50, 40)).astype(np.float32) * 3 + shift
    w = rng.standard_normal(40).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    gy = rng.standard_normal(x.shape).astype(np.float32)

    def run(lib):
        t = lib.from_numpy(x.copy()).requires_grad_()
        ws = [lib.from_numpy(a.copy()).requires_grad_() for a in (w, b)]
        y = lib.nn.functional.layer_norm(t, (40,), *ws)
        with lib.no_grad():
            y0 = lib.nn.functional.layer_norm(t, (40,), *ws)
        grads = lib.autograd.grad(y, [t, *ws], lib.from_numpy(gy))
        return [y.detach().numpy(), y0.numpy()] + [g.numpy() for g in grads]

    taken = []
    real = norm_rows.forward
    monkeypatch.setattr(norm_rows, "forward", lambda *a: taken.append(1) or real(*a))
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)  # as on an idle machine
    monkeypatch.setattr(_intraop, "_MIN_PART", 500)
    monkeypatch.setattr(norm_rows, "_BLOCK", 7 * 40)  # blocks of 7 rows within each part
    old = numtorch.get_num_threads()
    try:
        numtorch.set_num_threads(1)
        one = run(numtorch)
        numtorch.set_num_threads(3)
        split = run(numtorch)
    finally:
        numtorch.set_num_threads(old)
    monkeypatch.setattr(norm_rows, "applies", lambda *a: False)
    general = run(numtorch)
    if not numtorch.backend.is_device_array(numtorch.from_numpy(x)._array):
        assert taken
    ref = run(torch)
    for a, c, g, r in zip(one, split, general, ref):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,norm", [
    ((16, 64, 12, 12), "batch"),  # ops/norm_channels.py
    ((600, 512), "layer"),  # layer norm's row form
])
def test_norm_outputs_and_input_gradients_are_not_views(shape, norm):
    # a view would be copied once more by a leaf's gradient accumulator (a full extra pass)
    rng = np.random.default_rng(6)
    x = numtorch.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_()
    F = numtorch.nn.functional
    if norm == "batch":
        y = F.batch_norm(x, None, None, training=True)
    else:
        y = F.layer_norm(x, (512,), numtorch.ones(512), numtorch.zeros(512))
    (g,) = numtorch.autograd.grad(y, x, numtorch.ones_like(y))
    if not numtorch.backend.is_device_array(x._array):
        assert y._array.base is None and g._array.base is None
