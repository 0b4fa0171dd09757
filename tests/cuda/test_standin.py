"""The CuPy stand-in fails on every bug class the first GPU run of numtorch found.

Each test is a tiny reproduction of one class (issue 16's list, measured on an H200 with CuPy
14.2): code that works on NumPy arrays and broke on CuPy's must break on the stand-in too, with
CuPy's exception class. A last group checks that the stand-in does not refuse what CuPy allows.
"""

import numpy as np
import pytest

from tests.cuda import standin
from tests.cuda.standin._names import NAMES

cp, cupyx = standin.modules()


@pytest.fixture
def x():
    return cp.asarray(np.arange(6.0).reshape(2, 3))


# -- the helper lookup handed back the cupy module itself (8,484 errors) ------------------------
@pytest.mark.parametrize("name", ["expand_to", "as_strided", "scatter_add", "index_add_rows",
                                  "sliding_window_view", "gammaln", "digamma", "polygamma",
                                  "erf", "erfc", "erfinv", "i1"])
def test_backend_helper_names_are_not_cupy_names(name):
    with pytest.raises(AttributeError):
        getattr(cp, name)


# -- 'Flags' object has no attribute 'writeable' (2,213) ----------------------------------------
def test_flags_have_no_writeable(x):
    assert x.flags.c_contiguous and x.flags["C_CONTIGUOUS"]
    with pytest.raises(AttributeError):
        x.flags.writeable  # noqa: B018


# -- indices() got an unexpected keyword argument 'sparse' (372), and NumPy-only keywords -------
@pytest.mark.parametrize("call", [
    lambda x: cp.indices((2, 3), sparse=True),
    lambda x: cp.sort(x, stable=True),
    lambda x: cp.argsort(x, stable=True),
    lambda x: cp.unique(x, sorted=True),
    lambda x: cp.sum(x, where=x > 1),
    lambda x: cp.add(x, 1, where=x > 1),
    lambda x: x.sum(where=x > 1),
    lambda x: x.astype(np.float32, device="cpu"),
], ids=["indices_sparse", "sort_stable", "argsort_stable", "unique_sorted", "sum_where",
        "ufunc_where", "method_where", "astype_device"])
def test_numpy_only_keywords_are_refused(x, call):
    with pytest.raises(TypeError):
        call(x)


# -- maximum/minimum.accumulate and reduceat are not supported on the GPU -----------------------
@pytest.mark.parametrize("call", [
    lambda x: cp.maximum.accumulate(x, axis=1),
    lambda x: cp.minimum.accumulate(x, axis=0),
    lambda x: cp.maximum.reduceat(x, cp.asarray([0, 1]), axis=1),
    lambda x: cp.minimum.reduceat(x, cp.asarray([0, 1]), axis=1),
    lambda x: cp.multiply.reduceat(x, cp.asarray([0, 1]), axis=1),
    lambda x: cp.maximum.reduce(x, axis=0),
    lambda x: cp.logical_or.reduce(x > 1, axis=0),
    lambda x: np.maximum.accumulate(x, axis=1),  # NumPy's dispatch reaches CuPy's method
    lambda x: cp.multiply.at(x, cp.asarray([0]), 2.0),
], ids=["max_acc", "min_acc", "max_reduceat", "min_reduceat", "mul_reduceat", "max_reduce",
        "or_reduce", "np_dispatch", "mul_at"])
def test_unsupported_ufunc_methods_raise(x, call):
    with pytest.raises(NotImplementedError, match="is not supported yet"):
        call(x)


def test_supported_ufunc_methods_work(x):
    np.testing.assert_array_equal(cp.add.accumulate(x, axis=1).get(), np.cumsum(x.get(), 1))
    np.testing.assert_array_equal(cp.add.reduceat(x, cp.asarray([0, 2]), axis=1).get(),
                                  np.add.reduceat(x.get(), [0, 2], axis=1))
    y = cp.zeros(3)
    cp.add.at(y, cp.asarray([0, 0, 2]), 1.0)
    cp.maximum.at(y, cp.asarray([1]), 5.0)
    np.testing.assert_array_equal(y.get(), [2.0, 5.0, 1.0])


