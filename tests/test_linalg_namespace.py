"""``numtorch.linalg`` against ``torch.linalg``: the namespace itself, norms, cond, matrix_rank,
multi_dot, cross, vecdot, vander, diagonal, tensorinv/tensorsolve, the ``_ex`` variants and
their errors. (The factorizations and solvers are tested in tests/ops/test_decomp.py.)"""

import math

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# torch.linalg's public names that numtorch implements (ldl_* are not implemented)
NAMES = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
         "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu",
         "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
         "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
         "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve",
         "vander", "vecdot", "vector_norm"]


def test_namespace_has_torch_names_with_docstrings():
    for name in NAMES:
        assert hasattr(torch.linalg, name), name
        obj = getattr(numtorch.linalg, name)
        assert obj.__doc__, name
        # torch's are builtins named with the namespace: print(fn.__name__) shows linalg_det
        assert obj.__name__ == getattr(torch.linalg, name).__name__, name
    assert (numtorch.linalg.matmul is numtorch.matmul) == (torch.linalg.matmul is torch.matmul)
    assert numtorch.matmul.__name__ == torch.matmul.__name__
    assert issubclass(numtorch.linalg.LinAlgError, RuntimeError)
    import numtorch.linalg as la  # the module imports under torch's path

    assert la is numtorch.linalg


def test_result_types_print_like_torch():
    a = np.eye(2)
    for fn in (lambda t, x: t.linalg.slogdet(x), lambda t, x: t.linalg.qr(x),
               lambda t, x: t.linalg.eigh(x), lambda t, x: t.linalg.lu_factor(x),
               lambda t, x: t.linalg.inv_ex(x), lambda t, x: t.linalg.cholesky_ex(x),
               lambda t, x: t.linalg.lstsq(x, x), lambda t, x: t.linalg.lu(x),
               lambda t, x: t.linalg.solve_ex(x, x)):
        got = fn(numtorch, numtorch.from_numpy(a.copy()))
        ref = fn(torch, torch.from_numpy(a.copy()))
        assert type(got).__name__ == type(ref).__name__
        assert got._fields == tuple(ref._fields) if hasattr(ref, "_fields") else True
        assert repr(got).splitlines()[0] == repr(ref).splitlines()[0]


# -- norms ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf, 0, -1])
@pytest.mark.parametrize("shape,dim", [((5,), None), ((3, 4), None), ((3, 4), 1),
                                       ((2, 3, 4), (0, 2)), ((2, 3), -1)])
def test_vector_norm_matches_torch(shape, dim, ord, dtype):
    check_op(lambda t, x: t.linalg.vector_norm(x, ord, dim), [shape], dtype=dtype, low=0.1,
             high=2, second_order=ord not in (math.inf, -math.inf))
    check_op(lambda t, x: t.linalg.vector_norm(-x, ord, dim, keepdim=True), [shape],
             dtype=dtype, low=0.1, high=2, second_order=False)


def test_vector_norm_dtype_argument():
    check_op(lambda t, x: t.linalg.vector_norm(x, dtype=t.float64), [(3, 4)], dtype="float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("shape,dim", [((3, 4), (-2, -1)), ((2, 3, 3), (-2, -1)),
                                       ((3, 2, 4), (0, 2)), ((3, 2, 4), (2, 0))])
def test_matrix_norm_matches_torch(shape, dim, ord, dtype):
    check_op(lambda t, x: t.linalg.matrix_norm(x, ord, dim), [shape], dtype=dtype)
    check_op(lambda t, x: t.linalg.matrix_norm(x, ord, dim, keepdim=True), [shape],
             dtype=dtype, second_order=False)


@pytest.mark.parametrize("args", [dict(), dict(ord=2), dict(ord="fro"), dict(ord="nuc"),
                                  dict(ord=math.inf), dict(dim=1), dict(dim=(0, 1)),
                                  dict(ord=3, dim=0), dict(ord=1, dim=(1, 0), keepdim=True)])
def test_norm_dispatches_like_torch(args):
    check_op(lambda t, x: t.linalg.norm(x, **args), [(3, 4)])


