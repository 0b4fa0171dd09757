"""Convolution and pooling kernels with their copies and scatters split across intra-op
threads (``numtorch.ops._intraop``) against torch: forced to split on small shapes, each path
must give torch's values and gradients, and the split must really happen."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import _intraop
from numtorch.ops import conv as conv_ops
from tests import oracle
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op


@pytest.fixture
def split(monkeypatch):
    """Three intra-op threads and parts of a few elements; yields the part counts used."""
    counts = []
    real = _intraop.run_split

    def watched(kernel, n, unit=1):
        counts.append(_intraop.parts(n, unit))
        return real(kernel, n, unit)

    monkeypatch.setattr(_intraop, "_MIN_PART", 4)
    monkeypatch.setattr(_intraop, "run_split", watched)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)  # as on an idle machine
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(3)
    try:
        yield counts
    finally:
        numtorch.set_num_threads(old)


CASES = [
    (_conv(2, padding=1), [(2, 8, 6, 5), (4, 8, 3, 3), (4,)]),  # im2col, input-as-conv
    (_conv(2, stride=2, padding=1), [(3, 8, 7, 6), (4, 8, 3, 3)]),  # col2im
    (_conv(2, padding=1), [(2, 3, 4, 34), (4, 3, 3, 3)]),  # flat planes
    (_conv(2, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
     [(1, 4, 7, 6), (6, 2, 3, 2)]),  # batch 1, groups, dilation
    (_conv(3, stride=2, padding=1), [(2, 3, 5, 4, 5), (2, 3, 3, 2, 3)]),
    (_conv_t(2, stride=2, padding=1, output_padding=1), [(2, 4, 5, 4), (4, 3, 3, 3), (3,)]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_split_across_threads_matches_torch(split, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    if oracle.DEVICE[0] == "cpu":  # device arrays are never split on the host
        assert any(k > 1 for k in split)


def test_no_split_while_blas_runs_one_thread(monkeypatch):
    calls = []
    monkeypatch.setattr(_intraop, "_MIN_PART", 4)
    monkeypatch.setattr(_intraop, "run_split", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: True)
    x = np.arange(24.0).reshape(2, 3, 4)[:, ::-1]
    np.testing.assert_array_equal(_intraop.copy(x), x)
    done = []
    _intraop.split(lambda lo, hi: done.append((lo, hi)), 10)
    assert done == [(0, 10)] and not calls


def test_conv_split_is_bitwise_the_single_thread_result(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6, 9, 8)).astype(np.float32)
    w = rng.standard_normal((5, 6, 3, 3)).astype(np.float32)
    g = rng.standard_normal((4, 5, 5, 4)).astype(np.float32)

    def run():
        xt = numtorch.from_numpy(x.copy()).requires_grad_()
        wt = numtorch.from_numpy(w.copy()).requires_grad_()
        y = numtorch.nn.functional.conv2d(xt, wt, stride=2, padding=1)
        gx, gw = numtorch.autograd.grad(y, (xt, wt), numtorch.from_numpy(g))
        return y.detach().numpy(), gx.numpy(), gw.numpy()

    monkeypatch.setattr(conv_ops, "_THREADED", True)  # the same blocks both times
    one = run()
    monkeypatch.setattr(_intraop, "_MIN_PART", 4)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(3)
    try:
        many = run()
    finally:
        numtorch.set_num_threads(old)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


def test_blocks_follow_the_threads_blas_runs_now():
    # two threads asked for, but BLAS held at one (as the load cap of numtorch._threads does
    # while another process is busy): the blocks are those of a one-thread BLAS
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(2)
    try:
        with numtorch._threads.single_blas_thread():
            assert numtorch.get_num_threads() == 2
            assert not conv_ops._threaded()
    finally:
        numtorch.set_num_threads(old)
