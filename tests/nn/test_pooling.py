"""Pooling against torch: values, indices, gradients, second order, modules, reprs and errors.

Every numeric case runs one lambda on numtorch and on torch through ``tests/oracle.py``; error
cases compare exception types and (where numtorch copies torch's wording) the messages.
"""

import math

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

DTYPES = ["float64", "float32"]
NAN, INF = float("nan"), float("inf")


def _same_message(fn, arrays=()):
    """Both libraries raise; numtorch's exception class and first message line are torch's."""
    nt_exc, th_exc = check_raises(fn, arrays)
    assert str(nt_exc).split("\n")[0] == str(th_exc).split("\n")[0]


# ---------------------------------------------------------------------------------------------
# max pooling

MAX2D = [
    dict(kernel_size=2),
    dict(kernel_size=3),
    dict(kernel_size=(2, 3)),
    dict(kernel_size=3, stride=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1)),
    dict(kernel_size=2, stride=1, dilation=2),
    dict(kernel_size=3, stride=2, padding=1, dilation=(2, 1)),
    dict(kernel_size=2, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3), stride=(3, 2), ceil_mode=True, dilation=2),
    dict(kernel_size=[2, 2], stride=[]),
    dict(kernel_size=5, stride=1, padding=2),  # window-copy path (25 elements per window)
    dict(kernel_size=(5, 6), stride=2, padding=(1, 3), dilation=(1, 2), ceil_mode=True),
]


@pytest.mark.parametrize("kw", MAX2D)
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool2d_matches_torch(kw, dtype):
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, **kw), [(2, 3, 9, 11)], dtype=dtype)


@pytest.mark.parametrize("kw", MAX2D)
def test_max_pool2d_indices_match_torch(kw):
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, return_indices=True, **kw),
             [(2, 3, 9, 11)])
    check_op(lambda t, x: t.nn.functional.max_pool2d_with_indices(x, **kw), [(2, 2, 8, 7)])


MAX1D = [
    dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=2, dilation=2, ceil_mode=True),
    dict(kernel_size=(4,), stride=(3,), padding=(2,), ceil_mode=True),
    dict(kernel_size=20, stride=3, padding=4),  # window-copy path
]


@pytest.mark.parametrize("kw", MAX1D)
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("shape", [(2, 3, 23), (3, 23)])
def test_max_pool1d_matches_torch(kw, indices, shape):
    check_op(lambda t, x: t.nn.functional.max_pool1d(x, return_indices=indices, **kw), [shape])


MAX3D = [
    dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=1, padding=(1, 1, 0)),
    dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True),
    dict(kernel_size=3, stride=1),  # 27 elements per window: window-copy path
]


@pytest.mark.parametrize("kw", MAX3D)
@pytest.mark.parametrize("shape", [(2, 2, 5, 6, 7), (2, 5, 6, 7)])
def test_max_pool3d_matches_torch(kw, shape):
    check_op(lambda t, x: t.nn.functional.max_pool3d(x, return_indices=True, **kw), [shape])
    check_op(lambda t, x: t.nn.functional.max_pool3d(x, **kw), [shape], dtype="float32")


def test_max_pool2d_unbatched_and_empty_batch():
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
             [(3, 8, 9)])
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 2, return_indices=True), [(0, 3, 4, 4)])


def test_max_pool2d_large_kernel_loop_path():
    # large windows on a large output: the kernel-offset loop rather than a window copy
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 7, 1, 3, return_indices=True),
             [(2, 8, 64, 64)], second_order=False)


@pytest.mark.parametrize("kw", MAX2D[:11])
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool2d_ties_pick_first_like_torch(kw, dtype):
    x = np.random.default_rng(3).integers(0, 3, (2, 2, 9, 11)).astype(dtype)
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, return_indices=True, **kw), [x],
             dtype=dtype)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=5, stride=2, padding=2)])
def test_max_pool2d_nan_and_inf_like_torch(kw):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 2, 8, 9))
    x[rng.random(x.shape) < 0.15] = NAN
    x[rng.random(x.shape) < 0.1] = -INF
    x[0, 0, :3, :3] = -INF  # a padded corner whose real values are all -inf
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, return_indices=True, **kw), [x])


def test_max_pool2d_all_minus_inf_reports_first_real_element():
    x = np.full((1, 1, 5, 5), -INF)
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, dilation=2,
                                                     return_indices=True), [x], grad=False)
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 2, 2, 1, ceil_mode=True,
                                                     return_indices=True), [x[:, :, :3, :3]],
             grad=False)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_max_pool_integer_inputs(dtype):
    info = np.iinfo(dtype)
    x = np.random.default_rng(5).integers(max(info.min, -50), 50, (2, 3, 7, 8)).astype(dtype)
    x[0, 0, 0, :2] = info.min  # the padding value must never be reported
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True), [x])
    check_op(lambda t, x: t.nn.functional.max_pool3d(x, 2, return_indices=True), [x])


