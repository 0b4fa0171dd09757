"""Reductions against torch: values, dtypes, shapes, gradients and second-order gradients.

Every case runs one lambda on numtorch and on torch through ``tests/oracle.py``.
"""

import warnings

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
SHAPES = [(), (5,), (3, 4), (2, 3, 4), (0, 3)]
INF = float("inf")


def _dim_cases(shape):
    """dim arguments worth testing for ``shape``: None, ints, negative ints and tuples."""
    n = len(shape)
    if n == 0:
        return [None, 0, -1]
    if n == 1:
        return [None, 0, -1, (0,)]
    if n == 2:
        return [None, 0, 1, -1, (0, 1), (1, 0)]
    return [None, 0, -2, (0, 2), (-1, 0), (0, 1, 2)]


def _int_dims(shape):
    """Single-int dims (for ops that take one dim), including a negative one."""
    return [0, -1] if len(shape) <= 1 else list(range(len(shape))) + [-1]


def _cases(dims_of=_dim_cases, shapes=SHAPES):
    return [(s, d) for s in shapes for d in dims_of(s)]


def _nonempty_dims(shape, dims):
    """True if no reduced dim has size 0 (needed by max-like reductions)."""
    if dims is None:
        return 0 not in shape
    dims = (dims,) if isinstance(dims, int) else dims
    return all(shape[d] != 0 for d in dims) if shape else True


def _call(t, fn, x, dim, **kw):
    """``fn(x, dim, **kw)``, leaving ``dim`` out when it is None (torch overloads need that)."""
    f = getattr(t, fn)
    return f(x, **kw) if dim is None else f(x, dim, **kw)


def _quiet(fn):
    """Wrap ``fn`` so the 'degrees of freedom <= 0' warning of both libraries stays quiet."""
    def wrapped(t, *xs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(t, *xs)
    return wrapped


# ---------------------------------------------------------------------------------------------
# sum / mean


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases())
def test_sum_matches_torch(shape, dim, keepdim, dtype):
    if dim is None:
        check_op(lambda t, x: t.sum(x), [shape], dtype=dtype)
    else:
        check_op(lambda t, x: t.sum(x, dim, keepdim=keepdim), [shape], dtype=dtype)
        check_op(lambda t, x: x.sum(dim=dim, keepdim=keepdim), [shape], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases())
def test_mean_matches_torch(shape, dim, keepdim, dtype):
    if dim is None:
        check_op(lambda t, x: x.mean(), [shape], dtype=dtype)
    else:
        check_op(lambda t, x: t.mean(x, dim, keepdim), [shape], dtype=dtype)


def test_sum_empty_dim_list_reduces_everything():
    check_op(lambda t, x: t.sum(x, []), [(3, 4)])
    check_op(lambda t, x: t.sum(x, (), keepdim=True), [(3, 4)])


@pytest.mark.parametrize("fn", ["sum", "mean"])
def test_sum_mean_dtype_argument(fn):
    check_op(lambda t, x: getattr(x, fn)(dtype=t.float64), [(3, 4)], dtype="float32")
    check_op(lambda t, x: getattr(t, fn)(x, 1, dtype=t.float32), [(3, 4)])


@pytest.mark.parametrize("np_dtype", ["int32", "int64", "uint8", "bool", "int8"])
@pytest.mark.parametrize("dim", [None, 0, (0, 1)])
def test_sum_of_ints_and_bools_is_int64(np_dtype, dim):
    x = np.random.default_rng(0).integers(0, 5, (3, 4)).astype(np_dtype)
    check_op(lambda t, a: _call(t, "sum", a, dim), [x])


def test_sum_of_ints_with_float_dtype():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    check_op(lambda t, a: a.sum(1, dtype=t.float32), [x])
    check_op(lambda t, a: t.mean(a, 0, dtype=t.float64), [x])


