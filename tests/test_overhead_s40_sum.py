"""Overhead (s40): the planned short sums and the lazy thread count keep torch's bits.

Whole-tensor float32/float64 sums under 16 rows of 4 vectors (512 float32, 256 float64 values)
run a plan made once per size; the thread count is asked only for sums long enough to split.
Compared with torch 2.13 at test time: every size of the short path in both dtypes, several
shapes and keepdim, mean and the 'mean' losses that sum the same way, and sums on 1-4 threads.
"""

import numpy as np
import pytest
import torch

import numtorch


def _draw(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10.0 ** rng.uniform(-4, 4, n)).astype(dtype)


def _same(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_sums_every_size(dtype):
    for n in range(1, 530):
        for seed in (n, n + 1000):
            a = _draw(n, dtype, seed)
            _same(numtorch.from_numpy(a).sum(), torch.from_numpy(a).sum())


@pytest.mark.parametrize("shape", [(8, 8), (2, 32), (4, 4, 4), (1, 64, 1), (7, 9), (3, 5, 7),
                                   (16, 16), (31,), ()])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_short_sums_shapes_keepdim_mean(shape, dtype):
    n = int(np.prod(shape))
    for seed in range(4):
        a = _draw(n, dtype, seed).reshape(shape)
        x, t = numtorch.from_numpy(a), torch.from_numpy(a)
        _same(x.sum(), t.sum())
        _same(x.sum(dim=tuple(range(len(shape))), keepdim=True),
              t.sum(dim=tuple(range(len(shape))), keepdim=True))
        _same(x.mean(), t.mean())


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_mean_losses(loss):
    for n in (0, 1, 7, 32, 64, 100, 300):
        for seed in range(3):
            a, b = _draw(n, np.float32, seed), _draw(n, np.float32, seed + 50)
            got = getattr(numtorch.nn.functional, loss)(numtorch.from_numpy(a),
                                                        numtorch.from_numpy(b))
            want = getattr(torch.nn.functional, loss)(torch.from_numpy(a), torch.from_numpy(b))
            _same(got, want)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_split_sums_on_threads(threads):
    before_n, before_t = numtorch.get_num_threads(), torch.get_num_threads()
    try:
        numtorch.set_num_threads(threads)
        torch.set_num_threads(threads)
        for n in (32768, 32769, 40000, 65536):
            a = _draw(n, np.float32, n)
            _same(numtorch.from_numpy(a).sum(), torch.from_numpy(a).sum())
            b = _draw(n, np.float32, n + 1)
            _same(numtorch.nn.functional.mse_loss(numtorch.from_numpy(a), numtorch.from_numpy(b)),
                  torch.nn.functional.mse_loss(torch.from_numpy(a), torch.from_numpy(b)))
    finally:
        numtorch.set_num_threads(before_n)
        torch.set_num_threads(before_t)
