"""Parity fixes of probe 51, tensors and ops (oracle: real torch at test time): resize_ over a
shared storage (growth keeps every view and the storage aliased; restriding keeps the storage
offset; memory formats), storage growth under its tensors, ..."""

import pytest

from tests.oracle import same

# -- 1. resize_ keeps the storage: offsets, strides, growth under other views -----------------


def _grow_under_slice(t):
    a = t.arange(6.)
    b = a[2:4]
    a.resize_(10)
    a[2] = 100
    return b, a[:6]


def _grow_under_view(t):
    c = t.arange(4.)
    d = c.view(2, 2)
    c.resize_(8)
    c.fill_(1)
    return d, c.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()


def _grow_a_slice(t):
    e = t.arange(4.)
    f = e[1:]
    f.resize_(10)
    f.fill_(7)
    return e, f, f.storage_offset(), e.untyped_storage().nbytes()


def _grow_under_set(t):
    h = t.arange(4.)
    h2 = t.empty(0)
    h2.set_(h.untyped_storage(), 1, (2,))
    h.resize_(6)
    h[1] = 50
    return h2


def _grow_under_row(t):
    m = t.zeros(2, 3)
    mv = m[0]
    m.resize_(4, 4)
    m.fill_(3)
    return mv


def _restride_transposed_smaller(t):
    y = t.arange(6.).view(2, 3).t()
    y.resize_(2)
    return y, y.stride()


def _restride_transposed_larger(t):
    z = t.arange(6.).view(2, 3).t()
    z.resize_(8)
    return z[:6], z.stride()


def _restride_same_shape(t):
    x = t.arange(6.).view(2, 3).t()
    x.resize_(3, 2)
    y = t.arange(6.).view(2, 3).t()
    y.resize_(3, 2, memory_format=t.contiguous_format)
    return x, x.stride(), y, y.stride()


def _restride_step(t):
    w = t.arange(10.)[::2]
    w.resize_(7)
    return w[:5], w.stride(), w.storage_offset()


def _keep_offset(t):
    v = t.arange(10.)[3:5]
    v.resize_(4)
    return v, v.storage_offset()


def _channels_last(t):
    r = t.arange(24.)
    r.resize_(1, 2, 3, 4, memory_format=t.channels_last)
    s = t.zeros(2, 3).resize_(2, 3, 1, 1, memory_format=t.channels_last)
    q = t.zeros(2, 3).resize_(1, 2, 3, 4, 5, memory_format=t.channels_last_3d)
    return r.stride(), r.flatten(), s.stride(), q.stride(), t.zeros(24).resize_(2, 3, 0, 4).stride()


def _resize_as_preserve(t):
    src = t.zeros(1, 2, 3, 4).to(memory_format=t.channels_last)
    a = t.zeros(2).resize_as_(src)
    b = t.zeros(2).resize_as_(src, memory_format=t.preserve_format)
    c = t.zeros(2).resize_as_(t.zeros(1, 2, 3, 4), memory_format=t.channels_last)
    return a.stride(), b.stride(), c.stride()


def _storage_grows_under_tensor(t):
    g = t.arange(3.)
    s = g.untyped_storage()
    s.resize_(40)
    g[0] = 5
    back = t.tensor([], dtype=t.float32).set_(s, 0, (3,))
    return back, g.untyped_storage().nbytes(), s.nbytes()


_RESIZE = {f.__name__[1:]: f for f in (
    _grow_under_slice, _grow_under_view, _grow_a_slice, _grow_under_set, _grow_under_row,
    _restride_transposed_smaller, _restride_transposed_larger, _restride_same_shape,
    _restride_step, _keep_offset, _channels_last, _resize_as_preserve,
    _storage_grows_under_tensor)}


@pytest.mark.parametrize("name", sorted(_RESIZE))
def test_resize_keeps_storage(name):
    same(_RESIZE[name])


