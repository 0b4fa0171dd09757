"""Shape methods called without their required sizes/dims raise torch's TypeError, while
numtorch's own 0-d paths (which once unpacked empty shapes) keep working. Oracle: torch."""
import pytest
import torch

import numtorch

METHODS = ["view", "reshape", "expand", "permute", "repeat", "tile", "flip"]
FUNCS = ["reshape", "permute", "tile", "flip"]


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what we compare
        return type(e), str(e)
    return None


@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("name", METHODS)
def test_method_without_args(name, shape):
    want = _err(lambda: getattr(torch.ones(shape), name)())
    got = _err(lambda: getattr(numtorch.ones(shape), name)())
    assert want is not None and want[0] is TypeError
    assert got == want


@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("name", FUNCS)
def test_function_without_args(name, shape):
    want = _err(lambda: getattr(torch, name)(torch.ones(shape)))
    got = _err(lambda: getattr(numtorch, name)(numtorch.ones(shape)))
    assert want is not None and got == want


@pytest.mark.parametrize("call", [
    lambda L, x: x.reshape(()), lambda L, x: x.view(()), lambda L, x: x.permute(()),
    lambda L, x: x.expand(()), lambda L, x: x.repeat(()), lambda L, x: x.flip(()),
    lambda L, x: x.tile(()), lambda L, x: L.tile(x, dims=()), lambda L, x: x.reshape(shape=()),
    lambda L, x: x.view(size=()), lambda L, x: x.flip(dims=()), lambda L, x: x.T,
])
def test_explicit_empty_shapes_on_0d(call):
    a, b = call(torch, torch.tensor(2.5)), call(numtorch, numtorch.tensor(2.5))
    assert tuple(b.shape) == tuple(a.shape) and float(b) == float(a)


def _both(fn):
    """fn(L, x) for a 0-d double leaf; returns (value, grad) per library."""
    out = []
    for L in (torch, numtorch):
        x = L.tensor(1.75, dtype=L.float64, requires_grad=True)
        y = fn(L, x)
        y.sum().backward()
        out.append((y.detach().numpy().tolist(), x.grad.numpy().tolist(), tuple(y.shape)))
    return out


@pytest.mark.parametrize("fn", [
    lambda L, x: L.inner(x.reshape(1).expand(3) * 1.0, L.ones(3, dtype=L.float64)),
    lambda L, x: L.tensordot(x, x, dims=0),
    lambda L, x: L.tensordot(x.reshape(1) * 1, x.reshape(1) * 1, dims=1),
    lambda L, x: x.prod(),
    lambda L, x: x.prod(0),
    lambda L, x: x.repeat(()) * 2,
    lambda L, x: x.permute(()) * 3,
    lambda L, x: x.expand(()) * 4,
    lambda L, x: L.meshgrid(x.reshape(1), indexing="ij")[0],
    lambda L, x: L.permute_copy(x, ()),
    lambda L, x: L.expand_copy(x, ()),
])
def test_internal_0d_paths(fn):
    t, n = _both(fn)
    assert n == t


def test_jacobian_scalar_to_scalar():
    def f(L):
        return L.autograd.functional.jacobian(lambda v: v * v, L.tensor(3.0, dtype=L.float64))

    a, b = f(torch), f(numtorch)
    assert tuple(b.shape) == tuple(a.shape) and float(b) == float(a)


def test_tensorinv_0d_blocks():
    a = torch.linalg.tensorinv(torch.tensor([[2.0]]).reshape(1, 1), ind=1)
    b = numtorch.linalg.tensorinv(numtorch.tensor([[2.0]]).reshape(1, 1), ind=1)
    assert tuple(b.shape) == tuple(a.shape) and b.numpy().tolist() == a.numpy().tolist()
