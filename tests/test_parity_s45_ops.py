"""Parity fixes of probe 45 (indexing and data movement; oracle: real torch at test time):
index_put's argument checks, put_/take on empty tensors, scatter/index_reduce dtype refusals,
float16/bfloat16 accumulation of scatter_reduce and index_add, number writes into bool and
half-precision tensors, index_fill with a tensor value that requires grad."""

import pytest

from tests.oracle import same


def _ix(t, *v):
    return t.tensor(list(v))


def _f(out):
    """bfloat16 results as float32 (exact; the oracle reads tensors through NumPy)."""
    if isinstance(out, (tuple, list)):
        return type(out)(_f(o) for o in out)
    if hasattr(out, "dtype") and str(out.dtype) == "torch.bfloat16":
        return out.float()
    return out


# -- 1. index_put_ / put_ / take argument checks ----------------------------------------------

PUT = {
    "acc_bad_broadcast": lambda t: t.zeros(5).index_put_((_ix(t, 0, 0, 1, 0),), t.ones(2),
                                                         accumulate=True),
    "acc_bad_broadcast_2d": lambda t: t.zeros(2, 3).index_put_((_ix(t, 0, 1),), t.ones(3, 1),
                                                               accumulate=True),
    "acc_out_of_range": lambda t: t.zeros(3).index_put_((_ix(t, 0, 5),), t.tensor(1.),
                                                        accumulate=True),
    "acc_out_of_range_dim1": lambda t: t.zeros(2, 3).index_put_(
        (_ix(t, 0, 1), _ix(t, 0, -5)), t.tensor(1.), accumulate=True),
    "none_entry": lambda t: t.zeros(3).index_put((None,), t.ones(2), accumulate=True),
    "none_second": lambda t: t.zeros(2, 3).index_put((_ix(t, 0), None), t.tensor(1.)),
    "int_entry": lambda t: t.zeros(2, 3).index_put((0,), t.tensor(1.)),
    "tensor_not_tuple": lambda t: t.zeros(2, 3).index_put(_ix(t, 0), t.tensor(1.)),
    "too_many": lambda t: t.zeros(2, 3).index_put((_ix(t, 0),) * 3, t.tensor(1.)),
    "too_many_acc": lambda t: t.zeros(2, 3).index_put((_ix(t, 0),) * 3, t.tensor(1.),
                                                      accumulate=True),
    "mask_and_index_too_many": lambda t: t.zeros(2, 3).index_put(
        (t.ones(2, 3, dtype=t.bool), _ix(t, 0)), t.tensor(1.)),
    "list_of_tensors": lambda t: t.zeros(3).index_put_([_ix(t, 0, 0)], t.tensor([1., 2.]),
                                                       accumulate=True),
    "put_numel": lambda t: t.zeros(3).put_(_ix(t, 0), t.tensor([1., 2.])),
    "put_numel_acc": lambda t: t.zeros(3).put_(_ix(t, 0), t.tensor([1., 2.]), accumulate=True),
    "put_numel_fn": lambda t: t.zeros(3).put(_ix(t, 0), t.tensor([1., 2.])),
    "put_empty": lambda t: t.zeros(0).put_(_ix(t, 0), t.tensor([1.])),
    "put_empty_nothing": lambda t: t.zeros(0).put_(t.tensor([], dtype=t.long), t.tensor([])),
    "take_empty": lambda t: t.take(t.empty(0), _ix(t, 0)),
    "take_empty_nothing": lambda t: t.take(t.empty(0), t.tensor([], dtype=t.long)),
}


@pytest.mark.parametrize("name", sorted(PUT))
def test_index_put_put_take_checks(name):
    same(PUT[name])


# -- 2. scatter / index_reduce kernels torch lacks; scatter-of-a-number size message -----------

@pytest.mark.parametrize("dtype", ["bool", "complex64", "complex128", "float32", "int64"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_and_index_reduce_dtypes(dtype, reduce, include_self):
    def scatter(t):
        dt = getattr(t, dtype)
        return t.ones(3, dtype=dt).scatter_reduce(0, _ix(t, 0, 0), t.ones(2, dtype=dt), reduce,
                                                  include_self=include_self)

    def index(t):
        dt = getattr(t, dtype)
        red = "mean" if reduce == "sum" else reduce
        return t.ones(3, dtype=dt).index_reduce(0, _ix(t, 0, 0), t.ones(2, dtype=dt), red,
                                                include_self=include_self)

    def index_out_of_range(t):  # the dtype is refused before the indices are read
        dt = getattr(t, dtype)
        red = "mean" if reduce == "sum" else reduce
        return t.ones(3, dtype=dt).index_reduce(0, _ix(t, 5), t.ones(1, dtype=dt), red,
                                                include_self=include_self)
    same(scatter)
    same(index)
    same(index_out_of_range)


SCATTER_SIZES = {
    "value": lambda t: t.zeros(3, 5).scatter_(1, t.tensor([[0, 0]] * 4), 1.),
    "value_reduce": lambda t: t.zeros(3, 5).scatter_(1, t.tensor([[0, 0]] * 4), 1.,
                                                      reduce="add"),
    "src": lambda t: t.zeros(3, 5).scatter_(1, t.tensor([[0, 0]] * 4), t.ones(4, 2)),
    "gather": lambda t: t.zeros(3, 5).gather(1, t.tensor([[0, 0]] * 4)),
    "gather_sparse_grad_kw": lambda t: t.arange(12.).reshape(3, 4).gather(
        -1, t.tensor([[1], [2], [3]]), sparse_grad=False),
}


@pytest.mark.parametrize("name", sorted(SCATTER_SIZES))
def test_scatter_index_size_messages(name):
    same(SCATTER_SIZES[name])


# -- 3. float16/bfloat16 accumulation --------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,dim", [((3,), 0), ((3, 1), 0), ((1, 3), 1), ((3, 2), 0),
                                       ((2, 3), 1), ((3, 2, 2), 0), ((2, 3, 2), 1),
                                       ((2, 2, 3), 2)])
