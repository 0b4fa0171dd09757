"""Forced intra-op splits of two more passes give the same bits as the whole call, and torch's
values (session 49, perf2): the GELU backward's ``slope * g`` product (when the forward kept
its slope) and ``clip_grad_norm_``'s in-place scaling of the gradients.

The splits only happen on large arrays with two free cores; here ``_intraop``'s part count
and core check are patched so every eligible call splits into three parts, and each result is
compared with the same call unsplit (bit for bit) and with torch (at test time). Never timed.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _intraop

RNG = np.random.default_rng(49)


@pytest.fixture
def forced(monkeypatch):
    """Every eligible kernel splits in three parts; the fan-outs are counted."""
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "_MIN_PART", 8)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: min(3, n) if n >= 2 and not getattr(
        _intraop._worker, "busy", False) else 1)
    monkeypatch.setattr(_intraop, "run_ranges",
                        lambda k, bounds: calls.append(len(bounds)) or real(k, bounds))
    return calls


def _whole(fn, *args):
    """``fn(*args)`` with every split refused."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intraop, "parts", lambda n, unit=1: 1)
        return fn(*args)


def _bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8 if a.dtype.itemsize == 1 else f"u{a.dtype.itemsize}"),
                          b.view(np.uint8 if b.dtype.itemsize == 1 else f"u{b.dtype.itemsize}"))


# ---- GELU backward from the saved slope ----

def _gelu_grads(lib, x0, g0, dt, approximate, layout):
    x = lib.tensor(x0, dtype=getattr(lib, dt))
    g = lib.tensor(g0, dtype=getattr(lib, dt))
    if layout == "transposed":
        x, g = x.t(), g.t()
    x.requires_grad_(True)
    y = lib.nn.functional.gelu(x, approximate=approximate)
    y.backward(g)
    return y.detach().numpy(), x.grad.numpy()


GELU_SHAPES = [(7, 13), (64, 129), (3, 5000)]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", GELU_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_gelu_backward_split(forced, approximate, dt, shape, layout):
    x0 = (RNG.standard_normal(shape) * 3).astype(dt)
    g0 = RNG.standard_normal(shape).astype(dt)
    y, gx = _gelu_grads(numtorch, x0, g0, dt, approximate, layout)
    y1, gx1 = _whole(_gelu_grads, numtorch, x0, g0, dt, approximate, layout)
    _bits_equal(y, y1)
    _bits_equal(gx, gx1)
    ty, tgx = _gelu_grads(torch, x0, g0, dt, approximate, layout)
    # (float32 exact GELU: numtorch's erf is within a few ulps of torch's, see _gelu_erf_f32)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dt == "float32" else {"rtol": 1e-12, "atol": 1e-13}
    np.testing.assert_allclose(y, ty, **tol)
    np.testing.assert_allclose(gx, tgx, **tol)
    assert gx.strides == tgx.strides or gx.flags.c_contiguous == tgx.flags.c_contiguous


def test_gelu_backward_product_splits(forced):
    """The float32 slope path does fan out (the forward kept the slope)."""
    x = numtorch.tensor(RNG.standard_normal((40, 50)).astype(np.float32), requires_grad=True)
    y = numtorch.nn.functional.gelu(x)
    before = len(forced)
    y.backward(numtorch.ones_like(y))
    assert len(forced) > before


def test_gelu_backward_double_backward(forced):
    """With create_graph the backward op is recorded, and its own gradient still matches."""
    x0 = RNG.standard_normal((30, 40)).astype(np.float32)
    res = []
    for lib in (numtorch, torch):
        x = lib.tensor(x0, requires_grad=True)
        y = lib.nn.functional.gelu(x)
        (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum(), x)
        res.append((gx.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-5)


# ---- clip_grad_norm_'s scaling ----

def _clip(lib, grads0, max_norm, norm_type, dtypes, alias=None):
    params = []
    for i, (g0, dt) in enumerate(zip(grads0, dtypes)):
        p = lib.nn.Parameter(lib.zeros(g0.shape, dtype=getattr(lib, dt)))
        p.grad = lib.tensor(g0, dtype=getattr(lib, dt))
        params.append(p)
    if alias == "same_grad":  # two parameters sharing one gradient tensor
        params[1] = lib.nn.Parameter(lib.zeros_like(params[0]))
        params[1].grad = params[0].grad
    elif alias == "listed_twice":
        params = params + params[:1]
    elif alias == "view_grad":  # a gradient that is a view of another's
        params[1].grad = params[0].grad.view(-1)[: params[1].numel()].view(params[1].shape)
    versions = [p.grad._version for p in params]
    total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    bumps = [p.grad._version - v for p, v in zip(params, versions)]
    return float(total), [p.grad.numpy().copy() for p in params], bumps


CLIP_SETS = {
    "mixed_sizes": ([(64, 33), (7,), (129, 5), (1,), (300,)], ["float32"] * 5),
    "dtypes": ([(40, 40), (17,), (33, 9)], ["float32", "float64", "float32"]),
    "single": ([(257, 3)], ["float32"]),
}


@pytest.mark.parametrize("name", sorted(CLIP_SETS))
@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
@pytest.mark.parametrize("alias", [None, "same_grad", "listed_twice", "view_grad"])
def test_clip_grad_norm_split(forced, name, norm_type, alias):
    shapes, dtypes = CLIP_SETS[name]
    if alias is not None and len(shapes) < 2:
        pytest.skip("needs two parameters")
    if alias == "view_grad" and np.prod(shapes[1]) > np.prod(shapes[0]):
        pytest.skip("the view must fit")
    grads0 = [(RNG.standard_normal(s) * 5).astype(dt) for s, dt in zip(shapes, dtypes)]
    if alias in ("same_grad", "view_grad"):  # (one tensor stands for two parameters)
        dtypes = [dtypes[0]] * len(dtypes)
        grads0 = [g.astype(dtypes[0]) for g in grads0]
    n_total, n_grads, n_bumps = _clip(numtorch, grads0, 1.0, norm_type, dtypes, alias)
    w_total, w_grads, w_bumps = _whole(_clip, numtorch, grads0, 1.0, norm_type, dtypes, alias)
    assert n_total == w_total
    for a, b in zip(n_grads, w_grads):
        _bits_equal(a, b)
    assert n_bumps == w_bumps
    t_total, t_grads, t_bumps = _clip(torch, grads0, 1.0, norm_type, dtypes, alias)
    assert n_total == pytest.approx(t_total, rel=1e-5)
    for a, b in zip(n_grads, t_grads):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-7)
    assert n_bumps == t_bumps