def test_max_pool_gradient_accumulates_over_overlapping_windows():
    # the same element is the maximum of several windows: its gradients add up
    x = np.zeros((1, 1, 5, 5))
    x[0, 0, 2, 2] = 5.0
    x[0, 0, 0, 0] = 1.0
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, 1, 1), [x])


def test_max_pool_gradient_needs_no_grad_for_indices():
    x = numtorch.randn(2, 3, 6, 6, requires_grad=True)
    y, i = numtorch.nn.functional.max_pool2d(x, 2, return_indices=True)
    assert y.requires_grad and not i.requires_grad and i.dtype == numtorch.int64
    y.sum().backward()
    assert float(x.grad.sum()) == y.numel()


def test_max_pool_retain_graph_rule():
    x = numtorch.randn(1, 1, 4, 4, requires_grad=True)
    y = numtorch.nn.functional.max_pool2d(x, 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


# ---------------------------------------------------------------------------------------------
# average pooling

AVG2D = [
    dict(kernel_size=2),
    dict(kernel_size=(2, 3), stride=1),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(3, 2), ceil_mode=True),
    dict(kernel_size=2, divisor_override=3),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=5),
    dict(kernel_size=5, stride=1, padding=2),  # window-view path
    dict(kernel_size=(9, 11)),  # global pooling
    dict(kernel_size=3),  # 9x11 -> 3x3: the tail of each dim is dropped
]


@pytest.mark.parametrize("kw", AVG2D)
@pytest.mark.parametrize("dtype", DTYPES)
def test_avg_pool2d_matches_torch(kw, dtype):
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, **kw), [(2, 3, 9, 11)], dtype=dtype)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=4, stride=3, padding=2, ceil_mode=True),
                                dict(kernel_size=3, stride=2, padding=1,
                                     count_include_pad=False, ceil_mode=True),
                                dict(kernel_size=19, stride=2, padding=9)])
@pytest.mark.parametrize("shape", [(2, 3, 20), (3, 20)])
def test_avg_pool1d_matches_torch(kw, shape):
    check_op(lambda t, x: t.nn.functional.avg_pool1d(x, **kw), [shape])


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=1,
                                                            padding=(1, 1, 0)),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False),
                                dict(kernel_size=3, divisor_override=7),
                                dict(kernel_size=3, stride=1)])
@pytest.mark.parametrize("shape", [(2, 2, 5, 6, 7), (2, 5, 6, 7)])
def test_avg_pool3d_matches_torch(kw, shape):
    check_op(lambda t, x: t.nn.functional.avg_pool3d(x, **kw), [shape])
    check_op(lambda t, x: t.nn.functional.avg_pool3d(x, **kw), [shape], dtype="float32")


def test_avg_pool2d_unbatched_and_integer_input():
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, 3, 2, 1), [(3, 8, 9)])
    x = np.random.default_rng(6).integers(-20, 20, (2, 3, 7, 8))
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, 2, ceil_mode=True), [x])
    check_op(lambda t, x: t.nn.functional.avg_pool1d(x[0], 3, 2, 1), [x])


# ---------------------------------------------------------------------------------------------
# unpooling


@pytest.mark.parametrize("nd,shape,kw,out", [
    (1, (2, 3, 12), dict(kernel_size=2), None),
    (1, (3, 13), dict(kernel_size=3, stride=2, padding=1), (13,)),
    (2, (2, 3, 8, 8), dict(kernel_size=2), None),
    (2, (2, 3, 9, 9), dict(kernel_size=2), (2, 3, 9, 9)),
    (2, (3, 8, 9), dict(kernel_size=3, stride=2, padding=1), (8, 9)),
    (2, (2, 2, 7, 7), dict(kernel_size=3, stride=1), None),  # overlapping: repeated indices
    (3, (2, 2, 4, 6, 5), dict(kernel_size=2), (4, 6, 5)),
    (3, (2, 4, 4, 4), dict(kernel_size=(2, 1, 2), stride=(2, 1, 2)), None),
])
def test_max_unpool_matches_torch(nd, shape, kw, out):
    def fn(t, x):
        F = t.nn.functional
        pool = getattr(F, f"max_pool{nd}d")
        unpool = getattr(F, f"max_unpool{nd}d")
        y, i = pool(x, return_indices=True, **kw)
        return unpool(y * 2, i, output_size=out, **kw), i

    check_op(fn, [shape])
    check_op(fn, [shape], dtype="float32")


