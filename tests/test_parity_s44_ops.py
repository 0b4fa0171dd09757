"""Parity fixes of probe 44 (oracle: real torch at test time): dim-taking ops on 0-d tensors,
Laplace sampling bits, masked ops' broadcast errors, linalg batch-broadcast messages, the
``.grad`` setter's messages, the lazy conjugate bit and ``sum``'s argument errors."""

import pytest
import torch

import numtorch
from tests.oracle import same

# -- 1. 0-d tensors with dim 0 / -1 ------------------------------------------------------------

ZERO_D = {
    "squeeze0": lambda t, x: x.squeeze(0), "squeeze-1": lambda t, x: x.squeeze(-1),
    "squeeze_tuple": lambda t, x: x.squeeze((0,)), "squeeze_list": lambda t, x: x.squeeze([0]),
    "squeeze_empty": lambda t, x: x.squeeze(()), "squeeze1": lambda t, x: x.squeeze(1),
    "squeeze_dup": lambda t, x: x.squeeze((0, -1)), "squeeze-2": lambda t, x: x.squeeze(-2),
    "squeeze_0": lambda t, x: x.clone().squeeze_(0), "squeeze_t": lambda t, x: x.clone().squeeze_((0,)),
    "squeeze_fn": lambda t, x: t.squeeze(x, 0),
    "flip0": lambda t, x: x.flip(0), "flip-1": lambda t, x: x.flip(-1), "flip1": lambda t, x: x.flip(1),
    "flip_dup": lambda t, x: x.flip(0, 0), "flip_tuple": lambda t, x: x.flip((0,)),
    "flip_fn": lambda t, x: t.flip(x, [0]), "fliplr": lambda t, x: x.fliplr(),
    "flipud": lambda t, x: x.flipud(), "fliplr_1d": lambda t, x: t.ones(2).fliplr(),
    "movedim00": lambda t, x: x.movedim(0, 0), "movedim-1": lambda t, x: x.movedim(-1, -1),
    "movedim01": lambda t, x: x.movedim(0, 1), "moveaxis": lambda t, x: t.moveaxis(x, 0, -1),
    "movedim_tuple": lambda t, x: x.movedim((0,), (0,)),
    "movedim_dup": lambda t, x: x.movedim((0, -1), (0, 0)),
    "movedim_dup2d": lambda t, x: t.ones(2, 3).movedim((0, 0), (0, 1)),
    "movedim_dupdst": lambda t, x: t.ones(2, 3).movedim((0, 1), (1, 1)),
    "roll10": lambda t, x: x.roll(1, 0), "roll1-1": lambda t, x: x.roll(1, -1),
    "roll11": lambda t, x: x.roll(1, 1), "roll_flat": lambda t, x: x.roll(1),
    "roll_tuple": lambda t, x: t.roll(x, (1,), (0,)), "roll_align": lambda t, x: x.roll((1, 2), (0,)),
    "sum0": lambda t, x: x.sum(0), "sum1": lambda t, x: x.sum(1), "sum_dup": lambda t, x: x.sum((0, -1)),
    "mean0": lambda t, x: x.mean(0), "cumsum0": lambda t, x: x.cumsum(0),
    "cumsum1": lambda t, x: x.cumsum(1), "softmax0": lambda t, x: x.softmax(0),
    "softmax-1": lambda t, x: x.softmax(-1), "unsqueeze-1": lambda t, x: x.unsqueeze(-1),
    "transpose00": lambda t, x: x.transpose(0, 0), "transpose01": lambda t, x: x.transpose(0, 1),
    "select": lambda t, x: x.select(0, 0), "narrow": lambda t, x: x.narrow(0, 0, 1),
    "unbind0": lambda t, x: x.unbind(0), "unbind-1": lambda t, x: x.unbind(-1),
    "unbind1": lambda t, x: x.unbind(1), "unbind_fn": lambda t, x: t.unbind(x),
    "split": lambda t, x: x.split(1), "split-1": lambda t, x: x.split(1, -1),
    "split1": lambda t, x: x.split(1, 1), "split_list": lambda t, x: x.split([1]),
    "split_with_sizes": lambda t, x: x.split_with_sizes([1]),
    "unsafe_split": lambda t, x: x.unsafe_split(1), "unsafe_chunk": lambda t, x: x.unsafe_chunk(1),
    "chunk": lambda t, x: x.chunk(1), "chunk1": lambda t, x: x.chunk(1, 1),
    "chunk0": lambda t, x: x.chunk(0),
    "flatten": lambda t, x: x.flatten(0, -1), "flatten1": lambda t, x: x.flatten(1),
    "unflatten1": lambda t, x: x.unflatten(1, (1,)), "unflatten_empty": lambda t, x: x.unflatten(0, ()),
    "argmax0": lambda t, x: x.argmax(0), "sort0": lambda t, x: x.sort(0),
    "topk": lambda t, x: x.topk(1), "topk1": lambda t, x: x.topk(1, 1),
    "gather": lambda t, x: x.gather(0, t.tensor(0)), "index_select": lambda t, x: x.index_select(0, t.tensor(0)),
    "diff": lambda t, x: x.diff(), "norm0": lambda t, x: x.norm(dim=0),
    "norm1": lambda t, x: x.norm(dim=1), "vector_norm": lambda t, x: t.linalg.vector_norm(x, dim=(0,)),
    "stack": lambda t, x: t.stack([x, x]), "stack-1": lambda t, x: t.stack([x, x], -1),
    "stack2": lambda t, x: t.stack([x, x], 2),
    "cat": lambda t, x: t.cat([x, x]), "cat_1d": lambda t, x: t.cat([t.ones(2), x]),
    "cat_empty": lambda t, x: t.cat([t.tensor([]), x]),
    "cat_2d": lambda t, x: t.cat([t.ones(2, 2), t.ones(3), x]),
    "cat_legacy": lambda t, x: t.cat([t.tensor([]), t.ones(2, 2), x]),
    "cummax0": lambda t, x: x.cummax(0), "cummax1": lambda t, x: x.cummax(1),
    "cummin-2": lambda t, x: x.cummin(-2), "cummin_fn": lambda t, x: t.cummin(x, 2),
    "adjoint": lambda t, x: x.adjoint(),
    "ri0": lambda t, x: x.repeat_interleave(2, 0), "ri-1": lambda t, x: x.repeat_interleave(2, -1),
    "ri-2": lambda t, x: x.repeat_interleave(2, -2), "ri3": lambda t, x: x.repeat_interleave(2, 3),
    "ri_t": lambda t, x: x.repeat_interleave(t.tensor([2]), 0),
    "ri_t-1": lambda t, x: x.repeat_interleave(t.tensor(2), -1),
    "ri_t3": lambda t, x: x.repeat_interleave(t.tensor([2]), 3),
    "ri_flat": lambda t, x: x.repeat_interleave(2),
    "ri_fn": lambda t, x: t.repeat_interleave(x, 2, dim=0),
    "linalg_cross": lambda t, x: t.linalg.cross(x, x), "linalg_cross0": lambda t, x: t.linalg.cross(x, x, dim=0),
    "linalg_cross5": lambda t, x: t.linalg.cross(x, x, dim=5),
    "cross_fn": lambda t, x: t.cross(x, x, dim=1), "cross_fn-3": lambda t, x: t.cross(x, x, dim=-3),
    "unique0": lambda t, x: x.unique(dim=0), "unique-1": lambda t, x: x.unique(dim=-1),
    "unique1": lambda t, x: t.unique(x, dim=1),
    "unique_consecutive": lambda t, x: x.unique_consecutive(dim=0),
    "unique_consecutive5": lambda t, x: x.unique_consecutive(dim=5),
    "take_along_dim0": lambda t, x: t.take_along_dim(x, t.tensor(0), 0),
    "take_along_dim-1": lambda t, x: x.take_along_dim(t.tensor(0), -1),
    "take_along_dim3": lambda t, x: t.take_along_dim(x, t.tensor(0), 3),
    "take_along_dim_nd": lambda t, x: t.take_along_dim(x, t.tensor([0]), 0),
    "take_along_flat": lambda t, x: t.take_along_dim(x, t.tensor(0)),
}


