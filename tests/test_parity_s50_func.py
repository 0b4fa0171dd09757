"""Session 50 parity tests of torch.func (vmap randomness, transforms): each case runs the same
user code under real torch and under numtorch and compares values, dtypes, shapes and
exceptions at test time."""

import warnings

from tests._compare_user_code import check


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    check(fn, rtol, atol, msg, grad_flags=True)


# -- vmap randomness='different': randperm draws one permutation per sample in torch's order --
def _randperm(lib, modes):
    vmap = lib.func.vmap
    lib.manual_seed(0)
    f = lambda a: lib.randperm(4)
    for mode in modes:
        f = vmap(f, randomness=mode)
    shape = (3, 2, 2)[:len(modes)]
    return f(lib.zeros(shape)), lib.rand(2)


def test_vmap_randperm_different_follows_torch_draw_order():
    for modes in (("different",), ("different", "different"), ("same", "different"),
                  ("different", "same"), ("different", "different", "different")):
        _check(lambda lib, modes=modes: _randperm(lib, modes))


def test_vmap_randperm_indexing_batched_input():
    def run(lib):
        lib.manual_seed(0)
        x = lib.arange(12.0).reshape(3, 4)
        return lib.func.vmap(lambda a: a[lib.randperm(4)], randomness="different")(x)

    _check(run)


# -- a leaf made to require grad inside a transform does not keep its results differentiable --
def _inner_leaf(lib, kind):
    func = lib.func
    x = lib.arange(3.0)
    if kind == "grad":
        return func.grad(lambda a: (a * lib.ones(3, requires_grad=True)).sum())(x)
    if kind == "module":
        lib.manual_seed(0)
        return func.grad(lambda a: lib.nn.Linear(3, 1)(a).sum())(x)
    if kind == "vjp":
        return func.vjp(lambda a: a * lib.ones(3, requires_grad=True), x)[0]
    if kind == "jacrev":
        return func.jacrev(lambda a: a * lib.ones(3, requires_grad=True))(x)
    if kind == "jvp":
        return func.jvp(lambda a: a * lib.ones(3, requires_grad=True), (x,), (x,))
    w = lib.ones(3, requires_grad=True)  # made outside: the result stays connected to it
    g = func.grad(lambda a: (a * a * w).sum())(x)
    g.sum().backward()
    return g, w.grad


def test_func_results_ignore_leaves_made_inside():
    for kind in ("grad", "module", "vjp", "jacrev", "jvp", "outer"):
        _check(lambda lib, kind=kind: _inner_leaf(lib, kind))


