"""word_language_model's RNNModel shape (embedding -> 2-layer LSTM / GRU / RNN_TANH / RNN_RELU
-> linear decoder -> cross entropy over 35 x 20 tokens, dropout 0) against torch: the loss,
the final hidden state and the gradient of every weight, including the embedding's (its
segment sums, with word-like repeated tokens), with the LSTM's two-core path forced or not."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import rnn_overlap


def _model(lib, kind, vocab, emsize, nhid):
    lib.manual_seed(0)
    enc = lib.nn.Embedding(vocab, emsize)
    if kind in ("LSTM", "GRU"):
        rnn = getattr(lib.nn, kind)(emsize, nhid, 2, dropout=0.0)
    else:
        rnn = lib.nn.RNN(emsize, nhid, 2, nonlinearity=kind[4:].lower(), dropout=0.0)
    dec = lib.nn.Linear(nhid, vocab)
    return lib.nn.ModuleList([enc, rnn, dec])


def _step(lib, model, tokens, targets, hidden):
    enc, rnn, dec = model
    out, h = rnn(enc(lib.from_numpy(tokens)), hidden)
    logits = dec(out).reshape(-1, dec.out_features)
    loss = lib.nn.functional.cross_entropy(logits, lib.from_numpy(targets).reshape(-1))
    loss.backward()
    h = h if isinstance(h, tuple) else (h,)
    return [loss.detach().numpy()] + [s.detach().numpy() for s in h] + [
        p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("two_cores", [False, True], ids=["one_core", "two_cores"])
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_word_language_model_step_matches_torch(kind, two_cores, monkeypatch):
    if two_cores:
        monkeypatch.setattr(rnn_overlap, "blas_threads_now", lambda: 2)
        monkeypatch.setattr(rnn_overlap, "_OVERLAP_MIN", 0)
    vocab, emsize, nhid = 97, 24, 20
    ref = _model(torch, kind, vocab, emsize, nhid)
    ours = _model(numtorch, kind, vocab, emsize, nhid)
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    rng = np.random.default_rng(5)
    # word-like tokens: a few frequent ones (more than 32 of some), many rare
    stream = np.minimum(rng.zipf(1.4, 36 * 20) - 1, vocab - 1).reshape(36, 20)
    tokens, targets = stream[:-1].copy(), stream[1:].copy()
    shape = (2, 20, nhid)
    states = [rng.standard_normal(shape).astype(np.float32) * 0.5
              for _ in range(2 if kind == "LSTM" else 1)]
    hid = {lib: tuple(lib.from_numpy(s.copy()) for s in states) for lib in (torch, numtorch)}
    if kind != "LSTM":
        hid = {lib: h[0] for lib, h in hid.items()}
    a = _step(torch, ref, tokens, targets, hid[torch])
    b = _step(numtorch, ours, tokens, targets, hid[numtorch])
    assert len(a) == len(b)
    for k, (u, v) in enumerate(zip(a, b)):
        assert v.dtype == u.dtype and v.shape == u.shape, k
        np.testing.assert_allclose(v, u, rtol=2e-4, atol=2e-6, err_msg=f"item {k}")
