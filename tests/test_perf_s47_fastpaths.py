"""Session 47 (perf): correctness of the shortcuts taken on small or row-major inputs.

- GELU (exact and tanh) on a row-major float32 input skips the memory-order sort and, when the
  array is too small to split, the intra-op thread query: values and gradients as torch's, and
  the same bits as the general (strided) path on the same logical tensor.
"""

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(47)

_GELU_SHAPES = {
    "scalar": (),
    "empty": (0, 5),
    "vector": (7,),
    "small_3d": (1, 4, 32),
    "rows": (12, 64),
    "split_size": (520, 512),  # more than two intra-op parts' worth of values
}


def _gelu(lib, a, g, approximate, make=None):
    x = lib.tensor(a) if make is None else make(lib.tensor(a))
    x = x.detach().requires_grad_(True)
    y = lib.nn.functional.gelu(x, approximate=approximate)
    (gx,) = lib.autograd.grad(y, x, lib.tensor(g))
    with lib.no_grad():
        y0 = lib.nn.functional.gelu(x, approximate=approximate)
    return [t.detach().contiguous().numpy() for t in (y, gx, y0)]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("case", sorted(_GELU_SHAPES))
def test_gelu_row_major_matches_torch(case, approximate):
    shape = _GELU_SHAPES[case]
    a = (RNG.standard_normal(shape) * 3).astype(np.float32)
    g = RNG.standard_normal(shape).astype(np.float32)
    ours = _gelu(numtorch, a, g, approximate)
    theirs = _gelu(torch, a, g, approximate)
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=2e-6, atol=1e-5)
    np.testing.assert_array_equal(ours[0], ours[2])  # with and without a graph: same bits


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_row_major_same_bits_as_strided_path(approximate):
    a = (RNG.standard_normal((6, 40)) * 3).astype(np.float32)
    g = RNG.standard_normal((6, 40)).astype(np.float32)
    fast = _gelu(numtorch, a, g, approximate)
    # the same logical tensor held transposed in memory takes the memory-order path
    strided = _gelu(numtorch, a, g, approximate, make=lambda t: t.t().contiguous().t())
    # (the exact form's tails, |x| >= 5.54, follow the kernel torch runs for each layout:
    # its oneDNN kernel for row-major input, its own for strided input; they differ there)
    keep = np.abs(a) < 5.54 if approximate == "none" else np.ones(a.shape, bool)
    for f, s in zip(fast, strided):
        np.testing.assert_array_equal(f[keep], s[keep])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_row_major_with_odd_unit_strides(approximate):
    # size-1 dims with arbitrary strides still count as row-major: values as torch's, the
    # result's shape and the gradient's too
    a = (RNG.standard_normal((3, 1, 8)) * 3).astype(np.float32)
    g = RNG.standard_normal((3, 1, 8)).astype(np.float32)

    def make(t):
        return t.as_strided((3, 1, 8), (8, 1000, 1))

    ours = _gelu(numtorch, a, g, approximate, make=make)
    theirs = _gelu(torch, a, g, approximate, make=make)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape == (3, 1, 8)
        np.testing.assert_allclose(o, t, rtol=2e-6, atol=1e-5)


def test_gelu_module_output_is_fresh_and_row_major():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    x = numtorch.tensor(a)
    y = numtorch.nn.GELU()(x)
    assert y.is_contiguous() and y.data_ptr() != x.data_ptr()
    y.add_(1)  # writing the result leaves the input alone
    np.testing.assert_array_equal(x.numpy(), a)