def test_index_add_half_accumulation(dtype, shape, dim):
    def run(t):
        dt = getattr(t, dtype)
        x = t.full(shape, 4., dtype=dt)
        return _f((x.index_add(dim, t.tensor([0] * shape[dim]), t.full(shape, 0.1, dtype=dt)),
                   x.index_add(dim, t.tensor([0] * shape[dim]), t.full(shape, 0.1, dtype=dt),
                               alpha=3)))
    same(run)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_and_index_reduce_half_accumulation(dtype, reduce, include_self):
    def run(t):
        dt = getattr(t, dtype)
        x = t.full((3,), 4., dtype=dt).requires_grad_()
        src = t.tensor([0.1, 1.1, 0.3], dtype=dt).requires_grad_()
        y = x.scatter_reduce(0, _ix(t, 0, 0, 0), src, reduce, include_self=include_self)
        (y * t.tensor([1., 2., 3.], dtype=dt)).sum().backward()
        out = [y, x.grad, src.grad]
        if reduce != "sum":
            out.append(x.detach().index_reduce(0, _ix(t, 0, 0, 0), src.detach(), reduce,
                                               include_self=include_self))
        return _f(out)
    same(run)


def test_scatter_add_paths_half():
    def run(t):
        dt = t.float16
        s = t.full((3,), 0.1, dtype=dt)
        i = _ix(t, 0, 0, 0)
        return (t.full((3,), 4., dtype=dt).scatter_add(0, i, s),
                t.full((3,), 4., dtype=dt).index_put((i,), s, accumulate=True),
                t.full((3,), 4., dtype=dt).put(i, s, accumulate=True))
    same(run)


# -- 4. numbers written into bool and half-precision tensors ---------------------------------

@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "float16", "bfloat16", "float32"])
@pytest.mark.parametrize("value", [5, -1, 0.5, 1j, 300.5, 70000, 70000.0, 65505, -65505, 1e6,
                                   3.39e38, 1e39, 2 ** 31, True, float("nan")],
                         ids=repr)
@pytest.mark.parametrize("op", ["masked_fill", "index_fill", "fill", "fill_one", "full",
                                "scatter", "setitem", "where", "where_other",
                                "scalar_tensor"])
def test_number_writes(dtype, value, op):
    if op.startswith("where") and value == 1j and dtype in ("float16", "bfloat16"):
        pytest.skip("torch's result is complex32, which the oracle cannot read")
    same(lambda t: _f(_write(t, dtype, value, op)))


def _write(t, dtype, value, op):
    dt = getattr(t, dtype)
    m = t.tensor([True, False, True])
    x = t.zeros(3, dtype=dt)
    if op == "masked_fill":
        return x.masked_fill(m, value)
    if op == "index_fill":
        return x.index_fill(0, _ix(t, 0), value)
    if op == "fill":
        return x.fill_(value)
    if op == "fill_one":  # torch fills a one-element tensor without its overflow check
        return t.zeros(1, dtype=dt).fill_(value)
    if op == "full":
        return t.full((2,), value, dtype=dt)
    if op == "scatter":
        return x.scatter(0, _ix(t, 0), value)
    if op == "setitem":
        x[0] = value
        return x
    if op == "where":
        return t.where(m, value, x)
    if op == "where_other":
        return t.where(m, x, value)
    return t.scalar_tensor(value, dtype=dt)


def test_setitem_complex_into_bool():
    def run(t):
        x = t.zeros(4, dtype=t.bool)
        x[0] = 1j
        x[1] = 0j
        return x
    same(run)


# -- 5. index_fill with a tensor value ---------------------------------------------------------

