"""torch 2.13 public names numtorch lacked: oracle tests against torch."""

import numpy as np
import pytest
import torch as T

import numtorch as nt

REDUCES = ["sum", "mean", "max", "min", "prod"]


def _both(a, **kw):
    return nt.tensor(a, **kw), T.tensor(a, **kw)


def _close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a.detach().tolist(), dtype=float),
                               np.asarray(b.detach().tolist(), dtype=float),
                               rtol=1e-5, atol=1e-6, equal_nan=True, **kw)


def _raises(fn_nt, fn_t):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as en:
        fn_nt()
    assert type(en.value) is type(et.value)
    assert str(en.value) == str(et.value)


# -- segment_reduce ------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 1.5])
@pytest.mark.parametrize("by", ["lengths", "offsets"])
def test_segment_reduce_1d_values_and_grad(reduce, initial, by):
    rng = np.random.default_rng(0)
    data = rng.integers(-3, 4, size=(11, 3)).astype(np.float64)  # ties and zeros
    lengths = np.array([3, 0, 4, 1, 0, 3])
    idx = lengths if by == "lengths" else np.concatenate([[0], np.cumsum(lengths)])
    a, b = _both(data, requires_grad=True)
    ya = nt.segment_reduce(a, reduce, **{by: nt.tensor(idx)}, initial=initial)
    yb = T.segment_reduce(b, reduce, **{by: T.tensor(idx)}, initial=initial)
    _close(ya, yb)
    assert ya.dtype == nt.float64 and tuple(ya.shape) == tuple(yb.shape)
    assert ya.grad_fn.name() == yb.grad_fn.name()
    g = rng.standard_normal(tuple(yb.shape))
    ya.backward(nt.tensor(g))
    yb.backward(T.tensor(g))
    _close(a.grad, b.grad)


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_axis_batched(reduce):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 7, 3)).astype(np.float32)
    lengths = np.array([[2, 0, 5], [3, 3, 1]])
    a, b = _both(data, requires_grad=True)
    ya = nt.segment_reduce(a, reduce, lengths=nt.tensor(lengths), axis=1)
    yb = T.segment_reduce(b, reduce, lengths=T.tensor(lengths), axis=1)
    assert ya.dtype == nt.float32 and tuple(ya.shape) == tuple(yb.shape)
    _close(ya, yb)
    g = rng.standard_normal(tuple(yb.shape)).astype(np.float32)
    ya.backward(nt.tensor(g))
    yb.backward(T.tensor(g))
    _close(a.grad, b.grad)


def test_segment_reduce_prod_single_zero_grad():
    data = [2., 0., 3., 0., 0., 4., 5.]
    a, b = _both(data, requires_grad=True)
    ya = nt.segment_reduce(a, "prod", lengths=nt.tensor([3, 2, 2]), initial=0.5)
    yb = T.segment_reduce(b, "prod", lengths=T.tensor([3, 2, 2]), initial=0.5)
    ya.backward(nt.tensor([1., 2., 3.]))
    yb.backward(T.tensor([1., 2., 3.]))
    _close(ya, yb)
    _close(a.grad, b.grad)


def test_segment_reduce_half_and_unsafe():
    x = [1., 2., 3., 4., 5., 6.]
    ya = nt.segment_reduce(nt.tensor(x, dtype=nt.float16), "sum", lengths=nt.tensor([2, 2]),
                           unsafe=True)
    yb = T.segment_reduce(T.tensor(x, dtype=T.float16), "sum", lengths=T.tensor([2, 2]),
                          unsafe=True)
    assert ya.dtype == nt.float16
    _close(ya, yb)


@pytest.mark.parametrize("case", [
    {"lengths": [2, 2]}, {}, {"lengths": [2., 4.]}, {"lengths": [-1, 7]},
    {"lengths": [2, 4], "axis": 1}, {"reduce": "foo", "lengths": [6]},
    {"data": "long", "lengths": [6]},
])
def test_segment_reduce_errors(case):
    case = dict(case)
    reduce = case.pop("reduce", "sum")
    kind = case.pop("data", "float")

    def call(lib):
        data = lib.tensor([1., 2., 3., 4., 5., 6.])
        if kind == "long":
            data = data.long()
        kw = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in case.items()}
        return lib.segment_reduce(data, reduce, **kw)

    _raises(lambda: call(nt), lambda: call(T))


