"""Parity fixes of probe 46, tensors and ops (oracle: real torch at test time): complex to
bool casts, uint64 data past int64's range, ..."""

import pytest

from tests.oracle import same


def _c(t):
    return t.tensor([0 + 2j, 0j, 1.5 + 0j])


def _setb(t, index, value):
    b = t.zeros(3, dtype=t.bool)
    b[index] = value
    return b


def _copyb(t):
    b = t.zeros(3, dtype=t.bool)
    return b.copy_(_c(t))


# -- 1. casts ---------------------------------------------------------------------------------

CASTS = {
    "complex_to_bool": lambda t: _c(t).to(t.bool),
    "complex_bool_method": lambda t: _c(t).bool(),
    "complex128_to_bool": lambda t: _c(t).double().to(t.complex128).bool(),
    "complex_copy_into_bool": _copyb,
    "complex_setitem_bool_slice": lambda t: _setb(t, slice(None), _c(t)),
    "complex_setitem_bool_number": lambda t: _setb(t, 0, 2j),
    "complex_setitem_bool_0d": lambda t: _setb(t, 1, t.tensor(2j)),
    "complex_setitem_bool_mask_0d": lambda t: _setb(t, t.tensor([True, False, True]),
                                                    t.tensor(2j)),
}


@pytest.mark.parametrize("name", sorted(CASTS))
def test_casts(name):
    same(CASTS[name])


# -- 2. creation ------------------------------------------------------------------------------

CREATE = {
    "u64_big_list": lambda t: t.tensor([2 ** 63, 1], dtype=t.uint64),
    "u64_big_scalar": lambda t: t.tensor(2 ** 64 - 1, dtype=t.uint64),
    "u64_big_nested": lambda t: t.tensor([[2 ** 64 - 1, 0], [3, 2 ** 63]], dtype=t.uint64),
    "u64_too_big": lambda t: t.tensor([2 ** 64], dtype=t.uint64),
    "u64_negative": lambda t: t.tensor([-1], dtype=t.uint64),
    "u64_negative_and_big": lambda t: t.tensor([-1, 2 ** 63], dtype=t.uint64),
    "u64_float": lambda t: t.tensor([1.5], dtype=t.uint64),
    "u64_float_scalar": lambda t: t.tensor(1.0, dtype=t.uint64),
    "u64_complex": lambda t: t.tensor([1 + 0j], dtype=t.uint64),
    "u64_bool": lambda t: t.tensor([True, False], dtype=t.uint64),
    "u64_ints": lambda t: t.tensor([[1, 2], [3, 4]], dtype=t.uint64),
    "i64_past_range": lambda t: t.tensor([2 ** 63]),
}


@pytest.mark.parametrize("name", sorted(CREATE))
def test_creation(name):
    same(CREATE[name])


# -- 3. histogram with bin edges that do not increase -----------------------------------------

def _hist_unsorted(t, k):
    g = t.Generator().manual_seed(k)
    n = int(t.randint(2, 9, (1,), generator=g))
    edges = t.randint(0, 10, (n,), generator=g).double()
    x = t.randint(-1, 11, (30,), generator=g).double()
    w = t.rand(30, generator=g, dtype=t.float64)
    return t.histogram(x, bins=edges, weight=w if k % 2 else None, density=k % 3 == 0)


@pytest.mark.parametrize("k", range(12))
def test_histogram_unsorted_edges(k):
    same(lambda t: _hist_unsorted(t, k), rtol=1e-12)


def test_histogram_unsorted_edges_small():
    same(lambda t: t.histogram(t.tensor([1., 2., 2.5, 3.]), bins=t.tensor([2., 1., 3.])))


# -- 4. method forms --------------------------------------------------------------------------