def test_norm_of_vectors_and_batches():
    check_op(lambda t, x: t.linalg.norm(x, 3), [(5,)])
    check_op(lambda t, x: t.linalg.norm(x), [(2, 3, 4)])
    check_op(lambda t, x: t.linalg.norm(x, "fro", dim=(1, 2)), [(2, 3, 4)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_matches_torch(p, dtype):
    # torch's own backward fails for these orders (it writes into a tensor it saved)
    grad = p in (None, 2, -2, "nuc")
    check_op(lambda t, x: t.linalg.cond(x + 3 * t.eye(3, dtype=x.dtype), p), [(2, 3, 3)],
             dtype=dtype, grad=grad)


def test_cond_of_rectangular_and_singular_matrices():
    check_op(lambda t, x: t.linalg.cond(x), [(3, 5)])
    check_op(lambda t, x: t.linalg.cond(x, 1), [np.array([[1., 2.], [2., 4.]])], grad=False)
    check_op(lambda t, x: t.linalg.cond(x), [np.zeros((2, 2))], grad=False)


# -- rank, products, misc -------------------------------------------------------------------------

RANK_INPUTS = [np.outer([1., 2., 3.], [1., -1., 2.]), np.eye(3, 4) * [1., 1e-3, 1e-9, 0],
               np.random.default_rng(0).standard_normal((2, 4, 3))]


@pytest.mark.parametrize("a", RANK_INPUTS)
@pytest.mark.parametrize("kwargs", [dict(), dict(atol=1e-2), dict(rtol=1e-2),
                                    dict(atol=0.5, rtol=0.1), dict(tol=1e-2)])
def test_matrix_rank_matches_torch(a, kwargs):
    check_op(lambda t, x: t.linalg.matrix_rank(x, **kwargs), [a], grad=False)
    check_op(lambda t, x: t.linalg.matrix_rank(x @ x.mT, hermitian=True, **kwargs), [a],
             grad=False)
    check_op(lambda t, x: t.linalg.matrix_rank(x.float(), **kwargs), [a], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (3, 4)], [(3,), (3, 4), (4,)],
                                    [(5, 2), (2, 6), (6, 3), (3,)],
                                    [(2, 3), (3, 8), (8, 1), (1, 4)], [(4,), (4, 2)]])
def test_multi_dot_matches_torch(shapes, dtype):
    check_op(lambda t, *ms: t.linalg.multi_dot(ms), shapes, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb,dim", [((3,), (3,), -1), ((4, 3), (4, 3), -1),
                                       ((4, 3), (1, 3), -1), ((3, 2), (3, 2), 0),
                                       ((2, 3, 5), (2, 3, 1), 1)])
def test_cross_matches_torch(sa, sb, dim, dtype):
    check_op(lambda t, a, b: t.linalg.cross(a, b, dim=dim), [sa, sb], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb,dim", [((3,), (3,), -1), ((2, 3), (3,), -1),
                                       ((2, 3), (2, 1), 0), ((2, 1, 3), (4, 3), -1)])
def test_vecdot_matches_torch(sa, sb, dim, dtype):
    check_op(lambda t, a, b: t.linalg.vecdot(a, b, dim=dim), [sa, sb], dtype=dtype)


def test_vander_matches_torch():
    check_op(lambda t, x: t.linalg.vander(x), [(3,)])
    check_op(lambda t, x: t.linalg.vander(x, N=5), [(2, 3)])
    check_op(lambda t, x: t.linalg.vander(x, N=2), [np.array([1, 2, 3])])


@pytest.mark.parametrize("kwargs", [dict(), dict(offset=1), dict(offset=-2),
                                    dict(dim1=0, dim2=2), dict(offset=1, dim1=2, dim2=0)])
def test_diagonal_matches_torch(kwargs):
    check_op(lambda t, x: t.linalg.diagonal(x, **kwargs), [(3, 4, 5)])


def test_tensorinv_and_tensorsolve_match_torch():
    check_op(lambda t, x: t.linalg.tensorinv(x.reshape(4, 2, 2) + t.eye(4, dtype=x.dtype)
                                             .reshape(4, 2, 2) * 3, ind=1), [(4, 4)])
    check_op(lambda t, x: t.linalg.tensorinv((x + t.eye(6, dtype=x.dtype) * 3)
                                             .reshape(2, 3, 6), ind=2), [(6, 6)])
    check_op(lambda t, a, b: t.linalg.tensorsolve((a + 3 * t.eye(6, dtype=a.dtype))
                                                  .reshape(2, 3, 6), b), [(6, 6), (2, 3)])
    check_op(lambda t, a, b: t.linalg.tensorsolve((a + 3 * t.eye(6, dtype=a.dtype))
                                                  .reshape(6, 2, 3), b, dims=(0,)),
             [(6, 6), (2, 3)])