def test_segment_reduce_axis_not_last_of_lengths():
    def call(lib):
        return lib.segment_reduce(lib.arange(12.).reshape(2, 6), "sum",
                                  lengths=lib.tensor([[2, 4], [3, 3]]), axis=0)
    _raises(lambda: call(nt), lambda: call(T))


# -- SyncBatchNorm building blocks ---------------------------------------------------------
SYNC_BN_CPU_ONLY_IN_CUDA = [
    ("batch_norm_stats", lambda lib, x, v: lib.batch_norm_stats(x, 1e-5)),
    ("batch_norm_elemt", lambda lib, x, v: lib.batch_norm_elemt(x, v, v, v, v, 1e-5)),
    ("batch_norm_gather_stats", lambda lib, x, v: lib.batch_norm_gather_stats(
        x, v[None], v[None], None, None, 0.1, 1e-5, 4)),
    ("batch_norm_gather_stats_with_counts", lambda lib, x, v:
        lib.batch_norm_gather_stats_with_counts(x, v[None], v[None], None, None, 0.1, 1e-5,
                                                lib.tensor([4.]))),
    ("batch_norm_backward_reduce", lambda lib, x, v: lib.batch_norm_backward_reduce(
        x, x, v, v, v, True, True, True)),
    ("batch_norm_backward_elemt", lambda lib, x, v: lib.batch_norm_backward_elemt(
        x, x, v, v, v, v, v, lib.tensor([4], dtype=lib.int32))),
]


@pytest.mark.parametrize("name,call", SYNC_BN_CPU_ONLY_IN_CUDA,
                         ids=lambda c: c if isinstance(c, str) else "call")
def test_sync_bn_blocks_refuse_cpu_like_torch(name, call):
    with pytest.raises(NotImplementedError) as et:
        call(T, T.ones(4, 3, 2), T.ones(3))
    with pytest.raises(NotImplementedError) as en:
        call(nt, nt.ones(4, 3, 2), nt.ones(3))
    # torch's text goes on with its build's list of backends
    assert str(et.value).startswith(str(en.value))
    assert f"'aten::{name}'" in str(en.value)


