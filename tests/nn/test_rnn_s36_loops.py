"""The LSTM/GRU/RNN layers' NumPy loops as session 36 left them (``dot`` on Fortran-ordered
weight blocks, positional ``out=``, the sigmoid derivative over the three sigmoid gates only)
against torch: outputs, final states and the gradients of the input, the initial states and
every parameter under random cotangents, in float32 and float64, with the per-step GEMMs split
into row blocks and whole, for the layer options that reach the loops (layers 1-2,
bidirectional, batch_first, proj_size, packed sequences, given or default states, dropout in
training with torch's seeded masks), and second order where the layers support it."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import rnn_sequence_base

TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}


@pytest.fixture(params=[True, False], ids=["blocks", "whole"])
def split(request, monkeypatch):
    monkeypatch.setattr(rnn_sequence_base, "small_gemm_kernels", lambda: request.param)
    monkeypatch.setattr(rnn_sequence_base, "blas_threads_now", lambda: 1)
    return request.param


def _pair(kind, kwargs, dtype, seed=0):
    torch.manual_seed(seed)
    ref = getattr(torch.nn, kind)(**kwargs).to(getattr(torch, np.dtype(dtype).name))
    ours = getattr(numtorch.nn, kind)(**kwargs).to(getattr(numtorch, np.dtype(dtype).name))
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    return ref, ours


def _run(lib, m, x, hx, lengths, seed):
    """Outputs and the gradients of (input, states, parameters) under fixed cotangents."""
    lib.manual_seed(seed)
    xt = lib.from_numpy(x.copy()).requires_grad_()
    lstm = isinstance(m, lib.nn.LSTM)
    h = None if hx is None else [lib.from_numpy(s.copy()).requires_grad_() for s in hx]
    inp = xt
    if lengths is not None:
        inp = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=m.batch_first,
                                                    enforce_sorted=False)
    out, state = m(inp, None if h is None else (tuple(h) if lstm else h[0]))
    if lengths is not None:
        out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=m.batch_first)[0]
    got = [out] + (list(state) if lstm else [state])
    cot = [np.random.default_rng(10 + k).standard_normal(tuple(g.shape)).astype(x.dtype)
           for k, g in enumerate(got)]
    loss = sum((g * lib.from_numpy(u)).sum() for g, u in zip(got, cot))
    loss.backward()
    grads = [xt.grad] + ([] if h is None else [s.grad for s in h]) + [
        p.grad for p in m.parameters()]
    return ([g.detach().numpy() for g in got]
            + [np.zeros(0) if g is None else g.numpy() for g in grads])


def _compare(kind, kwargs, dtype, shape, hx=False, lengths=None, train=False):
    ref, ours = _pair(kind, kwargs, dtype)
    if not train:
        ref.eval()
        ours.eval()
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    dirs = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1)
    batch = shape[0] if kwargs.get("batch_first") else shape[1]
    hidden, proj = kwargs["hidden_size"], kwargs.get("proj_size", 0)
    states = None
    if hx:
        states = [rng.standard_normal((layers * dirs, batch, proj or hidden)).astype(dtype)]
        if kind == "LSTM":
            states.append(rng.standard_normal((layers * dirs, batch, hidden)).astype(dtype))
    want = _run(torch, ref, x, states, lengths, seed=5)
    got = _run(numtorch, ours, x, states, lengths, seed=5)
    assert len(want) == len(got)
    for k, (a, b) in enumerate(zip(want, got)):
        assert a.dtype == b.dtype, f"item {k}"
        np.testing.assert_allclose(b, a, err_msg=f"item {k}", **TOL[dtype])


DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hx", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("kwargs", [
    dict(input_size=32, hidden_size=128),
    dict(input_size=24, hidden_size=64, num_layers=2, bidirectional=True),
    dict(input_size=28, hidden_size=64, batch_first=True),
    dict(input_size=32, hidden_size=96, proj_size=40),
    dict(input_size=16, hidden_size=64, bias=False),
], ids=["plain", "two_layers_bidir", "batch_first", "proj", "no_bias"])
def test_lstm_matches_torch(split, kwargs, hx, dtype):
    shape = (9, 20, kwargs["input_size"])
    if kwargs.get("batch_first"):
        shape = (20, 9, kwargs["input_size"])
    _compare("LSTM", kwargs, dtype, shape, hx=hx)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_packed_sequences_match_torch(split, kind, dtype):
    kwargs = dict(input_size=20, hidden_size=64, bidirectional=True)
    lengths = np.random.default_rng(3).integers(1, 8, 20)
    lengths[0] = 7
    _compare(kind, kwargs, dtype, (7, 20, 20), hx=True, lengths=torch.from_numpy(lengths))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_dropout_in_training_matches_torch(split, kind, dtype, device):
    """Two layers with dropout in training: torch's masks from the same seed (torch's CPU
    generator's draws; a CUDA generator draws others)."""
    if device != "cpu":
        pytest.skip("the masks of numtorch's CUDA generator are not torch's CPU ones")
    kwargs = dict(input_size=32, hidden_size=64, num_layers=2, dropout=0.3)
    _compare(kind, kwargs, dtype, (8, 20, 32), train=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["GRU", "RNN"])
