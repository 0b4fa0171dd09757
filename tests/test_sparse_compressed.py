"""Compressed sparse tensors (CSR/CSC/BSR/BSC) against torch: construction and reprs, index
checks, conversions, products with gradients (random cotangents), refusals, and
torch.save/torch.load in both directions across processes."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch as th

import numtorch as nt

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),
]

LAYOUTS = ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _np(x):
    return x.detach().numpy()


def _describe(x):
    """A comparable summary: compressed tensors by repr and parts, dense by value."""
    if isinstance(x, BaseException):
        return ("raises", type(x).__name__, str(x).split(". This could be")[0])
    if isinstance(x, (list, tuple)):
        return [_describe(v) for v in x]
    if isinstance(x, (th.Tensor, nt.Tensor)):
        lay = str(x.layout).split(".")[-1]
        if lay in LAYOUTS:
            names = ("crow_indices", "col_indices") if lay in ("sparse_csr", "sparse_bsr") \
                else ("ccol_indices", "row_indices")
            parts = [getattr(x, n)() for n in names]
            return ("compressed", repr(x), lay, tuple(x.shape), str(x.dtype), x._nnz(),
                    x.dense_dim(), x.requires_grad,
                    [(_np(p).tolist(), str(p.dtype)) for p in parts],
                    _np(x.values()), str(x.values().dtype), tuple(x.values().shape))
        if lay == "sparse_coo":
            return ("coo", repr(x), _np(x._indices()).tolist(), _np(x._values()),
                    tuple(x.shape))
        return ("dense", _np(x), str(x.dtype), tuple(x.shape))
    return ("other", str(x))


def _same(a, b, path="result"):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _same(u, v, f"{path}[{i}]")
        return
    assert type(a) is type(b), (path, a, b)
    if isinstance(a, tuple):
        assert len(a) == len(b), (path, a, b)
        for i, (u, v) in enumerate(zip(a, b)):
            _same(u, v, f"{path}.{i}")
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (path, a, b)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=path)
    else:
        assert a == b, (path, a, b)


def _run(fn, lib):
    try:
        return _describe(fn(lib))
    except Exception as e:  # noqa: BLE001 - the exception is the result being compared
        return _describe(e)


# -- construction and reprs ----------------------------------------------------------------------
def _i(L, data, dtype="int64"):
    return L.tensor(data, dtype=getattr(L, dtype))


@case
def csr_basic(L):
    return L.sparse_csr_tensor(_i(L, [0, 2, 3]), _i(L, [0, 2, 1]), L.tensor([1., 2, 3]), (2, 3))


@case
def csr_int32_indices(L):
    return L.sparse_csr_tensor(_i(L, [0, 2, 3], "int32"), _i(L, [0, 2, 1], "int32"),
                               L.tensor([1., 2, 3]), (2, 3), check_invariants=True)


@case
def csr_lists_inferred_size_double(L):
    return L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2, 3], dtype=L.float64)


@case
def csr_int_values(L):
    return L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1, 2, 3], (2, 4))


@case
def csc_basic(L):
    return L.sparse_csc_tensor(_i(L, [0, 1, 2, 3]), _i(L, [0, 1, 0]), L.tensor([1., 2, 3]),
                               (2, 3), check_invariants=True)


@case
def bsr_basic(L):
    return L.sparse_bsr_tensor(_i(L, [0, 1, 1]), _i(L, [1]), L.tensor([[[1., 2], [3, 4]]]),
                               (4, 4), check_invariants=True)


@case
def bsc_basic(L):
    return L.sparse_bsc_tensor(_i(L, [0, 0, 1]), _i(L, [0]), L.tensor([[[1., 2], [3, 4]]]),
                               (2, 4), check_invariants=True)


@case
def compressed_csc(L):
    return L.sparse_compressed_tensor(_i(L, [0, 2, 3]), _i(L, [0, 1, 1]), L.tensor([1., 2, 3]),
                                      (3, 2), layout=L.sparse_csc)


@case
def compressed_no_layout(L):
    return L.sparse_compressed_tensor(_i(L, [0, 2, 3]), _i(L, [0, 2, 1]), L.tensor([1., 2, 3]),
                                      (2, 3))


@case
def compressed_strided_layout(L):
    return L.sparse_compressed_tensor(_i(L, [0, 2, 3]), _i(L, [0, 2, 1]), L.tensor([1., 2, 3]),
                                      (2, 3), layout=L.strided)


@case
def batched_csr(L):
    return L.sparse_csr_tensor(_i(L, [[0, 1, 2], [0, 0, 2]]), _i(L, [[0, 1], [1, 2]]),
                               L.tensor([[1., 2], [3, 4]]), (2, 2, 3), check_invariants=True)


@case
def batched_csr_to_dense(L):
    return batched_csr(L).to_dense()


@case
def empty_csr(L):
    return L.zeros(2, 3).to_sparse_csr()


@case
def float64_repr(L):
    return L.arange(1., 4, dtype=L.float64).reshape(1, 3).to_sparse_csr()


@case
def long_rows_wrap(L):
    return [L.arange(1, n + 1).reshape(1, n).to_sparse_csr() for n in (3, 4, 9, 10, 11, 12)]


@case
def requires_grad_ctor(L):
    return L.sparse_csr_tensor([0, 1, 2], [1, 0], [1., 2.], (2, 2), requires_grad=True)


# -- check_invariants errors ----------------------------------------------------------------------
def _bad(crow, col, vals=(1., 2, 3), size=(2, 3), layout="sparse_csr", cdt="int64", pdt="int64"):
    def fn(L):
        return L.sparse_compressed_tensor(_i(L, crow, cdt), _i(L, col, pdt), L.tensor(vals),
                                          size, layout=getattr(L, layout),
                                          check_invariants=True)
    return fn


BAD = {
    "crow_start": _bad([1, 2, 3], [0, 2, 1]),
    "crow_end": _bad([0, 2, 4], [0, 2, 1]),
    "crow_len": _bad([0, 2, 3, 3], [0, 2, 1]),
    "col_oob": _bad([0, 2, 3], [0, 3, 1]),
    "col_negative": _bad([0, 2, 3], [0, -1, 1]),
    "col_unsorted": _bad([0, 2, 3], [2, 0, 1]),
    "col_duplicate": _bad([0, 2, 3], [0, 0, 1]),
    "crow_decreasing": _bad([0, 3, 2], [0, 1, 2]),
    "mixed_index_dtypes": _bad([0, 2, 3], [0, 2, 1], cdt="int32"),
    "int16_indices": _bad([0, 2, 3], [0, 2, 1], cdt="int16", pdt="int16"),
    "nnz_mismatch": _bad([0, 2, 3], [0, 2, 1], vals=(1., 2)),
    "csc_row_oob": _bad([0, 1, 2, 3], [0, 2, 0], layout="sparse_csc"),
    "size_1d": _bad([0, 2, 3], [0, 2, 1], size=(6,)),
    "ndim_mismatch": _bad([[0, 2, 3]], [0, 2, 1], size=(1, 2, 3)),
    "batch_mismatch": _bad([[0, 2, 3]], [[0, 2, 1]], vals=((1., 2, 3), (1., 2, 3)),
                           size=(1, 2, 3)),
    "batch_nnz": _bad([[0, 1, 2], [0, 1, 1]], [[0, 1], [2, 0]], vals=((1., 2), (3, 4)),
                      size=(2, 2, 3)),
    "bsr_rows_not_divisible": _bad([0, 1], [1], vals=[[[1., 2], [3, 4]]], size=(3, 4),
                                   layout="sparse_bsr"),
}
for _name, _fn in BAD.items():
    CASES["bad_" + _name] = _fn


# -- conversions ------------------------------------------------------------------------------------
def _dense(L, shape=(4, 6), seed=0, dtype="float32"):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(dtype)
    a[rng.random(shape) < 0.6] = 0
    return L.tensor(a)


for _lay in LAYOUTS:
    def _conv(L, lay=_lay):
        d = _dense(L)
        if lay in ("sparse_bsr", "sparse_bsc"):
            return getattr(d, "to_" + lay)((2, 3))
        return getattr(d, "to_" + lay)()
    CASES["dense_to_" + _lay] = _conv

    def _roundtrip(L, lay=_lay):
        d = _dense(L, seed=1)
        x = d.to_sparse(layout=getattr(L, lay), blocksize=(2, 2) if "b" in lay[7:8] else None)
        return [x.to_dense(), x.to_sparse(), x.to_sparse_csr() if lay[7] != "b" else x]
    CASES["roundtrip_" + _lay] = _roundtrip


@case
def csr_to_csc_and_back(L):
    x = _dense(L, seed=2).to_sparse_csr()
    return [x.to_sparse_csc(), x.to_sparse_csc().to_sparse_csr()]


@case
def bsr_to_bsc(L):
    x = _dense(L, seed=3).to_sparse_bsr((2, 2))
    return x.to_sparse_bsc((2, 2))


@case
def csr_to_bsr(L):
    return _dense(L, seed=4).to_sparse_csr().to_sparse_bsr((2, 3))


@case
def coo_to_csr(L):
    return [_dense(L, seed=5).to_sparse().to_sparse_csr(),
            _dense(L, seed=5).to_sparse().to_sparse_csc()]


@case
def batched_dense_to_csr(L):
    d = L.zeros(2, 3, 4)
    d[0, 0, 1] = 1
    d[0, 2, 3] = 2
    d[1, 1, 0] = 3
    d[1, 1, 2] = 4
    return [d.to_sparse_csr(), d.to_sparse_csc(), d.to_sparse_csr().to_dense()]


@case
def batched_unequal_nnz(L):
    d = L.zeros(2, 2, 3)
    d[0, 0, 1] = 1
    d[0, 1, 1] = 2
    d[1, 1, 2] = 3
    return d.to_sparse_csr()


@case
def deepcopy_and_pickle(L):
    import copy
    import pickle

    out = [pickle.loads(pickle.dumps(L.eye(2).to_sparse_csc())).to_dense()]
    try:
        out.append(copy.deepcopy(L.eye(2).to_sparse_csr()))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


@case
def sparse_mm_leaf_grad_is_compressed(L):
    c = L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2, 3], (2, 3), requires_grad=True)
    L.sparse.mm(c, L.tensor([[1., 2], [3, 4], [5, 6]])).sum().backward()
    return c.grad


@case
def copy_in_place(L):
    out = []
    for src in (L.ones(3, 3).to_sparse_csr(), L.eye(3).to_sparse_csc(), L.eye(3),
                (L.eye(3) * 2).to_sparse_csr(), L.eye(3, dtype=L.float64).to_sparse_csr()):
        a = L.eye(3).to_sparse_csr()
        try:
            out.append(a.copy_(src))
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@case
def module_with_csr_buffer(L):
    """A GCN-style module holding its adjacency as a CSR buffer: forward, dtype moves,
    state_dict save/load and load_state_dict (copy_ into the buffer)."""
    import io

    class Graph(L.nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.register_buffer("adj", (L.eye(4) * scale).to_sparse_csr())

        def forward(self, x):
            return self.adj @ x

    m = Graph(1.0)
    buf = io.BytesIO()
    L.save(Graph(3.0).state_dict(), buf)
    buf.seek(0)
    m.load_state_dict(L.load(buf))
    x = L.tensor(np.arange(8.).reshape(4, 2).astype("float32"))
    return [m(x), m.double().adj, m.float().adj, m.adj.numel(), m.adj.is_floating_point()]


@case
def dense_dim_csr(L):
    return L.tensor(np.arange(24.).reshape(2, 3, 4).astype("float32")).to_sparse_csr(dense_dim=1)


@case
def to_sparse_csr_1d(L):
    return L.ones(3).to_sparse_csr()


@case
def bsr_bad_blocksize(L):
    return L.ones(3, 4).to_sparse_bsr((2, 2))


@case
def to_sparse_bsr_layout_without_blocksize(L):
    return L.eye(2).to_sparse(layout=L.sparse_bsr)


@case
def transpose_layouts(L):
    x = _dense(L, seed=6)
    return [x.to_sparse_csr().t(), x.to_sparse_csc().transpose(0, 1),
            x.to_sparse_bsr((2, 3)).t(), x.to_sparse_csr().t().to_dense()]


@case
def scalar_mul_neg(L):
    x = _dense(L, seed=7).to_sparse_csr()
    return [x * 2, 3 * x, -x, x * L.tensor(0.5)]


UNARY = ("relu", "abs", "sin", "tanh", "sqrt", "sign", "floor", "expm1", "log1p", "erf",
         "signbit", "isnan", "angle", "exp", "cos", "sigmoid", "square")


@case
def unary_on_values(L):
    x = L.tensor([[1., 0, -2], [0, 0.5, 0]]).to_sparse_csr()
    out = []
    for name in UNARY:
        try:
            out.append(getattr(x, name)())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@case
def add_and_sum(L):
    x = L.tensor([[1., 0, -2], [0, 0.5, 0]], requires_grad=True)
    y = L.tensor([[0., 3, -2], [0, 0.5, 0]])
    c, d = x.to_sparse_csr(), y.to_sparse_csr()
    out = [c + d, c + y, y + c, c.sum()]
    for f in (lambda: c - d, lambda: c + L.ones(2, 4).to_sparse_csr(),
              lambda: c.to_sparse_csc() + d.to_sparse_csc()):
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


# -- products (values) --------------------------------------------------------------------------------
for _lay in LAYOUTS:
    def _prod(L, lay=_lay):
        a = _dense(L, (4, 6), seed=8)
        b = _dense(L, (6, 5), seed=9)
        s = a.to_sparse(layout=getattr(L, lay), blocksize=(2, 2) if lay[7] == "b" else None)
        out = []
        for f in (lambda: L.mm(s, b), lambda: s @ b, lambda: L.matmul(s, b),
                  lambda: s @ L.ones(6), lambda: L.ones(3, 4) @ s, lambda: L.ones(4) @ s,
                  lambda: L.sparse.mm(s, b), lambda: L.addmm(L.ones(4, 5), s, b),
                  lambda: a.to_sparse(layout=getattr(L, lay), blocksize=(2, 3)) @ b
                  if lay[7] == "b" else s.t() @ a):
            try:
                out.append(f())
            except Exception as e:  # noqa: BLE001
                out.append(e)
        return out
    CASES["product_" + _lay] = _prod


@case
def addmm_csr(L):
    s = _dense(L, (4, 6), seed=10).to_sparse_csr()
    return L.addmm(L.ones(4, 5), s, _dense(L, (6, 5), seed=11), beta=0.5, alpha=2.0)


@case
def product_errors(L):
    s = _dense(L, (4, 6), seed=10).to_sparse_csr()
    out = []
    for fn in (lambda: s @ L.ones(5, 2), lambda: s @ L.ones(6, 2, dtype=L.float64),
               lambda: L.ones(2, 2, 3).to_sparse_csr() @ L.ones(2, 3, 2),
               lambda: L.ones(3, 4, 2).to_sparse_csr(dense_dim=1) @ L.ones(4, 2),
               lambda: L.ones(2, 3, dtype=L.int64).to_sparse_csr() @ L.ones(3, 2,
                                                                           dtype=L.int64)):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


# -- refusals --------------------------------------------------------------------------------------------
REFUSE = {
    "div": lambda x: x / 2,
    "exp": lambda x: x.exp(),
    "view": lambda x: x.view(6),
    "reshape": lambda x: x.reshape(6),
    "stride": lambda x: x.stride(),
    "is_contiguous": lambda x: x.is_contiguous(),
    "numpy": lambda x: x.numpy(),
    "storage": lambda x: x.untyped_storage(),
    "indices": lambda x: x.indices(),
    "ccol_of_csr": lambda x: x.ccol_indices(),
    "row_of_csr": lambda x: x.row_indices(),
    "crow_of_csc": lambda x: x.to_sparse_csc().crow_indices(),
    "ccol_of_dense": lambda x: x.to_dense().ccol_indices(),
    "col_of_dense": lambda x: x.to_dense().col_indices(),
}
for _name, _fn in REFUSE.items():
    def _refuse(L, f=_fn):
        return f(L.tensor([[1., 0, 2], [0, 3, 0]]).to_sparse_csr())
    CASES["refuse_" + _name] = _refuse


@case
def sparse_mm_reduce_errors(L):
    a = L.tensor([[1., 0], [0, 2]])
    out = []
    for f in (lambda: L.sparse.mm(a.to_sparse_csr(), L.ones(2, 2), "prod"),
              lambda: L.sparse.mm(a.to_sparse_csc(), L.ones(2, 2), "sum"),
              lambda: L.sparse.mm(a.to_sparse(), L.ones(2, 2), "sum")):
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@case
def leaf_grads_through_values(L):
    out = []
    for f in (lambda c: (c.to_dense() * L.arange(6.).reshape(2, 3)).sum(),
              lambda c: (c * 2).to_dense().sum(), lambda c: (c @ L.ones(3)).sum(),
              lambda c: (c.values() * L.tensor([1., -1, 2])).sum()):
        c = L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2, 3], (2, 3), requires_grad=True)
        f(c).backward()
        out += [c.grad, c.values(), c]
    return out


@case
def sparse_sparse_product(L):
    """CSR @ CSR/CSC is CSR in torch; its MKL kernel leaves columns unsorted within a row, so
    the layout and the dense values are compared."""
    a = _dense(L, (4, 6), seed=1).to_sparse_csr()
    b = _dense(L, (6, 3), seed=2).to_sparse_csr()
    out = []
    for p in (a @ b, L.mm(a, b.to_sparse_csc()), L.sparse.mm(a, b)):
        out += [p.layout, p.to_dense()]
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _run(CASES[name], th)
        got = _run(CASES[name], nt)
    _same(got, want)


def test_warnings_name_the_callers_line():
    code = """
