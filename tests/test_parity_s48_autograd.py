"""Autograd parity found by user-style programs (session 48): custom Function outputs that
share memory with an input (returned as-is, or a view made in forward), in-place writes on a
view that was made a leaf, and forward-mode tangents of such outputs. Every case compares
with torch at test time."""

import math
import warnings

import pytest
import torch

import numtorch


def _plain(v):
    if isinstance(v, (tuple, list)):
        return type(v).__name__, [_plain(x) for x in v]
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return (str(v.dtype).replace("numtorch", "torch"), list(v.shape), v.tolist(),
                v.requires_grad)
    if hasattr(v, "name") and hasattr(v, "next_functions"):
        return "node", v.name()
    return v


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _plain(fn())
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            return type(e).__name__, str(e).split("\n")[0]


def _close(a, b, tol=1e-5):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= tol * (1 + abs(b)) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    return a == b


def _same(case):
    got, want = _outcome(lambda: case(numtorch)), _outcome(lambda: case(torch))
    assert _close(got, want), (got, want)


# -- custom Function outputs sharing memory with an input ---------------------------------------

def _bwd(ctx, *g):
    return None if g[0] is None else g[0].sum() * g[0].new_ones((2, 3))


def _fwd_ident(ctx, x):
    return x


def _fwd_view(ctx, x):
    return x.view(-1)


def _fwd_select(ctx, x):
    return x[0]


def _fwd_internal(ctx, x):
    return (x * 2).view(-1)


def _fwd_two(ctx, x):
    return x.view(-1), x[0]


def _fwd_mix(ctx, x):
    return x.view(-1), x * 2


def _fwd_ident_and_new(ctx, x):
    return x, x * 2


def _fwd_nd_view(ctx, x):
    a, b = x.view(-1), x[0]
    ctx.mark_non_differentiable(b)
    return a, b


def _fwd_ident_nd(ctx, x):
    ctx.mark_non_differentiable(x)
    return x


def _fwd_saved_ident(ctx, x):
    ctx.save_for_backward(x)
    return x


FORWARDS = {
    "ident": _fwd_ident,
    "view": _fwd_view,
    "select": _fwd_select,
    "internal": _fwd_internal,
    "two_views": _fwd_two,
    "view_and_new": _fwd_mix,
    "ident_and_new": _fwd_ident_and_new,
    "nondiff_view": _fwd_nd_view,
    "nondiff_ident": _fwd_ident_nd,
    "saved_ident": _fwd_saved_ident,
}


def _fn(L, fwd):
    return type("Fn", (L.autograd.Function,), {"forward": staticmethod(fwd),
                                               "backward": staticmethod(_bwd)})


def _first(o):
    return o[0] if isinstance(o, tuple) else o


def _last(o):
    return o[-1] if isinstance(o, tuple) else o


def _y(L, rg=True):
    x = L.arange(6.).reshape(2, 3).requires_grad_(rg)
    return x, x * 1


def _props(L, fwd):
    _, y = _y(L)
    out = _fn(L, fwd).apply(y)
    return [(o._base is y, o._base is None, o.requires_grad, o.is_leaf,
             None if o.grad_fn is None else o.grad_fn.name())
            for o in (out if isinstance(out, tuple) else (out,))]


def _backward(L, fwd):
    x, y = _y(L)
    _first(_fn(L, fwd).apply(y)).sum().backward()
    return x.grad


def _write_out(pick):
    def case(L, fwd):
        x, y = _y(L)
        o = pick(_fn(L, fwd).apply(y))
        o.mul_(2)
        _first(o).sum().backward()
        return x.grad, y
    return case


def _write_input(L, fwd):
    _, y = _y(L)
    o = _fn(L, fwd).apply(y)
    y.mul_(2)
    return _first(o).grad_fn, _last(o).sum()


def _write_out_no_grad(L, fwd):
    x, y = _y(L)
    o = _fn(L, fwd).apply(y)
    with L.no_grad():
        _first(o).mul_(2)
    _first(o).sum().backward()
    return x.grad


def _write_detached(L, fwd):
    _, y = _y(L)
    o = _fn(L, fwd).apply(y)
    _first(o).detach().add_(1)
    return _first(o).sum()