# -- the _ex variants -------------------------------------------------------------------------

def test_ex_variants_match_torch_on_success_and_failure():
    sing = np.stack([np.eye(2), np.array([[1., 2.], [2., 4.]])])
    not_pd = np.array([[4., 2., 1.], [2., 1., 3.], [1., 3., 5.]])
    check_op(lambda t, x: t.linalg.inv_ex(x + 3 * t.eye(3, dtype=x.dtype)), [(2, 3, 3)])
    check_op(lambda t, x: t.linalg.inv_ex(x).info, [sing], grad=False)
    check_op(lambda t, x: t.linalg.cholesky_ex(x @ x.mT + t.eye(3, dtype=x.dtype)), [(3, 3)])
    check_op(lambda t, x: t.linalg.cholesky_ex(x), [not_pd], grad=False)
    check_op(lambda t, x: t.linalg.cholesky_ex(x, upper=True), [not_pd], grad=False)
    check_op(lambda t, x, b: t.linalg.solve_ex(x + 3 * t.eye(3, dtype=x.dtype), b),
             [(3, 3), (3,)])
    check_op(lambda t, x: t.linalg.solve_ex(x, x[..., 0]).info, [sing], grad=False)
    check_raises(lambda t, x: t.linalg.inv_ex(x, check_errors=True), [sing])
    check_raises(lambda t, x: t.linalg.cholesky_ex(x, check_errors=True), [not_pd])


def test_out_arguments():
    for fn in (lambda t, x, o: t.linalg.inv(x, out=o), lambda t, x, o: t.linalg.det(x, out=o),
               lambda t, x, o: t.linalg.vector_norm(x, out=o)):
        a = np.eye(3) * 2
        ref = fn(torch, torch.from_numpy(a.copy()), torch.empty(0, dtype=torch.float64))
        out = numtorch.empty(0, dtype=numtorch.float64)
        got = fn(numtorch, numtorch.from_numpy(a.copy()), out)
        assert got is out
        np.testing.assert_allclose(got.numpy(), ref.numpy())


# -- bad input ----------------------------------------------------------------------------------

INT = np.ones((3, 3), dtype=np.int64)


