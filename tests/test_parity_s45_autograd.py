"""Autograd parity found by outside-style programs (session 45): forward-mode AD through ops
whose recorded call returns extra factors (svdvals, eigvalsh), complex values, 0-d results
(slogdet), logit's edge branch and hardsigmoid; third-order links through piecewise-linear
activations (relu, hardtanh, ...). Every case compares with torch at test time."""

import math
import warnings

import pytest
import torch

import numtorch


def _plain(v):
    if isinstance(v, (tuple, list)):
        return type(v).__name__, [_plain(x) for x in v]
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return str(v.dtype).replace("numtorch", "torch"), list(v.shape), v.tolist()
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


# -- forward-mode AD ---------------------------------------------------------------------------

_X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
_T = [[1.0, 0.5, -1.0], [0.2, 0.3, 0.4]]

FWD = {
    "svdvals": lambda L, a: L.linalg.svdvals(a),
    "eigvalsh": lambda L, a: L.linalg.eigvalsh(a @ a.T),
    "slogdet": lambda L, a: L.linalg.slogdet(a[:, :2])[1],
    "det_0d": lambda L, a: L.linalg.det(a[:, :2]),
    "sum_0d": lambda L, a: a.sum(),
    "logit": lambda L, a: L.logit(a.sigmoid()),
    "hardsigmoid": lambda L, a: L.nn.functional.hardsigmoid(a),
    "complex_mul": lambda L, a: L.view_as_real(L.complex(a, a * 2) * (1 + 2j)),
    "rfft_abs": lambda L, a: L.fft.rfft(a).abs(),
    "view_as_complex_abs": lambda L, a: L.view_as_complex(a[:, :2].contiguous()).abs(),
    "complex_exp": lambda L, a: L.view_as_real(L.exp(L.complex(a, -a))),
    "sign": lambda L, a: L.sign(a),
}


@pytest.mark.parametrize("name", list(FWD))
def test_forward_ad_tangent_matches_torch(name):
    def run(L):
        fw = L.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(L.tensor(_X), L.tensor(_T))
            p, t = fw.unpack_dual(FWD[name](L, d))
            return p, t
    got, want = _outcome(lambda: run(numtorch)), _outcome(lambda: run(torch))
    assert _close(got, want), (got, want)


def test_forward_ad_complex_primal_and_tangent():
    def run(L):
        fw = L.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(L.tensor([1 + 2j, -0.5j]), L.tensor([0.5 - 1j, 2 + 0j]))
            out = (d * d.conj() + d.exp()).sin()
            return L.view_as_real(fw.unpack_dual(out).tangent)
    assert _close(_outcome(lambda: run(numtorch)), _outcome(lambda: run(torch)))


# -- third-order links through piecewise-linear slopes ------------------------------------------

SLOPES = {
    "relu": lambda L, a: L.nn.functional.relu(a),
    "hardtanh": lambda L, a: L.nn.functional.hardtanh(a),
    "relu6": lambda L, a: L.nn.functional.relu6(a),
    "leaky_relu": lambda L, a: L.nn.functional.leaky_relu(a),
    "threshold": lambda L, a: L.nn.functional.threshold(a, 0.1, 20.0),
    "softshrink": lambda L, a: L.nn.functional.softshrink(a),
    "hardshrink": lambda L, a: L.nn.functional.hardshrink(a),
}


@pytest.mark.parametrize("name", list(SLOPES))
def test_grad_of_a_slope_gradient_is_zeros_not_unused(name):
    def run(L):
        x = L.tensor([0.5, -1.0, 2.0, 4.0], requires_grad=True)
        g, = L.autograd.grad(SLOPES[name](L, x).sum(), x, create_graph=True)
        return g.requires_grad, L.autograd.grad(g.sum(), x)
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


def test_gradient_penalty_on_relu_net_input():
    def run(L):
        L.manual_seed(0)
        lin = L.nn.Linear(3, 4)
        with L.no_grad():
            lin.weight.copy_(L.tensor([[.5, -1., .25], [1., .5, -.5], [-.3, .2, .1], [.7, .7, -.2]]))
        x = L.tensor([[1., 2., -1.], [0.5, -0.5, 2.]], requires_grad=True)
        out = L.relu(lin(x)).sum()
        g, = L.autograd.grad(out, x, create_graph=True)
        pen = ((g.norm(2, dim=1) - 1) ** 2).mean()
        return L.autograd.grad(pen, [x, lin.weight])
    assert _close(_outcome(lambda: run(numtorch)), _outcome(lambda: run(torch)))


