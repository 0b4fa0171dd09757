"""split / chunk / split_with_sizes / unbind as one graph node with an output per piece, as in
torch: node names, output_nr, next_functions, gradients (pieces without gradient, second order),
hooks and retain_grad on the pieces, and torch's refusals of in-place writes to them."""

import numpy as np
import pytest

from tests.oracle import check_op, same

# (id, pieces of x, which pieces the loss uses)
PIECES = [
    ("split", lambda x: x.split(2, 1), (0, 2)),
    ("split-uneven", lambda x: x.split(4, 1), (1,)),
    ("split-sizes", lambda x: x.split([1, 5], 1), (0, 1)),
    ("split-fn-neg-dim", lambda x: x.split(3, -1), (0,)),
    ("split-one-piece", lambda x: x.split(10, 1), (0,)),
    ("split-dim0", lambda x: x.split(1, 0), (1, 3)),
    ("chunk", lambda x: x.chunk(3, 1), (2,)),
    ("chunk-uneven", lambda x: x.chunk(4, 1), (0, 2)),
    ("unbind", lambda x: x.unbind(1), (0, 5)),
    ("unbind-dim0", lambda x: x.unbind(0), (0, 1, 2, 3)),
]


def _loss(t, pieces, used):
    # different weights per piece so a gradient routed to the wrong piece shows
    return sum(((p * p) * (k + 1)).sum() for k, p in enumerate(pieces) if k in used)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case,pieces,used", PIECES, ids=[c[0] for c in PIECES])
def test_gradients_against_torch(case, pieces, used, dtype):
    """First and second order (check_op), pieces without gradient get zeros."""
    check_op(lambda t, x: _loss(t, pieces(x), used), [(4, 6)], dtype=dtype)
    check_op(lambda t, x: pieces(x * 1), [(4, 6)], dtype=dtype)


@pytest.mark.parametrize("case,pieces,used", PIECES, ids=[c[0] for c in PIECES])
def test_one_node_for_all_pieces(case, pieces, used):
    def f(t):
        x = t.ones(4, 6, requires_grad=True)
        y = x * 2
        ps = pieces(y)
        fn = ps[0].grad_fn
        return (fn.name(), [p.grad_fn is fn for p in ps], [p.output_nr for p in ps],
                [type(n).__name__ for n, _ in fn.next_functions],
                [p._base is y for p in ps], [p.is_leaf for p in ps], ps[0]._version)

    same(f)


def test_names_of_other_forms():
    def f(t):
        y = t.ones(4, 6, requires_grad=True) * 2
        return ([p.grad_fn.name() for p in t.split_with_sizes(y, [2, 4], 1)],
                [p.grad_fn.name() for p in t.chunk(t.zeros(0, 3, requires_grad=True) * 1, 2)],
                [p.grad_fn.name() for p in y[1:].split(3, 1)],
                [n.name() for n, _ in y[1:].split(3, 1)[0].grad_fn.next_functions],
                [(p.grad_fn.name(), p.output_nr) for p in t.unsafe_split(y, 2, 1)],
                [p.grad_fn is None for p in t.arange(6).split(2)],
                [type(n).__name__ for n, _ in
                 t.ones(3, 2, requires_grad=True).unbind()[0].grad_fn.next_functions])

    same(f)


def test_hooks_and_retain_grad_on_pieces():
    def f(t):
        x = t.arange(24.0).reshape(4, 6).requires_grad_()
        q, k, v = (x * 1).split(2, 1)
        k.retain_grad()
        q.retain_grad()
        seen = []
        v.register_hook(lambda g: seen.append(g))  # torch calls it with None: no gradient
        q.register_hook(lambda g: g * 10)
        fn = q.grad_fn
        fn.register_prehook(lambda go: seen.append([g is None for g in go]) or None)
        fn.register_hook(lambda gi, go: seen.append(([g.shape for g in gi],
                                                     [g is None for g in go])) or None)
        (q * 3).sum().backward()
        return x.grad, q.grad, k.grad, seen

    same(f)


def test_hook_cannot_give_a_piece_a_gradient():
    def f(t):
        x = t.ones(2, 4, requires_grad=True)
        a, b = (x * 1).chunk(2, 1)
        b.register_hook(lambda g: t.full((2, 2), 5.0) if g is None else g)
        a.sum().backward()
        return x.grad

    same(f)


def test_create_graph_through_split():
    def f(t):
        x = (t.arange(18, dtype=t.float64).reshape(3, 6) / 7).requires_grad_()
        q, k, v = (x * x).split(2, 1)
        gx, = t.autograd.grad((q * k * 3).sum() + v.sin().sum(), x, create_graph=True)
        gx.pow(2).sum().backward()
        return gx, x.grad

    same(f, rtol=1e-12, atol=1e-12)


