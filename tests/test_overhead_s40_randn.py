"""Overhead (s40): the cheap paths for small normal draws keep torch's bits.

``randn(32)`` in a training loop goes through a stacked small-array float32 kernel (up to 64
blocks of 16), fewer than 16 normals through a batched scalar path, and uniforms under 4096
through raw Mersenne Twister words. Each is compared with torch 2.13 at test time: sizes 0..70
and the block-count edges, many seeds, float32 and float64, the global generator, explicit
generators, ``out=``, ``normal_``, ``torch.normal``, ``randn_like`` and the stream state
between calls (the cached Box-Muller partner included).
"""

import numpy as np
import pytest
import torch

import numtorch

SIZES = list(range(71)) + [1008, 1023, 1024, 1025, 1040, 1041]
SEEDS = [0, 1, 5, 42, 1234, 2 ** 31 + 3, 2 ** 40 + 17]


def _same_bits(a, b):
    a = a.detach().numpy()
    b = b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    differ = np.count_nonzero(a.view(np.uint8) != b.view(np.uint8))
    assert differ == 0, f"{differ} bytes differ of {a.nbytes}"


def _both(fn, seed):
    numtorch.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(numtorch), fn(torch)


@pytest.mark.parametrize("n", SIZES)
def test_randn_float32_bits(n):
    for seed in SEEDS:
        a, b = _both(lambda T: T.randn(n), seed)
        _same_bits(a, b)


@pytest.mark.parametrize("n", list(range(16)))
def test_randn_float64_scalar_path_bits(n):
    for seed in SEEDS:
        a, b = _both(lambda T: T.randn(n, dtype=T.float64), seed)
        _same_bits(a, b)


@pytest.mark.parametrize("n", [16, 17, 31, 32, 33, 48, 70])
def test_randn_float64_blocks_close(n):
    # float64 blocks use the C library's log/sin/cos, which may differ from torch's in an ulp
    for seed in SEEDS:
        a, b = _both(lambda T: T.randn(n, dtype=T.float64), seed)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_randn_half_types_bits(dtype):
    for n in (0, 5, 16, 20, 33, 64, 70):
        a, b = _both(lambda T, n=n: T.randn(n, dtype=getattr(T, dtype)), 3)
        _same_bits(a.float(), b.float())


def test_consecutive_draws_keep_the_stream():
    # the cached partner, the tail's fresh block and raw words must leave torch's state
    def draws(T):
        parts = []
        for n in (3, 32, 1, 17, 2, 15, 64, 5, 70, 31, 1):
            parts.append(T.randn(n))
        parts.append(T.rand(9))
        parts.append(T.rand(3, dtype=T.float64).float())
        parts.append(T.randn(4, dtype=T.float64).float())
        parts.append(T.randint(0, 1000, (7,)).float())
        return T.cat(parts)

    for seed in SEEDS[:4]:
        a, b = _both(draws, seed)
        _same_bits(a, b)


@pytest.mark.parametrize("n", [1, 7, 16, 20, 32, 47])
def test_explicit_generator_and_global_interleaved(n):
    for seed in SEEDS[:4]:
        numtorch.manual_seed(seed + 1)
        torch.manual_seed(seed + 1)
        gn = numtorch.Generator().manual_seed(seed)
        gt = torch.Generator().manual_seed(seed)
        for _ in range(3):
            _same_bits(numtorch.randn(n, generator=gn), torch.randn(n, generator=gt))
            _same_bits(numtorch.randn(n), torch.randn(n))
        _same_bits(numtorch.rand(5, generator=gn), torch.rand(5, generator=gt))


@pytest.mark.parametrize("n", [0, 3, 16, 32, 45])
def test_out_argument(n):
    for seed in SEEDS[:3]:
        a, b = _both(lambda T: T.randn(n, out=T.empty(n)), seed)
        _same_bits(a, b)


@pytest.mark.parametrize("n", [1, 8, 15, 16, 19, 32, 64, 70])
def test_normal_and_normal_(n):
    for seed in SEEDS[:4]:
        a, b = _both(lambda T: T.empty(n).normal_(0.5, 2.5), seed)
        _same_bits(a, b)
        a, b = _both(lambda T: T.normal(-1.0, 0.25, size=(n,)), seed)
        _same_bits(a, b)
        a, b = _both(lambda T: T.empty(n, dtype=T.float64).normal_(3.0, 0.5), seed)
        if n < 16:
            _same_bits(a, b)
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)


@pytest.mark.parametrize("shape", [(4, 8), (2, 16), (3, 11), (32,)])
def test_randn_like(shape):
    for seed in SEEDS[:4]:
        a, b = _both(lambda T: T.randn_like(T.zeros(shape)), seed)
        _same_bits(a, b)


def test_state_round_trip_with_cached_partner():
    for seed in SEEDS[:3]:
        numtorch.manual_seed(seed)
        torch.manual_seed(seed)
        numtorch.randn(3)  # leaves a cached partner
        torch.randn(3)
        sn, st = numtorch.get_rng_state(), torch.get_rng_state()
        assert np.array_equal(sn.numpy(), st.numpy())
        first = numtorch.randn(33)
        _same_bits(first, torch.randn(33))
        numtorch.set_rng_state(sn)
        _same_bits(numtorch.randn(33), first)
        _same_bits(numtorch.randn(5), torch.randn(5))