# -- torch.autograd.functional option checks and containers --------------------------------------

def _shape_of(r):
    if isinstance(r, (list, tuple)):
        return type(r).__name__, [_shape_of(a) for a in r]
    return list(r.shape), r.tolist()


_A = [1.0, 2.0, 3.0]
FUNCTIONAL = {
    "vjp_bad_size": lambda F, L: F.vjp(lambda a: a * a, L.tensor(_A), L.ones(2)),
    "vjp_2d_v": lambda F, L: F.vjp(lambda a: a * a, L.tensor(_A), L.ones(1, 3)),
    "vjp_two_v_one_out": lambda F, L: F.vjp(lambda a: a * a, L.tensor(_A), (L.ones(3), L.ones(3))),
    "vjp_one_v_two_out": lambda F, L: F.vjp(lambda a: (a, a), L.tensor(_A), L.ones(3)),
    "vjp_entry_size": lambda F, L: F.vjp(lambda a, b: (a, b), (L.tensor(_A),) * 2,
                                         (L.ones(3), L.ones(2))),
    "jvp_bad_size": lambda F, L: F.jvp(lambda a: a * a, L.tensor(_A), L.ones(2)),
    "jvp_two_v": lambda F, L: F.jvp(lambda a: a * a, L.tensor(_A), (L.ones(3), L.ones(3))),
    "hvp_bad_size": lambda F, L: F.hvp(lambda a: (a ** 3).sum(), L.tensor(_A), L.ones(2)),
    "vhp_no_v": lambda F, L: F.vhp(lambda a: (a ** 3).sum(), L.tensor(_A)),
    "hvp_no_v_0d": lambda F, L: F.hvp(lambda a: a ** 3, L.tensor(2.0)),
    "hvp_entry_size": lambda F, L: F.hvp(lambda a, b: (a * b).sum(), (L.tensor(_A),) * 2,
                                         (L.ones(3), L.ones(1))),
    "jac_bad_strategy": lambda F, L: F.jacobian(lambda a: a, L.tensor(_A), strategy="x"),
    "hess_bad_strategy": lambda F, L: F.hessian(lambda a: a.sum(), L.tensor(_A),
                                                outer_jacobian_strategy="x"),
    "fwd_tuple_in": lambda F, L: F.jacobian(lambda a, b: (a * b, a.sum() * b),
                                            (L.tensor(_A), L.tensor(_A) + 1), vectorize=True,
                                            strategy="forward-mode"),
    "fwd_tuple_in_one_out": lambda F, L: F.jacobian(lambda a, b: a * b, (L.tensor(_A),) * 2,
                                                    vectorize=True, strategy="forward-mode"),
    "fwd_one_in_tuple_out": lambda F, L: F.jacobian(lambda a: (a, a * 2), L.tensor(_A),
                                                    vectorize=True, strategy="forward-mode"),
    "hess_fwd_tuple": lambda F, L: F.hessian(lambda a: (a ** 3).sum(), (L.tensor(_A),),
                                             vectorize=True,
                                             outer_jacobian_strategy="forward-mode"),
}


@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_functional_checks_and_containers(name):
    def run(L):
        return _shape_of(FUNCTIONAL[name](L.autograd.functional, L))
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("fn", ["jacobian", "hessian"])
@pytest.mark.parametrize("flags", range(16))
def test_jacobian_option_combinations(fn, flags):
    strict, vectorize, create_graph, fwd = [bool(flags >> k & 1) for k in range(4)]

    def run(L):
        F = L.autograd.functional
        x = L.tensor(_A)
        if fn == "jacobian":
            r = F.jacobian(lambda a: a * a, x, strict=strict, vectorize=vectorize,
                           create_graph=create_graph,
                           strategy="forward-mode" if fwd else "reverse-mode")
        else:
            r = F.hessian(lambda a: (a ** 3).sum(), x, strict=strict, vectorize=vectorize,
                          create_graph=create_graph,
                          outer_jacobian_strategy="forward-mode" if fwd else "reverse-mode")
        return r.detach()
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


