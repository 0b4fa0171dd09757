"""In-place ops in the graph: version counters, leaf errors, and writes through views."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import same
from tests.oracle import check_raises


def test_inplace_on_leaf_requiring_grad_raises():
    nt_e, _ = check_raises(lambda t: t.ones(2, requires_grad=True).add_(1))
    assert "leaf Variable that requires grad" in str(nt_e)


def test_inplace_on_view_of_leaf_raises():
    nt_e, _ = check_raises(lambda t: t.ones(2, 3, requires_grad=True)[0].mul_(2))
    assert "view of a leaf Variable" in str(nt_e)


def test_inplace_on_leaf_under_no_grad_is_allowed():
    def f(t):
        x = t.ones(3, requires_grad=True)
        with t.no_grad():
            x.mul_(3)
            x[0] = 7.0
        (x * x).sum().backward()
        return [x, x.grad]
    same(f, rtol=1e-4, atol=1e-6)


def test_modified_saved_tensor_raises_on_backward():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()
    nt_e, _ = check_raises(f)
    assert "modified by an inplace operation" in str(nt_e)
    assert "version 1; expected version 0" in str(nt_e)


def test_modifying_input_saved_by_mul_raises():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = a * x
        a.add_(1)
        y.sum().backward()
    check_raises(f)


def test_modifying_unsaved_input_is_fine():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = a + 3
        a.add_(1)
        (y * y).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_version_counter_shared_with_views():
    x = numtorch.zeros(3, 4)
    v = x[1]
    assert x._version == v._version == 0
    v.add_(1)
    assert x._version == 1 and v._version == 1
    x[0, 0] = 3.0
    assert v._version == 2


@pytest.mark.parametrize("case", ["mul_", "relu_", "sigmoid_", "tanh_", "clamp_", "div_",
                                  "pow_", "copy_", "fill_", "zero_", "masked_fill_"])
def test_inplace_op_on_nonleaf_gradients_match_torch(case):
    def f(t):
        x = t.tensor([[-1.5, 0.5, 2.0], [1.0, -0.3, 0.7]], requires_grad=True)
        w = t.tensor([0.5, -2.0, 1.5], requires_grad=True)
        y = x * 1.5 + 0.1
        if case == "mul_":
            y.mul_(w)
        elif case == "relu_":
            y.relu_()
        elif case == "sigmoid_":
            y.sigmoid_()
        elif case == "tanh_":
            y.tanh_()
        elif case == "clamp_":
            y.clamp_(-1.0, 1.0)
        elif case == "div_":
            y.div_(w)
        elif case == "pow_":
            y.pow_(2)
        elif case == "copy_":
            y.copy_(w * 3)
        elif case == "fill_":
            y.fill_(w[1])
        elif case == "zero_":
            y.zero_()
        elif case == "masked_fill_":
            y.masked_fill_(y > 0.5, 0.25)
        (y * t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        return [y, x.grad, w.grad if w.grad is not None else t.zeros(3)]
    same(f, rtol=1e-4, atol=1e-6)


def test_setitem_on_zeros_routes_gradient_to_values():
    def f(t):
        h = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = t.zeros(3, 4)
        for i in range(4):
            out[:, i] = h * (i + 1)
        (out * t.arange(12.0).reshape(3, 4)).sum().backward()
        return h.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_mask_assignment_in_graph():
    def f(t):
        x = t.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
        y = x * 2
        y[y < 0] = 0
        (y * t.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_advanced_index_assignment_with_grad_values():
    def f(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        v = t.tensor([10.0, 20.0], requires_grad=True)
        y = x * 1
        y[t.tensor([0, 2])] = v
        (y * t.arange(6.0).reshape(3, 2)).sum().backward()
        return [x.grad, v.grad]
    same(f, rtol=1e-4, atol=1e-6)


def test_write_through_view_chain_updates_base_gradient():
    def f(t):
        base = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = t.tensor([0.5, 1.5], requires_grad=True)
        z = base.clone()
        z.t()[1].mul_(w)
        z[:, 0].add_(w)
        (z * t.arange(6.0).reshape(2, 3)).sum().backward()
        return [z, base.grad, w.grad]
    same(f, rtol=1e-4, atol=1e-6)


def test_view_sees_base_history_after_base_write():
    def f(t):
        h = t.tensor([1.0, 2.0], requires_grad=True)
        x = t.zeros(2, 3)
        v = x[:, 0]
        x[:, 0] = h * 3
        (v * t.tensor([2.0, 5.0])).sum().backward()
        return [v.requires_grad, h.grad]
    same(f)


def test_inplace_on_view_created_in_no_grad_raises():
    def f(t):
        x = t.ones(2, 3, requires_grad=True) * 1
        with t.no_grad():
            v = x[0]
        v.mul_(2)
    check_raises(f)


def test_writing_into_expanded_tensor_raises():
    check_raises(lambda t: t.zeros(1, 3).expand(2, 3).add_(1))


def test_inplace_integer_result_cast_error():
    nt_e, _ = check_raises(lambda t: t.tensor([1, 2]).add_(1.5))
    assert "can't be cast to the desired output type Long" in str(nt_e)


def test_inplace_broadcast_shape_error():
    check_raises(lambda t: t.zeros(3).add_(t.ones(2, 3)))


def test_operators_inplace_keep_identity():
    x = numtorch.ones(3)
    y = x
    x += 1
    x *= 3
    assert y is x and x.tolist() == [6.0, 6.0, 6.0]
    a = np.zeros(3, dtype=np.float32)
    t = numtorch.from_numpy(a)
    t += 2
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_inplace_relu_then_backward_through_saved_output():
    def f(t):
        x = t.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x.exp()
        z = y.relu_()
        return t.autograd.grad(z.sum(), x)
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            f(lib)


def test_inplace_on_unneeded_saved_operand_is_allowed():
    def f(t):
        x = t.ones(3, requires_grad=True)
        y = x * 1
        z = y * 2  # only y's gradient is needed: the constant 2 is saved, y is not
        q = y / 4
        y.add_(1)
        (z.sum() + q.sum()).backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_write_from_own_element_in_graph():
    def f(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        y[0] = y[1] * 2
        (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("make", [lambda y: y.split(2)[1], lambda y: y.chunk(2)[0],
                                  lambda y: y.unbind(0)[2], lambda y: y.split([1, 3])[0]])
def test_inplace_on_multi_output_view_raises(make):
    def f(t):
        y = t.ones(4, 3, requires_grad=True) * 1
        make(y).mul_(3)
    nt_e, th_e = check_raises(f)
    assert str(nt_e).split(" is a view")[0] == str(th_e).split(" is a view")[0]


def test_inplace_relu_reads_its_input_without_a_copy_and_matches_torch(monkeypatch):
    # ReLU keeps only its output for backward, so the in-place form skips the defensive copy
    # of its input; values and gradients stay torch's, through a view and a chain
    import numpy as np
    import torch

    from numtorch.autograd import inplace

    copies = []
    real = inplace._shadow
    monkeypatch.setattr(inplace, "_shadow",
                        lambda t, copy=True: copies.append(copy) or real(t, copy))
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    g = rng.standard_normal((4, 5)).astype(np.float32)

    def run(lib):
        a = lib.tensor(w, requires_grad=True)
        b = a * 2
        b[1:].relu_()
        c = b - 0.5
        lib.nn.functional.relu(c, inplace=True)
        (c * lib.tensor(g)).sum().backward()
        return c.detach().numpy(), a.grad.numpy()

    ours, theirs = run(numtorch), run(torch)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert copies == [False, False]
