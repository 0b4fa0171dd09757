"""Session 49 parity tests of autograd (engine, custom Functions, forward mode, hooks, graph
introspection): each case runs the same user code under real torch and under numtorch and
compares values, dtypes, shapes and exceptions at test time."""

import warnings

import pytest

from tests._compare_user_code import check as _check


# -- custom Function: save_for_forward apart from save_for_backward ---------------------------
def _both_saved(lib, use):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x * 10)
            ctx.save_for_forward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            s, = ctx.saved_tensors
            return g * s

        @staticmethod
        def jvp(ctx, t):
            s, = ctx.saved_tensors
            return t * s

    if use == "backward":
        x = lib.tensor([1., 2.], requires_grad=True)
        F.apply(x).sum().backward()
        return x.grad
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        return fw.unpack_dual(F.apply(fw.make_dual(lib.tensor([1., 2.]), lib.ones(2)))).tangent


@pytest.mark.parametrize("use", ["backward", "forward_ad"])
def test_save_for_forward_kept_apart(use):
    _check(lambda lib: _both_saved(lib, use))


def _dual_jvp_args(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, n):
            ctx.save_for_backward(x)
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, g, None

        @staticmethod
        def jvp(ctx, tx, ty, tn):
            seen.append((tx.tolist(), None if ty is None else ty.tolist(), tn,
                         len(ctx.saved_tensors)))
            return tx * 2

    fw = lib.autograd.forward_ad
    with fw.dual_level():
        out = F.apply(fw.make_dual(lib.tensor([1., 2.]), lib.ones(2)), lib.tensor([3., 4.]),
                      lib.tensor([1, 2]))
        return fw.unpack_dual(out).tangent, seen


def test_forward_ad_custom_function_jvp_arguments():
    _check(_dual_jvp_args)


# -- saved_tensors_hooks whose unpack hands back another shape --------------------------------
UNPACK_OPS = {
    "mul": lambda x: x * x,
    "sin": lambda x: x.sin(),
    "exp": lambda x: x.exp(),
    "relu": lambda x: x.relu(),
    "pow": lambda x: x.pow(3),
}


@pytest.mark.parametrize("op", sorted(UNPACK_OPS))
@pytest.mark.parametrize("shape", [(3,), (1,), (2, 2)])
def test_unpack_hook_wrong_shape(op, shape):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: lib.ones(shape)):
            y = UNPACK_OPS[op](x)
        y.sum().backward()
        return x.grad

    _check(run)


def test_unpack_hook_wrong_shape_autograd_grad():
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: lib.ones(3)):
            y = x * x
        return lib.autograd.grad(y.sum(), x)

    _check(run)


# -- backward/grad argument checks: per-pair checks come before the count check --------------
def _x2(lib):
    return lib.tensor([1., 2.], requires_grad=True)


ARG_CASES = {
    "backward_shape_before_count": lambda lib, x: lib.autograd.backward(
        [(x * 2).sum(), (x * 3).sum()], [lib.ones(2)]),
    "grad_shape_before_count": lambda lib, x: lib.autograd.grad(
        [(x * 2).sum(), (x * 3).sum()], [x], [lib.ones(2)]),
    "grad_implicit_before_count": lambda lib, x: lib.autograd.grad([x * 2, x * 3], x, [None]),
    "grad_mismatch_before_count": lambda lib, x: lib.autograd.grad(
        [x * 2, x * 3], x, [lib.ones(3)]),
    "count_after_good_pairs": lambda lib, x: lib.autograd.grad(
        [(x * 2).sum(), (x * 3).sum()], x, [lib.ones(())]),
    "extra_grads_ignored": lambda lib, x: lib.autograd.grad(
        [(x * 2).sum()], x, [lib.ones(()), lib.ones(3)]),
    "grad_number_not_iterable": lambda lib, x: lib.autograd.grad((x * 2).sum(), x, 5),
    "backward_number_not_iterable": lambda lib, x: lib.autograd.backward((x * 2).sum(), 5),
    "grad_list_in_list": lambda lib, x: lib.autograd.grad([(x * 2).sum()], x, [[1.0]]),
    "backward_float_in_list": lambda lib, x: lib.autograd.backward([(x * 2).sum()], [2.0]),
}


@pytest.mark.parametrize("name", sorted(ARG_CASES))
def test_backward_grad_argument_checks(name):
    _check(lambda lib: ARG_CASES[name](lib, _x2(lib)))


