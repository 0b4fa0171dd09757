"""gradcheck / gradgradcheck: they pass on correct gradients and catch wrong ones."""

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd.gradcheck import GradcheckError
from numtorch.autograd.graph import Op


def _inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(torch.tensor(rng.uniform(0.5, 1.5, s), requires_grad=True) for s in shapes)


@pytest.mark.parametrize("fn", [
    lambda a, b: (a * b).sin(),
    lambda a, b: a @ b.t(),
    lambda a, b: (a / b).log().sum(1),
    lambda a, b: torch.cat([a, b], 0).tanh().max(0)[0],
    lambda a, b: (a[:, None] - b[None]).pow(2).sum(-1).sqrt(),
])
def test_gradcheck_and_gradgradcheck_pass_on_real_ops(fn):
    a, b = _inputs((3, 4), (3, 4))
    assert torch.autograd.gradcheck(fn, (a, b))
    assert torch.autograd.gradgradcheck(fn, (a, b))


class _WrongSquare(Op):
    """y = x^2 with a deliberately wrong derivative (3x instead of 2x)."""

    def forward(self, x):
        self.save_inputs(x)
        return x * x

    def backward(self, grad):
        return grad * self.saved_inputs() * 3


class _WrongSecondOrder(Op):
    """y = x^3; first derivative right (3x^2), but computed through a detached value so the
    second derivative is silently zero."""

    def forward(self, x):
        self.save_inputs(x)
        return x ** 3

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * (x.detach() ** 2) * 3


def test_gradcheck_catches_wrong_gradient():
    (x,) = _inputs((5,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        torch.autograd.gradcheck(lambda t: _WrongSquare.apply(t), (x,))
    assert torch.autograd.gradcheck(lambda t: _WrongSquare.apply(t), (x,),
                                    raise_exception=False) is False


def test_gradgradcheck_catches_wrong_second_derivative():
    (x,) = _inputs((4,))
    assert torch.autograd.gradcheck(lambda t: _WrongSecondOrder.apply(t), (x,))
    with pytest.raises(GradcheckError):
        torch.autograd.gradgradcheck(lambda t: _WrongSecondOrder.apply(t), (x,))


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError):
        torch.autograd.gradcheck(lambda t: t * 2, (torch.ones(2, dtype=torch.float64),))


def test_gradcheck_warns_on_float32():
    x = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="float64"):
        torch.autograd.gradcheck(lambda t: t * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradcheck_leaves_inputs_unchanged():
    (x,) = _inputs((3,))
    before = x.detach().clone()
    torch.autograd.gradcheck(lambda t: t.exp(), (x,))
    assert torch.equal(x.detach(), before)
