"""Session 49 parity tests of torch.func: each case runs the same user code under real torch
and under numtorch and compares values, dtypes, shapes and exceptions at test time."""

import pytest

from tests._compare_user_code import check as _check


# -- custom autograd.Function with a jvp: forward mode uses jvp, not backward -----------------
def _scale_fn(lib):
    """forward x*2, backward g*5, jvp g*3: torch's forward mode gives 3."""

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 5

        @staticmethod
        def jvp(ctx, g):
            return g * 3

    return Scale


def _sin_fn(lib, vmap_kind):
    """sin(x)*y and cos(x), with a backward deliberately unlike the jvp (so which one ran
    shows in the values); ``vmap_kind``: "generate" or "own"."""

    class SinMul(lib.autograd.Function):
        generate_vmap_rule = vmap_kind == "generate"

        @staticmethod
        def forward(x, y):
            return x.sin() * y, x.cos()

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_forward(x, y)
            ctx.save_for_backward(y, x)

        @staticmethod
        def backward(ctx, g1, g2):
            y, x = ctx.saved_tensors
            return g1 * 11 + g2 * y, g1 * 13 * x

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * x.cos() * y + x.sin() * ty, -x.sin() * tx

    if vmap_kind == "own":
        def vmap(info, in_dims, x, y):
            xd, yd = in_dims
            x = x.movedim(xd, 0) if xd is not None else x.unsqueeze(0)
            y = y.movedim(yd, 0) if yd is not None else y.unsqueeze(0)
            return SinMul.apply(x, y), (0, 0)

        SinMul.vmap = staticmethod(vmap)
    return SinMul


def _xy(lib):
    return lib.tensor([0.5, 1.0, 2.0]), lib.tensor([1.5, -1.0, 0.3])


JVP_CASES = {
    "jvp": lambda lib: lib.func.jvp(_scale_fn(lib).apply, (lib.tensor([1., 2.]),),
                                    (lib.ones(2),)),
    "linearize": lambda lib: lib.func.linearize(_scale_fn(lib).apply,
                                                lib.tensor([1., 2.]))[1](lib.ones(2)),
    "jvp_two_outputs": lambda lib: lib.func.jvp(
        _sin_fn(lib, "generate").apply, _xy(lib), (lib.ones(3), lib.ones(3) * 2)),
    "jvp_one_primal": lambda lib: lib.func.jvp(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1]), (_xy(lib)[0],),
        (lib.tensor([1., 2., 3.]),)),
    "jacfwd_generate": lambda lib: lib.func.jacfwd(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0])(_xy(lib)[0]),
    "jacfwd_own_vmap_argnums": lambda lib: lib.func.jacfwd(
        _sin_fn(lib, "own").apply, argnums=(0, 1))(*_xy(lib)),
    "linearize_two_inputs": lambda lib: lib.func.linearize(
        _sin_fn(lib, "generate").apply, *_xy(lib))[1](lib.ones(3), lib.ones(3) * 2),
    "vmap_of_jvp": lambda lib: lib.func.vmap(
        lambda x, t: lib.func.jvp(lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0],
                                  (x,), (t,)))(lib.stack(_xy(lib)), lib.stack(_xy(lib)[::-1])),
    "jvp_mixed_with_ops": lambda lib: lib.func.jvp(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0]
        * _sin_fn(lib, "generate").apply(x * 2, _xy(lib)[1])[1],
        (_xy(lib)[0],), (lib.tensor([1., 2., 3.]),)),
    "jacrev_of_jacfwd": lambda lib: lib.func.jacrev(lib.func.jacfwd(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0].sum()))(_xy(lib)[0]),
    "jacfwd_of_jacrev": lambda lib: lib.func.jacfwd(lib.func.jacrev(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0].sum()))(_xy(lib)[0]),
    "jvp_of_grad": lambda lib: lib.func.jvp(lib.func.grad(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0].sum()),
        (_xy(lib)[0],), (lib.ones(3),)),
    "grad_still_uses_backward": lambda lib: lib.func.grad(
        lambda x: _sin_fn(lib, "generate").apply(x, _xy(lib)[1])[0].sum())(_xy(lib)[0]),
}


@pytest.mark.parametrize("name", sorted(JVP_CASES))
def test_custom_function_forward_mode_uses_jvp(name):
    _check(JVP_CASES[name])


def _jvp_result_then_backward(lib):
    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    f = _sin_fn(lib, "generate")
    out = lib.func.jvp(lambda x: f.apply(x, _xy(lib)[1])[0], (x,), (lib.ones(3),))[1]
    out.sum().backward()
    return out.detach(), out.requires_grad, x.grad


