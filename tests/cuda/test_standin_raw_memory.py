"""The stand-in's ``RawKernel`` gives a kernel the memory its pointers address, as a GPU does:
CuPy passes a view's data pointer and nothing about its strides, so a kernel written for
C-contiguous rows reads a transposed or sliced view's bytes in memory order, and an expanded
(stride-0) view runs off its block. Before, the reference got the view's logical values and a
caller passing such a view got the right answer on the stand-in and garbage on a GPU."""

import numpy as np
import pytest

from numtorch.backend import _cupy_attention as A
from numtorch.backend import _cupy_rows as R


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_a_transposed_view_is_read_in_memory_order(cuda):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    x = np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32)
    dx = cp.asarray(x).T  # (5, 6), F-ordered: the kernel sees x's bytes as (5, 6) rows
    y = cp.empty((5, 6), dtype=cp.float32)
    assert R.launch_rows(A._SOFTMAX_ROWS_K, y.dtype, 5, (dx, 6, y))
    np.testing.assert_allclose(y.get(), _softmax(x.reshape(5, 6)), rtol=1e-6)
    assert not np.allclose(y.get(), _softmax(x.T))


def test_a_row_slice_starts_at_its_offset(cuda):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    x = np.random.default_rng(1).standard_normal((4, 10)).astype(np.float32)
    dx = cp.asarray(x)[:, 2:5]  # 3 values a row at stride 10: the kernel reads 12 in a run
    y = cp.empty((4, 3), dtype=cp.float32)
    assert R.launch_rows(A._SOFTMAX_ROWS_K, y.dtype, 4, (dx, 3, y))
    np.testing.assert_allclose(y.get(), _softmax(x.reshape(-1)[2:14].reshape(4, 3)),
                               rtol=1e-6)


def test_an_expanded_view_runs_off_its_block(cuda):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    dx = cp.broadcast_to(cp.ones((1, 8), dtype=cp.float32), (64, 8))
    y = cp.empty((64, 8), dtype=cp.float32)
    with pytest.raises(RuntimeError, match="cudaErrorIllegalAddress"):
        R.launch_rows(A._SOFTMAX_ROWS_K, y.dtype, 64, (dx, 8, y))


def test_a_strided_output_is_written_in_memory_order(cuda):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    out = cp.zeros((4, 3), dtype=cp.float32)
    assert R.launch_rows(A._SOFTMAX_ROWS_K, out.dtype, 3, (cp.asarray(x), 4, out.T))
    np.testing.assert_allclose(out.get().reshape(3, 4), _softmax(x), rtol=1e-6)