# -- vmap: writes into an unbatched tensor, BatchedTensor's repr ---------------------------------

def _fill(L, kind):
    def f(a):
        b = L.zeros(3)
        if kind == "scalar":
            b[0] = a[1]
        elif kind == "slice":
            b[1:] = a[1:]
        elif kind == "ellipsis":
            b[...] = a
        elif kind == "tensor_index":
            b[L.tensor([0, 2])] = a[1:]
        elif kind == "mask":
            b[b < 1] = a
        elif kind == "row":
            b = L.zeros(2, 3)
            b[0] = a
        elif kind == "batched_target":
            b = a.clone()
            b[0] = a[2]
        elif kind == "unbatched_value":
            b = a.clone()
            b[1:] = L.ones(2)
        return b
    return f


SETITEM = ["scalar", "slice", "ellipsis", "tensor_index", "mask", "row", "batched_target",
           "unbatched_value"]
INPLACE = {
    "mul_": lambda L, a: L.zeros(3).mul_(a), "copy_": lambda L, a: L.zeros(3).copy_(a),
    "sub_": lambda L, a: L.zeros(3).sub_(a), "div_": lambda L, a: L.zeros(3).div_(a),
    "add_": lambda L, a: L.zeros(3).add_(a), "fill_": lambda L, a: L.zeros(3).fill_(a[0]),
    "index_put_": lambda L, a: L.zeros(3).index_put_((L.tensor([0]),), a[:1]),
    "index_add_": lambda L, a: L.zeros(3).index_add_(0, L.tensor([1]), a[:1]),
    "clamp_": lambda L, a: L.zeros(3).clamp_(a, a),
    "masked_fill_": lambda L, a: L.zeros(3).masked_fill_(L.tensor([True, False, True]), a[0]),
}


@pytest.mark.parametrize("kind", SETITEM)
def test_vmap_setitem_into_unbatched_tensor(kind):
    def run(L):
        return L.func.vmap(_fill(L, kind))(L.arange(12.0).reshape(4, 3))
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("name", list(INPLACE))
def test_vmap_inplace_into_unbatched_tensor(name):
    def run(L):
        return L.func.vmap(lambda a: INPLACE[name](L, a))(L.arange(12.0).reshape(4, 3))
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


def test_batched_tensor_repr_inside_vmap():
    def run(L):
        seen = []
        m = L.arange(12.0).reshape(2, 3, 2)
        L.func.vmap(L.func.vmap(lambda a: seen.append(repr(a)) or a))(m)
        L.func.vmap(lambda a: seen.append(str(a)) or a)(L.arange(3.0))
        L.func.vmap(lambda a: seen.append(repr(a)) or a)(L.ones(2, 2, dtype=L.int64))
        return seen
    assert run(numtorch) == run(torch)


INDEX_WRITES = {
    "const_into_batched": lambda L, a, i: _w(a, slice(1, None), L.ones(3)),
    "scalar_batched_index": lambda L, a, i: _w(a, i, 0.0),
    "row_batched_index": lambda L, a, i: _w(a, i, L.ones(3)),
    "value_0d_batched": lambda L, a, i: _w(a, i, a[0, 0]),
    "value_batched_row": lambda L, a, i: _w(a, i, a[1 - i]),
    "int_and_batched": lambda L, a, i: _w(a, (0, i + 1), 7.0),
    "two_batched": lambda L, a, i: _w(a, (i, 2 - i), -1.0),
    "into_unbatched": lambda L, a, i: _w(L.zeros(2, 3), i, a[0]),
    "augmented": lambda L, a, i: _aug(a, i),
}


def _w(b, index, value):
    b = b.clone()
    b[index] = value
    return b


def _aug(a, i):
    b = a.clone()
    b[i] += 1
    return b


@pytest.mark.parametrize("name", list(INDEX_WRITES))
def test_vmap_writes_with_batched_indices(name):
    def run(L):
        m = L.arange(24.0).reshape(4, 2, 3)
        return L.func.vmap(lambda a, i: INDEX_WRITES[name](L, a, i))(m, L.tensor([0, 1, 1, 0]))
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


def test_vmap_batched_index_write_gradient():
    def run(L):
        x = L.arange(24.0).reshape(4, 2, 3).requires_grad_()

        def f(a, i):
            b = a * 1
            b[i] = a[0, 0] * 5
            return b
        out = L.func.vmap(f)(x, L.tensor([0, 1, 1, 0]))
        out.sum().backward()
        return out.detach(), x.grad
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