@pytest.mark.parametrize("weighted", [True, False])
def test_sync_bn_blocks_on_two_ranks_equal_torch_batch_norm(weighted):
    """Two 'ranks' (uneven batch halves) through stats -> gather_with_counts -> elemt and
    backward_reduce -> (sum) -> backward_elemt give torch's batch_norm forward, running
    estimates and gradients on the whole batch."""
    from tests.cuda import standin

    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 3, 4))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    g = rng.standard_normal(x.shape)
    eps, momentum = 1e-5, 0.2
    xt = T.tensor(x, requires_grad=True)
    wt = T.tensor(w, requires_grad=True) if weighted else None
    bt = T.tensor(b, requires_grad=True) if weighted else None
    rmt, rvt = T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64)
    yt = T.nn.functional.batch_norm(xt, rmt, rvt, wt, bt, True, momentum, eps)
    yt.backward(T.tensor(g))
    with standin.active():
        dev = "cuda"
        parts = [nt.tensor(x[:3], device=dev), nt.tensor(x[3:], device=dev)]
        gs = [nt.tensor(g[:3], device=dev), nt.tensor(g[3:], device=dev)]
        wn = nt.tensor(w, device=dev) if weighted else None
        bn = nt.tensor(b, device=dev) if weighted else None
        stats = [nt.batch_norm_stats(p, eps) for p in parts]
        means = nt.stack([s[0] for s in stats])
        invs = nt.stack([s[1] for s in stats])
        counts = nt.tensor([3. * 4, 4. * 4], device=dev)
        rm, rv = nt.zeros(3, dtype=nt.float64, device=dev), nt.ones(3, dtype=nt.float64,
                                                                    device=dev)
        mean, invstd = nt.batch_norm_gather_stats_with_counts(parts[0], means, invs, rm, rv,
                                                             momentum, eps, counts)
        ys = [nt.batch_norm_elemt(p, wn, bn, mean, invstd, eps) for p in parts]
        _close(nt.cat(ys).cpu(), yt)
        _close(rm.cpu(), rmt)
        _close(rv.cpu(), rvt)
        red = [nt.batch_norm_backward_reduce(gg, p, mean, invstd, wn, True, True, True)
               for gg, p in zip(gs, parts)]
        sum_dy, sum_dy_xmu = red[0][0] + red[1][0], red[0][1] + red[1][1]
        cnt = nt.tensor([12, 16], dtype=nt.int32, device=dev)
        dx = [nt.batch_norm_backward_elemt(gg, p, mean, invstd, wn, sum_dy, sum_dy_xmu, cnt)
              for gg, p in zip(gs, parts)]
        _close(nt.cat(dx).cpu(), xt.grad)
        if weighted:
            _close((red[0][2] + red[1][2]).cpu(), wt.grad)
            _close((red[0][3] + red[1][3]).cpu(), bt.grad)
        else:
            assert red[0][2] is None
        # the equal-count form
        m2, i2 = nt.batch_norm_gather_stats(parts[0], means[:1].expand(2, 3),
                                            invs[:1].expand(2, 3), None, None, momentum,
                                            eps, 12)
        _close(m2.cpu(), means[0].cpu())
        _close(i2.cpu(), invs[0].cpu())


@pytest.mark.parametrize("track", [True, False])
def test_batch_norm_update_stats(track):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((5, 3, 2, 2)).astype(np.float32)
    rn = (nt.zeros(3), nt.ones(3)) if track else (None, None)
    rt = (T.zeros(3), T.ones(3)) if track else (None, None)
    a = nt.batch_norm_update_stats(nt.tensor(x), *rn, 0.3)
    b = T.batch_norm_update_stats(T.tensor(x), *rt, 0.3)
    for u, v in zip(a, b):
        assert u.dtype == nt.float32
        _close(u, v)
    if track:
        _close(rn[0], rt[0])
        _close(rn[1], rt[1])


def test_batch_norm_update_stats_mixed_dtype():
    _raises(lambda: nt.batch_norm_update_stats(nt.ones(4, 3), nt.zeros(3, dtype=nt.float64),
                                               nt.ones(3, dtype=nt.float64), 0.1),
            lambda: T.batch_norm_update_stats(T.ones(4, 3), T.zeros(3, dtype=T.float64),
                                              T.ones(3, dtype=T.float64), 0.1))


# -- slice_inverse -------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["step", "rows", "transposed_src", "contiguous_src"])
def test_slice_inverse_geometry_values_and_grad(case):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((3, 10))
    g = rng.standard_normal((3, 10))

    def run(lib):
        base = lib.tensor(data, requires_grad=True)
        work = base * 1.0  # a non-leaf base whose slices are views
        if case == "step":
            v, src, args = work[:, 2:10:2], work, (1, 2, 10, 2)
        elif case == "rows":
            v, src, args = work[1:], lib.zeros(3, 10, dtype=lib.float64), (0, 1)
        elif case == "transposed_src":
            v, src, args = work.t()[1:], work.t(), (0, 1)
        else:
            v, src, args = work.t()[1:], lib.empty(10, 3, dtype=lib.float64), (0, 1)
        out = lib.slice_inverse(v, src, *args)
        same = v.slice_inverse(src, *args)
        grad_g = lib.tensor(g if out.shape == (3, 10) else g.T)
        out.backward(grad_g)
        return out, same, base.grad

    (o1, s1, g1), (o2, s2, g2) = run(nt), run(T)
    assert tuple(o1.shape) == tuple(o2.shape) and o1.stride() == o2.stride()
    assert o1.storage_offset() == o2.storage_offset()
    assert o1.grad_fn.name() == o2.grad_fn.name() == "SliceInverseBackward0"
    _close(o1, o2)
    _close(s1, s2)
    _close(g1, g2)


