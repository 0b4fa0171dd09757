"""``retain_grad()`` on a tensor later written in place: ``.grad`` holds the gradient of the
tensor's final value, as in torch (the retaining hook follows the tensor to its new node),
for direct writes, writes through views and several writes in a row; the metadata-only
in-place ops (``t_``, ``unsqueeze_``) leave it where it was, as torch's do."""

import numpy as np
import pytest
import torch

import numtorch

PROGRAMS = {
    "mul_": lambda L, y: y.mul_(3),
    "view_mul_": lambda L, y: y.view(-1).mul_(3),
    "row_mul_": lambda L, y: y[0].mul_(3),
    "two_writes": lambda L, y: (y.add_(1), y.mul_(2)),
    "t_": lambda L, y: y.t_(),
    "squeeze_": lambda L, y: y.unsqueeze_(0),
    "masked_fill_": lambda L, y: y.masked_fill_(y > 2.5, 0.0),
}


def _run(lib, name, seed):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((2, 3)) + 2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    w = y * 5  # an earlier reader of y's old value
    PROGRAMS[name](lib, y)
    ct = lib.tensor(rng.standard_normal(tuple(y.shape)))
    ((y * ct).sum() + w.sum()).backward()
    return y.grad.tolist(), x.grad.tolist()


@pytest.mark.parametrize("name", list(PROGRAMS))
@pytest.mark.parametrize("seed", [0, 1])
def test_retained_grad_is_the_final_values(name, seed):
    assert _run(numtorch, name, seed) == _run(torch, name, seed)


def test_retained_grad_without_a_write_is_unchanged():
    for lib in (numtorch, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward()
        assert y.grad.tolist() == [4.0, 4.0, 4.0]
