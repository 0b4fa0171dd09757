"""Session 51 parity tests of autograd (saved-tensor hooks, graph introspection, ...): each
case runs the same user code under real torch and under numtorch and compares values, dtypes,
shapes and exceptions at test time."""

from importlib import import_module

from tests._compare_user_code import check


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    check(fn, rtol, atol, msg, grad_flags=True)


def _graph(lib):
    return import_module(lib.__name__ + ".autograd.graph")


# -- disable_saved_tensors_hooks entered while saved-tensor hooks are active -------------------
def _disable_inside(lib, case):
    g = _graph(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    steps = []
    try:
        if case == "hooks":
            with g.saved_tensors_hooks(lambda t: t, lambda t: t), \
                    g.disable_saved_tensors_hooks("no hooks in here"):
                steps.append(1)
        elif case == "save_on_cpu":
            with g.save_on_cpu(), g.disable_saved_tensors_hooks("no cpu offload"):
                steps.append(2)
        else:  # the other nesting is refused when the hooks are entered
            with g.disable_saved_tensors_hooks("refused later"), \
                    g.saved_tensors_hooks(lambda t: t, lambda t: t):
                steps.append(3)
    except RuntimeError as e:
        steps.append(str(e))
    # hooks work again afterwards
    with g.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        y = (x * x).sum()
    y.backward()
    return steps, x.grad


def test_disable_saved_tensors_hooks_inside_active_hooks():
    for case in ("hooks", "save_on_cpu", "outer"):
        _check(lambda lib, case=case: _disable_inside(lib, case))


# -- graph introspection: only torch's saved attributes carry the "_saved_" prefix ------------
def _saved_names(lib, expr):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = eval(expr, {"x": x, "torch": lib})
    fn = y.grad_fn
    # what torchviz reads with show_attrs: every "_saved_" attribute; none may be a method
    return sorted(a for a in dir(fn) if a.startswith("_saved_") and callable(getattr(fn, a)))


def test_grad_fn_saved_attributes_are_not_methods():
    for expr in ("x * 2", "x.sin()", "x + 1", "x.pow(2)", "x.sum()"):
        _check(lambda lib, expr=expr: _saved_names(lib, expr))


# -- Tensor.requires_grad_() inside a torch.func transform ------------------------------------
def _rg_in_transform(lib, case):
    f = import_module(lib.__name__ + ".func")
    x = lib.tensor([1.0, 2.0, 3.0])
    ones = lambda: lib.ones(3)
    if case == "grad":
        return f.grad(lambda a: (a * ones().requires_grad_()).sum())(x)
    if case == "grad_false":
        return f.grad(lambda a: (a * ones().requires_grad_(False)).sum())(x)
    if case == "grad_input":
        return f.grad(lambda a: (a.requires_grad_() * 2).sum())(x)
    if case == "vmap":
        return f.vmap(lambda a: a * ones().requires_grad_())(lib.ones(2, 3))
    if case == "jvp":
        return f.jvp(lambda a: a * ones().requires_grad_(), (x,), (x,))
    if case == "vjp":
        return f.vjp(lambda a: a * ones().requires_grad_(), x)[0]
    if case == "jacrev":
        return f.jacrev(lambda a: a * ones().detach().requires_grad_())(x)
    if case == "buffer":
        return f.grad(lambda a: (a * lib.nn.Buffer(ones())).sum())(x)
    # what torch allows inside a transform: factories' requires_grad=True, Parameter, modules
    # (frozen embeddings too), the attribute setter, autograd.grad, forward AD
    if case == "allowed":
        def fn(a):
            w = lib.ones(3, requires_grad=True)
            p = lib.nn.Parameter(lib.ones(3))
            e = lib.nn.Embedding.from_pretrained(lib.ones(4, 3))(lib.tensor([1]))[0]
            r = lib.randn_like(a, requires_grad=True) * 0
            t = lib.ones(3)
            t.requires_grad = True
            lin = lib.nn.Linear(3, 1)
            g = lib.autograd.grad((a ** 2).sum(), a, create_graph=True)[0]
            return (a * w * p * e * t + r + g).sum() + lin(a).sum() * 0
        out = f.grad(fn)(x)
        fw = f.jvp(lambda a: a.sin() * a, (x,), (x,))
        return out, fw, f.hessian(lambda a: (a ** 3).sum())(x)
    return lib.ones(3).requires_grad_()  # outside: allowed


def test_requires_grad_method_refused_inside_func_transforms():
    for case in ("grad", "grad_false", "grad_input", "vmap", "jvp", "vjp", "jacrev", "buffer",
                 "allowed", "outside"):
        _check(lambda lib, case=case: _rg_in_transform(lib, case))


# -- is_grads_batched with grad_outputs of the wrong shape: torch's message ---------------------
def _batched_bad_shape(lib, shape):
    x = lib.ones(3, 4, requires_grad=True)
    return lib.autograd.grad(x * 2, x, lib.ones(*shape), is_grads_batched=True)


def test_is_grads_batched_shape_mismatch_message():
    for shape in ((3, 4), (5,), (2, 3), (2, 4, 3), (7, 1, 4)):
        _check(lambda lib, shape=shape: _batched_bad_shape(lib, shape))


# -- in-place writes into captured tensors inside torch.func transforms -----------------------
def _captured(lib, case):
    f = import_module(lib.__name__ + ".func")
    x = lib.tensor([1.0, 2.0, 3.0])
    w = lib.zeros(3)
    lin = lib.nn.Linear(3, 3)

    def g(body):
        return f.grad(lambda a: body(a))(x)

    if case in ("add_value", "add_no_grad"):
        def body(a):
            if case == "add_value":  # numtorch used to leave w requiring grad, with a grad_fn
                w.add_(a)
            else:
                with lib.no_grad():
                    w.add_(1)
            return (a ** 2).sum()
        try:
            out = g(body)
        except RuntimeError as e:
            out = str(e)
    elif case == "ops":
        out = []
        for op in (lambda: w.mul_(2), lambda: w.zero_(), lambda: w.fill_(1.0),
                   lambda: w.copy_(x), lambda: w.__setitem__(0, 5.0), lambda: w.uniform_(),
                   lambda: w[:2].add_(1), lambda: w.detach().sub_(1), lambda: w.clamp_(0, 1),
                   lambda: w.masked_fill_(w > 0, 1.0), lambda: w.pow_(2),
                   lambda: lin.weight.data.mul_(1), lambda: w.index_fill_(0, lib.tensor([0]), 1.0)):
            try:
                g(lambda a, op=op: (op(), a.sum())[1])
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
    elif case == "transforms":
        out = []
        for run in (lambda: f.jvp(lambda a: (w.add_(1), a)[1], (x,), (x,)),
                    lambda: f.vjp(lambda a: (w.add_(1), a)[1], x),
                    lambda: f.jacrev(lambda a: (w.add_(1), a)[1])(x),
                    lambda: f.jacfwd(lambda a: (w.add_(1), a)[1])(x),
                    lambda: f.grad(lambda a: f.vmap(lambda b: (w.add_(1), b)[1])(
                        a.unsqueeze(0)).sum())(x),
                    lambda: f.vmap(f.grad(lambda a: (w.add_(1), a.sum())[1]))(x.unsqueeze(0))):
            try:
                run()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
    elif case == "allowed":
        def body(a):
            z = lib.zeros(3)
            z.add_(a)  # made inside
            d = w * 1
            d.add_(1)  # made inside from a captured tensor
            e = a.detach()
            e.mul_(1)  # the transform's own input
            lib.add(a.detach(), 1, out=w)  # out= is allowed
            return (z * d * a).sum()
        out = g(body)

        def outer(a):
            z = lib.zeros(3)

            def inner(b):
                z.add_(1)  # made by the outer transform: captured by the inner one
                return (b * z).sum()
            return f.grad(inner)(a).sum()
        try:
            f.grad(outer)(x)
            nested = "ok"
        except RuntimeError as e:
            nested = str(e)
        out = (out, nested, w)
    else:  # batch norm in train mode: its running stats are captured unless passed in
        bn = lib.nn.BatchNorm1d(3)
        xb = lib.randn(4, 3, generator=lib.Generator().manual_seed(0))
        params = {k: v.detach() for k, v in bn.named_parameters()}
        try:
            f.grad(lambda p: f.functional_call(bn, p, (xb,)).pow(2).sum())(params)
            first = "ok"
        except RuntimeError as e:
            first = str(e)
        bufs = dict(bn.named_buffers())
        grads = f.grad(lambda p, b: f.functional_call(bn, (p, b), (xb,)).pow(2).sum())(
            params, bufs)
        out = (first, grads, bn.running_mean, bn.num_batches_tracked)
    # afterwards the captured tensor is a plain tensor again, and writes work
    w.add_(1)
    return out, w, w.requires_grad, w.grad_fn is None, lib.ones(2).add_(1)


def test_inplace_write_into_captured_tensor_inside_func_transforms():
    for case in ("add_value", "add_no_grad", "ops", "transforms", "allowed", "batch_norm"):
        _check(lambda lib, case=case: _captured(lib, case))


# -- autograd.functional forward mode: the Jacobian stays joined to inputs requiring grad -------
def _fwd_jacobian(lib, case):
    F = import_module(lib.__name__ + ".autograd.functional")
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = lib.tensor([1.0, 2.0, 3.0])
    if case == "sin":
        j = F.jacobian(lib.sin, x, vectorize=True, strategy="forward-mode")
    elif case == "tuple":
        j = F.jacobian(lambda a, b: a.exp() * b, (x, y), vectorize=True,
                       strategy="forward-mode")
    elif case == "plain":
        j = F.jacobian(lib.sin, y, vectorize=True, strategy="forward-mode")
    else:
        j = F.hessian(lambda t: (t ** 3).sum(), x, vectorize=True,
                      outer_jacobian_strategy="forward-mode")
    flat = [j] if isinstance(j, lib.Tensor) else [t for row in j for t in row]
    total = sum(t.sum() for t in flat)
    if total.requires_grad:
        total.backward()
    return flat, x.grad


def test_functional_jacobian_forward_mode_stays_differentiable():
    # (not matched: a constant Jacobian, which torch still joins to x's graph)
    for case in ("sin", "tuple", "plain", "hessian"):
        _check(lambda lib, case=case: _fwd_jacobian(lib, case))
