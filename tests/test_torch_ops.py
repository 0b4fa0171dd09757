"""``torch.ops``: operators made by ``torch.library`` (``custom_op``, ``define`` + ``impl``,
``Library``) and the builtin ATen overloads, called through ``torch.ops.<ns>.<op>``, against
torch: values, gradients, schemas, the overload chosen and the dispatcher's errors."""

import importlib
import typing

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import _builtin_base, same

rng = np.random.default_rng(11)
A = rng.uniform(-2, 2, (3, 4))
U = rng.uniform(-1, 1, (3, 4))


def _first_line(fn):
    """``fn(numtorch)`` and ``fn(torch)`` raise the same class and message start (messages
    that name source files or torch's C++ backends are compared up to that point)."""
    out = []
    for lib in (numtorch, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        out.append((_builtin_base(type(info.value)), str(info.value)))
    (ca, ma), (cb, mb) = out
    assert ca == cb, out
    return ma, mb


def _foo(t, ns):
    @t.library.custom_op(f"{ns}::foo", mutates_args=())
    def foo(x: t.Tensor, k: float) -> t.Tensor:
        return x.sin() * k

    def setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * ctx.k, None

    foo.register_autograd(backward, setup_context=setup)
    foo.register_fake(lambda x, k: t.empty_like(x))
    return foo


def test_custom_op_through_torch_ops():
    def fn(t):
        _foo(t, "tops_a")
        x = t.from_numpy(A.copy()).requires_grad_()
        y = t.ops.tops_a.foo(x, 2.0)
        y.backward(t.from_numpy(U))
        packet, overload = t.ops.tops_a.foo, t.ops.tops_a.foo.default
        z = overload(x, k=3.0)
        return (y, x.grad, z, type(y.grad_fn).__name__, str(overload._schema),
                packet.overloads(), repr(packet), repr(overload), str(overload),
                overload.name(), overload.overloadpacket is packet, repr(t.ops.tops_a),
                type(t.ops.tops_a).__name__, type(packet).__name__, type(overload).__name__)

    same(fn, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda ops, x: ops.foo(x),
    lambda ops, x: ops.foo(x, 1.0, 2.0),
    lambda ops, x: ops.foo(x, 1.0, j=2),
    lambda ops, x: ops.foo(x, 2.0, k=2.0),
    lambda ops, x: ops.foo(x, "a"),
    lambda ops, x: ops.foo(1, 2.0),
    lambda ops, x: ops.foo.default(x, j=1.0),
    lambda ops, x: ops.bar,
    lambda ops, x: ops.foo.nosuch,
])
def test_custom_op_call_errors(call):
    def fn(t):
        _foo(t, "tops_err")
        return call(t.ops.tops_err, t.ones(2))

    same(fn)


def test_infer_schema_and_mutation():
    def fn(t):
        def f(x: t.Tensor, y: typing.Optional[t.Tensor] = None, n: int = 2, k: float = 1.5,
              b: bool = True, s: str = "a", *, d: t.dtype = t.float32) -> None:
            x.add_(n)

        schema = t.library.infer_schema(f, mutates_args=("x",))
        t.library.custom_op("tops_m::f", mutates_args=("x",))(f)
        a = t.zeros(2)
        out = t.ops.tops_m.f(a, n=5)
        return schema, a, out, str(t.ops.tops_m.f.default._schema)

    same(fn)


def test_define_impl_and_autograd():
    def fn(t):
        t.library.define("tops_d::bar", "(Tensor x, int n=2) -> Tensor")

        @t.library.impl("tops_d::bar", "cpu")
        def bar(x, n=7):  # the kernel's own default applies when n is not given
            return x * n

        x = t.from_numpy(A.copy()).requires_grad_()
        plain = (t.ops.tops_d.bar(x.detach()), t.ops.tops_d.bar(x.detach(), 3),
                 t.ops.tops_d.bar.default(x.detach(), n=5))
        t.library.register_autograd(
            "tops_d::bar", lambda ctx, g: (g * ctx.n, None),
            setup_context=lambda ctx, inputs, output: setattr(ctx, "n", inputs[1]))
        y = t.ops.tops_d.bar(x, 4)
        y.backward(t.from_numpy(U))
        return plain, y, x.grad, type(y.grad_fn).__name__, str(t.ops.tops_d.bar.default._schema)

    same(fn, rtol=1e-12)


