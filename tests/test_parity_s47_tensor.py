"""Parity fixes of probe 47, tensors and ops (oracle: real torch at test time): all/any over
an empty dim list, std/var warnings on empty inputs, var_mean/std_mean dtype errors, warnings
of index_reduce and byte masks in masked_scatter, ..."""

import warnings

import pytest

import numtorch
from tests.oracle import same


def _x(t):
    return t.tensor([[1., 0.], [2., 3.]])


# -- 1. reductions ----------------------------------------------------------------------------

REDUCE = {
    "all_dim_empty_tuple": lambda t: t.all(_x(t), dim=()),
    "any_dim_empty_list": lambda t: t.any(_x(t), dim=[]),
    "all_method_empty_keepdim": lambda t: _x(t).all((), keepdim=True),
    "any_uint8_empty": lambda t: t.tensor([0, 2], dtype=t.uint8).any(dim=()),
    "all_bool_empty": lambda t: (_x(t) > 0).all(dim=()),
    "all_empty_input_empty_dims": lambda t: t.empty(0, 2).all(dim=()),
    "all_dims_tuple": lambda t: t.all(_x(t), dim=(0, 1)),
    "var_mean_int_error": lambda t: t.var_mean(t.arange(4)),
    "std_mean_bool_error": lambda t: t.std_mean(t.ones(3, dtype=t.bool), 0),
    "var_int_error": lambda t: t.var(t.arange(4)),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reductions(name):
    same(REDUCE[name])


WARN = {
    "std_empty_keepdim": lambda t: t.std(t.empty(0, 3), dim=-1, keepdim=True),
    "var_empty_dim1": lambda t: t.var(t.empty(0, 3), dim=[1]),
    "var_empty_dim0": lambda t: t.var(t.empty(0, 3), dim=0),
    "std_one": lambda t: t.std(t.tensor([1.])),
    "std_ok": lambda t: t.std(t.tensor([1., 2.])),
    "masked_scatter_byte": lambda t: t.zeros(3).masked_scatter(
        t.tensor([1, 0, 1], dtype=t.uint8), t.arange(3.)),
}


@pytest.mark.parametrize("name", sorted(WARN))
def test_warnings(name):
    same(WARN[name], warns=True)


def test_index_reduce_warning_names_user_line(monkeypatch):
    from numtorch.ops import reducing_scatter

    monkeypatch.setattr(reducing_scatter, "_INDEX_REDUCE_WARNED", [])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        numtorch.ones(2).index_reduce(0, numtorch.tensor([0, 0]), numtorch.tensor([2., 3.]),
                                      "amax")
    assert [w.filename for w in rec] == [__file__]
    assert "index_reduce() is in beta" in str(rec[0].message)


# -- 2. shapes and linear algebra -------------------------------------------------------------

def _mg(t, *ts):
    return t.meshgrid(*ts, indexing="ij")


SHAPES = {
    "flatten_0d_stride": lambda t: t.tensor(3.).flatten().stride(),
    "reshape_0d_stride": lambda t: t.tensor(3.).reshape(1, 1).stride(),
    "view_0d_stride": lambda t: t.tensor(3.).view(1).stride(),
    "atleast_2d_0d_stride": lambda t: t.atleast_2d(t.tensor(1)).stride(),
    "meshgrid_0d_strides": lambda t: [g.stride() for g in _mg(t, t.tensor(1), t.tensor([3, 4]))],
    "meshgrid_dtypes_differ": lambda t: _mg(t, t.tensor([1]), t.tensor([1.])),
    "meshgrid_int_widths_differ": lambda t: _mg(t, t.tensor([1]), t.tensor([1], dtype=t.int32)),
    "meshgrid_same_dtype": lambda t: _mg(t, t.tensor([1., 2.]), t.tensor([3.])),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes(name):
    same(SHAPES[name])


def _hh(t, a, tau, orgqr=False):
    return (t.orgqr if orgqr else t.linalg.householder_product)(a, tau)


LINALG = {
    "vector_norm_empty_neg1": lambda t: t.linalg.vector_norm(t.empty(0, 2), ord=-1),
    "vector_norm_empty_neg1_dim": lambda t: t.linalg.vector_norm(t.empty(0, 2), ord=-1, dim=0),
    "vector_norm_empty_frac": lambda t: t.linalg.vector_norm(t.empty(0, 2), ord=-2.5),
    "vector_norm_empty_inf_dim": lambda t: t.linalg.vector_norm(t.empty(0, 2), float("inf"), 0),
    "vector_norm_empty_inf_dim1": lambda t: t.linalg.vector_norm(t.empty(0, 2), float("inf"), 1),
    "norm_empty_neg1": lambda t: t.norm(t.empty(0, 2), p=-1),
    "norm_empty_neg1_dim": lambda t: t.norm(t.empty(0, 2), p=-1, dim=0),
    "norm_empty_neg_inf": lambda t: t.norm(t.empty(0, 2), p=float("-inf")),
    "vector_norm_0d_tensor_ord": lambda t: t.linalg.vector_norm(t.tensor([3., 4.]),
                                                                 ord=t.tensor(1.)),
    "vector_norm_0d_int_tensor_ord": lambda t: t.linalg.vector_norm(t.tensor([3., 4.]),
                                                                     ord=t.tensor(1)),
    "hh_tau_too_long": lambda t: _hh(t, t.ones(3, 2), t.ones(3)),
    "orgqr_tau_too_long": lambda t: _hh(t, t.ones(3, 2), t.ones(3), True),
    "hh_wide": lambda t: _hh(t, t.ones(2, 3), t.ones(1)),
    "orgqr_1d": lambda t: _hh(t, t.ones(3), t.ones(1), True),
    "hh_dtypes": lambda t: _hh(t, t.ones(3, 2), t.ones(2, dtype=t.float64)),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(name):
    same(LINALG[name])


# -- 3. out= ----------------------------------------------------------------------------------

def _into(fn, out):
    r = fn(out)
    return r is out, out


_C = [-1j, 3 + 4j]

OUTS = {
    "abs_complex_into_complex": lambda t: _into(lambda o: t.abs(t.tensor(_C), out=o),
                                                t.empty(2, dtype=t.complex64)),
    "abs_complex_into_complex128": lambda t: _into(lambda o: t.abs(t.tensor(_C), out=o),
                                                   t.empty(2, dtype=t.complex128)),
    "abs_complex_into_float64": lambda t: _into(lambda o: t.abs(t.tensor(_C), out=o),
                                                t.empty(2, dtype=t.float64)),
    "abs_complex_into_long": lambda t: _into(lambda o: t.abs(t.tensor(_C), out=o),
                                             t.empty(2, dtype=t.long)),
    "abs_float_into_complex": lambda t: _into(lambda o: t.abs(t.tensor([-1.]), out=o),
                                              t.empty(1, dtype=t.complex64)),
    "exp_int_into_complex": lambda t: _into(lambda o: t.exp(t.tensor([1, 2]), out=o),
                                            t.empty(2, dtype=t.complex64)),
    "arange_out_2d_same_numel": lambda t: _into(lambda o: t.arange(5, out=o), t.empty(1, 5)),
    "arange_out_empty": lambda t: _into(lambda o: t.arange(5, out=o), t.empty(0)),
    "linspace_out_2d": lambda t: _into(lambda o: t.linspace(0, 1, 3, out=o), t.empty(3, 1)),
    "logspace_out_2d": lambda t: _into(lambda o: t.logspace(0, 1, 4, out=o), t.empty(2, 2)),
    "linspace_out_resized": lambda t: _into(lambda o: t.linspace(0, 1, 3, out=o), t.empty(2)),
}


@pytest.mark.parametrize("name", sorted(OUTS))
def test_out(name):
    same(OUTS[name])


OUT_WARN = {
    "arange_out_short": lambda t: t.arange(5, out=t.empty(2)),
    "arange_out_2d_other_numel": lambda t: t.arange(5, out=t.empty(2, 3, dtype=t.long)),
    "arange_out_float_steps": lambda t: t.arange(0, 1, 0.25, out=t.empty(3)),
}


@pytest.mark.parametrize("name", sorted(OUT_WARN))
def test_out_warnings(name):
    same(OUT_WARN[name], warns=True)


# -- 4. half-precision rounding and small ops ---------------------------------------------------

def _y(t, dt):
    g = t.Generator().manual_seed(0)
    return (t.randn(5, 33, generator=g) * 3).to(getattr(t, dt))


HALF = ["float16", "bfloat16"]


@pytest.mark.parametrize("dt", HALF)
def test_logcumsumexp_half_scans_in_float32(dt):
    same(lambda t: _y(t, dt).logcumsumexp(1).float())


@pytest.mark.parametrize("dt", HALF)
def test_renorm_half_in_float32(dt):
    same(lambda t: _y(t, dt)[:, :8].renorm(2, 0, 5).float())


@pytest.mark.parametrize("dt", ["float32", "float64"] + HALF)
@pytest.mark.parametrize("dx", [None, 0.1, 3])
def test_trapezoid_dx_rounding(dt, dx):
    same(lambda t: (t.trapezoid(_y(t, dt), dx=dx) if dx else t.trapz(_y(t, dt))).double())


SMALL = {
    "trapezoid_bool": lambda t: t.trapezoid(t.tensor([True, False, True])),
    "trapezoid_bool_x": lambda t: t.trapezoid(t.tensor([1., 2.]), t.tensor([True, False])),
    "cumulative_trapezoid_bool": lambda t: t.cumulative_trapezoid(t.tensor([True, False])),
    "cumulative_trapezoid_bool_x": lambda t: t.cumulative_trapezoid(t.tensor([1., 2.]),
                                                                     t.tensor([True, False])),
    "trapezoid_0d_bool": lambda t: t.trapezoid(t.tensor(True)),
    "trapezoid_int_dx": lambda t: t.trapezoid(t.tensor([1, 2, 4]), dx=0.5),
    "trapezoid_one_sample": lambda t: t.trapezoid(t.tensor([[3.]]), dim=0),
    "trapezoid_grad_node": lambda t: t.trapezoid(t.ones(3, requires_grad=True),
                                                 dx=2).grad_fn.name(),
    "hann_window_long": lambda t: t.hann_window(4, dtype=t.long),
    "kaiser_window_long_rg": lambda t: t.kaiser_window(4, False, dtype=t.long,
                                                       requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_ops(name):
    same(SMALL[name])


@pytest.mark.parametrize("args", [(-1.3, 7.9, 0.37), (0, 1, 0.01), (0.1, 100.3, 0.7),
                                  (5, -3, -0.11)])
def test_arange_bfloat16_rounding(args):
    same(lambda t: t.arange(*args, dtype=t.bfloat16).float())



# -- 5. sparse ----------------------------------------------------------------------------------

def _sb(t, coalesce=False):
    s = t.sparse_coo_tensor(t.tensor([[0, 1, 1], [2, 0, 2]]), t.tensor([3., 4., 5.]), (2, 3))
    b = t.stack([s, s * 2])
    return b.coalesce() if coalesce else b


def _sparse_leaf_bmm_grad(t):
    a = t.sparse_coo_tensor(t.tensor([[0, 1], [0, 1], [1, 2]]), t.tensor([1., 2.]), (2, 2, 3),
                            requires_grad=True)
    d = t.arange(12.).reshape(2, 3, 2).requires_grad_()
    r = t.bmm(a, d)
    r.sum().backward()
    return r, str(a.grad.layout), a.grad.to_dense(), d.grad, r.grad_fn.name()


SPARSE = {
    "bmm": lambda t: t.bmm(_sb(t), t.arange(12.).reshape(2, 3, 2)),
    "bmm_coalesced": lambda t: t.bmm(_sb(t, True), t.arange(12.).reshape(2, 3, 2)),
    "bmm_method": lambda t: _sb(t).bmm(t.ones(2, 3, 1)),
    "bmm_uncoalesced_dups": lambda t: t.bmm(t.sparse_coo_tensor(
        t.tensor([[1, 0, 1], [1, 0, 1], [2, 1, 2]]), t.tensor([1., 2., 3.]), (2, 2, 3)),
        t.arange(12.).reshape(2, 3, 2)),
    "bmm_batch_mismatch": lambda t: t.bmm(_sb(t), t.ones(3, 3, 1)),
    "bmm_inner_mismatch": lambda t: t.bmm(_sb(t), t.ones(2, 4, 1)),
    "bmm_2d_dense": lambda t: t.bmm(_sb(t), t.ones(2, 3)),
    "bmm_sparse_sparse": lambda t: t.bmm(_sb(t), _sb(t)),
    "bmm_dtype": lambda t: t.bmm(_sb(t), t.ones(2, 3, 1, dtype=t.float64)),
    "bmm_2d_sparse": lambda t: t.bmm(_sb(t)[0], t.ones(2, 3)),
    "bmm_leaf_grad": _sparse_leaf_bmm_grad,
}


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_sparse(name):
    same(SPARSE[name])


# -- 6. argument errors ---------------------------------------------------------------------------

ERRORS = {
    "index_put_method_not_tuple": lambda t: t.zeros(3).index_put(t.tensor([0]), t.tensor(1.)),
    "index_put__method_not_tuple": lambda t: t.zeros(3).index_put_(t.tensor([0]),
                                                                   t.tensor(1.)),
    "index_put_function_not_tuple": lambda t: t.index_put(t.zeros(3), t.tensor([0]),
                                                          t.tensor(1.)),
    "index_put_list_ok": lambda t: t.zeros(3).index_put_([t.tensor([0])], t.tensor(1.)),
    "searchsorted_0d_both": lambda t: t.searchsorted(t.tensor(3.), t.tensor(2.)),
    "searchsorted_0d_bounds_number": lambda t: t.searchsorted(t.tensor(3.), 2.),
    "searchsorted_2d_bounds_0d": lambda t: t.searchsorted(t.tensor([[1., 2.]]), t.tensor(2.)),
    "searchsorted_2d_bounds_number": lambda t: t.searchsorted(t.tensor([[1., 2.]]), 2.),
    "searchsorted_0d_bounds_1d": lambda t: t.searchsorted(t.tensor(3.), t.tensor([2.])),
    "bucketize_0d_bounds": lambda t: t.bucketize(t.tensor(2.), t.tensor(3.)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    same(ERRORS[name])


# -- 7. one-operand einsum is a view --------------------------------------------------------------

def _einsum_write(t, eq, shape):
    x = t.arange(float(np_prod(shape))).reshape(shape)
    r = t.einsum(eq, x)
    r.add_(100)
    return r, r.stride(), r.storage_offset(), x


def np_prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@pytest.mark.parametrize("eq,shape", [("ii->i", (3, 3)), ("ij->ji", (2, 3)), ("ij", (2, 3)),
                                      ("ji", (2, 3)), ("iij->ji", (2, 2, 3)),
                                      ("bii->bi", (2, 3, 3)), ("iii->i", (2, 2, 2)),
                                      ("...ii->...i", (2, 3, 3)), ("jii->ij", (2, 3, 3)),
                                      ("iji->ij", (2, 3, 2)), ("ijk->kji", (2, 3, 4)),
                                      ("i...->...i", (2, 3))])
def test_einsum_one_operand_view(eq, shape):
    same(lambda t: _einsum_write(t, eq, shape))


EINSUM = {
    "diag_int8": lambda t: t.einsum("ii->i", t.arange(4, dtype=t.int8).reshape(2, 2)),
    "diag_bool": lambda t: t.einsum("ii->i", t.tensor([[True, False], [False, True]])),
    "trace_still_sum": lambda t: t.einsum("ii", t.arange(9.).reshape(3, 3)),
    "grad_node": lambda t: t.einsum("ii->i", t.ones(2, 2, requires_grad=True)).grad_fn.name(),
    "grad_values": lambda t: _einsum_grad(t),
}


def _einsum_grad(t):
    a = t.arange(9.).reshape(3, 3).requires_grad_()
    r = t.einsum("ii->i", a)
    (r * t.tensor([1., 2., 3.])).sum().backward()
    return a.grad


@pytest.mark.parametrize("name", sorted(EINSUM))
def test_einsum_forms(name):
    same(EINSUM[name])


@pytest.mark.parametrize("eq,n", [("ij,jk->ik", 3), ("ij->ij", 3), ("ij,jk,kl->il", 2),
                                  ("ij,jk,kl->il", 4), ("ij,jk,kl->il", 1), ("i,i", 5)])
def test_einsum_operand_count_errors(eq, n):
    same(lambda t: t.einsum(eq, *[t.ones(2, 2)] * n))


def test_new_tensor_copy_warning_names_new_tensor_and_user_line():
    def f(t):
        x = t.ones(2)
        return x.new_tensor(x)

    same(f, warns=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        x = numtorch.ones(2)
        x.new_tensor(x)
        numtorch.tensor(x)
    assert [w.filename for w in rec] == [__file__, __file__]


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("kw", [{"bins": 7}, {"bins": 10, "min": -2, "max": 2},
                                {"bins": 3, "min": -1.3, "max": 0.7}])
def test_histc_half(dt, kw):
    same(lambda t: t.histc(_y(t, dt), **kw).float())


# -- 8. bfloat16 with NaN (NumPy's kind for it is 'V'; ml_dtypes' NaN does not sort last) --------

def _bn(t, dt="bfloat16"):
    nan = float("nan")
    return t.tensor([[3., nan, 1., 2.], [nan, 0., -1., nan], [5., 4., 4., -0.]],
                    dtype=getattr(t, dt))


def _f(r):
    if isinstance(r, tuple):
        return tuple(_f(x) for x in r)
    return r.float() if r.dtype.is_floating_point else r


BF16_NAN = {
    "isnan": lambda t: t.isnan(_bn(t)),
    "isinf": lambda t: t.isinf(_bn(t) / 0),
    "isfinite": lambda t: t.isfinite(_bn(t) / 0),
    "isposinf": lambda t: t.isposinf(_bn(t) / 0),
    "isneginf": lambda t: t.isneginf(_bn(t) / 0),
    "any_nan": lambda t: _bn(t).isnan().any(),
    "sort": lambda t: _f(tuple(_bn(t).sort(1))),
    "sort_desc": lambda t: _f(tuple(_bn(t).sort(1, descending=True))),
    "argsort": lambda t: _bn(t).argsort(0),
    "topk": lambda t: _f(tuple(_bn(t).topk(2, 1))),
    "kthvalue": lambda t: _f(tuple(_bn(t).kthvalue(2, 1))),
    "median_dim": lambda t: _f(tuple(_bn(t).median(1))),
    "median_all": lambda t: _f(_bn(t).median()),
    "nanmedian_dim": lambda t: _f(tuple(_bn(t).nanmedian(1))),
    "nanmedian_all": lambda t: _f(_bn(t).nanmedian()),
    "mode": lambda t: _f(tuple(_bn(t).mode(1))),
    "cummax": lambda t: _f(tuple(_bn(t).cummax(1))),
    "cummin": lambda t: _f(tuple(_bn(t).cummin(1))),
    "msort": lambda t: _f(t.msort(_bn(t))),
    "unique": lambda t: _f(t.unique(_bn(t), return_inverse=True, return_counts=True)),
    "unique_dim": lambda t: _f(t.unique(_bn(t).nan_to_num(7.), dim=1, return_counts=True)),
    "unique_consecutive": lambda t: _f(t.unique_consecutive(_bn(t), return_counts=True)),
    "searchsorted": lambda t: t.searchsorted(t.tensor([1., 2., float("nan")], dtype=t.bfloat16),
                                             t.tensor([float("nan"), 1.5], dtype=t.bfloat16)),
    "searchsorted_plain": lambda t: t.searchsorted(t.tensor([1., 2., 3.], dtype=t.bfloat16),
                                                   t.tensor([0.5, 2., 9.], dtype=t.bfloat16),
                                                   right=True),
    "sort_noncontiguous": lambda t: _f(tuple(_bn(t).t().sort(0))),
}


@pytest.mark.parametrize("name", sorted(BF16_NAN))
def test_bfloat16_nan(name):
    same(BF16_NAN[name])


def test_three_argument_pow_is_refused_as_torch():
    same(lambda t: pow(t.tensor(3), 2, 5))
    same(lambda t: pow(t.tensor(3.), 2))


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("d", ["t0.5", "t2", "t64", "bool", "int", "t1d", "str"])
def test_fftfreq_spacing_forms(fn, d):
    def f(t):
        arg = {"t0.5": t.tensor(0.5), "t2": t.tensor(2), "t64": t.tensor(0.5, dtype=t.float64),
               "bool": True, "int": 2, "t1d": t.tensor([0.5]), "str": "a"}[d]
        return getattr(t.fft, fn)(4, arg)
    same(f)


def _fft_n(t, fn, n):
    x = t.arange(4.)
    arg = {"t0": t.tensor(2), "t1d": t.tensor([2]), "float": 2.0, "bool": True}[n]
    if fn == "fftn":
        return t.fft.fftn(x, s=(arg,))
    return getattr(t.fft, fn)(x, n=arg)


@pytest.mark.parametrize("fn", ["fft", "rfft", "irfft", "hfft", "fftn"])
@pytest.mark.parametrize("n", ["t0", "t1d", "float", "bool"])
def test_fft_length_forms(fn, n):
    same(lambda t: _fft_n(t, fn, n))


@pytest.mark.parametrize("d", ["t1", "t-2i32", "float", "bool", "t1d", "tfloat", "none"])
@pytest.mark.parametrize("nd", [1, 2])
def test_diag_diagonal_forms(d, nd):
    def f(t):
        x = t.arange(4.) if nd == 1 else t.arange(4.).reshape(2, 2)
        arg = {"t1": t.tensor(1), "t-2i32": t.tensor(-2, dtype=t.int32), "float": 1.5,
               "bool": True, "t1d": t.tensor([1]), "tfloat": t.tensor(1.), "none": None}[d]
        return t.diag(x, arg)
    same(f)


@pytest.mark.parametrize("pair", [("float32", "float64"), ("float16", "float32"),
                                  ("bfloat16", "float16"), ("float32", "complex64"),
                                  ("float32", "int64"), ("complex128", "float32")])
@pytest.mark.parametrize("which", ["end", "weight"])
def test_lerp_dtype_errors(pair, which):
    def f(t):
        a = t.ones(2, dtype=getattr(t, pair[0]))
        b = t.ones(2, dtype=getattr(t, pair[1]))
        return t.lerp(a, b, 0.5) if which == "end" else t.lerp(a, a, b)
    same(f)


@pytest.mark.parametrize("dt", ["int32", "bool", "uint8", "float64", "float16", "complex64"])
@pytest.mark.parametrize("fn", ["nanmean", "mean", "nansum"])
def test_nan_reductions_dtype_argument(fn, dt):
    same(lambda t: getattr(t, fn)(t.ones(2, 3), 0, dtype=getattr(t, dt)))


def test_nanmean_complex_input():
    same(lambda t: t.nanmean(t.ones(2, dtype=t.complex64)))
