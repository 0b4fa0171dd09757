"""Session 50 parity tests of autograd (module backward hooks, custom Functions, engine,
torch.autograd.functional): each case runs the same user code under real torch and under
numtorch and compares values, dtypes, shapes and exceptions at test time."""

import warnings

import torch

import numtorch
from tests._compare_user_code import check


def _check(fn, rtol=1e-5, atol=1e-6, msg=True):
    check(fn, rtol, atol, msg, grad_flags=True)


# -- full backward hooks: an input that got no gradient gets zeros ----------------------------
def _hooked_inputs(lib, kind):
    class M(lib.nn.Module):
        def forward(self, a, b, c):
            return a * 2, b * 3

    m = M()
    seen = []
    if kind == "full":
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    elif kind == "replace":
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[1] + 1, None))
    else:
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(go))
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    o1, _ = m(a, b, lib.ones(1))
    o1.sum().backward()
    return a.grad, b.grad, seen


def test_full_backward_hook_unreached_input_gets_zeros():
    for kind in ("full", "replace", "pre"):
        _check(lambda lib, kind=kind: _hooked_inputs(lib, kind))


# -- non-reentrant checkpoint: an argument changed in place before backward --------------------
def _ckpt_mutated(lib, case):
    from importlib import import_module

    checkpoint = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    w = lib.tensor([1.0, 2.0])
    if case == "nonleaf":
        y = checkpoint(lambda a: a.sin(), h, use_reentrant=False)
        h.add_(1)
    elif case == "leaf":
        y = checkpoint(lambda a, b: a.sin() * b, x, w, use_reentrant=False)
        w.add_(1)
    elif case == "nothing_saved":
        y = checkpoint(lambda a: a * 2, h, use_reentrant=False)
        h.add_(1)
    else:  # an inference tensor argument
        with lib.inference_mode():
            w = lib.tensor([1.0, 2.0])
        y = checkpoint(lambda a, b: a.sin() * b, x, w, use_reentrant=False)
    y.sum().backward()
    return x.grad


def test_checkpoint_nonreentrant_argument_changed_in_place():
    for case in ("nonleaf", "leaf", "nothing_saved", "inference"):
        _check(lambda lib, case=case: _ckpt_mutated(lib, case))


def test_checkpoint_nonreentrant_inference_argument_under_no_grad():
    def run(lib):
        from importlib import import_module

        checkpoint = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
        with lib.inference_mode():
            w = lib.tensor([1.0, 2.0])
        with lib.no_grad():
            return checkpoint(lambda a, b: a.sin() * b, lib.ones(2), w, use_reentrant=False)

    _check(run)


# -- register_multi_grad_hook(mode="all") fires during the call, as soon as it can -------------
def _multi_grad(lib, kind):
    register_multi_grad_hook = lib.autograd.graph.register_multi_grad_hook
    log = []
    x = lib.ones(3, requires_grad=True)
    y = lib.ones(3, requires_grad=True)
    w = lib.ones(3, requires_grad=True)
    a, b = x * 2, y * 3
    c = a * b
    x.register_hook(lambda g: log.append("x"))
    y.register_hook(lambda g: log.append("y"))
    engine = lib.autograd.Variable._execution_engine

    def cb():
        log.append("callback")

    watched = (x, y) if kind.startswith("leaves") else (a, b, w)
    register_multi_grad_hook(watched, lambda gs: log.append(("multi", gs)))
    c.grad_fn.register_prehook(lambda g: engine.queue_callback(cb))
    if kind in ("backward", "leaves"):
        c.sum().backward()
    elif kind == "grad":
        lib.autograd.grad(c.sum(), [x])
    elif kind == "grad_nonleaf":
        lib.autograd.grad(c.sum(), [a])
    elif kind == "inputs":
        c.sum().backward(inputs=[y])
    elif kind == "leaves_inputs":
        c.sum().backward(inputs=[x])
    elif kind == "leaves_grad":
        lib.autograd.grad(c.sum(), [x])
    return log


def test_multi_grad_hook_all_fires_before_final_callbacks():
    for kind in ("backward", "grad", "grad_nonleaf", "inputs", "leaves", "leaves_inputs",
                 "leaves_grad"):
        _check(lambda lib, kind=kind: _multi_grad(lib, kind))


