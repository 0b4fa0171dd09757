"""Parity fixes of probe 50, tensors and ops (oracle: real torch at test time): complex
logcumsumexp (values on torch's unwrapped branch, NaN/inf edges, gradients), ..."""

import numpy as np
import pytest

import numtorch
from tests.oracle import same

# -- 1. complex logcumsumexp ------------------------------------------------------------------

_INF, _NAN = float("inf"), float("nan")
_LCSE_EDGES = {
    "tie_new_is_larger": [3j, -3j],
    "unwrapped_imag": [10j, 10j, 1000 + 1j, complex(-_INF, 0), _NAN],
    "plus_inf": [complex(_INF, 0), complex(_INF, 1), 2],
    "leading_minus_inf": [complex(-_INF, 1), complex(-_INF, 0), 1 + 2j],
    "inf_imag": [complex(1, _INF), 1 + 2j],
    "alternating": [1 + 3j, 1 - 3j, 1 + 3j, 1 - 3j, 1 + 3j, 0.5 + 3.1j],
    "single": [2 - 7j],
}


@pytest.mark.parametrize("name", sorted(_LCSE_EDGES))
def test_complex_logcumsumexp_edges(name):
    vals = _LCSE_EDGES[name]
    same(lambda t: t.logcumsumexp(t.tensor(vals), 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_complex_logcumsumexp_random(dtype, dim):
    rng = np.random.default_rng(3)
    a = (rng.normal(size=(5, 33)) * np.array([[0.1], [1], [10], [100], [3]])
         + 1j * rng.normal(size=(5, 33)) * 4).astype(dtype)
    a = a.T if dim == 0 else a  # a transposed (non-contiguous) input along dim 0
    same(lambda t: t.logcumsumexp(t.from_numpy(a.copy()), dim), rtol=2e-5, atol=2e-5)


def test_complex_logcumsumexp_grads():
    def fn(t):
        x = t.tensor([[1 + 1j, 2 - 1j, 0.5 + 3j], [0j, -1 + 2j, 4 - 4j]], requires_grad=True)
        y = t.logcumsumexp(x, 1)
        (g,) = t.autograd.grad((y.abs() * t.tensor([1.0, 2.0, 3.0])).sum(), x,
                               create_graph=True)
        return y, g, t.autograd.grad(g.abs().sum(), x)[0]

    same(fn, rtol=1e-5, atol=1e-6)
    x = numtorch.tensor([[1 + 1j, 2 - 1j], [0.5 + 3j, 0j]], dtype=numtorch.complex128,
                        requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda v: numtorch.logcumsumexp(v, 1), (x,))


# -- 2. linear algebra on empty matrices, pinv's rcond keyword, svd's driver, norm dims --------

def _matrix_norm_of_zeros(shape, ord_):
    return lambda t: t.linalg.matrix_norm(t.zeros(*shape), ord=ord_)


_ORDS = {"1": 1, "m1": -1, "2": 2, "m2": -2, "inf": float("inf"), "minf": -float("inf"),
         "nuc": "nuc", "fro": "fro"}
_EMPTY_LINALG = {
    f"matrix_norm_{'x'.join(map(str, shape))}_{name}": _matrix_norm_of_zeros(shape, o)
    for shape in [(0, 3), (3, 0), (0, 0), (2, 0, 3), (2, 3, 0), (2, 0, 0)]
    for name, o in _ORDS.items()
}
_EMPTY_LINALG.update({
    "matrix_norm_keepdim_inf": lambda t: t.linalg.matrix_norm(t.zeros(2, 0, 3),
                                                              ord=float("inf"), keepdim=True),
    "matrix_norm_keepdim_m1_dims": lambda t: t.linalg.matrix_norm(t.zeros(3, 0, 2), ord=-1,
                                                                  dim=(-3, -2), keepdim=True),
    "matrix_norm_m1_dims_no_keep": lambda t: t.linalg.matrix_norm(t.zeros(2, 3, 0), ord=-1,
                                                                  dim=(0, 2)),
    "matrix_norm_m1_swapped": lambda t: t.linalg.matrix_norm(t.zeros(2, 3, 0), ord=-1,
                                                             dim=(2, 0)),
    "matrix_norm_complex_2": lambda t: t.linalg.matrix_norm(t.zeros(0, 3, dtype=t.complex64),
                                                            ord=2),
    "linalg_norm_2": lambda t: t.linalg.norm(t.zeros(0, 3), ord=2),
    "cond_none": lambda t: t.linalg.cond(t.zeros(0, 3)),
    "cond_m2_batch": lambda t: t.linalg.cond(t.zeros(2, 0, 3), -2),
    "cond_1_wide": lambda t: t.linalg.cond(t.zeros(2, 0, 3), 1),
    "cond_fro_wide": lambda t: t.linalg.cond(t.zeros(2, 0, 3), "fro"),
    "cond_fro_square": lambda t: t.linalg.cond(t.zeros(2, 0, 0), "fro"),
    "cond_complex": lambda t: t.linalg.cond(t.zeros(0, 0, dtype=t.complex64), 1),
    "cond_int_empty": lambda t: t.linalg.cond(t.zeros(0, 0, dtype=t.int64), "nuc"),
    "cond_int_square": lambda t: t.linalg.cond(t.zeros(2, 2, dtype=t.int64), 1),
    "lu_wide": lambda t: t.linalg.lu(t.zeros(0, 3)),
    "lu_tall": lambda t: t.linalg.lu(t.zeros(3, 0)),
    "lu_batch": lambda t: t.linalg.lu(t.zeros(2, 0, 3)),
    "lu_factor_tall": lambda t: t.linalg.lu_factor(t.zeros(3, 0)),
    "lu_factor_ex_batch": lambda t: t.linalg.lu_factor_ex(t.zeros(2, 3, 0)),
    "lu_unpack": lambda t: t.lu_unpack(*t.linalg.lu_factor(t.zeros(3, 0))),
    "ldl_factor": lambda t: t.linalg.ldl_factor(t.zeros(0, 0)),
    "tensordot_empty_k": lambda t: t.tensordot(t.zeros(2, 0), t.ones(0, 3), dims=1),
    "tensordot_empty_k2": lambda t: t.tensordot(t.zeros(2, 0, 4), t.ones(0, 4, 3), dims=2),
})


@pytest.mark.parametrize("name", sorted(_EMPTY_LINALG))
def test_linalg_on_empty_matrices(name):
    same(_EMPTY_LINALG[name])


def test_lu_of_empty_matrix_backward():
    def fn(t):
        a = t.zeros(3, 0, requires_grad=True)
        p, low, up = t.linalg.lu(a)
        (low.sum() + up.sum()).backward()
        return p, low, up, a.grad

    same(fn)


_PINV_SVD_NORM = {
    "pinv_rcond_kw": lambda t: t.linalg.pinv(t.tensor([[2., 1], [1, 2]]), rcond=0.5),
    "pinv_rcond_tensor": lambda t: t.linalg.pinv(t.tensor([[2., 1], [1, 2]]),
                                                 rcond=t.tensor(0.1)),
    "pinv_rcond_hermitian": lambda t: t.linalg.pinv(t.tensor([[2., 1], [1, 2]]), rcond=0.5,
                                                    hermitian=True),
    "pinv_rcond_big": lambda t: t.linalg.pinv(t.tensor([[2., 1], [1, 2]]), rcond=0.4),
    "pinv_rcond_positional": lambda t: t.linalg.pinv(t.tensor([[2., 1], [1, 2]]), 0.4),
    "pinv_rcond_with_atol": lambda t: t.linalg.pinv(t.ones(3, 3), rcond=0.5, atol=0.1),
    "pinv_rcond_none": lambda t: t.linalg.pinv(t.ones(3, 3), rcond=None),
    "pinv_hermitian_not_square": lambda t: t.linalg.pinv(t.ones(2, 3), hermitian=True),
    "svd_driver_cpu": lambda t: t.linalg.svd(t.ones(2, 3), driver="gesvd"),
    "svdvals_driver_cpu": lambda t: t.linalg.svdvals(t.ones(2, 3), driver="gesvdj"),
    "svd_driver_int": lambda t: t.linalg.svd(t.ones(2, 2), driver=3),
    "svd_driver_after_dtype_check": lambda t: t.linalg.svd(t.ones(2, 3, dtype=t.int64),
                                                           driver="gesvd"),
    "svd_driver_none": lambda t: t.linalg.svd(t.eye(2) * 3, driver=None),
    "norm_same_dims": lambda t: t.linalg.norm(t.ones(3, 3, 3), dim=(0, 0)),
    "norm_same_dims_negative": lambda t: t.linalg.norm(t.ones(3, 3, 3), dim=(0, -3)),
    "norm_same_dims_ord": lambda t: t.linalg.norm(t.ones(3, 3, 3), dim=(-1, 2), ord=2),
    "matrix_norm_same_dims": lambda t: t.linalg.matrix_norm(t.ones(3, 3, 3), dim=(0, -3)),
    "norm_two_dims": lambda t: t.linalg.norm(t.arange(27.).view(3, 3, 3), dim=(0, 2)),
    "norm_two_dims_dtype": lambda t: t.linalg.norm(t.arange(27.).view(3, 3, 3), dim=(0, 2),
                                                   keepdim=True, dtype=t.float64),
    "norm_two_dims_int": lambda t: t.linalg.norm(t.ones(3, 3, dtype=t.int64), dim=(0, 1)),
}


@pytest.mark.parametrize("name", sorted(_PINV_SVD_NORM))
def test_pinv_svd_norm_arguments(name):
    same(_PINV_SVD_NORM[name], rtol=1e-6, atol=1e-6)


# -- 3. the order of equal values in sort/argsort without stable=True ----------------------------

def _tied(shape, dtype, seed, nan=False):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, shape)
    if dtype == "bool":
        return x > 2
    x = x.astype(dtype)
    if nan:
        x.flat[rng.integers(0, x.size, 4)] = np.nan
    return x


_SORT_CASES = {
    "int64_17": ((17,), "int64", 0, {}),
    "int64_40_desc": ((40,), "int64", 0, {"descending": True}),
    "float32_rows": ((5, 300), "float32", 1, {}),
    "float32_rows_desc_false": ((5, 300), "float32", 1, {"descending": True, "stable": False}),
    "float64_nan_desc": ((3, 100), "float64", 2, {"descending": True}),
    "float64_nan": ((3, 100), "float64", 2, {}),
    "int8_dim0": ((200, 3), "int8", 3, {"dim": 0}),
    "uint8_3d_dim1": ((2, 70, 3), "uint8", 4, {"dim": 1, "descending": True}),
    "bool": ((2, 50), "bool", 5, {}),
    "float16": ((1000,), "float16", 6, {"descending": True}),
    "int32_long_vector_radix": ((40000,), "int32", 7, {}),
    "int64_long_vector_desc": ((33000,), "int64", 8, {"descending": True}),
    "int64_long_rows": ((2, 32000), "int64", 9, {}),
}


@pytest.mark.parametrize("name", sorted(_SORT_CASES))
def test_sort_tie_order_without_stable(name):
    shape, dtype, seed, kw = _SORT_CASES[name]
    x = _tied(shape, dtype, seed, nan="nan" in name)
    same(lambda t: t.sort(t.from_numpy(x.copy()), **kw))
    kw = {k: v for k, v in kw.items() if k != "stable"}
    same(lambda t: t.from_numpy(x.copy()).argsort(**kw))


def test_sort_tie_order_transposed_and_grad():
    x = _tied((30, 40), "float64", 10)

    def fn(t):
        a = t.from_numpy(x.copy()).t().requires_grad_()
        v, i = a.sort(dim=1, descending=True)
        (v * t.arange(30.0, dtype=t.float64)).sum().backward()
        return v, i, a.grad

    same(fn)


def test_sort_stable_true_keeps_order():
    x = _tied((3, 100), "float32", 11)
    same(lambda t: t.sort(t.from_numpy(x.copy()), stable=True, descending=True))


# -- 4. small Tensor protocol corners -------------------------------------------------------------

_PROTOCOL = {
    "contains_tensor_mismatch": lambda t: t.tensor([1, 2]) in t.tensor([1, 2, 3]),
    "contains_tensor": lambda t: t.tensor([[3]]) in t.tensor([1, 2, 3]),
    "contains_scalar": lambda t: 2.0 in t.tensor([1, 2, 3]),
}


@pytest.mark.parametrize("name", sorted(_PROTOCOL))
def test_tensor_protocol_corners(name):
    same(_PROTOCOL[name])


# -- 5. gradients of the complex SVD -----------------------------------------------------------

def _complex_matrix(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _uv_outer(r):
    return (r.U[..., :, :1] @ r.Vh[..., :1, :]).real.sum()


def _svd_loss(r):
    return (r.U.abs() ** 2).sum() + r.S.sum() + (r.V.abs() ** 3).sum()


_SVD_LOSSES = {
    "svdvals": (lambda t, a: t.linalg.svdvals(a).sum(), (3, 3)),
    "nuclear_norm": (lambda t, a: t.linalg.matrix_norm(a, "nuc"), (2, 3, 3)),
    "abs_u": (lambda t, a: t.linalg.svd(a, full_matrices=False).U.abs().sum(), (3, 3)),
    "abs_u_tall": (lambda t, a: (t.linalg.svd(a, full_matrices=False).U.abs() ** 2
                                 * t.arange(2.0, dtype=t.float64)).sum(), (4, 2)),
    "abs_vh_wide": (lambda t, a: (t.linalg.svd(a, full_matrices=False).Vh.abs() ** 3).sum(),
                    (2, 4)),
    "uv_outer": (lambda t, a: _uv_outer(t.linalg.svd(a, full_matrices=False)), (2, 3, 3)),
    "torch_svd": (lambda t, a: _svd_loss(t.svd(a)), (3, 2)),
    "pinv": (lambda t, a: t.linalg.pinv(a).abs().sum(), (3, 2)),
    "cond": (lambda t, a: t.linalg.cond(a), (3, 3)),
    "phase_dependent_loss": (lambda t, a: t.linalg.svd(a, full_matrices=False).U.real.sum(),
                             (3, 3)),
}


@pytest.mark.parametrize("name", sorted(_SVD_LOSSES))
def test_complex_svd_gradients(name):
    fn, shape = _SVD_LOSSES[name]
    av = _complex_matrix(shape)

    def run(t):
        a = t.tensor(av, dtype=t.complex128, requires_grad=True)
        y = fn(t, a)
        (ga,) = t.autograd.grad(y, (a,), create_graph=True)
        (g2,) = t.autograd.grad(ga.abs().sum(), (a,), allow_unused=True)
        return y, ga, g2

    same(run, rtol=1e-6, atol=1e-8)


def test_complex_eigh_phase_dependent_loss_raises():
    av = _complex_matrix((3, 3), seed=1)

    def run(t, loss):
        a = t.tensor(av, dtype=t.complex128, requires_grad=True)
        h = a @ a.mH + t.eye(3, dtype=t.complex128)
        return t.autograd.grad(loss(t.linalg.eigh(h).eigenvectors), (a,))[0]

    same(lambda t: run(t, lambda v: v.real.sum()))  # depends on the phases: torch's error
    same(lambda t: run(t, lambda v: v.abs().sum()), rtol=1e-6, atol=1e-8)


# -- 6. complex powers of zero ------------------------------------------------------------------

_ZERO_POWERS = {
    "tensor_exponents": lambda t: t.zeros(9, dtype=t.complex64) ** t.tensor(
        [0, 1, 2, 1 + 1j, -1, 0.5j, -1 + 1j, 2.5, 1e-30], dtype=t.complex64),
    "real_tensor_exponent": lambda t: t.tensor([0j, 0j], dtype=t.complex128) ** t.tensor(
        [0.0, -1.0], dtype=t.float64),
    "scalar_base": lambda t: t.pow(0j, t.tensor([0j, -1])),
    "real_base_complex_exponent": lambda t: t.tensor([0.0]) ** t.tensor([0j]),
    "number_exponent_zero": lambda t: t.tensor([0j, 1 + 1j]) ** 0j,
    "number_exponent_negative": lambda t: t.tensor([0j, 1 + 1j]) ** complex(-1, 0),
    "int_exponent_negative": lambda t: t.tensor([0j]) ** -1,
    "float_exponent_negative": lambda t: t.tensor([0j]) ** -1.5,
    "float_exponent_zero": lambda t: t.tensor([0j]) ** 0.0,
    "pow_method": lambda t: t.tensor([0j, 2j]).pow(t.tensor(0)),
}


@pytest.mark.parametrize("name", sorted(_ZERO_POWERS))
def test_complex_zero_base_powers(name):
    same(_ZERO_POWERS[name], rtol=1e-6, atol=1e-6)


# -- 7. complex logsumexp (principal angle, conjugate gradient) and acosh's gradient ------------

_COMPLEX_LSE = {
    "wraps_angle": lambda t: t.logsumexp(t.tensor([0 + 10j, 1 + 4j]), 0),
    "rows_keepdim": lambda t: t.logsumexp(t.tensor([[1 + 4j, 2 - 5j], [3 - 7j, 0j]]), 1, True),
    "real_shift_only": lambda t: t.logsumexp(t.tensor([1000j, 1 + 0j], dtype=t.complex128), 0),
    "minus_inf": lambda t: t.logsumexp(t.tensor([complex(-np.inf, 0), 1 + 4j]), 0),
    "plus_inf": lambda t: t.logsumexp(t.tensor([complex(np.inf, 1), 1 + 4j]), 0),
    "nan_imag": lambda t: t.logsumexp(t.tensor([[complex(2, np.nan), 2 + 2j]]), 1),
    "all_minus_inf": lambda t: t.logsumexp(t.tensor([[complex(-np.inf, 3), complex(-np.inf, 0)]],
                                                     dtype=t.complex128), 1),
    "all_dims_transposed": lambda t: t.logsumexp(t.tensor([[1 + 1j, 2 + 2j], [3 - 7j, 0j]]).t(),
                                                 (0, 1)),
}


@pytest.mark.parametrize("name", sorted(_COMPLEX_LSE))
def test_complex_logsumexp_values(name):
    same(_COMPLEX_LSE[name], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["logsumexp", "acosh", "acosh_real"])
def test_complex_gradients_conjugate(op):
    zv = (np.random.default_rng(5).normal(size=(2, 3))
          + 1j * np.random.default_rng(6).normal(size=(2, 3))) * 0.8

    def run(t):
        z = t.tensor(zv, dtype=t.complex128, requires_grad=True)
        if op == "logsumexp":
            y = t.logsumexp(z, 1)
        elif op == "acosh":
            y = t.acosh(z)
        else:
            z = t.tensor(np.abs(zv.real) + 1.5, requires_grad=True)
            y = t.acosh(z)
        w = t.arange(1.0, y.numel() + 1, dtype=t.float64).view(y.shape) * (1 + 0.7j)
        (g,) = t.autograd.grad((y * w).real.sum(), (z,), create_graph=True)
        g2 = t.autograd.grad((g * g.conj()).real.sum(), (z,))[0]
        return y, g, g2

    same(run, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_airy_ai_large_positive_arguments(dtype):
    x = [200.0, 1e10, 3e38, float("inf"), float("nan"), 1.0]
    same(lambda t: t.special.airy_ai(t.tensor(x, dtype=getattr(t, dtype))), rtol=1e-6)


# -- 8. gradient of the infinity norms with NaN and tied entries ---------------------------------

_INF_NORMS = {
    "inf_dim": lambda t, x: x.norm(float("inf"), 1),
    "ninf_dim": lambda t, x: x.norm(-float("inf"), 1),
    "inf_keepdim": lambda t, x: t.linalg.vector_norm(x, float("inf"), 0, keepdim=True),
    "inf_all_nan": lambda t, x: t.linalg.vector_norm(x, float("inf")),
    "matrix_inf": lambda t, x: t.linalg.matrix_norm(x[2:], float("inf")),
    "dist_inf": lambda t, x: t.dist(x[2], x[3], float("inf")),
}


@pytest.mark.parametrize("name", sorted(_INF_NORMS))
def test_infinity_norm_gradients_with_nan(name):
    inf, nan = float("inf"), float("nan")
    vals = [[1.0, nan, 3.0, 3.0, 0.0, nan], [2.0, -2.0, inf, -inf, inf, 1.0],
            [-3.0, 3.0, 0.0, 2.0, 1.0, -3.0], [0.0] * 6]

    def run(t):
        x = t.tensor(vals, dtype=t.float64, requires_grad=True)
        y = _INF_NORMS[name](t, x)
        g = t.arange(1.0, y.numel() + 1, dtype=t.float64).view(y.shape)
        (gx,) = t.autograd.grad(y, x, g, create_graph=True)
        w = t.arange(24.0, dtype=t.float64).view(4, 6)
        return y, gx, t.autograd.grad((gx * w).sum(), x, allow_unused=True)[0]

    same(run)


def test_cumprod_gradient_after_a_zero_with_nan_and_inf():
    inf, nan = float("inf"), float("nan")
    rows = [[1.0, nan, 3.0, 3.0, 0.0, nan], [2.0, 2.0, inf, -inf, inf, 1.0],
            [-inf, -inf, 0.0, 5.0, 5.0, 5.0], [1.0, 2.0, 0.0, 3.0, 0.0, 5.0]]

    def run(t):
        x = t.tensor(rows, dtype=t.float64, requires_grad=True)
        y = x.cumprod(1)
        return y, t.autograd.grad(y, x, t.arange(1.0, 25.0, dtype=t.float64).view(4, 6))[0]

    same(run)

    def second_order(t):  # finite inputs with zeros: exact double backward
        x = t.tensor([[0.0, 2.0, 3.0, 0.0, 5.0], [1.0, 2.0, 0.0, 3.0, 4.0]], dtype=t.float64,
                     requires_grad=True)
        (g,) = t.autograd.grad(x.cumprod(1).sum(), x, create_graph=True)
        return g, t.autograd.grad((g * g).sum(), x)[0]

    same(second_order, rtol=1e-12)


_PROD_ROWS = {
    "two_zeros_and_inf": [-np.inf, 0.0, 0.0, 5.0],
    "two_zeros_and_inf_2d": [[-np.inf, 0.0, 0.0, 5.0]],
    "zeros_and_nan_2d": [[np.nan, 0.0, 1.0], [0.0, 2.0, 3.0]],
    "one_zero_and_inf": [np.inf, 0.0, 2.0],
    "all_zero": [0.0, 0.0],
    "nan_one_zero": [np.nan, 1.0, 0.0],
    "nan_two_zeros": [np.nan, 0.0, 0.0],
}


@pytest.mark.parametrize("name", sorted(_PROD_ROWS))
@pytest.mark.parametrize("form", ["all", "dim0"])
def test_prod_gradient_with_zeros_beside_inf_nan(name, form):
    v = _PROD_ROWS[name]

    def run(t):
        x = t.tensor(v, requires_grad=True)
        y = x.prod() if form == "all" else x.prod(0)
        return y, t.autograd.grad(y.sum(), x)[0]

    same(run)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (3, 0, 0.5), (2, 1, 100.0)])
def test_renorm_gradient_of_slices_left_alone(p, dim, maxnorm):
    inf, nan = float("inf"), float("nan")
    vals = [[1.0, nan, 3.0, 3.0, 0.0, -2.0], [2.0, -2.0, inf, -inf, 0.5, 1.0],
            [-inf, -inf, 0.0, 5.0, 5.0, 5.0], [0.0] * 6, [0.1, 0.2, 0.1, 0.0, 0.0, 0.3],
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]

    def run(t):
        x = t.tensor(vals, dtype=t.float64, requires_grad=True)
        y = x.renorm(p, dim, maxnorm)
        return y, t.autograd.grad(y, x, t.arange(1.0, 37.0, dtype=t.float64).view(6, 6))[0]

    same(run, rtol=1e-12)

    def second_order(t):
        x = t.tensor([[1.0, 2.0, 3.0], [0.1, 0.2, 0.1], [-4.0, 0.0, 2.0]], dtype=t.float64,
                     requires_grad=True)
        y = x.renorm(p, dim, maxnorm)
        (g,) = t.autograd.grad((y * t.arange(9.0, dtype=t.float64).view(3, 3)).sum(), x,
                               create_graph=True)
        return y, g, t.autograd.grad((g * g).sum(), x)[0]

    same(second_order, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_bool(reduce, include_self):
    def run(t):
        src = t.tensor([[False, True, True], [True, True, False]])
        x = t.full((2, 4), reduce != "amax")
        out = x.index_reduce(1, t.tensor([0, 0, 2]), src, reduce, include_self=include_self)
        x.index_reduce_(1, t.tensor([0, 0, 2]), src, reduce, include_self=include_self)
        return out, x

    same(run, warns=True)


@pytest.mark.parametrize("case", ["bad_reduce", "bad_dim", "bad_index", "bad_dtype"])
def test_scatter_reduce_deprecation_warns_before_checks(case):
    """torch warns about reduce= with a Tensor src before it checks anything (in a fresh
    process: the warning is once per process); the errors are torch's."""
    import warnings

    from numtorch import _warn_once

    call = {
        "bad_reduce": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[0]]), t.ones(1, 1),
                                                      reduce="foo"),
        "bad_dim": lambda t: t.zeros(2, 3).scatter(5, t.tensor([[0]]), t.ones(1, 1),
                                                   reduce="add"),
        "bad_index": lambda t: t.zeros(2, 3).scatter(1, t.tensor([[5]]), t.ones(1, 1),
                                                     reduce="add"),
        "bad_dtype": lambda t: t.zeros(2, 3).scatter_(1, t.tensor([[0]]),
                                                      t.ones(1, 1, dtype=t.float64),
                                                      reduce="multiply"),
    }[case]
    same(call)
    _warn_once._DONE.discard("scatter_reduce_src")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises((RuntimeError, IndexError)):
            call(numtorch)
    assert [str(x.message)[:36] for x in w] == ["The reduce argument of torch.scatter"]


