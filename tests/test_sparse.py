"""Sparse COO tensors against torch: construction, reprs, coalescing, conversions, arithmetic,
sparse x dense products with gradients, errors, and the GCN/GAT data pipeline of
pytorch/examples (``load_cora``'s normalisation) on a small random graph."""

import copy

import numpy as np
import pytest
import torch as th

import numtorch as nt
from numtorch.ops import sparse_ops

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _describe(x):
    """A comparable summary of a result: sparse tensors by parts, dense by value."""
    if isinstance(x, BaseException):
        return ("raises", type(x).__name__, str(x).split(". This could be")[0])
    if isinstance(x, (list, tuple)):
        return [_describe(v) for v in x]
    if isinstance(x, (th.Tensor, nt.Tensor)):
        if x.layout == (th.sparse_coo if isinstance(x, th.Tensor) else nt.sparse_coo):
            return ("sparse", repr(x), _describe(x._indices()), _describe(x._values().detach()),
                    tuple(x.shape), str(x.dtype), x.is_coalesced(), x.sparse_dim(),
                    x.dense_dim(), x._nnz(), x.requires_grad, str(x.layout))
        return ("dense", x.detach().numpy(), str(x.dtype), tuple(x.shape), x.requires_grad)
    return ("other", str(x))


def _close(a, b, path="result"):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _close(u, v, f"{path}[{i}]")
        return
    if isinstance(a, tuple) and a and a[0] == "dense":
        assert b[0] == "dense", (path, b)
        assert a[2:] == b[2:], (path, a[2:], b[2:])
        np.testing.assert_allclose(b[1], a[1], rtol=1e-5, atol=1e-6, err_msg=path)
        return
    if isinstance(a, tuple) and a and a[0] == "sparse":
        assert b[0] == "sparse", (path, b)
        _close(a[2], b[2], path + ".indices")
        _close(a[3], b[3], path + ".values")
        assert a[4:] == b[4:], (path, a[4:], b[4:])
        if a[3][1].dtype.kind not in "fc":  # float reprs may differ in the last digit
            assert a[1] == b[1], (path, a[1], b[1])
        return
    assert a == b, (path, a, b)


def _run(fn, lib):
    try:
        return _describe(fn(lib))
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return _describe(e)


@pytest.fixture(autouse=True)
def _quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's "sparse invariant checks" notice
        yield


# -- construction, attributes, reprs ------------------------------------------------------------
@case
def construct_from_numpy_int32(t):
    i = np.array([[0, 1, 1], [2, 0, 2]], dtype=np.int32)
    s = t.sparse_coo_tensor(i, t.ones(3), (2, 3), dtype=t.int64)
    return [s, s._indices(), s.layout is t.sparse_coo, s.is_sparse, t.ones(2).is_sparse,
            s.dtype, s.shape, s.size(1), s.dim(), s.device]


@case
def construct_reprs(t):
    i = t.tensor([[1, 0, 1], [0, 2, 0]])
    return [t.sparse_coo_tensor(i, t.tensor([1., 2., 3.]), (2, 3)),
            t.sparse_coo_tensor(i, t.tensor([1., 2., 3.]), (2, 3), dtype=t.float64),
            t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2, 2), (3, 2)),
            t.sparse_coo_tensor([[0, 4]], [1., 2.]),
            t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2), (3,), requires_grad=True),
            t.sparse_coo_tensor(t.zeros(2, 0, dtype=t.int64), t.zeros(0), (2, 2)),
            t.sparse_coo_tensor(t.tensor([[0, 1]]), t.tensor([True, False]), (2,))]