# -- forward AD: in-place on a dual writes into the caller's tangent; no dual of a dual -------
def _dual_inplace(lib, op):
    fwAD = lib.autograd.forward_ad
    p = lib.tensor([1.0, 2.0, 3.0])
    t = lib.tensor([0.5, 1.0, -1.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(p.clone(), t)
        if op == "mul":
            d.mul_(2)
        elif op == "add_dual":
            d.add_(fwAD.make_dual(lib.ones(3), lib.ones(3)))
        elif op == "copy":
            d.copy_(fwAD.make_dual(lib.ones(3), lib.full((3,), 4.0)))
        return fwAD.unpack_dual(d).tangent, t


def _dual_of_dual(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(lib.ones(3), lib.ones(3))
        return fwAD.make_dual(d, lib.ones(3))


def test_forward_ad_inplace_updates_the_callers_tangent():
    for op in ("mul", "add_dual", "copy"):
        _check(lambda lib, op=op: _dual_inplace(lib, op))
    _check(_dual_of_dual)


# -- autograd.functional: hessian/vhp/hvp refuse a function returning a one-tensor tuple -----
def test_functional_scalar_transforms_refuse_tuple_output():
    def run(lib, name):
        F = lib.autograd.functional
        x = lib.ones(3)
        f = lambda a: ((a ** 3).sum(),)
        if name == "hessian":
            return F.hessian(f, x)
        return getattr(F, name)(f, x, lib.ones(3))

    for name in ("hessian", "vhp", "hvp"):
        _check(lambda lib, name=name: run(lib, name))


# -- a real grad_output for a complex output (or the reverse) is refused ----------------------
def test_backward_complex_grad_output_dtype_mismatch():
    def run(lib, kind):
        z = lib.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if kind == "complex_out_real_grad":
            (z * 2).backward(lib.ones(2))
        elif kind == "real_out_complex_grad":
            (x * 2).backward(lib.ones(2, dtype=lib.complex64))
        elif kind == "autograd_grad":
            return lib.autograd.grad(z * 2, z, lib.ones(2))
        elif kind == "complex128_grad":  # same kind, other width: accepted
            (z * 2).backward(lib.ones(2, dtype=lib.complex128))
        return z.grad, x.grad

    for kind in ("complex_out_real_grad", "real_out_complex_grad", "autograd_grad",
                 "complex128_grad"):
        _check(lambda lib, kind=kind: run(lib, kind))


# -- ctx.mark_dirty() of a tensor that is not an input warns (when the call records) ----------
def test_mark_dirty_non_input_warns():
    def run(lib, rg, no_grad):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                t = x * 2
                ctx.mark_dirty(t)
                return t

            @staticmethod
            def backward(ctx, g):
                return g

        x = lib.ones(3, requires_grad=rg)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            if no_grad:
                with lib.no_grad():
                    F.apply(x)
            else:
                F.apply(x)
        # (torch's C++ warnings end with where they were triggered; numtorch's do not)
        return [str(w.message).split(" (Triggered internally")[0] for w in ws]

    for rg, no_grad in ((True, False), (False, False), (True, True)):
        want, got = run(torch, rg, no_grad), run(numtorch, rg, no_grad)
        assert got == want


# -- saved_tensors_hooks around a non-reentrant checkpoint see its arguments ------------------
def _ckpt_under_hooks(lib, kind):
    from importlib import import_module

    checkpoint = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    hooks = lib.autograd.graph.saved_tensors_hooks
    log = []
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    w = lib.tensor([2.0, 3.0])
    if kind == "log":
        pack, unpack = (lambda t: (log.append(("pack", t.tolist())), t)[1],
                        lambda t: (log.append("unpack"), t)[1])
    else:  # the unpack hook's tensor is what the recomputation runs on
        pack, unpack = (lambda t: t.detach() * 2, lambda t: t)
    with hooks(pack, unpack):
        y = checkpoint(lambda a, b: (a * b).exp(), x, w, use_reentrant=False)
    y.sum().backward()
    return log, x.grad


def test_checkpoint_arguments_go_through_outer_saved_tensors_hooks():
    for kind in ("log", "altered"):
        _check(lambda lib, kind=kind: _ckpt_under_hooks(lib, kind))


# -- forward AD's make_dual/unpack_dual on batched tensors inside vmap are refused ------------
def test_forward_ad_dual_ops_refused_on_batched_tensors():
    def run(lib, case):
        fwAD = lib.autograd.forward_ad

        def make(p, t):
            with fwAD.dual_level():
                d = fwAD.make_dual(p, t)
                return fwAD.unpack_dual(d.sin() * d).tangent

        def unpack(p):  # (numtorch gave zeros here)
            with fwAD.dual_level():
                d = fwAD.make_dual(lib.ones(3), lib.ones(3))
                return fwAD.unpack_dual(d.sin() * p).tangent

        def plain(p):  # unpacked before meeting the batched tensor: works in both
            with fwAD.dual_level():
                d = fwAD.make_dual(lib.ones(3), lib.ones(3))
                return fwAD.unpack_dual(d.sin()).tangent * p

        vmap = lib.func.vmap
        if case == "make":
            return vmap(make)(lib.ones(2, 3), lib.eye(3)[:2])
        return vmap(unpack if case == "unpack" else plain)(lib.ones(2, 3))

    for case in ("make", "unpack", "plain"):
        _check(lambda lib, case=case: run(lib, case))
