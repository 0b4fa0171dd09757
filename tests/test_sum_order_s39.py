"""float32/float64 sum and mean (and the losses reduced through them) equal torch's CPU
results bit for bit: numtorch adds in the order torch's sum kernel does (see
numtorch/backend/_sum_order.py) for contiguous inputs reduced over adjacent dims."""

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(2039)


@pytest.fixture
def same_threads():
    """Both libraries on the same intra-op thread count (a whole-tensor sum of more than
    32768 values is split per thread in torch)."""
    before = (torch.get_num_threads(), numtorch.get_num_threads())
    torch.set_num_threads(2)
    numtorch.set_num_threads(2)
    yield
    torch.set_num_threads(before[0])
    numtorch.set_num_threads(before[1])


def _data(shape, dtype):
    scale = _RNG.choice([1.0, 1e3, 1e-3], size=shape) if shape else 1.0
    return (_RNG.standard_normal(shape) * scale).astype(dtype)


def _same(a, b):
    assert tuple(a.shape) == tuple(b.shape), (a, b)
    a, b = np.ascontiguousarray(a.detach().numpy()), np.ascontiguousarray(b.detach().numpy())
    assert a.dtype == b.dtype
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)), (a, b)


_WHOLE = [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 255, 511, 512,
          513, 1000, 2047, 4096, 5000, 8191, 8192, 16385, 32768, 32769, 40000, 65536]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", _WHOLE)
def test_whole_tensor_sum_and_mean(n, dtype, same_threads):
    a = _data((n,), dtype)
    for op in ("sum", "mean"):
        _same(getattr(numtorch.from_numpy(a), op)(), getattr(torch.from_numpy(a), op)())


_DIMS = [((128, 10), 1), ((128, 10), 0), ((64, 1000), -1), ((128, 512), 0), ((3, 7), 1),
         ((1000, 3), 0), ((1000, 3), 1), ((2, 3, 4, 6), None), ((16, 64, 33), 2),
         ((5, 300, 40), 1), ((4, 9, 130), 1), ((2, 3, 4, 5), (1, 2)), ((2, 3, 4, 5), (2, 3)),
         ((2, 1, 4, 5), (0, 1, 2)), ((7, 5), (0, 1)), ((1, 40000), 1), ((6, 1, 5), (0, 1)),
         ((20, 8), 0), ((257, 31), 0), ((33, 16), 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _DIMS, ids=[f"{s}-{d}" for s, d in _DIMS])
def test_sum_and_mean_over_dims(shape, dim, keepdim, dtype, same_threads):
    a = _data(shape, dtype)
    for op in ("sum", "mean"):
        args = () if dim is None else (dim,)
        kw = {} if dim is None else {"keepdim": keepdim}
        _same(getattr(numtorch.from_numpy(a), op)(*args, **kw),
              getattr(torch.from_numpy(a), op)(*args, **kw))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape", [(7,), (64, 10), (300, 3), (33, 4, 5)])
def test_elementwise_losses_reduce_as_torch(name, reduction, shape):
    x, y = _data(shape, np.float32), _data(shape, np.float32)
    got = getattr(numtorch.nn.functional, name)(numtorch.from_numpy(x), numtorch.from_numpy(y),
                                                 reduction=reduction)
    want = getattr(torch.nn.functional, name)(torch.from_numpy(x), torch.from_numpy(y),
                                              reduction=reduction)
    _same(got, want)


def test_a_sum_is_never_negative_zero():
    for shape, dim in [((3,), None), ((40,), None), ((2, 12), 1), ((9, 40), 0)]:
        a = np.full(shape, -0.0, np.float32)
        args = () if dim is None else (dim,)
        _same(numtorch.from_numpy(a).sum(*args), torch.from_numpy(a).sum(*args))


def test_special_values_and_gradients():
    a = _data((50, 9), np.float32)
    a[3, 4], a[7, 1], a[8, 2] = np.inf, np.nan, -np.inf
    for dim in (0, 1):
        _same(numtorch.from_numpy(a).sum(dim), torch.from_numpy(a).sum(dim))
    x = numtorch.tensor(_data((6, 70), np.float32), requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    g = _data((6,), np.float32)
    x.mean(1).backward(numtorch.from_numpy(g))
    xt.mean(1).backward(torch.from_numpy(g))
    _same(x.grad, xt.grad)


@pytest.mark.parametrize("shape", [(10, 128), (128, 10), (300, 20), (33, 64), (5, 3)])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_transposed_matrices(shape, dim):
    a = _data(shape, np.float32)
    args = () if dim is None else (dim,)
    for keepdim in (False, True):
        kw = {} if dim is None else {"keepdim": keepdim}
        for op in ("sum", "mean"):
            _same(getattr(numtorch.from_numpy(a).t(), op)(*args, **kw),
                  getattr(torch.from_numpy(a).t(), op)(*args, **kw))


def test_layouts_without_a_known_order_stay_accurate():
    a = _data((300, 200), np.float32)
    for view in (lambda t: t.permute(1, 0)[::2], lambda t: t[:, ::2], lambda t: t[::3]):
        for dim in (0, 1, None):
            args = () if dim is None else (dim,)
            got = view(numtorch.from_numpy(a)).sum(*args).numpy()
            want = view(torch.from_numpy(a)).sum(*args).numpy()
            bound = np.abs(view(torch.from_numpy(a))).sum(*args).numpy() * 1e-6
            assert np.all(np.abs(got - want) <= bound)
