"""A custom ``autograd.Function`` inside torch.func transforms, against torch 2.13: which
forms each transform accepts (and torch's errors for the others), a ``vmap`` staticmethod's
calls, and gradients through ``generate_vmap_rule`` Functions in every nesting of vmap with
grad, vjp, jacrev and ``.backward()`` (the Function's own backward, not its forward's ops,
must give them)."""

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(5)


def _classes(L):
    """The same Functions written against library ``L``; each backward is deliberately 3x
    the forward's derivative so a result that bypasses it is caught."""
    F = L.autograd.Function

    class Old(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            return 3 * ctx.saved_tensors[0] * g

    class New(F):
        @staticmethod
        def forward(x):
            return x ** 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return 3 * ctx.saved_tensors[0] * g

    class Gen(New):
        generate_vmap_rule = True

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def jvp(ctx, t):
            return 3 * ctx.saved_tensors[0] * t

    class TwoIn(F):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, w):
            return x * w, (x * w).sum()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g, gs):
            x, w = ctx.saved_tensors
            g = g + gs
            return 2 * g * w, 5 * g * x

    class Rule(New):
        calls = []  # noqa: RUF012 - the test reads what the rule saw

        @staticmethod
        def vmap(info, in_dims, x):
            Rule.calls.append((info.batch_size, info.randomness, in_dims, x.dim()))
            return x ** 2 + 100, in_dims[0]

    class SavesOut(F):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            return ctx.saved_tensors[0] * g * 2

    return {"Old": Old, "New": New, "Gen": Gen, "TwoIn": TwoIn, "Rule": Rule,
            "SavesOut": SavesOut}


_C = {"numtorch": _classes(numtorch), "torch": _classes(torch)}


def _cls(L, name):
    return _C[L.__name__][name]


def _t(L, arr):
    return L.tensor(arr)


def _run(fn):
    """``fn(L)`` for both libraries: equal values, or the same exception class and text."""
    try:
        want = fn(torch)
    except Exception as e:  # noqa: BLE001 - the oracle's class and message are the spec
        with pytest.raises(type(e)) as got:
            fn(numtorch)
        assert str(got.value) == str(e)
        return
    got = fn(numtorch)
    flat_w = want if isinstance(want, (tuple, list)) else (want,)
    flat_g = got if isinstance(got, (tuple, list)) else (got,)
    assert len(flat_w) == len(flat_g)
    for g, w in zip(flat_g, flat_w):
        assert tuple(g.shape) == tuple(w.shape)
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)


X = RNG.standard_normal((3, 2))
W = RNG.standard_normal((3, 2))
V = RNG.standard_normal(2)


def _sq_sum(L, name):
    return lambda z: _cls(L, name).apply(z).sum()


