"""Convolutions with the batch split across cores (``numtorch.ops.conv_samples``) against
torch: forced to split on small shapes, every kernel path must give torch's values and
gradients (each part computes its samples' input gradient and its share of the weight and
bias gradients), and the split must really happen."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import _intraop, conv_samples, conv_winograd
from numtorch.ops import conv as conv_ops
from tests import oracle
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op


@pytest.fixture
def split(monkeypatch):
    """Batch splits of any size into up to three parts; yields the part counts used."""
    counts = []
    real = conv_samples.run

    def watched(kernel, n, k):
        counts.append(k)
        return real(kernel, n, k)

    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 3)  # as on an idle machine
    monkeypatch.setattr(conv_samples, "run", watched)
    return counts


CASES = [
    (_conv(2, padding=1), [(3, 8, 6, 5), (4, 8, 3, 3), (4,)]),  # im2col, input-as-conv
    (_conv(2, stride=2, padding=1), [(4, 8, 7, 6), (4, 8, 3, 3)]),  # col2im
    (_conv(2, padding=1), [(2, 3, 4, 34), (4, 3, 3, 3), (4,)]),  # flat planes
    (_conv(2, stride=2), [(3, 6, 16, 16), (5, 6, 1, 1), (5,)]),  # 1x1 over a large map
    (_conv(2, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
     [(5, 4, 7, 6), (6, 2, 3, 2)]),  # groups, dilation, uneven parts
    (_conv(2, padding=1, groups=6), [(3, 6, 5, 5), (6, 1, 3, 3), (6,)]),  # depthwise
    (_conv(1, padding=2), [(3, 4, 9), (5, 4, 3)]),
    (_conv(3, stride=2, padding=1), [(2, 3, 5, 4, 5), (2, 3, 3, 2, 3), (2,)]),
    (_conv_t(2, stride=2, padding=1, output_padding=1), [(3, 4, 5, 4), (4, 3, 3, 3), (3,)]),
    (_conv_t(2, padding=1), [(2, 4, 5, 4), (4, 3, 3, 3)]),  # stride-1 transpose
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_batch_split_matches_torch(split, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    if oracle.DEVICE[0] == "cpu":  # device arrays are never split on the host
        assert split and all(k > 1 for k in split)


def test_winograd_batch_split_matches_torch(split, monkeypatch):
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 1)
    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    check_op(_conv(2, padding=1), [(3, 4, 6, 5), (5, 4, 3, 3), (5,)])
    assert {"forward-winograd", "weight-winograd"} <= set(taken)
    if oracle.DEVICE[0] == "cpu":
        assert split


def test_only_weight_gradient_and_batch_of_one(split):
    # the input needs no gradient (a network's first layer): only dw and db are split
    check_op(lambda t, x, w, b: t.nn.functional.conv2d(x.detach(), w, b, padding=1),
             [(4, 3, 6, 6), (5, 3, 3, 3), (5,)])
    n = len(split)
    check_op(_conv(2, padding=1), [(1, 3, 6, 6), (5, 3, 3, 3)])  # one sample: nothing to split
    assert len(split) == n


def test_parts_use_one_blas_thread_and_never_nest(monkeypatch):
    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 2)
    seen = []
    real = conv_ops._conv_forward

    def watched(*args, **kw):
        seen.append((conv_samples.in_part(), conv_ops._threaded(),
                     conv_samples.parts([], 8, 1 << 30), _intraop._cores_taken()))
        return real(*args, **kw)

    monkeypatch.setattr(conv_ops, "_conv_forward", watched)
    x = numtorch.randn(4, 3, 8, 8)
    w = numtorch.randn(4, 3, 3, 3)
    numtorch.nn.functional.conv2d(x, w, padding=1)
    if oracle.DEVICE[0] == "cpu":
        assert seen == [(True, False, 1, True)] * 2


def test_split_outputs_equal_the_unsplit_ones(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 6, 9, 8)).astype(np.float32)
    w = rng.standard_normal((7, 6, 3, 3)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    g = rng.standard_normal((5, 7, 9, 8)).astype(np.float32)

    def run():
        ts = [numtorch.from_numpy(a.copy()).requires_grad_() for a in (x, w, b)]
        y = numtorch.nn.functional.conv2d(*ts, padding=1)
        grads = numtorch.autograd.grad(y, ts, numtorch.from_numpy(g))
        return [y.detach().numpy()] + [t.numpy() for t in grads]

    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    one = run()
    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 2)
    many = run()
    for a, c in zip(one, many):  # GEMMs over fewer columns, partial sums in another order
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-4)


POOLS = [
    (lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1), [(5, 3, 9, 8)]),  # overlapping
    (lambda t, x: t.nn.functional.max_pool2d(x, 2), [(3, 4, 6, 6)]),  # disjoint windows
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, ceil_mode=True, return_indices=True)[1],
     [(3, 2, 5, 7)]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 3, 1, 1), [(4, 3, 10)]),
]


@pytest.mark.parametrize("case", range(len(POOLS)))
def test_max_pool_batch_split_matches_torch(split, case):
    fn, shapes = POOLS[case]
    check_op(fn, shapes)
    check_op(fn, shapes, dtype="float32", second_order=False)
    if oracle.DEVICE[0] == "cpu":
        assert split and all(k > 1 for k in split)


@pytest.fixture
def split_calls(monkeypatch):
    """Two threads, tiny parts allowed: the list of part counts each run_split call used."""
    calls = []
    real = _intraop.run_split

    def watched(kernel, n, unit=1):
        calls.append(_intraop.parts(n, unit))
        return real(kernel, n, unit)

    monkeypatch.setattr(_intraop, "_MIN_PART", 4)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "run_split", watched)
    monkeypatch.setattr(numtorch, "get_num_threads", lambda: 2)
    monkeypatch.setattr("numtorch._threads.get_num_threads", lambda: 2)
    return calls


def test_joined_parts_copied_on_their_own_cores(split_calls):
    calls = split_calls
    parts = [np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(1, 3, 4) - 5]
    np.testing.assert_array_equal(conv_samples.joined(parts), np.concatenate(parts))
    assert calls == [2]


def test_large_partial_sums_added_on_several_cores(split_calls):
    # the weight gradients' partial sums: split across threads, each element still added in
    # part order, so the values equal the serial sum's bit for bit
    calls = split_calls
    rng = np.random.default_rng(1)
    parts = [rng.standard_normal((5, 3, 3, 3)).astype(np.float32) for _ in range(3)]
    expect = (parts[0] + parts[1]) + parts[2]
    got = conv_samples.summed([p.copy() for p in parts])
    np.testing.assert_array_equal(got, expect)
    assert calls == [2]
    # a non-contiguous part: the serial adds, same values
    odd = [p.copy() for p in parts]
    odd[1] = np.asfortranarray(odd[1])
    np.testing.assert_array_equal(conv_samples.summed(odd), expect)
    assert calls == [2]


@pytest.mark.parametrize("case", [0, 1, 3, 5, 8, 9])
def test_split_parts_write_into_one_result(split, monkeypatch, case):
    # forward outputs and input gradients: each part writes its samples into one array, so
    # nothing is joined (1x1 and depthwise parts copy into it themselves)
    def no_join(results):
        raise AssertionError("joined a split result")

    monkeypatch.setattr(conv_samples, "joined", no_join)
    fn, shapes = CASES[case]
    check_op(fn, shapes, dtype="float32", second_order=False)
    if oracle.DEVICE[0] == "cpu":
        assert split and all(k > 1 for k in split)
