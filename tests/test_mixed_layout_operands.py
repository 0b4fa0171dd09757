"""Elementwise ops on operands in different layouts, against torch: torch lays the result
out by its operands' strides, the first operand with an opinion deciding, where NumPy falls
back to row-major. What a user sees is ``.stride()``, whether a later ``.view`` works, and
the order a later random fill (dropout) walks the result."""
import random

import numpy as np
import pytest
import torch

import numtorch


def _operands(L):
    g = L.Generator().manual_seed(0)
    a = L.rand(2, 3, 4, generator=g) + 0.5
    b = (L.rand(4, 2, 3, generator=g) + 0.5).permute(1, 2, 0)
    c = (L.rand(4, 3, 2, generator=g) + 0.5).transpose(0, 2)
    return {"a": a, "b": b, "c": c, "a0": a[0], "bs": (L.rand(2, 3, 8, generator=g) + 0.5)[..., ::2]}


BINARY = {
    "add": lambda L, x, y: x + y, "sub": lambda L, x, y: L.sub(x, y, alpha=2),
    "mul": lambda L, x, y: x * y, "div": lambda L, x, y: x / y,
    "floor_divide": lambda L, x, y: L.floor_divide(x, y), "remainder": lambda L, x, y: x % y,
    "pow": lambda L, x, y: x ** y, "atan2": lambda L, x, y: L.atan2(x, y),
    "maximum": lambda L, x, y: L.maximum(x, y), "fmin": lambda L, x, y: L.fmin(x, y),
    "lt": lambda L, x, y: x < y, "eq": lambda L, x, y: x == y,
    "logical_and": lambda L, x, y: L.logical_and(x > 1, y > 1),
    "bitwise_or": lambda L, x, y: (x * 10).long() | (y * 10).long(),
    "hypot": lambda L, x, y: L.hypot(x, y), "logaddexp": lambda L, x, y: L.logaddexp(x, y),
    "copysign": lambda L, x, y: L.copysign(x, y), "xlogy": lambda L, x, y: L.xlogy(x, y),
    "xlog1py": lambda L, x, y: L.special.xlog1py(x, y), "isclose": lambda L, x, y: L.isclose(x, y),
    "where": lambda L, x, y: L.where(x > 1, x, y), "where_cond_second": lambda L, x, y: L.where(y > 1, x, y),
    "lerp": lambda L, x, y: L.lerp(x, y, 0.3), "lerp_tensor_weight": lambda L, x, y: L.lerp(x, y, y / 4),
    "addcmul": lambda L, x, y: L.addcmul(x, y, y, value=0.5), "addcdiv": lambda L, x, y: L.addcdiv(x, y, y),
    "clamp_tensor": lambda L, x, y: L.clamp(x, min=y), "mse_none": lambda L, x, y: L.nn.functional.mse_loss(x, y, reduction="none"),
    "bce_none": lambda L, x, y: L.nn.functional.binary_cross_entropy(x / 3, y / 3, reduction="none"),
    "mixed_dtype": lambda L, x, y: x.double() + y, "complex": lambda L, x, y: L.complex(x, y),
}
PAIRS = ["ab", "ba", "bc", "cb", "a0b", "ba0", "bsa", "abs"]


def _pair(ops, p):
    for first in ("a0", "bs", "a", "b", "c"):
        if p.startswith(first):
            return ops[first], ops[p[len(first):]]
    raise AssertionError(p)


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_result_strides_like_torch(name, pair):
    f = BINARY[name]
    try:
        r = f(torch, *_pair(_operands(torch), pair))
    except ValueError:  # binary_cross_entropy refuses a broadcast target
        with pytest.raises(ValueError, match=r"Using a target size"):
            f(numtorch, *_pair(_operands(numtorch), pair))
        return
    n = f(numtorch, *_pair(_operands(numtorch), pair))
    assert tuple(n.stride()) == tuple(r.stride())
    assert n.dtype.__str__() == str(r.dtype)
    np.testing.assert_allclose(n.numpy(), r.numpy(), rtol=1e-6)