ERROR_CASES = {
    "setup_context needed under grad": lambda L: L.func.grad(_sq_sum(L, "Old"))(_t(L, V)),
    "setup_context needed under vmap": lambda L: L.func.vmap(_cls(L, "Old").apply)(_t(L, X)),
    "setup_context needed under jvp": lambda L: L.func.jvp(
        _cls(L, "Old").apply, (_t(L, V),), (_t(L, V),)),
    "setup_context needed under vjp": lambda L: L.func.vjp(_cls(L, "Old").apply, _t(L, V)),
    "vmap support needed": lambda L: L.func.vmap(_cls(L, "New").apply)(_t(L, X)),
    "vmap support needed, input unbatched": lambda L: L.func.vmap(
        lambda z: _cls(L, "New").apply(_t(L, V)) + z)(_t(L, X)),
    "vmap support needed under jacfwd": lambda L: L.func.jacfwd(_cls(L, "New").apply)(
        _t(L, V)),
    "jvp needed": lambda L: L.func.jvp(_cls(L, "New").apply, (_t(L, V),), (_t(L, V),)),
    "jvp needed under linearize": lambda L: L.func.linearize(_cls(L, "New").apply, _t(L, V)),
    "base vmap": lambda L: L.autograd.Function.vmap(None, (0,), _t(L, V)),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_transform_rules_and_errors(name):
    _run(ERROR_CASES[name])


VALUE_CASES = {
    # no tangent reaches the Function: no jvp needed
    "jvp, Function on a constant": lambda L: L.func.jvp(
        lambda z: _cls(L, "New").apply(_t(L, V)) + z, (_t(L, V),), (_t(L, V),)),
    "grad through setup_context form": lambda L: L.func.grad(_sq_sum(L, "New"))(_t(L, V)),
    "jacrev": lambda L: L.func.jacrev(_cls(L, "New").apply)(_t(L, V)),
    "vjp": lambda L: L.func.vjp(_cls(L, "New").apply, _t(L, V))[1](_t(L, V)),
    "jvp with a jvp": lambda L: L.func.jvp(_cls(L, "Gen").apply, (_t(L, V),), (_t(L, V),)),
    "vmap generated": lambda L: L.func.vmap(_cls(L, "Gen").apply)(_t(L, X)),
    "vmap of grad (per-sample gradients)": lambda L: L.func.vmap(L.func.grad(
        _sq_sum(L, "Gen")))(_t(L, X)),
    "grad of vmap": lambda L: L.func.grad(
        lambda z: L.func.vmap(_cls(L, "Gen").apply)(z).sum())(_t(L, X)),
    "jacrev of vmap": lambda L: L.func.jacrev(L.func.vmap(_cls(L, "Gen").apply))(
        _t(L, X[:2])),
    "vmap of jacrev": lambda L: L.func.vmap(L.func.jacrev(_cls(L, "Gen").apply))(_t(L, X)),
    "vmap of vjp": lambda L: L.func.vmap(
        lambda z, c: L.func.vjp(_cls(L, "Gen").apply, z)[1](c)[0])(_t(L, X), _t(L, W)),
    "vmap twice of grad": lambda L: L.func.vmap(L.func.vmap(L.func.grad(
        _sq_sum(L, "Gen"))))(_t(L, X[:, :, None].repeat(2, 2))),
    "vmap with one unbatched input, grad of both": lambda L: L.func.vmap(
        L.func.grad(lambda x, w: _cls(L, "TwoIn").apply(x, w)[0].sum() * 1.5, argnums=(0, 1)),
        in_dims=(0, None))(_t(L, X), _t(L, V)),
    "grad of vmap with an unbatched weight": lambda L: L.func.grad(
        lambda w: L.func.vmap(lambda x: _cls(L, "TwoIn").apply(x, w)[1])(_t(L, X)).sum())(
        _t(L, V)),
    "vmap, saved output": lambda L: L.func.vmap(L.func.grad(_sq_sum(L, "SavesOut")))(
        _t(L, X)),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values_and_gradients(name):
    _run(VALUE_CASES[name])


@pytest.mark.parametrize("which", ["Gen", "SavesOut"])
def test_backward_after_vmap_uses_the_functions_backward(which):
    def fn(L):
        x = _t(L, X).requires_grad_()
        w = _t(L, W)
        y = L.func.vmap(_cls(L, which).apply)(x)
        (y * w).sum().backward()
        return y.detach(), x.grad

    _run(fn)


def test_backward_after_vmap_two_inputs_unbatched_weight():
    def fn(L):
        x = _t(L, X).requires_grad_()
        w = _t(L, V).requires_grad_()
        y, s = L.func.vmap(_cls(L, "TwoIn").apply, in_dims=(0, None))(x, w)
        (y.sum() + 2 * s.sum()).backward()
        return y.detach(), s.detach(), x.grad, w.grad

    _run(fn)


def test_batched_custom_node_is_in_the_graph():
    # torch names it VmappedGenBackward at the output; numtorch's output node is the move of
    # the batch dim, with the Function's own node (GenBackward) behind it
    x = _t(numtorch, X).requires_grad_()
    y = numtorch.func.vmap(_cls(numtorch, "Gen").apply)(x)
    seen, todo = set(), [y.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == "GenBackward":
            break
        todo.extend(n for n, _ in node.next_functions)
    else:
        raise AssertionError("the custom Function's node is not in the graph")


def _rule_calls(fn):
    out = {}
    for L in (numtorch, torch):
        rule = _cls(L, "Rule")
        rule.calls.clear()
        val = fn(L)
        out[L.__name__] = (val, [c[:2] for c in rule.calls], [c[3] for c in rule.calls])
    return out


@pytest.mark.parametrize("case", ["plain", "nested", "in_dims None", "out_dims 1"])
def test_vmap_staticmethod_is_called_like_torchs(case):
    fns = {
        "plain": lambda L: L.func.vmap(_cls(L, "Rule").apply)(_t(L, X)),
        "nested": lambda L: L.func.vmap(L.func.vmap(_cls(L, "Rule").apply))(
            _t(L, np.stack([X, W]))),
        "in_dims None": lambda L: L.func.vmap(lambda a, b: _cls(L, "Rule").apply(a) + b,
                                              in_dims=(None, 0))(_t(L, V), _t(L, X)),
        "out_dims 1": lambda L: L.func.vmap(_cls(L, "Rule").apply, in_dims=1, out_dims=1)(
            _t(L, X)),
    }
    got = _rule_calls(fns[case])
    (a, calls_a, dims_a), (b, calls_b, dims_b) = got["numtorch"], got["torch"]
    assert calls_a == calls_b  # batch size and randomness, once per innermost level
    assert dims_a == dims_b  # the rule sees each sample's rank plus the batch dim
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


def test_vmap_staticmethod_with_grad_uses_backward():
    def fn(L):
        return L.func.vmap(L.func.grad(_sq_sum(L, "Rule")))(_t(L, X))

    _run(fn)


def test_generate_vmap_rule_default():
    assert numtorch.autograd.Function.generate_vmap_rule is False
    assert torch.autograd.Function.generate_vmap_rule is False
