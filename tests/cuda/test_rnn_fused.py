"""The LSTM sequence op on a GPU: each time step is one recurrent GEMM and one fused kernel
forward, one fused kernel and one GEMM backward (backend/_cupy_rnn.py), giving the xp loop's
results bit for bit (issue 16, item 7). Counted and compared on the CuPy stand-in."""

import numpy as np
import pytest

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _run(steps, feat, enabled=True, **kw):
    """Outputs and gradients of a 2-layer LSTM's training pass, and its kernel launches."""
    _cupy_kernels.ENABLED[0] = enabled
    try:
        numtorch.manual_seed(0)
        m = numtorch.nn.LSTM(feat, 16, num_layers=2, **kw).cuda()
        rng = np.random.default_rng(1)
        x = numtorch.from_numpy(rng.standard_normal((steps, 3, feat)).astype(np.float32))
        x = x.cuda().requires_grad_(True)
        standin.reset_stats()
        out, (h, c) = m(x)
        (out.square().sum() + h.sum() + c.square().sum()).backward()
        launches, syncs = standin.STATS["kernels"], standin.STATS["sync"]
    finally:
        _cupy_kernels.ENABLED[0] = True
    values = [t.detach().cpu().numpy() for t in (out, h, c, x.grad)]
    return values + [p.grad.cpu().numpy() for p in m.parameters()], launches, syncs


@pytest.mark.parametrize("feat,kw", [(4, {}), (40, {}), (40, {"bidirectional": True}),
                                     (4, {"batch_first": True})])
def test_fused_lstm_loop_is_the_xp_loop_bit_for_bit(feat, kw):
    with standin.active():
        fused, n_fused, _ = _run(5, feat, **kw)
        plain, n_plain, _ = _run(5, feat, enabled=False, **kw)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert n_fused < n_plain


@pytest.mark.parametrize("feat", [4, 40])  # the input inline in the GEMM, or projected once
def test_lstm_step_costs_four_launches_and_no_sync(feat):
    """Ten more time steps in two layers add 20 steps x (GEMM + kernel) x 2 directions of
    the pass = 80 launches, whatever else the layer does once."""
    with standin.active():
        _, short, s1 = _run(5, feat)
        _, long, s2 = _run(15, feat)
    assert long - short == 80, (short, long)
    assert s1 == s2 == 0


@pytest.mark.parametrize("feat,hidden,batch", [(4, 16, 1), (40, 16, 1), (3, 1, 1), (5, 2, 4)])
def test_fused_lstm_loop_bit_for_bit_on_small_shapes(feat, hidden, batch):
    """Batch 1 (a (R, 1) step matrix is F- as well as C-ordered: cuBLAS gets it transposed, as
    from cupy.matmul) and a 1 x 1 recurrent product (matmul's own path there)."""
    def run(enabled):
        _cupy_kernels.ENABLED[0] = enabled
        try:
            numtorch.manual_seed(0)
            m = numtorch.nn.LSTM(feat, hidden, num_layers=2).cuda()
            rng = np.random.default_rng(2)
            x = numtorch.from_numpy(rng.standard_normal((6, batch, feat)).astype(np.float32))
            x = x.cuda().requires_grad_(True)
            h0 = numtorch.zeros(2, batch, hidden, device="cuda", requires_grad=True)
            out, (h, c) = m(x, (h0, h0))
            (out.square().sum() + h.sum() + c.square().sum()).backward()
        finally:
            _cupy_kernels.ENABLED[0] = True
        return [t.detach().cpu().numpy() for t in (out, h, c, x.grad, h0.grad)] + \
            [p.grad.cpu().numpy() for p in m.parameters()]

    with standin.active():
        fused, plain = run(True), run(False)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


def _spy_gemm(monkeypatch):
    from tests.cuda.standin import _cublas

    calls = []
    real = _cublas.gemmEx
    monkeypatch.setattr(_cublas, "gemmEx", lambda *a: (calls.append(a), real(*a))[1])
    return calls