def test_channels_last_with_contiguous_operand():
    for L in (torch, numtorch):
        x = L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
        y = L.ones(2, 3, 4, 5)
        assert (x + y).is_contiguous(memory_format=L.channels_last)
        assert (y + x).is_contiguous()
        assert (L.ones(1, 3, 4, 5).contiguous(memory_format=L.channels_last) + y) \
            .is_contiguous(memory_format=L.channels_last)


def test_view_after_mixed_add_fails_or_works_as_torch():
    results = []
    for L in (torch, numtorch):
        ops = _operands(L)
        got = []
        for x, y in ((ops["b"], ops["a"]), (ops["a"], ops["b"])):
            try:
                got.append(tuple((x + y).view(-1).shape))
            except RuntimeError as e:
                got.append(type(e).__name__)
        results.append(got)
    assert results[0] == results[1] == ["RuntimeError", (24,)]


def test_dropout_after_mixed_add_draws_torch_mask():
    # torch fills a tensor's random draws in memory order, so the mask follows the layout
    masks = []
    for L in (torch, numtorch):
        ops = _operands(L)
        L.manual_seed(7)
        masks.append(L.nn.functional.dropout(ops["b"] + ops["a"], 0.5).ne(0).numpy())
    np.testing.assert_array_equal(masks[0], masks[1])


def test_gradients_of_mixed_layout_ops_like_torch():
    grads = []
    for L in (torch, numtorch):
        ops = {k: v.detach().requires_grad_() for k, v in _operands(L).items() if k != "a0"}
        y = ops["b"] * ops["a"] + L.addcmul(ops["c"], ops["a"], ops["b"])
        g = L.Generator().manual_seed(3)
        y.backward(L.randn(2, 3, 4, generator=g))
        grads.append([(ops[k].grad.numpy(), tuple(y.stride())) for k in "abc"])
    for (gt, st), (gn, sn) in zip(*grads):
        np.testing.assert_allclose(gn, gt, rtol=1e-6)
        assert st == sn


def _random_case(rng):
    nd = rng.randint(2, 4)
    shape = [rng.choice([2, 3, 4]) for _ in range(nd)]
    specs = []
    for _ in range(rng.randint(2, 3)):
        s = shape[rng.choice([0, 0, 1]) if nd > 2 else 0:]
        perm = list(range(len(s)))
        rng.shuffle(perm)
        specs.append((s, perm, rng.random() < 0.25))
    return specs, rng.choice(["add", "mul", "where", "addcmul"])


def _build(L, specs, seed):
    g = np.random.RandomState(seed)
    out = []
    for s, perm, sliced in specs:
        base = [s[p] for p in perm]
        if sliced:
            t = L.tensor(g.rand(*base[:-1], base[-1] * 2).astype(np.float32))[..., ::2]
        else:
            t = L.tensor(g.rand(*base).astype(np.float32))
        out.append(t.permute(*np.argsort(perm).tolist()))
    return out


def _apply(L, kind, ts):
    if kind == "add":
        return ts[0] + ts[1] if len(ts) == 2 else ts[0] + ts[1] + ts[2]
    if kind == "mul":
        return L.mul(ts[0], ts[1])
    if kind == "where":
        return L.where(ts[0] > 0.5, ts[1], ts[-1])
    return L.addcmul(ts[0], ts[1], ts[-1])


def test_random_layout_combinations_like_torch():
    rng = random.Random(1234)
    compared = 0
    for seed in range(400):
        specs, kind = _random_case(rng)
        tt = _build(torch, specs, seed)
        try:
            r = _apply(torch, kind, tt)
        except RuntimeError:  # shapes that do not broadcast
            continue
        n = _apply(numtorch, kind, _build(numtorch, specs, seed))
        assert tuple(n.stride()) == tuple(r.stride()), (specs, kind)
        np.testing.assert_allclose(n.numpy(), r.numpy(), rtol=1e-6)
        compared += 1
    assert compared > 150