@pytest.mark.parametrize("name", sorted(ZERO_D))
def test_zero_dim_tensor_dims(name):
    same(lambda t: ZERO_D[name](t, t.tensor(1.5)))


def test_zero_dim_unflatten_message():
    for dim in (0, -1):
        with pytest.raises(RuntimeError) as e:
            numtorch.tensor(1.5).unflatten(dim, (1,))
        with pytest.raises(RuntimeError) as f:
            torch.tensor(1.5).unflatten(dim, (1,))
        got, want = str(e.value), str(f.value)
        assert got == "\n".join(want.split("\n")[:2])  # torch's C++ frames follow


ZERO_D_GRAD = {
    "squeeze": lambda y: y.squeeze(0), "squeeze_tuple": lambda y: y.squeeze((0,)),
    "flip": lambda y: y.flip(0), "movedim": lambda y: y.movedim(0, 0),
    "movedim_tuple": lambda y: y.movedim((0,), (-1,)), "roll": lambda y: y.roll(1),
}


@pytest.mark.parametrize("name", sorted(ZERO_D_GRAD))
def test_zero_dim_grad(name):
    def run(t):
        y = t.tensor(1.5, requires_grad=True)
        r = ZERO_D_GRAD[name](y)
        (r * 3).backward()
        return r, r.grad_fn.name(), y.grad
    same(run)