def test_recurrent_gemm_is_one_cublas_call_per_step(monkeypatch):
    """The steps' GEMMs go straight to cublasGemmEx (no cupy.matmul, no per-step views): 5
    steps x 2 layers forward, and backward all but each layer's first step (h0 needs no
    gradient)."""
    calls = _spy_gemm(monkeypatch)
    with standin.active():
        _run(5, 4)
    assert len(calls) == 10 + 8
    fwd = calls[0]
    # cupy.matmul's arguments for W (4H, R) @ h (R, B): cuBLAS's C^T = h^T W^T, no transposes
    assert fwd[1:6] == (0, 0, 3, 64, 16 + 4 + 1)


def test_loop_without_direct_cublas_gives_the_same_bits(monkeypatch):
    """Where CuPy would not reach gemmEx (HIP, old GPUs) the loops call matmul per step."""
    from numtorch.backend import _cupy_rnn

    with standin.active():
        direct, n_direct, _ = _run(5, 40)
    calls = _spy_gemm(monkeypatch)
    monkeypatch.setattr(_cupy_rnn, "_gemm_plan", lambda cp, dtype: None)
    with standin.active():
        fallback, n_fallback, _ = _run(5, 40)
    assert not calls and n_direct == n_fallback
    for a, b in zip(direct, fallback):
        np.testing.assert_array_equal(a, b)


def test_stand_in_cublas_reads_only_live_device_memory():
    """The stand-in's gemmEx works on addresses as cuBLAS does: a product of stand-in arrays
    is NumPy's, and a leading dimension that reaches past the array raises."""
    from tests.cuda.standin import _cublas

    with standin.active() as cp:
        rng = np.random.default_rng(0)
        a = cp.asarray(rng.standard_normal((6, 5)).astype(np.float32))
        b = cp.asarray(rng.standard_normal((5, 3)).astype(np.float32))
        c = cp.empty((6, 3), np.float32)
        one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
        args = (1, 0, 0, 3, 6, 5, one.ctypes.data, b.data.ptr, 0, 3, a.data.ptr, 0, 5,
                zero.ctypes.data, c.data.ptr, 0, 3, _cublas.CUBLAS_COMPUTE_32F, -1)
        _cublas.gemmEx(*args)
        np.testing.assert_array_equal(c.get(), a.get() @ b.get())
        bad = list(args)
        bad[12] = 6  # lda past a's end
        with pytest.raises(_cublas.CUBLASError, match="outside every live device array"):
            _cublas.gemmEx(*bad)
        bad = list(args)
        bad[9] = 2  # ldb below the rows
        with pytest.raises(_cublas.CUBLASError, match="INVALID_VALUE"):
            _cublas.gemmEx(*bad)


def test_stand_in_raw_kernel_checks_arguments_as_the_driver_reads_them():
    """A RawKernel argument CuPy would pass in another width or type than the C parameter
    (a Python int to an ``int``: 8 bytes read as 4) is refused on the stand-in."""
    from tests.cuda.standin import REFERENCES

    code = ('typedef float T;\nextern "C" __global__ void numtorch_test_raw(const T* x, '
            'int k, long long m, T* y) { y[0] = x[0] * k + m; }')

    def ref(x, k, m, y):
        y[0] = x[0] * k + m

    REFERENCES["numtorch_test_raw"] = ref
    try:
        with standin.active() as cp:
            kernel = cp.RawKernel(code, "numtorch_test_raw", options=("--fmad=false",))
            x, y = cp.full(2, 3, np.float32), cp.zeros(2, np.float32)
            kernel((1,), (32,), (x, np.int32(2), 1, y))
            assert y.get()[0] == 7
            for bad in [(x, 2, 1, y), (x, np.int32(2), 1.0, y), (x.astype(np.float64),
                                                                  np.int32(2), 1, y),
                        (x, np.int32(2), y)]:
                with pytest.raises(TypeError):
                    kernel((1,), (32,), bad)
            with pytest.raises(TypeError, match="options"):
                cp.RawKernel(code, "numtorch_test_raw", options=["--fmad=false"])
    finally:
        del REFERENCES["numtorch_test_raw"]


