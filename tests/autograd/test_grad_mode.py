"""no_grad / enable_grad / set_grad_enabled / inference_mode, as context managers and
decorators (including generators and threads)."""

import threading
import warnings

import pytest
import torch as real_torch

import numtorch
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


def _grad_mode_script(torch):
    """Grad-mode switches used as functions, context managers and decorators (either library)."""
    out = []

    @torch.set_grad_enabled(False)
    def f():
        return torch.is_grad_enabled()

    out.append(("set_grad_enabled decorator", torch.is_grad_enabled(), f(),
                torch.is_grad_enabled()))

    @torch.no_grad()
    def g():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    it = g()
    out.append(("generator", next(it), torch.is_grad_enabled(), next(it)))

    @torch.enable_grad()
    def h():
        return torch.is_grad_enabled()

    with torch.no_grad():
        out.append(("enable_grad decorator", h(), torch.is_grad_enabled()))
    torch.set_grad_enabled(False)
    out.append(("set_grad_enabled call", torch.is_grad_enabled()))
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        out.append(("set_grad_enabled block", torch.is_grad_enabled()))
    out.append(("after", torch.is_grad_enabled()))

    @torch.no_grad()
    class C:
        def __init__(self):
            self.grad = torch.is_grad_enabled()

    out.append(("class decorator", C().grad, torch.is_grad_enabled()))
    try:
        torch.set_grad_enabled(1)
    except TypeError as e:
        out.append(("set_grad_enabled(1)", str(e)))

    @torch.no_grad
    def k():
        return torch.is_grad_enabled()

    out.append(("bare no_grad decorator", k()))
    with torch.inference_mode(mode=False):
        out.append(("inference_mode(mode=False)", torch.is_inference_mode_enabled(),
                    torch.is_grad_enabled()))
    out.append(("inference_mode clone", type(torch.inference_mode().clone()).__name__))
    out.append(("anomaly", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        out.append(("set_detect_anomaly", torch.is_anomaly_enabled(),
                    torch.is_anomaly_check_nan_enabled()))
    out.append(("anomaly after", torch.is_anomaly_enabled()))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            out.append(("detect_anomaly", torch.is_anomaly_enabled()))
        out.append(("detect_anomaly warns", [str(x.message) for x in w]))
    try:
        torch.autograd.set_detect_anomaly(True)(lambda: None)
    except TypeError as e:  # not a decorator in torch either
        out.append(("set_detect_anomaly decorator", str(e)))
    torch.autograd.set_detect_anomaly(False)
    return out


def test_grad_mode_switches_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert _grad_mode_script(numtorch) == _grad_mode_script(real_torch)
