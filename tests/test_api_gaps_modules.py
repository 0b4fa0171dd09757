"""torch modules numtorch lacked, against torch: torch.library custom operators, torch.overrides
helpers, torch.from_file, and the absent-device modules torch.xpu / torch.mps."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import same

rng = np.random.default_rng(5)


def _sin_op(lib, name, with_autograd):
    """A custom operator computing sin through NumPy (so autograd cannot see inside)."""
    Tensor = lib.Tensor

    def impl(x: Tensor, scale: float = 1.0) -> Tensor:
        return lib.from_numpy(np.sin(x.detach().numpy()) * scale)

    op = lib.library.custom_op(f"apigaps::{name}", mutates_args=())(impl)
    if with_autograd:
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.scale = scale

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * ctx.scale, None

        op.register_autograd(backward, setup_context=setup_context)
    return op


def test_custom_op_forward_backward():
    a, u = rng.uniform(-2, 2, (3, 4)), rng.uniform(-1, 1, (3, 4))

    def fn(t):
        op = _sin_op(t, "sin_grad", True)
        x = t.from_numpy(a.copy()).requires_grad_()
        y = op(x, scale=2.0)
        y.backward(t.from_numpy(u))
        return y, x.grad, type(y.grad_fn).__name__, repr(op).replace("numtorch", "torch")

    same(fn, rtol=1e-12, atol=1e-12)

    def no_formula(t):
        op = _sin_op(t, "sin_nograd", False)
        y = op(t.from_numpy(a.copy()).requires_grad_())
        flags = (y.requires_grad, type(y.grad_fn).__name__)
        y.sum().backward()
        return flags

    same(no_formula)
    same(lambda t: _sin_op(t, "sin_plain", False)(t.from_numpy(a)), rtol=1e-12)


def test_custom_op_mutation_kernels_fake_and_errors():
    def mutate(t):
        @t.library.custom_op("apigaps::add_into", mutates_args=("a",))
        def add_into(a: t.Tensor, b: t.Tensor) -> None:
            a.add_(b)

        a = t.zeros(2)
        return add_into(a, t.ones(2)), a

    same(mutate)

    def kernels(t):
        @t.library.custom_op("apigaps::which", mutates_args=(), device_types="cpu")
        def which(x: t.Tensor) -> t.Tensor:
            return x + 1

        @which.register_fake
        def _(x):
            return t.empty_like(x)

        return which(t.ones(2))

    same(kernels)

    def bad_name(t):
        @t.library.custom_op("noname", mutates_args=())
        def f(x: t.Tensor) -> t.Tensor:
            return x * 1

    same(bad_name)

    def no_mutates(t):
        @t.library.custom_op("apigaps::nomut")
        def g(x: t.Tensor) -> t.Tensor:
            return x * 1

    same(no_mutates)

    def no_annotation(t):
        @t.library.custom_op("apigaps::noann", mutates_args=())
        def h(x):
            return x * 1

    same(no_annotation)

    def aliasing(t):
        @t.library.custom_op("apigaps::alias", mutates_args=())
        def same_out(x: t.Tensor) -> t.Tensor:
            return x

        same_out(t.ones(2))

    same(aliasing, messages=False)

    def by_name(t):
        op = _sin_op(t, "sin_byname", False)
        t.library.register_autograd("apigaps::sin_byname", lambda ctx, g: (g * 2, None))
        x = t.ones(2, requires_grad=True)
        op(x).sum().backward()
        return x.grad

    same(by_name)


# -- torch.overrides ----------------------------------------------------------------------

def _overrider(lib):
    class Wrapped:
        def __init__(self, v):
            self.v = v

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ == "refuse":
                return NotImplemented
            return ("handled", func.__name__, len(types), args[0].v)

    class Sub(Wrapped):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("sub", func.__name__)

    return Wrapped, Sub


def test_overrides_protocol():
    def fn(t):
        O = t.overrides
        W, S = _overrider(t)

        def my_api(x, y=None):
            args = (x,) if y is None else (x, y)
            if O.has_torch_function(args):
                return O.handle_torch_function(my_api, args, *args)
            return "plain"

        def refuse(x):
            return O.handle_torch_function(refuse, (x,), x)

        out = [my_api(t.ones(2)), my_api(W(3)), my_api(W(1), S(2)),
               O.has_torch_function((t.ones(1), 3)), O.has_torch_function_unary(W(1)),
               O.has_torch_function_variadic(t.ones(1), W(1)),
               O.is_tensor_like(t.ones(1)), O.is_tensor_like(W(1)), O.is_tensor_like(3),
               O.is_tensor_like(t.nn.Parameter(t.ones(1)))]
        try:
            refuse(W(1))
        except TypeError as e:
            out.append(type(e).__name__)
        return out

    same(fn)


# -- from_file ------------------------------------------------------------------------------

def test_from_file(tmp_path):
    path = str(tmp_path / "data.bin")
    np.arange(6, dtype=np.float32).tofile(path)
    same(lambda t: t.from_file(path, size=6))
    same(lambda t: t.from_file(path, size=2, dtype=t.float64))
    same(lambda t: t.from_file(path))
    same(lambda t: t.from_file(path, size=10), messages=False)
    same(lambda t: t.from_file(str(tmp_path / "missing.bin"), size=3), messages=False)

    def private(t):
        x = t.from_file(path, shared=False, size=4)
        x[0] = 9.0
        return x, t.from_numpy(np.fromfile(path, dtype=np.float32))

    same(private)

    def shared(t):
        x = t.from_file(path, shared=True, size=4)
        x[0] += 1.0
        return t.from_numpy(np.fromfile(path, dtype=np.float32))

    nt_after = shared(numtorch).numpy()
    th_after = shared(torch).numpy()
    assert nt_after[0] == 1.0 and th_after[0] == 2.0  # each library added one, to the file

    def created(t):
        new = str(tmp_path / f"new_{t.__name__}.bin")
        x = t.from_file(new, shared=True, size=3, dtype=t.int64)
        return x, len(open(new, "rb").read())

    same(created)


# -- absent devices -------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "is_available()", "device_count()", "is_initialized()", "current_device()",
    "synchronize()", "empty_cache()", "manual_seed(0)", "manual_seed_all(0)", "seed()",
    "get_device_name(0)", "set_device(0)", "memory_allocated()", "get_rng_state()", "init()",
    "current_stream()", "get_device_properties(0)"])
def test_xpu(call):
    same(lambda t: eval("t.xpu." + call))


@pytest.mark.parametrize("call", [
    "is_available()", "device_count()", "manual_seed(0)", "synchronize()", "empty_cache()",
    "get_rng_state()", "seed()", "current_allocated_memory()", "driver_allocated_memory()",
    "recommended_max_memory()", "set_per_process_memory_fraction(0.5)"])
def test_mps(call):
    same(lambda t: eval("t.mps." + call))