def test_index_fill_value_gradient():
    def run(t):
        v = t.tensor(2., requires_grad=True)
        x = t.ones(3, 4, requires_grad=True)
        y = x.index_fill(1, t.tensor([0, 2, 2]), v)
        (y * t.arange(12.).reshape(3, 4)).sum().backward()
        return y, y.grad_fn.name(), v.grad, x.grad
    same(run)


INDEX_FILL = {
    "f64_input": lambda t: t.ones(3, dtype=t.float64).index_fill(
        0, _ix(t, 0), t.tensor(2., requires_grad=True)),
    "long_input": lambda t: t.ones(3, dtype=t.long).index_fill(
        0, _ix(t, 0), t.tensor(2., requires_grad=True)),
    "zero_d": lambda t: t.tensor(3.).index_fill(0, _ix(t, 0), t.tensor(2., requires_grad=True)),
    "complex_scalar": lambda t: t.zeros(3).index_fill(0, _ix(t, 0), 1j),
    "complex_zero_imag": lambda t: t.zeros(3).index_fill(0, _ix(t, 0), 1 + 0j),
    "complex_tensor": lambda t: t.zeros(3).index_fill(0, _ix(t, 0), t.tensor(1j)),
    "complex_into_complex": lambda t: t.zeros(3, dtype=t.complex64).index_fill(0, _ix(t, 0), 1j),
    "long_tensor_value": lambda t: t.zeros(3).index_fill(0, _ix(t, 0), t.tensor(1)),
    "no_grad_mode": lambda t: _no_grad_fill(t),
}


def _no_grad_fill(t):
    with t.no_grad():
        return t.ones(3).index_fill(0, _ix(t, 1), t.tensor(2., requires_grad=True))


@pytest.mark.parametrize("name", sorted(INDEX_FILL))
def test_index_fill_values(name):
    same(INDEX_FILL[name])


# -- 6. index_select on an empty dim; masked_scatter's mask dtype -----------------------------

EMPTY_SELECT = {
    "rows": lambda t: t.empty(0, 3).index_select(0, _ix(t, 0)),
    "cols": lambda t: t.empty(3, 0).index_select(1, _ix(t, 0)),
    "other_dim": lambda t: t.empty(3, 0).index_select(0, _ix(t, 0)),
    "other_dim_oob": lambda t: t.empty(3, 0).index_select(0, _ix(t, 5)),
    "negative": lambda t: t.empty(0, 3).index_select(0, _ix(t, -1)),
    "vector": lambda t: t.empty(0).index_select(0, _ix(t, 1)),
    "nothing": lambda t: t.empty(0, 3).index_select(0, t.tensor([], dtype=t.long)),
    "mask_long": lambda t: t.zeros(3).masked_scatter(t.ones(3, dtype=t.long), t.zeros(3)),
    "mask_byte_inplace": lambda t: t.zeros(3).masked_scatter_(t.ones(3, dtype=t.uint8),
                                                              t.zeros(3)),
    "mask_float": lambda t: t.zeros(3).masked_scatter(t.ones(3), t.zeros(3)),
    "mask_list": lambda t: t.zeros(3).masked_scatter([True, False, True], t.zeros(3)),
}


@pytest.mark.parametrize("name", sorted(EMPTY_SELECT))
def test_index_select_empty_and_masked_scatter_mask(name):
    same(EMPTY_SELECT[name])


# -- 7. unique on empty tensors and the layout of distinct slices -----------------------------

@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("shape,dim", [((0, 3), 0), ((0, 3), 1), ((3, 0), 0), ((3, 0), 1),
                                       ((0,), 0), ((2, 0, 3), 1), ((2, 0, 3), 0), ((0, 0), 0)])
def test_unique_dim_of_empty(fn, shape, dim):
    same(lambda t: getattr(t, fn)(t.empty(shape), dim=dim, return_inverse=True,
                                  return_counts=True))


@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_unique_dim_layout(fn, dim):
    def run(t):
        x = t.tensor([[[1, 0, 1, 0], [2, 2, 2, 2], [1, 0, 1, 0]],
                      [[3, 3, 3, 3], [3, 3, 3, 3], [1, 1, 1, 1]]])
        out = getattr(t, fn)(x, dim=dim, return_inverse=True, return_counts=True)
        return out, out[0].stride(), out[0].is_contiguous()
    same(run)


# -- 8. searchsorted / bucketize: NaN boundaries, sorter checks; histogram and bincount dtypes --