def test_zero_dim_views_and_copies():
    def run(t):
        z = t.tensor(2.)
        s, m, f = z.squeeze(0), z.movedim(0, 0), z.flip(0)
        f.add_(1)
        w = t.tensor(3.)
        w.squeeze_(0)
        g = t.tensor(2., requires_grad=True) * 1
        g.squeeze_(0)
        return (s._base is z, m._base is z, f._base is None, z, f, w.shape, w.stride(),
                g.grad_fn.name())
    same(run)


# -- 2. Laplace draws torch's uniform_(eps - 1, 1) ---------------------------------------------

LAPLACE = {
    "sample": lambda t: t.distributions.Laplace(0., 1.).sample((3,)),
    "sample_scalar": lambda t: t.distributions.Laplace(t.tensor(1.), t.tensor(3.)).sample(),
    "float64": lambda t: t.distributions.Laplace(t.zeros(2, dtype=t.float64),
                                                 t.ones(2, dtype=t.float64)).sample((3,)),
    "batch": lambda t: t.distributions.Laplace(t.tensor([0., 2.]), t.tensor([1., 0.5])).sample((5, 2)),
}


@pytest.mark.parametrize("name", sorted(LAPLACE))
def test_laplace_sample_bits(name):
    def run(t):
        t.manual_seed(0)
        return LAPLACE[name](t)
    same(run)


def test_laplace_rsample_bits_and_grads():
    def run(t):
        t.manual_seed(1)
        loc = t.tensor([0.5, -1.], requires_grad=True)
        scale = t.tensor([2., 0.5], requires_grad=True)
        r = t.distributions.Laplace(loc, scale).rsample((4,))
        r.sum().backward()
        return r.detach(), loc.grad, scale.grad, t.rand(2)
    same(run)


# -- 3. masked ops: torch's broadcast errors -----------------------------------------------------

def _m(t, *shape):
    return t.ones(*shape, dtype=t.bool)