@pytest.mark.parametrize("kernel", ["numtorch_lstm_seq_step", "numtorch_lstm_seq_grad"])
def test_a_kernel_that_cannot_be_built_falls_back_to_the_xp_loop(kernel, monkeypatch):
    """One loop on the GPU kernel, the other on the xp code (its kernel refused, as after a
    compile error): the same bits, with more launches."""
    with standin.active():
        fused, n_fused, _ = _run(5, 40)
        key = f"{kernel}_f"  # (float32)
        monkeypatch.delitem(_cupy_kernels._KERNELS, key)
        monkeypatch.setitem(_cupy_kernels.FAILED, key, RuntimeError("refused"))
        mixed, n_mixed, _ = _run(5, 40)
    for a, b in zip(fused, mixed):
        np.testing.assert_array_equal(a, b)
    assert n_mixed > n_fused


@pytest.mark.parametrize("kind", ["GRU", "RNN"])
def test_gru_and_elman_recurrent_gemm_is_one_cublas_call_per_step(kind, monkeypatch):
    """GRU and Elman layers on a GPU: each step's recurrent GEMM is one cublasGemmEx call on
    precomputed addresses (forward and backward), bit for bit the matmul-per-step loops."""
    from numtorch.backend import _cupy_rnn

    def run():
        return _run_two_layers(kind, 3, 6, True)[0]

    calls = _spy_gemm(monkeypatch)
    with standin.active():
        direct = run()
        n_direct = len(calls)
        monkeypatch.setattr(_cupy_rnn, "_gemm_plan", lambda cp, dtype: None)
        fallback = run()
    assert n_direct == 2 * 6 * 2 and len(calls) == n_direct  # 6 steps, 2 layers, both ways
    for a, b in zip(direct, fallback):
        np.testing.assert_array_equal(a, b)


def _run_two_layers(kind, seed, steps, enabled, **kw):
    """Outputs and gradients of a 2-layer GRU or Elman (``kind``) training pass on (steps, 2,
    3) inputs, and its kernel launches, with the fused kernels on or off."""
    _cupy_kernels.ENABLED[0] = enabled
    try:
        numtorch.manual_seed(0)
        m = getattr(numtorch.nn, kind)(3, 5, num_layers=2, **kw).cuda()
        x = numtorch.from_numpy(np.random.default_rng(seed).standard_normal((steps, 2, 3))
                                .astype(np.float32)).cuda().requires_grad_(True)
        standin.reset_stats()
        out, h = m(x)
        (out.square().sum() + h.sum()).backward()
        launches = standin.STATS["kernels"]
    finally:
        _cupy_kernels.ENABLED[0] = True
    return [t.detach().cpu().numpy() for t in (out, h, x.grad)] + \
        [p.grad.cpu().numpy() for p in m.parameters()], launches


@pytest.mark.parametrize("nonlinearity,kw", [("tanh", {}), ("relu", {}),
                                             ("tanh", {"bidirectional": True})])
def test_fused_elman_loop_is_the_xp_loop_bit_for_bit(nonlinearity, kw):
    """A tanh Elman step is its GEMM and one kernel forward (relu keeps the xp step: CUDA's
    max has its own signed-zero and NaN rules), and one kernel and the GEMM backward."""
    def run(steps, enabled):
        return _run_two_layers("RNN", 4, steps, enabled, nonlinearity=nonlinearity, **kw)

    with standin.active():
        fused, n5 = run(5, True)
        plain, _ = run(5, False)
        _, n15 = run(15, True)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    per_step = 2 + 2 if nonlinearity == "tanh" else 3 + 2  # forward + backward, one layer
    assert n15 - n5 == 10 * 2 * per_step * (2 if kw else 1)


@pytest.mark.parametrize("kw", [{}, {"bias": False}, {"bidirectional": True}])
def test_fused_gru_loop_is_the_xp_loop_bit_for_bit(kw):
    """A GRU step is its GEMM and one kernel each way (the xp steps: ~10 launches each)."""
    def run(steps, enabled):
        return _run_two_layers("GRU", 5, steps, enabled, **kw)

    with standin.active():
        fused, n5 = run(5, True)
        plain, _ = run(5, False)
        _, n15 = run(15, True)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    # 10 steps x 2 layers x (GEMM + kernel) x 2 ways (x 2 directions)
    assert n15 - n5 == 10 * 2 * 2 * 2 * (2 if kw.get("bidirectional") else 1)
