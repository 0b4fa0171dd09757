"""Tensor hooks, retain_grad, and node hooks against torch."""

import pytest
import torch

import numtorch
from tests.oracle import same


def test_hook_on_leaf_modifies_gradient():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 10)
        (x * x).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_hook_on_nonleaf_changes_upstream_gradient():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g + 1)
        (y * y).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_hook_sees_gradient_and_returning_none_keeps_it():
    seen = []
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 4).sum().backward()
    assert seen == [[4.0, 4.0]] and x.grad.tolist() == [4.0, 4.0]


def test_hook_handle_remove():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(lambda g: g * 100)
        h.remove()
        (x * 2).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_hooks_run_for_autograd_grad_too():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 2)
        return t.autograd.grad((x * x).sum(), x)
    same(f, rtol=1e-4, atol=1e-6)


def test_retain_grad_on_nonleaf():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = y * y
        z.retain_grad()
        z.sum().backward()
        return [y.grad, z.grad, x.grad]
    same(f, rtol=1e-4, atol=1e-6)
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad


def test_hook_on_tensor_without_grad_raises():
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError):
            lib.ones(2).register_hook(lambda g: g)


def test_retain_grad_accumulates_across_backwards():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward()
        return y.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_node_hook_sees_grad_inputs_and_outputs():
    calls = []
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gin, gout: calls.append((len(gin), len(gout))))
    y.sum().backward()
    assert calls == [(2, 1)]
    same(lambda t: [t.tensor([1.0]).requires_grad_()])