def test_sum_noncontiguous_and_large_float32():
    check_op(lambda t, x: x.sum(0), [(5, 7)], non_contiguous=True)
    check_op(lambda t, x: x.mean((0, 2)), [(64, 33, 17)], dtype="float32")


# ---------------------------------------------------------------------------------------------
# prod


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases(lambda s: [None] + _int_dims(s)))
def test_prod_matches_torch(shape, dim, keepdim, dtype):
    if dim is None:
        check_op(lambda t, x: t.prod(x), [shape], dtype=dtype, low=0.5, high=1.5)
    else:
        check_op(lambda t, x: t.prod(x, dim, keepdim), [shape], dtype=dtype, low=-1.5,
                 high=1.5)


def _with_zeros(n_zeros, shape=(3, 4), seed=1):
    x = np.random.default_rng(seed).uniform(0.5, 1.5, shape)
    x[1, 0] = 0.0
    if n_zeros >= 2:
        x[1, 2] = 0.0
    if n_zeros >= 3:
        x[0, 3] = 0.0
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_zeros", [1, 2, 3])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_prod_with_zeros_matches_torch(n_zeros, dim, dtype):
    x = _with_zeros(n_zeros).astype(dtype)
    check_op(lambda t, a: _call(t, "prod", a, dim), [x], dtype=dtype)


def test_prod_with_zeros_3d_and_keepdim():
    x = np.random.default_rng(2).uniform(0.5, 1.5, (2, 3, 4))
    x[0, 1, 2] = 0.0
    x[1, :, 3] = 0.0
    for d in (0, 1, 2):
        check_op(lambda t, a: a.prod(d, keepdim=True), [x])


@pytest.mark.parametrize("np_dtype", ["int32", "bool"])
def test_prod_of_ints_is_int64(np_dtype):
    x = np.random.default_rng(0).integers(0, 3, (3, 4)).astype(np_dtype)
    check_op(lambda t, a: a.prod(), [x])
    check_op(lambda t, a: a.prod(1), [x])
    check_op(lambda t, a: a.prod(0, dtype=t.float64), [x])


# ---------------------------------------------------------------------------------------------
# amax / amin / max / min


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["amax", "amin"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases())
def test_amax_amin_matches_torch(shape, dim, keepdim, fn, dtype):
    if not _nonempty_dims(shape, dim):
        check_raises(lambda t, x: _call(t, fn, x, dim, keepdim=keepdim), [np.zeros(shape)])
        return
    if dim is None:
        check_op(lambda t, x: getattr(x, fn)(), [shape], dtype=dtype)
    else:
        check_op(lambda t, x: getattr(t, fn)(x, dim, keepdim), [shape], dtype=dtype)


TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 2.0], [-4.0, 0.5, -4.0, 0.5]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["amax", "amin"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_amax_amin_ties_split_gradient_evenly(fn, dim, dtype):
    check_op(lambda t, x: _call(t, fn, x, dim), [TIES.astype(dtype)], dtype=dtype)


@pytest.mark.parametrize("fn", ["max", "min"])
def test_full_max_min_ties_split_gradient_evenly(fn):
    check_op(lambda t, x: getattr(t, fn)(x), [TIES])
    check_op(lambda t, x: getattr(x, fn)(), [np.full((2, 3), 1.5)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases(_int_dims))
def test_max_min_dim_matches_torch(shape, dim, keepdim, fn, dtype):
    if not _nonempty_dims(shape, dim):
        check_raises(lambda t, x: getattr(t, fn)(x, dim, keepdim), [np.zeros(shape)])
        return
    check_op(lambda t, x: tuple(getattr(t, fn)(x, dim, keepdim)), [shape], dtype=dtype)
    check_op(lambda t, x: getattr(x, fn)(dim=dim, keepdim=keepdim).values, [shape],
             dtype=dtype)
    check_op(lambda t, x: getattr(x, fn)(dim, keepdim).indices, [shape], dtype=dtype)


@pytest.mark.parametrize("fn", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1])
def test_max_min_dim_ties_send_gradient_to_chosen_index(fn, dim):
    check_op(lambda t, x: tuple(getattr(t, fn)(x, dim)), [TIES])
    check_op(lambda t, x: getattr(x, fn)(dim, True)[0] * 2, [TIES])


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_full_of_scalar_and_vector(fn):
    for shape in [(), (5,), (2, 3, 4)]:
        check_op(lambda t, x: getattr(t, fn)(x), [shape])


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_nan_wins(fn):
    x = np.array([[1.0, np.nan, 3.0], [0.5, 2.0, -1.0]])
    check_op(lambda t, a: tuple(getattr(t, fn)(a, 1)), [x], grad=False)
    check_op(lambda t, a: getattr(t, fn)(a), [x], grad=False)
    check_op(lambda t, a: getattr(t, "a" + fn)(a, 1), [x], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_binary_elementwise(fn, dtype):
    check_op(lambda t, a, b: getattr(t, fn)(a, b), [(3, 4), (3, 4)], dtype=dtype)
    check_op(lambda t, a, b: getattr(t, fn)(a, b), [(3, 1), (1, 4)], dtype=dtype)
    check_op(lambda t, a, b: getattr(a, fn)(b), [(3, 4), (4,)], dtype=dtype)
    check_op(lambda t, a, b: getattr(t, fn)(a, other=b), [(2, 3), (2, 3)], dtype=dtype)


@pytest.mark.parametrize("np_dtype", ["int32", "int64", "bool", "uint8"])
def test_max_min_amax_of_ints_keep_dtype(np_dtype):
    x = np.random.default_rng(3).integers(0, 4, (3, 4)).astype(np_dtype)
    for fn in ["max", "min", "amax", "amin"]:
        check_op(lambda t, a: getattr(t, fn)(a), [x])
        check_op(lambda t, a: tuple(getattr(t, fn)(a, 1)) if fn in ("max", "min")
                 else getattr(t, fn)(a, 1), [x])


# ---------------------------------------------------------------------------------------------
# argmax / argmin


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases(lambda s: [None] + _int_dims(s)))
def test_argmax_argmin_matches_torch(shape, dim, keepdim, fn):
    if not _nonempty_dims(shape, dim):
        check_raises(lambda t, x: getattr(t, fn)(x, dim, keepdim), [np.zeros(shape)])
        return
    check_op(lambda t, x: getattr(t, fn)(x, dim, keepdim), [shape])
    check_op(lambda t, x: getattr(x, fn)(dim=dim, keepdim=keepdim), [shape], dtype="float32")


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_argmin_ties_and_ints(fn):
    check_op(lambda t, x: getattr(t, fn)(x), [TIES])
    check_op(lambda t, x: getattr(t, fn)(x, 1), [TIES])
    check_op(lambda t, x: getattr(t, fn)(x, 0), [TIES.astype(np.int32)])
    check_op(lambda t, x: getattr(t, fn)(x), [np.array([[1.0, np.nan], [np.nan, 0.0]])])


# ---------------------------------------------------------------------------------------------
# var / std / var_mean / std_mean


VAR_SHAPES = [(), (5,), (3, 4), (2, 3, 4)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("unbiased", [True, False])
@pytest.mark.parametrize("shape,dim", _cases(shapes=VAR_SHAPES))
def test_var_std_unbiased_matches_torch(shape, dim, unbiased, keepdim, fn, dtype):
    if dim is None:
        check_op(_quiet(lambda t, x: getattr(x, fn)(unbiased=unbiased)), [shape], dtype=dtype)
    else:
        check_op(_quiet(lambda t, x: getattr(t, fn)(x, dim, unbiased, keepdim)), [shape],
                 dtype=dtype)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2, 0.5])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_var_std_correction_matches_torch(fn, correction, dim):
    check_op(lambda t, x: getattr(t, fn)(x, dim, correction=correction), [(4, 5)])
    check_op(lambda t, x: getattr(x, fn)(dim=dim, correction=correction, keepdim=True),
             [(4, 5)], dtype="float32")