# -- a custom Function's vmap staticmethod returning a malformed (output, out_dims) ----------
def _bad_vmap_rule(lib, kind):
    rets = {
        "tensor": lambda x: x * 2,
        "list": lambda x: [x, 0],
        "three": lambda x: (x, 0, 0),
        "dims_tuple_for_tensor": lambda x: (x * 2, (0, 1)),
        "dims_shorter": lambda x: ((x, x), (0,)),  # (numtorch used to drop the second output)
        "dims_list_for_tuple": lambda x: ((x, x), [0, 0]),
        "none_output": lambda x: (None, 0),
        "good_pair": lambda x: ((x, x * 3), (0, 0)),
        "good_broadcast": lambda x: ((x, x * 3), 0),
    }

    class F(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vmap(info, in_dims, x):
            return rets[kind](x)

    return lib.func.vmap(F.apply)(lib.arange(6.0).reshape(2, 3))


def test_custom_function_vmap_rule_result_checked():
    for kind in ("tensor", "list", "three", "dims_tuple_for_tensor", "dims_shorter",
                 "dims_list_for_tuple", "none_output", "good_pair", "good_broadcast"):
        _check(lambda lib, kind=kind: _bad_vmap_rule(lib, kind))


# -- func.jvp checks primals before tangents, and refuses empty primals ----------------------
def test_jvp_argument_checks_order():
    def run(lib, case):
        p, t = {"empty": ((), ()), "float_tangent": ((lib.ones(2),), (3.0,)),
                "float_primal": ((3.0,), (3.0,))}[case]
        return lib.func.jvp(lambda *a: a, p, t)

    for case in ("empty", "float_tangent", "float_primal"):
        _check(lambda lib, case=case: run(lib, case))


# -- vmap over index_add/index_copy/index_fill: values, and no per-sample fallback warning ----
def test_vmap_index_along_dim_ops_have_rules():
    def run(lib, case):
        vmap = lib.func.vmap
        a = lib.arange(12.0).reshape(3, 4)
        idx = lib.tensor([0, 0, 3])
        cases = {
            "add_": lambda: vmap(lambda x: x.clone().index_add_(0, lib.tensor([0, 0]),
                                                                x[:2]))(a),
            "add_alpha": lambda: vmap(lambda x, s: x.index_add(0, idx, s, alpha=2.0))(
                a, lib.ones(3, 3)),
            "add_plain_self": lambda: vmap(lambda s: lib.zeros(4).index_add(0, idx, s))(
                lib.ones(3, 3)),
            "add_neg_dim": lambda: vmap(lambda x: x.index_add(-1, lib.tensor([1, 1]),
                                                              lib.ones(2, 2)))(
                lib.zeros(3, 2, 3)),
            "copy": lambda: vmap(lambda x, s: x.index_copy(0, lib.tensor([2, 0]), s))(
                a, lib.ones(3, 2) * 7),
            "fill": lambda: vmap(lambda x: x.index_fill(0, lib.tensor([1, 3]), -1.0))(a),
            "grad": lambda: vmap(lib.func.grad(
                lambda x: x.index_add(0, idx, x[:3] ** 2).pow(2).sum()))(a),
        }
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            out = cases[case]()
        return out, [str(w.message) for w in ws if "batching rule" in str(w.message)]

    for case in ("add_", "add_alpha", "add_plain_self", "add_neg_dim", "copy", "fill", "grad"):
        _check(lambda lib, case=case: run(lib, case))


# -- tensor hooks inside vmap(grad(f)) fire (and may change the gradient); retain_grad refused -
def _hooks_in_transforms(lib, case):
    func = lib.func
    log = []

    def f(x):
        b = x * 2
        if case == "retain":
            b.retain_grad()
        else:
            b.register_hook(lambda g: log.append(tuple(g.shape)) if case == "log" else g * 10)
        return (b ** 2).sum()

    if case in ("modify", "log"):
        return func.vmap(func.grad(f))(lib.ones(2, 3)), log
    if case == "retain":
        return func.grad(f)(lib.ones(3))
    def g(a):  # directly inside a vmap nothing requires grad
        b = a * 2
        b.register_hook(lambda grad: grad * 10)
        return b

    x = lib.ones(2, 3, requires_grad=True)
    func.vmap(g)(x).sum().backward()
    return x.grad


def test_tensor_hooks_inside_transforms():
    for case in ("modify", "log", "retain", "vmap_only"):
        _check(lambda lib, case=case: _hooks_in_transforms(lib, case))


# -- a module with full backward hooks called inside a torch.func transform is refused -------
def test_module_backward_hooks_refused_inside_transforms():
    def run(lib, case):
        func = lib.func
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        if case == "pre":
            m.register_full_backward_pre_hook(lambda mod, go: None)
        else:
            m.register_full_backward_hook(lambda mod, gi, go: None)
        x = lib.ones(4, 3)
        if case == "vmap_grad":
            return func.vmap(func.grad(lambda xx: m(xx).sum()))(lib.ones(2, 4, 3))
        return func.grad(lambda xx: m(xx).sum())(x)

    for case in ("full", "pre", "vmap_grad"):
        _check(lambda lib, case=case: run(lib, case))


# -- torch.autograd.functional inside torch.func.grad is refused (numtorch gave zeros) --------
def test_autograd_functional_inside_func_grad():
    def run(lib, name):
        F = lib.autograd.functional
        x = lib.tensor([0.5, 1.0, 2.0])
        calls = {
            "jacobian": lambda a: F.jacobian(lib.sin, a).sum(),
            "vjp": lambda a: F.vjp(lib.sin, a, lib.ones(3))[1].sum(),
            "hessian": lambda a: F.hessian(lambda b: (b ** 3).sum(), a).sum(),
            "closure_input": lambda a: F.jacobian(lib.sin, x).sum() * a.sum(),
        }
        return lib.func.grad(calls[name])(x)

    for name in ("jacobian", "vjp", "hessian", "closure_input"):
        _check(lambda lib, name=name: run(lib, name))


# -- a custom Function's vmap staticmethod runs outside the vmap level (random ops draw once) -
def test_custom_function_vmap_rule_runs_outside_the_level():
    def run(lib, mode, nested):
        class Noisy(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x + lib.rand(x.shape)

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vmap(info, in_dims, x):
                return x + lib.rand(x.shape), 0

        lib.manual_seed(0)
        f = lib.func.vmap(Noisy.apply, randomness=mode)
        if nested:
            return lib.func.vmap(f, randomness=mode)(lib.zeros(2, 3, 2)), lib.rand(2)
        return f(lib.zeros(3, 2)), lib.rand(2)

    for mode in ("error", "different", "same"):
        for nested in (False, True):
            _check(lambda lib, mode=mode, nested=nested: run(lib, mode, nested))
