"""Parity fixes of probe 48, tensors and ops (oracle: real torch at test time): signed-zero ties
of maximum/minimum/fmax/fmin, bools and NumPy ints as size entries, ..."""

import itertools

import numpy as np
import pytest

from tests.oracle import same

# -- 1. signed-zero ties of maximum/minimum/fmax/fmin -----------------------------------------

_DTYPES = ["float16", "bfloat16", "float32", "float64"]
_VALUES = [0.0, -0.0, float("nan"), 1.0]


def _tie_signs(t, fn, dtype):
    # one pair a call: torch's vector loops (16+ elements) pick either operand of a tie
    dt = getattr(t, dtype)
    out = []
    for x, y in itertools.product(_VALUES, _VALUES):
        r = getattr(t, fn)(t.tensor([x], dtype=dt), t.tensor([y], dtype=dt))
        out += [t.signbit(r.float()) & ~r.isnan(), r.isnan()]
    return out


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("fn", ["maximum", "minimum", "fmax", "fmin"])
def test_signed_zero_ties(fn, dtype):
    same(lambda t: _tie_signs(t, fn, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signed_zero_ties_broadcast_and_method(dtype):
    def f(t):
        dt = getattr(t, dtype)
        a = t.tensor([[0.0], [-0.0]], dtype=dt)
        b = t.tensor([-0.0, 0.0, 0.0], dtype=dt)
        return [t.signbit(r) for r in (a.maximum(b), b.minimum(a), t.fmax(b, a), a.fmin(b))]

    same(f)


@pytest.mark.parametrize("fn", ["maximum", "minimum", "fmax", "fmin"])
def test_tie_gradients(fn):
    def f(t):
        x = t.tensor([1.0, 0.0, -0.0, 2.0], requires_grad=True)
        y = t.tensor([1.0, -0.0, 0.0, 1.0], requires_grad=True)
        return t.autograd.grad(getattr(t, fn)(x, y).sum(), [x, y])

    same(f)


# -- 2. size arguments: bools after the first entry, NumPy ints, bool tensors ------------------

SIZES = {
    "view_bool": lambda t: t.arange(6.).view(-1, True),
    "view_tuple_bool": lambda t: t.arange(6.).view((-1, True)),
    "view_bool_first": lambda t: t.arange(6.).view(True, 6),
    "view_float_single": lambda t: t.arange(6.).view(1.5),
    "view_float_tuple": lambda t: t.arange(6.).view((1.5, 6)),
    "view_float_list": lambda t: t.arange(6.).view([1.5, 6]),
    "view_none_tuple": lambda t: t.arange(6.).view((None,)),
    "reshape_float_first": lambda t: t.arange(6.).reshape(1.5, 4),
    "expand_bool_first": lambda t: t.ones(1, 1).expand((True, 1)),
    "permute_float_first": lambda t: t.ones(2, 3).permute((1.0, 0)),
    "flip_float_single": lambda t: t.ones(2, 3).flip((1.0,)),
    "repeat_bool_first": lambda t: t.ones(2).repeat(True, 1),
    "reshape_bool": lambda t: t.arange(6.).reshape(6, True),
    "reshape_fn_bool": lambda t: t.reshape(t.arange(6.), (6, True)),
    "reshape_bool_first": lambda t: t.arange(6.).reshape((True, -1)),
    "expand_bool": lambda t: t.ones(2, 1).expand(2, True),
    "zeros_bool": lambda t: t.zeros(2, True),
    "zeros_tuple_bool": lambda t: t.zeros((2, True)),
    "full_bool": lambda t: t.full((2, True), 1.),
    "empty_bool_shape": lambda t: t.empty(2, True).shape,
    "randn_bool_shape": lambda t: t.randn((2, True)).shape,
    "new_zeros_bool": lambda t: t.ones(2).new_zeros(2, True),
    "new_ones_bool": lambda t: t.ones(2).new_ones((2, True)),
    "new_full_bool": lambda t: t.ones(2).new_full((2, True), 3),
    "new_full_int_size": lambda t: t.ones(2).new_full(3, 3),
    "new_zeros_float_msg": lambda t: t.ones(2).new_zeros(2, 3.0),
    "new_ones_none_msg": lambda t: t.ones(2).new_ones((2, None)),
    "new_empty_float_msg": lambda t: t.ones(2).new_empty((2, 1.5)),
    "new_full_float_msg": lambda t: t.ones(2).new_full((2, 1.5), 0),
    "new_zeros_negative": lambda t: t.ones(2).new_zeros(2, -1),
    "new_zeros_size_kw": lambda t: t.ones(2).new_zeros(size=(2, True)),
    "repeat_bool": lambda t: t.arange(3).repeat(2, True),
    "permute_bool": lambda t: t.ones(2, 3).permute(0, True),
    "flip_bool": lambda t: t.arange(6).view(2, 3).flip(0, True),
    "sum_dims_bool": lambda t: t.ones(2, 3).sum((0, True)),
    "resize_bool": lambda t: t.arange(6.).resize_(2, True),
    "resize_float_msg": lambda t: t.arange(6.).resize_(2, 1.5),
    "broadcast_to_bool": lambda t: t.ones(1).broadcast_to((2, True)),
    "empty_strided_bool": lambda t: t.empty_strided((2, True), (1, 1)).shape,
    "linear_bool": lambda t: t.nn.Linear(2, True).weight.shape,
    "view_bool_tensor": lambda t: t.arange(6.).view(6, t.tensor(True)),
    "zeros_bool_tensor": lambda t: t.zeros((2, t.tensor(True))),
    "reshape_bool_tensor": lambda t: t.arange(6.).reshape(t.tensor(True), 6),
    "unflatten_float": lambda t: t.arange(6.).unflatten(0, (6, 1.0)),
    "unflatten_none": lambda t: t.arange(6.).unflatten(0, (6, None)),
    "unflatten_bool": lambda t: t.arange(6.).unflatten(0, (6, True)),
    "unflatten_np": lambda t: t.arange(6.).unflatten(0, [np.int64(2), 3]),
    "as_strided_float": lambda t: t.arange(6.).as_strided((2, 1.0), (1, 1)),
    "as_strided_str": lambda t: t.arange(6.).as_strided((2, "a"), (1, 1)),
    "as_strided_bool": lambda t: t.arange(6.).as_strided((2, True), (1, 1)),
    "chunk_np_int": lambda t: t.arange(6.).chunk(np.int64(2)),
    "chunk_np_int32": lambda t: t.arange(6.).chunk(np.int32(4)),
    "roll_np_int": lambda t: t.arange(6.).roll(np.int64(2)),
    "roll_np_int_dims": lambda t: t.arange(6.).view(2, 3).roll(np.int64(1), np.int64(1)),
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_size_entries(name):
    same(SIZES[name])


# -- 3. torch.tensor from data ------------------------------------------------------------------

_NP = np.arange(24).reshape(2, 3, 4)

DATA = {
    "big_int_float_dtype": lambda t: t.tensor([2**64, 1], dtype=t.float32),
    "big_int_nested_float64": lambda t: t.tensor([[2**64], [1]], dtype=t.float64),
    "big_int_complex": lambda t: t.tensor([2**70], dtype=t.complex64),
    "big_int_half_inf": lambda t: t.tensor([2**64], dtype=t.float16),
    "big_int_no_dtype": lambda t: t.tensor([2**64]),
    "decimal_msg": lambda t: t.tensor(__import__("decimal").Decimal("1.5")),
    "fraction_msg": lambda t: t.tensor(__import__("fractions").Fraction(1, 2)),
    "list_decimal_msg": lambda t: t.tensor([1, __import__("decimal").Decimal("1.5")]),
}


@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_from_data(name):
    same(DATA[name])


_LAYOUTS = {
    "transposed": lambda: _NP.transpose(2, 0, 1),
    "T": lambda: _NP.T,
    "fortran": lambda: np.asfortranarray(_NP),
    "sliced_transposed": lambda: _NP.transpose(2, 0, 1)[:, :, ::2],
    "sliced": lambda: _NP[:, ::2].transpose(1, 0, 2),
    "broadcast": lambda: np.broadcast_to(np.arange(3), (2, 3)),
    "size1": lambda: _NP[..., :1].transpose(2, 1, 0),
}


@pytest.mark.parametrize("dtype", [None, "float32"])
@pytest.mark.parametrize("name", sorted(_LAYOUTS))
def test_tensor_from_array_keeps_layout(name, dtype):
    def f(t):
        x = t.tensor(_LAYOUTS[name](), dtype=None if dtype is None else getattr(t, dtype))
        return x, x.stride(), x.is_contiguous()

    same(f)


def test_where_uint8_warning_names_user_line(monkeypatch):
    import warnings

    import numtorch
    from numtorch import _warn_once

    monkeypatch.setattr(_warn_once, "_DONE", set())
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        numtorch.where(numtorch.tensor([1, 0], dtype=numtorch.uint8), numtorch.ones(2), 0.)
    assert [w.filename for w in rec] == [__file__]


# -- 4. values: searchsorted with a number, erfinv(-0.0) ----------------------------------------

_BOUNDS = [1, 3, 3, 5, 7]

SEARCH = {
    "float_among_ints": lambda t: t.searchsorted(t.tensor(_BOUNDS), 3.5),
    "float_among_ints_right": lambda t: t.searchsorted(t.tensor(_BOUNDS), 3.0, right=True),
    "float_among_int8": lambda t: t.searchsorted(t.tensor(_BOUNDS, dtype=t.int8), 2.5),
    "neg_among_uint8": lambda t: t.searchsorted(t.tensor(_BOUNDS, dtype=t.uint8), -1),
    "big_among_uint8": lambda t: t.searchsorted(t.tensor(_BOUNDS, dtype=t.uint8), 300),
    "int_among_half": lambda t: t.searchsorted(t.tensor(_BOUNDS, dtype=t.half), 3.0001),
    "bool_among_ints": lambda t: t.searchsorted(t.tensor(_BOUNDS), True),
    "bucketize_float": lambda t: t.bucketize(3.5, t.tensor(_BOUNDS)),
    "bucketize_float_right": lambda t: t.bucketize(5.0, t.tensor(_BOUNDS), right=True),
}


@pytest.mark.parametrize("name", sorted(SEARCH))
def test_searchsorted_number(name):
    same(SEARCH[name])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_erfinv_signed_zero(dtype):
    def f(t):
        y = t.erfinv(t.tensor([-0.0, 0.0, 0.5, -1.0, 2.0], dtype=getattr(t, dtype))).float()
        return y, t.signbit(y) & ~y.isnan()

    same(f)


# -- 5. argument checks: bool alpha of sub, logsumexp's out dtype --------------------------------

CHECKS = {
    "sub_alpha_true": lambda t: t.sub(t.ones(2), t.ones(2), alpha=True),
    "sub_alpha_false": lambda t: t.sub(t.ones(2), t.ones(2), alpha=False),
    "sub_method_alpha_true": lambda t: t.ones(2).sub(1, alpha=True),
    "sub_inplace_alpha_true": lambda t: t.ones(2).sub_(t.ones(2), alpha=True),
    "rsub_alpha_true": lambda t: t.rsub(t.ones(2), 1, alpha=True),
    "sub_int_alpha_true": lambda t: t.sub(t.ones(2, dtype=t.int64), 1, alpha=True),
    "add_alpha_true": lambda t: t.add(t.ones(2), t.ones(2), alpha=True),
    "logsumexp_out_long": lambda t: t.logsumexp(t.ones(2, 3), 1, out=t.empty(2, dtype=t.int64)),
    "logsumexp_out_bool": lambda t: t.logsumexp(t.ones(2, 3), 1, out=t.empty(2, dtype=t.bool)),
    "logsumexp_out_double": lambda t: t.logsumexp(t.ones(2, 3), 1, out=t.empty(2, dtype=t.float64)),
    "logsumexp_int_out_half": lambda t: t.logsumexp(t.ones(2, dtype=t.int64), 0,
                                                    out=t.empty((), dtype=t.float16)),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_argument_checks(name):
    same(CHECKS[name])


# -- 6. reductions with dtype= or an out of another dtype: the input cast first ------------------

def _data(t, dtype="float32"):
    g = t.Generator().manual_seed(0)
    return (t.randn(6, 300, generator=g) * 3).to(getattr(t, dtype))


_REDUCE_DTYPES = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("src", _REDUCE_DTYPES)
@pytest.mark.parametrize("dtype", _REDUCE_DTYPES)
@pytest.mark.parametrize("fn", ["sum", "sum_all", "cumsum", "cumprod", "prod", "mean", "mean_all",
                                "nansum", "nanmean"])
def test_reduction_dtype_argument(fn, dtype, src):
    def f(t):
        x, dt = _data(t, src), getattr(t, dtype)
        if fn == "sum_all":
            r = x.sum(dtype=dt)
        elif fn == "mean_all":
            r = x.mean(dtype=dt)
        elif fn in ("cumprod", "prod"):
            r = getattr(x[:, :12], fn)(1, dtype=dt)
        else:
            r = getattr(x, fn)(1, dtype=dt)
        return r.float()

    same(f)


@pytest.mark.parametrize("src", _REDUCE_DTYPES)
@pytest.mark.parametrize("dtype", _REDUCE_DTYPES)
@pytest.mark.parametrize("fn", ["sum", "mean", "var", "std", "nansum", "nanmean", "cumsum",
                                "prod"])
def test_reduction_into_out_of_other_dtype(fn, dtype, src):
    def f(t):
        x = _data(t, src)
        x = x[:, :12] if fn == "prod" else x
        o = t.empty(0, dtype=getattr(t, dtype))
        r = getattr(t, fn)(x, 1, out=o)
        return r is o, o.float()

    same(f)


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
def test_float32_variance_in_double(fn):
    same(lambda t: getattr(t, fn)(_data(t), 1))
    same(lambda t: getattr(t, fn)(_data(t), (0, 1), correction=0))
    same(lambda t: getattr(t, fn)(_data(t)))
    if fn in ("var", "std"):  # (var_mean's mean over leading dims: torch's Welford update)
        same(lambda t: getattr(t, fn)(_data(t), 0, correction=0))


@pytest.mark.parametrize("fn", ["sum", "cumsum", "cumprod", "prod", "mean", "nanmean"])
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_reduction_dtype_gradient_and_node(fn, dtype):
    def f(t):
        x = t.tensor([[1.5, -2.25, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        y = getattr(x, fn)(1, dtype=getattr(t, dtype))
        (g,) = t.autograd.grad(y.float().sum(), [x])
        return y.dtype, y.grad_fn.name(), len(y.grad_fn.next_functions), g

    same(f)


NORM_DTYPES = {
    "norm_dim_half": lambda t: t.norm(t.ones(2, 3), dim=1, dtype=t.float16),
    "norm_p1_half": lambda t: t.norm(t.ones(2, 3), p=1, dtype=t.float16),
    "norm_fro_dims_half": lambda t: t.norm(t.ones(2, 3), "fro", dim=(0, 1), dtype=t.float16),
    "norm_double_to_float": lambda t: t.norm(t.ones(2, 3, dtype=t.float64), dtype=t.float32),
    "norm_float_to_double": lambda t: t.norm(t.ones(2, 3), dim=1, dtype=t.float64),
    "norm_int_to_float": lambda t: t.norm(t.ones(2, 3, dtype=t.int64), dtype=t.float32),
    "matrix_norm_half": lambda t: t.linalg.matrix_norm(t.ones(2, 3), dtype=t.float16),
    "matrix_norm_nuc_half": lambda t: t.linalg.matrix_norm(t.ones(2, 3), "nuc", dtype=t.float16),
    "matrix_norm_long": lambda t: t.linalg.matrix_norm(t.ones(2, 3), dtype=t.int64),
    "matrix_norm_double": lambda t: t.linalg.matrix_norm(t.ones(2, 3), dtype=t.float64),
    "matrix_norm_complex": lambda t: t.linalg.matrix_norm(t.ones(2, 3), dtype=t.complex64),
    "linalg_norm_half": lambda t: t.linalg.norm(t.ones(2, 3), dtype=t.float16),
}


@pytest.mark.parametrize("name", sorted(NORM_DTYPES))
def test_norm_dtype_narrowing(name):
    same(NORM_DTYPES[name])


_MAT, _VEC = (2, 3), (3,)

OUT_MESSAGES = {
    "matmul_2d": lambda t: t.matmul(t.ones(*_MAT), t.ones(3, 2), out=t.empty(2, 2, dtype=t.float64)),
    "matmul_dot": lambda t: t.matmul(t.ones(*_VEC), t.ones(*_VEC), out=t.empty((), dtype=t.float64)),
    "matmul_mv": lambda t: t.matmul(t.ones(*_MAT), t.ones(*_VEC), out=t.empty(2, dtype=t.float64)),
    "mv": lambda t: t.mv(t.ones(*_MAT), t.ones(*_VEC), out=t.empty(2, dtype=t.float64)),
    "dot": lambda t: t.dot(t.ones(*_VEC), t.ones(*_VEC), out=t.empty((), dtype=t.float64)),
    "logcumsumexp": lambda t: t.logcumsumexp(t.ones(*_MAT), 1,
                                             out=t.empty(*_MAT, dtype=t.float64)),
    "logcumsumexp_ok": lambda t: t.logcumsumexp(t.ones(*_MAT), 1, out=t.empty(0)),
}


@pytest.mark.parametrize("name", sorted(OUT_MESSAGES))
def test_out_dtype_messages(name):
    same(OUT_MESSAGES[name])


COMPLEX_PARTS = {
    "complex_bf16": lambda t: t.complex(t.ones(2, dtype=t.bfloat16), t.ones(2, dtype=t.bfloat16)),
    "polar_bf16": lambda t: t.polar(t.ones(2, dtype=t.bfloat16), t.ones(2, dtype=t.bfloat16)),
    "complex_bf16_float": lambda t: t.complex(t.ones(2, dtype=t.bfloat16), t.ones(2)),
    "complex_float_bf16": lambda t: t.complex(t.ones(2), t.ones(2, dtype=t.bfloat16)),
    "complex_float": lambda t: t.complex(t.ones(2), t.zeros(2)),
    "complex_double_float": lambda t: t.complex(t.ones(2, dtype=t.float64), t.ones(2)),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_PARTS))
def test_complex_parts_dtypes(name):
    same(COMPLEX_PARTS[name])


FILL_VALUES = {
    "full_1d_tensor": lambda t: t.full((2,), t.tensor([2.5])),
    "full_0d_tensor": lambda t: t.full((2,), t.tensor(2.5)),
    "full_0d_int": lambda t: t.full((2,), t.tensor(2)),
    "full_0d_bool": lambda t: t.full((2,), t.tensor(True)),
    "full_2el_tensor": lambda t: t.full((2,), t.ones(2)),
    "new_full_1d_tensor": lambda t: t.ones(2).new_full((2,), t.tensor([1.0])),
    "full_like_1d_tensor": lambda t: t.full_like(t.ones(2), t.tensor([3.0])),
    "full_like_0d_tensor": lambda t: t.full_like(t.ones(2), t.tensor(3.0)),
    "scalar_tensor_1d": lambda t: t.scalar_tensor(t.tensor([1.0])),
    "scalar_tensor_str": lambda t: t.scalar_tensor("a"),
    "scalar_tensor_0d": lambda t: t.scalar_tensor(t.tensor(2)),
}


@pytest.mark.parametrize("name", sorted(FILL_VALUES))
def test_fill_value_tensors(name):
    same(FILL_VALUES[name])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sgn_of_infinite_complex(dtype):
    inf, nan = float("inf"), float("nan")
    values = [complex(inf, 1), complex(-inf, inf), complex(1, -inf), complex(nan, 1), 0j,
              complex(3, 4)]

    def f(t):  # one value a call (torch's vector loop fills the imaginary part otherwise)
        out = [t.sgn(t.tensor([v], dtype=getattr(t, dtype))) for v in values]
        return [(o.real.isnan(), t.where(o.real.isnan(), 0, o.real)) for o in out]

    same(f, rtol=1e-6)  # (finite values: torch's x * (1 / |x|) is an ulp from x / |x|)


ROLLS = {
    "two_shifts_no_dims": lambda t: t.arange(6).view(2, 3).roll((1, 2)),
    "list_two_shifts_fn": lambda t: t.roll(t.arange(6).view(2, 3), [1, 1]),
    "one_shift_tuple": lambda t: t.arange(6).view(2, 3).roll((1,)),
    "one_shift_list": lambda t: t.arange(6).view(2, 3).roll([2]),
    "no_shifts": lambda t: t.arange(6).view(2, 3).roll(()),
    "tensor_shift_0d": lambda t: t.arange(6).view(2, 3).roll(t.tensor(1)),
    "tensor_shifts_1d": lambda t: t.arange(6).view(2, 3).roll(t.tensor([1, 2])),
    "shifts_dims": lambda t: t.arange(6).view(2, 3).roll((1, 2), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(ROLLS))
def test_roll_shift_forms(name):
    same(ROLLS[name])