def test_slice_inverse_out_of_storage():
    _raises(lambda: nt.slice_inverse(nt.arange(12.).reshape(3, 4), nt.zeros(3, 10), 1, 2, 10, 2),
            lambda: T.slice_inverse(T.arange(12.).reshape(3, 4), T.zeros(3, 10), 1, 2, 10, 2))


# -- native_norm ---------------------------------------------------------------------------
@pytest.mark.parametrize("args", [(), (3,), (float("inf"),), (0,), (1,), (2, [0, 1], False, None),
                                  (2, [], False, None)], ids=str)
def test_native_norm_sparse_values(args):
    dense = np.array([[3., 0., 1.5], [0., -4., 0.]], dtype=np.float32)
    a = nt.native_norm(nt.tensor(dense).to_sparse(), *args)
    b = T.native_norm(T.tensor(dense).to_sparse(), *args)
    assert a.dtype == nt.float32 and a.shape == ()
    _close(a, b)


@pytest.mark.parametrize("case", ["dense", "dense_full_form", "dim", "dtype", "long"])
def test_native_norm_errors(case):
    def call(lib):
        s = lib.tensor([[3., 0.], [0., -4.]])
        if case == "dense":
            return lib.native_norm(s)
        if case == "dense_full_form":
            return lib.native_norm(s, 2, [0], False, None)
        if case == "long":
            return lib.native_norm(lib.tensor([[1, 0], [0, 2]]).to_sparse())
        s = s.to_sparse()
        if case == "dim":
            return lib.native_norm(s, 1, [1], True, None)
        return lib.native_norm(s, 2, [0, 1], False, lib.float64)

    with pytest.raises(Exception) as et:
        call(T)
    with pytest.raises(Exception) as en:
        call(nt)
    assert type(en.value) is type(et.value)
    assert str(et.value).startswith(str(en.value))  # torch then lists its build's backends


# -- map2_ ---------------------------------------------------------------------------------
def test_map2_values_broadcast_and_dtype_rounding():
    for lib in (nt, T):
        a = lib.tensor([[1., 1., 1.], [2., 2., 2.]])
        r = a.map2_(lib.tensor([1., 2., 3.]), lib.tensor([[5.], [6.]]), lambda x, y, z: x + y * z)
        assert r is a
    _close(nt.tensor([[1., 1., 1.], [2., 2., 2.]]).map2_(
        nt.tensor([1., 2., 3.]), nt.tensor([[5.], [6.]]), lambda x, y, z: x + y * z),
        T.tensor([[1., 1., 1.], [2., 2., 2.]]).map2_(
        T.tensor([1., 2., 3.]), T.tensor([[5.], [6.]]), lambda x, y, z: x + y * z))
    ia, ib = nt.tensor([1, 2, 3]), T.tensor([1, 2, 3])
    ia.map2_(ia.clone(), ia.clone(), lambda x, y, z: x * 1.5)
    ib.map2_(ib.clone(), ib.clone(), lambda x, y, z: x * 1.5)
    assert ia.tolist() == ib.tolist()
    ta, tb = nt.arange(6.).reshape(2, 3).t(), T.arange(6.).reshape(2, 3).t()
    ta.map2_(nt.ones(3, 2), nt.ones(3, 2) * 2, lambda x, y, z: x + y + z)
    tb.map2_(T.ones(3, 2), T.ones(3, 2) * 2, lambda x, y, z: x + y + z)
    assert ta.tolist() == tb.tolist()


@pytest.mark.parametrize("case", ["grad", "x_dtype", "y_dtype", "x_not_tensor", "y_not_tensor",
                                  "shape", "str_result"])