def test_max_unpool_gradient_of_values_only():
    y = np.random.default_rng(8).standard_normal((2, 3, 3, 4))
    i = np.random.default_rng(9).integers(0, 48, (2, 3, 3, 4))
    check_op(lambda t, y, i: t.nn.functional.max_unpool2d(y, i, 2), [y, i])


# ---------------------------------------------------------------------------------------------
# LP pooling


@pytest.mark.parametrize("p", [1, 2, 3, 1.5])
@pytest.mark.parametrize("nd,shape,kw", [
    (1, (2, 3, 11), dict(kernel_size=3)),
    (1, (3, 11), dict(kernel_size=2, stride=1, ceil_mode=True)),
    (2, (2, 3, 7, 8), dict(kernel_size=2)),
    (2, (3, 7, 8), dict(kernel_size=(2, 3), stride=2, ceil_mode=True)),
    (3, (2, 2, 4, 5, 6), dict(kernel_size=2, stride=(1, 2, 2))),
])
def test_lp_pool_matches_torch(p, nd, shape, kw):
    fn = f"lp_pool{nd}d"
    check_op(lambda t, x: getattr(t.nn.functional, fn)(x, p, **kw), [shape], low=0.2, high=2)
    if p != 1.5:
        check_op(lambda t, x: getattr(t.nn.functional, fn)(x, p, **kw), [shape], low=-2, high=2,
                 second_order=False)


@pytest.mark.parametrize("p", [math.inf, -math.inf])
@pytest.mark.parametrize("nd,shape,kw", [
    (1, (2, 3, 11), dict(kernel_size=3)),
    (1, (3, 7), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (2, (2, 3, 5, 6), dict(kernel_size=(2, 3), stride=2, ceil_mode=True)),
    (3, (1, 2, 4, 4, 4), dict(kernel_size=2)),
])
def test_lp_pool_of_infinite_power_is_the_extreme_magnitude(p, nd, shape, kw):
    fn = f"lp_pool{nd}d"
    check_op(lambda t, x: getattr(t.nn.functional, fn)(x, p, **kw), [shape], second_order=False)


# ---------------------------------------------------------------------------------------------
# adaptive pooling

ADAPTIVE2D = [1, 3, (4, 5), (None, 3), (2, None), 7, (11, 13), (5, 1), (3, 4)]


@pytest.mark.parametrize("size", ADAPTIVE2D)
@pytest.mark.parametrize("dtype", DTYPES)
def test_adaptive_avg_pool2d_matches_torch(size, dtype):
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, size), [(2, 3, 9, 8)],
             dtype=dtype)


@pytest.mark.parametrize("size", ADAPTIVE2D)
@pytest.mark.parametrize("dtype", DTYPES)
def test_adaptive_max_pool2d_matches_torch(size, dtype):
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, size, return_indices=True),
             [(2, 3, 9, 8)], dtype=dtype)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 9, (4,), [6]])
@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7)])
def test_adaptive_pool1d_matches_torch(size, shape):
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, size), [shape])
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool1d(x, size, return_indices=True),
             [shape])
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool1d_with_indices(x, size), [shape])


@pytest.mark.parametrize("size", [1, 2, (2, 3, 4), (None, 2, 3), (3, None, None), 6])
@pytest.mark.parametrize("shape", [(2, 2, 4, 5, 6), (2, 4, 5, 6)])
def test_adaptive_pool3d_matches_torch(size, shape):
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, size), [shape])
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool3d(x, size, return_indices=True),
             [shape])


def test_adaptive_pools_edge_sizes():
    F = "adaptive_avg_pool2d"
    check_op(lambda t, x: getattr(t.nn.functional, F)(x, 0), [(2, 3, 4, 5)], grad=False)
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (0, 2), True), [(2, 3, 4, 5)],
             grad=False)
    check_op(lambda t, x: getattr(t.nn.functional, F)(x, 1), [(2, 0, 3)], grad=False)
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 1), [(2, 0, 3, 3)], grad=False)
    check_op(lambda t, x: getattr(t.nn.functional, F)(x, 2), [(2, 0, 3, 3)], grad=False)
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2), [(0, 2, 4, 4)])
    x = np.random.default_rng(2).integers(0, 3, (2, 2, 7, 5)).astype(float)  # ties
    x[0, 1, 3, :] = NAN
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 2), True), [x])


def test_adaptive_avg_pool_global_float32_large():
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 1), [(4, 16, 14, 14)],
             dtype="float32")
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (5, 3)), [(4, 16, 14, 14)],
             dtype="float32")


# ---------------------------------------------------------------------------------------------
# fractional max pooling