def test_clip_grad_norm_fans_out(forced):
    """Several plain gradients are scaled in one fan-out."""
    grads0 = [RNG.standard_normal((50, 20)).astype(np.float32) * 9 for _ in range(4)]
    before = len(forced)
    _clip(numtorch, grads0, 0.5, 2.0, ["float32"] * 4)
    assert len(forced) > before


def test_clip_grad_norm_no_clip_needed(forced):
    """A total norm under max_norm scales by 1 (torch's clamped coefficient): unchanged bits."""
    grads0 = [RNG.standard_normal((20, 20)).astype(np.float32) * 1e-3 for _ in range(3)]
    _, n_grads, _ = _clip(numtorch, grads0, 10.0, 2.0, ["float32"] * 3)
    _, t_grads, _ = _clip(torch, grads0, 10.0, 2.0, ["float32"] * 3)
    for a, b in zip(n_grads, t_grads):
        np.testing.assert_array_equal(a, b)


# ---- the linear layer's bias add on its GEMM's output ----

def _linear(lib, x0, w0, b0, dt, layout):
    cast = getattr(lib, dt)
    x = lib.tensor(x0).to(cast)
    w = lib.tensor(w0).to(cast).requires_grad_(True)
    b = lib.tensor(b0).to(cast).requires_grad_(True)
    if layout == "permuted":  # (L, N, E) seen as a batch-first view, as MultiheadAttention makes
        x = x.transpose(0, 1)
    x.requires_grad_(True)
    y = lib.nn.functional.linear(x, w, b)
    y.float().square().sum().backward()
    return (y.detach().float().numpy(), x.grad.float().numpy(), w.grad.float().numpy(),
            b.grad.float().numpy(), y.stride())


LINEAR_SHAPES = [(37, 24), (5, 9, 24), (3, 4, 6, 24)]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", LINEAR_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_linear_bias_split(forced, dt, shape, layout):
    if layout == "permuted" and len(shape) < 3:
        pytest.skip("needs batch dims")
    x0 = RNG.standard_normal(shape).astype(np.float32)
    w0 = (RNG.standard_normal((19, shape[-1])) / 5).astype(np.float32)
    b0 = RNG.standard_normal(19).astype(np.float32) * 3
    got = _linear(numtorch, x0, w0, b0, dt, layout)
    whole = _whole(_linear, numtorch, x0, w0, b0, dt, layout)
    for a, c in zip(got[:4], whole[:4]):
        _bits_equal(a, c)
    assert got[4] == whole[4]
    ref = _linear(torch, x0, w0, b0, dt, layout)
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 2e-2}[dt]
    for a, c in zip(got[:4], ref[:4]):
        np.testing.assert_allclose(a, c, rtol=tol, atol=tol * max(1.0, float(np.abs(c).max())))
    if layout == "contiguous":  # (a permuted input's output keeps its layout in numtorch,
        assert got[4] == ref[4]  # where torch's is row-major: as before this split)


def test_linear_bias_add_fans_out(forced):
    x = numtorch.tensor(RNG.standard_normal((40, 16)).astype(np.float32))
    lin = numtorch.nn.Linear(16, 30)
    before = len(forced)
    with numtorch.no_grad():
        y = lin(x)
    assert len(forced) > before
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intraop, "parts", lambda n, unit=1: 1)
        with numtorch.no_grad():
            y1 = lin(x)
    _bits_equal(y.numpy(), y1.numpy())