MASKED = {
    "select": lambda t: t.ones(2).masked_select(_m(t, 3)),
    "select_2d": lambda t: t.ones(2, 3).masked_select(_m(t, 2)),
    "select_lead": lambda t: t.ones(4, 1).masked_select(_m(t, 2, 3)),
    "select_fn": lambda t: t.masked_select(t.ones(3, 2), _m(t, 4, 2)),
    "select_ok": lambda t: t.ones(2, 1).masked_select(_m(t, 3)),
    "fill": lambda t: t.ones(2).masked_fill(_m(t, 3), 1.),
    "fill_2d": lambda t: t.ones(2, 3).masked_fill(_m(t, 2), 1.),
    "fill_tensor": lambda t: t.ones(2).masked_fill(_m(t, 3), t.tensor(1.)),
    "fill_bcast": lambda t: t.ones(3).masked_fill(_m(t, 2, 3), 2.),
    "fill_": lambda t: t.ones(2).masked_fill_(_m(t, 3), 1.),
    "fill_2d_": lambda t: t.ones(2, 3).masked_fill_(_m(t, 2), 1.),
    "fill_bcast_": lambda t: t.ones(3).masked_fill_(_m(t, 2, 3), 1.),
    "scatter": lambda t: t.ones(2).masked_scatter(_m(t, 3), t.ones(5)),
    "scatter_2d": lambda t: t.ones(2, 3).masked_scatter(_m(t, 2), t.ones(6)),
    "scatter_ok": lambda t: t.ones(3).masked_scatter(_m(t, 2, 3), t.arange(6.)),
    "scatter_": lambda t: t.ones(2).masked_scatter_(_m(t, 3), t.ones(5)),
    "scatter_bcast_": lambda t: t.ones(3).masked_scatter_(_m(t, 2, 3), t.ones(6)),
    "scatter_float_mask_": lambda t: t.ones(2).masked_scatter_(t.ones(3), t.ones(5)),
    "scatter_dtype_": lambda t: t.ones(2).masked_scatter_(_m(t, 3), t.ones(5, dtype=t.float64)),
    "scatter_ok_": lambda t: t.zeros(2, 3).masked_scatter_(_m(t, 3), t.arange(6.)),
}


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masked_broadcast_errors(name):
    same(lambda t: MASKED[name](t))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32",
                                   "int16", "int8", "uint8", "bool", "complex64", "complex128",
                                   "uint16", "uint32"])
def test_expand_error_names_the_type(dtype):
    same(lambda t: t.ones(2, 3).to(getattr(t, dtype)).expand(3))


# -- 4. linalg batch broadcasting: torch's sizes, in torch's order ------------------------------

def _eye(t, *batch):
    return t.eye(3).expand(*batch, 3, 3).clone()


def _lu(t, *batch):
    return t.linalg.lu_factor(_eye(t, *batch))


LINALG = {
    "solve": lambda t: t.linalg.solve(t.ones(2, 3, 3), t.ones(3, 3, 1)),
    "solve_eye": lambda t: t.linalg.solve(_eye(t, 2), t.ones(3, 3, 1)),
    "solve_right_dim": lambda t: t.linalg.solve(_eye(t, 4, 2), t.ones(3, 3, 3)),
    "solve_vectors": lambda t: t.linalg.solve(_eye(t, 2), t.ones(3, 3)),
    "solve_left_false": lambda t: t.linalg.solve(_eye(t, 2), t.ones(3, 1, 3), left=False),
    "solve_ex": lambda t: t.linalg.solve_ex(_eye(t, 2), t.ones(3, 3, 1)),
    "solve_triangular": lambda t: t.linalg.solve_triangular(_eye(t, 2), t.ones(3, 3, 1), upper=True),
    "solve_triangular2": lambda t: t.linalg.solve_triangular(_eye(t, 4, 2), t.ones(3, 3, 3, 1),
                                                             upper=False),
    "solve_triangular_right": lambda t: t.linalg.solve_triangular(_eye(t, 2), t.ones(3, 1, 3),
                                                                  upper=True, left=False),
    "triangular_solve": lambda t: t.triangular_solve(t.ones(3, 3, 1), _eye(t, 2)),
    "lstsq": lambda t: t.linalg.lstsq(_eye(t, 2), t.ones(3, 3, 1)),
    "lstsq2": lambda t: t.linalg.lstsq(_eye(t, 4, 2), t.ones(3, 3, 3, 1)),
    "lstsq_ok": lambda t: t.linalg.lstsq(_eye(t, 2), t.ones(1, 3, 2)).solution,
    "cholesky_solve": lambda t: t.cholesky_solve(t.ones(3, 3, 1), _eye(t, 2)),
    "cholesky_solve2": lambda t: t.cholesky_solve(t.ones(3, 3, 3, 1), _eye(t, 4, 2)),
    "lu_solve": lambda t: t.linalg.lu_solve(*_lu(t, 2), t.ones(3, 3, 1)),
    "lu_solve2": lambda t: t.linalg.lu_solve(*_lu(t, 4, 2), t.ones(3, 3, 3, 1)),
    "lu_solve_adjoint": lambda t: t.linalg.lu_solve(*_lu(t, 2), t.ones(3, 3, 1), adjoint=True),
    "lu_solve_right": lambda t: t.linalg.lu_solve(*_lu(t, 2), t.ones(3, 1, 3), left=False),
    "lu_solve_ok": lambda t: t.linalg.lu_solve(*_lu(t, 2), t.ones(1, 3, 2)),
    "ldl_solve": lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(_eye(t, 2)), t.ones(3, 3, 1)),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_batch_broadcast_messages(name):
    same(lambda t: LINALG[name](t), rtol=1e-6, atol=1e-6)


