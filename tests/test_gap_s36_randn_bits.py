"""Gap (s36): normal samples equal torch's bit for bit.

torch draws fewer than 16 normals one at a time in float64 (Box-Muller with a cached partner);
16 or more float32 normals come from its vectorised kernel, whose float32 log/sin/cos are
Cephes-style polynomials evaluated with fused multiply-adds. numtorch reproduces both, so the
same seed gives the same bits: randn, randn_like, normal_, torch.normal, the nn.init normal
initialisers, with the global generator and with explicit ones.
"""

import numpy as np
import pytest
import torch

import numtorch

SIZES = list(range(1, 101)) + [1000, 4099, 10 ** 5]


def _bits_equal(a, b):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    mismatch = np.count_nonzero(a.view(np.uint8) != b.view(np.uint8))
    assert mismatch == 0, f"{mismatch} bytes differ of {a.nbytes}"


def _both(fn, seed):
    numtorch.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(numtorch), fn(torch)


@pytest.mark.parametrize("n", SIZES)
def test_randn_float32_sizes(n):
    for seed in (0, 7):
        a, b = _both(lambda T: T.randn(n), seed)
        _bits_equal(a.numpy(), b)


@pytest.mark.parametrize("seed", [1, 2, 3, 123456789, 2 ** 40 + 5])
def test_randn_float32_seeds(seed):
    a, b = _both(lambda T: T.randn(3, 4096 + 7), seed)
    _bits_equal(a.numpy(), b)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [5, 16, 37, 1000])
def test_randn_other_dtypes(dtype, n):
    a, b = _both(lambda T: T.randn(n, dtype=getattr(T, dtype)).float(), 4)
    _bits_equal(a.numpy(), b)


def test_consecutive_calls_share_the_stream():
    # small draws use (and leave) the cached partner; blocks draw uniforms after it
    def draws(T):
        return T.cat([T.randn(3), T.randn(20), T.randn(1), T.randn(17), T.randn(2, 9)
                      .flatten(), T.randn(5)])

    a, b = _both(draws, 11)
    _bits_equal(a.numpy(), b)


@pytest.mark.parametrize("n", [3, 16, 50, 1003])
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (2.5, 0.3), (-1.0, 3.0)])
def test_normal_mean_std(n, mean, std):
    a, b = _both(lambda T: T.empty(n).normal_(mean, std), 5)
    _bits_equal(a.numpy(), b)
    a, b = _both(lambda T: T.normal(mean, std, size=(n,)), 6)
    _bits_equal(a.numpy(), b)


def test_randn_like_and_generators():
    a, b = _both(lambda T: T.randn_like(T.zeros(7, 9)), 8)
    _bits_equal(a.numpy(), b)

    def with_gen(T):
        g = T.Generator().manual_seed(99)
        return T.cat([T.randn(40, generator=g), T.randn(4, generator=g),
                      T.empty(33).normal_(1.0, 2.0, generator=g)])

    a, b = _both(with_gen, 0)
    _bits_equal(a.numpy(), b)


@pytest.mark.parametrize("init", ["normal_", "trunc_normal_", "xavier_normal_",
                                  "kaiming_normal_"])
@pytest.mark.parametrize("shape", [(3, 4), (64, 33), (128, 256)])
def test_nn_init_normals(init, shape):
    a, b = _both(lambda T: getattr(T.nn.init, init)(T.empty(*shape)), 12)
    _bits_equal(a.numpy(), b)


def test_linear_and_embedding_init():
    # modules whose reset draws normals (Embedding) or uniforms (Linear) stay torch's
    a, b = _both(lambda T: T.nn.Embedding(50, 24).weight, 13)
    _bits_equal(a.detach().numpy(), b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("view", ["t", "columns", "step"])
def test_normal_of_non_contiguous(dtype, view):
    # torch samples a tensor that is not contiguous one at a time (float64 Box-Muller with
    # log1p) in memory order, whatever its size
    make = {"t": lambda x: x.t(), "columns": lambda x: x[:, :20], "step": lambda x: x[::2]}[view]

    def fill(T):
        return make(T.empty(40, 33, dtype=getattr(T, dtype))).normal_(0.5, 2.0).float()

    for seed in (3, 4):
        a, b = _both(fill, seed)
        _bits_equal(a.contiguous().numpy(), b.contiguous())


def test_float64_scalar_path_many_seeds():
    # the one-at-a-time path's radius is sqrt(-2 log1p(-u)): log(1 - u) differs in low bits
    for seed in range(60):
        a, b = _both(lambda T: T.randn(15, dtype=T.float64), seed)
        _bits_equal(a.numpy(), b)