@pytest.mark.parametrize("case", ["rank4", "rank5", "preserve"])
def test_resize_memory_format_errors(case):
    args = {"rank4": ((2, 3, 4), "channels_last"), "rank5": ((1, 2, 3, 4), "channels_last_3d"),
            "preserve": ((2, 3), "preserve_format")}[case]
    same(lambda t: t.zeros(2, 3).resize_(*args[0], memory_format=getattr(t, args[1])))


# -- 2. nanquantile/nanmedian errors are worded as quantile's/median's ------------------------

_NAN_ERRORS = {
    "nq_empty": lambda t: t.nanquantile(t.empty(0), 0.5),
    "nq_empty_dim": lambda t: t.nanquantile(t.empty(2, 0), 0.5, dim=1),
    "nq_int": lambda t: t.nanquantile(t.tensor([1, 2]), 0.5),
    "nq_q_range": lambda t: t.nanquantile(t.tensor([1., 2.]), 1.5),
    "nq_q_2d": lambda t: t.nanquantile(t.tensor([1., 2.]), t.tensor([[0.5]])),
    "nq_q_dtype": lambda t: t.nanquantile(t.tensor([1., 2.]), t.tensor([0.5], dtype=t.float64)),
    "nq_interp": lambda t: t.nanquantile(t.tensor([1., 2.]), 0.5, interpolation="foo"),
    "nq_q_values": lambda t: t.nanquantile(t.tensor([1., 2.]), t.tensor([1.5])),
    "nmed_empty_dim": lambda t: t.empty(2, 0).nanmedian(1),
    "nmed_empty_dim0": lambda t: t.empty(0, 3).nanmedian(0),
}


@pytest.mark.parametrize("name", sorted(_NAN_ERRORS))
def test_nan_reduction_errors(name):
    same(_NAN_ERRORS[name])


# -- 3. layouts: out= resized in the kernel's memory order; triu/tril results row-major ---------

def _t_input(t):
    return t.arange(6.).view(2, 3).t()


def _cl_input(t):
    return t.arange(48.).view(2, 3, 2, 4).contiguous(memory_format=t.channels_last)


_OUT_LAYOUT = {
    "exp": lambda t, x: t.exp(x, out=t.empty(0)),
    "add": lambda t, x: t.add(x, 1, out=t.empty(0)),
    "sub_bcast": lambda t, x: t.sub(x, t.ones(x.shape[-1]), out=t.empty(0)),
    "clamp": lambda t, x: t.clamp(x, 0, 1, out=t.empty(0)),
    "eq": lambda t, x: t.eq(x, 1, out=t.empty(0, dtype=t.bool)),
    "mul_int": lambda t, x: t.mul(x.long(), 2, out=t.empty(0, dtype=t.long)),
    "div_floor": lambda t, x: t.div(x, 2, rounding_mode="floor", out=t.empty(0)),
    "wrong_shape": lambda t, x: t.sigmoid(x, out=t.empty(2)),
    "mm_contig": lambda t, x: t.mm(x.flatten(0, -2), x.flatten(0, -2).t(), out=t.empty(0)),
    "cat_contig": lambda t, x: t.cat([x, x], out=t.empty(0)),
    "triu": lambda t, x: x.triu(),
    "tril_k": lambda t, x: x.tril(1),
    "triu_out": lambda t, x: t.triu(x, out=t.empty(0)),
}


@pytest.mark.parametrize("inp", ["transposed", "channels_last"])
@pytest.mark.parametrize("name", sorted(_OUT_LAYOUT))
def test_result_layout(name, inp):
    make = _t_input if inp == "transposed" else _cl_input

    def fn(t):
        r = _OUT_LAYOUT[name](t, make(t))
        return r, r.stride()

    same(fn, warns=True)


def test_triu_of_permuted_batch():
    same(lambda t: [(r, r.stride()) for r in (
        t.arange(24.).view(2, 3, 4).transpose(0, 2).triu(),
        t.arange(24.).view(2, 3, 4).transpose(0, 2).permute(1, 0, 2).tril(-1))])