def _made_under_no_grad(L, fwd):
    _, y = _y(L)
    with L.no_grad():
        o = _fn(L, fwd).apply(y)
    r = (_first(o)._base is None, _first(o).requires_grad)
    _first(o).mul_(2)
    return r, y


def _leaf_input(L, fwd):
    x = L.ones(2, 3, requires_grad=True)
    o = _first(_fn(L, fwd).apply(x))
    r = (o._base is x, o.is_leaf)
    o.add_(1)
    return r


def _input_without_grad(L, fwd):
    _, y = _y(L, rg=False)
    o = _first(_fn(L, fwd).apply(y))
    r = (o._base is y, o.requires_grad)
    o.mul_(L.ones(2, 3, requires_grad=True)[0])
    return r, y


def _view_of_output(L, fwd):
    _, y = _y(L)
    v = _first(_fn(L, fwd).apply(y))[0]
    r = (v._base is y, v.grad_fn.name())
    v.mul_(2)
    return r


def _view_of_output_base_written(L, fwd):
    _, y = _y(L)
    v = _first(_fn(L, fwd).apply(y))[:1]
    with L.no_grad():
        y.add_(1)
    return v.requires_grad, v.grad_fn


SCENARIOS = {
    "props": _props,
    "backward": _backward,
    "write_first": _write_out(_first),
    "write_last": _write_out(_last),
    "write_input": _write_input,
    "write_no_grad": _write_out_no_grad,
    "write_detached": _write_detached,
    "made_no_grad": _made_under_no_grad,
    "leaf_input": _leaf_input,
    "input_without_grad": _input_without_grad,
    "view_of_output": _view_of_output,
    "view_of_output_base_written": _view_of_output_base_written,
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("forward", sorted(FORWARDS))
def test_custom_function_output_sharing_memory(forward, scenario):
    _same(lambda L: SCENARIOS[scenario](L, FORWARDS[forward]))


def _fwd_dirty(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


DIRTY = {
    "leaf_made_from_view": lambda L: L.arange(6.).reshape(2, 3).requires_grad_(),
    "view_of_that_leaf": lambda L: L.arange(6.).reshape(2, 3).requires_grad_()[0],
    "plain_leaf": lambda L: L.ones(3, requires_grad=True),
    "nonleaf": lambda L: L.ones(3, requires_grad=True) * 1,
    "view_of_nonleaf": lambda L: (L.ones(2, 3, requires_grad=True) * 1)[1],
}


@pytest.mark.parametrize("make", sorted(DIRTY))
def test_mark_dirty_on_leaves_and_views(make):
    def case(L):
        t = DIRTY[make](L)
        o = _fn(L, _fwd_dirty).apply(t)
        return o is t, o.grad_fn.name()
    _same(case)


# -- in-place writes through a view that was made a leaf ----------------------------------------

WRITES = {
    "itself": lambda t: t.mul_(2),
    "row": lambda t: t[0].mul_(2),
    "flat": lambda t: t.view(-1).add_(1),
    "setitem": lambda t: t.__setitem__(0, 1.0),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_inplace_on_view_made_leaf(write):
    def case(L):
        t = L.arange(6.).reshape(2, 3).requires_grad_()
        WRITES[write](t)
        return t.is_leaf, t
    _same(case)


def test_inplace_on_view_made_leaf_under_no_grad_and_with_grad_operand_only():
    def case(L):
        t = L.arange(6.).reshape(2, 3).requires_grad_()
        with L.no_grad():
            t[0].mul_(2)
        z = L.zeros(6).view(2, 3)
        z[0] = t[1]
        z.sum().backward()
        return t.grad, z.grad_fn.name(), t.is_leaf
    _same(case)


# -- forward-mode tangents of such outputs (jvp) -------------------------------------------------

JVPS = {
    "as_is": lambda ctx, g: g,
    "view": lambda ctx, g: g.view_as(g),
    "scaled": lambda ctx, g: g * 3,
    "view_of_new": lambda ctx, g: (g * 2).view_as(g),
}


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("forward", ["ident", "view"])
@pytest.mark.parametrize("jvp", sorted(JVPS))
def test_custom_function_view_output_tangent(jvp, forward, no_grad):
    fwd = {"ident": _fwd_ident, "view": lambda ctx, x: x.view(2, 3)}[forward]

    def case(L):
        F = type("Fn", (L.autograd.Function,), {"forward": staticmethod(fwd),
                                                "backward": staticmethod(_bwd),
                                                "jvp": staticmethod(JVPS[jvp])})
        fw = L.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(L.ones(2, 3), L.arange(6.).reshape(2, 3))
            if no_grad:
                with L.no_grad():
                    o = F.apply(x)
            else:
                o = F.apply(x * 1)
            return fw.unpack_dual(o).tangent
    _same(case)


# -- outputs of a module with a full backward hook (torch wraps them in a custom Function) -------

class _TwoOut:
    @staticmethod
    def make(L):
        class M(L.nn.Module):
            def forward(self, a, b):
                return a + b, a * b
        return M()


def _hooked(L, make, pre=False):
    L.manual_seed(0)
    m = make(L)
    log = []
    m.register_full_backward_hook(lambda mod, gi, go: log.append(
        [None if g is None else list(g.shape) for g in gi]))
    if pre:
        m.register_full_backward_pre_hook(lambda mod, go: log.append(len(go)))
    return m, log


def _x(L, rg=True, nonleaf=False):
    x = L.arange(6.).view(2, 3).clone().requires_grad_(rg)
    return x * 1 if nonleaf else x


def _hooked_props(L):
    y = _hooked(L, lambda L: L.nn.Linear(3, 3))[0](_x(L))
    return y.grad_fn.name(), y._base is None, y.is_leaf


HOOKED = {
    "props": _hooked_props,
    "mul_": lambda L: _hooked(L, lambda L: L.nn.Linear(3, 3))[0](_x(L)).mul_(2),
    "setitem": lambda L: _hooked(L, lambda L: L.nn.Linear(3, 3))[0](_x(L)).__setitem__(0, 1.),
    "view_mul_": lambda L: _hooked(L, lambda L: L.nn.Linear(3, 3))[0](_x(L)).view(-1).mul_(2),
    "input_without_grad": lambda L: _hooked(L, lambda L: L.nn.Linear(3, 3))[0](
        _x(L, rg=False)).mul_(2),
    "relu_iadd": lambda L: _hooked(L, lambda L: L.nn.ReLU())[0](_x(L)).__iadd__(1),
    "relu_inplace_module": lambda L: _hooked(L, lambda L: L.nn.ReLU(inplace=True))[0](
        _x(L, nonleaf=True)),
    "pre_hook": lambda L: _hooked(L, lambda L: L.nn.Linear(3, 3), pre=True)[0](_x(L)).mul_(2),
    "two_outputs": lambda L: _hooked(L, _TwoOut.make)[0](_x(L), _x(L))[1].mul_(2),
}


def _hooked_no_grad_write(L):
    m, log = _hooked(L, lambda L: L.nn.Linear(3, 3))
    y = m(_x(L))
    with L.no_grad():
        y.mul_(2)
    y.sum().backward()
    return log


def _hooked_identity_input_written(L):
    m, _ = _hooked(L, lambda L: L.nn.Identity())
    x = _x(L, nonleaf=True)
    y = m(x)
    r = (y is x, y._base is x)
    x.mul_(2)
    return r, y.sum()


def _hooked_backward(L):
    m, log = _hooked(L, lambda L: L.nn.Linear(3, 3))
    x = _x(L)
    m(x).clone().mul_(2).sum().backward()
    return log, x.grad.shape


HOOKED.update({"no_grad_write": _hooked_no_grad_write,
               "identity_input_written": _hooked_identity_input_written,
               "clone_then_write": _hooked_backward})


@pytest.mark.parametrize("case", sorted(HOOKED))
def test_full_backward_hook_outputs(case):
    _same(HOOKED[case])


# -- autograd.grad(is_grads_batched=True) corners -------------------------------------------------

def _xv(L):
    return L.tensor([1., 2.], requires_grad=True)


def _batched_materialized(L):
    x, z = _xv(L), L.tensor([1., 2., 3.], requires_grad=True)
    return L.autograd.grad(x ** 2, [x, z], L.eye(2), is_grads_batched=True, allow_unused=True,
                           materialize_grads=True)


def _batched_materialized_create(L):
    x, z = _xv(L), L.tensor([1., 2., 3.], requires_grad=True)
    g = L.autograd.grad(x ** 2, [x, z], L.eye(2), is_grads_batched=True,
                        materialize_grads=True, create_graph=True)
    return [t.requires_grad for t in g], g


def _batched(out, grad_out, extra=False, **kw):
    def case(L):
        x = _xv(L)
        ins = [x, L.ones(3, requires_grad=True)] if extra else x
        return L.autograd.grad(out(L, x), ins, grad_out(L), is_grads_batched=True, **kw)
    return case


BATCHED = {
    "materialized": _batched_materialized,
    "materialized_create_graph": _batched_materialized_create,
    "unused_none": _batched(lambda L, x: x ** 2, lambda L: L.eye(2), True, allow_unused=True),
    "materialize_not_unused": _batched(lambda L, x: x ** 2, lambda L: L.eye(2), True,
                                       allow_unused=False, materialize_grads=True),
    "empty_batch": _batched(lambda L, x: x ** 2, lambda L: L.ones(0, 2)),
    "none_vector_output": _batched(lambda L, x: x ** 2, lambda L: None),
    "none_scalar_output": _batched(lambda L, x: x.sum(), lambda L: None),
    "zero_dim_grad": _batched(lambda L, x: x.sum(), lambda L: L.tensor(1.)),
    "scalar_output": _batched(lambda L, x: (x ** 2).sum(), lambda L: L.tensor([1., 2., 3.])),
    "two_outputs": _batched(lambda L, x: [x ** 2, x * 3], lambda L: [L.eye(2), L.ones(2, 2)]),
}


@pytest.mark.parametrize("case", sorted(BATCHED))
def test_grad_is_grads_batched(case):
    _same(BATCHED[case])


# -- hooks on AccumulateGrad nodes and on nodes autograd.grad only captures -----------------------

def _hook_log(L, how):
    x = L.tensor([1., 2.], requires_grad=True)
    log = []
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: log.append(("hook", gi, go, x.grad.clone())))
    acc.register_prehook(lambda go: log.append(("pre", go)))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.clone())))
    x.register_hook(lambda g: log.append(("tensor", g)))
    z = y * 3
    z.grad_fn.register_prehook(lambda go: log.append(("z_pre", go)))
    y.grad_fn.register_prehook(lambda go: log.append(("y_pre", go)))
    y.grad_fn.register_hook(lambda gi, go: log.append(("y_hook", gi)))
    y.register_hook(lambda g: log.append(("y_tensor", g)))
    if how == "backward":
        z.sum().backward()
    elif how == "backward_inputs_leaf":
        z.sum().backward(inputs=[x])
    elif how == "backward_inputs_nonleaf":
        z.sum().backward(inputs=[y])
    elif how == "grad_leaf":
        L.autograd.grad(z.sum(), x)
    elif how == "grad_nonleaf":
        L.autograd.grad(z.sum(), y)
    elif how == "grad_both":
        L.autograd.grad(z.sum(), [y, x])
    return log


