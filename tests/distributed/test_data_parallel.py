"""DataParallel (one process): on the CPU it runs the module directly, as torch does; the
scatter / replicate / parallel_apply / gather pipeline it uses on several devices is checked
on CPU devices against running the module on the whole batch."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.nn.parallel import gather, parallel_apply, replicate, scatter


def _pair():
    t = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3))
    n = numtorch.nn.Sequential(numtorch.nn.Linear(5, 4), numtorch.nn.Tanh(),
                               numtorch.nn.Linear(4, 3))
    n.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, n


def test_cpu_data_parallel_matches_torch():
    t, n = _pair()
    td, nd = torch.nn.DataParallel(t), numtorch.nn.DataParallel(n)
    assert nd.device_ids == td.device_ids == []
    assert list(nd.state_dict()) == list(td.state_dict())
    assert repr(nd) == repr(td)
    x = np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32)
    cot = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    outs = []
    for lib, m in ((torch, td), (numtorch, nd)):
        xin = lib.tensor(x, requires_grad=True)
        y = m(xin)
        (y * lib.tensor(cot)).sum().backward()
        outs.append((y.detach().numpy(), xin.grad.numpy(),
                     [p.grad.numpy() for p in m.parameters()]))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6, atol=1e-6)
    for a, b in zip(outs[0][2], outs[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_functional_data_parallel_on_cpu_runs_the_module():
    _, n = _pair()
    x = numtorch.randn(4, 5)
    out = numtorch.nn.parallel.data_parallel(n, x)
    assert numtorch.equal(out, n(x))


def test_multi_device_pipeline_equals_whole_batch():
    _, n = _pair()
    x = numtorch.randn(7, 5, requires_grad=True)
    cot = numtorch.randn(7, 3)
    devices = ["cpu", "cpu", "cpu"]
    pieces = scatter((x,), devices)
    assert [p[0].shape[0] for p in pieces] == [3, 3, 1]
    replicas = replicate(n, devices[:len(pieces)])
    assert all(r is not n for r in replicas)
    outs = parallel_apply(replicas, pieces)
    y = gather(outs, "cpu")
    (y * cot).sum().backward()
    grads = [p.grad.clone() for p in n.parameters()]
    xg = x.grad.clone()
    n.zero_grad()
    x.grad = None
    y_ref = n(x)
    (y_ref * cot).sum().backward()
    assert numtorch.allclose(y, y_ref, atol=1e-6)
    assert numtorch.allclose(xg, x.grad, atol=1e-6)
    for g, p in zip(grads, n.parameters()):  # every replica's gradient sums into the original
        assert numtorch.allclose(g, p.grad, atol=1e-5)


def test_parallel_apply_names_the_failing_replica():
    class Boom(numtorch.nn.Module):
        def forward(self, x):
            if x.shape[0] == 1:
                raise ValueError("bad piece")
            return x

    with pytest.raises(ValueError, match="Caught ValueError in replica 1 on device cpu"):
        parallel_apply([Boom(), Boom()], [(numtorch.ones(2, 2),), (numtorch.ones(1, 2),)],
                       devices=["cpu", "cpu"])


def test_gather_stacks_scalars_and_dicts():
    outs = [{"loss": numtorch.tensor(1.0), "y": numtorch.ones(2, 3)},
            {"loss": numtorch.tensor(2.0), "y": numtorch.zeros(1, 3)}]
    got = gather(outs, "cpu")
    assert got["loss"].tolist() == [1.0, 2.0] and got["y"].shape == (3, 3)