_TRAPEZOID_RANKS = {
    "x_2d_y_1d": lambda t, y, x: t.trapezoid(y[0, 0], x[0]),
    "x_2d_y_1d_cumulative": lambda t, y, x: t.cumulative_trapezoid(y[0, 0], x=x[0]),
    "x_1row_y_3d_dim2": lambda t, y, x: t.trapezoid(y, x[:1], dim=2),
    "x_1row_y_3d_dim0": lambda t, y, x: t.trapezoid(y, x[:1], dim=0),
    "x_1row_y_3d_cumulative": lambda t, y, x: t.cumulative_trapezoid(y, x[:1], dim=-1),
    "x_3d_y_2d_dim0": lambda t, y, x: t.trapezoid(y[0], x[:1, :, None], dim=0),
    "same_rank": lambda t, y, x: t.trapezoid(y[0], x, dim=1),
}


@pytest.mark.parametrize("name", sorted(_TRAPEZOID_RANKS))
def test_trapezoid_sample_points_of_another_rank(name):
    def run(t):
        y = t.tensor([[[1.0, 2.0], [3.0, 5.0]]], requires_grad=True)
        x = t.tensor([[0.0, 1.0], [0.0, 2.0]], requires_grad=True)
        r = _TRAPEZOID_RANKS[name](t, y, x)
        return r, t.autograd.grad(r.sum(), (y, x), allow_unused=True)

    same(run)


