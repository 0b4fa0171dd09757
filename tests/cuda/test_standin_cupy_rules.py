"""The stand-in follows CuPy where CuPy's results differ from NumPy's in ways numtorch can see
(read from CuPy 14's source, and seen on an H200 in the lead's GPU run of the oracle suite):

- zeros of both signs: CuPy's float maximum/minimum/fmax/fmin compile to PTX ``max``/``min``,
  which order +0. above -0. in either operand order (NumPy gives its second operand on ties);
  its clip keeps x on ties (NumPy's one-bound clip gives the bound).
- result layouts: CuPy allocates the outputs of its ufuncs, elementwise and reduction kernels,
  joins, ``where``, reductions, scans, sorts and gathers row-major (``_ndarray_init`` without an
  order in ``cupy/_core/_kernel.pyx``, ``core.ndarray(shape)`` in ``concatenate``,
  ``astype(order='C')`` in ``scan_core``), where NumPy keeps the operands' layout (order 'K');
  ``astype``, ``copy(order='K')``, ``array`` and the ``*_like`` functions keep it in both
  (``_get_strides_for_order_K``). The H200 run showed it: relu and batch norm of channels-last
  images and ``torch.cat`` of them came back row-major.
"""

import numpy as np
import pytest

from tests.cuda import standin

cp, cupyx = standin.modules()

FLOATS = [np.float16, np.float32, np.float64]


def _bits(a):
    return [repr(float(v)) for v in a.get().ravel()]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,larger", [("maximum", True), ("minimum", False),
                                         ("fmax", True), ("fmin", False)])
def test_max_min_order_signed_zeros_as_cuda(name, larger, dtype):
    f = getattr(cp, name)
    pz, nz = cp.asarray(np.zeros(3, dtype)), cp.asarray(-np.zeros(3, dtype))
    want = "0.0" if larger else "-0.0"
    for a, b in ((pz, nz), (nz, pz), (pz, dtype(-0.0)), (dtype(-0.0), pz), (nz, 0.0),
                 (0.0, nz)):
        assert _bits(f(a, b)) == [want] * 3
    # zeros of one sign, and NumPy's other rules, stay as they were
    assert _bits(f(nz, nz)) == ["-0.0"] * 3 and _bits(f(pz, pz)) == ["0.0"] * 3
    x = cp.asarray(np.array([np.nan, 1.0, -2.0], dtype))
    y = cp.asarray(np.array([1.0, np.nan, 3.0], dtype))
    host = getattr(np, name)(x.get(), y.get())
    np.testing.assert_array_equal(f(x, y).get(), host)


def test_max_min_into_out_and_in_place_follow_cuda():
    x = cp.asarray(np.array([-0.0, 0.0, -1.0, np.nan], np.float32))
    out = cp.empty_like(x)
    cp.maximum(x.dtype.type(0), x, out=out)
    assert _bits(out)[:3] == ["0.0", "0.0", "0.0"] and np.isnan(out.get()[3])
    y = x.copy()
    cp.minimum(y, 0.0, out=y)
    assert _bits(y)[:3] == ["-0.0", "0.0", "-1.0"]
    z = cp.asarray(np.array([0.0, -0.0], np.float32))
    cp.maximum(z, -0.0, out=z)
    assert _bits(z) == ["0.0", "-0.0"]
    cp.minimum(z[::-1], 0.0, out=z)  # an output overlapping its operand reversed
    assert _bits(z) == ["-0.0", "0.0"]


def test_zero_dimensional_max_min():
    r = cp.maximum(cp.asarray(np.float64(-0.0)), 0.0)
    assert r.ndim == 0 and repr(float(r)) == "0.0"
    assert repr(float(cp.minimum(0.0, cp.asarray(np.float32(-0.0))))) == "-0.0"