# -- 4. lerp's dtypes: a 0-d weight promotes, end must match, complex weights -------------------

def _lerp_ab(t):
    return t.tensor([1, 2]), t.tensor([5, 10])


_LERP = {
    "int_0d_f64": lambda t, a, e: t.lerp(a, e, t.tensor(0.25, dtype=t.float64)),
    "int_0d_f32": lambda t, a, e: t.lerp(a, e, t.tensor(0.25)),
    "int_0d_int": lambda t, a, e: t.lerp(a, e, t.tensor(1)),
    "int_1d_f32": lambda t, a, e: t.lerp(a, e, t.tensor([0.25, 0.5])),
    "int_scalar": lambda t, a, e: t.lerp(a, e, 0.25),
    "bool_0d_f32": lambda t, a, e: t.lerp(a.bool(), e.bool(), t.tensor(0.5)),
    "int32_0d_bool": lambda t, a, e: t.lerp(a.int(), e.int(), t.tensor(True)),
    "f32_0d_f64": lambda t, a, e: t.lerp(a.float(), e.float(), t.tensor(0.25, dtype=t.float64)),
    "f16_0d_f32": lambda t, a, e: t.lerp(a.half(), e.half(), t.tensor(0.25)),
    "all_0d_end_f64": lambda t, a, e: t.lerp(t.tensor(1.), t.tensor(2., dtype=t.float64),
                                             t.tensor(0.5)),
    "end_0d_f64": lambda t, a, e: t.lerp(a.float(), t.tensor(3., dtype=t.float64), 0.5),
    "complex_scalar_w": lambda t, a, e: t.lerp(a.to(t.complex64), e.to(t.complex64), 0.5 + 0.5j),
    "complex_scalar_w_far": lambda t, a, e: t.lerp(a.to(t.complex128), e.to(t.complex128),
                                                   0.25 + 0.9j),
    "complex_w_on_f32": lambda t, a, e: t.lerp(a.float(), e.float(), 0.5j),
    "complex_w_on_f64": lambda t, a, e: t.lerp(a.double(), e.double(), 0.5j),
    "complex_w_on_f16": lambda t, a, e: t.lerp(a.half(), e.half(), 0.5j),
    "complex_0d_w_on_f32": lambda t, a, e: t.lerp(a.float(), e.float(), t.tensor(0.5j)),
    "complex_1d_w_on_f32": lambda t, a, e: t.lerp(a.float(), e.float(), t.tensor([0.5j, 1])),
    "out_f64": lambda t, a, e: t.lerp(a.float(), e.float(), t.tensor(0.5),
                                      out=t.empty(2, dtype=t.float64)),
    "out_long": lambda t, a, e: t.lerp(a, e, t.tensor(0.5), out=t.empty(2, dtype=t.long)),
    "inplace_long": lambda t, a, e: a.clone().lerp_(e, t.tensor(0.5)),
    "inplace_complex_w": lambda t, a, e: a.float().lerp_(e.float(), t.tensor(0.5j)),
}


@pytest.mark.parametrize("name", sorted(_LERP))
def test_lerp_dtypes(name):
    same(lambda t: _LERP[name](t, *_lerp_ab(t)))


def test_lerp_0d_weight_grads():
    def fn(t):
        a = t.tensor([1., 2.], requires_grad=True)
        e = t.tensor([5., 10.], requires_grad=True)
        w = t.tensor(0.3, dtype=t.float64, requires_grad=True)
        y = t.lerp(a, e, w)
        return y, t.autograd.grad((y * t.tensor([1., 3.])).sum(), (a, e, w))

    same(fn, rtol=1e-6)


def test_lerp_complex_scalar_weight_grads():
    def fn(t):
        a = t.tensor([1 + 1j, 2j], requires_grad=True)
        e = t.tensor([3 - 1j, 1 + 0j], requires_grad=True)
        y = t.lerp(a, e, 0.7 - 0.2j)
        return y, t.autograd.grad(y.abs().sum(), (a, e))

    same(fn, rtol=1e-5, atol=1e-6)