# -- implicit NumPy conversion of device data (~180) --------------------------------------------
@pytest.mark.parametrize("call", [
    np.asarray, np.ascontiguousarray, np.array, lambda x: np.histogram(x, np.linspace(0, 5, 4)),
    lambda x: np.float64(x), lambda x: x.get() + x, lambda x: np.frombuffer(x),
    lambda x: np.concatenate([x, np.ones((1, 3))]), lambda x: np.add(x, np.ones(3)),
], ids=["asarray", "ascontiguousarray", "array", "histogram_host_bins", "np_scalar", "mixed_op",
        "frombuffer", "concatenate_mixed", "ufunc_mixed"])
def test_device_data_refuses_numpy(x, call):
    with pytest.raises(TypeError):
        call(x)


# -- mixing device arrays with host arrays in CuPy calls ----------------------------------------
@pytest.mark.parametrize("call", [
    lambda x: x + np.ones(3), lambda x: np.ones(3) * x, lambda x: cp.where(x > 1, x, np.zeros(3)),
    lambda x: cp.concatenate([x, np.ones((1, 3))]), lambda x: cp.matmul(x, np.ones((3, 2))),
    lambda x: cp.maximum(x, np.zeros(3)), lambda x: cp.take_along_axis(x, np.zeros((2, 1),
                                                                                   int), 1),
    lambda x: x.dot(np.ones(3)), lambda x: cp.add(x, 1, out=np.empty((2, 3))),
], ids=["add", "rmul", "where", "concatenate", "matmul", "maximum", "take_along_axis", "dot",
        "host_out"])
def test_host_arrays_do_not_mix(x, call):
    with pytest.raises(TypeError):
        call(x)


# -- NumPy scalars where CuPy needs arrays (~70) -------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: cp.all(np.int64(4)), lambda: cp.broadcast_to(np.float32(1), (3,)),
    lambda: cp.cumsum(np.float64(1.0)), lambda: cp.sort(np.float32(2)),
    lambda: cp.reshape(np.float64(1), (1,)), lambda: cp.any(3),
], ids=["all", "broadcast_to", "cumsum", "sort", "reshape", "any_python"])
def test_scalars_are_not_arrays(call):
    with pytest.raises(TypeError):
        call()


def test_results_are_zero_d_arrays_never_numpy_scalars(x):
    for r in (x.sum(), cp.sum(x), x[0, 1], cp.max(x), x.mean(axis=None), cp.exp(1.0)):
        assert type(r) is cp.ndarray and r.shape == ()


# -- names NumPy has and CuPy lacks ---------------------------------------------------------------
@pytest.mark.parametrize("name", ["errstate", "seterr", "spacing", "insert", "nditer",
                                  "object_", "longdouble", "nanquantile", "block"])
def test_numpy_only_names_are_missing(name):
    assert hasattr(np, name)
    with pytest.raises(AttributeError):
        getattr(cp, name)


def test_the_names_are_cupys(x):
    assert len(NAMES["cupy"]) > 450 and NAMES["cupy_version"].startswith("14.")
    for n, info in NAMES["cupy"].items():
        if info["kind"] in ("function", "ufunc"):
            assert callable(getattr(cp, n)), n
    missing = [n for n in dir(np) if not n.startswith("_") and n not in NAMES["cupy"]]
    assert all(not hasattr(cp, n) for n in missing)
    assert not hasattr(x, "__index__") and not hasattr(x, "itemset")


def test_no_index_protocol_and_unsupported_dtypes(x):
    with pytest.raises(TypeError):
        range(cp.asarray(3))
    with pytest.raises(TypeError):
        [1, 2, 3][cp.asarray(1)]
    for bad in (np.array(["a"]), np.array([None], dtype=object), np.zeros(2, np.longdouble)):
        with pytest.raises(ValueError, match="Unsupported dtype"):
            cp.asarray(bad)


# -- host synchronisations are counted ------------------------------------------------------------
def test_host_syncs_are_counted(x):
    standin.reset_stats()
    y = x * 2 + 1
    assert standin.STATS["sync"] == 0
    float(y[0, 0])
    bool(y.any())
    y.sum().item()
    y.get()
    assert standin.STATS["sync"] == 4