_COV_WEIGHTS = {
    "aweights_zero": {"aweights": [0.0, 0.0, 0.0]},
    "fweights_zero": {"fweights": [0, 0, 0]},
    "both_zero_product": {"fweights": [1, 0, 0], "aweights": [0.0, 1.0, 1.0]},
    "aweights_nan": {"aweights": [float("nan"), 1.0, 1.0]},
    "aweights_inf": {"aweights": [float("inf"), 1.0, 1.0]},
    "fweights_one_left": {"fweights": [1, 0, 0], "aweights": [1.0, 1.0, 1.0]},
}


@pytest.mark.parametrize("name", sorted(_COV_WEIGHTS))
def test_cov_weight_checks(name):
    def run(t):
        kw = {k: t.tensor(v) for k, v in _COV_WEIGHTS[name].items()}
        return t.cov(t.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]]), **kw)

    same(run, warns=True)


def test_copysign_gradient_joins_the_graph():
    inf, nan = float("inf"), float("nan")

    def run(t):
        x = t.tensor([0.5, -1.0, 2.0, 0.0, -0.0, inf, nan], dtype=t.float64, requires_grad=True)
        s = t.tensor([0.5, 2.0, -1.0, -3.0, 1.0, -1.0, 2.0], dtype=t.float64,
                     requires_grad=True)
        y = t.copysign(x, s)
        g = t.arange(1.0, 8.0, dtype=t.float64)
        gx, gs = t.autograd.grad(y, (x, s), g, create_graph=True)
        return y, gx, gs, t.autograd.grad((gx * g).sum(), (x, s), allow_unused=True)

    same(run)