@pytest.mark.parametrize("how", ["backward", "backward_inputs_leaf", "backward_inputs_nonleaf",
                                 "grad_leaf", "grad_nonleaf", "grad_both"])
def test_hook_order_on_accumulate_grad_and_captured_nodes(how):
    _same(lambda L: _hook_log(L, how))


def test_accumulate_grad_hook_return_checked():
    def case(L):
        x = L.tensor([1., 2.], requires_grad=True)
        y = x * 3
        y.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (gi,))
        y.sum().backward()
        return x.grad
    _same(case)


# -- gradient lists of backward/grad, Tensor.data of a tensor that requires grad ----------------

def _three(L):
    x = L.tensor([1., 2.], requires_grad=True)
    return x, {"vector": [x * 2], "two_vectors": [x * 2, x * 3],
               "two_scalars": [(x * 2).sum(), (x * 3).sum()]}


# (two scalars with one vector gradient is left out: torch checks the first pair's shape before
# the count, numtorch the count first)
@pytest.mark.parametrize(("outs", "grads"), [
    (o, g) for o in ("vector", "two_vectors", "two_scalars") for g in ("empty", "extra", "one")
    if (o, g) != ("two_scalars", "one")])
@pytest.mark.parametrize("api", ["backward", "grad"])
def test_gradient_list_lengths(api, grads, outs):
    def case(L):
        x, all_outs = _three(L)
        o = all_outs[outs]
        g = {"empty": [], "extra": [L.ones(o[0].shape)] * 3,
             "one": [L.ones(o[0].shape)]}[grads]
        if api == "backward":
            L.autograd.backward(o, g)
            return x.grad
        return L.autograd.grad(o, x, g)
    _same(case)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float64", "complex64"])