def _samples(shape, dtype, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


@pytest.mark.parametrize("kw", [dict(kernel_size=2, output_size=4),
                                dict(kernel_size=3, output_size=(5, 3)),
                                dict(kernel_size=(2, 3), output_ratio=(0.5, 0.7)),
                                dict(kernel_size=2, output_size=(1, 8)),
                                dict(kernel_size=1, output_size=6),
                                dict(kernel_size=2, output_size=0)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_fractional_max_pool2d_with_samples_matches_torch(kw, dtype):
    u = _samples((2, 3, 2), dtype)
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool2d(
        x, return_indices=True, _random_samples=u.detach(), **kw), [(2, 3, 9, 10), u], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fractional_max_pool_sequences_on_long_inputs(dtype):
    # long dims and many outputs: the float rounding of the window starts must match torch's
    u = _samples((4, 5, 2), dtype, seed=11)
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool2d_with_indices(
        x, 3, output_size=(37, 61), _random_samples=u.detach()), [(4, 5, 97, 199), u], dtype=dtype,
             grad=False)


@pytest.mark.parametrize("shape", [(2, 2, 7, 8, 9), (2, 7, 8, 9)])
def test_fractional_max_pool3d_with_samples_matches_torch(shape):
    u = _samples((2, 2, 3), "float64")
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool3d(
        x, (2, 3, 2), output_size=(3, 4, 5), return_indices=True, _random_samples=u.detach()),
        [shape, u])
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool3d_with_indices(
        x, 2, output_ratio=(0.5, 0.6, 0.7), _random_samples=u.detach()), [shape, u])


def test_fractional_max_pool2d_unbatched_and_bigger_sample_batch():
    u = _samples((3, 3, 2), "float64")
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool2d(
        x, 2, output_size=4, _random_samples=u.detach()), [(3, 9, 9), u])
    check_op(lambda t, x, u: t.nn.functional.fractional_max_pool2d(
        x, 2, output_size=4, _random_samples=u.detach()), [(2, 3, 9, 9), u])


def test_fractional_max_pool_random_windows_are_valid_and_seeded():
    F = numtorch.nn.functional
    x = numtorch.randn(4, 3, 15, 15)
    numtorch.manual_seed(7)
    y1, i1 = F.fractional_max_pool2d(x, 3, output_size=6, return_indices=True)
    numtorch.manual_seed(7)
    y2, i2 = F.fractional_max_pool2d(x, 3, output_size=6, return_indices=True)
    assert y1.shape == (4, 3, 6, 6) and i1.dtype == numtorch.int64
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    np.testing.assert_array_equal(i1.numpy(), i2.numpy())
    # the windows come from one uniform (N, C, 2) draw of the seeded generator
    numtorch.manual_seed(7)
    u = numtorch.rand(4, 3, 2)
    y3 = F.fractional_max_pool2d(x, 3, output_size=6, _random_samples=u)
    np.testing.assert_array_equal(y1.numpy(), y3.numpy())
    flat = x.reshape(4, 3, -1).numpy()
    idx = i1.reshape(4, 3, -1).numpy()
    np.testing.assert_array_equal(np.take_along_axis(flat, idx, -1), y1.reshape(4, 3, -1))
    # on increasing values each window's maximum is its last element, which shows the starts:
    # first 0, last 15 - 3, steps of floor or ceil of alpha = 12 / 5
    ramp = numtorch.arange(225.).reshape(1, 1, 15, 15).expand(1, 50, 15, 15).contiguous()
    _, i = F.fractional_max_pool2d(ramp, 3, output_size=6, return_indices=True)
    rows = (i // 15).numpy()[0, :, :, 0] - 2
    cols = (i % 15).numpy()[0, :, 0, :] - 2
    for starts in (rows, cols):
        assert (starts[:, 0] == 0).all() and (starts[:, -1] == 12).all()
        assert set(np.unique(np.diff(starts[:, :-1], axis=1))) <= {2, 3}
    # different draws place windows differently
    assert len({tuple(r) for r in rows}) >= 3


def test_fractional_max_pool_sample_statistics():
    # windows placed from uniform samples: across many planes the window spacings occur as
    # often as a uniform draw implies
    F = numtorch.nn.functional
    x = numtorch.arange(40.).reshape(1, 1, 1, 40).expand(1, 2000, 2, 40).contiguous()
    _, i = F.fractional_max_pool2d(x, (2, 2), output_size=(1, 10), return_indices=True)
    cols = (i.reshape(2000, 10) % 40).numpy()
    first = cols[:, 0] - 1  # increasing values: each window's max is its last column
    # alpha = 38/9: the first gap is int((1+u)*alpha) - int(u*alpha), 4 or 5
    gaps = cols[:, 1] - cols[:, 0]
    assert set(np.unique(first)) == {0} and set(np.unique(gaps)) <= {4, 5}
    frac5 = (gaps == 5).mean()
    # P(gap == 5) = P(frac(u*alpha) >= 7/9) = 4 * (2/9) / alpha = 8/38 for u uniform in [0, 1)
    assert abs(frac5 - 8 / 38) < 0.04  # about 4.4 standard deviations for 2000 draws


# ---------------------------------------------------------------------------------------------
# layouts and dtypes shared by all families

FAMILIES = [
    lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True),
    lambda t, x: t.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (3, 5)),
    lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 5), return_indices=True),
    lambda t, x: t.nn.functional.lp_pool2d(x.abs() + 0.5, 2, 2),
]


