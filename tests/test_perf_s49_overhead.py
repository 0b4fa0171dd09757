"""The engine's first-order path hands gradients between ops as bare NumPy arrays (session 49,
perf): every place a gradient is seen (leaf ``.grad``, fan-in sums, tensor/node/pre/post hooks,
``retain_grad``, anomaly mode, the profiler, custom Functions, composed backwards) still gets
Tensors with the bits the engine's general path gives (``general`` forces it) and torch's
values; the whole-sum fast paths (forward and backward) give torch's bits. Compared with torch
at test time; never timed.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.autograd import engine

RNG = np.random.default_rng(4949)


@pytest.fixture
def general(monkeypatch):
    """A function running ``fn()`` with the engine's first-order path turned off."""
    def run(fn):
        with monkeypatch.context() as mp:
            mp.setattr(engine, "_OP_RUN", None)
            return fn()
    return run


def _pair(shape=(8, 8), dtype=np.float32):
    a = RNG.standard_normal(shape).astype(dtype)
    return (numtorch.from_numpy(a.copy()).requires_grad_(),
            torch.from_numpy(a.copy()).requires_grad_())


def _bits(n, t):
    """``n`` (a numtorch Tensor) has the dtype and bits of ``t`` (a torch or numtorch one)."""
    assert type(n) is numtorch.Tensor
    assert str(n.dtype) == str(t.dtype)
    assert n.detach().numpy().tobytes() == t.detach().numpy().tobytes()


def _close(n, t):
    """``n`` holds torch tensor ``t``'s values (to an ulp or so: torch's tanh/sigmoid kernels
    are not all correctly rounded)."""
    assert type(n) is numtorch.Tensor and str(n.dtype) == str(t.dtype)
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def _leaf(a):
    return numtorch.from_numpy(a.copy()).requires_grad_()


def _twice(general, prog, *arrays):
    """``prog(*leaves)`` run on fresh leaves with the first-order path and with the general
    path; both results (whatever ``prog`` returns, plus the leaves' grads) bit for bit."""
    fast_leaves = [_leaf(a) for a in arrays]
    slow_leaves = [_leaf(a) for a in arrays]
    fast = prog(*fast_leaves)
    slow = general(lambda: prog(*slow_leaves))
    for f, g in zip(fast_leaves, slow_leaves):
        _bits(f.grad, g.grad)
    assert len(fast) == len(slow)
    for f, g in zip(fast, slow):
        if isinstance(g, numtorch.Tensor):
            _bits(f, g)
        else:
            assert f == g
    return fast_leaves


def test_tiny_loop_grad_accumulates(general):
    a = RNG.standard_normal((8, 8)).astype(np.float32)

    def prog(x):
        for _ in range(3):
            (x * 1.0001 + 0.5).tanh().sum().backward()
        return ()

    (x,) = _twice(general, prog, a)
    tx = torch.from_numpy(a.copy()).requires_grad_()
    for _ in range(3):
        (tx * 1.0001 + 0.5).tanh().sum().backward()
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fan_in_and_shared_leaf_gradient(general, dtype):
    a = RNG.standard_normal((5, 3)).astype(dtype)

    def prog(v, lib=numtorch):
        ((v + v) * 0.5 + v.tanh() * v.sigmoid()).sum().backward()
        (v * 2 + v).mean().backward()
        return ()

    (x,) = _twice(general, prog, a)
    tx = torch.from_numpy(a.copy()).requires_grad_()
    prog(tx)
    _close(x.grad, tx.grad)
    # the gradient a leaf adopted is its own: nothing else shares its memory
    y = x.tanh()
    y.sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.detach().numpy())


def test_two_leaves_fed_one_array(general):
    def prog(a, b):
        (a + b).sum().backward()
        return ()

    a, b = _twice(general, prog, RNG.standard_normal(4).astype(np.float32),
                  RNG.standard_normal(4).astype(np.float32))
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    np.testing.assert_array_equal(a.grad.numpy(), np.ones(4, np.float32))


def test_hooks_see_tensors(general):
    def prog(v):
        rec = []
        y = v * 3.0
        y.register_hook(lambda g: rec.append(("tensor", type(g).__name__, g * 1)))
        z = y.tanh()
        z.retain_grad()
        z.grad_fn.register_hook(lambda gi, go: rec.append(
            ("node", [type(t).__name__ for t in gi], [type(t).__name__ for t in go])))
        z.grad_fn.register_prehook(lambda go: rec.append(("pre", len(go))))
        v.register_post_accumulate_grad_hook(
            lambda p: rec.append(("post", type(p.grad).__name__)))
        (z * 2.0).sum().backward()
        rec.append(("retained", "Tensor", z.grad * 1))
        return [r[:2] for r in rec] + [r[2] for r in rec if r[0] in ("tensor", "retained")] + \
            [r[2:] for r in rec if r[0] not in ("tensor", "retained")]

    (x,) = _twice(general, prog, RNG.standard_normal((3, 4)).astype(np.float32))
    ours = prog(_leaf(x.detach().numpy()))
    assert ours[:5] == [("pre", 1), ("node", ["Tensor"]), ("tensor", "Tensor"),
                        ("post", "Tensor"), ("retained", "Tensor")] or \
        [r[0] for r in ours[:5]] == ["pre", "node", "tensor", "post", "retained"]