@case
def construct_errors(t):
    out = []
    for f in [lambda: t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(3), (3,)),
              lambda: t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2), (3, 2)),
              lambda: t.sparse_coo_tensor(t.tensor([[0, 1]]), t.ones(2, 2), (3, 3)),
              lambda: t.sparse_coo_tensor(t.tensor([[1, 0]]), t.ones(2), (3,)).indices(),
              lambda: t.sparse_coo_tensor(t.tensor([[1, 0]]), t.ones(2), (3,)).values(),
              lambda: t.ones(2).is_coalesced()]:
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@case
def legacy_sparse_types(t):
    """pygcn's sparse_mx_to_torch_sparse_tensor: torch.sparse.FloatTensor(indices, values,
    shape) from a SciPy COO matrix's rows and columns."""
    import scipy.sparse as sp

    mx = sp.random(5, 4, density=0.4, random_state=0, format="coo", dtype=np.float32)
    i = t.from_numpy(np.vstack((mx.row, mx.col)).astype(np.int64))
    v = t.from_numpy(mx.data)
    s = t.sparse.FloatTensor(i, v, t.Size(mx.shape))
    out = [s, s.type(), isinstance(s, t.sparse.FloatTensor), isinstance(s, t.sparse.DoubleTensor),
           isinstance(t.ones(2), t.sparse.FloatTensor), isinstance(s, t.FloatTensor),
           t.sparse.FloatTensor(2, 3),
           t.sparse.DoubleTensor(2, 3), t.sparse.LongTensor(), t.sparse.FloatTensor(i, v),
           s.type(t.float64), s.type("torch.sparse.DoubleTensor"), repr(t.sparse.FloatTensor)]
    try:
        out.append(t.sparse.FloatTensor([1., 2.]))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


# -- coalescing and conversions -----------------------------------------------------------------
@case
def coalesce_and_dense(t):
    i = t.tensor([[1, 0, 1, 2, 0], [0, 2, 0, 1, 2]])
    s = t.sparse_coo_tensor(i, t.tensor([1., 2., 3., 4., 5.]), (3, 3))
    c = s.coalesce()
    return [c, c.indices(), c.values(), c.is_coalesced(), s.is_coalesced(), s.to_dense(),
            c.to_dense(), s.to_dense(t.float64), c.coalesce() is c]


@case
def to_sparse_forms(t):
    x = t.tensor([[0., 1.5, 0.], [2., 0., -3.], [0., 0., 0.]])
    d = t.diag(t.tensor([1., 0., 2.])).to_sparse()
    y = t.zeros(3, 2, 2)
    y[1, 0, 1] = 4.
    return [x.to_sparse(), d, d.to_dense(), x.to_sparse(1), y.to_sparse(1), y.to_sparse(),
            x.to_sparse().to_sparse() is not None, t.tensor([0, 3, 0]).to_sparse()]


@case
def conversions(t):
    s = t.sparse_coo_tensor(t.tensor([[1, 0]]), t.tensor([1., 2.]), (3,))
    leaf = t.sparse_coo_tensor(t.tensor([[1, 0]]), t.tensor([1., 2.]), (3,), requires_grad=True)
    out = [s.to(t.float64), s.to("cpu") is s, s.double(), s.clone(), s.detach(),
           copy.deepcopy(s), copy.deepcopy(leaf), isinstance(s, t.Tensor)]
    try:
        out.append(copy.deepcopy(leaf * 2))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


@case
def arithmetic(t):
    i = t.tensor([[1, 0, 1], [0, 2, 0]])
    s = t.sparse_coo_tensor(i, t.tensor([1., 2., 3.]), (2, 3))
    si = t.sparse_coo_tensor(i, t.tensor([1, 2, 3]), (2, 3))
    out = [s * 2.0, 3 * s, s / 2, -s, t.eye(3)[:2] + s, t.ones(2, 3, dtype=t.float64) + s,
           t.eye(3)[:2] + si, (s + s).coalesce(), s.t(), s.t().to_dense(), s.sum(),
           t.sparse.sum(s), t.sparse.sum(s, dim=1), t.sparse.sum(s, dim=0), s * t.tensor(2.)]
    try:
        out.append(s + t.ones(2, 3))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    try:
        out.append(t.exp(s))
    except Exception as e:  # noqa: BLE001
        out.append(e)
    return out


# -- products --------------------------------------------------------------------------------------
def _graph(t, n=7, m=4, nnz=12, seed=0):
    rng = np.random.default_rng(seed)
    idx = np.stack([rng.integers(0, n, nnz), rng.integers(0, m, nnz)])
    vals = rng.standard_normal(nnz)
    return t.tensor(idx), vals