def _dup_inputs(lib, how):
    x = _x2(lib)
    y = x * 1
    y.retain_grad()
    if how == "tensor_backward":
        (x * 2).backward(lib.ones(2), inputs=[x, x])
    elif how == "autograd_backward":
        lib.autograd.backward([(x * 2).sum(), (x * 3).sum()], inputs=[x, x])
    else:
        (y * 3).sum().backward(inputs=[y, x, y])
    return x.grad, y.grad


@pytest.mark.parametrize("how", ["tensor_backward", "autograd_backward", "non_leaf"])
def test_backward_inputs_named_twice(how):
    _check(lambda lib: _dup_inputs(lib, how))


# -- node hooks that put a gradient where there is none -----------------------------------------
def _hook_fills_none(lib, kind):
    x = lib.tensor([1., 2.], requires_grad=True)
    if kind == "prehook_unused_output":
        a, _ = x.unbind()
        a.grad_fn.register_prehook(
            lambda gs: tuple(lib.ones(()) if g is None else g for g in gs))
        a.backward()
    elif kind == "hook_scalar_input":
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
        y.sum().backward()
    elif kind == "hook_input_without_grad":
        y = x * lib.tensor([1., 2.])
        y.grad_fn.register_hook(lambda gi, go: (gi[0], lib.ones(2)))
        y.sum().backward()
    elif kind == "hook_input_not_needed":
        y = x * lib.tensor([1., 2.], requires_grad=True)
        y.grad_fn.register_hook(lambda gi, go: (gi[0], lib.ones(2)))
        lib.autograd.grad(y.sum(), x)
    else:  # replacing a real gradient, and None for None: fine
        y = x * 2
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))
        y.sum().backward()
    return x.grad


@pytest.mark.parametrize("kind", ["prehook_unused_output", "hook_scalar_input",
                                  "hook_input_without_grad", "hook_input_not_needed",
                                  "hook_replaces_real"])
def test_node_hook_cannot_fill_none(kind):
    _check(lambda lib: _hook_fills_none(lib, kind))


# -- forward AD: writes into views of a dual, forward over reverse ----------------------------
def _fw_views(lib, case):
    fw = lib.autograd.forward_ad

    def tan(t):
        got = fw.unpack_dual(t).tangent
        return None if got is None else got.tolist()

    with fw.dual_level():
        if case == "alias_part_written":
            x = fw.make_dual(lib.tensor([1., 2., 3.]), lib.tensor([1., 0., 0.]))
            v = x[1:]
            v.mul_(2)
            return tan(x), tan(v), fw.unpack_dual(x).primal.tolist()
        if case == "two_views":
            x = fw.make_dual(lib.tensor([1., 2., 3.]), lib.ones(3))
            va, vb = x[:2], x[1:]
            va.mul_(3)
            return tan(x), tan(vb), tan(va)
        q = lib.zeros(4)
        x = fw.make_dual(q[1:], lib.tensor([1., 2., 3.]))
        v = x[1:]
        v.mul_(2)
        return tan(x), tan(v)


@pytest.mark.parametrize("case", ["alias_part_written", "two_views", "dual_of_a_view"])
def test_forward_ad_write_into_view_of_dual(case):
    _check(lambda lib: _fw_views(lib, case))


def _fw_over_rev(lib, case):
    fw = lib.autograd.forward_ad
    lib.manual_seed(0)
    with fw.dual_level():
        if case == "tangent_backward_to_primal":
            x = lib.tensor([1., 2., 3.], requires_grad=True)
            y = (fw.make_dual(x, lib.tensor([1., 0., 1.])).sin() * x ** 2).sum()
            t = fw.unpack_dual(y).tangent
            return lib.autograd.grad(t, x)[0], t.requires_grad
        if case == "tangent_backward_to_tangent":
            v = lib.tensor([1., 0., 1.], requires_grad=True)
            y = (fw.make_dual(lib.tensor([1., 2., 3.]), v) ** 2).sum()
            t = fw.unpack_dual(y).tangent
            t.backward()
            return v.grad, t.requires_grad
        if case == "weights":
            x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
            w = lib.tensor([[1., 2., 3.], [-1., 0.5, 2.]], requires_grad=True)
            out = lib.nn.functional.linear(fw.make_dual(x, lib.ones(2, 3)), w).tanh()
            t = fw.unpack_dual(out).tangent
            t.pow(2).sum().backward()
            return w.grad, t.requires_grad
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        with lib.no_grad():
            t = fw.unpack_dual((fw.make_dual(x, lib.ones(3)) ** 2).sum()).tangent
        return t, t.requires_grad


