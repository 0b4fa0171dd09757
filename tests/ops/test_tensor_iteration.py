"""Iterating a tensor (``for r in t``: unbind(0)'s views, made directly) and ``float()`` on a
float32 tensor, against torch: values, views, versions, node names, gradients, in-place rules."""

import torch

import numtorch


def _both(fn):
    return fn(numtorch), fn(torch)


def test_rows_are_views_sharing_the_version_counter():
    def run(t):
        base = t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        rows = list(base)
        info = [(r.tolist(), r._base is base, r.stride(), r.grad_fn is None, r.requires_grad)
                for r in rows]
        rows[0].add_(1)
        return info, base.tolist(), base._version, rows[2]._version

    ours, theirs = _both(run)
    assert ours == theirs


def test_rows_of_a_graph_tensor_are_unbind_outputs():
    def run(t):
        a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        items = list(b)
        names = [type(x.grad_fn).__name__ for x in items]
        parents = [x.grad_fn.next_functions[0][0].name() for x in items]
        try:
            items[0].mul_(2)
            refused = None
        except RuntimeError as e:
            refused = str(e)
        (items[0] * 3 + items[2] * items[1]).backward()
        return names, parents, refused, a.grad.tolist()

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours[2] is not None


def test_iteration_shapes_dtypes_and_errors():
    def run(t):
        out = [[(x.tolist(), str(x.dtype).split(".")[-1]) for x in t.arange(3)],
               [tuple(x.shape) for x in t.zeros(2, 0, 3)], [x for x in t.zeros(0, 3)],
               [x.tolist() for x in t.tensor([[1, 2], [3, 4]]).T],  # non-contiguous rows
               [tuple(x.shape) for x in t.ones(2, 1, 2, dtype=t.float64)[:, 0]]]
        try:
            iter(t.tensor(1.0))
        except TypeError as e:
            out.append(str(e))
        p = t.nn.Parameter(t.ones(2))
        out.append([(x.requires_grad, type(x.grad_fn).__name__) for x in p])
        return out

    ours, theirs = _both(run)
    assert ours == theirs


def test_float_of_float32_is_self_and_casts_otherwise():
    def run(t):
        f = t.ones(2)
        d = t.ones(2, dtype=t.float64, requires_grad=True)
        y = d.float()
        y.sum().backward()
        p = t.nn.Parameter(t.ones(2))
        ints = t.ones(2, dtype=t.int64).float()
        return (f.float() is f, p.float() is p, str(y.dtype).split(".")[-1],
                type(y.grad_fn).__name__, d.grad.tolist(), ints.tolist(), str(ints.dtype))

    ours, theirs = _both(run)
    assert ours == theirs
