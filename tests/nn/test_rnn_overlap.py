"""The LSTM backward with its side work on a second thread (ops/rnn_overlap.py:
the gate factors of the coming steps and the weight gradients of the finished ones, time in
chunks), forced here on any machine, against torch: values and all gradients for the layer
options that reach it (inline and projected input, two layers, both directions, projection,
initial state, packed sequences with their mask)."""

import threading
import time

import numpy as np
import pytest
import torch

import numtorch

from numtorch.ops import rnn_lstm, rnn_overlap
from tests.nn.test_rnn_gemm_blocks import _compare, _pair


@pytest.fixture
def overlap(monkeypatch, device):
    monkeypatch.setattr(rnn_overlap, "blas_threads_now", lambda: 2)
    monkeypatch.setattr(rnn_overlap, "_OVERLAP_MIN", 0)
    calls = []
    spans = rnn_overlap.spans
    monkeypatch.setattr(rnn_lstm, "spans",
                        lambda steps, worker: calls.append(worker) or spans(steps, worker))
    yield
    if device == "cpu":  # every backward went through it (not the GPU's: one stream)
        assert calls and all(w is not None for w in calls)


@pytest.mark.parametrize("kwargs", [
    dict(input_size=3, hidden_size=5),
    dict(input_size=7, hidden_size=4, num_layers=2, bidirectional=True),
    dict(input_size=3, hidden_size=6, proj_size=2),
])
def test_overlapped_backward_matches_torch(overlap, kwargs):
    ref, ours = _pair(kwargs)
    x = np.random.default_rng(2).standard_normal((11, 3, kwargs["input_size"]))
    _compare(ref, ours, x)


def test_overlapped_backward_with_state_and_packed(overlap):
    ref, ours = _pair(dict(input_size=3, hidden_size=5, bidirectional=True))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((9, 4, 3))
    hx = (rng.standard_normal((2, 4, 5)), rng.standard_normal((2, 4, 5)))
    _compare(ref, ours, x, hx)
    _compare(ref, ours, x, hx, lengths=torch.tensor([9, 2, 8, 5]))


def test_chunks_cover_the_steps():
    assert rnn_overlap.spans(35, None) == [(0, 35)]
    spans = rnn_overlap.spans(35, object())
    assert spans[0][1] == 35 and spans[-1][0] == 0
    assert all(a[0] == b[1] and a[1] - a[0] >= 4 for a, b in zip(spans, spans[1:]))


def _grads(m, x):
    m.zero_grad()
    xt = numtorch.from_numpy(x.copy()).requires_grad_()
    out, (h, c) = m(xt)
    (out * 0.5 + 0).sum().backward()
    return [xt.grad.numpy().copy()] + [p.grad.numpy().copy() for p in m.parameters()]


def test_main_thread_takes_the_chunks_the_worker_has_not_started(overlap, monkeypatch, device):
    """When the recurrence ends before the worker's queue, the calling thread runs the chunks
    not started yet; the sums take the chunks in one fixed order, so the gradients are the
    same bits whichever thread made which chunk (all on the worker, or all stolen), and equal
    torch's."""
    ref, ours = _pair(dict(input_size=3, hidden_size=5, num_layers=2, bidirectional=True))
    x = np.random.default_rng(4).standard_normal((24, 2, 3))
    add, finish, where = rnn_overlap.LSTMWeightGrads.add, rnn_lstm.finish, []

    def add_noting_thread(self, lo, hi):
        on_worker = threading.current_thread() is not threading.main_thread()
        where.append(on_worker)
        if on_worker and slow_worker:
            time.sleep(0.01)
        add(self, lo, hi)

    def late_finish(pending, fn):
        time.sleep(0.05)  # the worker has the time to run its whole queue
        finish(pending, fn)
    monkeypatch.setattr(rnn_overlap.LSTMWeightGrads, "add", add_noting_thread)
    runs = []
    for slow_worker, fin in ((True, finish), (False, late_finish)):
        monkeypatch.setattr(rnn_lstm, "finish", fin)
        where.clear()
        runs.append(_grads(ours, x))
        if device == "cpu":  # stolen, then all on the worker
            assert where and all(w is not slow_worker for w in where[-2:])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    ours.zero_grad()
    _compare(ref, ours, x)