def test_triangular_solve_warns_after_its_checks():
    import warnings

    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError):
                lib.triangular_solve(lib.ones(3, 3, 1), lib.eye(3).expand(2, 3, 3))
        assert not [x for x in w if "triangular_solve is deprecated" in str(x.message)]


# -- 5. the .grad setter's messages -------------------------------------------------------------

def _assign(x, g):
    x.grad = g
    return x.grad


GRAD_SET = {
    "size": lambda t: _assign(t.ones(2, requires_grad=True), t.ones(3)),
    "size2d": lambda t: _assign(t.ones(2, 3, requires_grad=True), t.ones(3, 2)),
    "size0d": lambda t: _assign(t.ones(2, requires_grad=True), t.tensor(1.)),
    "size_to0d": lambda t: _assign(t.tensor(1., requires_grad=True), t.ones(1)),
    "size_empty": lambda t: _assign(t.ones(0, requires_grad=True), t.ones(1)),
    "dtype": lambda t: _assign(t.ones(2, requires_grad=True), t.ones(2, dtype=t.float64)),
    "dtype_int": lambda t: _assign(t.ones(2, requires_grad=True), t.ones(2, dtype=t.int64)),
    "dtype_before_size": lambda t: _assign(t.ones(2, requires_grad=True),
                                           t.ones(3, dtype=t.float64)),
    "size_nonleaf": lambda t: _assign(t.ones(2, requires_grad=True) * 2, t.ones(3)),
    "size_no_requires_grad": lambda t: _assign(t.ones(2), t.ones(3)),
    "device": lambda t: _assign(t.ones(2, requires_grad=True), t.ones(2, device="meta")),
    "device_self_meta": lambda t: _assign(t.ones(2, requires_grad=True, device="meta"), t.ones(2)),
    "device_before_size": lambda t: _assign(t.ones(2, requires_grad=True), t.ones(3, device="meta")),
    "not_tensor": lambda t: _assign(t.ones(2, requires_grad=True), 3),
    "ok": lambda t: _assign(t.ones(2, requires_grad=True), t.zeros(2)),
    "none": lambda t: _assign(t.ones(2, requires_grad=True), None),
}


@pytest.mark.parametrize("name", sorted(GRAD_SET))
def test_grad_setter(name):
    same(lambda t: GRAD_SET[name](t))


def test_grad_setter_any_dtype_still_checks_size():
    def run(t):
        x = t.ones(2, requires_grad=True)
        x.grad_dtype = None
        x.grad = t.ones(2, dtype=t.float64)
        ok = x.grad
        x.grad = t.ones(3, dtype=t.float64)
        return ok
    same(run)


# -- 6. torch's conjugate bit, as is_conj reports it ----------------------------------------------

def _cz(t):
    return t.tensor([1 + 2j, 3 - 1j])


