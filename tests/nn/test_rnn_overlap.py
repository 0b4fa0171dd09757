"""The LSTM backward with its side work on a second thread (ops/rnn_overlap.py:
the gate factors of the coming steps and the weight gradients of the finished ones, time in
chunks), forced here on any machine, against torch: values and all gradients for the layer
options that reach it (inline and projected input, two layers, both directions, projection,
initial state, packed sequences with their mask)."""

import numpy as np
import pytest
import torch

from numtorch.ops import rnn_overlap, rnn_sequence
from tests.nn.test_rnn_gemm_blocks import _compare, _pair


@pytest.fixture
def overlap(monkeypatch, device):
    monkeypatch.setattr(rnn_overlap, "blas_threads_now", lambda: 2)
    monkeypatch.setattr(rnn_overlap, "_OVERLAP_MIN", 0)
    calls = []
    spans = rnn_overlap.spans
    monkeypatch.setattr(rnn_sequence, "spans",
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