def test_hook_order_and_types_match_torch():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    seen = {}
    for lib in (numtorch, torch):
        rec = seen[lib.__name__] = []
        v = lib.from_numpy(a.copy()).requires_grad_()
        y = v * 3.0
        y.register_hook(lambda g, rec=rec: rec.append(("tensor", type(g).__name__)))
        z = y.tanh()
        z.grad_fn.register_hook(lambda gi, go, rec=rec: rec.append(
            ("node", [type(t).__name__ for t in gi], [type(t).__name__ for t in go])))
        z.grad_fn.register_prehook(lambda go, rec=rec: rec.append(("pre", len(go))))
        v.register_post_accumulate_grad_hook(
            lambda p, rec=rec: rec.append(("post", type(p.grad).__name__)))
        (z * 2.0).sum().backward()
    assert seen["numtorch"] == seen["torch"]


def test_hook_may_replace_gradient_of_array_node(general):
    def prog(v):
        y = v * 2.0
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[1]))
        (y + 1.0).tanh().sum().backward()
        return ()

    a = RNG.standard_normal(6).astype(np.float32)
    (x,) = _twice(general, prog, a)
    tx = torch.from_numpy(a.copy()).requires_grad_()
    prog(tx)
    _close(x.grad, tx.grad)


def test_anomaly_mode_names_the_node():
    import warnings

    messages = []
    for lib in (numtorch, torch):
        v = lib.from_numpy(np.zeros(3, np.float32)).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as err, lib.autograd.detect_anomaly(check_nan=True):
                (v * 0.0).sqrt().sum().backward()
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_profiler_during_backward(general):
    def prog(v):
        with numtorch.profiler.profile():
            (v * 1.5 + 0.5).tanh().sum().backward()
        return ()

    _twice(general, prog, RNG.standard_normal((4, 4)).astype(np.float32))


def _square(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v * v

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensors
            assert type(g).__name__ == "Tensor"
            return 2 * v * g

    return Square


def test_custom_function_between_array_nodes(general):
    def prog(v, lib=numtorch):
        (_square(lib).apply(v.tanh() * 2.0) + 1.0).sum().backward()
        return ()

    a = RNG.standard_normal(5).astype(np.float32)
    (x,) = _twice(general, prog, a)
    tx = torch.from_numpy(a.copy()).requires_grad_()
    prog(tx, torch)
    _close(x.grad, tx.grad)


def test_composed_backward_fallback_and_double_backward(general):
    # complex inputs take tanh's composed backward (its backward_arrays declines them)
    a = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype(np.complex64)

    def prog(z):
        (z * 2.0).tanh().abs().sum().backward()
        return ()

    (z,) = _twice(general, prog, a)
    tz = torch.from_numpy(a.copy()).requires_grad_()
    prog(tz)
    np.testing.assert_allclose(z.grad.numpy(), tz.grad.numpy(), rtol=1e-5, atol=1e-6)

    def double(x):
        (g,) = numtorch.autograd.grad((x * 1.5).tanh().sum(), x, create_graph=True)
        g.sum().backward()
        return (g,)

    _twice(general, double, RNG.standard_normal((3, 3)).astype(np.float32))


@pytest.mark.parametrize("shape", [(), (1,), (7,), (8, 8), (4, 8), (3, 5, 2), (2, 33), (129,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_sum_forward_and_backward(shape, dtype):
    a = RNG.standard_normal(shape).astype(dtype)
    x, tx = _leaf(a), torch.from_numpy(a.copy()).requires_grad_()
    s, ts = x.sum(), tx.sum()
    _bits(s, ts)
    (s * 3.0).backward()
    (ts * 3.0).backward()
    _bits(x.grad, tx.grad)
    dims = tuple(range(len(shape)))
    _bits(x.sum(dim=dims, keepdim=True), tx.sum(dim=dims, keepdim=True))
    _bits(x.sum(dim=dims), tx.sum(dim=dims))


def test_whole_sum_gradient_is_fresh_memory():
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    x, tx = _leaf(a), torch.from_numpy(a.copy()).requires_grad_()
    g = numtorch.full((), 2.0)
    x.sum().backward(g)
    tx.sum().backward(torch.full((), 2.0))
    _bits(x.grad, tx.grad)
    assert not np.shares_memory(x.grad.numpy(), g.numpy())
    assert x.grad.is_contiguous()


def test_sparse_grad_then_dense():
    n_emb = numtorch.nn.Embedding(5, 3, sparse=True)
    t_emb = torch.nn.Embedding(5, 3, sparse=True)
    with torch.no_grad():
        t_emb.weight.copy_(torch.from_numpy(n_emb.weight.detach().numpy()))
    idx = [1, 3, 1]
    (n_emb(numtorch.tensor(idx)) * 2.0).sum().backward()
    (t_emb(torch.tensor(idx)) * 2.0).sum().backward()
    assert n_emb.weight.grad.is_sparse and t_emb.weight.grad.is_sparse
    np.testing.assert_array_equal(n_emb.weight.grad.to_dense().numpy(),
                                  t_emb.weight.grad.to_dense().numpy())
    (n_emb.weight * 1.0).sum().backward()
    (t_emb.weight * 1.0).sum().backward()
    assert n_emb.weight.grad.is_sparse == t_emb.weight.grad.is_sparse
    np.testing.assert_array_equal(n_emb.weight.grad.to_dense().numpy(),
                                  t_emb.weight.grad.to_dense().numpy())
