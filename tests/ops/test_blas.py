"""BLAS-style products (ops/products.py) against torch: values, dtypes, gradients, second order,
beta/alpha rules, in-place forms, the deprecated positional overloads and bad input."""

import numpy as np
import pytest

from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SCALARS = [(1, 1), (0.5, 2), (0, -1.5), (2, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", SCALARS)
@pytest.mark.parametrize("in_shape", [(3, 2, 5), (2, 5), (1, 5), ()])
def test_baddbmm_matches_torch(in_shape, beta, alpha, dtype):
    check_op(lambda t, m, a, b: t.baddbmm(m, a, b, beta=beta, alpha=alpha),
             [in_shape, (3, 2, 4), (3, 4, 5)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", SCALARS)
@pytest.mark.parametrize("in_shape", [(2, 5), (5,), ()])
def test_addbmm_matches_torch(in_shape, beta, alpha, dtype):
    check_op(lambda t, m, a, b: t.addbmm(m, a, b, beta=beta, alpha=alpha),
             [in_shape, (3, 2, 4), (3, 4, 5)], dtype=dtype)
    check_op(lambda t, m, a, b: m.addbmm(a, b, beta=beta, alpha=alpha),
             [in_shape, (0, 2, 4), (0, 4, 5)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", SCALARS)
@pytest.mark.parametrize("in_shape", [(2,), (1,), ()])
def test_addmv_and_addr_match_torch(in_shape, beta, alpha, dtype):
    check_op(lambda t, v, m, x: t.addmv(v, m, x, beta=beta, alpha=alpha),
             [in_shape, (2, 3), (3,)], dtype=dtype)
    check_op(lambda t, m, x, y: t.addr(m, x, y, beta=beta, alpha=alpha),
             [in_shape + (3,) if in_shape else (), (2,), (3,)], dtype=dtype)
    check_op(lambda t, v, m, x: v.addmv(m, x, beta=beta, alpha=alpha),
             [in_shape, (2, 3), (3,)], dtype=dtype)
    check_op(lambda t, m, x, y: m.addr(x, y, beta=beta, alpha=alpha), [(2, 3), (2,), (3,)],
             dtype=dtype)


@pytest.mark.parametrize("name", ["baddbmm", "addbmm", "addmv", "addr"])
def test_beta_zero_ignores_nan_in_input(name):
    shapes = {"baddbmm": [(3, 2, 2), (3, 2, 4), (3, 4, 2)], "addbmm": [(2, 2), (3, 2, 4),
                                                                     (3, 4, 2)],
              "addmv": [(2,), (2, 3), (3,)], "addr": [(2, 3), (2,), (3,)]}[name]
    arrays = [np.full(shapes[0], np.nan)] + [np.ones(s) for s in shapes[1:]]
    check_op(lambda t, m, a, b: getattr(t, name)(m, a, b, beta=0), arrays)


@pytest.mark.parametrize("name,shapes", [
    ("baddbmm", [(3, 2, 5), (3, 2, 4), (3, 4, 5)]), ("addbmm", [(2, 5), (3, 2, 4), (3, 4, 5)]),
    ("addmv", [(2,), (2, 3), (3,)]), ("addr", [(2, 3), (2,), (3,)])])
def test_inplace_forms_match_torch(name, shapes):
    def fn(t, m, a, b):
        y = m * 1  # a non-leaf, so the in-place write is recorded
        getattr(y, name + "_")(a, b, beta=0.5, alpha=2)
        return y

    check_op(fn, shapes)


@pytest.mark.parametrize("name,shapes", [
    ("baddbmm", [(3, 2, 5), (3, 2, 4), (3, 4, 5)]), ("addbmm", [(2, 5), (3, 2, 4), (3, 4, 5)]),
    ("addmv", [(2,), (2, 3), (3,)]), ("addr", [(2, 3), (2,), (3,)])])
def test_deprecated_positional_beta_alpha(name, shapes):
    check_op(lambda t, m, a, b: getattr(t, name)(0.5, m, 2, a, b), shapes)
    check_op(lambda t, m, a, b: getattr(t, name)(0.5, m, a, b), shapes)
    check_op(lambda t, m, a, b: getattr(m, name)(0.5, 2, a, b), shapes)


def test_integer_inputs():
    rng = np.random.default_rng(0)
    i = lambda *s: rng.integers(-3, 4, s).astype(np.int64)  # noqa: E731
    check_op(lambda t, m, a, b: t.baddbmm(m, a, b, beta=2, alpha=3), [i(3, 2, 2), i(3, 2, 4),
                                                                     i(3, 4, 2)])
    check_op(lambda t, m, a, b: t.addbmm(m, a, b, beta=0.5), [i(2, 2), i(3, 2, 4), i(3, 4, 2)])
    check_op(lambda t, v, m, x: t.addmv(v, m, x, alpha=2.5), [i(2), i(2, 3), i(3)])
    check_op(lambda t, m, x, y: t.addr(m, x, y, beta=2), [i(2, 3), i(2), i(3)])
    b = np.array([True, False])
    check_op(lambda t, m, x, y: t.addr(m, x, y), [np.array([[False, True], [False, False]]), b,
                                                  b[::-1].copy()])
    # (torch's own backward fails for mixed dtypes here, so only values are compared)
    check_op(lambda t, m, x, y: t.addr(m, x, y), [i(2, 3), rng.standard_normal(2), i(3)],
             grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 3), (4, 5)), ((2, 3), (4,)),
                                   ((2, 1, 3), (3, 2)), ((), (3,)), ((0, 2), (3, 1))])
def test_kron_matches_torch(sa, sb, dtype):
    check_op(lambda t, a, b: t.kron(a, b), [sa, sb], dtype=dtype)
    check_op(lambda t, a, b: a.kron(b), [sa, sb], dtype=dtype)


def test_kron_promotes_dtypes():
    check_op(lambda t, a, b: t.kron(a, b), [np.ones((2, 2), np.int64), np.ones(3)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb,dims", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 5), 1), ((2, 3), (4, 5), 0),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (3, 4, 5), [[1], [0]]),
    ((3, 4), (4, 3), ([0, 1], [1, 0])), ((2, 3, 4), (3, 2), ([-2, 0], [0, -1]))])
def test_tensordot_matches_torch(sa, sb, dims, dtype):
    check_op(lambda t, a, b: t.tensordot(a, b, dims=dims), [sa, sb], dtype=dtype)


def test_tensordot_with_tensor_dims():
    check_op(lambda t, a, b: t.tensordot(a, b, dims=t.tensor(2)), [(2, 3, 4), (3, 4, 5)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [[(2, 3)], [(2, 3), (3, 4)], [(5, 2), (2, 6), (6, 3)],
                                    [(2, 3), (3, 8), (8, 1), (1, 4)]])
def test_chain_matmul_matches_torch(shapes, dtype):
    check_op(lambda t, *ms: t.chain_matmul(*ms), shapes, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -2])
@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (0, 2, 2)])
def test_matrix_power_matches_torch(shape, n, dtype):
    check_op(lambda t, x: t.matrix_power(x + 2 * t.eye(x.shape[-1], dtype=x.dtype), n),
             [shape], dtype=dtype)
    check_op(lambda t, x: t.linalg.matrix_power(x, n) if n >= 0 else x, [shape], dtype=dtype)
    check_op(lambda t, x: x.matrix_power(abs(n)), [shape], dtype=dtype, low=-1, high=1)


def test_matrix_power_of_integers_and_identity_with_nan():
    check_op(lambda t, x: t.linalg.matrix_power(x, 3), [np.arange(9).reshape(3, 3)])
    check_op(lambda t, x: t.matrix_power(x, 0), [np.full((2, 2), np.nan)])


def test_cartesian_prod_matches_torch():
    check_op(lambda t, a, b: t.cartesian_prod(a, b), [(2,), (3,)])
    check_op(lambda t, a, b, c: t.cartesian_prod(a, b, c), [(2,), (3,), (2,)])
    check_op(lambda t, a: t.cartesian_prod(a), [(4,)])
    check_op(lambda t, a, b: t.cartesian_prod(a, b), [np.arange(3), np.arange(2)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_matches_torch(dtype):
    check_op(lambda t, a, b: t.cross(a, b, dim=0), [(3, 2), (3, 2)], dtype=dtype)
    check_op(lambda t, a, b: t.cross(a, b), [(2, 3, 3), (1, 3, 3)], dtype=dtype)
    check_op(lambda t, a, b: a.cross(b), [(4, 3), (4, 3)], dtype=dtype)
    check_op(lambda t, a, b: t.cross(a, b, dim=-1), [(4, 3), (1, 3)], dtype=dtype)


BAD = [
    (lambda t, m, a, b: t.baddbmm(m, a, b), [(3, 2, 2), (3, 2, 4), (2, 4, 2)],
     "Expected size for first two dimensions of batch2 tensor"),
    (lambda t, m, a, b: t.baddbmm(m, a, b), [(4, 2, 2), (3, 2, 4), (3, 4, 2)],
     "The expanded size of the tensor"),
    (lambda t, m, a, b: t.baddbmm(m, a, b), [(3, 2, 2), (2, 4), (3, 4, 2)], None),
    (lambda t, m, a, b: t.addbmm(m, a, b), [(2, 2), (3, 2, 4), (2, 4, 2)],
     "batch1 and batch2 must have same number of batches, got 3 and 2"),
    (lambda t, m, a, b: t.addbmm(m, a, b), [(2, 2), (3, 2, 4), (3, 5, 2)],
     "Incompatible matrix sizes for bmm (2x4 and 5x2)"),
    (lambda t, m, a, b: t.addbmm(m, a, b), [(3,), (3, 2, 4), (3, 4, 2)],
     "The expanded size of the tensor"),
    (lambda t, v, m, x: t.addmv(v, m, x), [(3,), (2, 3), (3,)],
     "size mismatch, got input (3), mat (2x3), vec (3)"),
    (lambda t, v, m, x: t.addmv(v, m, x), [(2,), (2, 3), (4,)], "size mismatch"),
    (lambda t, v, m, x: t.addmv(v, m, x), [(2,), (2, 3, 1), (3,)],
     "vector + matrix @ vector expected, got 1, 3, 1"),
    (lambda t, m, x, y: t.addr(m, x, y), [(2, 3), (2, 1), (3,)],
     "addr: Expected 1-D argument vec1, but got 2-D"),
    (lambda t, m, x, y: t.addr(m, x, y), [(3, 3), (2,), (3,)], "The expanded size"),
    (lambda t, a, b: t.tensordot(a, b, dims=2), [(2, 3, 4), (4, 3, 5)],
     "contracted dimensions need to match"),
    (lambda t, a, b: t.tensordot(a, b, dims=([1], [1])), [(2, 3, 4), (3, 4, 5)],
     "but first has size 3 in dim 1 and second has size 4 in dim 1"),
    (lambda t, a, b: t.tensordot(a, b, dims=-1), [(2, 3), (3, 2)],
     "tensordot expects dims >= 0, but got dims=-1"),
    (lambda t, a, b: t.chain_matmul(a, b), [(2, 3), (4, 3)], "cannot be multiplied"),
    (lambda t, a, b: t.chain_matmul(a, b), [(3, 3), (3,)],
     "Tensor dimension is 1, expected 2 instead."),
    (lambda t, a: t.matrix_power(a, 2), [(3,)], "must have at least 2 dimensions"),
    (lambda t, a: t.matrix_power(a, 2), [(2, 3)], "2 by 3 matrices"),
    (lambda t, a: t.linalg.matrix_power(a, 2.0), [(2, 2)], "must be int, not float"),
    (lambda t, a: t.linalg.matrix_power(a, -1), [np.array([[1., 2.], [2., 4.]])],
     "The diagonal element 2 is zero"),
    (lambda t, a: t.cartesian_prod(a, a), [(2, 2)], "Expect a 1D vector, but got shape [2, 2]"),
    (lambda t, a, b: t.cross(a, b), [(2, 4), (2, 4)], "no dimension of size 3 in input"),
    (lambda t, a, b: t.cross(a, b, dim=0), [(3, 4), (1, 4)],
     "linalg.cross: inputs dimension 0 must have length 3. Got 3 and 1"),
]


@pytest.mark.parametrize("fn,shapes,match", BAD)
def test_bad_input_raises_like_torch(fn, shapes, match):
    arrays = [s if isinstance(s, np.ndarray) else np.ones(s) for s in shapes]
    check_raises(fn, arrays, match=match)


@pytest.mark.parametrize("fn,arrays,match", [
    (lambda t, m, a, b: t.addbmm(m, a, b), [np.ones((2, 2)), np.ones((3, 2, 4)),
                                            np.ones((3, 4, 2), np.float32)],
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda t, m, a, b: t.baddbmm(m, a, b), [np.ones((3, 2, 2)), np.ones((3, 2, 4), np.float32),
                                             np.ones((3, 4, 2), np.float32)],
     "Input dtypes must be the same, got: input double, batch1: float, batch2: float"),
    (lambda t, v, m, x: t.addmv(v, m, x), [np.ones(2, np.float32), np.ones((2, 3), np.float32),
                                           np.ones(3)],
     "addmv input tensors must have the same dtype, but got Float, Float, and Double"),
    (lambda t, m, x, y: t.addr(m, x, y, beta=0.5), [np.ones((2, 3), np.int64),
                                                    np.ones(2, np.int64), np.ones(3, np.int64)],
     "For integral input tensors, argument beta must not be a floating point number."),
    (lambda t, v, m, x: t.addmv(v, m, x), [np.ones(2, bool), np.ones((2, 3), bool),
                                           np.ones(3, bool)], "not implemented for 'Bool'"),
    (lambda t, a, b: t.tensordot(a, b, dims=1), [np.ones((2, 3)), np.ones((3, 2), np.float32)],
     "both inputs should have same dtype"),
    (lambda t, a, b: t.cross(a, b, dim=0), [np.ones((3, 2)), np.ones((3, 2), np.float32)],
     "expected scalar type Double but found Float"),
])
def test_dtype_errors_like_torch(fn, arrays, match):
    check_raises(fn, arrays, match=match)
