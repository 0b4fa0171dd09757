"""Embedding(sparse=True) against torch: the weight's sparse COO gradient (indices, values,
coalesced flag, accumulation), the optimizers that step on it (SGD, Adagrad, SparseAdam, with
trained weights compared after a few steps), the ones that refuse it, zero_grad and clipping."""

import warnings

import numpy as np
import pytest
import torch

import numtorch


def _same_sparse(a, b):
    assert a.is_sparse and b.is_sparse
    assert a.is_coalesced() == b.is_coalesced()
    assert a._indices().numpy().tolist() == b._indices().numpy().tolist()
    np.testing.assert_allclose(a._values().detach().numpy(), b._values().detach().numpy(),
                               rtol=1e-6)
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)


GRAD_CASES = {
    "embedding": lambda lib, w: lib.nn.functional.embedding(
        lib.tensor([[3, 1], [3, 0]]), w, sparse=True),
    "embedding_transposed_indices": lambda lib, w: lib.nn.functional.embedding(
        lib.tensor([[1, 2], [3, 4]]).t(), w, sparse=True),
    "embedding_padding": lambda lib, w: lib.nn.functional.embedding(
        lib.tensor([[3, 1], [3, 0]]), w, padding_idx=3, sparse=True),
    "embedding_one_index": lambda lib, w: lib.nn.functional.embedding(
        lib.tensor([2]), w, sparse=True),
    "embedding_empty": lambda lib, w: lib.nn.functional.embedding(
        lib.tensor([], dtype=lib.int64), w, sparse=True),
    "module": lambda lib, w: _module(lib, w)(lib.tensor([1, 1, 4])),
    "bag_sum": lambda lib, w: lib.nn.functional.embedding_bag(
        lib.tensor([3, 1, 3, 0, 5]), w, lib.tensor([0, 2]), mode="sum", sparse=True),
    "bag_mean_2d": lambda lib, w: lib.nn.functional.embedding_bag(
        lib.tensor([[1, 2], [3, 3]]), w, mode="mean", sparse=True),
    "bag_padding_weights": lambda lib, w: lib.nn.functional.embedding_bag(
        lib.tensor([3, 1, 3, 0, 5]), w, lib.tensor([0, 2]), mode="sum", sparse=True,
        padding_idx=3, per_sample_weights=lib.tensor([1.0, 2, 3, 4, 5])),
    "bag_module": lambda lib, w: _bag(lib, w)(lib.tensor([3, 1, 3, 0, 5]), lib.tensor([0, 2])),
}


def _module(lib, w):
    m = lib.nn.Embedding(6, 3, sparse=True)
    m.weight = w
    return m


def _bag(lib, w):
    m = lib.nn.EmbeddingBag(6, 3, mode="mean", sparse=True)
    m.weight = w
    return m


def _weight(lib):
    return lib.nn.Parameter(lib.from_numpy(np.arange(18.0, dtype=np.float32).reshape(6, 3)
                                           / 10))


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_sparse_weight_gradient_matches_torch(name):
    grads = []
    for lib in (numtorch, torch):
        w = _weight(lib)
        y = GRAD_CASES[name](lib, w)
        cot = lib.from_numpy(np.random.default_rng(0).standard_normal(tuple(y.shape))
                             .astype(np.float32))
        y.backward(cot)
        grads.append(w.grad)
    _same_sparse(*grads)


def test_sparse_gradients_accumulate_and_mix_with_dense_as_torch():
    def run(lib):
        F = lib.nn.functional
        idx = lib.tensor([[3, 1], [3, 0]])
        out = []
        w = _weight(lib)
        F.embedding(idx, w, sparse=True).sum().backward()
        F.embedding(lib.tensor([5, 1]), w, sparse=True).sum().backward()  # sparse + sparse
        out.append(w.grad)
        w.grad = None
        (F.embedding(idx, w, sparse=True).sum()
         + F.embedding(lib.tensor([2]), w, sparse=True).sum()).backward()  # in one graph
        out.append(w.grad)
        w.grad = None
        (F.embedding(idx, w, sparse=True).sum() + w.sum()).backward()  # with a dense use
        out.append(w.grad)
        w.grad = None
        w.sum().backward()
        F.embedding(idx, w, sparse=True).sum().backward()  # dense .grad, then sparse
        out.append(w.grad)
        w.grad = None
        F.embedding(idx, w, sparse=True).sum().backward()
        w.sum().backward()  # sparse .grad, then dense
        out.append(w.grad)
        (g,) = lib.autograd.grad(F.embedding(idx, w, sparse=True).sum(), w)
        out.append(g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w.grad = None
            F.embedding(idx, w, sparse=True).sum().backward(create_graph=True)
        out.append(w.grad)
        return out

    for a, b in zip(run(numtorch), run(torch)):
        assert a.is_sparse == b.is_sparse
        if a.is_sparse:
            _same_sparse(a, b)
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy())