def test_lerp_complex_tensor_weight_grads():
    def fn(t):
        a = t.tensor([1 + 1j, 2j], requires_grad=True)
        e = t.tensor([3 - 1j, 1 + 0j], requires_grad=True)
        w = t.tensor([0.7 - 0.2j, 0.1 + 0.5j], requires_grad=True)
        y = t.lerp(a, e, w)
        return y, t.autograd.grad(y.abs().sum(), (a, e, w))

    same(fn, rtol=1e-5, atol=1e-6)


# -- 5. complex number factors in derivatives are conjugated (add/sub/rsub alpha) --------------

_ALPHA = {
    "add": lambda t, a, b: t.add(a, b, alpha=1 + 2j),
    "sub": lambda t, a, b: t.sub(a, b, alpha=1 - 2j),
    "rsub": lambda t, a, b: t.rsub(a, b, alpha=2j),
    "add_inplace": lambda t, a, b: a.clone().add_(b, alpha=0.5j),
    "sub_method": lambda t, a, b: a.sub(b, alpha=-1j),
    "add_bcast": lambda t, a, b: t.add(a.view(2, 2), b[:2], alpha=3 - 1j),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(_ALPHA))
def test_complex_alpha_grads(name, dtype):
    def fn(t):
        dt = getattr(t, dtype)
        a = t.tensor([1 + 2j, -0.5 + 0.3j, 0.7 - 1.1j, 0.2 + 0.4j], dtype=dt, requires_grad=True)
        b = t.tensor([0.3 - 0.2j, 1.1 + 0.9j, -0.4 + 0.6j, 0.8 - 0.1j], dtype=dt,
                     requires_grad=True)
        y = _ALPHA[name](t, a, b)
        return y, t.autograd.grad((y.abs() * t.linspace(0.5, 1.5, y.numel()).view(y.shape)).sum(),
                                  (a, b))

    same(fn, rtol=1e-5, atol=1e-6)


# -- 6. argument errors of the binary ops: torch's parser words (methods and functions) --------

_ARG_ERRORS = [
    "x.pow()", "x.eq('a')", "x.add(1, 2, 3)", "x.add(1, x, x)", "x.mul()", "x.add()", "x.eq()",
    "x.pow('a')", "x.lt('a')", "x.remainder('a')", "x.ne([1])", "x.fmod()", "x.fmod(None)",
    "x.add(x, x)", "x.sub(x, x)", "x.add_(x, x)", "x.add('a', x)", "x.mul_()", "x.mul_('a')",
    "x.ge_()", "x.div()", "x.div_()", "x.floor_divide()", "x.bitwise_xor_()", "x.pow_()",
    "x.pow(exponent='a')", "x.float_power()", "x.atan2()", "x.maximum()", "x.matmul()",
    "x.matmul(1)", "x.mm()", "x.dot()", "x.mv(1)", "x.dot(1)", "x.bmm()", "x.eq(None)",
    "x.bitwise_left_shift_('a')", "x.minimum(1)",
    "torch.add(x)", "torch.sub(x)", "torch.mul(x)", "torch.pow(x)", "torch.eq(x, other='a')",
    "torch.eq(x, 'a', out=x)", "torch.remainder(x, 'a')", "torch.bitwise_and(x, 'a')",
    "torch.atan2(x)", "torch.outer(x)", "torch.dot(x, 1)", "torch.matmul(x, 1)",
    "torch.add(x, x, x)", "torch.add(x, 1, 2, 3)", "torch.addcmul(x, x, x, x)",
]


@pytest.mark.parametrize("code", _ARG_ERRORS)
def test_binary_op_argument_errors(code):
    same(lambda t: eval(code, {"torch": t, "x": t.ones(2)}))  # (fixed test strings)


# -- 7. torch.sparse.spdiags ---------------------------------------------------------------------