@pytest.mark.parametrize("fn", FAMILIES)
def test_pooling_non_contiguous_inputs(fn):
    check_op(fn, [(2, 3, 8, 9)], non_contiguous=True)
    check_op(lambda t, x: fn(t, x.transpose(2, 3)), [(2, 3, 9, 8)])
    check_op(lambda t, x: fn(t, x[:, ::2, 1:].flip(3)), [(2, 5, 9, 8)])


@pytest.mark.parametrize("fn", FAMILIES[:4])
def test_pooling_float16(fn):
    check_op(fn, [(2, 3, 8, 9)], dtype="float16", grad=False)


# ---------------------------------------------------------------------------------------------
# backward passes as functions of the cotangent (double backward through the backward ops)


def _grad_of(fn):
    """Return a lambda computing d<fn(x), u>/dx with a graph, so check_op differentiates the
    backward pass itself (with respect to x and to the cotangent u)."""

    def run(t, x, u):
        y = fn(t, x)
        return t.autograd.grad(y, x, u, create_graph=True)[0]

    return run


def _out_shape(fn, shape):
    return tuple(fn(torch, torch.zeros(shape, dtype=torch.float64)).shape)


BACKWARDS = [
    (lambda t, x: t.nn.functional.max_pool2d(x, 2), (2, 3, 6, 8)),
    (lambda t, x: t.nn.functional.max_pool2d(x, 3, 1, 1), (2, 3, 6, 7)),
    (lambda t, x: t.nn.functional.max_pool1d(x, 3, 2, 1, dilation=1), (2, 3, 9)),
    (lambda t, x: t.nn.functional.max_pool3d(x, 2, 1), (1, 2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2), (2, 3, 6, 8)),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                             count_include_pad=False), (2, 3, 7, 8)),
    (lambda t, x: t.nn.functional.avg_pool3d(x, 2, 1, 1), (1, 2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (4, 11)), (2, 3, 9, 7)),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (4, 11)), (2, 3, 9, 7)),
    (lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 3), (2, 3, 9)),
]


@pytest.mark.parametrize("fn,shape", BACKWARDS)
def test_pooling_backward_is_differentiable_like_torch(fn, shape):
    check_op(_grad_of(fn), [shape, _out_shape(fn, shape)])


def test_unpool_and_fractional_backward_are_differentiable_like_torch():
    u = _samples((2, 3, 2), "float64")

    def frac(t, x):
        return t.nn.functional.fractional_max_pool2d(x, 2, output_size=(5, 4),
                                                     _random_samples=t.from_numpy(u.copy()))

    check_op(_grad_of(frac), [(2, 3, 8, 9), (2, 3, 5, 4)])
    _, idx = _pooled(2)

    def unpool(t, y):
        return t.nn.functional.max_unpool2d(y, t.from_numpy(idx.copy()), 2)

    check_op(_grad_of(unpool), [(2, 3, 3, 3), (2, 3, 6, 6)])


# ---------------------------------------------------------------------------------------------
# modules


MODULES = [
    (lambda t: t.nn.MaxPool1d(3, 2, 1), (2, 3, 10)),
    (lambda t: t.nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 9, 8)),
    (lambda t: t.nn.MaxPool2d((2, 3), dilation=2, return_indices=True), (2, 3, 9, 8)),
    (lambda t: t.nn.MaxPool3d(2), (2, 2, 4, 5, 6)),
    (lambda t: t.nn.AvgPool1d(3, 2, 1, count_include_pad=False), (2, 3, 10)),
    (lambda t: t.nn.AvgPool2d(3, 2, 1, ceil_mode=True, divisor_override=4), (3, 9, 8)),
    (lambda t: t.nn.AvgPool3d((2, 3, 2)), (2, 2, 4, 5, 6)),
    (lambda t: t.nn.LPPool1d(2, 3), (2, 3, 10)),
    (lambda t: t.nn.LPPool2d(3, (2, 3), stride=1), (2, 3, 9, 8)),
    (lambda t: t.nn.LPPool3d(2, 2), (2, 2, 4, 5, 6)),
    (lambda t: t.nn.AdaptiveMaxPool1d(4, return_indices=True), (2, 3, 10)),
    (lambda t: t.nn.AdaptiveMaxPool2d((3, None)), (2, 3, 9, 8)),
    (lambda t: t.nn.AdaptiveMaxPool3d(2), (2, 2, 4, 5, 6)),
    (lambda t: t.nn.AdaptiveAvgPool1d(3), (2, 3, 10)),
    (lambda t: t.nn.AdaptiveAvgPool2d((5, 3)), (2, 3, 9, 8)),
    (lambda t: t.nn.AdaptiveAvgPool3d((None, 2, 4)), (2, 4, 5, 6)),
]


