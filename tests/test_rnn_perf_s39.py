"""The LSTM backward's gate factors are made on the loop's own thread, in one call for all
steps, also when a worker thread takes the weight gradients (s39: lines the worker wrote were
read by the loop and rewritten by the next forward across cores). Checked against torch with
the two-core path forced on any machine: outputs, final states and the gradients of the
input, the initial states and every weight under random cotangents, float32 and float64, the
bench's LSTM(32, 128) over 35 steps, 2 layers bidirectional batch_first, proj_size, packed
sequences, given states, dropout 0; and which thread made the factors, how many calls."""

import threading

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import rnn_lstm, rnn_overlap

TOL = {np.float32: {"rtol": 3e-4, "atol": 3e-5}, np.float64: {"rtol": 1e-9, "atol": 1e-10}}


@pytest.fixture(params=[2, 1], ids=["two_cores", "one_core"])
def cores(request, monkeypatch):
    """BLAS threads as rnn_overlap sees them; records each ``_factors`` call's thread and
    step count, and each weight-gradient chunk's thread."""
    monkeypatch.setattr(rnn_overlap, "blas_threads_now", lambda: request.param)
    monkeypatch.setattr(rnn_overlap, "_OVERLAP_MIN", 0)
    seen = {"factors": [], "adds": []}
    factors = rnn_lstm.LSTMSequence._factors

    def noting_factors(xp, acts, *rest):
        seen["factors"].append((threading.get_ident(), acts.shape[0]))
        return factors(xp, acts, *rest)

    add = rnn_overlap.LSTMWeightGrads.add

    def noting_add(self, lo, hi):
        seen["adds"].append(threading.get_ident())
        return add(self, lo, hi)

    monkeypatch.setattr(rnn_lstm.LSTMSequence, "_factors", staticmethod(noting_factors))
    monkeypatch.setattr(rnn_overlap.LSTMWeightGrads, "add", noting_add)
    seen["cores"] = request.param
    return seen


def _pair(kwargs, dtype):
    torch.manual_seed(0)
    name = np.dtype(dtype).name
    ref = torch.nn.LSTM(**kwargs).to(getattr(torch, name))
    ours = numtorch.nn.LSTM(**kwargs).to(getattr(numtorch, name))
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    return ref, ours


def _run(lib, m, x, hx=None, lengths=None):
    xt = lib.from_numpy(x.copy()).requires_grad_()
    h = None if hx is None else tuple(lib.from_numpy(s.copy()).requires_grad_() for s in hx)
    inp = xt
    if lengths is not None:
        inp = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=False,
                                                    batch_first=m.batch_first)
    out, state = m(inp, h)
    if lengths is not None:
        out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=m.batch_first)[0]
    got = [out] + list(state)
    us = [np.random.default_rng(k + 11).standard_normal(tuple(g.shape)).astype(x.dtype)
          for k, g in enumerate(got)]
    loss = sum((g * lib.from_numpy(u)).sum() for g, u in zip(got, us))
    loss.backward()
    grads = [xt.grad] + ([] if h is None else [s.grad for s in h]) + [
        p.grad for p in m.parameters()]
    return [g.detach().numpy() for g in got] + [g.numpy() for g in grads]


def _check(kwargs, dtype, shape, hx_shape=None, lengths=None):
    ref, ours = _pair(kwargs, dtype)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(dtype)
    hx = None if hx_shape is None else tuple(
        rng.standard_normal(hx_shape[k]).astype(dtype) for k in range(2))
    want = _run(torch, ref, x, hx, lengths)
    got = _run(numtorch, ours, x, hx, lengths)
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, k
        np.testing.assert_allclose(a, b, err_msg=f"item {k}", **TOL[dtype])


def _factors_on_loop_thread(seen, directions):
    """One factor call per layer direction, for all its steps, on the test's own thread."""
    me = threading.get_ident()
    assert len(seen["factors"]) == directions
    assert all(tid == me for tid, _ in seen["factors"])
    assert seen["adds"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bench_shape_matches_torch(cores, dtype):
    _check({"input_size": 32, "hidden_size": 128, "dropout": 0.0}, dtype, (35, 20, 32))
    _factors_on_loop_thread(cores, 1)
    assert all(steps == 35 for _, steps in cores["factors"])
    if cores["cores"] == 1:  # no worker: one chunk, here
        assert cores["adds"] == [threading.get_ident()]
    else:
        assert len(cores["adds"]) > 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_layers_bidirectional_batch_first(cores, dtype):
    kwargs = {"input_size": 7, "hidden_size": 12, "num_layers": 2, "bidirectional": True,
                  "batch_first": True}
    _check(kwargs, dtype, (5, 13, 7), hx_shape=((4, 5, 12), (4, 5, 12)))
    _factors_on_loop_thread(cores, 4)


def test_wide_input_projected_once(cores):
    # input wider than the state: the projection is one GEMM, not inline
    _check({"input_size": 40, "hidden_size": 9}, np.float64, (17, 3, 40))
    _factors_on_loop_thread(cores, 1)


def test_proj_size(cores):
    _check({"input_size": 6, "hidden_size": 10, "proj_size": 4}, np.float64, (14, 3, 6),
           hx_shape=((1, 3, 4), (1, 3, 10)))
    _factors_on_loop_thread(cores, 1)


@pytest.mark.parametrize("batch_first", [False, True])
def test_packed_sequences(cores, batch_first):
    kwargs = {"input_size": 5, "hidden_size": 8, "bidirectional": True, "batch_first": batch_first}
    shape = (4, 12, 5) if batch_first else (12, 4, 5)
    _check(kwargs, np.float64, shape, lengths=torch.tensor([12, 3, 9, 7]))
    _factors_on_loop_thread(cores, 2)


def test_factors_values_match_a_chunked_call():
    """One call over all steps gives what per-chunk calls gave (the old two-core split)."""
    rng = np.random.default_rng(0)
    steps, n, b = 9, 4, 3
    acts = np.tanh(rng.standard_normal((steps, 4 * n, b))).astype(np.float32)
    acts[:, :3 * n] = (acts[:, :3 * n] + 1) / 2
    cs = rng.standard_normal((steps + 1, n, b)).astype(np.float32)
    tcs = np.tanh(cs[1:])
    whole = np.empty_like(acts), np.empty_like(tcs)
    parts = np.empty_like(acts), np.empty_like(tcs)
    rnn_lstm.LSTMSequence._factors(np, acts, cs[:-1], tcs, *whole)
    for lo, hi in ((6, 9), (0, 6)):
        rnn_lstm.LSTMSequence._factors(np, acts[lo:hi], cs[lo:hi], tcs[lo:hi],
                                       parts[0][lo:hi], parts[1][lo:hi])
    np.testing.assert_array_equal(whole[0], parts[0])
    np.testing.assert_array_equal(whole[1], parts[1])
    # the factors themselves, in torch's gate order [i f g o], from their definitions
    i, f, o, g = (acts[:, k * n:(k + 1) * n] for k in range(4))
    want = np.concatenate([i * (1 - i) * g, f * (1 - f) * cs[:-1], (1 - g * g) * i,
                           o * (1 - o) * tcs], axis=1)
    np.testing.assert_allclose(whole[0], want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(whole[1], o * (1 - tcs * tcs), rtol=1e-6, atol=1e-7)