def _spd(t):
    return t.arange(1., 10.).view(3, 3)


_SPDIAGS = {
    "coo": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, -1, 1]), (3, 3)),
    "csr_wide": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 1, 3]), (2, 3),
                                           layout=t.sparse_csr),
    "vector": lambda t: t.sparse.spdiags(_spd(t)[0], t.tensor(1), (3, 3)),
    "long_transposed": lambda t: t.sparse.spdiags(_spd(t).long().t(), t.tensor([0, -1, 1]),
                                                  (3, 3)),
    "tall": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, -2, 2]), (5, 3)),
    "err_duplicate": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 0, 1]), (3, 3)),
    "err_count": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 1]), (3, 3)),
    "err_float_offsets": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0., 1, 2]), (3, 3)),
    "err_int_offsets": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 1, 2], dtype=t.int32),
                                                  (3, 3)),
    "err_shape": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 1, 2]), (3, 3, 3)),
    "err_layout": lambda t: t.sparse.spdiags(_spd(t), t.tensor([0, 1, 2]), (3, 3),
                                             layout=t.strided),
    "err_list": lambda t: t.sparse.spdiags(_spd(t), [0, 1, 2], (3, 3)),
}


@pytest.mark.parametrize("name", sorted(_SPDIAGS))
def test_spdiags(name):
    def fn(t):
        r = _SPDIAGS[name](t)
        if r.layout == t.sparse_coo:
            return r.to_dense(), r._indices(), r._values(), r.is_coalesced()
        return r.to_dense(), r.crow_indices(), r.col_indices(), r.values()

    same(fn)


def test_spdiags_grad():
    def fn(t):
        d = t.arange(1., 10.).view(3, 3).requires_grad_()
        s = t.sparse.spdiags(d, t.tensor([0, -1, 1]), (3, 3))
        y = (s.to_dense() * t.arange(9.).view(3, 3)).sum()
        return s.requires_grad, t.autograd.grad(y, d)

    same(fn)


# -- 8. assert_close on sparse tensors: layouts, nnz, indices, values ---------------------------

_AC_SPARSE = {
    "coo_same": lambda t, e: (e.to_sparse(), e.to_sparse()),
    "coo_values": lambda t, e: (e.to_sparse(), (e * 2).to_sparse()),
    "coo_nnz": lambda t, e: (e.to_sparse(), t.ones(2, 2).to_sparse()),
    "coo_indices": lambda t, e: (e.to_sparse(), t.tensor([[0., 1], [1, 0]]).to_sparse()),
    "coo_uncoalesced_order": lambda t, e: (
        t.sparse_coo_tensor([[1, 0], [1, 0]], [1., 2.], (2, 2)),
        t.sparse_coo_tensor([[0, 1], [0, 1]], [2., 1.], (2, 2))),
    "coo_int_values": lambda t, e: (e.long().to_sparse(), (e.long() * 2).to_sparse()),
    "coo_sparse_dims": lambda t, e: (e.to_sparse(2), e.to_sparse(1)),
    "coo_dtype": lambda t, e: (e.to_sparse(), e.to_sparse().double()),
    "layout_vs_dense": lambda t, e: (e, e.to_sparse()),
    "csr_vs_coo": lambda t, e: (e.to_sparse_csr(), e.to_sparse()),
    "csr_values": lambda t, e: (e.to_sparse_csr(), (2 * e).to_sparse_csr()),
    "csr_same": lambda t, e: (e.to_sparse_csr(), e.to_sparse_csr()),
    "csc_values": lambda t, e: (e.to_sparse_csc(), t.tensor([[1., 0], [0, 2]]).to_sparse_csc()),
}


@pytest.mark.parametrize("name", sorted(_AC_SPARSE))
def test_assert_close_sparse(name):
    same(lambda t: t.testing.assert_close(*_AC_SPARSE[name](t, t.eye(2))))