@pytest.mark.parametrize("make,shape", MODULES)
def test_pooling_modules_match_torch(make, shape):
    low = 0.2 if "LPPool" in type(make(torch)).__name__ else -2
    nt_m, th_m = check_module(make, [shape], low=low)
    assert repr(nt_m) == repr(th_m)
    assert nt_m.extra_repr() == th_m.extra_repr()
    for name in th_m.__constants__ if hasattr(th_m, "__constants__") else ():
        assert getattr(nt_m, name) == getattr(th_m, name), name


def test_fractional_module_buffer_and_repr():
    u = _samples((2, 3, 2), "float32")

    def make(t):
        return t.nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True,
                                        _random_samples=t.from_numpy(u.copy()))

    nt_m, th_m = check_module(make, [(2, 3, 11, 12)])
    assert repr(nt_m) == repr(th_m) and list(nt_m.state_dict()) == ["_random_samples"]
    assert nt_m.output_ratio == th_m.output_ratio and nt_m.kernel_size == th_m.kernel_size
    plain = numtorch.nn.FractionalMaxPool3d(2, output_size=3)
    assert list(plain.state_dict()) == [] and plain.output_size == (3, 3, 3)
    assert plain(numtorch.randn(2, 5, 6, 7)).shape == (2, 3, 3, 3)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_modules_match_torch(nd):
    def make(t):
        return getattr(t.nn, f"MaxUnpool{nd}d")(2, stride=2)

    shape = (2, 3) + (7,) * nd
    out = (2, 3) + (7,) * nd

    def forward(m, x):
        lib = numtorch if isinstance(m, numtorch.nn.Module) else torch
        y, i = getattr(lib.nn.functional, f"max_pool{nd}d")(x, 2, return_indices=True)
        return m(y, i, output_size=out)

    nt_m, th_m = check_module(make, [shape], forward=forward)
    assert repr(nt_m) == repr(th_m)


@pytest.mark.parametrize("ctor", [
    lambda t: t.nn.FractionalMaxPool2d(2),
    lambda t: t.nn.FractionalMaxPool3d(2),
    lambda t: t.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda t: t.nn.FractionalMaxPool2d(2, output_ratio=1.0),
    lambda t: t.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.0)),
    lambda t: t.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.5)),
])
def test_fractional_module_constructor_errors(ctor):
    _same_message(ctor)


def test_module_import_paths():
    import numtorch.nn.modules.pooling as P

    for name in torch.nn.modules.pooling.__all__:
        assert getattr(P, name) is getattr(numtorch.nn, name)
    for name in ["max_pool2d_with_indices", "fractional_max_pool2d", "lp_pool3d",
                 "adaptive_max_pool3d_with_indices"]:
        assert callable(getattr(numtorch.nn.functional, name))


# ---------------------------------------------------------------------------------------------
# errors

X4 = np.zeros((2, 3, 5, 5))
X3 = np.zeros((3, 5, 5))
X5 = np.zeros((2, 3, 4, 4, 4))

