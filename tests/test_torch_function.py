"""The __torch_function__ protocol: Tensor subclasses see the calls a program makes and keep
their type through operations, as in torch."""

import pytest
import torch

import numtorch


def _both(program):
    """``program(lib)`` under numtorch and torch; both results are returned for comparison."""
    out = []
    for lib in (numtorch, torch):
        try:
            out.append(program(lib))
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            out.append((type(e).__name__, str(e)))
    return out


def _logged(lib):
    class Logged(lib.Tensor):
        seen = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(getattr(func, "__name__", "?"))
            return super().__torch_function__(func, types, args, kwargs)

    return Logged


def test_a_logging_subclass_sees_the_calls_and_keeps_its_type():
    def program(lib):
        L = _logged(lib)
        F = lib.nn.functional
        t = lib.arange(6.0).reshape(2, 3).as_subclass(L)
        results = [t + 1, 1 + t, 2 - t, t * 2, t / 2, t ** 2, -t, abs(t), t @ t.T, t.sum(),
                   lib.add(t, 1), F.relu(t), t[0], t.T, lib.cat([t, t]), t.mean(dim=0),
                   t.max(0), lib.max(t, 1), t.clone(), t > 2, lib.stack([t, t]),
                   lib.where(t > 2, t, 0.0), t.view(-1), t.unbind(0), t.float(), t.detach(),
                   t.data, lib.ones(3) + t[0], lib.ones(3) - t[0]]
        s = t.clone()
        s += 1
        s.mul_(2)

        def kind(r):
            if isinstance(r, tuple):
                return [kind(x) for x in r]
            return type(r).__name__

        return L.seen, [kind(r) for r in results], type(s).__name__, s.tolist()

    mine, theirs = _both(program)
    assert mine == theirs


def test_plain_subclass_values_and_autograd():
    def program(lib):
        cls = type("Plain", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0, 3.0]).as_subclass(cls).requires_grad_()
        y = (x * x).sum()
        y.backward()
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            m.weight.fill_(0.5)
            m.bias.zero_()
        out = m(x)
        return (type(y).__name__, y.item(), type(x.grad).__name__, x.grad.tolist(),
                type(out).__name__, out.tolist(), x.is_leaf, repr(x.detach()))

    mine, theirs = _both(program)
    assert mine == theirs


def test_func_identity_and_declining_overrides():
    def program(lib):
        seen = []

        class Ident(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append((func is lib.add, func is lib.Tensor.add,
                             func is lib.nn.functional.relu))
                return super().__torch_function__(func, types, args, kwargs)

        i = lib.ones(2).as_subclass(Ident)
        lib.add(i, 1)
        i.add(1)
        i + 1
        lib.nn.functional.relu(i)

        class No(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        n = lib.ones(2, 2).as_subclass(No)
        errors = []
        for call in (lambda: lib.add(n, 1), lambda: n.sum(), lambda: n[0], lambda: n + 1,
                     lambda: lib.cat([n, n]), lambda: lib.nn.functional.relu(n)):
            try:
                call()
            except TypeError as e:
                errors.append(str(e).replace("numtorch", "torch"))
        return seen, errors

    mine, theirs = _both(program)
    assert mine == theirs


def test_parameters_and_unwrapping_subclasses_give_plain_tensors():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2))

        class Unwrap(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                args = [a.as_subclass(lib.Tensor) if isinstance(a, cls) else a for a in args]
                return func(*args, **(kwargs or {}))

        u = lib.ones(2).as_subclass(Unwrap)
        t = lib.ones(2).as_subclass(_logged(lib))
        with lib._C.DisableTorchFunctionSubclass():
            inside = type(t + 1).__name__
        return (type(p * 2).__name__, type(lib.add(p, 1)).__name__,
                lib.overrides.has_torch_function((p,)), lib.overrides.has_torch_function((t,)),
                type(u * 2).__name__, type(lib.mul(u, 2)).__name__, inside,
                lib._C._disabled_torch_function_impl is not None)

    mine, theirs = _both(program)
    assert mine == theirs


def test_a_subclass_defined_by_numtorch_itself_takes_no_part():
    # Parameter and numtorch's internal subclasses keep plain-tensor results
    assert numtorch.nn.Parameter.__torch_function__ is \
        numtorch._C._disabled_torch_function_impl
    assert type(numtorch.nn.Parameter(numtorch.ones(1)) + 1) is numtorch.Tensor


@pytest.mark.parametrize("name", ["add", "relu", "linalg_norm"])
def test_wrapped_functions_keep_their_names_and_docs(name):
    class Sub(numtorch.Tensor):
        pass

    fn = {"add": numtorch.add, "relu": numtorch.nn.functional.relu,
          "linalg_norm": numtorch.linalg.norm}[name]
    want = {"add": torch.add, "relu": torch.nn.functional.relu, "linalg_norm": torch.linalg.norm}
    assert fn.__doc__ and fn.__name__ == want[name].__name__
    args = (1,) if name == "add" else ()
    assert type(fn(numtorch.ones(2).as_subclass(Sub), *args)) is Sub