def test_var_std_positional_forms():
    check_op(lambda t, x: x.var(0, False), [(3, 4)])
    check_op(lambda t, x: x.std(1, True, True), [(3, 4)])
    check_op(lambda t, x: x.std(unbiased=False), [(3, 4)])
    check_op(lambda t, x: x.var(False), [(3, 4)])
    check_op(lambda t, x: t.std(x, True), [(3, 4)])
    check_op(lambda t, x: t.var(x, 1), [(3, 4)])


@pytest.mark.parametrize("shape", [(0, 3), (1,), ()])
@pytest.mark.parametrize("fn", ["var", "std"])
def test_var_std_too_few_samples_match_torch(shape, fn):
    check_op(_quiet(lambda t, x: getattr(t, fn)(x)), [shape])
    if len(shape) == 2:
        check_op(_quiet(lambda t, x: getattr(t, fn)(x, 0)), [shape])
        check_op(_quiet(lambda t, x: getattr(t, fn)(x, 1)), [shape])


def test_var_warns_on_nonpositive_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom"):
        numtorch.var(numtorch.ones(1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dim", [None, 0, -1, (0, 1)])
def test_var_mean_std_mean_match_torch(fn, dim, dtype):
    check_op(lambda t, x: getattr(t, fn)(x, dim), [(3, 4)], dtype=dtype)
    check_op(lambda t, x: getattr(t, fn)(x, dim, keepdim=True, correction=0), [(3, 4)],
             dtype=dtype)
    check_op(lambda t, x: getattr(t, fn)(x, dim, False), [(3, 4)], dtype=dtype)


def test_var_mean_returns_tuple():
    x = numtorch.ones(3, 4)
    r = numtorch.var_mean(x, 1)
    assert isinstance(r, tuple) and len(r) == 2
    v, m = r
    assert tuple(v.shape) == (3,) and tuple(m.shape) == (3,)


# ---------------------------------------------------------------------------------------------
# logsumexp


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape,dim", _cases(lambda s: _dim_cases(s)[1:]))
def test_logsumexp_matches_torch(shape, dim, keepdim, dtype):
    check_op(lambda t, x: t.logsumexp(x, dim, keepdim), [shape], dtype=dtype, low=-5, high=5)


def test_logsumexp_is_stable_for_large_inputs():
    check_op(lambda t, x: x.logsumexp(1), [(3, 4)], low=500, high=800)
    check_op(lambda t, x: x.logsumexp(1), [(3, 4)], low=-800, high=-500, dtype="float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_with_infinities(dtype):
    x = np.array([[0.5, -INF, 1.0], [-INF, -INF, -INF], [2.0, -INF, -INF]], dtype=dtype)
    check_op(lambda t, a: t.logsumexp(a, 1), [x], dtype=dtype)
    check_op(lambda t, a: t.logsumexp(a, 0), [x], dtype=dtype)
    y = np.array([[0.5, INF, 1.0], [-INF, 0.0, 2.0]], dtype=dtype)
    check_op(lambda t, a: t.logsumexp(a, 1), [y], dtype=dtype, grad=False)


def test_logsumexp_of_ints_promotes_to_float():
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    check_op(lambda t, a: t.logsumexp(a, 1), [x])


# ---------------------------------------------------------------------------------------------
# norm


P_VALUES = ["fro", 1, 2, 3, INF, -INF, 0, 0.5, 1.5, -1]
# torch returns its internal ZeroTensor as the second derivative of these norms (piecewise
# linear in x), which cannot be read as an array; their second order is checked through sinh
FLAT_P = (1, INF, -INF, 0)


def _check_norm(fn, shapes, p, **kw):
    if p not in FLAT_P:
        check_op(fn, shapes, **kw)
        return
    check_op(fn, shapes, second_order=False, **kw)
    check_op(lambda t, x: fn(t, x.sinh()), shapes, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", P_VALUES)
@pytest.mark.parametrize("shape,dim", _cases(shapes=[(), (5,), (3, 4), (2, 3, 4)]))
def test_norm_matches_torch(shape, dim, p, dtype):
    keepdim = isinstance(dim, tuple)  # both ways over the cases; keepdim=True has its own test
    if p == "fro" and isinstance(dim, tuple) and len(dim) > 2:
        check_raises(lambda t, x: t.norm(x, p, dim, keepdim), [np.ones(shape)],
                     match="dim must be a 2-tuple")
        return
    _check_norm(lambda t, x: t.norm(x, p, dim, keepdim), [shape], p, dtype=dtype)


@pytest.mark.parametrize("p", P_VALUES)
def test_norm_method_and_keywords(p):
    _check_norm(lambda t, x: x.norm(p=p), [(3, 4)], p)
    _check_norm(lambda t, x: x.norm(p, dim=1, keepdim=True), [(3, 4)], p)


@pytest.mark.parametrize("p", [0.5, 1.5, -1, 3])
def test_norm_with_zero_entries(p):
    x = np.array([[0.0, 1.0, -2.0], [0.5, 0.0, 0.0]])
    check_op(lambda t, a: t.norm(a, p, 1), [x])


def test_nuclear_norm_matches_torch():
    check_op(lambda t, x: t.norm(x, "nuc"), [(3, 4)])
    check_op(lambda t, x: t.norm(x, "nuc", (0, 2), keepdim=True), [(3, 2, 4)])
    check_op(lambda t, x: x.norm(p="nuc", dim=(-1, 1)), [(2, 4, 3)], dtype="float32")
    check_raises(lambda t, x: t.norm(x, "nuc"), [np.ones((2, 3, 4))],
                 match="dim must be a 2-tuple")
    check_raises(lambda t, x: t.norm(x, "nuc"), [np.ones((2, 3), np.float16)],
                 match="Low precision dtypes not supported. Got Half")


@pytest.mark.parametrize("p", [1, 2, 3, "fro", 1.5, INF])
def test_norm_of_zero_vector_has_torch_subgradient(p):
    z = np.zeros((2, 3))
    z[1] = [0.5, -1.0, 2.0]
    _check_norm(lambda t, x: t.norm(x, p, 1), [z], p)


@pytest.mark.parametrize("p", [INF, -INF])
def test_norm_inf_ties_split_gradient(p):
    x = np.array([[1.0, -3.0, 3.0, 2.0], [-0.5, 0.5, 0.5, 1.0]])
    _check_norm(lambda t, a: t.norm(a, p, 1), [x], p)
    _check_norm(lambda t, a: t.norm(a, p), [x], p)


def test_norm_empty_and_dtype():
    check_op(lambda t, x: t.norm(x), [(0, 3)])
    check_op(lambda t, x: t.norm(x, 2, 1), [(0, 3)])
    _check_norm(lambda t, x: t.norm(x, 1, 0), [(0, 3)], 1)
    check_op(lambda t, x: t.norm(x, dtype=t.float64), [(3, 4)], dtype="float32")


# ---------------------------------------------------------------------------------------------
# cumsum / cumprod


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("shape,dim", _cases(_int_dims))
def test_cumsum_cumprod_match_torch(shape, dim, fn, dtype):
    check_op(lambda t, x: getattr(t, fn)(x, dim), [shape], dtype=dtype, low=-1.5, high=1.5)
    check_op(lambda t, x: getattr(x, fn)(dim=dim), [shape], dtype=dtype, low=0.5, high=1.5)


@pytest.mark.parametrize("n_zeros", [1, 2, 3])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_with_zeros(n_zeros, dim):
    check_op(lambda t, x: t.cumprod(x, dim), [_with_zeros(n_zeros)])
    check_op(lambda t, x: t.cumprod(x, dim), [_with_zeros(n_zeros).astype("float32")],
             dtype="float32")


def test_cumprod_with_zeros_3d():
    x = np.random.default_rng(4).uniform(0.5, 1.5, (2, 3, 4))
    x[0, 1, :2] = 0.0
    x[1, 0, 3] = 0.0
    for d in (0, 1, 2):
        check_op(lambda t, a: a.cumprod(d), [x])


@pytest.mark.parametrize("np_dtype", ["int32", "bool", "uint8", "int64"])
@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
def test_cumsum_cumprod_of_ints_are_int64(fn, np_dtype):
    x = np.random.default_rng(0).integers(0, 3, (3, 4)).astype(np_dtype)
    check_op(lambda t, a: getattr(t, fn)(a, 1), [x])
    check_op(lambda t, a: getattr(t, fn)(a, 0, dtype=t.float32), [x])


def test_cumsum_dtype_argument():
    check_op(lambda t, x: x.cumsum(0, dtype=t.float64), [(3, 4)], dtype="float32")


# ---------------------------------------------------------------------------------------------
# all / any / count_nonzero / aminmax


def _logic_inputs():
    rng = np.random.default_rng(5)
    b = rng.random((3, 4)) > 0.4
    b[0] = True
    b[2] = False
    f = np.where(b, rng.uniform(0.5, 1.0, b.shape), 0.0)
    return [b, f, f.astype(np.int32), b.astype(np.uint8), np.zeros((0, 3), bool),
            np.array(True), np.array([0.0, 1.0])]


@pytest.mark.parametrize("fn", ["all", "any"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("case", range(7))
def test_all_any_match_torch(fn, keepdim, case):
    x = _logic_inputs()[case]
    check_op(lambda t, a: getattr(t, fn)(a), [x], grad=False)
    for d in _int_dims(x.shape):
        check_op(lambda t, a: getattr(t, fn)(a, d, keepdim), [x], grad=False)
        check_op(lambda t, a: getattr(a, fn)(dim=d, keepdim=keepdim), [x], grad=False)
    if x.ndim == 2:
        check_op(lambda t, a: getattr(t, fn)(a, (0, 1), keepdim), [x], grad=False)


@pytest.mark.parametrize("case", range(7))
def test_count_nonzero_matches_torch(case):
    x = _logic_inputs()[case]
    check_op(lambda t, a: t.count_nonzero(a), [x], grad=False)
    for d in _int_dims(x.shape):
        check_op(lambda t, a: t.count_nonzero(a, d), [x], grad=False)
        check_op(lambda t, a: a.count_nonzero(dim=d), [x], grad=False)
    if x.ndim == 2:
        check_op(lambda t, a: t.count_nonzero(a, (0, 1)), [x], grad=False)
        check_op(lambda t, a: t.count_nonzero(a, (1, -2)), [x], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_aminmax_matches_torch(shape, dtype):
    check_op(lambda t, x: tuple(t.aminmax(x)), [shape], dtype=dtype)
    for d in _int_dims(shape):
        for kd in (False, True):
            check_op(lambda t, x: tuple(t.aminmax(x, dim=d, keepdim=kd)), [shape], dtype=dtype)
    check_op(lambda t, x: x.aminmax(dim=-1).max, [shape], dtype=dtype)


def test_aminmax_fields_and_empty():
    r = numtorch.aminmax(numtorch.tensor([[1.0, 5.0], [-2.0, 0.0]]), dim=1)
    assert r.__match_args__ == ("min", "max") and not hasattr(r, "_fields")  # torch's too
    assert r.min.tolist() == [1.0, -2.0] and r.max.tolist() == [5.0, 0.0]
    check_op(lambda t, x: tuple(t.aminmax(x, dim=1)), [(0, 3)])
    check_raises(lambda t, x: t.aminmax(x), [np.zeros((0, 3))])
    check_raises(lambda t, x: t.aminmax(x, dim=0), [np.zeros((0, 3))],
                 match="Expected reduction dim 0 to have non-zero size")
    check_raises(lambda t, x: t.aminmax(x, dim=(0, 1)), [np.zeros((2, 3))])
    check_raises(lambda t, x: t.aminmax(x, dim=2), [np.zeros((2, 3))],
                 match="Dimension out of range (expected to be in range of [-2, 1], but got 2)")


# ---------------------------------------------------------------------------------------------
# named tuples


def test_max_dim_returns_torch_like_named_tuple():
    x = numtorch.tensor([[1.0, 4.0, 2.0], [7.0, 0.0, 3.0]])
    r = numtorch.max(x, 1)
    assert type(r).__name__ == "max" and isinstance(r, tuple)
    assert isinstance(r, numtorch.return_types.max)
    values, indices = r
    assert values is r.values and indices is r.indices
    assert r[0] is r.values and r[1] is r.indices and r[-1] is r.indices
    assert values.tolist() == [4.0, 7.0] and indices.tolist() == [1, 0]
    assert repr(r) == f"torch.return_types.max(\nvalues={r.values!r},\nindices={r.indices!r})"
    assert str(r) == repr(r)
    m = x.min(dim=0, keepdim=True)
    assert repr(m).startswith("torch.return_types.min(\nvalues=tensor(")
    assert m.indices.tolist() == [[0, 1, 0]]
    assert len(m) == 2 and tuple(m)[0] is m.values


def test_return_types_behave_like_torch_structseqs():
    import pickle

    import torch

    a, b = numtorch.tensor([1.0, 2.0]), numtorch.tensor([0, 1])
    r = numtorch.return_types.max([a, b])  # torch's form: one sequence
    assert r.values is a and r.indices is b
    assert numtorch.return_types.max((a, b), {}) == r == (a, b)
    assert r[:1] == (a,) and r + (3,) == (a, b, 3) and list(r) == [a, b]
    assert r.n_fields == 2 and r.n_sequence_fields == 2 and r.n_unnamed_fields == 0
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is numtorch.return_types.max
    assert back.values.tolist() == [1.0, 2.0] and back.indices.tolist() == [0, 1]
    with pytest.raises(TypeError):
        numtorch.return_types.max([a])
    with pytest.raises(TypeError):
        numtorch.return_types.max(a, b, a)
    t = torch.return_types.max([torch.tensor([1.0, 2.0]), torch.tensor([0, 1])])
    assert repr(r) == repr(t)
    assert type(r).__name__ == type(t).__name__ == "max"


def test_max_min_out_argument():
    x = numtorch.tensor([[1.0, 4.0, 2.0], [7.0, 0.0, 3.0]])
    v, i = numtorch.empty(2), numtorch.empty(2, dtype=numtorch.int64)
    r = numtorch.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [4.0, 7.0] and i.tolist() == [1, 0]
    o = numtorch.empty(3)
    assert numtorch.sum(x, 0, out=o) is o and o.tolist() == [8.0, 4.0, 5.0]


def test_named_tuple_repr_matches_torch_text():
    import torch

    data = [[1.0, 4.0, 2.0], [7.0, 0.0, 3.0]]
    for fn in ("max", "min"):
        a = repr(getattr(numtorch.tensor(data), fn)(1))
        b = repr(getattr(torch.tensor(data), fn)(1))
        assert a == b
    a = repr(numtorch.aminmax(numtorch.tensor(data), dim=0))
    b = repr(torch.aminmax(torch.tensor(data), dim=0))
    assert a == b


# ---------------------------------------------------------------------------------------------
# errors


def _x(shape=(3, 4), dtype=np.float64):
    return [np.ones(shape, dtype=dtype)]


@pytest.mark.parametrize("fn", ["sum", "mean", "amax", "amin", "argmax", "argmin", "prod",
                                "logsumexp", "cumsum", "cumprod", "var", "std", "all", "any",
                                "count_nonzero", "norm"])
def test_dim_out_of_range_raises_index_error(fn):
    msg = "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    if fn == "norm":
        check_raises(lambda t, x: t.norm(x, 2, 5), _x(), match=msg)
    else:
        check_raises(lambda t, x: getattr(t, fn)(x, 5), _x(), match=msg)
    check_raises(lambda t, x: getattr(x, fn)(dim=-3), _x(),
                 match="Dimension out of range (expected to be in range of [-2, 1], but got -3)")


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_dim_out_of_range(fn):
    check_raises(lambda t, x: getattr(t, fn)(x, 5), _x(),
                 match="Dimension out of range (expected to be in range of [-2, 1], but got 5)")
    check_raises(lambda t, x: getattr(t, fn)(x, 1), _x(()),
                 match="Dimension out of range (expected to be in range of [-1, 0], but got 1)")


def test_sum_tuple_dim_out_of_range_and_repeated():
    check_raises(lambda t, x: t.sum(x, (0, 2)), _x(),
                 match="Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    check_raises(lambda t, x: t.sum(x, (1, -1)), _x(), match="appears multiple times")


@pytest.mark.parametrize("np_dtype", [np.int64, np.int32, np.bool_])
def test_mean_of_ints_raises(np_dtype):
    check_raises(lambda t, x: t.mean(x), _x(dtype=np_dtype),
                 match="mean(): could not infer output dtype")
    check_raises(lambda t, x: x.mean(0), _x(dtype=np_dtype), match="Got: ")


@pytest.mark.parametrize("fn", ["var", "std"])
def test_var_std_of_ints_raise(fn):
    check_raises(lambda t, x: getattr(t, fn)(x), _x(dtype=np.int64),
                 match="std and var only support floating point and complex dtypes")


def test_var_rejects_unbiased_and_correction_together():
    check_raises(lambda t, x: t.var(x, 0, unbiased=True, correction=1), _x())


@pytest.mark.parametrize("fn", ["max", "min", "amax", "amin"])
def test_max_of_empty_without_dim_raises(fn):
    check_raises(lambda t, x: getattr(t, fn)(x), _x((0, 3)),
                 match=f"{fn}(): Expected reduction dim to be specified for input.numel() == 0")


@pytest.mark.parametrize("fn", ["max", "min", "amax", "amin", "argmax", "argmin"])
def test_reduction_over_empty_dim_raises(fn):
    check_raises(lambda t, x: getattr(t, fn)(x, 0), _x((0, 3)),
                 match=f"{fn}(): Expected reduction dim 0 to have non-zero size.")


@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_argmax_of_empty_without_dim_raises(fn):
    check_raises(lambda t, x: getattr(t, fn)(x), _x((0, 3)),
                 match="Expected reduction dim to be specified for input.numel() == 0.")


@pytest.mark.parametrize("p", [INF, -INF])
def test_norm_inf_of_empty_raises(p):
    check_raises(lambda t, x: t.norm(x, p), _x((0, 3)), match="vector_norm cannot compute")
    check_raises(lambda t, x: t.norm(x, p, 0), _x((0, 3)), match="vector_norm cannot compute")


def test_misc_argument_errors():
    check_raises(lambda t, x: t.prod(x, (0, 1)), _x())
    check_raises(lambda t, x: t.logsumexp(x), _x())
    check_raises(lambda t, x: t.cumsum(x), _x())
    check_raises(lambda t, x: t.norm(x, "nuc", 0), _x())
    check_raises(lambda t, x: t.norm(x, p=2, dim=(0, 0)), _x())
    check_raises(lambda t, x: t.sum(x, 1.5), _x())
