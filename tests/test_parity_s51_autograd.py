"""Session 51 parity tests of autograd (saved-tensor hooks, graph introspection, ...): each
case runs the same user code under real torch and under numtorch and compares values, dtypes,
shapes and exceptions at test time."""

from importlib import import_module

import torch

import numtorch
from tests._compare_user_code import check


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    check(fn, rtol, atol, msg, grad_flags=True)


def _graph(lib):
    return import_module(lib.__name__ + ".autograd.graph")


# -- disable_saved_tensors_hooks entered while saved-tensor hooks are active -------------------
def _disable_inside(lib, case):
    g = _graph(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    steps = []
    try:
        if case == "hooks":
            with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                with g.disable_saved_tensors_hooks("no hooks in here"):
                    steps.append(1)
        elif case == "save_on_cpu":
            with g.save_on_cpu():
                with g.disable_saved_tensors_hooks("no cpu offload"):
                    steps.append(2)
        else:  # the other nesting is refused when the hooks are entered
            with g.disable_saved_tensors_hooks("refused later"):
                with g.saved_tensors_hooks(lambda t: t, lambda t: t):
                    steps.append(3)
    except RuntimeError as e:
        steps.append(str(e))
    # hooks work again afterwards
    with g.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        y = (x * x).sum()
    y.backward()
    return steps, x.grad


def test_disable_saved_tensors_hooks_inside_active_hooks():
    for case in ("hooks", "save_on_cpu", "outer"):
        _check(lambda lib, case=case: _disable_inside(lib, case))


# -- graph introspection: only torch's saved attributes carry the "_saved_" prefix ------------
def _saved_names(lib, expr):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = eval(expr, {"x": x, "torch": lib})
    fn = y.grad_fn
    # what torchviz reads with show_attrs: every "_saved_" attribute; none may be a method
    return sorted(a for a in dir(fn) if a.startswith("_saved_") and callable(getattr(fn, a)))


def test_grad_fn_saved_attributes_are_not_methods():
    for expr in ("x * 2", "x.sin()", "x + 1", "x.pow(2)", "x.sum()"):
        _check(lambda lib, expr=expr: _saved_names(lib, expr))