def test_integer_max_min_unchanged():
    a = cp.asarray(np.array([0, -3, 5], np.int64))
    np.testing.assert_array_equal(cp.maximum(a, 0).get(), [0, 0, 5])
    np.testing.assert_array_equal(cp.minimum(a, 0).get(), [0, -3, 0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_clip_keeps_x_on_ties_and_nan_as_cupy(dtype):
    x = cp.asarray(np.array([-0.0, 0.0, np.nan, -1.0, 2.0], dtype))
    assert _bits(cp.clip(x, 0.0, 1.0)) == ["-0.0", "0.0", "nan", "0.0", "1.0"]
    # a missing bound is -inf/+inf: one bound keeps x on ties too (NumPy: the bound)
    assert _bits(cp.clip(x, 0.0, None)) == ["-0.0", "0.0", "nan", "0.0", "2.0"]
    assert _bits(x.clip(None, -0.0)) == ["-0.0", "0.0", "nan", "-1.0", "-0.0"]
    assert _bits(x.clip(0.0)) == ["-0.0", "0.0", "nan", "0.0", "2.0"]
    # lo > hi gives hi everywhere, NaN included
    assert _bits(cp.clip(x, 1.0, 0.0)) == ["0.0"] * 5
    assert cp.clip(x, 0.0, 1.0).dtype == dtype
    out = cp.empty_like(x)
    assert cp.clip(x, 0.0, 1.0, out=out) is out and _bits(out)[0] == "-0.0"


def test_clip_of_integers_and_complex():
    a = cp.asarray(np.array([-5, 0, 7], np.int32))
    np.testing.assert_array_equal(cp.clip(a, 0, None).get(), [0, 0, 7])
    assert cp.clip(a, 0, None).dtype == np.int32
    with pytest.raises(TypeError, match="cupy_clip"):
        cp.clip(cp.asarray(np.ones(2, np.complex64)), 0, 1)


def _host_and_device(shape=(2, 3, 4, 5)):
    h = np.moveaxis(np.arange(np.prod(shape), dtype=np.float32).reshape(
        (shape[0],) + shape[2:] + (shape[1],)), -1, 1)  # channels-last
    return h, cp.asarray(h)


def test_channels_last_host_array_and_its_device_copy():
    h, d = _host_and_device()
    assert d.strides == h.strides and not d.flags.c_contiguous
    # CuPy's read-only contiguity attributes (core.pxd) agree with its flags
    for a in (d, cp.exp(d), d.transpose(0, 2, 3, 1), d[:, :, ::2]):
        assert (a._c_contiguous, a._f_contiguous) == (a.flags.c_contiguous,
                                                      a.flags.f_contiguous)


RESULTS = {
    "ufunc": lambda m, x: m.sqrt(x),
    "binary ufunc": lambda m, x: m.add(x, x),
    "operator": lambda m, x: x * 2,
    "negation": lambda m, x: -x,
    "where": lambda m, x: m.where(x > 3, x, 0),
    "concatenate": lambda m, x: m.concatenate([x, x]),
    "concatenate dim 1": lambda m, x: m.concatenate([x, x], axis=1),
    "stack": lambda m, x: m.stack([x, x]),
    "sum keepdims": lambda m, x: m.sum(x, axis=0, keepdims=True),
    "sum method": lambda m, x: x.sum(axis=2),
    "max method": lambda m, x: x.max(axis=3, keepdims=True),
    "cumsum": lambda m, x: m.cumsum(x, axis=2),
    "cumsum method": lambda m, x: x.cumsum(axis=1),
    "sort": lambda m, x: m.sort(x, axis=1),
    "gather": lambda m, x: x[:, [0, 2]],
    "clip": lambda m, x: m.clip(x, 1, 5),
    "clip method": lambda m, x: x.clip(1, 5),
    "diff": lambda m, x: m.diff(x, axis=2),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_are_row_major_where_numpy_keeps_the_layout(name):
    h, d = _host_and_device()
    want = RESULTS[name](np, h)
    got = RESULTS[name](cp, d)
    np.testing.assert_array_equal(got.get(), want)
    assert got.flags.c_contiguous
    assert not want.flags.c_contiguous  # NumPy keeps (part of) the channels-last order


KEPT = {
    "astype": lambda m, x: x.astype(np.float64),
    "copy K": lambda m, x: x.copy(order="K"),
    "array": lambda m, x: m.array(x),
    "empty_like": lambda m, x: m.empty_like(x),
    "zeros_like": lambda m, x: m.zeros_like(x),
    "full_like": lambda m, x: m.full_like(x, 2),
    "transpose": lambda m, x: x.transpose(0, 2, 3, 1),
    "slice": lambda m, x: x[:, 1:],
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_order_k_results_and_views_keep_the_layout_as_numpy(name):
    h, d = _host_and_device()
    assert KEPT[name](cp, d).strides == KEPT[name](np, h).strides


def test_default_copy_is_row_major_in_both():
    h, d = _host_and_device()
    assert d.copy().flags.c_contiguous and h.copy().flags.c_contiguous


def test_outputs_given_are_written_and_handed_back():
    h, d = _host_and_device()
    out = cp.empty_like(d)
    assert cp.exp(d, out=out) is out and out.strides == d.strides
    big = cp.empty_like(d, shape=(4, 3, 4, 5))  # channels-last, twice the batch
    assert cp.concatenate([d, d], out=big) is big and not big.flags.c_contiguous
    np.testing.assert_array_equal(big.get(), np.concatenate([h, h]))
    res = cp.empty((2,) + d.shape, np.float32)
    assert cp.stack([d, d], 0, out=res) is res


@standin.reference("standin_selftest_twice")
def _twice(x, y):
    y[...] = 2 * x


def test_elementwise_kernel_outputs_are_row_major():
    h, d = _host_and_device()
    y = cp.ElementwiseKernel("T x", "T y", "y = 2 * x", "standin_selftest_twice")(d)
    assert y.flags.c_contiguous
    np.testing.assert_array_equal(y.get(), 2 * h)