def test_map2_errors(case):
    def call(lib):
        a = lib.tensor([1., 2., 3.], requires_grad=case == "grad")
        x, y = lib.tensor([1., 2., 3.]), lib.tensor([4., 5., 6.])
        def fn(p, q, r):
            return p + q + r

        if case == "x_dtype":
            x = x.long()
        elif case == "y_dtype":
            y = y.long()
        elif case == "x_not_tensor":
            x = 1
        elif case == "y_not_tensor":
            y = 2
        elif case == "shape":
            x = lib.tensor([1., 2.])
        elif case == "str_result":
            def fn(p, q, r):
                return "s"
        return a.map2_(x, y, fn)

    _raises(lambda: call(nt), lambda: call(T))


# -- grad_dtype ----------------------------------------------------------------------------
def test_grad_dtype_default_set_and_accumulate():
    for lib in (nt, T):
        a = lib.ones(3, requires_grad=True)
        assert a.grad_dtype == lib.float32
        assert lib.ones(2).grad_dtype == lib.float32
    a, b = nt.ones(3, requires_grad=True), T.ones(3, requires_grad=True)
    a.grad_dtype, b.grad_dtype = nt.float64, T.float64
    for _ in range(2):
        (a * 2).sum().backward()
        (b * 2).sum().backward()
    assert a.grad.dtype == nt.float64 and b.grad.dtype == T.float64
    _close(a.grad, b.grad)
    a, b = nt.ones(3, requires_grad=True), T.ones(3, requires_grad=True)
    a.grad_dtype, b.grad_dtype = None, None
    assert a.grad_dtype is None and b.grad_dtype is None
    a.grad, b.grad = nt.ones(3, dtype=nt.float64), T.ones(3, dtype=T.float64)
    assert a.grad.dtype == nt.float64
    a, b = nt.ones(3, requires_grad=True), T.ones(3, requires_grad=True)
    a.grad_dtype, b.grad_dtype = nt.float16, T.float16
    (a * 2).sum().backward(create_graph=True)
    (b * 2).sum().backward(create_graph=True)
    assert a.grad.dtype == nt.float16 and b.grad.dtype == T.float16


@pytest.mark.parametrize("case", ["get_nonleaf", "set_nonleaf", "set_int", "existing_grad",
                                  "assign_mismatch", "assign_default_mismatch"])
def test_grad_dtype_errors(case):
    def call(lib):
        a = lib.ones(3, requires_grad=True)
        if case == "get_nonleaf":
            return (a * 2).grad_dtype
        if case == "set_nonleaf":
            (a * 2).grad_dtype = lib.float64
        if case == "set_int":
            a.grad_dtype = 3
        if case == "existing_grad":
            a.grad = lib.ones(3)
            a.grad_dtype = lib.float64
        if case == "assign_mismatch":
            a.grad_dtype = lib.float64
            a.grad = lib.ones(3)
        if case == "assign_default_mismatch":
            a.grad = lib.ones(3, dtype=lib.float64)

    _raises(lambda: call(nt), lambda: call(T))


# -- hash_tensor ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    ("bool", [True, False, True], None, False), ("uint8", [200, 3], None, False),
    ("int8", [-1, 3], None, False), ("int64", [[1, 2], [3, 4]], 1, False),
    ("float16", [1.5, 2.5], None, False), ("bfloat16", [1.5, 2.5], None, False),
    ("float32", [float("nan"), -0.0, 3.25], None, False),
    ("float64", [[0.1, 0.2], [0.3, -7.]], (0, 1), True), ("int32", [[1, 2], [3, 4]], 0, True),
    ("int64", 5, None, False),
], ids=str)
def test_hash_tensor_values(case):
    name, data, dim, keepdim = case
    a = nt.hash_tensor(nt.tensor(data, dtype=getattr(nt, name)), dim, keepdim=keepdim)
    b = T.hash_tensor(T.tensor(data, dtype=getattr(T, name)), dim, keepdim=keepdim)
    assert a.dtype == nt.uint64 and tuple(a.shape) == tuple(b.shape)
    assert a.tolist() == b.tolist()
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    assert nt.tensor(x).hash_tensor(1).tolist() == T.tensor(x).hash_tensor(1).tolist()


