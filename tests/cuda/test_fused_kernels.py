"""The fused CuPy kernels (backend/_cupy_kernels.py) on the stand-in: Adam's update and the
LSTM cell run as one kernel each on cuda, match torch (the oracle, on the CPU), and fall back
to the ordinary xp code, with the same results, when the kernels are off or cannot be built."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin




def _train(lib, name, kwargs, device, steps=3):
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    w = lib.nn.Parameter(lib.tensor(w0, device=device))
    opt = getattr(lib.optim, name)([w], lr=0.1, **kwargs)
    xt = lib.tensor(x, device=device)
    for _ in range(steps):
        opt.zero_grad()
        (lib.tanh(xt @ w.t()) ** 2).sum().backward()
        opt.step()
    return w.detach().cpu().numpy()


ADAMS = [("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"maximize": True}),
         ("Adam", {"weight_decay": 0.1}), ("AdamW", {"weight_decay": 0.1}),
         ("AdamW", {"amsgrad": True, "maximize": True})]


@pytest.mark.parametrize("multi", [True, False], ids=["multi_tensor", "per_parameter"])
@pytest.mark.parametrize("name,kwargs", ADAMS, ids=lambda v: str(v))
def test_adam_update_is_one_fused_kernel_matching_torch(cuda, monkeypatch, name, kwargs, multi):
    from numtorch.backend import _cupy_optim

    if not multi:  # the per-parameter kernel, for parameters the multi-tensor one refuses
        monkeypatch.setattr(_cupy_optim, "_usable", lambda groups: False)
    want = _train(torch, name, kwargs, "cpu")
    got = _train(numtorch, name, kwargs, "cuda")
    kernel = "numtorch_multi_adam" if multi else "numtorch_adam_amsgrad_update" if \
        kwargs.get("amsgrad") else "numtorch_adam_update"
    assert standin.STATS["fused"].count(kernel) == 3
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    _cupy_kernels.ENABLED[0] = False  # the fallback: the optimizer's xp code
    standin.reset_stats()
    np.testing.assert_allclose(_train(numtorch, name, kwargs, "cuda"), got, rtol=1e-6,
                               atol=1e-7)
    assert "fused" not in standin.STATS


def test_a_kernel_that_cannot_be_built_falls_back(cuda, monkeypatch):
    class CompileException(Exception):
        pass

    def broken(cp):
        raise CompileException("nvrtc: error")

    from numtorch.backend import _cupy_optim

    monkeypatch.setattr(_cupy_kernels, "_make_adam", broken)
    monkeypatch.setattr(_cupy_optim, "_make_stepped", lambda *args: broken)
    got = _train(numtorch, "Adam", {}, "cuda")
    assert isinstance(_cupy_kernels.FAILED["numtorch_adam_update"], CompileException)
    assert isinstance(_cupy_kernels.FAILED["numtorch_multi_adam_rrn1"], CompileException)
    np.testing.assert_allclose(got, _train(torch, "Adam", {}, "cpu"), rtol=1e-5, atol=1e-6)


def _lstm_cell(lib, device, src=None):
    rng = np.random.default_rng(1)
    cell = lib.nn.LSTMCell(3, 4)
    if src is not None:
        with lib.no_grad():
            for p, q in zip(cell.parameters(), src.parameters()):
                p.copy_(lib.tensor(q.detach().numpy()))
    cell = cell.to(device)
    x = lib.tensor(rng.standard_normal((2, 3)).astype(np.float32), device=device,
                   requires_grad=True)
    h = lib.tensor(rng.standard_normal((2, 4)).astype(np.float32), device=device,
                   requires_grad=True)
    c = lib.tensor(rng.standard_normal((2, 4)).astype(np.float32), device=device,
                   requires_grad=True)
    gh = lib.tensor(rng.standard_normal((2, 4)).astype(np.float32), device=device)
    gc = lib.tensor(rng.standard_normal((2, 4)).astype(np.float32), device=device)
    h1, c1 = cell(x, (h, c))
    ((h1 * gh).sum() + (c1 * gc).sum()).backward()
    return [t.detach().cpu().numpy() for t in (h1, c1, x.grad, h.grad, c.grad,
                                               *(p.grad for p in cell.parameters()))], cell


def test_lstm_cell_gate_math_is_one_fused_kernel_matching_torch(cuda):
    want, src = _lstm_cell(torch, "cpu")
    got, _ = _lstm_cell(numtorch, "cuda", src)
    assert standin.STATS["fused"] == ["numtorch_lstm_cell"]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    _cupy_kernels.ENABLED[0] = False
    standin.reset_stats()
    fallback, _ = _lstm_cell(numtorch, "cuda", src)
    assert "fused" not in standin.STATS
    for a, b in zip(fallback, got):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exact_gelu_is_fused_forward_and_backward_matching_torch(cuda, dtype):
    from tests.oracle import check_op

    numtorch.set_default_device("cuda")
    try:
        check_op(lambda t, a: t.nn.functional.gelu(a), [(3, 4)], dtype=dtype, device="cuda")
        assert {"numtorch_gelu_erf", "numtorch_gelu_slope"} <= set(standin.STATS["fused"])
        _cupy_kernels.ENABLED[0] = False
        standin.reset_stats()
        check_op(lambda t, a: t.nn.functional.gelu(a), [(3, 4)], dtype=dtype, device="cuda")
        assert "fused" not in standin.STATS
    finally:
        numtorch.set_default_device(None)
