"""Multi-tensor optimizer kernels (backend/_cupy_optim.py) on the CuPy stand-in: SGD,
Adam/AdamW, RMSprop and Adagrad update all the device parameters of a group in a few
launches, with the CPU path's values bit for bit (torch, the oracle, within float
tolerance), the step counters in the state as torch's, and the per-parameter path taking over what the kernels do not take."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels, _cupy_optim
from tests.cuda import standin

SHAPES = [(4, 3), (3,), (2, 2, 3), (5,)]




def _train(lib, name, kwargs, device, dtype=np.float32, steps=4, shapes=SHAPES):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype), device=device))
          for s in shapes]
    x = lib.tensor(rng.standard_normal((5, 3)).astype(dtype), device=device)
    opt = getattr(lib.optim, name)(ps, lr=0.1, **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p.reshape(-1)[:3] * x).tanh() ** 2).sum() + (p ** 3).sum() for p in ps)
        loss.backward()
        opt.step()
    steps_ = [float(opt.state[p]["step"]) for p in ps if "step" in opt.state[p]]
    return [p.detach().cpu().numpy() for p in ps], steps_


CASES = [("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
         ("SGD", {"momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
         ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1, "maximize": True}),
         ("SGD", {"weight_decay": 0.1, "maximize": True}),
         ("Adam", {}), ("Adam", {"amsgrad": True}), ("Adam", {"maximize": True,
                                                              "weight_decay": 0.1}),
         ("AdamW", {"weight_decay": 0.1}), ("AdamW", {"amsgrad": True, "maximize": True}),
         ("RMSprop", {}), ("RMSprop", {"centered": True, "weight_decay": 0.1}),
         ("RMSprop", {"momentum": 0.9, "maximize": True}),
         ("RMSprop", {"momentum": 0.5, "centered": True, "alpha": 0.9}),
         ("Adagrad", {}), ("Adagrad", {"lr_decay": 0.1, "weight_decay": 0.1, "maximize": True})]


def _same_up_to_rounding(device, host):
    """The CPU path rounds each x + a*y once, as torch's CPU kernels (a fused multiply-add);
    a device kernel rounds as its compiler contracts it (nvrtc fuses by default, the
    stand-in's NumPy rounds twice), so after a few steps the two agree to the last bits of
    the parameters' scale, not bitwise."""
    scale = float(np.abs(host).max()) or 1.0
    tol = 64 * np.finfo(host.dtype).eps * scale
    np.testing.assert_allclose(device, host, rtol=0, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", CASES, ids=str)
def test_one_launch_per_step_with_the_cpu_values(cuda, name, kwargs, dtype):
    want, want_steps = _train(torch, name, kwargs, "cpu", dtype)
    cpu, cpu_steps = _train(numtorch, name, kwargs, "cpu", dtype)
    got, got_steps = _train(numtorch, name, kwargs, "cuda", dtype)
    kernel = "numtorch_multi_" + {"SGD": "sgd", "RMSprop": "rmsprop",
                                  "Adagrad": "adagrad"}.get(name, "adam")
    # SGD's first momentum step makes the buffers on the per-parameter path
    first = 1 if name == "SGD" and kwargs.get("momentum") else 0
    assert standin.STATS["fused"].count(kernel) == 4 - first
    for a, b, c in zip(got, cpu, want):
        # the CPU path rounds each x + a*y once, as torch's CPU kernels (a fused multiply-add);
        # a device kernel rounds as its compiler contracts it (nvrtc fuses by default, the
        # stand-in's NumPy rounds twice), so the two agree to an ulp per step, not bitwise
        _same_up_to_rounding(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
    assert got_steps == cpu_steps == want_steps
    _cupy_kernels.ENABLED[0] = False  # the per-parameter path: the same values
    off, off_steps = _train(numtorch, name, kwargs, "cuda", dtype)
    for a, b in zip(off, got):
        # the per-parameter path spells some updates as the CPU does (torch's roundings),
        # the fused kernel as one expression
        _same_up_to_rounding(a, b)
    assert off_steps == got_steps


def test_many_parameters_are_split_across_launches(cuda):
    shapes = [(3, 2)] * 70
    got, _ = _train(numtorch, "Adam", {}, "cuda", shapes=shapes, steps=2)
    want, _ = _train(numtorch, "Adam", {}, "cpu", shapes=shapes, steps=2)
    for a, b in zip(got, want):
        _same_up_to_rounding(a, b)
    per = 8 + 16 + 32 * 4
    launches = len(_cupy_optim._chunks(70, per))
    assert 1 < launches < 70
    assert standin.STATS["fused"].count("numtorch_multi_adam") == 2 * launches


def test_parameters_the_kernels_do_not_take_go_the_per_parameter_way(cuda):
    def run(lib, device):
        rng = np.random.default_rng(3)
        a = lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 4)), device=device))
        b = lib.nn.Parameter(lib.tensor(rng.standard_normal((4, 3)), device=device).t())
        c = lib.nn.Parameter(lib.tensor(rng.standard_normal(5).astype(np.float32),
                                        device=device))
        e = lib.nn.Parameter(lib.zeros(0, device=device))
        opt = lib.optim.Adam([a, b, c, e], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            ((a * b).sum() + (a ** 2).sum() + c.exp().sum() + e.sum()).backward()
            opt.step()
        return [p.detach().cpu().numpy() for p in (a, b, c, e)], \
            [float(opt.state[p]["step"]) for p in (a, b, c, e)]

    got, steps = run(numtorch, "cuda")
    want, want_steps = run(torch, "cpu")
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)
    assert steps == want_steps == [3.0] * 4


def test_a_kernel_that_cannot_be_built_leaves_the_work_to_the_per_parameter_path(
        cuda, monkeypatch):
    class CompileException(Exception):
        pass

    made = []

    def broken(k, momentum):
        def make(cp):
            made.append(k)

            class K:
                def __call__(self, *args, **kwargs):
                    raise CompileException("nvrtc: error")
            return K()
        return make

    monkeypatch.setattr(_cupy_optim, "_make_sgd", broken)
    got, _ = _train(numtorch, "SGD", {"momentum": 0.9}, "cuda")
    want, _ = _train(numtorch, "SGD", {"momentum": 0.9}, "cpu")
    for a, b in zip(got, want):
        _same_up_to_rounding(a, b)
    assert made == [4]  # tried once, then never again
    assert isinstance(_cupy_kernels.FAILED["numtorch_multi_sgd_m4"], CompileException)
