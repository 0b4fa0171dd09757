"""The LSTM and GRU sequence ops with their per-step GEMMs split into row blocks
(ops/rnn_sequence_base.py ``_row_blocks``, taken on one BLAS thread with OpenBLAS's
small-matrix kernels), forced here on any machine, against torch: values and gradients with
random cotangents for the layer options that reach the split loops (sizes above 100^3
multiply-adds per step)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import rnn_sequence_base


@pytest.fixture(params=[True, False], ids=["blocks", "whole"])
def split(request, monkeypatch):
    monkeypatch.setattr(rnn_sequence_base, "small_gemm_kernels", lambda: request.param)
    monkeypatch.setattr(rnn_sequence_base, "blas_threads_now", lambda: 1)
    return request.param


def _pair(kwargs, seed=0, kind="LSTM"):
    torch.manual_seed(seed)
    ref = getattr(torch.nn, kind)(**kwargs).double()
    ours = getattr(numtorch.nn, kind)(**kwargs).double()
    ours.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                          for k, v in ref.state_dict().items()})
    return ref, ours


def _compare(ref, ours, x, hx=None, lengths=None):
    rng = np.random.default_rng(1)
    outs = []
    for lib, m in ((torch, ref), (numtorch, ours)):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        h = None if hx is None else tuple(lib.from_numpy(s.copy()).requires_grad_() for s in hx)
        lstm = isinstance(m, lib.nn.LSTM)
        inp = xt
        if lengths is not None:
            inp = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=False)
        out, state = m(inp, h if lstm or h is None else h[0])
        if lengths is not None:
            out = lib.nn.utils.rnn.pad_packed_sequence(out)[0]
        got = [out] + (list(state) if lstm else [state])
        us = [np.random.default_rng(k).standard_normal(tuple(g.shape)) for k, g in
              enumerate(got)]
        loss = sum((g * lib.from_numpy(u)).sum() for g, u in zip(got, us))
        loss.backward()
        grads = [xt.grad] + ([] if h is None else [s.grad for s in h[:1 + lstm]]) + [
            p.grad for p in m.parameters()]
        outs.append([g.detach().numpy() for g in got] + [g.numpy() for g in grads])
    del rng
    for k, (a, b) in enumerate(zip(*outs)):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10, err_msg=f"item {k}")


@pytest.mark.parametrize("kwargs", [
    dict(input_size=32, hidden_size=128),
    dict(input_size=200, hidden_size=128, num_layers=2, bidirectional=True),
    dict(input_size=32, hidden_size=160, proj_size=100),
])
def test_lstm_blocks_match_torch(split, kwargs):
    ref, ours = _pair(kwargs)
    x = np.random.default_rng(2).standard_normal((6, 20, kwargs["input_size"]))
    _compare(ref, ours, x)


def test_lstm_blocks_with_state_and_packed(split):
    ref, ours = _pair(dict(input_size=32, hidden_size=128, bidirectional=True))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 20, 32))
    hx = (rng.standard_normal((2, 20, 128)), rng.standard_normal((2, 20, 128)))
    _compare(ref, ours, x, hx)
    lengths = rng.integers(1, 8, 20)
    lengths[0] = 7
    _compare(ref, ours, x, hx, lengths=torch.from_numpy(lengths))


@pytest.mark.parametrize("kwargs", [
    dict(input_size=16, hidden_size=200),
    dict(input_size=16, hidden_size=200, bias=False, bidirectional=True),
])
def test_gru_blocks_match_torch(split, kwargs):
    ref, ours = _pair(kwargs, kind="GRU")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 20, 16))
    _compare(ref, ours, x)
    dirs = 2 if kwargs.get("bidirectional") else 1
    hx = (rng.standard_normal((dirs, 20, 200)),)
    lengths = rng.integers(1, 6, 20)
    lengths[0] = 5
    _compare(ref, ours, x, hx, lengths=torch.from_numpy(lengths))


def test_blocks_cover_the_rows_below_the_kernel_limit(monkeypatch):
    monkeypatch.setattr(rnn_sequence_base, "small_gemm_kernels", lambda: True)
    monkeypatch.setattr(rnn_sequence_base, "blas_threads_now", lambda: 1)
    like = np.zeros(1, np.float32)
    assert rnn_sequence_base._row_blocks(like, 256, 100, 20) is None
    blocks = rnn_sequence_base._row_blocks(like, 512, 161, 20)
    assert blocks == [(0, 256), (256, 512)]
    blocks = rnn_sequence_base._row_blocks(like, 1000, 300, 20)
    assert blocks[0][0] == 0 and blocks[-1][1] == 1000
    assert all(hi - lo > 0 and (hi - lo) * 300 * 20 <= 1_000_000 for lo, hi in blocks)
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    monkeypatch.setattr(rnn_sequence_base, "blas_threads_now", lambda: 2)
    assert rnn_sequence_base._row_blocks(like, 512, 161, 20) is None
