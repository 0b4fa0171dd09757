"""Pieces of split / chunk / unbind / iteration after their memory changed without going
through autograd's in-place path (a write under no_grad, through ``.detach()``): torch checks a
multi-output view's version, not only its base's history, and refuses to use the piece in a
graph afterwards; reading it stays allowed. Each case runs in numtorch and torch (``same``)."""

import re

import pytest

from tests.oracle import same


def _graph_base(t):
    return t.arange(24.0).reshape(4, 6).requires_grad_() * 1


def _uses():
    """What a program may do with a piece ``p`` after the write: (name, fn(t, p))."""
    return [
        ("times-one", lambda t, p: (p * 1).sum()),
        ("grad_fn", lambda t, p: p.grad_fn),
        ("is_leaf", lambda t, p: p.is_leaf),
        ("requires_grad", lambda t, p: p.requires_grad),
        ("clone", lambda t, p: p.clone()),
        ("sum-item", lambda t, p: p.sum().item()),
        ("view-of-it", lambda t, p: p.view(-1) if p.is_contiguous() else p.t()),
        ("retain_grad", lambda t, p: p.retain_grad()),
        ("register_hook", lambda t, p: p.register_hook(lambda g: g) and None),
        ("inplace-on-it", lambda t, p: p.mul_(2)),
        # allowed in torch whatever the version
        ("detach", lambda t, p: p.detach()),
        ("tolist", lambda t, p: p.tolist()),
        ("numpy", lambda t, p: p.detach().numpy().tolist()),
        ("repr", lambda t, p: _suffix(p)),
        ("version-nr-shape", lambda t, p: (p._version, p.output_nr, tuple(p.shape))),
        ("no-grad-use", lambda t, p: _no_grad(t, lambda: (p * 1).sum())),
    ]


def _suffix(p):
    """The autograd part of ``repr(p)`` (the rest is the printer's, and names the device)."""
    return re.findall(r"grad_fn=<\w+>|requires_grad=True", repr(p))


def _no_grad(t, fn):
    with t.no_grad():
        return fn()


def _writes():
    """(name, fn(t) -> (the pieces, the tensor written)): how the memory changes."""
    def base_no_grad(t):
        y = _graph_base(t)
        ps = y.split(3, dim=1)
        with t.no_grad():
            y.mul_(2)
        return ps

    def base_detached(t):
        y = _graph_base(t)
        ps = y.split([2, 4], 1)
        y.detach().mul_(2)
        return ps

    def piece_detached(t):
        ps = (_graph_base(t) * 1).chunk(2)
        ps[0].detach().mul_(3)
        return ps

    def piece_no_grad(t):
        ps = _graph_base(t).split(2, 1)
        with t.no_grad():
            ps[2].add_(1)
        return ps

    def other_view_no_grad(t):
        y = _graph_base(t)
        ps = y.unbind(1)
        with t.no_grad():
            y[0].zero_()
        return ps

    def unbind_detached(t):
        ps = _graph_base(t).unbind(0)
        ps[1].detach().add_(1)
        return ps

    def rows_no_grad(t):
        y = _graph_base(t)
        ps = list(y)
        with t.no_grad():
            y.add_(1)
        return ps

    def leaf_no_grad(t):
        x = t.arange(24.0).reshape(4, 6).requires_grad_()
        ps = x.split(3, 1)
        with t.no_grad():
            x.mul_(1)
        return ps

    def base_with_grad(t):  # through autograd's path: the base's history changed
        y = _graph_base(t)
        ps = y.split(3, 1)
        y.mul_(2)
        return ps

    return [base_no_grad, base_detached, piece_detached, piece_no_grad, other_view_no_grad,
            unbind_detached, rows_no_grad, leaf_no_grad, base_with_grad]


@pytest.mark.parametrize("use", _uses(), ids=lambda u: u[0])
@pytest.mark.parametrize("write", _writes(), ids=lambda f: f.__name__)
def test_piece_after_its_memory_changed(write, use):
    same(lambda t: use[1](t, write(t)[0]))


@pytest.mark.parametrize("write", _writes(), ids=lambda f: f.__name__)
def test_every_piece_is_refused_not_only_the_written_one(write):
    def f(t):
        out = []
        for p in write(t):
            try:
                out.append(p * 1)
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(f)