NAN = float("nan")
SEARCH = {
    "nan_left": lambda t: t.searchsorted(t.tensor([1., 2., 2., 3., NAN]),
                                         t.tensor([[0., 2., 2.5], [3., NAN, 10.]])),
    "nan_right": lambda t: t.searchsorted(t.tensor([1., 2., 2., 3., NAN]),
                                          t.tensor([[0., 2., 2.5], [3., NAN, 10.]]), right=True),
    "nan_middle": lambda t: t.searchsorted(t.tensor([1., NAN, 2., 3.]),
                                           t.tensor([0., 1., 1.5, 2., 4.]), side="right"),
    "nan_rows": lambda t: t.searchsorted(t.tensor([[1., NAN, 3.], [0., 1., 2.]]),
                                         t.tensor([[2., 0.5], [1., 1.5]])),
    "nan_int32": lambda t: t.searchsorted(t.tensor([NAN, 1.]), t.tensor([0.5, 2.]),
                                          out_int32=True),
    "nan_scalar": lambda t: t.searchsorted(t.tensor([1., 2., NAN]), 2.5),
    "bucketize_nan": lambda t: t.bucketize(t.tensor([[0., 2., 2.5], [3., NAN, 10.]]),
                                           t.tensor([1., 2., 2., 3., NAN])),
    "bucketize_nan_right": lambda t: t.bucketize(t.tensor([2., 2.5]),
                                                 t.tensor([1., 2., 2., 3., NAN]), right=True),
    "rows": lambda t: t.searchsorted(t.tensor([[1, 3, 5], [2, 4, 6]]),
                                     t.tensor([[0, 3, 6], [2, 5, 7]]), side="right"),
    "rows_3d": lambda t: t.searchsorted(t.arange(24.).reshape(2, 3, 4),
                                        t.arange(0., 24., 2.).reshape(2, 3, 2) + 0.5),
    "rows_mismatch": lambda t: t.searchsorted(t.tensor([[1, 3], [2, 4]]),
                                              t.tensor([[2], [3], [4]])),
    "sorter": lambda t: t.searchsorted(t.tensor([3., 1., 2.]), t.tensor([2.5]),
                                       sorter=t.tensor([1, 2, 0])),
    "sorter_int32": lambda t: t.searchsorted(t.tensor([3., 1., 2.]), t.tensor([2.5]),
                                             sorter=t.tensor([1, 2, 0], dtype=t.int32)),
    "sorter_size": lambda t: t.searchsorted(t.tensor([3., 1., 2.]), t.tensor([2.5]),
                                            sorter=t.tensor([0, 1])),
    "sorter_range": lambda t: t.searchsorted(t.tensor([3., 1., 2.]), t.tensor([2.5]),
                                             sorter=t.tensor([0, 1, 5])),
    "sorter_negative": lambda t: t.searchsorted(t.tensor([3., 1., 2.]), t.tensor([2.5]),
                                                sorter=t.tensor([0, 1, -1])),
    "zero_d_boundaries": lambda t: t.searchsorted(t.tensor(1.), t.tensor([1.])),
    "hist_long": lambda t: t.histogram(t.ones(3, dtype=t.long), 3),
    "hist_half": lambda t: t.histogram(t.ones(3, dtype=t.half), 3),
    "hist_bool_bins": lambda t: t.histogram(t.ones(3, dtype=t.bool),
                                            t.tensor([True, False])),
    "hist_bins_dtype": lambda t: t.histogram(t.ones(3), t.tensor([0., 1.], dtype=t.float64)),
    "hist_bins_long": lambda t: t.histogram(t.ones(3), t.tensor([0, 1])),
    "hist_weight_dtype": lambda t: t.histogram(t.ones(3), 3,
                                               weight=t.ones(3, dtype=t.float64)),
    "hist_weight_shape": lambda t: t.histogram(t.ones(3), 3, weight=t.ones(2)),
    "hist_weight": lambda t: t.histogram(t.tensor([1., 2., 1., 4.]), 3,
                                         weight=t.tensor([1., 2., 3., 4.])),
    "bincount_bool": lambda t: t.bincount(t.tensor([True, False])),
    "bincount_uint8": lambda t: t.bincount(t.tensor([0, 3], dtype=t.uint8)),
}


@pytest.mark.parametrize("name", sorted(SEARCH))
def test_searchsorted_histogram_bincount(name):
    same(SEARCH[name])


# -- 9. split's argument checks ----------------------------------------------------------------

