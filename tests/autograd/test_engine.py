"""The backward engine against torch: accumulation, grad(), retain_graph, deep graphs, errors."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_raises, same


def test_backward_accumulates_into_leaves():
    def f(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_shared_input_gets_summed_gradient():
    def f(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        y = x * x + x * 2 + x.exp()
        y.sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_backward_with_gradient_argument():
    def f(t):
        x = t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.tanh() * 2
        y.backward(t.tensor([[1.0, -1.0], [0.5, 2.0]]))
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_grad_returns_without_touching_dot_grad():
    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = numtorch.autograd.grad((x ** 3).sum(), x)
    assert x.grad is None
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])


def test_grad_with_respect_to_intermediate_tensor():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        y = (h * h).sum()
        return t.autograd.grad(y, [h, x])
    same(f, rtol=1e-4, atol=1e-6)


def test_grad_allow_unused_and_materialize():
    x = numtorch.tensor([1.0], requires_grad=True)
    z = numtorch.tensor([1.0], requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        numtorch.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = numtorch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None
    gx, gz = numtorch.autograd.grad(y, [x, z], materialize_grads=True)
    assert gz.tolist() == [0.0]


def test_higher_order_gradients_match_torch():
    def f(t):
        x = t.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = (x.sin() * x ** 3).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = t.autograd.grad(gg.sum(), x)
        return [g, gg, ggg]
    same(f, rtol=1e-4, atol=1e-6)


def test_second_backward_through_freed_graph_raises():
    for lib in (numtorch, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp().sum()
        y.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()


def test_retain_graph_allows_second_backward():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_non_scalar_backward_without_gradient_raises():
    check_raises(lambda t: t.ones(2, 3, requires_grad=True).sum(0).backward())


def test_backward_on_tensor_without_grad_raises():
    check_raises(lambda t: t.ones(2).sum().backward())


def test_gradient_shape_mismatch_raises():
    def f(t):
        x = t.ones(3, requires_grad=True)
        (x * 2).backward(t.ones(2))
    nt_e, _ = check_raises(f)
    assert "Mismatch in shape" in str(nt_e)


def test_grad_of_input_not_requiring_grad_raises():
    def f(t):
        x = t.ones(3)
        w = t.ones(3, requires_grad=True)
        t.autograd.grad((x * w).sum(), x)
    check_raises(f)


def test_100k_op_chain_has_no_recursion_limit():
    x = numtorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_broadcast_gradients_are_summed_to_input_shape():
    def f(t):
        a = t.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
        b = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        c = t.tensor(2.0, requires_grad=True)
        ((a * b + c) ** 2).sum().backward()
        return [a.grad, b.grad, c.grad]
    same(f, rtol=1e-4, atol=1e-6)


def test_float32_gradient_into_float64_leaf_is_cast():
    x = numtorch.tensor([1.0, 2.0], dtype=numtorch.float64, requires_grad=True)
    y = (x.float() * 2).sum()
    y.backward()
    assert x.grad.dtype is numtorch.float64


def test_backward_inputs_argument_accumulates_only_there():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([3.0, 4.0], requires_grad=True)
        (x * w).sum().backward(inputs=[w])
        return [w.grad, x.grad is None]
    same(f)


def test_grad_fn_next_functions_and_names():
    x = numtorch.tensor([1.0], requires_grad=True)
    y = x * 2 + 1
    assert y.grad_fn.name() == "AddBackward0"
    (mul_edge, none_edge) = y.grad_fn.next_functions
    assert mul_edge[0].name() == "MulBackward0"
    assert none_edge == (None, 0)
    acc = mul_edge[0].next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
    assert type(acc).__name__ == "AccumulateGrad"
    assert x.is_leaf and not y.is_leaf and y.requires_grad


def test_leaf_grad_does_not_alias_the_callers_gradient():
    x = numtorch.zeros(3, requires_grad=True)
    g = numtorch.ones(3)
    x.view(3).backward(g)
    g.add_(5)
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_requires_grad_rules():
    check_raises(lambda t: t.tensor([1, 2], requires_grad=True))
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = False
    z = numtorch.ones(2)
    z.requires_grad = True
    assert z.requires_grad and z.is_leaf


def test_detach_shares_memory_and_cuts_graph():
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert y[0].item() == 5.0


def test_nonleaf_grad_access_warns():
    x = numtorch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


def test_int_outputs_do_not_require_grad():
    x = numtorch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    v, i = x.max(0)
    assert v.requires_grad and not i.requires_grad
    assert not (x > 1).requires_grad
    assert not x.argmax().requires_grad


def test_gradient_reaching_a_node_that_already_ran_is_an_assertion():
    x = numtorch.ones(2, requires_grad=True)
    y = x.exp()
    z = y.exp()
    y.grad_fn._edges = ((z.grad_fn, 0),)  # a malformed graph: y's node feeds a later node
    with pytest.raises(AssertionError, match="has already run"):
        z.sum().backward()


def _fan_in_script(lib):
    """Three and more gradients summed into one buffer, one of them a tensor the user keeps."""
    kept = lib.full((3,), 5.0)

    class KeepGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            return kept  # handed to the engine, still the user's tensor

    x = lib.arange(3.0, requires_grad=True)
    y = x * 1.5
    out = (KeepGrad.apply(y) + y * 2 + y.exp() + y * y).sum()
    (gx,) = lib.autograd.grad(out, x, retain_graph=True)
    out2 = (y + y + y + y).sum()
    out2.backward()
    return gx.tolist(), x.grad.tolist(), kept.tolist()


def test_fan_in_sums_match_torch_and_leave_user_tensors_alone():
    for a, b in zip(_fan_in_script(numtorch), _fan_in_script(torch)):
        assert a == pytest.approx(b, rel=1e-6)


def test_op_parameters_are_kept_apart_from_node_state():
    x = numtorch.randn(3, 4, requires_grad=True)
    chain = x[1:].t()._view_fn  # the view's replay: (op class, parameters, parent chain)
    while chain is not None:
        _, params, chain = chain
        assert params and not any(k.startswith("_") or k == "xp" for k in params), params
    node = x.sum(1).grad_fn
    assert node.dims == (1,) and not node.keepdim
    assert not {"xp", "_edges", "_in_meta", "_saved", "_seq"} & set(vars(node))


def test_leaves_fed_one_gradient_array_do_not_share_it():
    # add's backward hands the same gradient to both operands: each leaf's .grad must be its
    # own memory, so an in-place change to one (an optimizer step) leaves the other alone
    def f(t):
        x = t.ones(3, requires_grad=True)
        y = t.ones(3, requires_grad=True)
        z = t.ones(3, requires_grad=True)
        (x + y + z).sum().backward()
        x.grad.add_(1)
        y.grad.mul_(3)
        return x.grad, y.grad, z.grad
    same(f)


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_meeting_at_one_input_sum_as_torch(shape, dtype):
    # the engine adds the first two gradients on their arrays: a 0-d sum is a NumPy scalar,
    # which must come back as a 0-d tensor (seen as a second-order gradient of a 0-d input)
    def f(t):
        x = t.tensor(np.linspace(0.2, 0.7, int(np.prod(shape))).reshape(shape),
                     dtype=getattr(t, dtype), requires_grad=True)
        y = (x * x * x + x.sin() + x * 2).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return x.grad.detach().numpy().copy(), x.grad.shape, str(x.grad.dtype).split(".")[-1]

    same(f)
