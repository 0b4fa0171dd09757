"""Batch norm's (C,)-parameter op (``ops/norm_batch.py``) and its eval-mode array path
against torch: training outputs, input/weight/bias gradients with random cotangents, second
order, running statistics, no affine, 1-d/2-d/3-d inputs, the inputs that keep the general
path (channels-last, float16), and inference without a graph giving the graph path's bits,
float32's torch's (its per-channel shift and each output are one fused multiply-add)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import norm_batch
from tests.oracle import check_module, check_op


@pytest.fixture
def calls(monkeypatch):
    seen = []
    forward = norm_batch.BatchNormAffine.forward

    def counting(self, *args):
        seen.append(1)
        return forward(self, *args)
    monkeypatch.setattr(norm_batch.BatchNormAffine, "forward", counting)
    return seen


@pytest.mark.parametrize("kind,shape", [("BatchNorm1d", (6, 4, 5)), ("BatchNorm2d", (3, 5, 4, 6)),
                                        ("BatchNorm3d", (2, 3, 2, 3, 4))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_module_training_matches_torch(calls, kind, shape, dtype):
    check_module(lambda t: getattr(t.nn, kind)(shape[1], momentum=0.3), [shape], dtype=dtype)
    assert calls


@pytest.mark.parametrize("affine", [True, False])
def test_functional_second_order(calls, affine):
    def fn(t, x, w, b, rm, rv):
        return t.nn.functional.batch_norm(x, rm.detach().clone(), rv.detach().abs() + 0.5,
                                          w if affine else None, b if affine else None,
                                          training=True, momentum=0.2, eps=1e-3)
    check_op(fn, [(4, 3, 5, 2), (3,), (3,), (3,), (3,)])
    assert calls


def test_running_statistics_match_torch(calls):
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((8, 4, 3, 3)).astype(np.float32) for _ in range(3)]
    g = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    got = {}
    for lib in (torch, numtorch):
        bn = lib.nn.BatchNorm2d(4, momentum=None)
        for x in xs:
            (bn(lib.tensor(x)) * lib.tensor(g)).sum().backward()
        got[lib.__name__] = [bn.running_mean.numpy(), bn.running_var.numpy(),
                             int(bn.num_batches_tracked), bn.weight.grad.numpy()]
    for h, w in zip(got["numtorch"], got["torch"]):
        np.testing.assert_allclose(h, w, rtol=1e-6, atol=1e-6)


def test_channels_last_and_half_keep_the_general_path(calls):
    check_op(lambda t, x, w, b: t.nn.functional.batch_norm(
        x.contiguous(memory_format=t.channels_last), None, None, w, b, training=True),
        [(2, 3, 4, 4), (3,), (3,)], dtype="float32", second_order=False)
    bn = numtorch.nn.BatchNorm2d(3).half()
    bn(numtorch.randn(2, 3, 4, 4).half())
    assert not calls


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 7), (2, 6, 5, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inference_without_a_graph_gives_the_graph_paths_bits(shape, dtype):
    rng = np.random.default_rng(2)
    bn = numtorch.nn.BatchNorm1d(shape[1]) if len(shape) < 4 else \
        numtorch.nn.BatchNorm2d(shape[1])
    bn = bn.to(getattr(numtorch, dtype))
    with numtorch.no_grad():
        bn.bias.copy_(numtorch.tensor(rng.standard_normal(shape[1])))
        bn.running_mean.copy_(numtorch.tensor(rng.standard_normal(shape[1])))
        bn.running_var.copy_(numtorch.tensor(rng.random(shape[1]) + 0.1))
        bn.weight.copy_(numtorch.tensor(rng.standard_normal(shape[1])))
    bn.eval()
    x = numtorch.tensor(rng.standard_normal(shape).astype(dtype))
    with numtorch.no_grad():
        fast = bn(x)
    graph = bn(x.clone().requires_grad_(True))
    np.testing.assert_array_equal(fast.numpy(), graph.detach().numpy())
    assert fast.stride() == graph.stride() and fast.dtype == graph.dtype
    tb = torch.nn.BatchNorm1d(shape[1]) if len(shape) < 4 else torch.nn.BatchNorm2d(shape[1])
    tb = tb.to(getattr(torch, dtype)).eval()
    tb.load_state_dict({k: torch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    with torch.no_grad():
        want = tb(torch.tensor(x.numpy())).numpy()
    if dtype == "float32":  # torch's two fused multiply-adds, exactly
        np.testing.assert_array_equal(fast.numpy(), want)
    else:  # (float64's through long double: nearly)
        np.testing.assert_allclose(fast.numpy(), want, rtol=1e-15, atol=1e-15)