@pytest.mark.parametrize("fn,arrays,match", [
    (lambda t, x: t.linalg.vector_norm(x), [INT],
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda t, x: t.linalg.vector_norm(x, "fro"), [np.ones(3)], "must be Number, not str"),
    (lambda t, x: t.linalg.vector_norm(x, dtype=t.int64), [np.ones(3)],
     "dtype should be floating point or complex, but got Long"),
    (lambda t, x: t.linalg.vector_norm(x, math.inf), [np.ones((0, 3))],
     "cannot compute the inf norm on an empty tensor"),
    (lambda t, x: t.linalg.vector_norm(x, -math.inf, dim=0), [np.ones((0, 3))],
     "on the dimension 0because this dimension is empty"),
    (lambda t, x: t.linalg.matrix_norm(x, 3), [np.ones((3, 3))], "Order 3 not supported."),
    (lambda t, x: t.linalg.matrix_norm(x, "foo"), [np.ones((3, 3))], "Order foo not supported"),
    (lambda t, x: t.linalg.matrix_norm(x, dim=(0, 0)), [np.ones((3, 3))],
     "dims must be different. Got (0, 0)"),
    (lambda t, x: t.linalg.matrix_norm(x, dim=(0,)), [np.ones((3, 3))],
     "dim must be a 2-tuple. Got 0"),
    (lambda t, x: t.linalg.matrix_norm(x), [np.ones(3)],
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda t, x: t.linalg.matrix_norm(x), [INT], "linalg.matrix_norm: Expected a floating"),
    (lambda t, x: t.linalg.norm(x, 2), [np.ones((2, 3, 4))],
     "If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda t, x: t.linalg.norm(x, "nuc", dim=1), [np.ones((3, 3))],
     "dim must be a 2-tuple. Got 1"),
    (lambda t, x: t.linalg.cond(x, "foo"), [np.eye(3)], "linalg.cond got an invalid norm type"),
    (lambda t, x: t.linalg.cond(x, "fro"), [np.ones((3, 4))],
     "linalg.cond(ord=fro): A must be batches of square matrices, but they are 3 by 4"),
    (lambda t, x: t.linalg.cond(x), [np.ones(3)], "must have at least 2 dimensions"),
    (lambda t, x: t.linalg.matrix_rank(x), [np.ones(3)],
     "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."),
    (lambda t, x: t.linalg.matrix_rank(x), [INT], "doesn't handle types other than float"),
    (lambda t, x: t.linalg.multi_dot([x]), [np.ones(3)],
     "multi_dot(): expected at least 2 tensors but got 1"),
    (lambda t, x: t.linalg.multi_dot([x, x]), [np.ones((3, 3, 3))],
     "multi_dot(): the first tensor must be 1D or 2D but got 3D"),
    (lambda t, x: t.linalg.multi_dot([x, x[0], x]), [np.ones((3, 3))],
     "multi_dot(): tensor 1 must be 2D but got 1D"),
    (lambda t, a, b: t.linalg.multi_dot([a, b]), [np.ones((2, 3)), np.ones((4, 5))],
     "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 5] cannot be multiplied"),
    (lambda t, a, b: t.linalg.multi_dot([a, b]), [np.ones((2, 3)), np.ones((3, 5), np.float32)],
     "multi_dot(): all tensors must have be the same dtype but tensor 0 is double and tensor "
     "1 float"),
    (lambda t, a, b: t.linalg.cross(a, b), [np.ones((2, 3)), np.ones(3)],
     "linalg.cross: inputs must have the same number of dimensions."),
    (lambda t, a, b: t.linalg.cross(a, b), [np.ones((2, 4)), np.ones((2, 4))],
     "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4"),
    (lambda t, a, b: t.linalg.vecdot(a, b), [np.ones((2, 3)), np.ones(3, np.float32)],
     "Expected x and y to have the same dtype, but found x of type Double and y of type Float"),
    (lambda t, a, b: t.linalg.vecdot(a, b), [np.ones((2, 3)), np.ones(4)],
     "must match the size of tensor b"),
    (lambda t, a: t.linalg.vecdot(a, a), [INT], "linalg.vecdot: Expected a floating point"),
    (lambda t, x: t.linalg.vander(x), [np.array(1.)], "N must be greater than 1."),
    (lambda t, x: t.linalg.tensorinv(x, ind=1), [np.ones((2, 3))],
     "prod(self.shape[ind:]) == prod(self.shape[:ind])"),
    (lambda t, x: t.linalg.tensorinv(x, ind=0), [np.ones((2, 2))], "strictly positive"),
])
def test_bad_input_raises_like_torch(fn, arrays, match):
    check_raises(fn, arrays, match=match)


@pytest.mark.parametrize("p", ["fro", 1, -1, math.inf, -math.inf])
def test_cond_gradient_where_torch_has_none_agrees_with_finite_differences(p):
    from numtorch.autograd import gradcheck

    a = np.random.default_rng(4).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    x = numtorch.from_numpy(a).requires_grad_()
    assert gradcheck(lambda z: numtorch.linalg.cond(z, p), (x,))


@pytest.mark.parametrize("module", ["numtorch.linalg", "numtorch.ops.decomp",
                                    "numtorch.ops.linsolve", "numtorch.ops.products",
                                    "numtorch.ops.lapack_legacy"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    tests = doctest.DocTestFinder().find(mod, globs={"torch": numtorch, "np": np})
    assert any(t.examples for t in tests)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0


def _sym(t, x):
    return x @ x.mT + 3 * t.eye(3, dtype=x.dtype)


@pytest.mark.parametrize("fn", [
    lambda t, x: _sym(t, x).inverse(), lambda t, x: x.det(), lambda t, x: _sym(t, x).logdet(),
    lambda t, x: x.slogdet(), lambda t, x: _sym(t, x).cholesky(),
    lambda t, x: x.cholesky_inverse(), lambda t, x: x.cholesky_solve(_sym(t, x)),
    lambda t, x: x.pinverse(), lambda t, x: x.matrix_power(3), lambda t, x: x.matrix_exp(),
    lambda t, x: x.triangular_solve(_sym(t, x)).solution, lambda t, x: x.qr(),
    lambda t, x: x.svd()[1], lambda t, x: x.lu(), lambda t, x: x.kron(x),
    lambda t, x: x.cross(x.flip(0), dim=0), lambda t, x: x[0].addmv(x, x[1]),
    lambda t, x: x.addr(x[0], x[1]), lambda t, x: x.geqrf()[1].detach(),
])
def test_tensor_methods_match_torch(fn):
    check_op(fn, [(3, 3)], second_order=False)
