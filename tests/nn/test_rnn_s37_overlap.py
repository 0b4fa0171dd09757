"""The LSTM's two-core backward (``rnn_overlap``: gate factors and weight GEMMs on a worker while
the chain runs), forced on any machine, and a backward on one core after a forward that saw
two, against torch: outputs,
final states and the gradients of the input, the initial states and every weight under random
cotangents, float32 and float64, inline and projected input, 2 layers bidirectional,
batch_first, packed sequences, retain_graph, frozen weights."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import rnn_overlap

TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}


@pytest.fixture
def two_cores(monkeypatch):
    """A free second core as rnn_overlap sees it (``threads`` may change mid-test)."""
    state = {"threads": 2}
    monkeypatch.setattr(rnn_overlap, "blas_threads_now", lambda: state["threads"])
    monkeypatch.setattr(rnn_overlap, "_OVERLAP_MIN", 0)
    return state


def _pair(kwargs, dtype):
    torch.manual_seed(0)
    ref = torch.nn.LSTM(**kwargs).to(getattr(torch, np.dtype(dtype).name))
    ours = numtorch.nn.LSTM(**kwargs).to(getattr(numtorch, np.dtype(dtype).name))
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    return ref, ours


def _run(lib, m, x, hx=None, lengths=None, between=None, grad_x=True, twice=False):
    xt = lib.from_numpy(x.copy()).requires_grad_(grad_x)
    h = None if hx is None else tuple(lib.from_numpy(s.copy()).requires_grad_() for s in hx)
    inp = xt
    if lengths is not None:
        inp = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=False,
                                                    batch_first=m.batch_first)
    out, state = m(inp, h)
    if lengths is not None:
        out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=m.batch_first)[0]
    got = [out] + list(state)
    us = [np.random.default_rng(k + 7).standard_normal(tuple(g.shape)).astype(x.dtype)
          for k, g in enumerate(got)]
    loss = sum((g * lib.from_numpy(u)).sum() for g, u in zip(got, us))
    if between is not None:
        between()  # the load changes between forward and backward
    loss.backward(retain_graph=twice)
    if twice:
        loss.backward()
    grads = ([xt.grad] if grad_x else []) + ([] if h is None else [s.grad for s in h]) + [
        p.grad for p in m.parameters() if p.requires_grad]
    return [g.detach().numpy() for g in got] + [None if g is None else g.numpy()
                                                 for g in grads]


def _check(ref, ours, x, dtype, **kw):
    a = _run(torch, ref, x, **{k: v for k, v in kw.items() if k != "between"})
    b = _run(numtorch, ours, x, **kw)
    assert len(a) == len(b)
    for k, (u, v) in enumerate(zip(a, b)):
        assert v.dtype == u.dtype, k
        np.testing.assert_allclose(v, u, err_msg=f"item {k}", **TOL[dtype])


CASES = [
    dict(input_size=3, hidden_size=5),  # input inline in the step GEMM
    dict(input_size=9, hidden_size=4),  # input projected for all steps
    dict(input_size=7, hidden_size=4, num_layers=2, bidirectional=True),
    dict(input_size=6, hidden_size=5, batch_first=True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", CASES)
def test_overlapped_backward_matches_torch(two_cores, kwargs, dtype):
    ref, ours = _pair(kwargs, dtype)
    rng = np.random.default_rng(1)
    shape = (3, 13, kwargs["input_size"]) if kwargs.get("batch_first") else (
        13, 3, kwargs["input_size"])
    x = rng.standard_normal(shape).astype(dtype)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hx = tuple(rng.standard_normal((layers, 3, kwargs["hidden_size"])).astype(dtype)
               for _ in range(2))
    _check(ref, ours, x, dtype)
    _check(ref, ours, x, dtype, hx=hx)


@pytest.mark.parametrize("steps", [8, 9, 12, 35])
def test_backward_on_one_core_after_forward_on_two(two_cores, device, steps):
    """Forward with a free core, backward on one (the load rose in between): one chunk."""
    ref, ours = _pair(dict(input_size=4, hidden_size=6), np.float64)
    x = np.random.default_rng(steps).standard_normal((steps, 2, 4))

    def busy():
        two_cores["threads"] = 1
    _check(ref, ours, x, np.float64, between=busy)
    two_cores["threads"] = 2
    _check(ref, ours, x, np.float64)


def test_retain_graph_and_frozen_weights(two_cores):
    ref, ours = _pair(dict(input_size=4, hidden_size=6), np.float32)
    x = np.random.default_rng(3).standard_normal((16, 3, 4)).astype(np.float32)
    _check(ref, ours, x, np.float32, twice=True)  # gradients summed over two backwards
    for m in (ref, ours):
        for p in m.parameters():
            p.requires_grad_(False)
    _check(ref, ours, x, np.float32)  # only the input's gradient


def test_packed_sequences(two_cores):
    ref, ours = _pair(dict(input_size=3, hidden_size=5, bidirectional=True), np.float64)
    x = np.random.default_rng(4).standard_normal((10, 4, 3))
    _check(ref, ours, x, np.float64, lengths=torch.tensor([10, 3, 8, 6]))