@pytest.mark.parametrize("kw", ["layout_off", "tolerance"])
def test_assert_close_sparse_options(kw):
    def fn(t):
        e = t.eye(2)
        if kw == "layout_off":
            return t.testing.assert_close(e.to_sparse(), e, check_layout=False)
        return t.testing.assert_close(e.to_sparse(), (e * 1.01).to_sparse(), rtol=0.1, atol=0)

    same(fn)


# -- 9. smaller message fixes -------------------------------------------------------------------

@pytest.mark.parametrize("p", [0, -1, 0.0])
def test_renorm_nonpositive_p(p):
    same(lambda t: t.renorm(t.ones(2, 3), p, 0, 1.0))


# -- 10. complex log1p near zero keeps its real part ---------------------------------------------

_LOG1P_Z = [1e-10 + 1e-10j, 1e-5 + 0j, -1e-6 + 1e-6j, 1e-5 + 1e-5j, -1e-3 + 1e-3j, 0.3 - 0.2j,
            -2 + 1e-20j, 1e300 + 1e300j, complex(float("inf"), 1), -1 + 0j, 3 + 4j]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_log1p_small(dtype):
    rtol = 1e-6 if dtype == "complex64" else 1e-12

    def fn(t):
        z = t.tensor(_LOG1P_Z, dtype=getattr(t, dtype))
        return t.log1p(z), t.view_as_real(t.log1p(z))

    same(fn, rtol=rtol, atol=1e-300)


# -- 11. reductions refuse an out= of another dtype than the dtype= asked for ------------------

_OUT_DTYPE = {
    "sum_dtype": lambda t, f: t.sum(f, 0, dtype=t.int64, out=t.empty(2)),
    "sum_dtype_f64": lambda t, f: t.sum(f, 0, dtype=t.float64, out=t.empty(2)),
    "sum_dtype_same": lambda t, f: t.sum(f, 0, dtype=t.float64, out=t.empty(2, dtype=t.float64)),
    "sum_no_dtype": lambda t, f: t.sum(f, 0, out=t.empty(2, dtype=t.float64)),
    "mean_dtype": lambda t, f: t.mean(f, 0, dtype=t.float64, out=t.empty(2)),
    "prod_dtype": lambda t, f: t.prod(f, 0, dtype=t.float64, out=t.empty(2)),
    "cumsum_dtype": lambda t, f: t.cumsum(f, 0, dtype=t.float64, out=t.empty(2, 2)),
    "cumprod_dtype": lambda t, f: t.cumprod(f, 0, dtype=t.float64, out=t.empty(2, 2)),
    "nansum_dtype": lambda t, f: t.nansum(f, 0, dtype=t.float64, out=t.empty(2)),
    "norm_out_f64": lambda t, f: t.norm(f, dim=0, out=t.empty(2, dtype=t.float64)),
    "norm_p1_out_f64": lambda t, f: t.norm(f, p=1, dim=0, out=t.empty(2, dtype=t.float64)),
    "norm_all_out_f64": lambda t, f: t.norm(f, out=t.empty((), dtype=t.float64)),
    "norm_complex_out": lambda t, f: t.norm(f.to(t.complex64), dim=0,
                                            out=t.empty(2, dtype=t.complex64)),
    "norm_out_same": lambda t, f: t.norm(f, dim=0, out=t.empty(2)),
    "all_out_float": lambda t, f: t.all(f, 0, out=t.empty(2)),
    "any_out_long": lambda t, f: t.any(f, out=t.empty((), dtype=t.int64)),
    "all_out_uint8": lambda t, f: t.all(f, out=t.empty((), dtype=t.uint8)),
    "any_out_bool": lambda t, f: t.any(f, 0, out=t.empty(2, dtype=t.bool)),
}


@pytest.mark.parametrize("name", sorted(_OUT_DTYPE))
def test_reduction_out_dtype(name):
    same(lambda t: _OUT_DTYPE[name](t, t.tensor([[1.5, 2.5], [3.5, -4.5]])))


