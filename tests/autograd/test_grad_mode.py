"""no_grad / enable_grad / set_grad_enabled / inference_mode, as context managers and
decorators (including generators and threads)."""

import threading

import pytest

import numtorch as torch


def test_no_grad_context():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = x * 2
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None


def test_no_grad_decorator_with_and_without_parentheses():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def f(a):
        return a * 2

    @torch.no_grad
    def g(a):
        return a * 3

    assert not f(x).requires_grad
    assert not g(x).requires_grad
    assert torch.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = torch.ones(2, requires_grad=True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)

    @torch.set_grad_enabled(False)
    def f():
        return (x * 2).requires_grad

    assert torch.is_grad_enabled()
    assert f() is False
    assert torch.is_grad_enabled()
    with pytest.raises(TypeError):
        torch.set_grad_enabled("yes")


def test_inference_mode():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode(False):
        assert (x * 2).requires_grad

    @torch.inference_mode()
    def f():
        return (x * 2).requires_grad

    assert f() is False


def test_no_grad_restores_mode_after_exception():
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError("boom")
    assert torch.is_grad_enabled()


def test_no_grad_on_generator_function():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def gen():
        for _ in range(2):
            yield (x * 2).requires_grad

    assert list(gen()) == [False, False]
    assert torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(torch.is_grad_enabled())

    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == [True]


def test_autograd_namespace_exports():
    assert torch.autograd.no_grad is torch.no_grad
    assert torch.autograd.grad_mode.set_grad_enabled is torch.set_grad_enabled