@pytest.mark.parametrize("case", ["complex", "uint32", "empty", "mode", "dim_range", "zero_dim"])
def test_hash_tensor_errors(case):
    def call(lib):
        if case == "complex":
            return lib.hash_tensor(lib.tensor([1 + 2j]))
        if case == "uint32":
            return lib.hash_tensor(lib.tensor([1, 2], dtype=lib.uint32))
        if case == "empty":
            return lib.hash_tensor(lib.tensor([]))
        if case == "mode":
            return lib.hash_tensor(lib.tensor([1.]), mode=1)
        if case == "dim_range":
            return lib.hash_tensor(lib.ones(2, 2), 2)
        return lib.hash_tensor(lib.zeros(2, 0), 1)

    _raises(lambda: call(nt), lambda: call(T))


# -- sparse part copies --------------------------------------------------------------------
PART_COPIES = ["indices_copy", "values_copy", "crow_indices_copy", "col_indices_copy",
               "ccol_indices_copy", "row_indices_copy"]


@pytest.mark.parametrize("name", PART_COPIES)
@pytest.mark.parametrize("layout", ["strided", "coo", "csr", "csc", "bsr"])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sparse_part_copies(name, layout):
    dense = [[1., 0., 0.], [2., 3., 0.]]

    def make(lib):
        x = lib.tensor(dense)
        if layout == "coo":
            return x.to_sparse()
        if layout == "csr":
            return x.to_sparse_csr()
        if layout == "csc":
            return x.to_sparse_csc()
        if layout == "bsr":
            return x.to_sparse_bsr((1, 1))
        return x

    try:
        want = getattr(T, name)(make(T))
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        with pytest.raises(type(e)) as got:
            getattr(nt, name)(make(nt))
        assert str(e).startswith(str(got.value))
        return
    src = make(nt)
    out = getattr(nt, name)(src)
    assert out.dtype == getattr(nt, str(want.dtype).split(".")[1])
    assert tuple(out.shape) == tuple(want.shape) and out.tolist() == want.tolist()
    assert out.layout == nt.strided
    out.add_(1)  # a copy: the sparse tensor's part is unchanged
    assert getattr(src, name[:-5])().tolist() == want.tolist()


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("by", ["offsets", "lengths"])
def test_segment_reduce_gaps_between_segments(reduce, by):
    """Offsets that skip rows and unsafe lengths that leave a row's tail out."""
    x = np.arange(12.).reshape(2, 6) - 4.5
    idx = [[1, 2, 5], [0, 3, 4]] if by == "offsets" else [[2, 1], [3, 3]]
    a = nt.tensor(x, requires_grad=True)
    b = T.tensor(x, requires_grad=True)
    ya = nt.segment_reduce(a, reduce, axis=1, unsafe=True, **{by: nt.tensor(idx)})
    yb = T.segment_reduce(b, reduce, axis=1, unsafe=True, **{by: T.tensor(idx)})
    _close(ya, yb)
    g = np.random.default_rng(7).standard_normal(tuple(yb.shape))
    ya.backward(nt.tensor(g))
    yb.backward(T.tensor(g))
    _close(a.grad, b.grad)


def test_grad_dtype_messages_name_bfloat16_and_bool_as_torch():
    # the C++ type names of every dtype (bfloat16 was printed as 'None' in one message)
    def run(L):
        out = []
        for v in (L.ones(2, dtype=L.bfloat16), L.ones(2, dtype=L.bool)):
            t = L.zeros(2, requires_grad=True)
            try:
                t.grad = v
            except RuntimeError as e:
                out.append(str(e))
        t = L.zeros(2, requires_grad=True)
        t.grad_dtype = None
        t.grad = L.ones(2, dtype=L.bfloat16)
        try:
            t.grad_dtype = L.float64
        except RuntimeError as e:
            out.append(str(e))
        return out

    got = run(nt)
    assert len(got) == 3 and got == run(T)
