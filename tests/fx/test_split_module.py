"""torch.fx.passes.split_module against torch's: the same generated code for the split module
and every partition, the same qualname map, values and errors."""

import numpy as np
import pytest
import torch
import torch.fx as tfx
from torch.fx.passes.split_module import split_module as t_split

import numtorch
import numtorch.fx as nfx
from numtorch.fx.passes.split_module import split_module as n_split


def _classes(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(6, 6)
            self.register_buffer("scale", lib.ones(6) * 2)

        def forward(self, x):
            return lib.relu(self.lin(x)) * self.scale

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = lib.nn.Sequential(Block(), Block())
            self.param = lib.nn.Parameter(lib.ones(6))
            self.head = lib.nn.Linear(6, 2)

        def forward(self, x, y):
            a = self.layers(x + self.param)
            b = a.sum(dim=1, keepdim=True)
            c = lib.tanh(y).mean()
            return self.head(a) + b * c, b

    return Net


def _round_robin(n):
    count = [0]

    def callback(node):
        count[0] += 1
        return (count[0] - 1) % n
    return callback


def _by_name(node):
    if node.name.startswith("layers_0") or node.name == "add":
        return 0
    if node.name in ("tanh", "mean"):
        return 5  # independent of 0 and 1: dependency order and original order differ
    return 2 if node.name in ("head", "mul_2", "add_1") else 1


_CASES = {
    "by_name": (_by_name, {}),
    "keep_names": (_by_name, {"keep_original_node_name": True}),
    "original_order": (_by_name, {"keep_original_order": True}),
    "affix": (_by_name, {"partition_affix": "p"}),
    "chunks": (None, {}),  # runs of 4 nodes (a fresh counter per split)
}


def _split(lib_split, lib_trace, model, case):
    callback, kwargs = _CASES[case]
    if callback is None:
        count = [-1]

        def callback(node):
            count[0] += 1
            return 10 - count[0] // 4
    qualnames = {}
    gm = lib_trace(model)
    return lib_split(gm, model, callback, qualname_map=qualnames, **kwargs), qualnames


def _codes(mod):
    return {name: sub.code for name, sub in mod.named_children() if hasattr(sub, "code")}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_split_matches_torch(case):
    torch.manual_seed(0)
    theirs = _classes(torch)()
    ours = _classes(numtorch)()
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
    expected, expected_map = _split(t_split, tfx.symbolic_trace, theirs, case)
    got, got_map = _split(n_split, nfx.symbolic_trace, ours, case)
    assert got.code == expected.code
    assert _codes(got) == _codes(expected)
    assert got_map == expected_map
    assert str(got) == str(expected)
    x = np.random.RandomState(0).randn(3, 6).astype(np.float32)
    y = np.random.RandomState(1).randn(4).astype(np.float32)
    out = got(numtorch.from_numpy(x), numtorch.from_numpy(y))
    ref = expected(torch.from_numpy(x), torch.from_numpy(y))
    for a, b in zip(out, ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_docs_example_round_robin():
    # torch's documented example: three partitions assigned round robin
    def build(lib):
        class MyModule(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.param = lib.nn.Parameter(lib.ones(3, 4))
                self.linear = lib.nn.Linear(4, 5)

            def forward(self, x, y):
                z = self.linear(x + self.param).clamp(min=0.0, max=1.0)
                w = self.linear(y).clamp(min=0.0, max=1.0)
                return z + w
        return MyModule()

    m, tm = build(numtorch), build(torch)
    got = n_split(nfx.symbolic_trace(m), m, _round_robin(3))
    expected = t_split(tfx.symbolic_trace(tm), tm, _round_robin(3))
    assert str(got) == str(expected) and _codes(got) == _codes(expected)


def test_cycle_error():
    m, tm = _classes(numtorch)(), _classes(torch)()

    def alternate(node):
        return len(node.name) % 2

    with pytest.raises(RuntimeError) as expected:
        t_split(tfx.symbolic_trace(tm), tm, alternate)
    with pytest.raises(RuntimeError) as got:
        n_split(nfx.symbolic_trace(m), m, alternate)
    assert str(got.value) == str(expected.value)
