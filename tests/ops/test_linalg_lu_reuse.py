"""linalg.solve for matrices of 64 rows and more: one LU per matrix shared by forward and
backward (ops/_lautil.py lu_transposed), against torch: values, gradients with random
cotangents (the raw-array backward and the create_graph one), second order, broadcasting,
left=False, vectors, complex, singular input."""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises


def _well_conditioned(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    n = shape[-1]
    a = rng.standard_normal(shape) + n ** 0.5 * np.eye(n)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _rhs(shape, dtype="float64", seed=1):
    rng = np.random.default_rng(seed)
    b = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        b = b + 1j * rng.standard_normal(shape)
    return b.astype(dtype)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 64, 64), (3, 64, 5)),
    ((64, 64), (4, 64, 7)),  # one A for a batch of B: factored once
    ((2, 1, 70, 70), (3, 70, 2)),  # both broadcast
    ((70, 70), (70,)),  # a vector right-hand side
])
def test_solve_large_matches_torch(a_shape, b_shape):
    check_op(lambda L, a, b: L.linalg.solve(a, b),
             [_well_conditioned(a_shape), _rhs(b_shape)])


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_solve_large_dtypes(dtype):
    check_op(lambda L, a, b: L.linalg.solve(a, b),
             [_well_conditioned((2, 66, 66), dtype), _rhs((2, 66, 3), dtype)],
             dtype="float32" if dtype == "float32" else "float64",  # the tolerances
             second_order=False)


def test_solve_large_right_side_and_only_b_requires_grad():
    check_op(lambda L, a, b: L.linalg.solve(a, b, left=False),
             [_well_conditioned((2, 64, 64)), _rhs((2, 5, 64))])
    check_op(lambda L, a, b: L.linalg.solve(a.detach(), b),
             [_well_conditioned((64, 64)), _rhs((64, 3))])


def test_solve_large_singular_raises_torchs_error():
    a = _well_conditioned((2, 64, 64))
    a[1, :, 3] = 0
    check_raises(lambda L, a, b: L.linalg.solve(a, b), [a, _rhs((2, 64, 2))],
                 match="(Batch element 1): The solver failed because the input matrix is "
                       "singular.")
    check_op(lambda L, a, b: L.linalg.solve_ex(a, b)[1], [a, _rhs((2, 64, 2))], grad=False)
