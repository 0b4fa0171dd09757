"""torch.utils.checkpoint: gradients equal to the plain model (and to torch), recomputation
with the same random draws, memory actually released, and torch's warnings and errors."""

import gc
import warnings
import weakref

import numpy as np
import pytest
import torch

import numtorch
from numtorch.utils import checkpoint as ckpt

BOTH = [True, False]


def _mlp(lib, dropout=0.0):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Dropout(dropout),
                             lib.nn.Linear(8, 8), lib.nn.GELU(), lib.nn.Linear(8, 3))


def _copy_weights(src, dst):
    dst.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                         for k, v in src.state_dict().items()})


def _grads(model, x):
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_gradients_equal_plain_model_and_torch(use_reentrant):
    th_m = _mlp(torch)
    nt_m = _mlp(numtorch)
    _copy_weights(th_m, nt_m)
    xa = np.random.default_rng(0).standard_normal((5, 4)).astype("float32")
    results = []
    for lib, m in ((numtorch, nt_m), (torch, th_m)):
        for checkpointed in (False, True):
            m.zero_grad()
            x = lib.tensor(xa, requires_grad=True)
            if checkpointed:
                h = lib.utils.checkpoint.checkpoint(m[:3], x, use_reentrant=use_reentrant)
                out = lib.utils.checkpoint.checkpoint(m[3:], h, use_reentrant=use_reentrant)
            else:
                out = m(x)
            (out * lib.tensor(np.arange(15.0, dtype="float32").reshape(5, 3))).sum().backward()
            results.append(_grads(m, x))
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_dropout_is_replayed_on_recompute(use_reentrant):
    m = _mlp(numtorch, dropout=0.5)
    x = numtorch.randn(6, 4, requires_grad=True)
    numtorch.manual_seed(7)
    m(x).sum().backward()
    plain = _grads(m, x)
    m.zero_grad()
    x.grad = None
    numtorch.manual_seed(7)
    ckpt.checkpoint(m, x, use_reentrant=use_reentrant).sum().backward()
    for a, b in zip(_grads(m, x), plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # without the replay the recomputed mask differs from the forward one
    m.zero_grad()
    x.grad = None
    numtorch.manual_seed(7)
    ckpt.checkpoint(m, x, use_reentrant=use_reentrant,
                    preserve_rng_state=False).sum().backward()
    assert any(not np.allclose(a, b) for a, b in zip(_grads(m, x), plain))


def test_double_backward_non_reentrant_matches_torch():
    xa = np.array([0.3, -1.2, 2.0])
    res = []
    for lib in (numtorch, torch):
        x = lib.tensor(xa, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda a: (a.sin() * a).exp(), x,
                                            use_reentrant=False)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_autograd_grad_and_inputs_need_non_reentrant():
    x = numtorch.randn(3, requires_grad=True)
    w = numtorch.randn(3, requires_grad=True)
    y = ckpt.checkpoint(lambda a, b: a * b.exp(), x, w, use_reentrant=False)
    g = numtorch.autograd.grad(y.sum(), w)[0]
    np.testing.assert_allclose(g.numpy(), (x * w.exp()).detach().numpy(), rtol=1e-6)
    for lib in (numtorch, torch):
        a = lib.randn(3, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: t.sin(), a, use_reentrant=True)
        with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\) or passing an"):
            lib.autograd.grad(y.sum(), a)
        y = lib.utils.checkpoint.checkpoint(lambda t: t.sin(), a, use_reentrant=True)
        with pytest.raises(RuntimeError, match="incompatible with .grad"):
            y.sum().backward(inputs=[a])


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_non_tensor_inputs_and_outputs(use_reentrant):
    def fn(a, scale, name, nothing):
        assert name == "k" and nothing is None
        return a * scale, name, 3, None

    for lib in (numtorch, torch):
        x = lib.ones(2, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint(fn, x, 2.5, "k", None,
                                              use_reentrant=use_reentrant)
        assert out[1:] == ("k", 3, None)
        out[0].sum().backward()
        assert x.grad.tolist() == [2.5, 2.5]


def test_kwargs_only_without_reentrant():
    for lib in (numtorch, torch):
        x = lib.ones(2, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda a, *, p: a ** p, x, p=3, use_reentrant=False)
        y.sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
        with pytest.raises(ValueError, match="Unexpected keyword arguments: p"):
            lib.utils.checkpoint.checkpoint(lambda a, *, p: a ** p, x, p=3, use_reentrant=True)


def test_warnings_match_torch():
    for lib in (numtorch, torch):
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                             "explicitly. Starting in PyTorch 2.9"):
            y = lib.utils.checkpoint.checkpoint(lambda a: a * 2, x)
        assert "CheckpointFunctionBackward" in type(y.grad_fn).__name__
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            y = lib.utils.checkpoint.checkpoint(lambda a: a * 2, x.detach(),
                                                use_reentrant=True)
        assert not y.requires_grad
        seq = [lib.nn.Linear(2, 2), lib.nn.ReLU()]
        with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
            lib.utils.checkpoint.checkpoint_sequential(seq, 2, x)


