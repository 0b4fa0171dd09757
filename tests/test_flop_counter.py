"""torch.utils.flop_counter.FlopCounterMode against torch 2.13: totals and per-module,
per-op counts for linear layers (2-D/3-D input, with and without bias, input gradient or
not), convolutions and transposed ones (backward per gradient), products of every rank, einsum,
nested modules, no_grad, custom formulas."""

import pytest
import torch
import torch.utils.flop_counter  # torch.utils does not import it itself

import numtorch


def _counts(fc):
    return {k: {str(o): v for o, v in d.items()} for k, d in fc.get_flop_counts().items()}


def _mlp(L, bias=False):
    return L.nn.Sequential(L.nn.Linear(8, 16), L.nn.ReLU(), L.nn.Linear(16, 4, bias=bias))


class _NetBase:
    @staticmethod
    def make(L):
        class Net(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = L.nn.Sequential(L.nn.Conv2d(1, 4, 3), L.nn.ReLU())
                self.head = L.nn.Linear(4 * 6 * 6, 10)

            def forward(self, x):
                return self.head(self.enc(x).flatten(1))

        return Net()


def _products(L):
    r = L.randn
    L.nn.functional.conv1d(r(2, 4, 10), r(6, 2, 3), groups=2)
    L.bmm(r(2, 3, 4), r(2, 4, 5))
    r(3, 4) @ r(4, 5)
    L.einsum("ij,jk->ik", r(3, 4), r(4, 5))
    L.matmul(r(2, 3, 4), r(4, 5))
    r(3) @ r(3)
    r(2, 3) @ r(3)
    r(3) @ r(3, 2)
    L.nn.functional.linear(r(3), r(4, 3))
    r(3, 4) @ r(2, 4, 5)


CASES = {
    "mlp 3-d input with grad": lambda L: _mlp(L)(L.randn(3, 2, 8, requires_grad=True)).sum()
    .backward(),
    "mlp 2-d input": lambda L: _mlp(L, True)(L.randn(5, 8)).sum().backward(),
    "conv": lambda L: L.nn.Conv2d(3, 4, 3, stride=2, padding=1)(L.randn(2, 3, 8, 8)).sum()
    .backward(),
    "conv transpose with input grad": lambda L: L.nn.ConvTranspose2d(3, 5, 4, stride=2,
                                                                      padding=1)(
        L.randn(2, 3, 5, 5, requires_grad=True)).sum().backward(),
    "products": _products,
    "nested modules": lambda L: _NetBase.make(L)(L.randn(2, 1, 8, 8)).sum().backward(),
    "no_grad": lambda L: _no_grad(L),
    "einsum backward": lambda L: L.einsum("bij,bjk->bik", L.randn(2, 3, 4, requires_grad=True),
                                          L.randn(2, 4, 5, requires_grad=True)).sum()
    .backward(),
}


def _no_grad(L):
    with L.no_grad():
        _mlp(L, True)(L.randn(5, 8))


@pytest.mark.parametrize("name", list(CASES))
def test_counts_match_torch(name):
    got = {}
    for L in (numtorch, torch):
        L.manual_seed(0)
        with L.utils.flop_counter.FlopCounterMode(display=False) as fc:
            CASES[name](L)
        got[L.__name__] = (fc.get_total_flops(), _counts(fc))
    assert got["numtorch"] == got["torch"]


def test_custom_mapping_and_keys():
    got = {}
    for L in (numtorch, torch):
        cm = {L.ops.aten.mm: lambda a, b, out_shape=None: 7 + a[0]}
        with L.utils.flop_counter.FlopCounterMode(display=False, custom_mapping=cm) as fc:
            L.randn(3, 4) @ L.randn(4, 5)
        counts = fc.get_flop_counts()["Global"]
        got[L.__name__] = (fc.get_total_flops(), counts[L.ops.aten.mm],
                           repr(next(iter(counts))))
    assert got["numtorch"] == got["torch"]


def test_mods_argument_warns_and_display_prints(capsys):
    printed = {}
    for L in (numtorch, torch):
        m = _mlp(L, True)
        with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
            fc = L.utils.flop_counter.FlopCounterMode(m, display=True, depth=1)
        with fc:
            m(L.randn(5, 8))
        printed[L.__name__] = capsys.readouterr().out
    out = printed["numtorch"]
    assert out == printed["torch"]  # (Global left out: every flop ran inside Sequential)
    assert "Sequential" in out and "aten.addmm" in out
    assert "Sequential.0" not in out  # below depth 1


def test_counts_reset_on_reentry_and_hook_restored():
    from numtorch.autograd import graph

    fc = numtorch.utils.flop_counter.FlopCounterMode(display=False)
    before = graph._hook
    for _ in range(2):
        with fc:
            numtorch.randn(3, 4) @ numtorch.randn(4, 5)
        assert fc.get_total_flops() == 120
    assert graph._hook is before


def _attention_run(L, kind, need_weights):
    from_mod = L.utils.flop_counter if L is numtorch else torch.utils.flop_counter
    L.manual_seed(0)
    if kind == "encoder":
        m = L.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True)
        x = L.randn(2, 5, 16)
    else:
        m = L.nn.MultiheadAttention(16, 4, batch_first=kind == "batch_first")
        x = L.randn(2, 5, 16) if kind == "batch_first" else L.randn(5, 2, 16)
    with from_mod.FlopCounterMode(display=False) as fc:
        y = m(x) if kind == "encoder" else m(x, x, x, need_weights=need_weights)[0]
        y.sum().backward()
    return fc


@pytest.mark.parametrize("kind,need_weights", [("seq_first", True), ("seq_first", False),
                                               ("batch_first", True), ("batch_first", False),
                                               ("encoder", False)])
def test_multihead_attention(kind, need_weights):
    """With weights torch counts the two batched products (forward and backward); without,
    its scaled_dot_product_attention counts nothing on the CPU. Linear layers on contiguous
    3-D input count as addmm."""
    t = _attention_run(torch, kind, need_weights)
    n = _attention_run(numtorch, kind, need_weights)
    assert n.get_total_flops() == t.get_total_flops()
    tc, nc = _counts(t)["Global"], _counts(n)["Global"]
    assert nc.get("aten.bmm") == tc.get("aten.bmm")
    if kind != "batch_first":  # torch projects a transposed (non-contiguous) input there
        assert nc == tc
