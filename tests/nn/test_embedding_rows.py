"""Embedding weight gradients against torch where every row is looked up at most once (the
position-embedding case, a plain write) and where rows repeat (sorted segment sums)."""

import numpy as np
import pytest

from tests.oracle import same

CASES = [
    ("arange", lambda t: t.arange(6)),
    ("permuted-unique", lambda t: t.tensor([[4, 0], [2, 5]])),
    ("unique-some-rows", lambda t: t.tensor([7, 1, 3])),
    ("repeated", lambda t: t.tensor([[1, 1, 3], [0, 3, 3]])),
    ("one-index", lambda t: t.tensor([2])),
]


@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("case,indices", CASES, ids=[c[0] for c in CASES])
def test_weight_gradient(case, indices, padding_idx):
    def f(t):
        w = t.from_numpy(np.linspace(-1, 1, 8 * 3, dtype=np.float32).reshape(8, 3))
        w.requires_grad_()
        idx = indices(t)
        y = t.nn.functional.embedding(idx, w, padding_idx=padding_idx)
        g = t.from_numpy(np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(y.shape))
        (y * g).sum().backward()
        return w.grad

    same(f)


def test_gather_backward_unique_rows():
    """x[int_tensor] along dim 0 shares the row sums (IndexAccumulate)."""
    def f(t):
        x = t.arange(15.0).reshape(5, 3).requires_grad_()
        y = x[t.tensor([3, -1, 0])]
        (y * t.arange(9.0).reshape(3, 3)).sum().backward()
        return x.grad

    same(f)