@case
def products_forward(t):
    idx, vals = _graph(t)
    s = t.sparse_coo_tensor(idx, t.tensor(vals, dtype=t.float32), (7, 4))
    rng = np.random.default_rng(1)
    d = t.tensor(rng.standard_normal((4, 3)), dtype=t.float32)
    e = t.tensor(rng.standard_normal((5, 7)), dtype=t.float32)
    out = [t.sparse.mm(s, d), t.spmm(s, d), t.mm(s, d), s @ d, t.matmul(s, d), s.mm(d),
           e @ s, t.mm(e, s), t.sparse.mm(e, s), t.sparse.addmm(t.ones(7, 3), s, d)]
    out.append(t.sparse.mm(e, e.t()))
    for f in [lambda: t.mm(s, t.ones(5, 2)), lambda: t.sparse.mm(s, d.double()),
              lambda: t.sparse.mm(e, e), lambda: t.mm(e, d)]:
        try:
            out.append(f())
        except Exception as e:  # noqa: BLE001
            out.append(e)
    return out


@case
def products_gradients(t):
    idx, vals = _graph(t, seed=3)
    rng = np.random.default_rng(4)
    d = t.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    e = t.tensor(rng.standard_normal((5, 7)), requires_grad=True)
    v = t.tensor(vals, requires_grad=True)
    s = t.sparse_coo_tensor(idx, v, (7, 4))
    g1 = t.tensor(rng.standard_normal((7, 3)))
    g2 = t.tensor(rng.standard_normal((5, 4)))
    y1 = t.sparse.mm(s, d)
    y2 = e @ s
    (y1 * g1).sum().backward(retain_graph=True)  # both products share s's values node
    (y2 * g2).sum().backward()
    leaf = t.sparse_coo_tensor(idx, t.tensor(vals), (7, 4), requires_grad=True)
    (t.spmm(leaf, d.detach()) * g1).sum().backward()  # torch.mm & co.: dense leaf gradient
    leaf2 = t.sparse_coo_tensor(idx, t.tensor(vals), (7, 4), requires_grad=True)
    (t.sparse.mm(leaf2, d.detach()) * g1).sum().backward()  # sparse.mm: masked, sparse
    w = t.tensor(rng.standard_normal((7, 4)), requires_grad=True)
    (t.sparse.mm((w * 1).to_sparse(), d.detach()) * g1).sum().backward()
    w2 = t.tensor(rng.standard_normal((5, 7)), requires_grad=True)
    (t.mm(e.detach(), (w2 * 1).to_sparse().t()) * g2[:, :4].repeat(1, 2)[:, :5]).sum() \
        .backward()
    w3 = t.tensor(rng.standard_normal((7, 4)), requires_grad=True)
    (t.mm(w3.to_sparse(), d.detach()) * g1).sum().backward()
    l2 = leaf2.grad
    return [y1, y2, d.grad, e.grad, v.grad, leaf.grad, l2.layout == t.sparse_coo,
            l2.coalesce().to_dense(), w.grad, w2.grad, w3.grad, leaf.is_leaf, s.is_leaf]


@case
def coalesce_gradient(t):
    idx, vals = _graph(t, seed=5)
    v = t.tensor(vals, requires_grad=True)
    s = t.sparse_coo_tensor(idx, v, (7, 4))
    g = t.tensor(np.random.default_rng(6).standard_normal((7, 4)))
    (s.coalesce().to_dense() * g).sum().backward()
    return [v.grad]


@case
def gcn_pipeline(t):
    """pytorch/examples gcn's load_cora normalisation and one GraphConv layer."""
    rng = np.random.default_rng(7)
    V, F, E = 12, 6, 20
    feats = t.FloatTensor((rng.random((V, F)) < 0.4).astype(np.int32))
    scale = 1 / t.sum(feats, dim=1)
    scale[scale == float("inf")] = 0
    feats = t.diag(scale).to_sparse() @ feats
    edges = rng.integers(0, V, (E, 2)).astype(np.int32)
    adj = t.sparse_coo_tensor(edges.T, t.ones(E), (V, V), dtype=t.int64)
    adj = t.eye(V) + adj
    deg = t.sqrt(1 / t.sum(adj, dim=1))
    deg[deg == float("inf")] = 0
    deg = t.diag(deg).to_sparse()
    adj = deg @ adj @ deg
    xs, a = feats.to_sparse().to("cpu"), adj.to_sparse()
    k = t.tensor(rng.standard_normal((F, 3)), dtype=t.float32, requires_grad=True)
    out = t.spmm(a, t.mm(xs, k))
    out.backward(t.tensor(rng.standard_normal((V, 3)), dtype=t.float32))
    return [feats, adj, xs, a, out, k.grad]


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    _close(_run(CASES[name], th), _run(CASES[name], nt), name)