CONJ = {
    "conj": lambda t: _cz(t).conj().is_conj(),
    "fn_conj": lambda t: t.conj(_cz(t)).is_conj(),
    "plain": lambda t: _cz(t).is_conj(),
    "real_conj": lambda t: t.tensor([1., 2.]).conj().is_conj(),
    "conj_conj": lambda t: _cz(t).conj().conj().is_conj(),
    "resolve": lambda t: _cz(t).conj().resolve_conj().is_conj(),
    "resolve_values": lambda t: _cz(t).conj().resolve_conj(),
    "conj_physical": lambda t: _cz(t).conj_physical().is_conj(),
    "conj_physical_of_conj": lambda t: _cz(t).conj().conj_physical().is_conj(),
    "imag": lambda t: _cz(t).conj().imag,
    "real": lambda t: _cz(t).conj().real,
    "real_is_conj": lambda t: _cz(t).conj().real.is_conj(),
    "view_as_real": lambda t: t.view_as_real(_cz(t).conj()),
    "view_as_real_resolved": lambda t: t.view_as_real(_cz(t).conj().resolve_conj()),
    "view_as_real_copy": lambda t: t.view_as_real_copy(_cz(t).conj()),
    "clone": lambda t: _cz(t).conj().clone().is_conj(),
    "clone_values": lambda t: _cz(t).conj().clone(),
    "mul": lambda t: (_cz(t).conj() * 2).is_conj(),
    "contiguous": lambda t: _cz(t).conj().contiguous().is_conj(),
    "slice": lambda t: _cz(t).conj()[0:1].is_conj(),
    "index": lambda t: _cz(t).conj()[0].is_conj(),
    "reshape": lambda t: _cz(t).conj().reshape(2, 1).is_conj(),
    "expand": lambda t: _cz(t).conj().expand(2, 2).is_conj(),
    "transpose": lambda t: _cz(t).conj().unsqueeze(0).transpose(0, 1).is_conj(),
    "mH": lambda t: t.ones(2, 2, dtype=t.complex64).mH.is_conj(),
    "adjoint": lambda t: t.ones(2, 2, dtype=t.complex64).adjoint().is_conj(),
    "H": lambda t: t.ones(2, 2, dtype=t.complex64).H.is_conj(),
    "to_same": lambda t: _cz(t).conj().to(t.complex64).is_conj(),
    "to_other": lambda t: _cz(t).conj().to(t.complex128).is_conj(),
    "scalar": lambda t: t.tensor(1 + 1j).conj().is_conj(),
    "cat": lambda t: t.cat([_cz(t).conj(), _cz(t)]).is_conj(),
    "inplace_keeps": lambda t: (lambda c: (c.add_(1), c.is_conj()))(_cz(t).conj()),
    "grad_fn": lambda t: (lambda c: (c.grad_fn.name(), c.is_conj()))(
        _cz(t).requires_grad_().conj()),
    "tolist": lambda t: _cz(t).conj().tolist(),
}


@pytest.mark.parametrize("name", sorted(CONJ))
def test_conj_bit(name):
    same(lambda t: CONJ[name](t))


def test_conj_view_as_complex_gradient():
    def run(t):
        z = _cz(t).requires_grad_()
        y = t.view_as_real(t.view_as_complex(t.view_as_real(z.conj().resolve_conj()) * 2))
        (g,) = t.autograd.grad((y * y).sum(), z)
        return g.resolve_conj()
    same(run)


# -- 7. sum's argument errors: torch's parser's text --------------------------------------------

SUM_ARGS = {
    "str": lambda t, x: x.sum("a"),
    "dim_kw_str": lambda t, x: x.sum(dim="a"),
    "str_keepdim": lambda t, x: x.sum("a", True),
    "kw_str_keepdim": lambda t, x: x.sum(dim="a", keepdim=True),
    "str_dtype": lambda t, x: x.sum("a", dtype=t.float32),
    "float": lambda t, x: x.sum(1.5),
    "object": lambda t, x: x.sum(object()),
    "none": lambda t, x: x.sum(None),
    "fn_str": lambda t, x: t.sum(x, "a"),
    "fn_kw_str": lambda t, x: t.sum(x, dim="a"),
    "fn_str_keepdim": lambda t, x: t.sum(x, "a", True),
    "fn_all_kw": lambda t, x: t.sum(input=x, dim="a"),
    "fn_float_dtype": lambda t, x: t.sum(x, 1.5, dtype=t.float64),
    "unknown_kw": lambda t, x: x.sum(foo=1),
    "unknown_kw_after_dim": lambda t, x: x.sum(0, foo=1),
    "fn_unknown_kw": lambda t, x: t.sum(x, foo=1),
    "axis_alias": lambda t, x: x.sum(axis=0, keepdims=True),
}


@pytest.mark.parametrize("name", sorted(SUM_ARGS))
def test_sum_argument_errors(name):
    same(lambda t: SUM_ARGS[name](t, t.ones(2)))