# -- what CuPy allows works ------------------------------------------------------------------------
def test_what_cupy_allows(x):
    assert float(cp.exp(x)[1, 1]) == pytest.approx(np.exp(4.0))
    assert np.exp(x).__class__ is cp.ndarray  # NumPy ufuncs dispatch to CuPy's
    assert (x + np.float32(1)).dtype == np.float64 and (x + 1).dtype == np.float64
    np.testing.assert_array_equal(x[np.array([1, 0])].get(), x.get()[[1, 0]])  # host indices
    y = x.copy()
    y[np.array([0])] = np.array([[9.0, 9.0, 9.0]])
    assert y.get()[0, 0] == 9.0
    v = x[:, 1:]
    assert v.base is x and not v.flags.owndata
    assert cp.asnumpy(x).__class__ is np.ndarray
    assert cp.get_array_module(x) is cp and cp.get_array_module(np.ones(1)) is np
    with cp.cuda.Device(0):
        assert x.device.id == 0
    with pytest.raises(Exception):
        cp.cuda.Device(1).use()


def test_pinned_memory_and_streams():
    h = cupyx.empty_pinned((4, 2), dtype=np.float32)
    assert type(h) is np.ndarray and isinstance(h.base, cp.cuda.PinnedMemoryPointer)
    s = cp.cuda.Stream(non_blocking=True)
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null
    with s:
        assert cp.cuda.get_current_stream() is s
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null


def test_memory_pool_follows_live_arrays():
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    y = cp.empty(1 << 20, dtype=np.float32)
    assert pool.used_bytes() - before == 4 << 20
    del y
    assert pool.used_bytes() == before


def test_generator_state_is_device_data():
    g = cp.random.Generator(cp.random.XORWOW(3))
    state = g.bit_generator._state.copy()
    a = g.random(5)
    g.bit_generator._state[...] = state
    np.testing.assert_array_equal(g.random(5).get(), a.get())
    assert not hasattr(g, "normal") and not hasattr(g, "permutation")
    with pytest.raises(TypeError):
        g.random(3, dtype=np.int32)


def test_kernels_need_a_reference_and_use_every_parameter():
    with pytest.raises(ValueError, match="not used"):
        cp.ElementwiseKernel("T x, T y", "T z", "z = x * 2", "standin_unused_param")
    k = cp.ElementwiseKernel("T x", "T z", "z = x * 2", "standin_without_reference")
    with pytest.raises(NotImplementedError, match="no NumPy reference"):
        k(cp.ones(3))


# -- numtorch's own checks fail when an op reintroduces one of the bug classes ---------------------
def _broken_helpers():
    """Helper versions written as the first CUDA path was: NumPy spellings on device data."""
    return {
        "accumulate": lambda name, a, axis: getattr(cp, name).accumulate(a, axis=axis),
        "open_grids": lambda shape: cp.indices(shape, sparse=True),
        "scatter_add": lambda target, index, values: np.add.at(np.asarray(target), index,
                                                               values),
        "reduceat": lambda name, a, starts, axis=0: getattr(cp, name).reduceat(a, starts, axis),
        "ufunc_at": lambda name, target, index, values: getattr(cp, name).at(target, index,
                                                                            values),
    }


@pytest.mark.parametrize("helper, call", [
    ("accumulate", lambda t, x: t.cummax(x, 1).values),
    ("open_grids", lambda t, x: t.nn.functional.nll_loss(x.reshape(1, 2, 3),
                                                         t.zeros(1, 3, dtype=t.int64))),
    ("scatter_add", lambda t, x: x.scatter_add(1, t.zeros(2, 2, dtype=t.int64), x)),
    ("reduceat", lambda t, x: t.nn.functional.embedding_bag(t.tensor([0, 1, 1]), x,
                                                            t.tensor([0, 2]), mode="max")),
    ("ufunc_at", lambda t, x: x.scatter_reduce(1, t.zeros(2, 2, dtype=t.int64), x, "prod")),
])
def test_op_checks_catch_a_broken_device_path(helper, call, monkeypatch):
    """The oracle run on the stand-in passes with the real helpers and fails (with CuPy's
    errors) when a helper is swapped for its NumPy-style spelling."""
    from numtorch.backend import _cupy
    from tests.oracle import check_op

    import numtorch

    with standin.active():
        numtorch.set_default_device("cuda")
        try:
            check_op(call, [(2, 3)], grad=False, device="cuda")
            monkeypatch.setattr(_cupy, helper, _broken_helpers()[helper])
            with pytest.raises((TypeError, AttributeError, NotImplementedError)):
                check_op(call, [(2, 3)], grad=False, device="cuda")
        finally:
            numtorch.set_default_device(None)
