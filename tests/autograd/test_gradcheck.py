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
    with pytest.warns(UserWarning, match="is not a double precision floating point"):
        torch.autograd.gradcheck(lambda t: t * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradcheck_leaves_inputs_unchanged():
    (x,) = _inputs((3,))
    before = x.detach().clone()
    torch.autograd.gradcheck(lambda t: t.exp(), (x,))
    assert torch.equal(x.detach(), before)


# -- against torch: the same checks fail with the same report --------------------------------


def _both(build):
    """``build(lib)`` under numtorch and torch: what each returned or raised (class, text)."""
    import warnings

    tt = pytest.importorskip("torch")
    results = []
    for lib in (torch, tt):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = ("ok", build(lib))
            except Exception as e:  # noqa: BLE001 - the class and message are compared
                out = (type(e).__name__, str(e))
        # torch's lazy imports emit DeprecationWarnings of its own (torch.jit.script)
        results.append((out, [str(w.message) for w in caught
                              if not issubclass(w.category, DeprecationWarning)]))
    return results


def _custom(lib, grad_factor=3.0, jvp_factor=None, shift=0.0):
    """y = 2x with a backward of ``grad_factor * g + shift`` (and a jvp when asked)."""
    body = {
        "forward": staticmethod(lambda ctx, x: x * 2),
        "backward": staticmethod(lambda ctx, g: g * grad_factor + shift),
    }
    if jvp_factor is not None:
        body["jvp"] = staticmethod(lambda ctx, t: t * jvp_factor)
    return type("Scale", (lib.autograd.Function,), body)


CASES = {
    "right": lambda lib: lib.autograd.gradcheck(
        lambda t: (t.sin() * t).sum(0), (lib.randn(3, 2, dtype=lib.double, requires_grad=True),)),
    "wrong 2d": lambda lib: lib.autograd.gradcheck(
        _custom(lib).apply, (lib.randn(2, 2, dtype=lib.double, requires_grad=True),)),
    "wrong, no raise": lambda lib: lib.autograd.gradcheck(
        _custom(lib).apply, (lib.randn(3, dtype=lib.double, requires_grad=True),),
        raise_exception=False),
    "float32 numbers": lambda lib: lib.autograd.gradcheck(
        lambda t, u: t * 2 + u, (lib.randn(3, requires_grad=True),
                                 lib.randn(3, requires_grad=True))),
    "second input, eps": lambda lib: lib.autograd.gradcheck(
        lambda a, b: a.exp() * b, (lib.randn(2, dtype=lib.double, requires_grad=True),
                                   lib.randn(2, dtype=lib.double, requires_grad=True)), eps=0.1),
    "none requires grad": lambda lib: lib.autograd.gradcheck(
        lambda t: t * 2, (lib.randn(2, dtype=lib.double),)),
    "stride 0": lambda lib: lib.autograd.gradcheck(
        lambda t: t * 2, (lib.randn(3, 1, dtype=lib.double, requires_grad=True).expand(3, 4),)),
    "detached output": lambda lib: lib.autograd.gradcheck(
        lambda t: t.detach() * 2, (lib.randn(2, dtype=lib.double, requires_grad=True),)),
    "not multiplied": lambda lib: lib.autograd.gradcheck(
        _custom(lib, 2.0, shift=1e-9).apply, (lib.randn(2, dtype=lib.double,
                                                       requires_grad=True),)),
    "complex input": lambda lib: lib.autograd.gradcheck(
        _custom(lib).apply, (lib.randn(2, dtype=lib.cdouble, requires_grad=True),)),
    "complex, real output": lambda lib: lib.autograd.gradcheck(
        lambda t: _custom(lib).apply(t).real, (lib.randn(2, dtype=lib.cdouble, requires_grad=True),)),
    "complex right": lambda lib: lib.autograd.gradcheck(
        lambda t: t.exp() * t.conj(), (lib.randn(2, dtype=lib.cdouble, requires_grad=True),)),
    "forward mode": lambda lib: lib.autograd.gradcheck(
        _custom(lib, 2.0, jvp_factor=3.0).apply, (lib.randn(2, dtype=lib.double,
                                                            requires_grad=True),),
        check_forward_ad=True),
    "forward mode, no jvp": lambda lib: lib.autograd.gradcheck(
        _custom(lib, 2.0).apply, (lib.randn(2, dtype=lib.double, requires_grad=True),),
        check_forward_ad=True),
    "neither mode": lambda lib: lib.autograd.gradcheck(
        lambda t: t, (lib.randn(2, dtype=lib.double, requires_grad=True),),
        check_backward_ad=False),
    "batched": lambda lib: lib.autograd.gradcheck(
        lambda t: t.sin(), (lib.randn(3, dtype=lib.double, requires_grad=True),),
        check_batched_grad=True),
    "fast mode slow report": lambda lib: _fast_tail(lib),
    "gradgradcheck draws and fails": lambda lib: lib.autograd.gradgradcheck(
        _detached_square(lib).apply, (lib.randn(2, dtype=lib.double, requires_grad=True),)),
    "gradgradcheck right": lambda lib: (lib.autograd.gradgradcheck(
        lambda t: t ** 3, (lib.randn(2, dtype=lib.double, requires_grad=True),)),
        lib.rand(2).tolist()),
}


def _fast_tail(lib):
    # the projections use each library's own random directions: compare the slow-mode report
    try:
        lib.autograd.gradcheck(_custom(lib).apply,
                               (lib.randn(2, dtype=lib.double, requires_grad=True),),
                               fast_mode=True)
    except RuntimeError as e:  # GradcheckError
        return str(e).split("\nanalytical:")[1].split("\n", 1)[1]
    return "passed"


def _detached_square(lib):
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x.detach()

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    return type("Square", (lib.autograd.Function,),
                {"forward": staticmethod(forward), "backward": staticmethod(backward)})


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradcheck_reports_as_torch(case):
    mine, theirs = _both(CASES[case])
    assert mine == theirs


def test_gradcheck_calls_forward_and_backward_as_often_as_torch():
    def count(lib, n_inputs, n_out, fast):
        calls = {"f": 0, "b": 0}

        def forward(ctx, x):
            calls["f"] += 1
            return x * 2

        def backward(ctx, g):
            calls["b"] += 1
            return g * 2

        fn = type("Counted", (lib.autograd.Function,),
                  {"forward": staticmethod(forward), "backward": staticmethod(backward)})
        xs = tuple(lib.randn(3, dtype=lib.double, requires_grad=True) for _ in range(n_inputs))
        if n_out == 2:
            lib.autograd.gradcheck(lambda a: (fn.apply(a), fn.apply(a)[:2]), xs, fast_mode=fast)
        else:
            lib.autograd.gradcheck(lambda *a: fn.apply(a[0]) * a[-1], xs, fast_mode=fast)
        return calls

    tt = pytest.importorskip("torch")
    for args in ((1, 1, False), (2, 1, False), (1, 2, False), (1, 1, True)):
        assert count(torch, *args) == count(tt, *args), args


def test_is_grads_batched_stacks_one_vjp_per_row():
    tt = pytest.importorskip("torch")
    got = []
    for lib in (torch, tt):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.double, requires_grad=True)
        y = x.sin() * x
        (g,) = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.double) * 2, is_grads_batched=True)
        got.append(g.numpy())
        with pytest.raises(RuntimeError, match="grad_output\\[0\\] has a shape of "
                                               "torch.Size\\(\\[\\]\\)"):
            lib.autograd.grad(x.sin(), x, lib.ones(3, dtype=lib.double), is_grads_batched=True)
    np.testing.assert_allclose(got[0], got[1], rtol=1e-12)


def test_custom_function_forward_mode_uses_its_jvp():
    import numtorch.autograd.forward_ad as fwAD

    fn = _custom(torch, 2.0, jvp_factor=5.0)
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.ones(2, dtype=torch.double),
                           torch.tensor([1.0, 2.0], dtype=torch.double))
        out = fwAD.unpack_dual(fn.apply(x))
    assert out.primal.tolist() == [2.0, 2.0]
    assert out.tangent.tolist() == [5.0, 10.0]
    with fwAD.dual_level():
        x = fwAD.make_dual(torch.ones(2, dtype=torch.double), torch.ones(2, dtype=torch.double))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            _custom(torch, 2.0).apply(x)