# -- 12. cat refuses an out= sharing memory with an input (full overlap too) --------------------

_CAT_OUT = {
    "halves_into_whole": lambda t, x: t.cat([x[:1], x[1:2]], out=x[:2]),
    "disjoint": lambda t, x: t.cat([x[:1]], out=x[1:2]),
    "self_twice": lambda t, x: t.cat([x, x], out=x),
    "disjoint_block": lambda t, x: t.cat([x[:2], x[:2]], out=x[2:]),
    "same_elements": lambda t, x: t.cat([x[:1]], out=x[:1]),
    "stack_disjoint": lambda t, x: t.stack([x[:2], x[:2]], out=x[2:].view(2, 2)),
    "stack_overlap": lambda t, x: t.stack([x[:2], x[2:4]], out=x[2:].view(2, 2)),
    "interleaved": lambda t, x: t.cat([x[::2]], out=x[1::2]),
    "transposed": lambda t, x: t.cat([x[:4].view(2, 2).t()], out=x[:4].view(2, 2)),
}


@pytest.mark.parametrize("name", sorted(_CAT_OUT))
def test_cat_out_overlap(name):
    def fn(t):
        x = t.arange(6.)
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            return _CAT_OUT[name](t, x), x

    same(fn)


# -- 13. MaskedTensor to Python values: item()/float()/int()/bool(), tolist/numpy refusals ------

_MT_PY = {
    "item_one": lambda t, m, z: m[0].item(),
    "float_sum": lambda t, m, z: float(m.sum()),
    "sum_item": lambda t, m, z: m.sum().item(),
    "int": lambda t, m, z: int(m[0]),
    "bool": lambda t, m, z: bool(m[0]),
    "item_masked_out": lambda t, m, z: z.item(),
    "float_masked_out": lambda t, m, z: float(z),
    "item_many": lambda t, m, z: m.item(),
    "item_masked_out_elem": lambda t, m, z: m[1].item(),
    "tolist": lambda t, m, z: m.tolist(),
    "numpy": lambda t, m, z: m.numpy(),
    "float_many": lambda t, m, z: float(m),
}


@pytest.mark.parametrize("name", sorted(_MT_PY))
def test_masked_tensor_python_values(name):
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = t.masked.masked_tensor(t.ones(2), t.tensor([True, False]))
            z = t.masked.masked_tensor(t.tensor([3.5]), t.tensor([False]))
            return _MT_PY[name](t, m, z)

    same(fn)


_MT_VAR = {
    "var_dim_keepdim": lambda t, x: x.var(1, keepdim=True),
    "var_all": lambda t, x: x.var(),
    "std_dim0": lambda t, x: x.std(0),
    "std_all": lambda t, x: x.std(),
    "torch_var": lambda t, x: t.var(x, 1),
    "torch_std_kw": lambda t, x: t.std(x, dim=0),
    "var_unbiased_kw": lambda t, x: x.var(1, unbiased=False),
    "sum_dtype_no_dim": lambda t, x: x.sum(dtype=t.float64),
}


@pytest.mark.parametrize("name", sorted(_MT_VAR))
def test_masked_tensor_var_std(name):
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = t.masked.masked_tensor(t.tensor([[1., 2., 3.], [4., 5., 6.]]),
                                       t.tensor([[True, False, True], [False, True, True]]))
            r = _MT_VAR[name](t, x)
            return r.get_data(), r.get_mask()

    same(fn, rtol=1e-6)


_MT_OPS = {
    "add_": lambda t, x, m: x.clone().add_(1),
    "add_masked": lambda t, x, m: x.clone().add_(x),
    "mul_plain": lambda t, x, m: x.clone().mul_(t.full((2, 3), 2.0)),
    "abs_": lambda t, x, m: (-x).abs_(),
    "add_other_mask": lambda t, x, m: x.clone().add_(t.masked.masked_tensor(x.get_data(), ~m)),
    "half": lambda t, x, m: x.half(),
    "select": lambda t, x, m: x.select(1, 0),
    "cat": lambda t, x, m: t.cat([x, x]),
    "cat_dim1": lambda t, x, m: t.cat([x, x], 1),
    "stack": lambda t, x, m: t.stack([x, x]),
}


