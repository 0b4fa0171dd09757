"""Matrix products and einsum against torch: values, dtypes, gradients and second order."""

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 6)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (1, 3, 4, 2)),
    ((1, 4), (4, 1)),
    ((0, 3), (3, 2)),
    ((2, 0), (0, 3)),
    ((2, 0, 3), (3,)),
    ((3,), (2, 3, 0)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_torch(sa, sb, dtype):
    check_op(lambda t, a, b: t.matmul(a, b), [sa, sb], dtype=dtype)
    check_op(lambda t, a, b: a @ b, [sa, sb], dtype=dtype, non_contiguous=True)


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3, 4), (4,))])
def test_matmul_method_and_single_input_grad(sa, sb):
    b = np.random.default_rng(7).standard_normal(sb)
    check_op(lambda t, a: a.matmul(t.from_numpy(b.copy())), [sa])
    check_op(lambda t, a: a @ a.transpose(-1, -2) if a.ndim > 1 else a @ a, [sa])


@pytest.mark.parametrize("np_dtype", ["int64", "int32"])
def test_matmul_of_ints_keeps_dtype(np_dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (3, 4)).astype(np_dtype)
    b = rng.integers(-3, 4, (4, 2)).astype(np_dtype)
    check_op(lambda t, x, y: t.matmul(x, y), [a, b])
    check_op(lambda t, x, y: t.mm(x, y), [a, b])
    check_op(lambda t, x: t.mv(x, x[0]), [a])


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_bmm_mv_dot(dtype):
    check_op(lambda t, a, b: t.mm(a, b), [(2, 3), (3, 4)], dtype=dtype)
    check_op(lambda t, a, b: a.mm(b), [(0, 3), (3, 4)], dtype=dtype)
    check_op(lambda t, a, b: t.bmm(a, b), [(2, 3, 4), (2, 4, 5)], dtype=dtype)
    check_op(lambda t, a, b: a.bmm(b), [(1, 2, 3), (1, 3, 1)], dtype=dtype)
    check_op(lambda t, a, b: t.mv(a, b), [(2, 3), (3,)], dtype=dtype)
    check_op(lambda t, a, b: a.mv(b), [(4, 3), (3,)], dtype=dtype)
    check_op(lambda t, a, b: t.dot(a, b), [(5,), (5,)], dtype=dtype)
    check_op(lambda t, a, b: a.dot(b), [(0,), (0,)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_outer_ger_inner(dtype):
    check_op(lambda t, a, b: t.outer(a, b), [(3,), (4,)], dtype=dtype)
    check_op(lambda t, a, b: a.outer(b), [(3,), (1,)], dtype=dtype)
    check_op(lambda t, a, b: t.ger(a, b), [(2,), (5,)], dtype=dtype)
    check_op(lambda t, a, b: a.ger(b), [(2,), (3,)], dtype=dtype)
    check_op(lambda t, a, b: t.inner(a, b), [(4,), (4,)], dtype=dtype)
    check_op(lambda t, a, b: t.inner(a, b), [(2, 4), (3, 4)], dtype=dtype)
    check_op(lambda t, a, b: a.inner(b), [(2, 3, 4), (5, 4)], dtype=dtype)
    check_op(lambda t, a, b: t.inner(a, b), [(), (2, 3)], dtype=dtype)
    check_op(lambda t, a, b: t.inner(a, b), [(2, 3), ()], dtype=dtype)


def test_outer_promotes_dtypes():
    a = np.arange(3, dtype=np.int64)
    check_op(lambda t, x, y: t.outer(x, y), [a, (4,)])
    check_op(lambda t, x, y: t.outer(x, y), [(3,), np.ones(2, dtype=np.float32)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (0, 3.0), (2, 0)])
@pytest.mark.parametrize("in_shape", [(2, 4), (4,), (2, 1), ()])
def test_addmm_matches_torch(in_shape, beta, alpha, dtype):
    check_op(lambda t, c, a, b: t.addmm(c, a, b, beta=beta, alpha=alpha),
             [in_shape, (2, 3), (3, 4)], dtype=dtype)
    check_op(lambda t, c, a, b: c.addmm(a, b, beta=beta, alpha=alpha),
             [in_shape, (2, 3), (3, 4)], dtype=dtype)


def test_addmm_beta_zero_ignores_nan_input():
    c = np.full((2, 4), np.nan)
    c[0, 0] = np.inf
    check_op(lambda t, x, a, b: t.addmm(x, a, b, beta=0), [c, (2, 3), (3, 4)])
    check_op(lambda t, x, a, b: t.addmm(x, a, b, beta=0, alpha=0.5), [c, (2, 3), (3, 4)])


def test_addmm_inplace():
    rng = np.random.default_rng(0)
    c, a, b = rng.standard_normal((2, 4)), rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    x = numtorch.from_numpy(c.copy())
    r = x.addmm_(numtorch.from_numpy(a), numtorch.from_numpy(b), beta=0.5, alpha=2)
    assert r is x
    np.testing.assert_allclose(x.numpy(), 0.5 * c + 2 * a @ b, rtol=1e-12)


def test_matmul_out_argument():
    import torch

    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    o = numtorch.empty(2, 4, dtype=numtorch.float64)
    r = numtorch.matmul(numtorch.from_numpy(a), numtorch.from_numpy(b), out=o)
    assert r is o
    np.testing.assert_allclose(o.numpy(), torch.from_numpy(a) @ torch.from_numpy(b))


def test_matmul_float32_stays_float32_and_large():
    check_op(lambda t, a, b: a @ b, [(64, 96), (96, 48)], dtype="float32")
    check_op(lambda t, a, b: t.bmm(a, b), [(8, 32, 16), (8, 16, 24)], dtype="float32")


# ---------------------------------------------------------------------------------------------
# einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,jk", [(3, 4), (4, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,j->i", [(2, 3), (3,)]),
    ("ij->i", [(2, 3)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("iij->ij", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij,ij,ij->i", [(2, 3), (2, 3), (2, 3)]),
    ("ab,cd->abcd", [(2, 3), (2, 2)]),
    ("i...->...", [(2, 3, 4)]),
    ("...,...->...", [(2, 3), (3,)]),
    ("ij,jk -> ik", [(2, 3), (3, 4)]),
    ("ij,ik->", [(2, 3), (2, 4)]),
    ("i,->i", [(3,), ()]),
    ("->", [()]),
    ("ba,ac->bc", [(3, 2), (2, 4)]),
    ("ij->j", [(0, 3)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_matches_torch(eq, shapes, dtype):
    check_op(lambda t, *xs: t.einsum(eq, *xs), shapes, dtype=dtype)


def test_einsum_operands_as_list():
    check_op(lambda t, a, b: t.einsum("ij,jk->ik", [a, b]), [(2, 3), (3, 4)])
    check_op(lambda t, a, b: t.einsum("ij,jk->ik", (a, b)), [(2, 3), (3, 4)])


def test_einsum_broadcasts_size_one_subscripts():
    check_op(lambda t, a, b: t.einsum("ij,ij->ij", a, b), [(2, 1), (2, 3)])
    check_op(lambda t, a, b: t.einsum("bij,bjk->bik", a, b), [(1, 2, 3), (4, 3, 2)])


def test_einsum_result_aliases_its_input_like_torch():
    # one operand and nothing summed: torch returns a view (diagonal/permute), so writing into
    # the result writes into the input; a summed result is new memory
    import torch

    for eq in ["ij->ji", "ii->i", "ij->ij", "ii", "ij->i"]:
        got = []
        for lib in (numtorch, torch):
            x = lib.ones(3, 3)
            lib.einsum(eq, x).add_(1)
            got.append(x.tolist())
        assert got[0] == got[1], eq


def test_einsum_same_tensor_twice():
    check_op(lambda t, a: t.einsum("ij,ij->", a, a), [(2, 3)])
    check_op(lambda t, a: t.einsum("ij,kj->ik", a, a), [(2, 3)])


def test_einsum_uppercase_letters():
    check_op(lambda t, a, b: t.einsum("Ab,bC->AC", a, b), [(2, 3), (3, 4)])
    check_op(lambda t, a, b: t.einsum("bA,AC", a, b), [(2, 3), (3, 4)])
    check_op(lambda t, a: t.einsum("aB", a), [(2, 3)])


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk", [(2, 1), (3, 2)]),
    ("ij,jk->ik", [(2, 3), (1, 2)]),
    ("i...->i", [(2, 3, 4)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]),
    ("ij->...", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 2), (2, 3)]),
    ("ij,jj->i", [(2, 3), (3, 3)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
])
def test_einsum_more_cases(eq, shapes):
    check_op(lambda t, *xs: t.einsum(eq, *xs), shapes)


def test_einsum_sublist_format():
    check_op(lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2], [0, 2]), [(2, 3), (3, 4)])
    check_op(lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2]), [(2, 3), (3, 4)])
    check_op(lambda t, a, b: t.einsum(a, [Ellipsis, 0, 1], b, [1, 2], [Ellipsis, 2]),
             [(5, 2, 3), (3, 4)])
    check_op(lambda t, a: t.einsum(a, [30, 1]), [(2, 3)])
    check_raises(lambda t, a: t.einsum(a, [60, 1]), [_arr(2, 3)],
                 match="not within the valid range [0, 52)")


def test_einsum_of_ints_and_large_float32():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    check_op(lambda t, x: t.einsum("ij,kj->ik", x, x), [a])
    # torch returns int64 when a letter is summed inside one operand, else the input dtype
    sq, vec = a[:, :2].copy(), a[0].copy()
    for eq, ops in [("ii", [sq]), ("ii->i", [sq]), ("ij->", [a]), ("ij->i", [a]),
                    ("ij->ji", [a]), ("ij,kj->", [a, a]), ("ij,k->ik", [a, vec]),
                    ("ij,j->i", [a, vec]), ("i,i->", [vec, vec])]:
        check_op(lambda t, *xs: t.einsum(eq, *xs), ops)
    check_op(lambda t, x: t.einsum("ij->", x), [a.astype(np.uint8)])
    check_op(lambda t, x, y: t.einsum("bhqd,bhkd->bhqk", x, y), [(4, 2, 16, 8), (4, 2, 12, 8)],
             dtype="float32")


# ---------------------------------------------------------------------------------------------
# errors


def _arr(*shape, dtype=np.float32):
    return np.ones(shape, dtype=dtype)


def test_matmul_shape_mismatch_2d():
    check_raises(lambda t, a, b: t.matmul(a, b), [_arr(2, 3), _arr(4, 5)],
                 match="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    check_raises(lambda t, a, b: a @ b, [_arr(2, 3), _arr(4, 5)],
                 match="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    check_raises(lambda t, a, b: t.mm(a, b), [_arr(2, 3), _arr(4, 5)],
                 match="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    check_raises(lambda t, a, b: t.addmm(a[:, :1], a, b), [_arr(2, 3), _arr(4, 5)],
                 match="mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    check_raises(lambda t, a, b: t.matmul(a, b), [_arr(3), _arr(4, 5)],
                 match="mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)")


@pytest.mark.parametrize("sa,sb,msg", [
    ((3,), (4,), "inconsistent tensor size, expected tensor [3] and src [4]"),
    ((2, 3), (4,), "size mismatch, got input (2), mat (2x3), vec (4)"),
    ((2, 2, 3), (2, 4, 5), "Expected size for first two dimensions of batch2 tensor"),
    ((2, 2, 3), (3, 3, 5), "The size of tensor a (2) must match the size of tensor b (3) at "
                           "non-singleton dimension 0"),
    ((3, 4, 5), (6,), "size mismatch, got input (12), mat (12x5), vec (6)"),
    ((6,), (3, 4, 5), "Expected size for first two dimensions of batch2 tensor to be: [3, 6] "
                      "but got: [3, 4]."),
])
def test_matmul_shape_mismatch_nd(sa, sb, msg):
    check_raises(lambda t, a, b: t.matmul(a, b), [_arr(*sa), _arr(*sb)], match=msg)


def test_matmul_zero_dim_operands():
    msg = "both arguments to matmul need to be at least 1D, but they are 0D and 2D"
    check_raises(lambda t, a, b: t.matmul(a, b), [_arr(), _arr(2, 3)], match=msg)
    check_raises(lambda t, a, b: a @ b, [_arr(3), _arr()],
                 match="both arguments to matmul need to be at least 1D, but they are 1D and 0D")
    check_raises(lambda t, a, b: t.mm(a, b), [_arr(), _arr(2, 3)], match="must be a matrix")
    check_raises(lambda t, a, b: t.dot(a, b), [_arr(), _arr()], match="1D tensors expected")
    check_raises(lambda t, a, b: t.outer(a, b), [_arr(), _arr(3)])


@pytest.mark.parametrize("fn,sa,sb,msg", [
    ("matmul", (2, 3), (3, 2), "expected m1 and m2 to have the same dtype, but got: float != "
                               "double"),
    ("mm", (2, 3), (3, 2), "expected m1 and m2 to have the same dtype"),
    ("matmul", (3,), (3,), "dot : expected both vectors to have same dtype, but found Float and "
                           "Double"),
    ("dot", (3,), (3,), "expected both vectors to have same dtype"),
    ("matmul", (2, 2, 3), (2, 3, 4), "expected scalar type Float but found Double"),
    ("bmm", (2, 2, 3), (2, 3, 4), "expected scalar type Float but found Double"),
    ("matmul", (2, 3), (3,), "same dtype"),
    ("mv", (2, 3), (3,), "same dtype"),
])
def test_products_reject_dtype_mismatch(fn, sa, sb, msg):
    check_raises(lambda t, a, b: getattr(t, fn)(a, b.double()), [_arr(*sa), _arr(*sb)],
                 match=msg)


def test_int_float_mix_rejected():
    check_raises(lambda t, a, b: t.mm(a, b), [_arr(2, 3, dtype=np.int64), _arr(3, 2)],
                 match="expected m1 and m2 to have the same dtype, but got: long int != float")
    check_raises(lambda t, a, b: t.matmul(a, b), [_arr(2, 3, dtype=bool), _arr(3, 2, dtype=bool)])
    check_raises(lambda t, a, b: t.addmm(a, b, b.T), [_arr(2, 2, dtype=np.float64), _arr(2, 3)],
                 match="same dtype")


def test_bmm_mm_mv_dot_reject_wrong_ranks():
    check_raises(lambda t, a, b: t.bmm(a, b), [_arr(2, 3), _arr(3, 4)],
                 match="batch1 must be a 3D tensor")
    check_raises(lambda t, a, b: t.bmm(a, b), [_arr(2, 2, 3), _arr(3, 4)],
                 match="batch2 must be a 3D tensor")
    check_raises(lambda t, a, b: t.bmm(a, b), [_arr(2, 2, 3), _arr(3, 3, 4)],
                 match="Expected size for first two dimensions of batch2 tensor to be: [2, 3] "
                       "but got: [3, 3].")
    check_raises(lambda t, a, b: t.mm(a, b), [_arr(2, 3), _arr(3)], match="mat2 must be a matrix")
    check_raises(lambda t, a, b: t.mv(a, b), [_arr(2, 3), _arr(2, 3)],
                 match="vector + matrix @ vector expected, got 1, 2, 2")
    check_raises(lambda t, a, b: t.mv(a, b), [_arr(2, 3), _arr(4)],
                 match="size mismatch, got input (2), mat (2x3), vec (4)")
    check_raises(lambda t, a, b: t.dot(a, b), [_arr(2, 3), _arr(2, 3)],
                 match="1D tensors expected, but got 2D and 2D tensors")
    check_raises(lambda t, a, b: t.dot(a, b), [_arr(3), _arr(4)],
                 match="inconsistent tensor size")
    check_raises(lambda t, a, b: t.outer(a, b), [_arr(2, 3), _arr(3)],
                 match="outer: Expected 1-D argument self, but got 2-D")
    check_raises(lambda t, a, b: t.inner(a, b), [_arr(3), _arr(4)],
                 match="inner() the last dimension must match on both input tensors but got "
                       "shapes [3] and [4]")


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij,jk->ik", [(2, 3)], "fewer operands were provided than specified in the equation"),
    # (two operands: with three torch asks opt_einsum first when installed, see s47 tests)
    ("ij->ij", [(2, 3), (3, 4)], "more operands were provided than specified"),
    ("ij,jk->ik", [(2, 3), (4, 5)], "subscript j has size 4 for operand 1 which does not "
                                    "broadcast with previously seen size 3"),
    ("ijk->i", [(2, 3)], "the number of subscripts in the equation (3) does not match the "
                         "number of dimensions (2) for operand 0 and no ellipsis was given"),
    ("ii->i", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match, "
                        "3 != 2"),
    ("ij->ik", [(2, 3)], "output subscript k does not appear in the equation for any input "
                         "operand"),
    ("ij->ii", [(2, 3)], "output subscript i appears more than once in the output"),
    ("i,i->", [(2,), (3,)], "subscript i has size 3 for operand 1"),
])
def test_einsum_errors(eq, shapes, msg):
    check_raises(lambda t, *xs: t.einsum(eq, *xs), [_arr(*s) for s in shapes], match=msg)


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij->1", [(2, 3)], "invalid subscript given at index 4 in the equation string, "
                        "subscripts must be in [a-zA-Z]"),
    ("ij-->j", [(2, 3)], "invalid subscript given at index 2"),
    ("ij->j->k", [(2, 3)], "invalid subscript given at index 5"),
    ("i.j->j", [(2, 3)], "found '.' for operand 0 that is not part of any ellipsis"),
    ("...ij->...i.", [(2, 3)], "found '.' for output but an ellipsis (...) was already found"),
    ("ij...k...->i", [(2, 3)], "found '.' for operand 0 for which an ellipsis was already found"),
    ("...i,...i->...", [(2, 3), (4, 3)], "covered by ellipsis in operand 1"),
    ("ijk...->i", [(2, 3)], "is more than the number of dimensions (2) for operand 0"),
    ("ii->i", [(1, 3)], "subscript i is repeated for operand 0 but the sizes don't match"),
])
def test_einsum_equation_errors(eq, shapes, msg):
    check_raises(lambda t, *xs: t.einsum(eq, *xs), [_arr(*s) for s in shapes], match=msg)


def test_einsum_argument_errors():
    check_raises(lambda t: t.einsum("ij"), [], match="must specify the equation string")
    check_raises(lambda t, a: t.einsum("ij", a.numpy()), [_arr(2, 3)],
                 match="expected Tensor as element 0 in argument 1, but got numpy.ndarray")
    check_raises(lambda t, a: t.einsum("i,i", a, a), [_arr(3, dtype=bool)],
                 match="\"bmm\" not implemented for 'Bool'")


def test_einsum_dtype_mismatch():
    check_raises(lambda t, a, b: t.einsum("ij,jk", a, b.double()), [_arr(2, 3), _arr(3, 2)],
                 match="expected scalar type Float but found Double")