def test_custom_function_jvp_result_backward():
    _check(_jvp_result_then_backward)


def _no_jvp(lib, transform):
    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = lib.tensor([1., 2.])
    if transform == "jvp":
        return lib.func.jvp(NoJvp.apply, (x,), (lib.ones(2),))
    return lib.func.linearize(NoJvp.apply, x)[1](lib.ones(2))


@pytest.mark.parametrize("transform", ["jvp", "linearize"])
def test_custom_function_without_jvp_refused(transform):
    _check(lambda lib: _no_jvp(lib, transform))


def _bad_jvp(lib, kind):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def jvp(ctx, t):
            return t.sum() if kind == "shape" else (t, t)

    return lib.func.jvp(Bad.apply, (lib.tensor([1., 2.]),), (lib.ones(2),))


@pytest.mark.parametrize("kind", ["shape", "count"])
def test_custom_function_bad_jvp_errors(kind):
    _check(lambda lib: _bad_jvp(lib, kind))


def _jvp_sees(lib):
    """What the jvp receives: zeros for a float input without a tangent, None for a
    non-tensor, and only what save_for_forward kept."""
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(x, y, k):
            return x * y * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.k = inputs[2]

        @staticmethod
        def backward(ctx, g):
            return g, g, None

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            seen.append((tx.tolist(), None if ty is None else ty.tolist(), tk,
                         len(ctx.saved_tensors)))
            return tx * ctx.k

    x, y = lib.tensor([1., 2.]), lib.tensor([3., 4.])
    out = lib.func.jvp(lambda x: F.apply(x, y, 2.0), (x,), (lib.ones(2),))
    return out, seen


def test_custom_function_jvp_arguments():
    _check(_jvp_sees)


def _bn_per_sample(lib, mode):
    lib.manual_seed(0)
    bn = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
    if mode == "eval":
        bn.eval()
    params = {k: v.detach() for k, v in bn.named_parameters()}
    bufs = dict(bn.named_buffers())

    def loss(p, b, xb):
        return lib.func.functional_call(bn, (p, b), (xb.unsqueeze(0),)).sum()

    x = lib.arange(15.).reshape(5, 3) / 7
    return lib.func.vmap(lib.func.grad(loss), in_dims=(None, None, 0))(params, bufs, x)


@pytest.mark.parametrize("mode", ["train", "eval"])
def test_vmap_batch_norm_one_value_per_channel(mode):
    _check(lambda lib: _bn_per_sample(lib, mode))


def _hooks(lib):
    return lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)


def _inside(lib):
    def f(a):
        with _hooks(lib):
            return (a.sin() * a).sum()
    return f


def _outside(lib, transform):
    with _hooks(lib):
        return transform(lambda a: (a.sin() * a).sum())


def _cp(lib, reentrant):
    return lambda a: lib.utils.checkpoint.checkpoint(lambda b: (b.sin() * b).sum(), a,
                                                     use_reentrant=reentrant)


_V = [0.5, 1.0, 2.0]
HOOK_CASES = {
    "grad_inside": lambda lib: lib.func.grad(_inside(lib))(lib.tensor(_V)),
    "vjp_inside": lambda lib: lib.func.vjp(_inside(lib), lib.tensor(_V))[0],
    "jvp_inside": lambda lib: lib.func.jvp(_inside(lib), (lib.tensor(_V),), (lib.ones(3),)),
    "vmap_inside": lambda lib: lib.func.vmap(_inside(lib))(lib.ones(2, 3)),
    "grad_outside": lambda lib: _outside(lib, lambda f: lib.func.grad(f)(lib.tensor(_V))),
    "jacrev_outside": lambda lib: _outside(lib, lambda f: lib.func.jacrev(f)(lib.tensor(_V))),
    "grad_checkpoint": lambda lib: lib.func.grad(_cp(lib, False))(lib.tensor(_V)),
    "jvp_checkpoint": lambda lib: lib.func.jvp(_cp(lib, False), (lib.tensor(_V),),
                                               (lib.ones(3),)),
    "grad_checkpoint_reentrant": lambda lib: lib.func.grad(_cp(lib, True))(lib.tensor(_V)),
    "vmap_checkpoint_reentrant": lambda lib: lib.func.vmap(_cp(lib, True))(lib.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(HOOK_CASES))
def test_saved_tensor_hooks_under_transforms(name):
    _check(HOOK_CASES[name])