@pytest.mark.parametrize("who", ["leaf", "nonleaf", "plain"])
def test_data_assignment_dtype(who, dtype):
    def case(L):
        x = L.tensor([1., 2.], requires_grad=who != "plain")
        t = x * 2 if who == "nonleaf" else x
        t.data = L.tensor([1, 0]).to(getattr(L, dtype))
        return str(t.dtype).replace("numtorch", "torch"), t.requires_grad
    _same(case)


# -- what a custom Function's jvp returns is checked as torch checks it --------------------------

def _fwd_two_outs(ctx, x):
    return x.exp(), x.sin()


def _fwd_scaled_in_place(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def _fwd_with_index(ctx, x):
    i = x.argmax()
    ctx.mark_non_differentiable(i)
    return x * 2, i


JVP_RESULTS = {
    "count_short": (_fwd_two_outs, lambda ctx, g: g),
    "count_ok": (_fwd_two_outs, lambda ctx, g: (g * 2, g * 3)),
    "shape": (lambda ctx, x: x * 2, lambda ctx, g: g[:1]),
    "dtype_float64": (lambda ctx, x: x * 2, lambda ctx, g: g.double()),
    "dirty_in_place": (_fwd_scaled_in_place, lambda ctx, g: g.mul_(2)),
    "dirty_new_tensor": (_fwd_scaled_in_place, lambda ctx, g: g * 2),
    "nondiff_none": (_fwd_with_index, lambda ctx, g: (g * 2, None)),
    "nondiff_given": (_fwd_with_index, lambda ctx, g: (g * 2, g.new_zeros(()))),
}


@pytest.mark.parametrize("case", sorted(JVP_RESULTS))
def test_custom_function_jvp_results(case):
    fwd, jvp = JVP_RESULTS[case]

    def run(L):
        F = type("Fn", (L.autograd.Function,), {
            "forward": staticmethod(fwd), "jvp": staticmethod(jvp),
            "backward": staticmethod(lambda ctx, *g: g[0])})
        fw = L.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(L.tensor([1., 2.]), L.tensor([1., 0.])).clone()
            out = F.apply(x)
            outs = out if isinstance(out, tuple) else (out,)
            return [fw.unpack_dual(o).tangent for o in outs]
    _same(run)


# -- non-reentrant checkpoint of code with side effects (batch norm's running statistics) -------

@pytest.mark.parametrize("early_stop", [True, False])
@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("how", ["backward", "retained_twice", "grad_twice"])
def test_checkpoint_recomputes_batch_norm_once_per_backward(how, use_reentrant, early_stop):
    def case(L):
        cp = L.utils.checkpoint
        with cp.set_checkpoint_early_stop(early_stop):
            bn = L.nn.BatchNorm1d(2)
            calls = [0]

            def block(t):
                calls[0] += 1
                return bn(t).exp()

            x = L.tensor([[1., 2.], [3., 5.], [0., 1.]], requires_grad=True)
            out = cp.checkpoint(block, x, use_reentrant=use_reentrant)
            if how == "backward":
                out.pow(2).sum().backward()
            elif how == "retained_twice":
                out.pow(2).sum().backward(retain_graph=True)
                out.pow(2).sum().backward()
            else:
                L.autograd.grad(out.sum(), x, retain_graph=True)
                L.autograd.grad(out.sum(), x)
            return (calls[0], bn.running_mean, bn.running_var, bn.num_batches_tracked,
                    None if x.grad is None else x.grad.sum().item())
    _same(case)


# -- nn.Parameter of an inference tensor ----------------------------------------------------------

@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("where", ["outside", "inside"])
def test_parameter_of_inference_tensor(where, requires_grad):
    def case(L):
        with L.inference_mode():
            x = L.ones(2)
            if where == "inside":
                p = L.nn.Parameter(x, requires_grad=requires_grad)
        if where == "outside":
            p = L.nn.Parameter(x, requires_grad=requires_grad)
        return p.is_inference(), p.requires_grad, p.data_ptr() == x.data_ptr()
    _same(case)


# -- graph edges (get_gradient_edge) as outputs of grad/backward, and as backward inputs ---------

def _edges_case(L, how):
    edge = L.autograd.graph.get_gradient_edge
    x = L.tensor([1., 2.], requires_grad=True)
    y = x * 2
    s = y.sum()
    if how == "scalar_edge":
        return L.autograd.grad(edge(s), x)
    if how == "vector_edge_no_grad":
        return L.autograd.grad(edge(y), x)
    if how == "vector_edge_bad_shape":
        return L.autograd.grad(edge(y), x, L.ones(3))
    if how == "vector_edge":
        return L.autograd.grad(edge(y), x, L.ones(2) * 3)
    if how == "edge_and_tensor":
        z = x.exp()
        return L.autograd.grad([edge(y), z.sum()], x, [L.ones(2), None])
    if how == "backward_edge":
        L.autograd.backward([edge(y)], [L.ones(2)])
        return x.grad
    if how == "backward_inputs_edge":
        z = y.exp()
        z.sum().backward(inputs=[edge(y)])
        return x.grad, y.grad
    z = x.exp()
    z.sum().backward(inputs=[edge(x), x])
    return x.grad


@pytest.mark.parametrize("how", ["scalar_edge", "vector_edge_no_grad", "vector_edge_bad_shape",
                                 "vector_edge", "edge_and_tensor", "backward_edge",
                                 "backward_inputs_edge", "backward_inputs_leaf_edge"])
def test_gradient_edges_as_outputs_and_inputs(how):
    _same(lambda L: _edges_case(L, how))


# -- autograd.functional.jacobian of empty outputs ------------------------------------------------

_JAC_FUNCS = {
    "empty_input": (lambda a: a * 2, lambda L: L.ones(0)),
    "empty_output": (lambda a: a[:0], lambda L: L.tensor([1., 2.])),
    "one_empty_of_two": (lambda a, b: (a[:0], b * 2),
                         lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.]))),
}


