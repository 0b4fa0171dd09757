"""Defects found by session 38's user-style programs, checked against torch.

The programs ``tests/parity_users/programs/s38_*.py`` print values, dtypes, gradients and error
texts; each is run under real torch and under numtorch and the outputs must be the same. The
tests below it check the fixed defects directly, one library beside the other.
"""

import os
import warnings

import pytest
import torch

import numtorch
from tests.parity_users.compare import diff

PROGRAMS = os.path.join(os.path.dirname(__file__), "parity_users", "programs")
S38 = sorted(n[:-3] for n in os.listdir(PROGRAMS) if n.startswith("s38_") and n.endswith(".py"))


def test_s38_programs_print_what_torch_prints():
    # every program in one child process per library: two interpreter starts in all
    # (one pair per program made these wrappers minutes of CI time)
    count, bad = diff(S38)
    assert count >= 2 * len(S38)
    report = "".join(f"==== {k}\n--- torch\n{w}--- numtorch\n{g}" for k, w, g in bad[:5])
    assert not bad, f"{len(bad)} of {count} cells differ:\n{report}"


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = f()
        except Exception as e:  # noqa: BLE001 - the error is what gets compared
            return type(e).__name__, str(e)
    if hasattr(out, "tolist"):
        return "ok", str(out.dtype), out.tolist()
    return "ok", repr(out)


# -- clamp/clip: one tensor bound and one number bound fit neither of torch's overloads --------
# (the lambdas are written out: the message shows the call as the program wrote it)
@pytest.mark.parametrize("call", [
    lambda L, x, T: x.clamp(min=T, max=3),
    lambda L, x, T: x.clamp(T, 3),
    lambda L, x, T: x.clamp(T, max=3),
    lambda L, x, T: x.clamp(2., max=T),
    lambda L, x, T: x.clamp_(min=T, max=3),
    lambda L, x, T: x.clamp_(T, 3.5),
    lambda L, x, T: x.clip(T, 3),
    lambda L, x, T: x.clip_(max=T, min=1),
    lambda L, x, T: L.clamp(x, T, 3),
    lambda L, x, T: L.clamp(x, 2, T),
    lambda L, x, T: L.clamp(x, min=2, max=T),
    lambda L, x, T: L.clamp(x, T, 3.0, out=L.empty(2)),
    lambda L, x, T: L.clip(x, 2, max=T),
    lambda L, x, T: L.clip(input=x, min=2, max=T),
    lambda L, x, T: L.clamp(x, T, None),
    lambda L, x, T: L.clamp(x, None, T),
    lambda L, x, T: x.clamp(T, T + 1),
    lambda L, x, T: x.clip(max=T),
    lambda L, x, T: L.clamp(x, 2, 3),
])
def test_clamp_mixed_bound_kinds(call):
    def run(L):
        x = L.tensor([1., 5.])
        return _outcome(lambda: call(L, x, L.tensor([2.]))), x.tolist()
    assert run(numtorch) == run(torch)


# -- a required dim left out: torch's TypeError names the function, not numtorch's class -------
@pytest.mark.parametrize("call", [
    lambda L, x: x.cumsum(), lambda L, x: x.cumprod(), lambda L, x: L.cumsum(x),
    lambda L, x: L.cumprod(x), lambda L, x: x.cumsum(dtype=L.float64),
    lambda L, x: x.softmax(), lambda L, x: x.log_softmax(), lambda L, x: L.softmax(x),
    lambda L, x: L.log_softmax(x), lambda L, x: x.softmax(0), lambda L, x: x.cumsum(0),
    lambda L, x: L.nn.functional.softmax(x.view(1, 2)), lambda L, x: L.softmax(x, dim=0),
    lambda L, x: x.softmax(dtype=L.float64),
])
def test_required_dim_missing(call):
    def run(L):
        return _outcome(lambda: call(L, L.tensor([1., 5.])))
    assert run(numtorch) == run(torch)


# -- recurrent layers refuse a 1-d or 4-d input in their own words -----------------------------
@pytest.mark.parametrize("layer", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("shape", [(5, 2, 3, 1), (3,)])
def test_rnn_input_dim_text(layer, shape):
    def run(L):
        return _outcome(lambda: getattr(L.nn, layer)(3, 4)(L.ones(shape)))
    assert run(numtorch) == run(torch)


# -- linspace/logspace without start, end or steps: torch's overload listing -------------------
@pytest.mark.parametrize("call", [
    lambda L: L.linspace(0, 1), lambda L: L.logspace(0, 1), lambda L: L.linspace(0),
    lambda L: L.linspace(0., 1, dtype=L.float64), lambda L: L.linspace(start=0, end=1),
    lambda L: L.logspace(0, 1, base=2), lambda L: L.linspace(end=1, steps=2),
    lambda L: L.linspace(0, 1, 3), lambda L: L.logspace(0, 1, steps=2, base=2),
])
def test_linspace_missing_arguments(call):
    assert _outcome(lambda: call(numtorch)) == _outcome(lambda: call(torch))


# -- custom autograd.Function: NotImplementedError without forward/backward, warning on an
# -- instance ---------------------------------------------------------------------------------
def test_autograd_function_missing_methods_and_instances():
    def run(L):
        class NoBackward(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

        class NoForward(L.autograd.Function):
            pass

        x = L.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            NoBackward()
        return (_outcome(lambda: NoBackward.apply(x).sum().backward()),
                _outcome(lambda: NoForward.apply(x)),
                [(w.category.__name__, str(w.message).split(">", 1)[1]) for w in caught])
    assert run(numtorch) == run(torch)


# -- Tensor.to with arguments no overload takes, set_default_dtype refusals: torch's texts ------
@pytest.mark.parametrize("call", [
    lambda L, x: x.to("cpu", "cpu"), lambda L, x: x.to(L.float32, "x"),
    lambda L, x: x.to("cpu", "float32"), lambda L, x: x.to(dtype="float32"),
    lambda L, x: x.to(dtype=float), lambda L, x: x.to(L.float32, copy=True, non_blocking=1),
    lambda L, x: x.to(device="cpu", dtype=3), lambda L, x: x.to(dtype=L.int8, copy=1),
    lambda L, x: x.to("cpu", copy=False, non_blocking=True),
    lambda L, x: L.set_default_dtype(L.int32), lambda L, x: L.set_default_dtype("float32"),
    lambda L, x: L.set_default_dtype(3),
])
def test_to_and_default_dtype_refusals(call):
    def run(L):
        try:
            return _outcome(lambda: call(L, L.ones(1)))
        finally:
            L.set_default_dtype(L.float32)
    assert run(numtorch) == run(torch)


def test_module_to_complex_warns():
    def run(L):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = L.nn.Linear(2, 2).to(L.complex64)
            L.nn.Linear(2, 2).to(L.float64)
        return str(m.weight.dtype), [(w.category.__name__, str(w.message)) for w in caught]
    assert run(numtorch) == run(torch)


# -- embedding_bag: a 2-d input with offsets names the offsets' class as torch does -------------
def test_embedding_bag_2d_offsets_text():
    def run(L):
        bag = L.nn.EmbeddingBag(5, 2)
        return _outcome(lambda: bag(L.tensor([[0, 1], [2, 3]]), L.tensor([0, 1])))
    assert run(numtorch) == run(torch)
