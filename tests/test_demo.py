"""The README's demo: it trains, is deterministic, and follows torch's loss curve exactly."""

import io

import numpy as np
import pytest
import torch

import numtorch
from numtorch.demo import spiral as demo


def test_demo_loss_falls_and_accuracy_rises():
    result = demo.train(steps=80, log_every=0)
    losses = result["losses"]
    assert len(losses) == 80
    assert losses[-1] < 0.75 * losses[0]
    assert result["accuracy"] > 0.7


def test_demo_is_deterministic_under_manual_seed():
    a = demo.train(steps=5, seed=3, log_every=0)["losses"]
    b = demo.train(steps=5, seed=3, log_every=0)["losses"]
    c = demo.train(steps=5, seed=4, log_every=0)["losses"]
    assert a == b
    assert a != c


def test_demo_keeps_float32():
    params = demo.train(steps=2, log_every=0)["params"]
    assert all(p.dtype == numtorch.float32 for p in params)
    assert all(p.is_leaf and p.requires_grad for p in params)


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-9), ("float32", 1e-4)])
def test_demo_matches_torch_step_for_step(dtype, rtol):
    # The same starting point in both libraries, so the whole SGD trajectory must agree.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 2)).astype(dtype)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    shapes = [(2, 16), (16,), (16, 2), (2,)]
    init = [(0.5 * rng.standard_normal(s)).astype(dtype) for s in shapes]

    def run(lib):
        params = [lib.from_numpy(a.copy()).requires_grad_() for a in init]
        data = (lib.from_numpy(x.copy()), lib.from_numpy(y.copy()))
        return demo.train(steps=30, data=data, params=params, torch=lib, log_every=0)

    ours, theirs = run(numtorch), run(torch)
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=rtol)
    for p, q in zip(ours["params"], theirs["params"]):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=rtol,
                                   atol=rtol)
    assert ours["accuracy"] == theirs["accuracy"]


def test_demo_logs_loss_and_accuracy():
    buf = io.StringIO()
    demo.train(steps=11, log_every=5, out=buf)
    lines = buf.getvalue().splitlines()
    assert [ln.split()[1] for ln in lines[:-1]] == ["0", "5", "10"]
    assert lines[-1].startswith("training accuracy")


def test_demo_main_runs_from_the_command_line(capsys):
    result = demo.main(["--steps", "3", "--seed", "1", "--hidden", "8"])
    text = capsys.readouterr().out
    assert "spiral" in text and "training accuracy" in text
    assert len(result["losses"]) == 3
    assert tuple(result["params"][0].shape) == (2, 8)