SAME_MESSAGE = [
    (lambda t, x: t.nn.functional.max_pool2d(x, 6), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, padding=2), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, padding=-1), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, stride=0), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, stride=-1), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 0, stride=1), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, dilation=0), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, padding=2, dilation=3),
     [np.zeros((1, 1, 9, 9))]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2), [np.zeros((3, 5))]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2), [np.zeros((2, 0, 5, 5))]),
    (lambda t, x: t.nn.functional.max_pool2d(x, (2, 2, 2)), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2, (1, 1, 1)), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2.0), [X4]),
    (lambda t, x: t.nn.functional.max_pool2d(x, 2), [np.zeros((2, 5, 5), dtype=bool)]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 6), [X3[0]]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, padding=2), [X3[0]]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 0), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, stride=0), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, dilation=0), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, padding=-1), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, (2, 2)), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2), [X4]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 1), [np.zeros((2, 3, 0))]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2), [np.zeros((2, 5), dtype=np.int64)]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 6, return_indices=True), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, padding=2, return_indices=True), [X3]),
    (lambda t, x: t.nn.functional.max_pool1d(x, 2, return_indices=True), [np.zeros(5)]),
    (lambda t, x: t.nn.functional.max_pool3d(x, 5), [X5]),
    (lambda t, x: t.nn.functional.max_pool3d(x, 2), [X3]),
    (lambda t, x: t.nn.functional.max_pool3d(x, 2, padding=2, dilation=3),
     [np.zeros((1, 1, 9, 9, 9))]),
    (lambda t, x: t.nn.functional.max_pool3d(x, 2, dilation=0), [X5]),
    (lambda t, x: t.nn.functional.max_pool3d(x, (2, 2)), [X5]),
    (lambda t, x: t.nn.functional.max_pool3d(x, 2), [np.zeros((1, 0, 5, 5, 5))]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 6), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2, padding=2), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2), [X3[0]]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2), [np.zeros((1, 1, 1, 5, 5))]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2, divisor_override=0), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2, stride=0), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 0, stride=1), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, (2, 2, 2)), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 2, (2, 2, 2)), [X4]),
    (lambda t, x: t.nn.functional.avg_pool2d(x, 1), [np.zeros((2, 3, 0, 5))]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, 6), [X3[0]]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, 2, padding=2), [X3[0]]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, 2), [X4]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, (2, 2)), [X3]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, 2, stride=-1), [X3]),
    (lambda t, x: t.nn.functional.avg_pool1d(x, 2), [np.zeros((2, 0, 5))]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, 5), [X5]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, (5, 2, 2), padding=(2, 0, 0)), [X5]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, 2), [X3]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, 2, divisor_override=0), [X5]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, (2, 2)), [X5]),
    (lambda t, x: t.nn.functional.avg_pool3d(x, 2), [np.zeros((1, 0, 5, 5, 5))]),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (2, 2, 2)), [X4]),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2), [np.zeros((2, 3, 0, 5))]),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, -1), [X4]),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2),
     [np.zeros((2, 5, 5), dtype=np.int64)]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, -1), [X4]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2), [np.zeros((2, 0, 3))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2), [np.zeros((2, 3, 3, 0))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 2), [np.zeros((1, 2, 0, 3, 3))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 2), [np.zeros((2, 0))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 2), [np.zeros((2, 3, 0))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, -1), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, -1), [X3]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, None), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, (None,)), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, (2, 2)), [X3[0]]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 2), [X4]),
    (lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 2), [X4]),
    (lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 2), [np.zeros((2, 0))]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 2), [X3]),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2),
     [np.zeros((2, 5, 5), dtype=np.int64)]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2), [X4]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2, output_size=5), [X4]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, 6, output_size=1), [X4]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, (2, 2, 2), output_size=2), [X4]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2, output_size=(2, 2, 2)), [X4]),
    (lambda t, x: t.nn.functional.fractional_max_pool2d(x, 2, output_size=2), [X3[0]]),
    (lambda t, x, u: t.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
                                                           _random_samples=u),
     [X4, np.zeros((2, 3, 3))]),
    (lambda t, x, u: t.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
                                                           _random_samples=u),
     [X4, np.zeros((1, 3, 2))]),
    (lambda t, x, u: t.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
                                                           _random_samples=u),
     [X4, np.zeros((3, 2))]),
    (lambda t, x, u: t.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
                                                           _random_samples=u),
     [X4, np.zeros((2, 3, 2), dtype=np.float32)]),
    (lambda t, x: t.nn.functional.fractional_max_pool3d(x, 2, output_size=3), [X3]),
    (lambda t, x: t.nn.functional.fractional_max_pool3d(x, 2, output_size=4), [X5]),
    (lambda t, x: t.nn.functional.lp_pool2d(x, 2, 6), [X3]),
    (lambda t, x: t.nn.functional.lp_pool2d(x, 2, (2, 2, 2)), [X3]),
    (lambda t, x: t.nn.functional.lp_pool2d(x, 0, 2), [X3]),
    (lambda t, x: t.nn.functional.lp_pool1d(x, 2, 2), [X3[0, 0]]),
]


@pytest.mark.parametrize("case", range(len(SAME_MESSAGE)))
def test_pooling_errors_match_torch(case):
    fn, arrays = SAME_MESSAGE[case]
    _same_message(fn, arrays)


def _pooled(nd):
    x = np.random.default_rng(1).standard_normal((2, 3) + (6,) * nd)
    tx = torch.from_numpy(x)
    y, i = getattr(torch.nn.functional, f"max_pool{nd}d")(tx, 2, return_indices=True)
    return y.numpy(), i.numpy()


Y2, I2 = _pooled(2)
Y1, I1 = _pooled(1)
Y3, I3 = _pooled(3)