import warnings
import {lib} as L
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    L.sparse_csr_tensor([0, 1], [0], [1.], (1, 1))
    L.eye(2).to_sparse_csr()
print(sorted((x.message.args[0][:30], x.lineno) for x in w))
"""
    assert _python(code.format(lib="numtorch")) == _python(code.format(lib="torch"))


def test_layout_flags():
    x = nt.eye(3).to_sparse_csr()
    y = th.eye(3).to_sparse_csr()
    assert (x.is_sparse, x.is_sparse_csr, x.layout is nt.sparse_csr) == \
        (y.is_sparse, y.is_sparse_csr, y.layout is th.sparse_csr)
    assert x.to_sparse_csc().is_sparse_csr is False
    assert nt.eye(3).is_sparse_csr is False


# -- gradients -----------------------------------------------------------------------------------------
def _grad_case(L, kind, lay, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((4, 6)).astype("float32")
    a[rng.random((4, 6)) < 0.5] = 0
    b = L.tensor(rng.standard_normal((6, 3)).astype("float32"), requires_grad=True)
    g = L.tensor(rng.standard_normal((4, 3)).astype("float32"))
    layout = getattr(L, lay)
    block = (2, 2) if lay[7] == "b" else None
    if kind == "values":  # a constructor from values that require grad
        s0 = L.tensor(a).to_sparse(layout=layout, blocksize=block)
        names = ("crow_indices", "col_indices") if lay in ("sparse_csr", "sparse_bsr") else \
            ("ccol_indices", "row_indices")
        v = s0.values().detach().clone().requires_grad_(True)
        s = L.sparse_compressed_tensor(getattr(s0, names[0])(), getattr(s0, names[1])(), v,
                                       (4, 6), layout=layout)
        leaf = v
    else:  # to_sparse of a dense leaf
        leaf = L.tensor(a, requires_grad=True)
        s = leaf.to_sparse(layout=layout, blocksize=block)
    return s, b, g, leaf


def _forward(L, op, s, b):
    if op == "mm":
        return L.mm(s, b)
    if op == "matmul":
        return s @ b
    if op == "sparse_mm":
        return L.sparse.mm(s, b)
    if op == "addmm":
        return L.addmm(L.ones(4, 3), s, b, alpha=0.5)
    return (s * 3).to_dense() @ b


def _grads(L, kind, lay, op, seed, fallback=False):
    s, b, g, leaf = _grad_case(L, kind, lay, seed)
    if fallback:
        # torch's CPU backward refuses this layout; the reference is the same product through
        # a dense matrix: the whole dense gradient for torch.mm & co on a dense leaf, the
        # stored entries' gradient otherwise
        whole = kind == "dense_leaf" and op in ("mm", "matmul", "addmm")
        dense = leaf if whole else s.to_dense()
        out = _forward(L, op if op != "sparse_mm" else "mm", dense, b)
    else:
        out = _forward(L, op, s, b)
    out.backward(g)
    return out.detach().numpy(), type(out.grad_fn).__name__, leaf.grad.numpy(), b.grad.numpy()


@pytest.mark.parametrize("lay", LAYOUTS)
@pytest.mark.parametrize("kind", ["values", "dense_leaf"])
@pytest.mark.parametrize("op", ["mm", "matmul", "sparse_mm", "addmm", "to_dense_mul"])
def test_gradients(lay, kind, op):
    if lay == "sparse_bsc" and op != "to_dense_mul":
        pytest.skip("torch has no CPU kernel for BSC @ dense")
    seed = sum(map(ord, lay + kind + op))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = _grads(th, kind, lay, op, seed)
            refused = False
        except RuntimeError as e:  # torch's backward has no kernel for this layout
            assert "backward" in str(e) or "not implemented" in str(e), e
            want = _grads(th, kind, lay, op, seed, fallback=True)
            refused = True
        got = _grads(nt, kind, lay, op, seed)
    for u, v in zip(got[::2] + got[3:], want[::2] + want[3:]):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-5)
    if op != "to_dense_mul" and not refused:
        assert got[1] == want[1]


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "max"])
def test_sparse_mm_reduce(reduce):
    results = []
    for L in (th, nt):
        rng = np.random.default_rng(5)
        a = rng.standard_normal((6, 5)).astype("float32")
        a[rng.random(a.shape) < 0.5] = 0
        a[2] = 0  # a row without entries
        c0 = L.tensor(a).to_sparse_csr()
        v = c0.values().detach().clone().requires_grad_(True)
        c = L.sparse_csr_tensor(c0.crow_indices(), c0.col_indices(), v, (6, 5))
        d = L.tensor(rng.standard_normal((5, 3)).astype("float32"), requires_grad=True)
        out = L.sparse.mm(c, d, reduce)
        out.backward(L.tensor(rng.standard_normal((6, 3)).astype("float32")))
        results.append((out.detach().numpy(), type(out.grad_fn).__name__, v.grad.numpy(),
                        d.grad.numpy()))
    for u, w in zip(results[1], results[0]):
        if isinstance(u, str):
            assert u == w
        else:
            np.testing.assert_allclose(u, w, rtol=1e-5, atol=1e-5)


def test_requires_grad_leaf_gets_dense_grad_from_mm():
    grads = []
    for L in (th, nt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2, 3], (2, 3), requires_grad=True)
            d = L.tensor(np.arange(12.).reshape(3, 4).astype("float32"))
            L.mm(s, d).backward(L.tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype("float32")))
            grads.append((s.is_leaf, s.grad.layout == L.strided, s.grad.numpy()))
    assert grads[0][:2] == grads[1][:2]
    np.testing.assert_allclose(grads[1][2], grads[0][2], rtol=1e-6)


def test_grad_fn_names():
    names = []
    for L in (th, nt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = L.tensor([[1., 0, 2], [0, 3, 0]], requires_grad=True)
            v = L.tensor([1., 2, 3], requires_grad=True)
            c = L.sparse_csr_tensor([0, 2, 3], [0, 2, 1], v, (2, 3))
            names.append([type(t.grad_fn).__name__ for t in (
                x.to_sparse_csr(), x.to_sparse_csc(), c, c * 2, c.t(), c.transpose(0, 1),
                c.to_dense(), c.to_sparse())])
    assert names[0] == names[1]


def test_large_product_matches_scipy_free_path(monkeypatch):
    """The NumPy segment-sum path (no SciPy) gives the same product and gradients."""
    from numtorch.ops import sparse_ops

    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 200)).astype("float32")
    a[rng.random(a.shape) < 0.95] = 0
    b = rng.standard_normal((200, 7)).astype("float32")
    s = nt.tensor(a).to_sparse_csr()
    want = s @ nt.tensor(b)
    monkeypatch.setattr(sparse_ops, "_SCIPY", [None])
    bt = nt.tensor(b, requires_grad=True)
    got = s @ bt
    got.backward(nt.ones(300, 7))
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bt.grad.numpy(), a.T @ np.ones((300, 7), "float32"), rtol=1e-4,
                               atol=1e-4)
    assert got.dtype is nt.float32


# -- save/load across processes ------------------------------------------------------------------------
_MAKE = """
import warnings; warnings.simplefilter("ignore")
import numpy as np
import {lib} as L
rng = np.random.default_rng(0)
a = rng.standard_normal((4, 6)).astype("float32"); a[rng.random((4, 6)) < 0.5] = 0
d = L.tensor(a)
objs = {{"csr": d.to_sparse_csr(), "csc": d.to_sparse_csc(), "bsr": d.to_sparse_bsr((2, 3)),
        "bsc": d.to_sparse_bsc((2, 2)),
        "csr32": L.sparse_csr_tensor(L.tensor([0, 1, 2], dtype=L.int32),
                                     L.tensor([2, 0], dtype=L.int32), L.tensor([1., 2.]), (2, 3)),
        "batched": L.stack([d, d * 2]).to_sparse_csr()}}