SPLITS = {
    "negative_size": lambda t: t.zeros(4, 5).split(-1),
    "negative_size_empty": lambda t: t.empty(0).split(-1),
    "zero_size_empty": lambda t: t.empty(0).split(0),
    "negative_entry": lambda t: t.zeros(4, 5).split([-1, 6], 1),
    "negative_entry_with_sizes": lambda t: t.zeros(4, 5).split_with_sizes([-1, 5]),
    "sum_negative_dim": lambda t: t.zeros(4, 5).split((2, 2), dim=-1),
    "sum_dim": lambda t: t.zeros(4, 5).split([1, 2]),
    "negative_dim": lambda t: t.zeros(4, 5).split([2, 2], -2),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_arguments(name):
    same(SPLITS[name])


# -- 10. narrow's and unflatten's argument errors ------------------------------------------------

VIEW_ARGS = {
    "narrow_start_past_end": lambda t: t.zeros(2, 3, 4).narrow(2, 5, 0),
    "narrow_start_at_end": lambda t: t.zeros(2, 3, 4).narrow(2, 4, 0),
    "narrow_start_negative": lambda t: t.zeros(2, 3, 4).narrow(2, -5, 1),
    "narrow_negative_length": lambda t: t.zeros(2, 3, 4).narrow(2, 1, -1),
    "narrow_negative_length_bad_start": lambda t: t.zeros(2, 3, 4).narrow(2, 6, -1),
    "narrow_too_long": lambda t: t.zeros(2, 3, 4).narrow(2, -1, 2),
    "narrow_empty": lambda t: t.zeros(0).narrow(0, 0, 0),
    "narrow_empty_negative": lambda t: t.zeros(0).narrow(0, -1, 0),
    "narrow_grad": lambda t: t.arange(6., requires_grad=True).narrow(0, -3, 2),
    "unflatten_two_inferred": lambda t: t.zeros(2, 3, 4).unflatten(2, (-1, -1)),
    "unflatten_negative": lambda t: t.zeros(2, 3, 4).unflatten(2, (-2, 2)),
    "unflatten_no_fit": lambda t: t.zeros(2, 3, 4).unflatten(2, (3, -1)),
}


@pytest.mark.parametrize("name", sorted(VIEW_ARGS))
def test_narrow_unflatten_arguments(name):
    def first_lines(t):  # torch's "unexpected error" carries its C++ frames after two lines
        try:
            return VIEW_ARGS[name](t)
        except RuntimeError as e:
            raise RuntimeError("\n".join(str(e).split("\n")[:2])) from None
    same(first_lines)


# -- 11. repeat_interleave's checks and node names ---------------------------------------------

REPEATS = {
    "output_size_int": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        2, 0, output_size=5),
    "output_size_int_ok": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        2, 0, output_size=4),
    "output_size_tensor": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([1, 0, 2]), 1, output_size=4),
    "output_size_tensor_ok": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([1, 0, 2]), 1, output_size=3),
    "output_size_counts": lambda t: t.repeat_interleave(t.tensor([1, 2]), output_size=2),
    "negative_tensor": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([-1, 0, 2]), 1),
    "negative_counts": lambda t: t.repeat_interleave(t.tensor([1, -2])),
    "negative_int": lambda t: t.arange(6.).repeat_interleave(-1),
    "float_repeats": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([1., 2.]), 0),
    "byte_counts": lambda t: t.repeat_interleave(t.tensor([1, 2], dtype=t.uint8)),
    "bool_repeats": lambda t: t.arange(2.).repeat_interleave(t.tensor([True, False])),
    "size_mismatch": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([1, 2]), 1),
    "two_dim_repeats": lambda t: t.arange(6.).reshape(2, 3).repeat_interleave(
        t.tensor([[1, 2]]), 0),
}


@pytest.mark.parametrize("name", sorted(REPEATS))
def test_repeat_interleave_checks(name):
    same(REPEATS[name])