UNPOOL_ERRORS = [
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i, 2, output_size=(5, 5)), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i, 2, output_size=(8, 8)), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i, 2, output_size=(3, 7, 7)), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i, 2, stride=1), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i + 100, 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i - 100, 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i[:, :, :2], 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i.int(), 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y, i.float(), 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y[0, 0], i[0, 0], 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y[None], i[None], 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool2d(y.long(), i, 2), [Y2, I2]),
    (lambda t, y, i: t.nn.functional.max_unpool1d(y, i, 2, output_size=(4,)), [Y1, I1]),
    (lambda t, y, i: t.nn.functional.max_unpool1d(y, i + 10, 2), [Y1, I1]),
    (lambda t, y, i: t.nn.functional.max_unpool1d(y[0, 0], i[0, 0], 2), [Y1, I1]),
    (lambda t, y, i: t.nn.functional.max_unpool1d(y[None], i[None], 2), [Y1, I1]),
    (lambda t, y, i: t.nn.functional.max_unpool3d(y, i + 100, 2), [Y3, I3]),
    (lambda t, y, i: t.nn.functional.max_unpool3d(y[0, 0], i[0, 0], 2), [Y3, I3]),
    (lambda t, y, i: t.nn.functional.max_unpool3d(y, i, 2, stride=0), [Y3, I3]),
    (lambda t, y, i: t.nn.functional.max_unpool3d(y, i, 2, output_size=(2, 2, 2)), [Y3, I3]),
]


@pytest.mark.parametrize("case", range(len(UNPOOL_ERRORS)))
def test_max_unpool_errors_match_torch(case):
    fn, arrays = UNPOOL_ERRORS[case]
    nt_exc, th_exc = check_raises(fn, arrays)
    nt_msg, th_msg = str(nt_exc), str(th_exc).split("\n")[0]
    prefix = "Found an invalid max index: "
    if th_msg.startswith(prefix):
        # which bad index torch names depends on how its threads split the planes; the rest of
        # the message must agree
        assert nt_msg.startswith(prefix)
        assert nt_msg.split(" (")[1] == th_msg.split(" (")[1]
    else:
        assert nt_msg == th_msg


def test_max_unpool_names_an_invalid_index():
    y = numtorch.zeros(2, 3, 2, 2)
    idx = np.random.default_rng(0).integers(0, 16, (2, 3, 2, 2))
    idx[1, 0, 1, 0], idx[1, 2, 0, 1] = 23, -4
    with pytest.raises(RuntimeError) as info:
        numtorch.nn.functional.max_unpool2d(y, numtorch.from_numpy(idx), 2)
    bad = int(str(info.value).split(": ")[1].split(" ")[0])
    assert bad in (23, -4) and "(output volumes are of size 4x4)" in str(info.value)


def test_type_only_errors():
    # torch's own wording here comes from Python internals; numtorch raises the same type
    check_raises(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, None), [X4])
    check_raises(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, None), [X4])


@pytest.mark.parametrize("fn,shape", [
    (lambda t, x: t.max_pool1d(x, 3, 2, 1), (2, 3, 9)),
    (lambda t, x: t.max_pool1d_with_indices(x, 3, 2, 1), (2, 3, 9)),
    (lambda t, x: t.max_pool2d(x, 2), (2, 3, 6, 7)),
    (lambda t, x: t.max_pool3d(x, 2, 1, 1, 1, True), (1, 2, 4, 5, 6)),
    (lambda t, x: t.avg_pool1d(x, 3, 2, 1, False, False), (2, 3, 9)),
    (lambda t, x: t.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    (lambda t, x: t.adaptive_max_pool1d(x, 4), (2, 3, 9)),
])
def test_top_level_pooling_functions(fn, shape):
    check_op(fn, [shape])


def test_empty_batch_with_large_windows():
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 5, return_indices=True), [(0, 3, 9, 9)])
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, 5), [(0, 3, 9, 9)])
    check_op(lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2), [(0, 3, 9, 9)])
    check_op(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (2, 4)), [(0, 3, 9, 9)])


@pytest.mark.parametrize("fn", [
    lambda t, x: t.nn.functional.max_pool2d(x, 2),
    lambda t, x: t.nn.functional.max_pool2d(x, 3, 1, 1),
    lambda t, x: t.nn.functional.max_pool2d(x, 5, 2, 2, ceil_mode=True),  # window copy
    lambda t, x: t.nn.functional.max_pool1d(x.flatten(2), 20, 7, 3),
    lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 4)),
    lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 1),
    lambda t, x: t.nn.functional.adaptive_max_pool1d(x.flatten(2), 3),  # 24-element windows
])
def test_max_values_without_indices_or_grad(fn):
    # no graph and no indices requested: the value-only reductions, NaN included
    x = np.random.default_rng(12).standard_normal((2, 3, 8, 9))
    check_op(fn, [x], grad=False)
    x[np.random.default_rng(13).random(x.shape) < 0.1] = NAN
    check_op(fn, [x], grad=False)
