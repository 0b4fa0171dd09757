"""Embeddings against torch: F.embedding, F.embedding_bag, F.one_hot, Embedding and
EmbeddingBag (values, weight gradients, padding, max_norm, frequency scaling, errors)."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same, check_module, check_op, check_raises

DTYPES = ["float64", "float32"]
IDX = np.array([[0, 2, 2], [4, 0, 2]])
BAG_INPUT = np.array([1, 2, 4, 5, 4, 3, 2, 0])
BAG_OFFSETS = np.array([0, 3, 3, 6])


def _idx(t, a):
    return t.from_numpy(a.copy())


# -- embedding ------------------------------------------------------------------------------

EMBEDDING = {
    "plain": {},
    "padding": {"padding_idx": 2},
    "negative_padding": {"padding_idx": -3},
    "scale_grad_by_freq": {"scale_grad_by_freq": True},
    "padding_and_scale": {"padding_idx": 0, "scale_grad_by_freq": True},
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(EMBEDDING))
def test_embedding_matches_torch(name, dtype):
    kw = EMBEDDING[name]
    check_op(lambda t, w: t.nn.functional.embedding(_idx(t, IDX), w, **kw), [(5, 3)],
             dtype=dtype)


@pytest.mark.parametrize("indices", [np.array([3, 1]), np.array(4), np.zeros((0,), np.int64),
                                     np.array([[1], [3]], dtype=np.int32)])
def test_embedding_index_shapes_and_int32(indices):
    check_op(lambda t, w: t.nn.functional.embedding(_idx(t, indices), w), [(5, 3)])


def test_embedding_backward_uses_the_sort_and_reduce_helper(monkeypatch):
    # the hot path accumulates rows with index_add_rows, never the slow scatter (np.add.at)
    from numtorch.backend import _numpy

    used = []
    real = _numpy.index_add_rows
    monkeypatch.setattr(_numpy, "index_add_rows", lambda *a: used.append(1) or real(*a))
    monkeypatch.setattr(_numpy, "scatter_add", lambda *a: pytest.fail("scatter_add used"))
    idx = np.random.default_rng(0).integers(0, 50, (64, 20))
    check_op(lambda t, w: t.nn.functional.embedding(_idx(t, idx), w), [(50, 8)],
             dtype="float32", second_order=False)
    assert used


@pytest.mark.parametrize("case", ["padding", "plain"])
def test_embedding_double_backward_through_the_cotangent(case):
    pad = 2 if case == "padding" else None
    w = np.random.default_rng(0).standard_normal((5, 3))
    u = np.random.default_rng(1).standard_normal((2, 3, 3))
    v = np.random.default_rng(2).standard_normal((5, 3))
    res = []
    for lib in (numtorch, torch):
        wt = lib.from_numpy(w.copy()).requires_grad_()
        ut = lib.from_numpy(u.copy()).requires_grad_()
        y = lib.nn.functional.embedding(_idx(lib, IDX), wt, padding_idx=pad)
        g, = lib.autograd.grad(y, wt, ut, create_graph=True)
        res.append(lib.autograd.grad((g * lib.from_numpy(v.copy())).sum(), ut)[0])
    assert_same(res[0], res[1], 1e-12, 1e-12)


def test_embedding_frequency_scaled_double_backward_is_the_exact_transpose():
    # torch leaves the 1/count scale out of this second derivative; numtorch keeps it, and the
    # expected value is built from torch's own gather and counts
    w = np.random.default_rng(0).standard_normal((5, 3))
    u = numtorch.from_numpy(np.random.default_rng(1).standard_normal((2, 3, 3)))
    v = np.random.default_rng(2).standard_normal((5, 3))
    wt = numtorch.from_numpy(w).requires_grad_()
    u.requires_grad_()
    y = numtorch.nn.functional.embedding(_idx(numtorch, IDX), wt, scale_grad_by_freq=True)
    g, = numtorch.autograd.grad(y, wt, u, create_graph=True)
    got, = numtorch.autograd.grad((g * numtorch.from_numpy(v)).sum(), u)
    ti = torch.from_numpy(IDX)
    counts = torch.bincount(ti.reshape(-1), minlength=5).double()
    want = torch.from_numpy(v)[ti] / counts[ti].unsqueeze(-1)
    assert_same(got, want, 1e-12, 1e-12)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_embedding_max_norm_renormalises_weight_rows_in_place(norm_type):
    w = np.random.default_rng(0).standard_normal((5, 3)) * 3
    outs = []
    for lib in (numtorch, torch):
        wt = lib.from_numpy(w.copy()).requires_grad_()
        v0 = wt._version
        y = lib.nn.functional.embedding(_idx(lib, IDX), wt, max_norm=1.5, norm_type=norm_type)
        assert wt._version > v0
        g, = lib.autograd.grad(y, wt, lib.ones_like(y) * 0.5)
        outs.append((y, wt, g))
    for a, b in zip(*outs):
        assert_same(a, b, 1e-12, 1e-12)


def test_embedding_module_matches_torch():
    for make in (lambda t: t.nn.Embedding(5, 3), lambda t: t.nn.Embedding(5, 3, padding_idx=-2),
                 lambda t: t.nn.Embedding(5, 3, scale_grad_by_freq=True),
                 lambda t: t.nn.Embedding(5, 3, max_norm=0.5, norm_type=1.0)):
        check_module(make, [IDX])


def test_embedding_init_is_standard_normal_with_zero_padding_row():
    e = numtorch.nn.Embedding(2000, 50, padding_idx=7)
    w = e.weight.detach().numpy()
    assert w.dtype == np.float32 and e.weight.requires_grad
    assert np.all(w[7] == 0)
    rest = np.delete(w, 7, axis=0)
    assert abs(rest.mean()) < 0.01 and abs(rest.std() - 1) < 0.01
    e.reset_parameters()
    assert np.all(e.weight.detach().numpy()[7] == 0)
    assert list(e.state_dict()) == ["weight"]


def test_embedding_from_pretrained_and_given_weight():
    table = numtorch.randn(4, 2)
    e = numtorch.nn.Embedding.from_pretrained(table)
    assert not e.weight.requires_grad and e.weight._array is table._array
    e = numtorch.nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
    assert e.weight.requires_grad and e.padding_idx == 1
    assert e.weight[1].tolist() == table[1].tolist()  # a given table is kept as is
    e = numtorch.nn.Embedding(4, 2, _weight=table, _freeze=True)
    assert not e.weight.requires_grad


def test_embedding_sparse_flag_gradient_equals_torchs(device):
    # a sparse COO gradient on the CPU (tests/test_sparse_grads.py compares its entries);
    # numtorch's sparse tensors live on the CPU, so a device weight gets the dense form
    w = np.random.default_rng(0).standard_normal((5, 3))
    u = np.random.default_rng(1).standard_normal((2, 3, 3))
    res = []
    for lib in (numtorch, torch):
        wt = lib.from_numpy(w.copy()).requires_grad_()
        y = lib.nn.functional.embedding(_idx(lib, IDX), wt, sparse=True)
        g, = lib.autograd.grad(y, wt, lib.from_numpy(u.copy()))
        assert g.is_sparse == (lib is torch or device == "cpu")
        res.append(g.to_dense() if g.is_sparse else g)
    assert_same(res[0], res[1], 1e-12, 1e-12)


def test_embedding_module_sparse_flag_gradient(device):
    e = numtorch.nn.Embedding(5, 3, sparse=True)
    e(numtorch.tensor([1, 1, 3])).sum().backward()
    g = e.weight.grad
    assert g.is_sparse == (device == "cpu")
    g = (g.to_dense() if g.is_sparse else g).numpy()
    assert g.shape == (5, 3) and g[1].tolist() == [2, 2, 2] and g[0].tolist() == [0, 0, 0]


def test_embedding_reprs_match_torch():
    for make in (lambda t: t.nn.Embedding(5, 3),
                 lambda t: t.nn.Embedding(5, 3, padding_idx=-1, max_norm=1.0, norm_type=3.0,
                                          scale_grad_by_freq=True, sparse=True),
                 lambda t: t.nn.EmbeddingBag(5, 3),
                 lambda t: t.nn.EmbeddingBag(5, 3, max_norm=2.0, norm_type=1.0, mode="max",
                                             include_last_offset=True, padding_idx=1),
                 lambda t: t.nn.Embedding.from_pretrained(t.ones(3, 2)),
                 lambda t: t.nn.EmbeddingBag.from_pretrained(t.ones(3, 2), mode="sum")):
        assert repr(make(numtorch)) == repr(make(torch))


# -- embedding_bag --------------------------------------------------------------------------

BAGS = {
    "sum": ({"mode": "sum"}, True),
    "mean": ({"mode": "mean"}, True),
    "max": ({"mode": "max"}, True),
    "sum_padding": ({"mode": "sum", "padding_idx": 2}, True),
    "mean_padding": ({"mode": "mean", "padding_idx": 2}, True),
    "max_padding": ({"mode": "max", "padding_idx": -4}, True),
    "sum_last_offset": ({"mode": "sum", "include_last_offset": True}, "csr"),
    "mean_last_offset": ({"mode": "mean", "include_last_offset": True}, "csr"),
    "max_last_offset": ({"mode": "max", "include_last_offset": True}, "csr"),
    "sum_2d": ({"mode": "sum"}, False),
    "mean_2d_padding": ({"mode": "mean", "padding_idx": 4}, False),
    "max_2d": ({"mode": "max"}, False),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BAGS))
def test_embedding_bag_matches_torch(name, dtype):
    kw, with_offsets = BAGS[name]
    if with_offsets:
        # CSR offsets end with the input's length
        off = np.r_[BAG_OFFSETS, len(BAG_INPUT)] if with_offsets == "csr" else BAG_OFFSETS
        fn = lambda t, w: t.nn.functional.embedding_bag(  # noqa: E731
            _idx(t, BAG_INPUT), w, _idx(t, off), **kw)
    else:
        fn = lambda t, w: t.nn.functional.embedding_bag(  # noqa: E731
            _idx(t, BAG_INPUT.reshape(2, 4)), w, **kw)
    # torch has no double backward for embedding_bag
    check_op(fn, [(6, 2)], dtype=dtype, second_order=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding_bag_per_sample_weights(dtype):
    check_op(lambda t, w, p: t.nn.functional.embedding_bag(
        _idx(t, BAG_INPUT), w, _idx(t, BAG_OFFSETS), mode="sum", per_sample_weights=p,
        padding_idx=4), [(6, 2), (8,)], dtype=dtype, second_order=False)
    check_op(lambda t, w, p: t.nn.functional.embedding_bag(
        _idx(t, BAG_INPUT.reshape(2, 4)), w, mode="sum", per_sample_weights=p),
        [(6, 2), (2, 4)], dtype=dtype, second_order=False)


@pytest.mark.parametrize("mode", ["sum", "max"])
def test_embedding_bag_last_offset_closes_the_last_bag(mode):
    # entries past the final CSR offset belong to no bag (torch's float32 kernel; its float64
    # kernel runs the last bag to the end of the input, and its float32 mean divides by the
    # entries up to the end, so those cases are left out)
    check_op(lambda t, w: t.nn.functional.embedding_bag(
        _idx(t, BAG_INPUT), w, _idx(t, BAG_OFFSETS), mode=mode, include_last_offset=True),
        [(6, 2)], dtype="float32", grad=False)
    # torch's backward of those entries reads uninitialised memory (its gradient held -2e18
    # in one run), so the gradient's reference is torch's on the input without them
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 2)).astype(np.float32)
    g = rng.standard_normal((3, 2)).astype(np.float32)
    grads = []
    for L, idx in ((numtorch, BAG_INPUT), (torch, BAG_INPUT[:BAG_OFFSETS[-1]])):
        wt = L.tensor(w, requires_grad=True)
        out = L.nn.functional.embedding_bag(L.tensor(idx), wt, L.tensor(BAG_OFFSETS),
                                            mode=mode, include_last_offset=True)
        out.backward(L.tensor(g))
        grads.append(wt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


def test_embedding_bag_max_ties_send_the_gradient_to_the_first_row():
    w = np.array([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]])
    check_op(lambda t, w: t.nn.functional.embedding_bag(
        t.tensor([0, 1, 2, 1]), w, t.tensor([0, 3]), mode="max"), [w], second_order=False)


def test_embedding_bag_int32_indices_and_empty_input():
    check_op(lambda t, w: t.nn.functional.embedding_bag(
        _idx(t, BAG_INPUT.astype(np.int32)), w, _idx(t, np.array([0, 5], np.int32))),
        [(6, 2)], second_order=False)
    for mode in ("sum", "mean", "max"):
        check_op(lambda t, w: t.nn.functional.embedding_bag(
            t.zeros(0, dtype=t.int64), w, t.tensor([0, 0]), mode=mode), [(6, 2)],
            second_order=False)


def test_embedding_bag_frequency_scaling_divides_by_index_counts():
    # torch's CPU kernel looks counts up by sorted position (a bug), so the reference is
    # torch's embedding with frequency scaling, summed per bag
    w = np.random.default_rng(0).standard_normal((6, 2))
    u = np.random.default_rng(1).standard_normal((4, 2))
    wn = numtorch.from_numpy(w.copy()).requires_grad_()
    y = numtorch.nn.functional.embedding_bag(_idx(numtorch, BAG_INPUT), wn,
                                             _idx(numtorch, BAG_OFFSETS), mode="sum",
                                             scale_grad_by_freq=True)
    got, = numtorch.autograd.grad(y, wn, numtorch.from_numpy(u))
    wt = torch.from_numpy(w.copy()).requires_grad_()
    rows = torch.nn.functional.embedding(torch.from_numpy(BAG_INPUT), wt,
                                         scale_grad_by_freq=True)
    bag = torch.from_numpy(np.searchsorted(BAG_OFFSETS, np.arange(8), side="right") - 1)
    ref = torch.zeros(4, 2, dtype=torch.float64).index_add(0, bag, rows)
    want, = torch.autograd.grad(ref, wt, torch.from_numpy(u))
    assert_same(got, want, 1e-12, 1e-12)


def test_embedding_bag_max_norm_renormalises_used_rows():
    w = np.random.default_rng(0).standard_normal((6, 2)) * 3
    res = []
    for lib in (numtorch, torch):
        wt = lib.from_numpy(w.copy())
        y = lib.nn.functional.embedding_bag(_idx(lib, BAG_INPUT[:5]), wt,
                                            _idx(lib, np.array([0, 2])), max_norm=1.0)
        res.append((y, wt))
    for a, b in zip(*res):
        assert_same(a, b, 1e-12, 1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_module_matches_torch(mode):
    check_module(lambda t: t.nn.EmbeddingBag(6, 2, mode=mode, padding_idx=2),
                 [BAG_INPUT, BAG_OFFSETS])
    check_module(lambda t: t.nn.EmbeddingBag(6, 2, mode=mode), [BAG_INPUT.reshape(2, 4)])
    if mode == "sum":
        check_module(lambda t: t.nn.EmbeddingBag(6, 2, mode=mode),
                     [BAG_INPUT, BAG_OFFSETS, (8,)])


def test_embedding_bag_module_init_and_from_pretrained():
    bag = numtorch.nn.EmbeddingBag(10, 4, padding_idx=-1)
    assert bag.padding_idx == 9 and bag.weight[9].tolist() == [0, 0, 0, 0]
    table = numtorch.randn(3, 2)
    bag = numtorch.nn.EmbeddingBag.from_pretrained(table, mode="sum")
    assert not bag.weight.requires_grad and bag.mode == "sum"
    bag = numtorch.nn.EmbeddingBag.from_pretrained(table, freeze=False)
    assert bag.weight.requires_grad
    from numtorch.nn.modules import sparse

    assert sparse.EmbeddingBag is numtorch.nn.EmbeddingBag
    assert sparse.Embedding is numtorch.nn.Embedding


def test_embedding_bag_old_argument_order_warns_and_swaps():
    w = numtorch.randn(6, 2)
    with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag"):
        out = numtorch.nn.functional.embedding_bag(w, numtorch.tensor([[1, 2]]))
    assert tuple(out.shape) == (1, 2)


# -- one_hot --------------------------------------------------------------------------------

@pytest.mark.parametrize("values,num_classes", [
    (np.array([0, 2, 1]), -1), (np.array([0, 2, 1]), 5), (np.array([[1, 2], [0, 0]]), 3),
    (np.array(2), 3), (np.zeros((0,), np.int64), 3),
])
def test_one_hot_matches_torch(values, num_classes):
    check_op(lambda t, v: t.nn.functional.one_hot(v, num_classes), [values], grad=False)


# -- bad input ------------------------------------------------------------------------------

W = lambda t: t.randn(5, 3)  # noqa: E731
ERRORS = [
    (lambda t: t.nn.functional.embedding(t.tensor([5]), W(t)), "index out of range in self"),
    (lambda t: t.nn.functional.embedding(t.tensor([-1]), W(t)), "index out of range in self"),
    (lambda t: t.nn.functional.embedding(t.tensor([1.0]), W(t)),
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
     "Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)"),
    (lambda t: t.nn.functional.embedding(t.tensor([True]), W(t)), "but got CPUBoolType"),
    (lambda t: t.nn.functional.embedding(t.tensor([1], dtype=t.int16), W(t)),
     "torch.ShortTensor"),
    (lambda t: t.nn.functional.embedding([1, 2], W(t)),
     "argument 'indices' (position 2) must be Tensor, not list"),
    (lambda t: t.nn.functional.embedding(t.tensor([1]), t.randn(5)), "'weight' must be 2-D"),
    (lambda t: t.nn.functional.embedding(t.tensor([1]), W(t), padding_idx=5),
     "Padding_idx must be within num_embeddings"),
    (lambda t: t.nn.functional.embedding(t.tensor([1]), W(t), padding_idx=-6),
     "Padding_idx must be within num_embeddings"),
    (lambda t: t.nn.Embedding(5, 3, padding_idx=5), "Padding_idx must be within num_embeddings"),
    (lambda t: t.nn.Embedding(5, 3, _weight=t.randn(4, 3)),
     "Shape of weight does not match num_embeddings and embedding_dim"),
    (lambda t: t.nn.Embedding.from_pretrained(t.randn(4)),
     "Embeddings parameter is expected to be 2-dimensional"),
    (lambda t: t.nn.EmbeddingBag(5, 3, padding_idx=-6),
     "padding_idx must be within num_embeddings"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([1])),
     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
     "position 0. However, got 1"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([0, 3])),
     "offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 3"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([[1, 2]]), W(t), t.tensor([0])),
     "if input is 2D, then offsets has to be None"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t)),
     "offsets has to be a 1D Tensor but got None"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([[0]])),
     "offsets has to be a 1D Tensor"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([[[1]]]), W(t)),
     "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1]), W(t), t.tensor([0]), mode="foo"),
     "mode has to be one of sum, mean or max"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([[1]]), W(t), mode="max",
                                             scale_grad_by_freq=True),
     "max mode does not support scaling the gradient by the frequency"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([[1]]), W(t), mode="max", sparse=True),
     "max mode does not support sparse weights"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([7]), W(t), t.tensor([0])),
     "Index 0 of input takes value 7 which is not in the valid range [0, 5)"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([-1]), W(t), t.tensor([0])),
     "Index 0 of input takes value -1 which is not in the valid range [0, 5)"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([7]), W(t).double(), t.tensor([0])),
     "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be 7"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1]), W(t), t.tensor([0]),
                                             padding_idx=5),
     "padding_idx must be within the number of embeddings, -5 through 4, but got 5"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([0]),
                                             mode="mean", per_sample_weights=t.rand(2)),
     "per_sample_weights is only supported for mode='sum' (got mode='mean')"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([0]),
                                             mode="sum", per_sample_weights=t.rand(3)),
     "then it must have the same shape as the input"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1, 2]), W(t), t.tensor([0]),
                                             mode="sum",
                                             per_sample_weights=t.rand(2, dtype=t.float64)),
     "does not equal torch.DoubleTensor"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1]), t.randn(5), t.tensor([0])),
     "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1.0]), W(t), t.tensor([0])),
     "Expected tensor for argument #1 'indices'"),
    (lambda t: t.nn.functional.embedding_bag(t.tensor([1]), W(t).int(), t.tensor([0])),
     "Expected tensor for argument #1 'weight' to have one of the following scalar types"),
    (lambda t: t.nn.functional.one_hot(t.tensor([0, 2, 1]), 2),
     "Class values must be smaller than num_classes."),
    (lambda t: t.nn.functional.one_hot(t.tensor([0, -1])), "Class values must be non-negative."),
    (lambda t: t.nn.functional.one_hot(t.tensor([0.0, 1.0])),
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda t: t.nn.functional.one_hot(t.tensor([0, 1], dtype=t.int32)),
     "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda t: t.nn.functional.one_hot(t.zeros(0, dtype=t.int64)),
     "Can not infer total number of classes from empty tensor."),
    (lambda t: t.nn.functional.one_hot(t.tensor([1]), 2.0),
     "argument 'num_classes' must be int, not float"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_bad_input_raises_like_torch(case):
    fn, match = ERRORS[case]
    check_raises(fn, match=match)
