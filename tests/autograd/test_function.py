"""Custom autograd.Function in the modern static form and the 0.x instance form."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import same


def make_exp(lib):
    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    return MyExp


def make_scale(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, factor):
            ctx.save_for_backward(x, w)
            ctx.factor = factor
            return x * w * factor

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            gx = grad * w * ctx.factor if ctx.needs_input_grad[0] else None
            gw = grad * x * ctx.factor if ctx.needs_input_grad[1] else None
            return gx, gw, None

    return Scale


def test_static_function_values_and_grads():
    def f(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = make_exp(t).apply(x)
        (y * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return [y, x.grad]
    same(f, rtol=1e-4, atol=1e-6)


def test_saved_output_supports_double_backward():
    def f(t):
        x = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = make_exp(t).apply(x)
        (g,) = t.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return [g, gg]
    same(f, rtol=1e-4, atol=1e-6)


def test_needs_input_grad_and_non_tensor_args():
    def f(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([3.0, 4.0])
        make_scale(t).apply(x, w, 2.5).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def test_function_checked_with_gradcheck():
    x = numtorch.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    w = numtorch.tensor(np.linspace(0.5, 2, 5), requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda a, b: make_scale(numtorch).apply(a, b, 1.5),
                                       (x, w))


def test_wrong_number_of_gradients_raises():
    for lib in (numtorch, torch):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, grad):
                return grad

        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="incorrect number of gradients"):
            Bad.apply(x, x).sum().backward()


def test_mark_non_differentiable_and_materialize_grads():
    def f(t):
        class SortIdx(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                v, i = x.sort() if hasattr(x, "sort") else (x, x)
                ctx.mark_non_differentiable(i)
                ctx.save_for_backward(i)
                return v, i

            @staticmethod
            def backward(ctx, gv, gi):
                (i,) = ctx.saved_tensors
                return t.zeros_like(gv).scatter(0, i, gv)

        x = t.tensor([3.0, 1.0, 2.0], requires_grad=True)
        v, i = SortIdx.apply(x)
        assert not i.requires_grad
        (v * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return x.grad
    same(f, rtol=1e-4, atol=1e-6)


def _once_differentiable_script(lib):
    """First-order gradients through a @once_differentiable backward under create_graph, and
    the error when they are differentiated again (run with either library)."""
    out = []

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            out.append(("inside backward", lib.is_grad_enabled(), grad.requires_grad))
            return grad * 2 * x

    def node(t):
        fn = t.grad_fn
        return None if fn is None else (type(fn).__name__, fn.name())

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    out.append(("create_graph", g.tolist(), g.requires_grad, node(g)))
    cot = lib.ones(2, requires_grad=True)
    (g,) = lib.autograd.grad(Sq.apply(x), x, cot, create_graph=True)
    out.append(("cotangent requires grad", g.tolist(), g.requires_grad, node(g)))
    try:
        g.sum().backward()
    except RuntimeError as e:
        out.append(("double backward", str(e)))
    y = x * 3
    (g,) = lib.autograd.grad(Sq.apply(y).sum() * y.sum(), x, create_graph=True)
    out.append(("mixed", g.tolist(), g.requires_grad, node(g)))
    try:
        lib.autograd.grad(g.sum(), x)
    except RuntimeError as e:
        out.append(("mixed double backward", str(e)))
    (g,) = lib.autograd.grad(Sq.apply(x).sum(), x)
    out.append(("plain", g.tolist(), g.requires_grad))
    return out


def test_once_differentiable_matches_torch():
    with np.errstate(all="ignore"):
        assert _once_differentiable_script(numtorch) == _once_differentiable_script(torch)


def test_once_differentiable_of_the_issue():
    class Sq(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @numtorch.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    x = numtorch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = numtorch.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0]


def test_legacy_instance_form_of_the_0x_docs():
    class Linear(numtorch.autograd.Function):
        def forward(self, input, weight):
            self.save_for_backward(input, weight)
            return input.mm(weight.t())

        def backward(self, grad_output):
            input, weight = self.saved_tensors
            grad_input = grad_weight = None
            if self.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if self.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            return grad_input, grad_weight

    rng = np.random.default_rng(0)
    xa, wa = rng.standard_normal((4, 3)), rng.standard_normal((2, 3))
    x = numtorch.tensor(xa, requires_grad=True)
    w = numtorch.tensor(wa, requires_grad=True)
    out = Linear()(x, w)
    out.sum().backward()
    tx = torch.tensor(xa, requires_grad=True)
    tw = torch.tensor(wa, requires_grad=True)
    (tx @ tw.t()).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), (tx @ tw.t()).detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())


def test_mark_dirty_inplace_function():
    def f(t):
        class AddOne(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2
        c = AddOne.apply(b)
        (c * c).sum().backward()
        return [c, a.grad]
    same(f, rtol=1e-4, atol=1e-6)