def test_numpy_path_matches_scipy_path(monkeypatch):
    """Without SciPy the product is a NumPy segment sum; both give the same values and grads."""
    rng = np.random.default_rng(8)
    idx = np.stack([rng.integers(0, 50, 300), rng.integers(0, 40, 300)])
    s = nt.sparse_coo_tensor(idx, nt.tensor(rng.standard_normal(300)), (50, 40))
    d = nt.tensor(rng.standard_normal((40, 6)), requires_grad=True)
    g = nt.tensor(rng.standard_normal((50, 6)))
    results = []
    for sp in (sparse_ops._scipy_sparse(), None):
        monkeypatch.setattr(sparse_ops, "_SCIPY", [sp])
        for m in (s, s.coalesce()):  # unsorted rows, and sorted ones (no argsort)
            d.grad = None
            y = nt.sparse.mm(m, d)
            (y * g).sum().backward()
            results.append((y.detach().numpy(), d.grad.numpy()))
    for y, gd in results[1:]:
        np.testing.assert_allclose(y, results[0][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gd, results[0][1], rtol=1e-12, atol=1e-12)
    assert results[0][0].dtype == np.float64


def test_float32_stays_float32_and_dense_hot_path_untouched():
    s = nt.eye(4).to_sparse()
    y = nt.sparse.mm(s, nt.ones(4, 2))
    assert y.dtype is nt.float32 and type(y) is nt.Tensor
    assert type(nt.ones(2, 2) @ nt.ones(2, 2)) is nt.Tensor


def test_double_backward_through_product():
    """The backward of sparse x dense is itself differentiable (gradients of gradients)."""
    rng = np.random.default_rng(9)
    idx = np.stack([rng.integers(0, 5, 9), rng.integers(0, 4, 9)])
    vals = rng.standard_normal(9)
    dense = rng.standard_normal((4, 3))
    res = []
    for lib in (th, nt):
        v = lib.tensor(vals, requires_grad=True)
        d = lib.tensor(dense, requires_grad=True)
        y = lib.sparse.mm(lib.sparse_coo_tensor(lib.tensor(idx), v, (5, 4)), d)
        (gd,) = lib.autograd.grad((y ** 2).sum(), d, create_graph=True)
        gd.sum().backward()
        res.append((v.grad.numpy(), d.grad.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10)


def test_checkpoints_both_ways(tmp_path):
    """torch.save of sparse tensors loads in numtorch and the reverse (torch's
    _rebuild_sparse_tensor), coalesced or not."""
    i = [[1, 0, 1], [0, 2, 0]]
    src = th.sparse_coo_tensor(th.tensor(i), th.tensor([1., 2., 3.]), (2, 3))
    th.save({"u": src, "c": src.coalesce()}, tmp_path / "th.pt")
    got = nt.load(tmp_path / "th.pt")
    for k in ("u", "c"):
        _close(_describe(th.load(tmp_path / "th.pt")[k]), _describe(got[k]), k)
    mine = nt.sparse_coo_tensor(nt.tensor(i), nt.tensor([1., 2., 3.], dtype=nt.float64), (2, 3))
    nt.save({"u": mine, "c": mine.coalesce()}, tmp_path / "nt.pt")
    back = th.load(tmp_path / "nt.pt")
    for k in ("u", "c"):
        _close(_describe(back[k]), _describe(nt.load(tmp_path / "nt.pt")[k]), k)
    assert back["u"].dtype == th.float64 and not back["u"].is_coalesced()
