"""Small autograd user programs run on numtorch and on torch (see tests/test_user_programs.py):
hooks, retain_grad, gradients of non-leaves, create_graph, detach, no_grad, inference_mode,
custom Functions, node names and the errors of common mistakes."""

import pytest

from tests.oracle import same
from tests.test_user_programs import _err, table

P, program = table()


@program
def grad_basic_chain(t):
    x = t.tensor([1., 2, 3], requires_grad=True)
    y = (x ** 2 * 3 + x.sin()).sum()
    y.backward()
    return [y, x.grad, x.is_leaf, y.is_leaf, y.grad_fn.name(), x.grad_fn]


@program
def grad_accumulates_and_zero(t):
    w = t.tensor([1., -1.], requires_grad=True)
    for _ in range(3):
        (w * 2).sum().backward()
    g1 = w.grad.clone()
    w.grad.zero_()
    (w ** 3).sum().backward()
    g2 = w.grad.clone()
    w.grad = None
    (w * w).sum().backward()
    return [g1, g2, w.grad]


@program
def retain_grad_nonleaf(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = y * y
    out = z.sum()
    out.backward()
    return [x.grad, y.grad, y.retains_grad, z.grad, z.is_leaf, z.requires_grad]


@program
def nonleaf_grad_warning_value(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = x * 2
    y.sum().backward()
    return [y.grad, x.grad]


@program
def backward_twice_error(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    return [_err(y.backward), x.grad]


@program
def backward_retain_graph_twice(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


@program
def backward_nonscalar_error(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = x * 2
    e = _err(y.backward)
    y.backward(t.tensor([1., 10.]))
    return [e, x.grad]


@program
def backward_without_grad_error(t):
    x = t.tensor([1., 2])
    return [_err(lambda: (x * 2).sum().backward()),
            _err(lambda: t.autograd.grad((x * 2).sum(), x))]


@program
def inplace_on_leaf_error(t):
    x = t.ones(3, requires_grad=True)
    out = [_err(lambda: x.add_(1)), _err(lambda: x.__setitem__(0, 5.)),
           _err(lambda: x.zero_())]
    with t.no_grad():
        x.mul_(3)
    out.append(x)
    out.append(x.requires_grad)
    return out


@program
def inplace_modified_saved_error(t):
    x = t.tensor([1., 2], requires_grad=True)
    y = x * 1
    z = y.exp()
    z.add_(1)
    e1 = _err(lambda: z.sum().backward())
    w = t.ones(3, 2, requires_grad=True)
    y = (w * w).sum()
    with t.no_grad():
        w.add_(1)  # an optimizer step between forward and backward
    e2 = _err(y.backward)
    a = t.tensor([1., 2], requires_grad=True)
    b = a.sigmoid()
    c = b * b
    with t.no_grad():
        b.mul_(2)
    return [e1, e2, _err(lambda: c.sum().backward())]


@program(messages=False)
def inplace_modified_saved_input_in_grad_mode(t):
    # torch names the modified input's node after the in-place op; numtorch names the node
    # it was an output of when saved (the class and the rest of the message agree)
    a = t.tensor([1., 2], requires_grad=True)
    b = a.sigmoid()
    c = b * b
    b.mul_(2)
    return _err(lambda: c.sum().backward())


@program
def inplace_nonleaf_ok(t):
    x = t.tensor([1., 2, 3], requires_grad=True)
    y = x * 2
    y[0] = 0
    y.mul_(x)
    y.sum().backward()
    return [y, x.grad, y.grad_fn.name()]


@program
def grad_of_nonleaf_autograd_grad(t):
    x = t.tensor([1., 2], requires_grad=True)
    h = x.exp()
    y = (h * h).sum()
    gh, gx = t.autograd.grad(y, [h, x])
    return [gh, gx]


@program
def create_graph_second_order(t):
    x = t.tensor([0.5, -1.0], requires_grad=True)
    y = (x ** 3 + x.tanh()).sum()
    g, = t.autograd.grad(y, x, create_graph=True)
    gg, = t.autograd.grad(g.sum(), x)
    x.grad = None
    y2 = (x.sin() * x).sum()
    y2.backward(create_graph=True)
    gx = x.grad
    gx.sum().backward()
    return [g, gg, g.requires_grad, gx.grad_fn is not None, x.grad]


@program
def hessian_vector(t):
    x = t.tensor([1., 2, 3], requires_grad=True)
    f = (x[0] * x[1] ** 2 + x[2].exp() * x[0]).sum()
    g, = t.autograd.grad(f, x, create_graph=True)
    v = t.tensor([1., 0.5, -1])
    hv, = t.autograd.grad(g, x, v)
    return [g, hv]


@program
def detach_semantics(t):
    x = t.tensor([1., 2], requires_grad=True)
    d = x.detach()
    d[0] = 10
    y = x * 2
    z = y.detach().requires_grad_()
    w = (x * d).sum()
    w.backward()
    return [x, d.requires_grad, z.is_leaf, z.requires_grad, x.grad, y.detach().grad_fn,
            x.data.requires_grad]


@program
def no_grad_and_set_grad_enabled(t):
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        y = x * 2
        with t.enable_grad():
            z = x * 2
    with t.set_grad_enabled(False):
        w = x + 1
    t.set_grad_enabled(True)

    @t.no_grad()
    def f(a):
        return a * 3

    return [y.requires_grad, z.requires_grad, w.requires_grad, f(x).requires_grad,
            t.is_grad_enabled(), (x * 1).requires_grad]


@program
def inference_mode_semantics(t):
    x = t.ones(2, requires_grad=True)
    with t.inference_mode():
        y = x * 2
        with t.inference_mode(False):
            z = x * 2
        inner = t.is_inference_mode_enabled()
    out = [y.requires_grad, y.is_inference(), z.requires_grad, inner,
           t.is_inference_mode_enabled(), x.is_inference()]
    out.append(_err(lambda: (y * x).sum().backward()))
    out.append(_err(lambda: y.add_(1)))
    return out


@program
def tensor_hooks(t):
    x = t.tensor([1., 2], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    y = x * 3
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    return [seen, x.grad]


@program
def hook_on_leaf_requires_grad_error(t):
    x = t.ones(2)
    return _err(lambda: x.register_hook(lambda g: g))


@program
def post_accumulate_grad_hook(t):
    p = t.tensor([1., 2], requires_grad=True)
    log = []
    p.register_post_accumulate_grad_hook(lambda q: log.append(q.grad.clone()))
    (p * p).sum().backward()
    (p * 2).sum().backward()
    return log


@program
def custom_function(t):
    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g * ctx.k, None

    x = t.tensor([1., 3], requires_grad=True)
    y = Square.apply(x, 2.0)
    y.sum().backward()
    g2, = t.autograd.grad(Square.apply(x, 1.0).sum(), x, create_graph=True)
    return [y, x.grad, type(y.grad_fn).__name__, g2, g2.requires_grad]


@program
def custom_function_mark_dirty_nondiff(t):
    class Clip(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = x > 0
            ctx.mark_non_differentiable(mask)
            ctx.save_for_backward(mask)
            return x.clamp(min=0), mask

        @staticmethod
        def backward(ctx, g, gm):
            mask, = ctx.saved_tensors
            return g * mask

    x = t.tensor([-1., 2], requires_grad=True)
    y, m = Clip.apply(x)
    y.sum().backward()
    return [y, m, m.requires_grad, x.grad]


@program
def grad_fn_names(t):
    x = t.ones(2, 3, requires_grad=True)
    v = t.ones(3, requires_grad=True)
    outs = [x * 2, x + x, x - 1, x / 2, x ** 2, 2 ** x, x.exp(), x.sum(), x.mean(), x.sum(1),
            x[0], x[:, 1:], x[[0, 1]], x.view(6), x.reshape(3, 2), x.t(), x.transpose(0, 1),
            x.permute(1, 0), x.unsqueeze(0), x.squeeze(), x.expand(2, 2, 3), v @ v, x @ v,
            x @ x.t(), x.relu(), x.sigmoid(), x.tanh(), x.clone(), x.contiguous(),
            t.cat([x, x]), t.stack([x, x]), x.max(), x.max(1)[0], x.abs(), x.neg(),
            x.softmax(1), x.log_softmax(1), t.where(x > 0, x, x * 2), x.clamp(0, 1),
            x.norm(), x.flatten(), x.to(t.float64), x.float(), x.double(), x.split(1)[0],
            x.chunk(3, 1)[0], x.unbind()[0], x.sqrt(), x.pow(2.5), x.prod(), x.cumsum(0),
            x.var(), x.std(), x.amax(0), x.logsumexp(1), x.masked_fill(x > 0, 0.),
            x.gather(1, t.zeros(2, 1, dtype=t.int64)), x.index_select(0, t.tensor([0])),
            t.einsum("ij->i", x), t.einsum("ij,j->i", x, v), t.einsum("ij,kj->ik", x, x)]
    return [o.grad_fn.name() for o in outs]


@program
def grad_fn_next_functions(t):
    x = t.ones(2, requires_grad=True)
    y = t.ones(2)
    z = x * y + x
    nf = z.grad_fn.next_functions
    return [[(type(n).__name__ if n is not None else None, i) for n, i in nf],
            [(type(n).__name__ if n is not None else None, i)
             for n, i in nf[0][0].next_functions]]


@program
def autograd_grad_options(t):
    x = t.tensor([1., 2], requires_grad=True)
    u = t.tensor([3., 4], requires_grad=True)
    y = (x * 2).sum()
    out = [_err(lambda: t.autograd.grad(y, [x, u])),
           t.autograd.grad((x * 2).sum(), [x, u], allow_unused=True),
           t.autograd.grad((x * 2).sum(), [x, u], allow_unused=True,
                           materialize_grads=True),
           t.autograd.grad([x.sum(), (x * x).sum()], x),
           t.autograd.grad(x * 2, x, grad_outputs=t.ones(2))]
    return out


@program
def grad_of_integer_tensor_error(t):
    return [_err(lambda: t.tensor([1, 2], requires_grad=True)),
            _err(lambda: t.ones(2, dtype=t.int64).requires_grad_()),
            t.ones(2, dtype=t.complex64).requires_grad_().requires_grad,
            _err(lambda: setattr(t.ones(2, dtype=t.int32), "requires_grad", True)),
            _err(lambda: t.nn.Parameter(t.ones(2, dtype=t.int64))),
            _err(lambda: t.zeros(2, dtype=t.bool).requires_grad_()),
            _err(lambda: t.arange(3, requires_grad=True))]


@program
def sinc_second_derivative(t):
    x = t.tensor([0., 0.5, -1.0], requires_grad=True)
    g, = t.autograd.grad(t.sinc(x).sum(), x, create_graph=True)
    gg, = t.autograd.grad(g.sum(), x)
    return [g, gg]


@program
def nondifferentiable_outputs(t):
    x = t.tensor([1.5, -2.5], requires_grad=True)
    return [x.argmax().requires_grad, (x > 0).requires_grad, x.round().requires_grad,
            x.sign().requires_grad, x.floor().grad_fn.name(), t.autograd.grad(x.round().sum(),
            x)[0], x.long().requires_grad]


@program
def kink_subgradients(t):
    x = t.tensor([0., 1, -1, 0], requires_grad=True)
    gs = []
    for f in (lambda a: a.relu(), lambda a: a.abs(), lambda a: a.clamp(0, 1), lambda a: a.sqrt(),
              lambda a: t.maximum(a, t.zeros(4)), lambda a: a.max(), lambda a: a.amax(),
              lambda a: a.norm(), lambda a: a.median(), lambda a: a.sign(),
              lambda a: t.nn.functional.hardtanh(a), lambda a: a.clamp(min=0)):
        g, = t.autograd.grad(f(x).sum(), x)
        gs.append(g)
    return gs


@program
def grad_broadcast_and_views(t):
    a = t.ones(3, 1, requires_grad=True)
    b = t.arange(4., requires_grad=True)
    c = (a * b).expand(2, 3, 4)[1, :, ::2]
    c.sum().backward()
    v = t.arange(6., requires_grad=True)
    w = v.view(2, 3).t()[1:]
    (w * w).sum().backward()
    return [a.grad, b.grad, v.grad]


@program
def anomaly_and_version(t):
    x = t.ones(2, requires_grad=True)
    y = x * 2
    v0 = y._version
    y.add_(1)
    return [v0, y._version, t.is_anomaly_enabled()]


@program
def functional_jacobian_hessian(t):
    def f(x):
        return (x ** 2).sum() * x[0]
    x = t.tensor([1., 2.])
    return [t.autograd.functional.jacobian(lambda a: a ** 2, x),
            t.autograd.functional.hessian(f, x),
            t.autograd.functional.vjp(lambda a: a.exp(), x, t.ones(2))[1],
            t.autograd.functional.jvp(lambda a: a.exp(), x, t.ones(2))[1]]


@program
def func_grad_vmap(t):
    x = t.arange(6.).reshape(2, 3)
    return [t.func.vmap(t.dot)(x, x), t.func.grad(lambda a: (a ** 2).sum())(x[0]),
            t.func.vmap(t.func.grad(lambda a: a.sin().sum()))(x),
            t.func.jacrev(lambda a: a.exp())(x[0]),
            t.func.vmap(lambda a: a.sum(0), in_dims=1)(x)]


@program(rtol=1e-5, atol=1e-6)
def vmap_sdpa(t):
    q = t.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4)
    k = t.linspace(1, -1, 2 * 3 * 4).reshape(2, 3, 4)
    v = t.linspace(0, 2, 2 * 3 * 4).reshape(2, 3, 4)
    f = t.nn.functional.scaled_dot_product_attention
    return [t.func.vmap(f)(q, k, v), t.func.vmap(lambda a, b, c: f(a, b, c, is_causal=True))(
        q, k, v), t.func.vmap(f, in_dims=(0, None, None))(q, k[0], v[0]),
        t.func.vmap(lambda a, b, c, m: f(a, b, c, attn_mask=m))(q, k, v, t.tensor(
            [[True, False, True], [False, False, False], [True, True, True]]).expand(2, 3, 3))]


@program
def checkpoint_grad(t):
    from importlib import import_module
    cp = import_module(t.__name__ + ".utils.checkpoint")
    x = t.tensor([1., 2], requires_grad=True)
    y = cp.checkpoint(lambda a: a.sin() * a, x, use_reentrant=False)
    y.sum().backward()
    return [y, x.grad]


@program
def no_grad_param_update_loop(t):
    w = t.tensor([2.0], requires_grad=True)
    for _ in range(5):
        loss = (w * 3 - 1) ** 2
        loss.backward()
        with t.no_grad():
            w -= 0.01 * w.grad
        w.grad.zero_()
    return [w, w.requires_grad, w.is_leaf]


PROGRAMS = sorted(P.items())


@pytest.mark.parametrize("name", [n for n, _ in PROGRAMS])
def test_user_program(name):
    fn, opts = P[name]
    same(fn, **opts)


def test_backward_inputs_on_a_retained_non_leaf_accumulates_once():
    import torch

    import numtorch

    got = []
    for lib in (numtorch, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        h.retain_grad()
        (h ** 2).sum().backward(inputs=[h], retain_graph=True)
        first = h.grad.tolist()
        (h ** 2).sum().backward(inputs=[h, x])
        got.append((first, h.grad.tolist(), x.grad.tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "celu", "selu", "relu"])
def test_in_place_activation_result_modified_again_fails_as_torch(name):
    import torch

    import numtorch

    got = []
    for lib in (numtorch, torch):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        z = getattr(lib.nn.functional, name)(x * 1, inplace=True)
        node = type(z.grad_fn).__name__
        z.mul_(2)
        with pytest.raises(RuntimeError) as info:
            z.sum().backward()
        got.append((node, str(info.value)))
        x2 = lib.tensor([-1.0, 2.0], requires_grad=True)
        getattr(lib.nn.functional, name)(x2 * 1, inplace=True).sum().backward()
        got.append([round(v, 6) for v in x2.grad.tolist()])  # torch: from the result
    assert got[:2] == got[2:]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kind", ["Conv1d", "Conv2d", "ConvTranspose2d", "Conv3d"])
def test_convolution_dtype_mismatch_errors_as_torch(kind, bias):
    import torch

    import numtorch

    shape = {"Conv1d": (1, 1, 5), "Conv3d": (1, 1, 5, 5, 5)}.get(kind, (1, 1, 5, 5))
    got = []
    for lib in (numtorch, torch):
        conv = getattr(lib.nn, kind)(1, 2, 3, bias=bias)
        seen = []
        for dt in (lib.int32, lib.int64, lib.float64, lib.bfloat16, lib.float16, lib.uint8):
            with pytest.raises(Exception) as info:
                conv(lib.ones(shape, dtype=dt))
            seen.append((type(info.value).__name__, str(info.value)))
        got.append(seen)
    assert got[0] == got[1]


@pytest.mark.parametrize("ishape, tshape, dtype", [
    ((3, 5), (3,), "float32"), ((3, 5), (3, 4), "float32"), ((3, 5), (2,), "float32"),
    ((5,), (2,), "float32"), ((5,), (2,), "int64"), ((2, 5, 4), (2, 3), "float32"),
    ((2, 5, 4, 4), (2, 4), "float32"), ((3, 5), (3, 1), "int64")])
def test_class_index_target_errors_in_torchs_order(ishape, tshape, dtype):
    import torch

    import numtorch

    got = []
    for lib in (numtorch, torch):
        for fn in (lib.nn.functional.cross_entropy, lib.nn.functional.nll_loss):
            with pytest.raises(Exception) as info:
                fn(lib.zeros(ishape), lib.zeros(tshape, dtype=getattr(lib, dtype)))
            got.append((type(info.value).__name__, str(info.value)))
    assert got[:2] == got[2:]