def test_errors_match_torch():
    for lib in (numtorch, torch):
        cp = lib.utils.checkpoint
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(ValueError, match="determinism_check should be one of"):
            cp.checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="foo")
        with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only"):
            cp.checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
            cp.checkpoint_sequential([lib.nn.ReLU()] * 2, 2, x, use_reentrant=True, foo=1)
        calls = [0]

        def changes_shape(a):
            calls[0] += 1
            return a.sin() if calls[0] == 1 else a[:2].sin()
        y = cp.checkpoint(changes_shape, x, use_reentrant=False)
        with pytest.raises(cp.CheckpointError, match="tensor at position 0:\nsaved metadata: "
                                                    "{'shape': torch.Size\\(\\[3\\]\\)"):
            y.sum().backward()
    assert issubclass(ckpt.CheckpointError, RuntimeError)


def test_fewer_saved_values_on_recompute_is_an_error():
    calls = [0]

    def fn(a):
        calls[0] += 1
        return (a * a).sin() if calls[0] == 1 else a * 2
    y = ckpt.checkpoint(fn, numtorch.ones(2, requires_grad=True), use_reentrant=False)
    with pytest.raises(ckpt.CheckpointError, match="A different number of tensors was saved"):
        y.sum().backward()


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_activations_are_not_kept(use_reentrant):
    kept = []
    saved = [0]

    def block(a):
        h = (a @ a.t()).tanh()  # tanh saves its output, the product its inputs
        kept.append(weakref.ref(h._array))
        return (h * 3).exp().sum(1)

    def pack(t):
        saved[0] += 1
        return t

    x = numtorch.randn(64, 64, requires_grad=True)
    with numtorch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y_plain = block(x)
        n_plain = saved[0]
        saved[0] = 0
        y = ckpt.checkpoint(block, x, use_reentrant=use_reentrant)
    gc.collect()
    assert kept[0]() is not None  # the plain graph keeps the activation alive
    assert kept[1]() is None  # the checkpointed one does not
    assert n_plain >= 3 and saved[0] <= 1  # only the checkpoint's own input is saved outside
    y.sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    y_plain.sum().backward()
    np.testing.assert_allclose(g, x.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("use_reentrant", BOTH)
def test_checkpoint_sequential_matches_plain(use_reentrant):
    m = _mlp(numtorch)
    x = numtorch.randn(5, 4, requires_grad=True)
    m(x).pow(2).sum().backward()
    plain = _grads(m, x)
    for segments in (1, 2, 3, 6):
        m.zero_grad()
        x.grad = None
        ckpt.checkpoint_sequential(m, segments, x, use_reentrant=use_reentrant).pow(2).sum() \
            .backward()
        for a, b in zip(_grads(m, x), plain):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_context_fn_and_retain_graph():
    entered = []

    class Mark:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    x = numtorch.ones(2, requires_grad=True)
    y = ckpt.checkpoint(lambda a: a.exp() * a, x, use_reentrant=False,
                        context_fn=lambda: (Mark("forward"), Mark("recompute")))
    assert entered == ["forward"]
    y.sum().backward(retain_graph=True)
    y.sum().backward()  # the recomputed values are computed again for the second pass
    assert entered == ["forward", "recompute", "recompute"]
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * np.e, rtol=1e-6)


def test_checkpoint_is_reachable_at_torch_paths():
    import importlib

    mod = importlib.import_module("numtorch.utils.checkpoint")
    assert mod.checkpoint is numtorch.utils.checkpoint.checkpoint
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ckpt.checkpoint(lambda a: a, numtorch.ones(1, requires_grad=True), use_reentrant=False)
