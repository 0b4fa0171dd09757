"""F.linear's GEMM orientation (ops/linear_fused.py): short batches run as (W @ x^T)^T, the
rest as x @ W^T. Each case is checked against torch (values, gradients with random
cotangents, second order) on both sides of every threshold, and the output stays
C-contiguous as torch's."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops.linear_fused import _short_batch
from tests.oracle import check_op

# (rows, in_features, out_features, swapped?)
CASES = [
    (1, 256, 1024, False),   # one row: a matrix-vector product either way
    (2, 256, 1024, True),    # 2^18 weight values: swapped from 2 rows
    (3, 128, 256, False),    # 2^15 values but under 4 rows
    (4, 128, 256, True),
    (64, 128, 256, True),
    (65, 128, 256, False),   # past 64 rows a small weight keeps x @ W^T
    (100, 512, 1024, True),  # 2^19 weight values: swapped up to 128 rows
    (129, 512, 1024, False),
    (16, 16, 8, False),      # small weights never swap
]


@pytest.mark.parametrize("rows,k,n,swapped", CASES)
def test_orientation_choice(rows, k, n, swapped):
    assert _short_batch(rows, np.empty((n, k), np.float32)) is swapped


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,k,n,swapped", CASES)
def test_linear_both_orientations_against_torch(rows, k, n, swapped, dtype):
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(rows, k), (n, k), (n,)],
             dtype=dtype, second_order=rows < 8, low=-0.5, high=0.5)  # float32 sums of 512


@pytest.mark.parametrize("shape", [(2, 3, 128), (3, 2, 128)])
def test_batched_and_permuted_short_batches(shape):
    # 6 rows folded from a 3-D input, given contiguous and as a transposed view
    check_op(lambda t, x, w: t.nn.functional.linear(x.transpose(0, 1), w), [shape, (256, 128)],
             dtype="float32")
    check_op(lambda t, x, w: t.nn.functional.linear(x, w), [shape, (256, 128)], dtype="float32")


def test_output_contiguous_like_torch():
    x = np.random.default_rng(0).standard_normal((8, 128)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((256, 128)).astype(np.float32)
    ours = numtorch.nn.functional.linear(numtorch.from_numpy(x), numtorch.from_numpy(w))
    theirs = torch.nn.functional.linear(torch.from_numpy(x), torch.from_numpy(w))
    assert ours.is_contiguous() and tuple(ours.stride()) == tuple(theirs.stride())
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
