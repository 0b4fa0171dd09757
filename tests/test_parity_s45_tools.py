"""Session 45 (tools): jit / compile / export / fx / quantization / onnx parity, each checked
against torch at test time."""

import numpy as np
import pytest
import torch

import numtorch

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _pair(build):
    """The same module built in both libraries with the same weights."""
    torch.manual_seed(0)
    t = build(torch)
    n = build(numtorch)
    n.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t.eval(), n.eval()


def _ort_run(path, arr):
    s = ort.InferenceSession(path)
    return s.run(None, {s.get_inputs()[0].name: arr})[0]


@pytest.mark.parametrize("build", [
    lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Softmax(-1)),
    lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.LogSoftmax(-1)),
    lambda L: L.nn.Sequential(L.nn.Linear(3, 5), L.nn.Softmax(dim=1)),
])
def test_onnx_small_softmax_follows_the_input(build, tmp_path):
    # a softmax of <= 16 values skipped the recorded op path: the exported graph was an
    # Identity of the example output (a constant), right only for the example input
    t, n = _pair(build)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    numtorch.onnx.export(n, (numtorch.tensor(x),), str(tmp_path / "n.onnx"), dynamo=False)
    onnx.checker.check_model(onnx.load(str(tmp_path / "n.onnx")))
    x2 = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    want = t(torch.from_numpy(x2)).detach().numpy()
    np.testing.assert_allclose(_ort_run(str(tmp_path / "n.onnx"), x2), want, atol=1e-5)


def test_onnx_dynamic_batch_with_small_softmax_head(tmp_path):
    def build(L):
        return L.nn.Sequential(L.nn.Flatten(), L.nn.Linear(16, 5), L.nn.Softmax(-1))
    t, n = _pair(build)
    x = np.random.default_rng(0).standard_normal((2, 4, 4)).astype(np.float32)
    numtorch.onnx.export(n, (numtorch.tensor(x),), str(tmp_path / "n.onnx"), input_names=["x"],
                         dynamic_axes={"x": {0: "b"}}, dynamo=False)
    x3 = np.random.default_rng(1).standard_normal((3, 4, 4)).astype(np.float32)
    want = t(torch.from_numpy(x3)).detach().numpy()
    np.testing.assert_allclose(_ort_run(str(tmp_path / "n.onnx"), x3), want, atol=1e-5)


_SORTS = {
    "sort": lambda L, x: x.sort(-1).values,
    "sort_desc_dim0": lambda L, x: L.sort(x, dim=0, descending=True)[0] * 2,
    "sort_indices": lambda L, x: x.sort(1)[1].float(),
    "argsort": lambda L, x: L.argsort(x, dim=1, descending=True).float(),
    "topk": lambda L, x: x.topk(2, -1).values,
    "topk_small": lambda L, x: L.topk(x, 3, dim=0, largest=False)[0] + 1,
    "topk_both": lambda L, x: x.topk(2).values * x.topk(2).indices,
}


@pytest.mark.parametrize("name", sorted(_SORTS))
def test_onnx_sort_and_topk_order_follows_the_input(name, tmp_path):
    # sort/topk were traced as a gather with the example input's order as a constant
    fn = _SORTS[name]

    class W(numtorch.nn.Module):
        def forward(self, x):
            return fn(numtorch, x)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    numtorch.onnx.export(W(), (numtorch.tensor(x),), str(tmp_path / "n.onnx"), dynamo=False)
    onnx.checker.check_model(onnx.load(str(tmp_path / "n.onnx")))
    x2 = rng.standard_normal((4, 5)).astype(np.float32)
    want = fn(torch, torch.from_numpy(x2)).numpy()
    np.testing.assert_allclose(_ort_run(str(tmp_path / "n.onnx"), x2), want, atol=1e-6)
