"""Tensor.register_post_accumulate_grad_hook (what DDP's gradient hooks stand on), vs torch."""

import pytest
import torch

import numtorch


def _trace(lib):
    w = lib.ones(2, requires_grad=True)
    calls = []
    h = w.register_post_accumulate_grad_hook(lambda p: calls.append((p is w, p.grad.tolist())))
    (w * 3).sum().backward()
    (w * w).sum().backward()
    lib.autograd.grad((w * 2).sum(), w)  # autograd.grad accumulates nothing: no call
    v = lib.ones(2, requires_grad=True)
    v.register_post_accumulate_grad_hook(lambda p: calls.append(("v", p.grad.tolist())))
    (v * 2 + v * 3).sum().backward()  # used twice: one call, after the full sum
    h.remove()
    (w * 3).sum().backward()
    return calls


def test_calls_match_torch():
    assert _trace(numtorch) == _trace(torch)


@pytest.mark.parametrize("case", ["non_leaf", "no_grad"])
def test_errors_match_torch(case):
    def err(lib):
        t = lib.ones(2, requires_grad=True) * 2 if case == "non_leaf" else lib.ones(2)
        with pytest.raises(RuntimeError) as info:
            t.register_post_accumulate_grad_hook(print)
        return str(info.value)

    assert err(numtorch) == err(torch)