"""

_SAVE = _MAKE + "L.save(objs, {path!r})\n"

_LOAD = """
import warnings; warnings.simplefilter("ignore")
import {lib} as L
objs = L.load({path!r})
for k in sorted(objs):
    x = objs[k]
    print(k, x.layout, tuple(x.shape), x.dtype, x.values().dtype, x._nnz(),
          x.to_dense().numpy().round(5).tolist())
    print(repr(x))
"""


def _python(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("writer,reader", [("numtorch", "torch"), ("torch", "numtorch")])
def test_save_load_across_libraries(tmp_path, writer, reader):
    path = str(tmp_path / "sparse.pt")
    _python(_SAVE.format(lib=writer, path=path))
    got = _python(_LOAD.format(lib=reader, path=path))
    path2 = str(tmp_path / "same.pt")
    _python(_SAVE.format(lib=reader, path=path2))
    want = _python(_LOAD.format(lib=reader, path=path2))
    assert got == want


def test_pickle_reduce_matches_torch_form():
    x = nt.eye(2).to_sparse_csr()
    fn, (layout, parts) = x.__reduce_ex__(2)
    assert layout is nt.sparse_csr and len(parts) == 4
    y = fn(layout, parts)
    np.testing.assert_array_equal(y.to_dense().numpy(), np.eye(2, dtype="float32"))
