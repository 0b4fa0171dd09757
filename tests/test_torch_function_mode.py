"""torch.overrides.TorchFunctionMode against torch's: what a mode sees, nesting, the stack
helpers, DisableTorchFunction, modes before subclasses, and that plain tensors go back to
undispatched methods when the last mode exits."""

import contextlib
import io
import threading

import torch

import numtorch


def _program(torch):
    TorchFunctionMode = torch.overrides.TorchFunctionMode  # the library's own
    BaseTorchFunctionMode = torch.overrides.BaseTorchFunctionMode
    log = []

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(func.__name__)
            return func(*args, **(kwargs or {}))

    x = torch.ones(2, requires_grad=True)
    with M():
        y = x + 1
        z = torch.sin(y).sum()
        y.exp()
        x[0]
        torch.nn.functional.relu(x)
        z.backward()
    print(log, x.grad)
    print(torch.overrides._get_current_function_mode())

    class Double(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 2 if func in (torch.add, torch.Tensor.add) else out

    with Double():
        print(torch.add(torch.ones(2), 1), torch.ones(2) + 1)
    print(torch.ones(2) + 1)

    class Outer(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append("outer:" + func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    log.clear()
    with Outer(), M():
        torch.cos(torch.zeros(1))
    print(log)
    m = M()
    with m:
        print(torch.overrides._get_current_function_mode() is m,
              torch._C._len_torch_function_stack())
        with torch.overrides._pop_mode_temporarily() as old:
            print(old is m, torch.overrides._get_current_function_mode())
        with torch._C.DisableTorchFunction():
            log.clear()
            torch.tan(torch.zeros(1))
            print(log)

    class Sub(torch.Tensor):
        pass

    log.clear()
    with M():
        b = torch.ones(2).as_subclass(Sub) * 2
    print(log, type(b).__name__)

    class Raise(TorchFunctionMode):
        pass

    try:
        with Raise():
            torch.ones(1) + 1
    except NotImplementedError as e:
        print("NotImplementedError", e)
    import importlib

    wrapped_ops = importlib.import_module(torch.__name__ + "._dynamo._trace_wrapped_higher_order_op")
    TransformGetItemToIndex = wrapped_ops.TransformGetItemToIndex
    xs = torch.arange(10.0)
    with TransformGetItemToIndex():
        print(torch.vmap(lambda i: xs[i])(torch.tensor([1, 3, 5])))


def _run(lib):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _program(lib)
    return buf.getvalue().splitlines()


def test_program_prints_what_torch_prints():
    assert _run(numtorch) == _run(torch)


def test_plain_tensors_are_undispatched_after_the_last_mode():
    add, sin = numtorch.Tensor.add, numtorch.sin

    class M(numtorch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with M():
        assert numtorch.Tensor.add is not add and numtorch.sin is not sin
        with M():
            pass
        assert numtorch.Tensor.add is not add  # the outer mode is still active
    assert numtorch.Tensor.add is add and numtorch.sin is sin
    assert "add" not in vars(numtorch.Tensor) or vars(numtorch.Tensor)["add"] is add


def test_modes_are_per_thread():
    seen = []

    class M(numtorch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(threading.current_thread().name)
            return func(*args, **(kwargs or {}))

    done = threading.Event()
    go = threading.Event()

    def other():
        go.wait()
        numtorch.ones(2).sum()
        done.set()

    t = threading.Thread(target=other, name="other")
    t.start()
    with M():
        go.set()
        done.wait(10)
        numtorch.ones(2).sum()
    t.join()
    assert seen and set(seen) == {threading.current_thread().name}


def test_as_subclass_records_an_alias_as_torch():
    names = []
    for lib in (torch, numtorch):
        class S(lib.Tensor):
            pass

        x = lib.ones(3, requires_grad=True)
        y = x.as_subclass(S)
        (y * 2).sum().backward()
        names.append((type(y).__name__, y.grad_fn.name(), y._base is x, x.grad.tolist()))
    assert names[0] == names[1]
