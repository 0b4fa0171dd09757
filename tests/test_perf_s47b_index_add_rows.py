"""Session 47 (perf2): ``index_add_rows``' zero-padded block is laid out by rank (reduced over
its first axis) and, when every bucket is used, returned as the result: the embedding weight
gradient stays bit for bit torch's (each row's values added in their original order), and
the backend function matches a sequential reference sum, also for negative or unused
indices and the short-bucket path."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _numpy as nb_backend


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


# (vocabulary, index shape, width): few long buckets (padded block, every bucket used or
# not), many short buckets with a few long ones (the short-bucket block), tiny widths
_CASES = {
    "nanogpt_chars": (65, (12, 64), 128),
    "unused_rows": (200, (4, 64), 32),
    "minigpt_like": (65, (16, 128), 48),
    "long_and_short": (300, (700,), 24),
    "narrow": (10, (50,), 3),
    "single_bucket": (5, (40,), 16),
}


@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_weight_grad_bits_match_torch(case, dtype):
    vocab, shape, width = _CASES[case]
    rng = np.random.default_rng(len(case))
    idx = rng.integers(0, vocab, shape)
    if case == "long_and_short":
        idx[:100] = 7  # one bucket past the short-bucket limit
    if case == "single_bucket":
        idx[:] = 3
    g = rng.standard_normal(shape + (width,)).astype(dtype)
    w = rng.standard_normal((vocab, width)).astype(dtype)
    grads = []
    for lib in (torch, numtorch):
        weight = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.embedding(lib.tensor(idx), weight)
        y.backward(lib.tensor(g))
        grads.append(weight.grad.numpy())
    assert grads[0].dtype == grads[1].dtype
    np.testing.assert_array_equal(_bits(grads[0]), _bits(grads[1]))


def _reference(n_rows, index, values):
    out = np.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    seen = np.zeros(n_rows, dtype=bool)
    for i, r in enumerate(index.tolist()):
        if seen[r]:
            out[r] = out[r] + values[i]
        else:
            out[r] = values[i]
            seen[r] = True
    return out


@pytest.mark.parametrize("kind", ["all_used", "some_unused", "negative", "uint", "short"])
def test_index_add_rows_matches_sequential_sum(kind):
    rng = np.random.default_rng(3)
    n_rows, n, width = 20, 400, 16
    index = rng.integers(0, n_rows, n)
    if kind == "some_unused":
        index[index == 4] = 5
        index[index == 19] = 0
    if kind == "negative":
        index = index - n_rows  # every row through its negative index (counts fail)
    if kind == "uint":
        index = index.astype(np.uint32)
    if kind == "short":
        n_rows = 150  # many short buckets and one long: _segment_sums' padded block
        index = rng.integers(0, n_rows, n)
        index[::5] = 11
    values = rng.standard_normal((n, width)).astype(np.float32)
    got = nb_backend.index_add_rows(n_rows, index, values)
    want = _reference(n_rows, index, values)
    assert got.shape == want.shape and got.dtype == want.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_index_add_rows_out_of_range_still_raises():
    values = np.ones((40, 16), dtype=np.float32)
    index = np.arange(40) % 9 + 1  # 9 distinct rows, the last one past a 9-row table
    with pytest.raises(IndexError):
        nb_backend.index_add_rows(9, index, values)