def test_sum_of_pieces_meeting_again():
    """Pieces used several times and joined again: the engine sums into one buffer each."""
    def f(t):
        x = t.arange(12.0).reshape(3, 4).requires_grad_()
        a, b = x.split(2, 1)
        c, d = (a * b).unbind(1)
        (c * d + a[:, 0] * 2 + t.cat([a, b], 1).sum(1)).sum().backward()
        return x.grad

    same(f)


def _inplace_cases():
    def piece(t):
        q, _k, _v = (t.ones(4, 6, requires_grad=True) * 1).split(2, 1)
        q.mul_(2)

    def view_of_piece(t):
        q, _k, _v = (t.ones(4, 6, requires_grad=True) * 1).split(2, 1)
        q.view(4, 1, 2).mul_(2)

    def transposed_piece(t):
        q, _k, _v = (t.ones(4, 6, requires_grad=True) * 1).split(2, 1)
        q.t().add_(1)

    def unbound(t):
        (t.ones(4, 6, requires_grad=True) * 1).unbind(1)[3].zero_()

    def leaf_piece(t):
        t.ones(4, 6, requires_grad=True).chunk(3, 1)[1].mul_(2)

    def plain_piece_graph_operand(t):
        q, _k = t.ones(4, 6).split(3, 1)
        q.mul_(t.ones(4, 3, requires_grad=True))

    def base_then_piece(t):
        y = t.ones(4, 6, requires_grad=True) * 1
        _q, k, _v = y.split(2, 1)
        y.mul_(2)
        return k * 2

    def base_then_view_of_piece(t):
        y = t.ones(4, 6, requires_grad=True) * 1
        q, _k, _v = y.split(2, 1)
        qq = q.view(4, 2, 1).transpose(0, 1)
        y.add_(1)
        return qq.grad_fn

    def other_view_then_piece(t):
        y = t.ones(4, 6, requires_grad=True) * 1
        a = y.unbind(1)
        y.view(-1).add_(1)
        return a[3] + 1

    def sliced_base_then_piece(t):
        z = (t.ones(4, 6, requires_grad=True) * 1)[1:]
        q, _k = z.split(3, 1)
        z.mul_(2)
        return q.grad_fn

    def allowed_without_graph(t):
        q, _k = t.ones(4, 6).split(3, 1)
        q.mul_(2)
        with t.no_grad():
            y = t.ones(4, 6, requires_grad=True) * 1
            a, _b = y.split(3, 1)
            a.add_(1)
        return q, a

    return [piece, view_of_piece, transposed_piece, unbound, leaf_piece,
            plain_piece_graph_operand, base_then_piece, base_then_view_of_piece,
            other_view_then_piece, sliced_base_then_piece, allowed_without_graph]


@pytest.mark.parametrize("case", _inplace_cases(), ids=lambda f: f.__name__)
def test_inplace_rules(case):
    same(case)


def test_piece_values_and_strides_are_views():
    def f(t):
        x = t.arange(24.0).reshape(4, 6)
        ps = x.split([1, 2, 3], 1) + x.unbind(0) + x.t().chunk(2, 0)
        return [(p, p.stride(), p.storage_offset(), p.is_contiguous()) for p in ps]

    same(f)


def test_split_backward_buffer_dtype_float32():
    import numtorch

    x = numtorch.from_numpy(np.ones((2, 6), np.float32)).requires_grad_()
    _q, k, _v = (x * 1).split(2, 1)
    (k * 2).sum().backward()
    assert x.grad.dtype == numtorch.float32
    np.testing.assert_array_equal(x.grad.numpy()[:, 2:4], 2)
    np.testing.assert_array_equal(x.grad.numpy()[:, [0, 1, 4, 5]], 0)


def test_vmap_and_func_grad_through_pieces():
    """vmap shifts the pieces' dim past the batch dim (a batching rule: no per-sample
    fallback warning); func.grad / jacrev differentiate through the one node."""
    def f(t):
        x = t.arange(24.0).reshape(2, 3, 4)
        w = t.arange(12.0).reshape(3, 4) / 5
        return (t.func.vmap(lambda s: t.stack(s.split(2, 1)[::-1]).sum(0))(x),
                t.func.vmap(lambda s: s.unbind(0)[1] * 2)(x),
                t.func.vmap(lambda s: s.chunk(2, -1)[0], in_dims=2)(x),
                t.func.grad(lambda w: (w.split(2, 1)[1] ** 2).sum())(w).detach(),
                t.func.jacrev(lambda w: w.unbind(1)[2])(w))

    same(f, warns=True)