# -- graph utilities: multi-grad hooks, engine callbacks, pack hooks, anomaly in Functions -------

def _multi_all(L):
    a = L.tensor([1.0], requires_grad=True)
    b = L.tensor([2.0], requires_grad=True)
    seen = []
    h = L.autograd.graph.register_multi_grad_hook(
        (a, b), lambda gs: seen.append([None if g is None else g.tolist() for g in gs]))
    (a * 3).sum().backward()
    (a * b).sum().backward()
    L.autograd.grad((b * 5).sum(), b)
    h.remove()
    (a * b).sum().backward()
    return seen


def _multi_any(L):
    a = L.tensor([1.0], requires_grad=True)
    b = L.tensor([2.0], requires_grad=True)
    seen = []
    L.autograd.graph.register_multi_grad_hook((a, b), lambda g: seen.append(g.tolist()),
                                              mode="any")
    (a * 3).sum().backward()
    (b * 4).sum().backward()
    return seen


def _queue_callback(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    log = []

    def hook(g):
        L.autograd.Variable._execution_engine.queue_callback(
            lambda: log.append(("cb", x.grad.tolist())))
        log.append("hook")
    x.register_hook(hook)
    (x * 3).sum().backward()
    return log


def _queue_outside(L):
    L.autograd.Variable._execution_engine.queue_callback(lambda: None)


def _pack_inplace(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
        return x.exp()


def _edge_fields(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    e = L.autograd.graph.get_gradient_edge(x * 2)
    return e._fields, e.output_nr, e.ownership_token, L.autograd.grad((x * 2).exp().sum(), e)


GRAPH_UTILS = {"multi_all": _multi_all, "multi_any": _multi_any,
               "queue_callback": _queue_callback, "queue_outside": _queue_outside,
               "pack_inplace": _pack_inplace, "edge_fields": _edge_fields}


@pytest.mark.parametrize("name", list(GRAPH_UTILS))
def test_graph_utilities(name):
    assert _outcome(lambda: GRAPH_UTILS[name](numtorch)) == \
        _outcome(lambda: GRAPH_UTILS[name](torch))


def test_anomaly_mode_names_the_custom_function_and_its_forward():
    def run(L):
        class Bad(L.autograd.Function):
            @staticmethod
            def forward(ctx, v):
                return v * 1

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")
        a = L.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with L.autograd.detect_anomaly():
                try:
                    Bad.apply(a).sum().backward()
                except RuntimeError as e:
                    err = str(e)
        msgs = [str(w.message) for w in seen if "Error detected" in str(w.message)]
        return err, [m.split(".")[0] for m in msgs], ["Bad.apply(a)" in m for m in msgs]
    assert run(numtorch) == run(torch)


# -- custom Functions: node order and next_functions --------------------------------------------

class _Twice:
    @staticmethod
    def make(L):
        class Scale(L.autograd.Function):
            @staticmethod
            def forward(ctx, k, a, n, b=None):
                ctx.k = k
                return a * k

            @staticmethod
            def backward(ctx, g):
                return None, g * ctx.k, None, None
        return Scale


def _fn_twice_on_fresh_leaf(L):
    f = _Twice.make(L)
    x = L.tensor([1.0, 2.0], requires_grad=True)
    (f.apply(2.0, x, 3) + f.apply(5.0, x, 3)).sum().backward()
    return x.grad


def _module_hook_called_twice(L):
    L.manual_seed(0)
    m = L.nn.Linear(2, 2)
    with L.no_grad():
        m.weight.copy_(L.tensor([[1.0, -2.0], [0.5, 3.0]]))
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi[0].tolist()))
    x = L.ones(1, 2, requires_grad=True)
    (m(x) + m(x * 2)).sum().backward()
    return x.grad, seen


def _next_functions_skip_numbers(L):
    f = _Twice.make(L)
    x = L.ones(2, requires_grad=True)
    y = f.apply(2.0, x, 3, L.ones(2))
    return [None if n is None else n.name() for n, _ in y.grad_fn.next_functions]


def _hook_node_next_functions(L):
    m = L.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    y = m(L.ones(1, 2, requires_grad=True))
    first = y.grad_fn.next_functions
    return [n.name() for n, _ in first], [n.name() for n, _ in first[0][0].next_functions]


CUSTOM = {"twice_on_fresh_leaf": _fn_twice_on_fresh_leaf,
          "module_hook_called_twice": _module_hook_called_twice,
          "next_functions_skip_numbers": _next_functions_skip_numbers,
          "hook_node_next_functions": _hook_node_next_functions}


@pytest.mark.parametrize("name", list(CUSTOM))
def test_custom_function_graphs(name):
    assert _outcome(lambda: CUSTOM[name](numtorch)) == _outcome(lambda: CUSTOM[name](torch))


@pytest.mark.parametrize("case", ["modes", "classes", "sizes", "empty"])
def test_stack_module_state_checks(case):
    def run(L):
        nn = L.nn
        models = {"modes": lambda: [nn.Linear(2, 2), nn.Conv1d(2, 2, 1).eval()],
                  "classes": lambda: [nn.Linear(2, 2), nn.Conv1d(2, 2, 1)],
                  "sizes": lambda: [nn.Linear(2, 2), nn.Linear(2, 3)],
                  "empty": list}[case]()
        return L.func.stack_module_state(models)
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


def _functions(L):
    Function = L.autograd.Function

    class DirtyView(Function):
        @staticmethod
        def forward(ctx, v):
            ctx.mark_dirty(v)
            return v.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class RetNone(Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2, None, 3

        @staticmethod
        def backward(ctx, g, g2, g3):
            ctx.seen = (g2, g3)
            return g * 2

    class BadSave(Function):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v, 3)
            return v * 1

        @staticmethod
        def backward(ctx, g):
            return g

    class IntGrad(Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return 3

    class NonDiffInput(Function):
        @staticmethod
        def forward(ctx, v):
            ctx.mark_non_differentiable(v)
            return v

        @staticmethod
        def backward(ctx, g):
            return g
    return DirtyView, RetNone, BadSave, IntGrad, NonDiffInput


def _dirty_view(L):
    dirty = _functions(L)[0]
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    r = dirty.apply(b[:2])
    names = r.grad_fn.name(), b.grad_fn.name()
    (b * L.tensor([1.0, 10.0, 100.0])).sum().backward()
    return names, b.detach(), a.grad


def _ret_none(L):
    fn = _functions(L)[1]
    x = L.tensor([1.0, 2.0], requires_grad=True)
    out = fn.apply(x)
    out[0].sum().backward()
    return out[1], out[2], out[0].grad_fn.seen if hasattr(out[0].grad_fn, "seen") else None, \
        x.grad


FUNCTIONS = {
    "dirty_view": _dirty_view,
    "ret_none": _ret_none,
    "bad_save": lambda L: _functions(L)[2].apply(L.ones(2, requires_grad=True)),
    "int_grad": lambda L: _functions(L)[3].apply(L.ones(2, requires_grad=True)).sum().backward(),
    "nondiff_input": lambda L: _nondiff_input(L),
}


def _nondiff_input(L):
    x = L.ones(2, requires_grad=True)
    y = _functions(L)[4].apply(x)
    return y.requires_grad, y is x


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_custom_function_semantics(name):
    assert _outcome(lambda: FUNCTIONS[name](numtorch)) == _outcome(lambda: FUNCTIONS[name](torch))


def test_always_call_forward_hook_runs_when_an_earlier_hook_raises():
    def run(L):
        m = L.nn.Linear(2, 2)
        calls = []

        def boom(mod, i, o):
            calls.append("boom")
            raise ValueError("boom")
        m.register_forward_hook(lambda mod, i, o: calls.append("plain"))
        m.register_forward_hook(boom)
        m.register_forward_hook(lambda mod, i, o: calls.append("after"))
        m.register_forward_hook(lambda mod, i, o: calls.append(("always", o.shape)),
                                always_call=True)
        try:
            m(L.ones(1, 2))
        except ValueError as e:
            calls.append(str(e))
        return calls
    assert run(numtorch) == run(torch)


FUNC_ERRORS = {
    "vmap_no_inputs": lambda L: L.func.vmap(lambda: L.ones(2))(),
    "vmap_empty_in_dims": lambda L: L.func.vmap(lambda a: a, in_dims=())(),
    "grad_empty_argnums": lambda L: L.func.grad(lambda a: a.sum(), argnums=())(L.ones(2)),
    "jacrev_non_tensor": lambda L: L.func.jacrev(lambda a: 3.0)(L.ones(2)),
    "jacfwd_non_tensor": lambda L: L.func.jacfwd(lambda a: 3.0)(L.ones(2)),
    "vjp_non_tensor": lambda L: L.func.vjp(lambda a: (a, 3.0), L.ones(2)),
    "jvp_non_tensor": lambda L: L.func.jvp(lambda a: 3.0, (L.ones(2),), (L.ones(2),)),
    "grad_non_tensor": lambda L: L.func.grad(lambda a: 3.0)(L.ones(2)),
}


@pytest.mark.parametrize("name", list(FUNC_ERRORS))
def test_func_transform_errors(name):
    assert _outcome(lambda: FUNC_ERRORS[name](numtorch)) == \
        _outcome(lambda: FUNC_ERRORS[name](torch))


# -- forward AD through writes: views of a dual tensor share its tangent -------------------------

def _w_const(L, d):
    y = d * 1
    y[0] = 5.0
    return y


def _w_view_inplace(L, d):
    y = d * 1
    y[1:].mul_(3)
    return y


def _w_into_plain(L, d):
    y = L.zeros(3)
    y[1:] = d[:2] * 2
    return y


def _w_base_then_view(L, d):
    y = d * 1
    v = y[1:]
    y.mul_(2)
    return v


def _w_rows(L, d):
    y = L.zeros(2, 3)
    y[0] = d
    y[1] = d * 2
    return y


def _w_copy(L, d):
    return L.zeros(3).copy_(d)


FWD_WRITES = {"const": _w_const, "view_inplace": _w_view_inplace, "into_plain": _w_into_plain,
              "base_then_view": _w_base_then_view, "rows": _w_rows, "copy": _w_copy}


@pytest.mark.parametrize("name", list(FWD_WRITES))
def test_forward_ad_tangents_through_writes(name):
    def run(L):
        fw = L.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 10.0, 100.0]))
            p, t = fw.unpack_dual(FWD_WRITES[name](L, d))
            return p, t
    assert _outcome(lambda: run(numtorch)) == _outcome(lambda: run(torch))