def test_scale_grad_by_freq_with_sparse_raises_torch_error_in_backward():
    for lib in (numtorch, torch):
        w = _weight(lib)
        y = lib.nn.functional.embedding(lib.tensor([1, 1]), w, scale_grad_by_freq=True,
                                        sparse=True)
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse"):
            y.sum().backward()


OPTIMIZERS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov": ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    "sgd_dampening_maximize": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5,
                                           maximize=True)),
    "sgd_weight_decay": ("SGD", dict(lr=0.1, weight_decay=0.1)),
    "sparse_adam": ("SparseAdam", dict(lr=0.1)),
    "sparse_adam_maximize": ("SparseAdam", dict(lr=0.1, maximize=True)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay_init": ("Adagrad", dict(lr=0.1, lr_decay=0.1,
                                           initial_accumulator_value=0.5)),
    "adagrad_weight_decay": ("Adagrad", dict(lr=0.1, weight_decay=0.1)),
    "adam": ("Adam", dict(lr=0.1)),
    "adamw": ("AdamW", dict(lr=0.1)),
    "rmsprop": ("RMSprop", dict(lr=0.1)),
    "adadelta": ("Adadelta", {}),
    "adamax": ("Adamax", {}),
    "nadam": ("NAdam", {}),
    "radam": ("RAdam", {}),
    "asgd": ("ASGD", {}),
    "rprop": ("Rprop", {}),
    "adafactor": ("Adafactor", {}),
}


def _train(lib, name, kwargs, steps=4):
    w = _weight(lib)
    opt = getattr(lib.optim, name)([w], **kwargs)
    try:
        for s in range(steps):
            opt.zero_grad()
            lib.nn.functional.embedding(lib.tensor([[3, 1], [3, s]]), w,
                                        sparse=True).square().sum().backward()
            opt.step()
    except Exception as e:  # noqa: BLE001  (the error itself is compared)
        return type(e), str(e)
    state = opt.state[w]
    buf = state.get("momentum_buffer") if isinstance(state, dict) else None
    return w.detach().numpy().copy(), None if buf is None else buf.is_sparse


@pytest.mark.parametrize("case", sorted(OPTIMIZERS))
def test_optimizer_step_on_sparse_gradient_matches_torch(case):
    name, kwargs = OPTIMIZERS[case]
    ours, ref = _train(numtorch, name, kwargs), _train(torch, name, kwargs)
    if isinstance(ref[0], type):
        assert ours == ref
    else:
        np.testing.assert_allclose(ours[0], ref[0], rtol=1e-5, atol=1e-6)
        assert ours[1] == ref[1]


def test_sparse_adam_refuses_dense_gradient_before_making_state():
    for lib in (numtorch, torch):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SparseAdam([p])
        p.grad = lib.ones(2)
        with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, "
                                               "please consider Adam instead$"):
            opt.step()
        assert len(opt.state) == 0


def test_zero_grad_and_clipping_with_sparse_gradients_as_torch():
    def run(lib):
        res = []
        m = lib.nn.Embedding(6, 3, sparse=True)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        m(lib.tensor([1, 4])).sum().backward()
        opt.zero_grad(set_to_none=False)
        g = m.weight.grad
        res.append((g.is_sparse, g._nnz(), tuple(g._values().shape), g.is_coalesced()))
        m(lib.tensor([1, 4])).sum().backward()
        m.zero_grad(set_to_none=False)
        res.append((m.weight.grad.is_sparse, m.weight.grad._nnz()))
        m(lib.tensor([2])).sum().backward()
        for fn in (lambda: lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0),
                   lambda: lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0, foreach=False),
                   lambda: lib.nn.utils.clip_grad_value_(m.parameters(), 0.1)):
            with pytest.raises(NotImplementedError) as info:
                fn()
            res.append(str(info.value).split(". ")[0])
        return res

    assert run(numtorch) == run(torch)


def test_sparse_momentum_state_round_trips_through_state_dict_without_warning():
    def run(lib):
        import copy

        e = lib.nn.Embedding.from_pretrained(lib.ones(4, 2), freeze=False, sparse=True)
        opt = lib.optim.SGD(e.parameters(), lr=0.1, momentum=0.5)
        for _ in range(2):
            e(lib.tensor([1, 2])).sum().backward()
            opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sd = copy.deepcopy(opt.state_dict())
        opt2 = lib.optim.SGD(e.parameters(), lr=0.1, momentum=0.5)
        opt2.load_state_dict(sd)
        buf = opt2.state[e.weight]["momentum_buffer"]
        return buf.is_sparse, buf.to_dense().numpy().tolist(), e.weight.detach().numpy().tolist()

    assert run(numtorch) == run(torch)