@pytest.mark.parametrize("mode", ["reverse", "reverse_vectorized", "forward_vectorized"])
@pytest.mark.parametrize("case", sorted(_JAC_FUNCS))
def test_jacobian_of_empty_outputs(case, mode):
    fn, make = _JAC_FUNCS[case]
    kw = {"reverse": {}, "reverse_vectorized": {"vectorize": True},
          "forward_vectorized": {"vectorize": True, "strategy": "forward-mode"}}[mode]
    _same(lambda L: L.autograd.functional.jacobian(fn, make(L), **kw))


# -- setup_context saving an input returned as-is ----------------------------------------------

def _setup_saving(what):
    def setup(ctx, inputs, output):
        ctx.save_for_backward(output if what == "output" else inputs[0])
    return setup


SETUP_FORWARDS = {
    "as_is_output_saved": (lambda x: x, _setup_saving("output")),
    "as_is_input_saved": (lambda x: x, _setup_saving("input")),
    "view_output_saved": (lambda x: x.view(-1), _setup_saving("output")),
    "view_as_saved": (lambda x: x.view_as(x), _setup_saving("output")),
}


@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("case", sorted(SETUP_FORWARDS))
def test_setup_context_saving_input_returned_as_is(case, no_grad):
    fwd, setup = SETUP_FORWARDS[case]

    def run(L):
        F = type("Fn", (L.autograd.Function,), {
            "forward": staticmethod(fwd), "setup_context": staticmethod(setup),
            "backward": staticmethod(lambda ctx, g: g.reshape(2, 2) * 2)})
        x = L.arange(4.).reshape(2, 2).requires_grad_()
        if no_grad:
            with L.no_grad():
                return F.apply(x * 1)
        F.apply(x * 1).sum().backward()
        return x.grad
    _same(run)


@pytest.mark.parametrize("hooked", [0, 1, 2])
def test_full_backward_hook_before_inplace_relu_in_sequential(hooked):
    # Grad-CAM style: a full backward hook on a layer whose output an inplace ReLU overwrites
    def case(L):
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Conv2d(1, 2, 3), L.nn.ReLU(inplace=True), L.nn.Conv2d(2, 1, 3))
        log = []
        m[hooked].register_full_backward_hook(lambda mod, gi, go: log.append(len(gi)))
        x = L.arange(36.).reshape(1, 1, 6, 6) / 36
        m(x).sum().backward()
        return log, m[0].weight.grad
    _same(case)
