"""Views made under ``no_grad`` of a tensor that requires grad (a leaf or a graph output): torch
reports them as requiring grad through their base, sends no gradient into them, and refuses to
use them in autograd once their memory was written (the base, the view or a sibling view,
under no_grad or not). Each case runs in numtorch and torch (``same``)."""

import re

import pytest

from tests.oracle import same


def _leaf(t):
    return t.arange(12.0).reshape(3, 4).requires_grad_()


def _graph(t):
    return _leaf(t) * 1


def _plain(t):
    return t.arange(12.0).reshape(3, 4)


def _suffix(v):
    return re.findall(r"grad_fn=<\w+>|requires_grad=True", repr(v))


def _views():
    """(name, fn(x) -> a view of x), each made under no_grad by the cases below."""
    return [
        ("slice", lambda x: x[:2]),
        ("select", lambda x: x[1]),
        ("view", lambda x: x.view(12)),
        ("t", lambda x: x.t()),
        ("unsqueeze", lambda x: x.unsqueeze(0)),
        ("view-of-view", lambda x: x[1:].view(8)),
    ]


def _writes():
    """(name, fn(t, base, view, sibling)): how the memory changes after the view was made."""
    def base_grad_mode(t, base, view, sib):
        if base.grad_fn is None:  # a leaf is written under no_grad (torch refuses otherwise)
            with t.no_grad():
                base.mul_(2)
        else:
            base.mul_(2)

    def base_no_grad(t, base, view, sib):
        with t.no_grad():
            base.add_(1)

    def view_no_grad(t, base, view, sib):
        with t.no_grad():
            view.mul_(3)

    def sibling_no_grad(t, base, view, sib):
        with t.no_grad():
            sib.zero_()

    def base_detached(t, base, view, sib):
        base.detach().add_(1)

    def none(t, base, view, sib):
        pass

    return [base_grad_mode, base_no_grad, view_no_grad, sibling_no_grad, base_detached, none]


def _uses():
    return [
        ("times-two", lambda t, v: v * 2),
        ("sum", lambda t, v: v.sum()),
        ("clone", lambda t, v: v.clone()),
        ("grad_fn", lambda t, v: v.grad_fn),
        ("is_leaf", lambda t, v: v.is_leaf),
        ("requires_grad", lambda t, v: v.requires_grad),
        ("inplace", lambda t, v: v.mul_(2)),
        ("view-in-grad-mode", lambda t, v: v.view(-1) * 1 if v.is_contiguous() else v.t() * 1),
        # allowed whatever the version
        ("detach", lambda t, v: v.detach()),
        ("tolist", lambda t, v: v.tolist()),
        ("repr", lambda t, v: _suffix(v)),
        ("no-grad-use", lambda t, v: _no_grad(t, lambda: v * 2)),
    ]


def _no_grad(t, fn):
    with t.no_grad():
        return fn()


@pytest.mark.parametrize("use", _uses(), ids=lambda u: u[0])
@pytest.mark.parametrize("write", _writes(), ids=lambda f: f.__name__)
@pytest.mark.parametrize("make", [_leaf, _graph, _plain], ids=lambda f: f.__name__[1:])
def test_no_grad_view_after_a_write(make, write, use):
    def f(t):
        base = make(t)
        with t.no_grad():
            v = base[:2]
            sib = base[2]
        write(t, base, v, sib)
        return use[1](t, v)

    same(f)


@pytest.mark.parametrize("view", _views(), ids=lambda v: v[0])
@pytest.mark.parametrize("make", [_leaf, _graph], ids=lambda f: f.__name__[1:])
def test_each_view_kind_is_refused_after_the_base_changed(make, view):
    def f(t):
        base = make(t)
        with t.no_grad():
            v = view[1](base)
        with t.no_grad():
            base.add_(1)
        return v * 1

    same(f)


@pytest.mark.parametrize("make", [_leaf, _graph], ids=lambda f: f.__name__[1:])
def test_gradient_sent_into_a_no_grad_view_goes_nowhere(make):
    def f(t):
        base = make(t)
        with t.no_grad():
            v = base[:2]
        y = (v * t.arange(1.0, 9.0).reshape(2, 4)).sum()
        y.backward()
        leaf = base if base.grad_fn is None else None
        return (y, v.grad, v.is_leaf, v.requires_grad, leaf.grad if leaf is not None else None,
                [n is None for n, _ in y.grad_fn.next_functions[0][0].next_functions])

    same(f)


def test_autograd_grad_with_respect_to_a_no_grad_view():
    def f(t):
        base = _leaf(t)
        with t.no_grad():
            v = base[:2]
        y = (v * 2).sum()
        unused = t.autograd.grad(y, v, allow_unused=True, retain_graph=True)
        try:
            t.autograd.grad(y, v)
        except RuntimeError as e:
            return unused, str(e)

    same(f)


def test_view_made_in_grad_mode_of_a_no_grad_view():
    """A view of a no_grad view, made with grad mode on, has a node of its own; torch names it
    in its refusals ('a view of a view')."""
    def f(t):
        base = _leaf(t)
        with t.no_grad():
            v = base[:2]
        w = v[:1]
        out = [w.grad_fn.name(), w.requires_grad]
        (w * 3).sum().backward()
        out.append((base.grad, v.grad))
        try:
            w.mul_(2)
        except RuntimeError as e:
            out.append(str(e))
        with t.no_grad():
            base.mul_(2)
        for use in (lambda: w * 1, lambda: w.grad_fn, lambda: w.view(-1)):
            try:
                out.append(use())
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(f)


def test_view_of_a_stale_no_grad_view_made_in_grad_mode():
    def f(t):
        base = _graph(t)
        with t.no_grad():
            v = base.view(12)
            base.add_(1)
        return v[:3] * 1

    same(f)


def test_requires_grad_follows_the_base():
    """The view asks its base each time: a base that starts to require grad later takes its
    no_grad views along (and the write before then counts)."""
    def f(t):
        base = _plain(t)
        with t.no_grad():
            v = base[1:]
        before = v.requires_grad
        base.requires_grad_()
        after = v.requires_grad
        with t.no_grad():
            base.add_(1)
        try:
            r = v * 1
        except RuntimeError as e:
            r = str(e)
        return before, after, r

    same(f)


def test_no_grad_view_made_a_leaf_of_its_own():
    """requires_grad_() on a no_grad view of plain data makes it a leaf that gets .grad."""
    def f(t):
        base = _plain(t)
        with t.no_grad():
            v = base[:2]
        v.requires_grad_()
        (v * t.arange(8.0).reshape(2, 4)).sum().backward()
        base.add_(1)  # plain data: no refusal
        return v.grad, v.is_leaf, v.grad_fn, (v * 1).grad_fn.name()

    same(f)


def test_writes_inside_no_grad_and_use_of_the_base_stay_allowed():
    """The recommended ways out: write and use both inside no_grad, or use the base."""
    def f(t):
        x = _leaf(t)
        y = x * 1
        with t.no_grad():
            v = y[:2]
            v.mul_(2)
            inside = v * 3
        z = (y * y).sum()
        z.backward()
        return inside, z, x.grad

    same(f)