@pytest.mark.parametrize("case", ["tangent_backward_to_primal", "tangent_backward_to_tangent",
                                  "weights", "no_grad"])
def test_forward_ad_tangents_differentiable(case):
    _check(lambda lib: _fw_over_rev(lib, case), rtol=1e-5, atol=1e-5)


HVP_FUNCS = {
    "sin_pow": lambda x: (x.sin() * x ** 2).sum(),
    "sigmoid": lambda x: x.sigmoid().sum(),
    "exp_mul": lambda x: (x.exp() * x).sum(),
    "tanh_matmul": lambda x: (x.unsqueeze(0) @ x.new_ones(3, 3)).tanh().sum(),
    "softmax": lambda x: (x.softmax(0) * x.new_tensor([0., 1., 2.])).sum(),
    "relu_sq": lambda x: (x.relu() ** 2).sum(),
}


@pytest.mark.parametrize("name", sorted(HVP_FUNCS))
def test_forward_ad_over_backward_hvp(name):
    """Forward over reverse: the gradient taken inside a dual level carries H v."""
    def run(lib):
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.5, -1., 2.], requires_grad=True)
        with fw.dual_level():
            xd = fw.make_dual(x, lib.tensor([1., 2., -1.]))
            g, = lib.autograd.grad(HVP_FUNCS[name](xd), xd, create_graph=True)
            return fw.unpack_dual(g).primal, fw.unpack_dual(g).tangent

    _check(run, rtol=1e-4, atol=1e-5)


# -- grad_fn._saved_* attributes of the common nodes --------------------------------------------
def _x23(lib):
    return lib.tensor([[1.5, -0.25, 2.0], [0.5, -1.0, 3.0]], requires_grad=True)


NODE_CASES = {
    "mul": lambda lib, x: x * x,
    "mul_tensor_const": lambda lib, x: x * lib.tensor([1., 2., 3.]),
    "div": lambda lib, x: x / (x.abs() + 1),
    "add_alpha": lambda lib, x: lib.add(x, x, alpha=3),
    "add_scalar": lambda lib, x: x + 2,
    "sub": lambda lib, x: x - x.exp(),
    "mm": lambda lib, x: x @ x.t().detach(),
    "relu": lambda lib, x: x.relu(),
    "sigmoid": lambda lib, x: x.sigmoid(),
    "tanh": lambda lib, x: x.tanh(),
    "exp": lambda lib, x: x.exp(),
    "log": lambda lib, x: (x * x + 1).log(),
    "gelu_tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "clamp": lambda lib, x: x.clamp(min=0, max=1),
    "pow": lambda lib, x: x.pow(3),
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x: x.sum(1, keepdim=True),
    "mean": lambda lib, x: x.mean(),
    "mean_dim": lambda lib, x: x.mean(0),
    "view": lambda lib, x: x.view(6),
    "expand": lambda lib, x: x[:1].expand(4, 3),
    "softmax": lambda lib, x: x.softmax(1),
    "log_softmax": lambda lib, x: x.log_softmax(0),
    "neg": lambda lib, x: -x,
}
ATTRS = ("_saved_self", "_saved_other", "_saved_result", "_saved_mat2", "_saved_alpha",
         "_saved_exponent", "_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes",
         "_saved_mat2_sym_sizes", "_saved_approximate", "_saved_min", "_saved_max")


@pytest.mark.parametrize("name", sorted(NODE_CASES))
def test_grad_fn_saved_attributes(name):
    def run(lib):
        fn = NODE_CASES[name](lib, _x23(lib)).grad_fn
        out = [fn.name()]
        for attr in ATTRS:
            try:
                v = getattr(fn, attr)
            except AttributeError:
                out.append((attr, "absent"))
                continue
            out.append((attr, v if not isinstance(v, lib.Tensor) else v.detach()))
        listed = sorted(a for a in dir(fn) if a in ATTRS)
        return out, listed

    _check(run)


def _anomaly_backward_only(lib, kind):
    class Fails(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, g):
            return 1 / 0

    x = lib.tensor([-1., 2.], requires_grad=True)
    y = x.sqrt().sum() if kind == "nan" else Fails.apply(x).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with lib.autograd.detect_anomaly():
                y.backward()
            err = None
        except (RuntimeError, ZeroDivisionError) as e:
            err = (type(e).__name__, str(e))
    msgs = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return err, [m for m in msgs if m.startswith("Error detected")]


@pytest.mark.parametrize("kind", ["nan", "error"])
def test_anomaly_mode_node_recorded_outside(kind):
    _check(lambda lib: _anomaly_backward_only(lib, kind))