METHODS = {
    "broadcast_to_varargs": lambda t: t.ones(3).broadcast_to(2, 3),
    "broadcast_to_keyword": lambda t: t.ones(3).broadcast_to(size=(2, 3)),
    "broadcast_to_list": lambda t: t.ones(3).broadcast_to([2, -1]),
    "broadcast_to_none": lambda t: t.ones(3).broadcast_to(),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_methods(name):
    same(METHODS[name])


# -- 5. sparse ----------------------------------------------------------------------------------

def _sparse_rg(t):
    i, v = t.tensor([[0, 1]]), t.tensor([3., 4.])
    s = t.sparse_coo_tensor(i, v, (2,), requires_grad=True)
    plain = t.sparse_coo_tensor(i, v, (2,))
    before = (v.requires_grad, plain.requires_grad, s.requires_grad)
    with t.no_grad():
        v[0] = 100.  # memory stays shared with both
    out = (s.to_dense() * 2).sum()
    out.backward()
    return before, plain.to_dense(), s.to_dense().detach(), v.grad is None, s.grad.to_dense()


def _sp(t, coalesce=False):
    s = t.sparse_coo_tensor(t.tensor([[0, 1, 1], [2, 0, 2]]), t.tensor([3., 4., 5.]), (2, 3))
    return s.coalesce() if coalesce else s


def _sp2(t):
    return t.sparse_coo_tensor(t.tensor([[1, 1, 0], [2, 2, 1]]), t.tensor([1., 2., 7.]), (2, 3))


def _hyb(t):
    return t.sparse_coo_tensor(t.tensor([[0, 2, 0]]), t.tensor([[1., 2.], [3., 4.], [5., 6.]]),
                               (3, 2))


def _dense_of(s):
    return s.to_dense(), s.is_coalesced(), str(s.layout)


def _sparse_mul_grad(t):
    v = t.tensor([3., 4., 5.], requires_grad=True)
    d = t.arange(6.).reshape(2, 3).requires_grad_()
    a = t.sparse_coo_tensor(t.tensor([[0, 1, 1], [2, 0, 2]]), v, (2, 3))
    (t.sparse.sum(a * _sp2(t)) + t.sparse.sum(a * d) * 2).backward()
    return v.grad, d.grad.to_dense()  # (torch's d.grad is sparse, numtorch's dense)


SPARSE = {
    "coo_requires_grad_leaves_values": _sparse_rg,
    "mul_sparse_sparse": lambda t: _dense_of(_sp(t) * _sp2(t)),
    "mul_sparse_self": lambda t: _dense_of(_sp(t) * _sp(t)),
    "mul_sparse_coalesced": lambda t: _dense_of(_sp(t, True) * _sp(t, True).mul(2)),
    "mul_sparse_mixed_flag": lambda t: _dense_of(_sp(t, True) * _sp2(t)),
    "mul_sparse_int": lambda t: _dense_of(_sp(t) * _sp2(t).long()),
    "mul_sparse_dense": lambda t: _dense_of(_sp(t) * t.full((2, 3), 2.)),
    "mul_dense_sparse": lambda t: _dense_of(t.full((2, 3), 2) * _sp(t)),
    "mul_sparse_dense_broadcast": lambda t: _dense_of(_sp(t) * t.tensor([1., 2., 3.])),
    "mul_hybrid": lambda t: _dense_of(_hyb(t) * _hyb(t)),
    "mul_hybrid_dense": lambda t: _dense_of(_hyb(t) * t.tensor([10., 100.])),
    "mul_method": lambda t: _dense_of(_sp(t).mul(_sp2(t))),
    "mul_function": lambda t: _dense_of(t.mul(_sp(t), _sp2(t))),
    "mul_function_dense": lambda t: _dense_of(t.mul(t.ones(2, 3), _sp(t))),
    "add_function": lambda t: _dense_of(t.add(_sp(t), _sp2(t))),
    "mul_shape_mismatch": lambda t: _sp(t) * t.sparse_coo_tensor(t.tensor([[0]]), t.tensor([1.]),
                                                                 (3,)),
    "mul_grad": _sparse_mul_grad,
    "div_dense_error": lambda t: _sp(t) / t.full((2, 3), 2.),
    "div_sparse_error": lambda t: _sp(t) / _sp2(t),
    "index_select_dim1": lambda t: _dense_of(_sp(t).index_select(1, t.tensor([2, 0]))),
    "index_select_dim0_repeat": lambda t: _dense_of(_sp(t).index_select(0, t.tensor([1, 1, 0]))),
    "index_select_function": lambda t: _dense_of(t.index_select(_sp(t), 0, t.tensor([1]))),
    "index_select_negative": lambda t: _dense_of(_sp(t).index_select(0, t.tensor([-1]))),
    "index_select_out_of_range": lambda t: _sp(t).index_select(0, t.tensor([5])),
    "index_select_hybrid_dense_dim": lambda t: _dense_of(_hyb(t).index_select(1, t.tensor([1]))),
    "index_select_hybrid_sparse_dim": lambda t: _dense_of(
        _hyb(t).index_select(0, t.tensor([2, 0, 2]))),
    "index_select_empty": lambda t: _dense_of(_sp(t).index_select(1, t.tensor([], dtype=t.long))),
    "index_select_one": lambda t: _dense_of(_sp(t).index_select(0, t.tensor([0]))),
}


def _dsp(t):
    return t.tensor([[0., 1., 0.], [2., 0., 3.]]).to_sparse()


def _rand_sparse(t, m, n, seed):
    g = t.Generator().manual_seed(seed)
    return ((t.rand(m, n, generator=g) > 0.7).double() * t.rand(m, n, generator=g,
                                                               dtype=t.float64)).to_sparse()


def _spsp_grad(t):
    v = t.tensor([1., 2., 3.], requires_grad=True)
    a = t.sparse_coo_tensor(t.tensor([[0, 1, 1], [1, 0, 2]]), v, (2, 3))
    t.sparse.sum(a @ a.t()).backward()
    return v.grad


def _sp_inplace(t, fn):
    r = fn(_dsp(t).clone())
    return r.to_dense(), r.is_coalesced(), r._nnz()


SPARSE.update({
    "matmul_sparse_sparse": lambda t: _dense_of(_dsp(t) @ _dsp(t).t()),
    "mm_sparse_sparse": lambda t: _dense_of(t.sparse.mm(_dsp(t), _dsp(t).t())),
    "matmul_sparse_sparse_nnz": lambda t: (_dsp(t).t() @ _dsp(t))._nnz(),
    "matmul_structural_zero": lambda t: (lambda r: (r.to_dense(), r._nnz()))(
        t.tensor([[1., -1.], [1., 1.]]).to_sparse() @ t.tensor([[1., 0.], [1., 0.]]).to_sparse()),
    "matmul_random": lambda t: (lambda r: (r.to_dense(), r._nnz(), r.is_coalesced()))(
        _rand_sparse(t, 12, 15, 0) @ _rand_sparse(t, 15, 9, 1)),
    "matmul_empty": lambda t: _dense_of(t.zeros(2, 3).to_sparse() @ _dsp(t).t()),
    "matmul_shape_error": lambda t: _dsp(t) @ _dsp(t),
    "matmul_sparse_sparse_grad": _spsp_grad,
    "add_coalesced_pair": lambda t: (lambda r: (r.is_coalesced(), r._nnz(), r.indices()))(
        _dsp(t) + _dsp(t)),
    "mul_": lambda t: _sp_inplace(t, lambda s: s.mul_(2)),
    "mul_sparse_": lambda t: _sp_inplace(t, lambda s: s.mul_(_dsp(t))),
    "mul_dense_": lambda t: _sp_inplace(t, lambda s: s.mul_(s.to_dense())),
    "add_": lambda t: _sp_inplace(t, lambda s: s.add_(_dsp(t))),
    "add_alpha_": lambda t: _sp_inplace(t, lambda s: s.add_(_dsp(t), alpha=2)),
    "sub_": lambda t: _sp_inplace(t, lambda s: s.sub_(_dsp(t))),
    "div_": lambda t: _sp_inplace(t, lambda s: s.div_(2)),
    "div_0d_": lambda t: _sp_inplace(t, lambda s: s.div_(t.tensor(2.))),
    "add_dense_refused": lambda t: _dsp(t).add_(t.ones(2, 3)),
    "mul_leaf_refused": lambda t: _dsp(t).requires_grad_().mul_(2),
    "zeros_like": lambda t: _dense_of(t.zeros_like(_dsp(t), dtype=t.float64)),
    "zeros_like_nnz": lambda t: (t.zeros_like(_dsp(t))._nnz(), t.zeros_like(_dsp(t)).is_sparse),
    "empty_like": lambda t: (t.empty_like(_dsp(t))._nnz(), t.empty_like(_dsp(t)).shape),
    "zeros_like_strided": lambda t: t.zeros_like(_dsp(t), layout=t.strided),
    "zeros_like_requires_grad": lambda t: t.zeros_like(_dsp(t), requires_grad=True)
    .requires_grad,
    "zeros_like_hybrid": lambda t: (lambda z: (z.sparse_dim(), z.dense_dim(), z.to_dense()))(
        t.zeros_like(_hyb(t))),
    "zeros_like_plus": lambda t: (lambda s: repr(t.zeros_like(s) + s))(
        _dsp(t).requires_grad_()),
    "cat_dim0": lambda t: _dense_of(t.cat([_dsp(t), _dsp(t)])),
    "cat_dim1": lambda t: _dense_of(t.cat([_dsp(t), _dsp(t)], 1)),
    "cat_dim_neg": lambda t: _dense_of(t.cat([_dsp(t), _dsp(t)], -1)),
    "cat_uncoalesced": lambda t: _dense_of(t.cat([_dsp(t), _sp(t)], 1)),
    "cat_one": lambda t: _dense_of(t.cat([_dsp(t)])),
    "cat_promote": lambda t: _dense_of(t.cat([_dsp(t), _dsp(t).double()])),
    "cat_dense_refused": lambda t: t.cat([_dsp(t), _dsp(t).to_dense()]),
    "cat_shape_refused": lambda t: t.cat([_dsp(t), t.ones(3, 2).to_sparse()], 1),
    "stack": lambda t: _dense_of(t.stack([_dsp(t), _dsp(t)])),
    "stack_last": lambda t: _dense_of(t.stack([_dsp(t), _dsp(t)], 2)),
    "norm": lambda t: _dsp(t).norm(),
    "norm_1": lambda t: _dsp(t).norm(1),
    "norm_uncoalesced": lambda t: _sp(t).norm(),
    "any": lambda t: (_dsp(t).any(), t.zeros(2, 2).to_sparse().any()),
    "getitem_column": lambda t: _dense_of(_dsp(t)[:, 1]),
    "getitem_column_neg": lambda t: _dense_of(_dsp(t)[:, -1]),
    "getitem_row_slice": lambda t: _dense_of(_dsp(t)[1, :]),
    "getitem_column_oob": lambda t: _dsp(t)[:, 5],
    "getitem_hybrid_column": lambda t: _dense_of(_hyb(t)[:, 1]),
})


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_sparse(name):
    same(SPARSE[name], rtol=1e-12)  # (sums in another order: last-bit differences)


# -- 6. nested ----------------------------------------------------------------------------------

def _empty_nested(t, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = t.nested.nested_tensor([], **kw)
    return (n.dim(), n.size(0), n.unbind(), n.numel(), n.dtype, n.is_nested, repr(n),
            t.nested.to_padded_tensor(n, 0.), (n + 1).unbind())


NESTED = {
    "empty": _empty_nested,
    "empty_float64": lambda t: _empty_nested(t, dtype=t.float64),
    "empty_requires_grad": lambda t: _empty_nested(t, requires_grad=True)[-3],
    "empty_jagged": lambda t: t.nested.nested_tensor([], layout=t.jagged),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested(name):
    same(NESTED[name])


# -- 7. warnings name the user's line ------------------------------------------------------------

@pytest.mark.parametrize("form", ["method_", "method", "function"])
def test_scatter_reduce_warning_names_caller(form):
    import warnings

    import numtorch
    from numtorch import _warn_once

    t = numtorch
    call = {"method_": lambda: t.ones(3).scatter_(0, t.tensor([1]), t.tensor([5.]), reduce="add"),
            "method": lambda: t.ones(3).scatter(0, t.tensor([1]), t.tensor([5.]), reduce="add"),
            "function": lambda: t.scatter(t.ones(3), 0, t.tensor([1]), t.tensor([5.]),
                                          reduce="add")}[form]
    _warn_once._DONE.discard("scatter_reduce_src")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        call()
    assert [x.filename for x in w] == [__file__]


def _warned_where(fn):
    import os
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [os.path.basename(x.filename) for x in w]


DOF = {
    "std": lambda t: t.tensor([1.]).std(),
    "var": lambda t: t.tensor([1.]).var(),
    "torch_std": lambda t: t.std(t.tensor([1.])),
    "var_mean": lambda t: t.var_mean(t.tensor([1.])),
    "std_mean_dim": lambda t: t.std_mean(t.tensor([1.]), 0),
    "var_correction": lambda t: t.tensor([1., 2.]).var(correction=3),
    "cov": lambda t: t.cov(t.tensor([1.])),
}


@pytest.mark.parametrize("name", sorted(DOF))
def test_degrees_of_freedom_warning_names_caller(name):
    same(lambda t: _warned_where(lambda: DOF[name](t)))


@pytest.mark.parametrize("form", ["to", "float", "copy_", "type"])
def test_complex_cast_warning_names_caller(form):
    import numtorch as t
    from numtorch import _warn_once

    c = t.tensor([1 + 2j])
    call = {"to": lambda: c.to(t.float32), "float": lambda: c.float(),
            "copy_": lambda: t.zeros(1).copy_(c), "type": lambda: c.type(t.float64)}[form]
    _warn_once._DONE.discard("complex-cast")
    assert _warned_where(call) == ["test_parity_s46_tensor.py"]


OUT_RESIZE = {
    "add": lambda t: t.add(t.ones(2), 1, out=t.empty(3)),
    "mm": lambda t: t.mm(t.ones(2, 2), t.ones(2, 2), out=t.empty(2)),
    "sum_dim": lambda t: t.sum(t.ones(2, 2), 0, out=t.empty(3)),
    "max_dim": lambda t: t.max(t.ones(2, 2), 0, out=(t.empty(1), t.empty(1, dtype=t.long))),
}


@pytest.mark.parametrize("name", sorted(OUT_RESIZE))
def test_out_resize_warning_names_caller(name):
    same(lambda t: _warned_where(lambda: OUT_RESIZE[name](t)))


def test_ndarray_list_warning():
    import numpy as np

    import numtorch as t
    from numtorch import _warn_once

    _warn_once._DONE.discard("ndarray-list")
    got = _warned_where(lambda: t.tensor([np.array([1, 2]), np.array([3, 4])]))
    assert got == ["test_parity_s46_tensor.py"]
    assert _warned_where(lambda: t.tensor([np.array([1, 2])])) == []  # (once, as torch's)
    assert _warned_where(lambda: t.tensor([1, np.array(2)])) == []


def test_istft_no_window_warning_names_caller():
    import numtorch as t
    from numtorch import _warn_once

    spec = t.stft(t.ones(16), 8, window=t.ones(8), return_complex=True)
    _warn_once._DONE.discard("istft-no-window")
    assert _warned_where(lambda: t.istft(spec, 8)) == ["test_parity_s46_tensor.py"]


# -- 8. flatten with nothing to merge returns the tensor itself -----------------------------------

def _flat_same(t, make, *args):
    x = make(t)
    y = x.flatten(*args)
    return y is x, y.is_leaf, tuple(y.shape)


FLATTEN = {
    "1d_leaf": lambda t: _flat_same(t, lambda t: t.ones(2, requires_grad=True)),
    "2d_dim1": lambda t: _flat_same(t, lambda t: t.ones(2, 3), 1),
    "2d_0_0": lambda t: _flat_same(t, lambda t: t.ones(2, 3), 0, 0),
    "2d_1_neg1": lambda t: _flat_same(t, lambda t: t.ones(2, 3), 1, -1),
    "0d": lambda t: _flat_same(t, lambda t: t.tensor(1.)),
    "2d_all": lambda t: _flat_same(t, lambda t: t.ones(2, 3)),
    "function": lambda t: (lambda x: t.flatten(x, 1, 1) is x)(t.ones(2, 3)),
}


@pytest.mark.parametrize("name", sorted(FLATTEN))
def test_flatten_identity(name):
    same(FLATTEN[name])


def _node(t, fn):
    x = t.ones(2, requires_grad=True)
    return type(fn(t, x).grad_fn).__name__


NODES = {
    "to_copy_dtype": lambda t: _node(t, lambda t, x: x.to(t.float32, copy=True)),
    "to_copy": lambda t: _node(t, lambda t, x: x.to(copy=True)),
    "to_copy_device": lambda t: _node(t, lambda t, x: x.to("cpu", copy=True)),
    "to_other_dtype": lambda t: _node(t, lambda t, x: x.to(t.float64)),
    "clone": lambda t: _node(t, lambda t, x: x.clone()),
}


@pytest.mark.parametrize("name", sorted(NODES))
def test_node_names(name):
    same(NODES[name])


# -- 9. a 0-d tensor clamp bound passes as a number ------------------------------------------------

def _half(t):
    return t.ones(2, 3) * 0.5


CLAMP = {
    "method_kw": lambda t: _half(t).clamp(min=t.tensor(0.), max=1.),
    "method_pos": lambda t: _half(t).clamp(t.tensor(0.), 1.),
    "function_pos": lambda t: t.clamp(_half(t), t.tensor(0.), 1.),
    "function_kw": lambda t: t.clamp(_half(t), min=t.tensor(0.), max=1.),
    "max_tensor": lambda t: _half(t).clamp(min=0., max=t.tensor(0.2)),
    "nd_tensor_refused": lambda t: _half(t).clamp(min=t.zeros(3), max=1.),
    "clip": lambda t: _half(t).clip(min=t.tensor(0.), max=1.),
    "clamp_": lambda t: _half(t).clamp_(min=t.tensor(0.), max=1.),
    "clip_function": lambda t: t.clip(_half(t), min=t.tensor(0.), max=1.),
    "int_bounds": lambda t: _half(t).clamp(min=t.tensor(0), max=1),
    "int_input_float_0d": lambda t: t.tensor([1, 5]).clamp(t.tensor(1.5), 3),
    "grad_node": lambda t: type(t.ones(2, requires_grad=True).clamp(t.tensor(0.), 2.).grad_fn)
    .__name__,
}


@pytest.mark.parametrize("name", sorted(CLAMP))
def test_clamp_0d_bound(name):
    same(CLAMP[name])


# -- 10. 0-d tensors where torch takes numbers ----------------------------------------------------

def _x6(t):
    return t.arange(6.).reshape(2, 3)


def _q_grad(t):
    q = t.tensor(0.3, requires_grad=True)
    y = t.arange(5.).quantile(q)
    y.backward()
    return y, q.grad


QUANTILE_0D = {
    "all": lambda t: _x6(t).quantile(t.tensor(0.5)),
    "dim": lambda t: _x6(t).quantile(t.tensor(0.5), dim=1),
    "dim_keepdim": lambda t: _x6(t).quantile(t.tensor(0.5), dim=1, keepdim=True),
    "all_keepdim": lambda t: _x6(t).quantile(t.tensor(0.5), keepdim=True),
    "nanquantile": lambda t: _x6(t).nanquantile(t.tensor(0.25), dim=0),
    "nearest": lambda t: _x6(t).quantile(t.tensor(0.3), interpolation="nearest"),
    "one_elem_1d": lambda t: _x6(t).quantile(t.tensor([0.5]), dim=1),
    "grad": _q_grad,
}


@pytest.mark.parametrize("name", sorted(QUANTILE_0D))
def test_quantile_0d_q(name):
    same(QUANTILE_0D[name])


ZERO_D_ARGS = {
    "topk_k": lambda t: _x6(t).topk(t.tensor(2)),
    "topk_k_1elem": lambda t: _x6(t).topk(t.tensor([2])),
    "kthvalue_k": lambda t: _x6(t).kthvalue(t.tensor(1)),
    "tril_diagonal": lambda t: _x6(t).tril(t.tensor(1)),
    "select_index": lambda t: _x6(t).select(0, t.tensor(1)),
    "split_size": lambda t: _x6(t).split(t.tensor(1)),
    "chunk_chunks": lambda t: _x6(t).chunk(t.tensor(2)),
    "roll_shifts": lambda t: _x6(t).roll(t.tensor(1)),
    "roll_shifts_dims": lambda t: _x6(t).roll(t.tensor(1), t.tensor(1)),
    "matrix_power_n": lambda t: t.linalg.matrix_power(_x6(t)[:, :2], t.tensor(2)),
    "triu_indices": lambda t: t.triu_indices(t.tensor(3), t.tensor(3)),
    "tril_indices_offset": lambda t: t.tril_indices(3, 3, t.tensor(-1)),
    "logit_eps": lambda t: t.logit(_x6(t) / 10, eps=t.tensor(0.1)),
    "nan_to_num_values": lambda t: t.tensor([float("nan"), float("inf"), -float("inf")])
    .nan_to_num(nan=t.tensor(1.), posinf=t.tensor(2.), neginf=t.tensor(-2)),
}


@pytest.mark.parametrize("name", sorted(ZERO_D_ARGS))
def test_one_element_tensor_args(name):
    same(ZERO_D_ARGS[name])


SMALL = {
    "logsumexp_no_dim_method": lambda t: t.ones(2, 2).logsumexp(),
    "logsumexp_no_dim_function": lambda t: t.logsumexp(t.ones(2, 2)),
    "logsumexp_dim": lambda t: t.ones(2, 2).logsumexp(0),
    "trace_bool": lambda t: t.ones(2, 2, dtype=t.bool).trace(),
    "trace_int8": lambda t: t.full((2, 2), 100, dtype=t.int8).trace(),
    "trace_uint8": lambda t: t.full((2, 2), 200, dtype=t.uint8).trace(),
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_fixes(name):
    same(SMALL[name])


# -- 11. masked: torch.where with MaskedTensor operands -------------------------------------------

def _mt_where(t, which):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = t.tensor([[1., 2., 3.], [4., 5., 6.]])
        m = t.tensor([[True, False, True], [False, False, False]])
        c = t.tensor([[True, True, False], [False, True, True]])
        mt = t.masked.masked_tensor(x, m)
        mt2 = t.masked.masked_tensor(x * 10, ~m)
        out = {"scalar_other": lambda: t.where(m, mt, 0), "two_masked": lambda: t.where(c, mt, mt2),
               "scalar_first": lambda: t.where(c, 0., mt), "plain_other": lambda: t.where(c, mt, x),
               "sum": lambda: t.where(c, mt, 0).sum()}[which]()
        return repr(out), out.get_data(), out.get_mask()


@pytest.mark.parametrize("which", ["scalar_other", "two_masked", "scalar_first", "plain_other",
                                   "sum"])
def test_masked_where(which):
    same(lambda t: _mt_where(t, which))


TYPE_NAMES = {
    "zeros_dtype": lambda t: t.zeros(t.float32),
    "ones_size_dtype": lambda t: t.ones(2, t.float32),
    "empty_device": lambda t: t.empty(t.device("cpu")),
    "zeros_str": lambda t: t.zeros("a"),
    "zeros_tensor": lambda t: t.zeros(t.ones(2)),
}


@pytest.mark.parametrize("name", sorted(TYPE_NAMES))
def test_size_argument_type_names(name):
    same(TYPE_NAMES[name])


REDUCE_DIM_0D = {
    "sum_kw": lambda t: _x6(t).sum(dim=t.tensor(0)),
    "sum_pos": lambda t: _x6(t).sum(t.tensor(1)),
    "sum_float_refused": lambda t: _x6(t).sum(t.tensor(0.)),
    "mean": lambda t: _x6(t).mean(t.tensor(0)),
    "amax": lambda t: _x6(t).amax(t.tensor(1)),
    "std": lambda t: _x6(t).std(t.tensor(0)),
    "prod": lambda t: _x6(t).prod(t.tensor(0)),
    "logsumexp": lambda t: _x6(t).logsumexp(t.tensor(0)),
    "any": lambda t: _x6(t).any(t.tensor(0)),
    "var_mean": lambda t: t.var_mean(_x6(t), t.tensor(1)),
    "count_nonzero": lambda t: _x6(t).count_nonzero(t.tensor(0)),
    "movedim": lambda t: t.ones(2, 3, 4).movedim(t.tensor(0), 2).shape,
    "movedim_both": lambda t: t.movedim(t.ones(2, 3, 4), t.tensor(0), t.tensor(1)).shape,
    "moveaxis": lambda t: t.ones(2, 3, 4).moveaxis(t.tensor(0), -1).shape,
}


@pytest.mark.parametrize("name", sorted(REDUCE_DIM_0D))
def test_reduction_dim_one_element_tensor(name):
    same(REDUCE_DIM_0D[name])