@pytest.mark.parametrize("hx", [False, True], ids=["zero_state", "given_state"])
def test_gru_and_elman_match_torch(split, kind, hx, dtype):
    kwargs = dict(input_size=32, hidden_size=128, num_layers=2, batch_first=True)
    _compare(kind, kwargs, dtype, (20, 9, 32), hx=hx)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_second_order_matches_torch(split, kind):
    """d/dx of (grad of the output's weighted sum w.r.t. the recurrent weight) . v."""
    kwargs = dict(input_size=6, hidden_size=8, num_layers=2, bidirectional=True)
    ref, ours = _pair(kind, kwargs, np.float64)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 3, 6))
    u = rng.standard_normal((5, 3, 16))
    v = rng.standard_normal(tuple(ref.weight_hh_l0.shape))
    res = []
    for lib, m in ((torch, ref), (numtorch, ours)):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        out = m(xt)[0]
        (gw,) = lib.autograd.grad((out * lib.from_numpy(u)).sum(), [m.weight_hh_l0],
                                  create_graph=True)
        (gx,) = lib.autograd.grad((gw * lib.from_numpy(v)).sum(), [xt])
        res.append((gw.detach().numpy(), gx.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_float32_stays_float32(dtype):
    m = numtorch.nn.LSTM(32, 128).to(getattr(numtorch, np.dtype(dtype).name))
    x = numtorch.from_numpy(np.ones((4, 20, 32), dtype)).requires_grad_()
    out, (h, c) = m(x)
    out.sum().backward()
    assert out.dtype == h.dtype == c.dtype == x.grad.dtype == m.weight_hh_l0.grad.dtype
    assert out._array.dtype == np.dtype(dtype)
    assert all(p.grad._array.dtype == np.dtype(dtype) for p in m.parameters())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("feat", [1, 7])
def test_lstm_cell_steps_match_torch(dtype, bias, feat):
    """Two ``nn.LSTMCell`` steps (the one-node ``LSTMStep``; its gate affine maps as whole-row
    products), an input of one feature included: outputs and every gradient."""
    torch.manual_seed(0)
    ref = torch.nn.LSTMCell(feat, 9, bias=bias).to(getattr(torch, np.dtype(dtype).name))
    ours = numtorch.nn.LSTMCell(feat, 9, bias=bias).to(getattr(numtorch, np.dtype(dtype).name))
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(6)
    xs = rng.standard_normal((2, 5, feat)).astype(dtype)
    h0, c0 = (rng.standard_normal((5, 9)).astype(dtype) for _ in range(2))
    u = rng.standard_normal((4, 5, 9)).astype(dtype)
    res = []
    for lib, m in ((torch, ref), (numtorch, ours)):
        x = lib.from_numpy(xs.copy()).requires_grad_()
        h, c = (lib.from_numpy(a.copy()).requires_grad_() for a in (h0, c0))
        state, outs = (h, c), []
        for t in range(2):
            state = m(x[t], state)
            outs += list(state)
        loss = sum((o * lib.from_numpy(w)).sum() for o, w in zip(outs, u))
        loss.backward()
        res.append([o.detach().numpy() for o in outs] + [x.grad.numpy(), h.grad.numpy(),
                                                        c.grad.numpy()]
                   + [p.grad.numpy() for p in m.parameters()])
    for k, (a, b) in enumerate(zip(*res)):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, err_msg=f"item {k}", **TOL[dtype])