def _grad_call(L, kw):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = L.ones(1, requires_grad=True)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            res = L.autograd.grad(**{"outputs": (x * 2).sum(), "inputs": x, **kw(x, u)})
            res = [(r.tolist(), r.requires_grad) for r in res]
        except Exception as e:  # noqa: BLE001 - the exception is the answer
            res = type(e).__name__, str(e)
    return res, [(w.category.__name__, str(w.message)) for w in seen]


GRAD_CALLS = {
    "only_inputs_false": lambda x, u: {"only_inputs": False},
    "empty_inputs": lambda x, u: {"inputs": []},
    "extra_grad_outputs": lambda x, u: {"grad_outputs": [None, None]},
    "materialize_create_graph": lambda x, u: {"inputs": [x, u], "materialize_grads": True,
                                              "create_graph": True},
}


@pytest.mark.parametrize("name", list(GRAD_CALLS))
def test_autograd_grad_arguments(name):
    assert _grad_call(numtorch, GRAD_CALLS[name]) == _grad_call(torch, GRAD_CALLS[name])


def _ckpt_in_vmap(L):
    L.manual_seed(0)
    lin = L.nn.Linear(3, 3)
    with L.no_grad():
        lin.weight.copy_(L.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0], [0.3, -0.2, 0.1]]))
        lin.bias.zero_()
    x = L.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    return L.func.vmap(lambda a: L.utils.checkpoint.checkpoint(lin, a, use_reentrant=False))(x)


def _ckpt_forward_ad(L):
    fw = L.autograd.forward_ad
    x = L.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    with fw.dual_level():
        d = fw.make_dual(x, L.ones(2, 3))
        out = L.utils.checkpoint.checkpoint(lambda a: a.sin() * a, d, use_reentrant=False)
        return fw.unpack_dual(out).tangent


@pytest.mark.parametrize("case", [_ckpt_in_vmap, _ckpt_forward_ad])
def test_checkpoint_under_vmap_and_forward_ad(case):
    got, want = _outcome(lambda: case(numtorch)), _outcome(lambda: case(torch))
    assert _close(got, want), (got, want)