def _views_of_pieces():
    def viewed(t):
        y = _graph_base(t)
        a, _b = y.split(2, 0)
        return [a.view(-1), a.t(), a[1:], a.unsqueeze(0).transpose(0, 1)], y

    def viewed_qkv(t):  # nanoGPT's attention heads: split, view, transpose
        y = t.arange(48.0).reshape(2, 2, 12).requires_grad_() * 1
        q, k, _v = y.split(4, dim=2)
        return [q.view(2, 2, 2, 2).transpose(1, 2), k.view(2, 2, 2, 2).transpose(1, 2)], y

    return [viewed, viewed_qkv]


@pytest.mark.parametrize("make", _views_of_pieces(), ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["no_grad", "detach", "none"])
def test_views_of_pieces_after_a_write(make, how):
    def f(t):
        vs, y = make(t)
        if how == "no_grad":
            with t.no_grad():
                y.add_(1)
        elif how == "detach":
            y.detach().mul_(2)
        out = []
        for v in vs:
            row = [v.requires_grad, v.detach(), _suffix(v)]
            for use in (lambda u: u * 1, lambda u: u.grad_fn.name()):
                try:
                    row.append(use(v))
                except RuntimeError as e:
                    row.append(str(e))
            out.append(row)
        return out

    same(f)


def test_pieces_outside_a_graph_stay_usable():
    def f(t):
        w = t.arange(24.0).reshape(4, 6)
        a, b = w.split(3, 1)
        rows = list(w)
        w.mul_(2)
        a.detach().add_(1)
        with t.no_grad():
            rows[0].zero_()
        return (a * 1, b.grad_fn, a.requires_grad, rows[0] + rows[1], _suffix(b))

    same(f)


def test_unchanged_pieces_train_as_before():
    def f(t):
        x = t.arange(24.0).reshape(4, 6).requires_grad_()
        y = x * 1
        q, k, v = y.split(2, 1)
        y.detach()  # reading the base or a piece changes no version
        with t.no_grad():
            (q * 2).sum()
        loss = (q * k * v).sum() + sum(r.sum() * i for i, r in enumerate(y))
        loss.backward()
        return x.grad, q.grad_fn.name(), q.requires_grad

    same(f)


def test_iteration_is_one_unbind_node():
    def f(t):
        y = t.arange(12.0).reshape(3, 4).requires_grad_() * 2
        rows = list(y)
        fn = rows[0].grad_fn
        out = [fn.name(), [r.grad_fn is fn for r in rows], [r.output_nr for r in rows],
               [r._base is y for r in rows]]
        try:
            rows[1].mul_(2)
        except RuntimeError as e:
            out.append(str(e))
        (rows[0] * rows[2]).sum().backward()
        return out

    same(f)


@pytest.mark.parametrize("write", ["no_grad", "detach", "grad", "none"])
@pytest.mark.parametrize("pieces", ["split", "unbind", "chunk", "view-of-piece",
                                    "transposed-piece", "copy-of-piece"])
def test_backward_after_a_saved_piece_changed(pieces, write):
    def f(t):
        x = t.arange(24.0).reshape(4, 6).requires_grad_()
        y = x * 2
        a = {"split": lambda: y.split(3, 1)[0], "unbind": lambda: y.unbind(1)[2],
             "chunk": lambda: y.chunk(2, 0)[1],
             "view-of-piece": lambda: y.split(2, 0)[1].view(3, 4),
             "transposed-piece": lambda: y.split(2, 0)[1].t()[1:],
             "copy-of-piece": lambda: y.split(3, 1)[1].reshape(2, 6)}[pieces]()
        s = (a * a).sum() + a.sin().sum()
        if write == "no_grad":
            with t.no_grad():
                y.mul_(2)
        elif write == "detach":
            a.detach().add_(1)  # (a copy of a piece: only the copy's own version moves)
        elif write == "grad":
            y.mul_(2)
        s.backward()
        return x.grad

    same(f)


@pytest.mark.parametrize("make", ["select", "split", "rows", "view-of-no-grad-view"])
def test_view_made_without_grad_written_with_a_graph_operand(make):
    def f(t):
        x = t.arange(6.0).reshape(2, 3)
        w = t.ones(3, requires_grad=True)
        with t.no_grad():
            v = {"select": lambda: x[0], "split": lambda: x.split(1)[0][0],
                 "rows": lambda: list(x)[1], "view-of-no-grad-view": lambda: x[1:]}[make]()
        if make == "view-of-no-grad-view":
            v = v[0]
        out = [v.mul_(2)]  # no graph operand: allowed
        try:
            v.mul_(w)
        except RuntimeError as e:
            out.append(str(e))
        return out, x

    same(f)