@pytest.mark.parametrize("name", sorted(_MT_OPS))
def test_masked_tensor_ops(name):
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = t.tensor([[True, False, True], [False, True, True]])
            x = t.masked.masked_tensor(t.tensor([[1., 2., 3.], [4., 5., 6.]]), m)
            r = _MT_OPS[name](t, x, m)
            return r.get_data(), r.get_mask()

    same(fn)


# -- 14. uncoalesced sparse sums keep the values' dtype (bool: any; small ints wrap) ---------

_COO_DTYPES = {
    "bool_cast": lambda t, i: t.sparse_coo_tensor(i, t.tensor([3., 4., 5., 1.]), (2, 3)).bool(),
    "bool_values": lambda t, i: t.sparse_coo_tensor(i, t.tensor([True, False, True, False]),
                                                    (2, 3)),
    "int8_wrap": lambda t, i: t.sparse_coo_tensor(i, t.tensor([100, 100, 1, 100],
                                                               dtype=t.int8), (2, 3)),
    "uint8_wrap": lambda t, i: t.sparse_coo_tensor(i, t.tensor([200, 1, 1, 100],
                                                                dtype=t.uint8), (2, 3)),
    "int32": lambda t, i: t.sparse_coo_tensor(i, t.tensor([1, 2, 3, 4], dtype=t.int32),
                                              (2, 3)),
    "float16": lambda t, i: t.sparse_coo_tensor(i, t.tensor([1., 2, 3, 4], dtype=t.float16),
                                                (2, 3)),
}


@pytest.mark.parametrize("name", sorted(_COO_DTYPES))
def test_uncoalesced_sparse_sum_dtypes(name):
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = _COO_DTYPES[name](t, t.tensor([[0, 1, 1, 0], [2, 0, 2, 2]]))
            c = s.coalesce()
            return s.to_dense(), c.values(), c.indices()

    same(fn)


def test_sparse_bool_add_refused():
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = t.sparse_coo_tensor(t.tensor([[0, 1]]), t.tensor([True, False]), (2,))
            return s + s

    same(fn)


_COO_SUMS = {
    "sparse_sum_int8": lambda t, s: t.sparse.sum(s(t.int8)),
    "sparse_sum_bool": lambda t, s: t.sparse.sum(s(t.bool)),
    "method_sum_int8": lambda t, s: s(t.int8).sum(),
    "method_sum_bool": lambda t, s: s(t.bool).sum(),
    "sparse_sum_dim_int8": lambda t, s: t.sparse.sum(s(t.int8), 1).to_dense(),
    "mm_float16": lambda t, s: t.sparse.mm(s(t.float16), t.ones(3, 1, dtype=t.float16)),
}


@pytest.mark.parametrize("name", sorted(_COO_SUMS))
def test_sparse_sums_small_dtypes(name):
    def fn(t):
        import warnings

        def s(dt):
            return t.sparse_coo_tensor(t.tensor([[0, 1, 1, 0], [2, 0, 2, 2]]),
                                       t.tensor([100, 100, 1, 100]).to(dt), (2, 3))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _COO_SUMS[name](t, s)

    same(fn)


@pytest.mark.parametrize("form", ["operator", "method", "function", "int_operator"])
def test_sparse_bool_negation(form):
    def fn(t):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vals = t.tensor([1, 2]) if form == "int_operator" else t.tensor([True, False])
            s = t.sparse_coo_tensor(t.tensor([[0, 1]]), vals, (2,))
            r = {"operator": lambda: -s, "method": lambda: s.neg(),
                 "function": lambda: t.neg(s), "int_operator": lambda: -s}[form]()
            return r.to_dense()

    same(fn)