def test_library_def_overloads_and_composite_kernels():
    def fn(t):
        lib = t.library.Library("tops_l", "DEF")
        names = (lib.define("baz(Tensor x) -> Tensor"),
                 lib.define("baz.two(Tensor x, Tensor y) -> Tensor"),
                 lib.define("sc(Tensor x) -> Tensor"))
        lib.impl("baz", lambda x: x + 1, "CPU")
        lib.impl("baz.two", lambda x, y: x * y, "CompositeExplicitAutograd")
        t.library.impl(lib, "sc", "CompositeImplicitAutograd")(lambda x: x * 3)
        x = t.from_numpy(A.copy()).requires_grad_()
        one, two = t.ops.tops_l.baz(x), t.ops.tops_l.baz(x, x)  # the packet picks by arity
        three = t.ops.tops_l.sc(x)
        (one.sum() + two.sum() + three.sum()).backward()  # the kernels' own ops are recorded
        out = (names, one, two, three, x.grad, t.ops.tops_l.baz.overloads(),
               t.ops.tops_l.baz.two(x, x), lib.ns, lib.kind)
        lib._destroy()
        return out

    same(fn, rtol=1e-12)


def test_library_errors():
    def fn(t):
        lib = t.library.Library("tops_e", "FRAGMENT")
        lib.define("nokern(Tensor x) -> Tensor")
        return t.ops.tops_e.nokern(t.ones(2))

    ma, mb = _first_line(fn)
    cut = mb.index(" is only available")
    assert ma[:cut] == mb[:cut]
    same(lambda t: t.library.Library("tops_e2", "FOO"))
    same(lambda t: t.library.define("tops_e3", "(Tensor x) -> Tensor"))
    same(lambda t: t.library.define("tops_e3::a", "Tensor x -> Tensor"))
    same(lambda t: t.library.register_fake("tops_e3::nosuch")(lambda x: x))
    same(lambda t: t.ops.tops_e_unknown.foo)

    def twice_def(t):
        keep = t.library.Library("tops_e4", "DEF")
        try:
            t.library.Library("tops_e4", "DEF")
        finally:
            keep._destroy()

    ma, mb = _first_line(twice_def)
    cut = mb.index("Previous registration")
    assert ma[:cut] == mb[:cut]

    def duplicate(t):
        t.library.define("tops_e5::a", "(Tensor x) -> Tensor")
        t.library.define("tops_e5::a", "(Tensor x) -> Tensor")

    ma, mb = _first_line(duplicate)
    cut = mb.index("Duplicate registration")
    assert ma[:cut] == mb[:cut]


def test_library_is_removed_when_destroyed():
    def fn(t):
        lib = t.library.Library("tops_g", "FRAGMENT")
        lib.define("f(Tensor x) -> Tensor")
        lib._destroy()
        return t.ops.tops_g.f

    same(fn)