@pytest.mark.parametrize("how", ["int", "int_dim", "zero_d", "one", "vector", "counts_row"])
def test_repeat_interleave_grad_names(how):
    def run(t):
        x = t.arange(6.).reshape(2, 3).requires_grad_()
        y = {"int": lambda: x.repeat_interleave(2), "int_dim": lambda: x.repeat_interleave(2, 1),
             "zero_d": lambda: x.repeat_interleave(t.tensor(2), 1),
             "one": lambda: x.repeat_interleave(t.tensor([2]), 1),
             "vector": lambda: x.repeat_interleave(t.tensor([1, 2]), 0),
             "counts_row": lambda: x[0].repeat_interleave(2)}[how]()
        (y * t.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y, y.grad_fn.name(), x.grad
    same(run)


# -- 12. layouts: flip and sort follow the input, rot90 is a transposed flip -------------------

def _layouts(t):
    x = t.arange(120.).reshape(2, 3, 4, 5)
    return {"row_major": x, "transposed": x.transpose(0, 2), "sliced": x[:, ::2],
            "permuted": x.permute(1, 2, 0, 3), "permuted_sliced": x.permute(3, 1, 0, 2)[::2],
            "channels_last": x.to(memory_format=t.channels_last),
            "expanded": x[:, :, :1].expand(2, 3, 4, 5)}


LAYOUT_OPS = {
    "flip0": lambda x: x.flip(0), "flip12": lambda x: x.flip(1, 2), "flip_last": lambda x: x.flip(-1),
    "flip_none": lambda x: x.flip(()), "fliplr": lambda x: x.fliplr(), "flipud": lambda x: x.flipud(),
    "rot90": lambda x: x.rot90(), "rot90_2": lambda x: x.rot90(2, (1, 2)),
    "rot90_3": lambda x: x.rot90(3, (0, 2)), "rot90_neg": lambda x: x.rot90(-1, (-1, -2)),
    "rot90_0": lambda x: x.rot90(4),
    "sort0": lambda x: x.sort(0), "sort_last": lambda x: x.sort(-1, True),
    "sort_stable": lambda x: x.sort(dim=1, stable=True), "argsort": lambda x: x.argsort(2),
    "msort": lambda x: x.msort(), "topk": lambda x: x.topk(2, 1), "kthvalue": lambda x: x.kthvalue(2, 0),
    "cummax": lambda x: x.cummax(1), "cummin": lambda x: x.cummin(-1), "median": lambda x: x.median(2),
}


@pytest.mark.parametrize("layout", ["row_major", "transposed", "sliced", "permuted",
                                    "permuted_sliced", "channels_last", "expanded"])
@pytest.mark.parametrize("op", sorted(LAYOUT_OPS))
def test_result_layouts(layout, op):
    if op == "median" and layout == "expanded":
        pytest.skip("torch 2.13's median(dim) reads an expanded input's neighbouring values")

    def run(t):
        out = LAYOUT_OPS[op](_layouts(t)[layout])
        outs = out if isinstance(out, tuple) else (out,)
        # (kthvalue/median/topk/cummax's results are views in numtorch, which torch's are not)
        bases = [o._base is None for o in outs] if op[:4] in ("flip", "rot9", "sort") else None
        return out, [o.stride() for o in outs], bases
    same(run)


def test_rot90_flip_gradients():
    def run(t):
        x = t.arange(6.).reshape(2, 3).t().requires_grad_()
        y = x.rot90()
        z = x.flip(0)
        (y * t.arange(6.).reshape(2, 3)).sum().backward(retain_graph=True)
        g = x.grad.clone()
        (z * t.arange(6.).reshape(3, 2)).sum().backward()
        return y, y.grad_fn.name(), z.grad_fn.name(), g, x.grad
    same(run)


STRUCTURE = {
    "tril_1d": lambda t: t.arange(3.).tril(),
    "triu_0d": lambda t: t.tensor(3.).triu(),
    "fill_diagonal_1d": lambda t: t.zeros(3).fill_diagonal_(1),
}


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_structure_messages(name):
    same(STRUCTURE[name])


# -- 13. in-place bitwise ops check the result type first --------------------------------------

@pytest.mark.parametrize("op", ["__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
                                "bitwise_and_", "bitwise_or_", "bitwise_xor_",
                                "bitwise_left_shift_", "bitwise_right_shift_"])
@pytest.mark.parametrize("case", ["int8_float", "bool_long", "float_int", "uint8_float_tensor",
                                  "int8_float_0d", "int8_complex", "int8_int64", "bool_bool"])
def test_inplace_bitwise_result_type(op, case):
    def run(t):
        x, other = {
            "int8_float": (t.tensor([1, 2], dtype=t.int8), 1.5),
            "bool_long": (t.tensor([True]), t.tensor([1])),
            "float_int": (t.tensor([1.]), 1),
            "uint8_float_tensor": (t.tensor([1], dtype=t.uint8), t.tensor([1.])),
            "int8_float_0d": (t.tensor([1], dtype=t.int8), t.tensor(1.)),
            "int8_complex": (t.tensor([1], dtype=t.int8), t.tensor([1j])),
            "int8_int64": (t.tensor([5, 3], dtype=t.int8), t.tensor([1, 2])),
            "bool_bool": (t.tensor([True, False]), True),
        }[case]
        return getattr(x, op)(other), x
    same(run)


# -- 14. clamp with NaN bounds and half-precision numbers; nonzero's layout; where's warning --

CLAMPS = {
    "nan_min_tensor": lambda t: t.clamp(t.tensor([1., 2., 3.]), min=t.tensor([NAN, 0., 5.])),
    "nan_max_tensor": lambda t: t.clamp(t.tensor([1., 2.]), max=t.tensor([NAN, 1.])),
    "nan_min_int_input": lambda t: t.clamp(t.tensor([1, 2]), min=t.tensor([NAN, 1.])),
    "clamp_min_nan": lambda t: t.clamp_min(t.tensor([1., 2.]), t.tensor([NAN, 1.])),
    "nan_input_tensor_bounds": lambda t: t.clamp(t.tensor([NAN, 2.]), t.tensor([0., 0.]),
                                                 t.tensor([1., 1.])),
    "half_max_overflow": lambda t: t.clamp(t.arange(5.).half(), max=70000),
    "half_min_overflow": lambda t: t.arange(5.).half().clamp(min=-65505.),
    "bfloat16_overflow": lambda t: t.clamp(t.arange(5.).bfloat16(), max=3.4e38),
    "float32_overflow": lambda t: t.clamp(t.arange(5.), min=1e39),
    "half_fits": lambda t: t.clamp(t.arange(5.).half(), max=65504),
    "rtol_negative": lambda t: t.allclose(t.tensor([1.]), t.tensor([1.]), rtol=-1.),
    "atol_negative_fraction": lambda t: t.isclose(t.tensor([1.]), t.tensor([1.]), atol=-0.25),
}


@pytest.mark.parametrize("name", sorted(CLAMPS))
def test_clamp_nan_and_overflow(name):
    same(lambda t: _f(CLAMPS[name](t)))


def test_clamp_nan_gradients():
    def run(t):
        x = t.tensor([1., NAN, 3., 0.5], requires_grad=True)
        lo = t.tensor([NAN, 0., 0., 0.], requires_grad=True)
        hi = t.tensor([2., 2., NAN, 1.], requires_grad=True)
        y = t.clamp(x, lo, hi)
        (y * t.tensor([1., 2., 3., 4.])).sum().backward()
        return y, x.grad, lo.grad, hi.grad
    same(run)


NONZERO = {
    "column": lambda t: t.tensor([1., 2., 0., 3.]).nonzero(),
    "matrix": lambda t: t.tensor([[0, 1], [2, 0]]).t().nonzero(),
    "zero_d_false": lambda t: t.tensor(0.).nonzero(),
    "zero_d_true": lambda t: t.tensor(2.).nonzero(),
    "empty": lambda t: t.empty(0, 3).nonzero(),
    "none_found": lambda t: t.zeros(2, 3).nonzero(),
    "argwhere": lambda t: t.argwhere(t.tensor([[0, 1, 1], [2, 0, 3]])),
    "static": lambda t: t.nonzero_static(t.tensor([[0, 1, 2], [3, 0, 4]]), size=5),
    "static_cut": lambda t: t.nonzero_static(t.tensor([[0, 1, 2], [3, 0, 4]]), size=2),
    "as_tuple": lambda t: t.tensor([[0, 1, 2], [3, 0, 4]]).nonzero(as_tuple=True),
}


@pytest.mark.parametrize("name", sorted(NONZERO))
def test_nonzero_layout(name):
    def run(t):
        out = NONZERO[name](t)
        outs = out if isinstance(out, tuple) else (out,)
        return out, [o.stride() for o in outs]
    same(run)


def test_where_uint8_condition_warning():
    import subprocess
    import sys
    import warnings

    import numtorch
    from numtorch import _warn_once

    code = ("import warnings, torch; warnings.simplefilter('always'); a = torch.ones(2)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always'); torch.where(a.to(torch.uint8), a, a)\n"
            "    torch.where(a.to(torch.uint8), a, a)\n"
            "print(repr([str(x.message).split(' (Triggered')[0] for x in w]))")
    want = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()
    _warn_once._DONE.discard("where-uint8")
    a = numtorch.ones(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        numtorch.where(a.to(numtorch.uint8), a, a)
        numtorch.where(a.to(numtorch.uint8), a, a)
    assert repr([str(x.message) for x in w]) == want


# -- 15. complex values written into real tensors through x[...] = v ---------------------------

SET_COMPLEX = {
    "basic": lambda t, x: x.__setitem__(0, t.tensor(1 + 2j)),
    "slice": lambda t, x: x.__setitem__(slice(None), t.tensor([1j, 2 + 0j, 3 + 1j])),
    "mask_imag": lambda t, x: x.__setitem__(x > -1, t.tensor(1j)),
    "mask_real": lambda t, x: x.__setitem__(x > -1, t.tensor(1 + 0j)),
    "mask_one": lambda t, x: x.__setitem__(x > -1, t.tensor([2 + 0j])),
    "mask_tuple": lambda t, x: x.__setitem__((x > -1,), t.tensor(2j)),
    "mask_many": lambda t, x: x.__setitem__(x > -1, t.tensor([1j, 1j, 1j])),
    "index": lambda t, x: x.__setitem__([0, 1], t.tensor([1j, 2j])),
    "long_mask": lambda t, x: x.long().__setitem__(x > -1, t.tensor(1j)),
    "long_basic": lambda t, x: x.long().__setitem__(0, t.tensor(3 + 1j)),
}


@pytest.mark.parametrize("name", sorted(SET_COMPLEX))
def test_setitem_complex_into_real(name):
    import warnings

    def run(t):
        x = t.zeros(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch warns once a process)
            SET_COMPLEX[name](t, x)
        return x
    same(run)


# -- 16. dtypes searchsorted/histc/unique_consecutive refuse; searchsorted's copy notes ---------

REFUSED = {
    "histc_complex": lambda t: t.histc(t.tensor([1j, 2 + 0j]), 3),
    "histc_complex_range": lambda t: t.histc(t.tensor([1j, 2 + 0j]), 3, min=0, max=1),
    "histc_long": lambda t: t.histc(t.tensor([1, 2]), 3),
    "searchsorted_complex": lambda t: t.searchsorted(t.tensor([1j, 2 + 0j]), t.tensor([1j])),
    "searchsorted_mixed_complex": lambda t: t.searchsorted(t.tensor([1., 2.]), t.tensor([1j])),
    "searchsorted_bool": lambda t: t.searchsorted(t.tensor([True, False]), t.tensor([True])),
    "searchsorted_long_bool": lambda t: t.searchsorted(t.tensor([1, 2]), t.tensor([True])),
    "bucketize_complex": lambda t: t.bucketize(t.tensor([1j]), t.tensor([1., 2.])),
    "unique_consecutive_complex": lambda t: t.unique_consecutive(t.tensor([1j, 1j])),
    "unique_consecutive_complex_dim": lambda t: t.unique_consecutive(t.tensor([1j]), dim=0),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_dtypes(name):
    same(REFUSED[name])


@pytest.mark.parametrize("which", ["input", "boundary"])
def test_searchsorted_non_contiguous_note(which):
    import subprocess
    import sys
    import warnings

    from numtorch import _warn_once

    call = ("torch.searchsorted(x[0], x.t()[0])" if which == "input" else
            "torch.searchsorted(x.t()[0], x[0])")
    code = ("import warnings, torch; x = torch.arange(8.).reshape(2, 4)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            f"    warnings.simplefilter('always'); {call}; {call}\n"
            "print(repr([str(m.message).split(' (Triggered')[0] for m in w]))")
    want = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()
    import numtorch as torch

    _warn_once._DONE.discard("ss-input")
    _warn_once._DONE.discard("ss-b")
    x = torch.arange(8.).reshape(2, 4)
    args = (x[0], x.t()[0]) if which == "input" else (x.t()[0], x[0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.searchsorted(*args)
        torch.searchsorted(*args)
    assert repr([str(m.message) for m in w]) == want


EMPTY_BINS = {
    "histogram": lambda t: t.histogram(t.empty(0), 3),
    "histogram_flat_range": lambda t: t.histogram(t.empty(0), 2, range=(3., 3.)),
    "histogramdd": lambda t: t.histogramdd(t.empty(0, 2), bins=[2, 2]),
    "histc": lambda t: t.histc(t.empty(0), 2),
    "searchsorted_empty_rows": lambda t: t.searchsorted(t.empty(2, 0), t.ones(2, 1)),
    "searchsorted_empty": lambda t: t.searchsorted(t.empty(0), t.tensor([1., 2.]), right=True),
    "bucketize_no_values": lambda t: t.bucketize(t.empty(0), t.tensor([1.])),
}


@pytest.mark.parametrize("name", sorted(EMPTY_BINS))
def test_empty_binning(name):
    same(EMPTY_BINS[name])


# -- 17. out= of the index and scatter functions -----------------------------------------------

OUTS = {
    "index_add": lambda t, out: t.index_add(t.arange(6.).reshape(2, 3), 0, _ix(t, 0),
                                            t.ones(1, 3), alpha=2, out=out),
    "index_copy": lambda t, out: t.index_copy(t.arange(6.).reshape(2, 3), 0, _ix(t, 1),
                                              t.ones(1, 3), out=out),
    "index_reduce": lambda t, out: t.index_reduce(t.arange(6.).reshape(2, 3), 0, _ix(t, 0),
                                                  t.full((1, 3), 9.), "amax", out=out),
    "scatter_value": lambda t, out: t.scatter(t.arange(6.).reshape(2, 3), 0,
                                              t.tensor([[1, 0, 1]]), 5., out=out),
    "scatter_src": lambda t, out: t.scatter(t.arange(6.).reshape(2, 3), 0,
                                            t.tensor([[1, 0, 1]]), t.ones(2, 3), out=out),
    "scatter_add": lambda t, out: t.scatter_add(t.arange(6.).reshape(2, 3), 0,
                                                t.tensor([[1, 0, 1]]), t.ones(2, 3), out=out),
    "scatter_reduce": lambda t, out: t.scatter_reduce(t.arange(6.).reshape(2, 3), 0,
                                                      t.tensor([[1, 0, 1]]), t.ones(2, 3),
                                                      "prod", out=out),
    "take_along_dim": lambda t, out: t.take_along_dim(t.arange(6.).reshape(2, 3),
                                                      t.tensor([[1], [0]]), 1, out=out),
    "take_along_flat": lambda t, out: t.take_along_dim(t.arange(6.).reshape(2, 3),
                                                       t.tensor([5, 0]), out=out),
    "gather": lambda t, out: t.gather(t.arange(6.).reshape(2, 3), 1, t.tensor([[1], [0]]),
                                      out=out),
    "slice_scatter": lambda t, out: t.slice_scatter(t.arange(6.).reshape(2, 3),
                                                    t.full((1, 3), 9.), 0, 0, 1, out=out),
    "histogram": lambda t, out: t.histogram(t.arange(6.), 2, out=(out, t.empty(0))),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OUTS))
def test_index_scatter_out(name, dtype):
    import warnings

    def run(t):
        out = t.empty(0, dtype=getattr(t, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (index_reduce's beta note)
            r = OUTS[name](t, out)
        r = r[0] if isinstance(r, tuple) else r
        return r is out, out
    same(run)