@pytest.mark.parametrize("call", [
    lambda ops, a, b: ops.add.Tensor(a, b, alpha=2),
    lambda ops, a, b: ops.add(a, 3),
    lambda ops, a, b: ops.add.Scalar(a, 2.5),
    lambda ops, a, b: ops.sub.Tensor(a, b),
    lambda ops, a, b: ops.mul.Tensor(a, 2),
    lambda ops, a, b: ops.div.Tensor_mode(a, b, rounding_mode="floor"),
    lambda ops, a, b: ops.rsub.Scalar(a, 1.0),
    lambda ops, a, b: ops.pow.Tensor_Scalar(a, 2),
    lambda ops, a, b: ops.mm.default(a, b.t()),
    lambda ops, a, b: ops.addmm.default(a[:, :3], a, b.t(), beta=0.5),
    lambda ops, a, b: ops.bmm.default(a[None], b.t()[None]),
    lambda ops, a, b: ops.linear.default(a, b, None),
    lambda ops, a, b: ops.relu.default(a),
    lambda ops, a, b: ops.gelu.default(a, approximate="tanh"),
    lambda ops, a, b: ops.sum.dim_IntList(a, [0], True),
    lambda ops, a, b: ops.sum.default(a),
    lambda ops, a, b: ops.mean.dim(a, [1]),
    lambda ops, a, b: ops.amax.default(a),
    lambda ops, a, b: ops.max.dim(a, 1),
    lambda ops, a, b: ops.var.correction(a, [1], correction=0),
    lambda ops, a, b: ops.view.default(a, [4, 3]),
    lambda ops, a, b: ops.permute.default(a, [1, 0]),
    lambda ops, a, b: ops.transpose.int(a, 0, 1),
    lambda ops, a, b: ops.unsqueeze.default(a, 0),
    lambda ops, a, b: ops.expand.default(a[:1], [5, 4]),
    lambda ops, a, b: ops.cat.default([a, b], 1),
    lambda ops, a, b: ops.stack.default([a, b]),
    lambda ops, a, b: ops.split.Tensor(a, 2, 1),
    lambda ops, a, b: ops.slice.Tensor(a, 1, 1, None, 2),
    lambda ops, a, b: ops.select.int(a, 1, -1),
    lambda ops, a, b: ops._softmax.default(a, 1, False),
    lambda ops, a, b: ops._log_softmax.default(a, 0, False),
    lambda ops, a, b: ops.where.self(a > 0, a, b),
    lambda ops, a, b: ops.clone.default(a),
    lambda ops, a, b: ops.native_layer_norm.default(a, [4], None, None, 1e-5),
    lambda ops, a, b: ops.topk.default(a, 2),
    lambda ops, a, b: ops.zeros_like.default(a),
    lambda ops, a, b: ops.convolution.default(a[None, None], b[None, None, :2, :2], None,
                                              [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
])
def test_aten_overloads(call):
    def fn(t):
        a = t.from_numpy(A.copy()).requires_grad_()
        b = t.from_numpy(U.copy()).requires_grad_()
        out = call(t.ops.aten, a, b)
        flat = [o for o in (out if isinstance(out, (tuple, list)) else [out])]
        (sum((o.double() * o.double()).sum() for o in flat if o.requires_grad) or
         (a * 0).sum()).backward()
        return out, type(out).__name__, a.grad, b.grad

    same(fn, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda ops, a: ops.add.Tensor(a, a, 3),
    lambda ops, a: ops.add.Tensor(a, a, alpha=2, beta=3),
    lambda ops, a: ops.add.Tensor(a, a, beta=3),
    lambda ops, a: ops.add.Scalar(a, a),
    lambda ops, a: ops.add.Tensor(a, None),
    lambda ops, a: ops.mm.default(a, 3),
    lambda ops, a: ops.mm.default(a),
    lambda ops, a: ops.add.foo,
    lambda ops, a: ops.mm.Tensor,
    lambda ops, a: ops.nonexistent_op,
])
def test_aten_call_errors(call):
    same(lambda t: call(t.ops.aten, t.ones(2, 2)))


def test_aten_schemas_match_torch():
    """Every ATen overload numtorch has prints torch's schema."""
    mine = numtorch.ops.aten
    for opname in mine:
        for overload in getattr(mine, opname).overloads():
            got = str(getattr(getattr(mine, opname), overload)._schema)
            want = str(getattr(getattr(torch.ops.aten, opname), overload)._schema)
            assert got == want, (opname, overload)


def test_load_library_and_import_module():
    same(lambda t: t.ops.load_library("/nonexistent/libmyops.so"))
    same(lambda t: (sorted(t.ops.loaded_libraries), t.ops.import_module("json")))


def test_internal_ops_package_still_importable():
    """numtorch's own primitives stay the package ``numtorch.ops``, by import and attribute,
    beside the operator namespaces."""
    mod = importlib.import_module("numtorch.ops.sorting")
    assert numtorch.ops.sorting is mod and numtorch.ops.add is numtorch.add
    import numtorch.ops.shape as shape_mod

    assert shape_mod.__name__ == "numtorch.ops.shape"
    assert type(numtorch.ops.quantized).__name__ == "module"  # torch.ops.quantized stays
    assert type(numtorch.ops.some_new_ns).__name__ == type(torch.ops.some_new_ns).__name__
