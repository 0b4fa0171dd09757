"""Forced intra-op splits of memory-bound passes give the same bits as the whole call, and
torch's values (session 48, perf2).

The splits only happen on large arrays with two free cores; here ``_intraop``'s part count
and core check are patched so every eligible call splits into three parts, and each result is
compared with the same call unsplit (bit for bit) and with torch (at test time). Never timed.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.autograd import inplace as _inplace
from numtorch.ops import _intraop

RNG = np.random.default_rng(48)


@pytest.fixture
def forced(monkeypatch):
    """Every eligible kernel splits in three parts; the fan-outs are counted."""
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "_MIN_PART", 8)
    monkeypatch.setattr(_inplace, "_SPLIT_FROM", 0)
    monkeypatch.setattr(_inplace, "_SPLIT_FUSED", 0)
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


def _cast(a, dt):
    return torch.tensor(a).to(getattr(torch, dt)).float().numpy() if dt == "bfloat16" else \
        a.astype(dt)


def _lib_dtype(lib, dt):
    return getattr(lib, dt)


# ---- in-place updates without a graph (``_ufunc_in_place``) ----

def _inplace_case(lib, case, p0, g0, dt):
    p = lib.tensor(p0).to(_lib_dtype(lib, dt))
    g = lib.tensor(g0).to(_lib_dtype(lib, dt))
    with lib.no_grad():
        if case == "add_alpha":
            p.add_(g, alpha=-0.01)
        elif case == "sub_alpha":
            p.sub_(g, alpha=0.37)
        elif case == "isub_scaled":
            p -= 0.01 * g
        elif case == "imul_scalar":
            p *= 0.999
        elif case == "iadd_tensor":
            p += g
        elif case == "idiv_tensor":
            p /= g.abs() + 1
        elif case == "add_scalar_alpha":
            p.add_(0.25, alpha=3)
        elif case == "broadcast_row":
            p.add_(g[..., :1, :] if p.ndim > 1 else g[:1], alpha=0.5)
        elif case == "view_columns":
            v = p[..., 1::2] if p.ndim > 1 else p[1::2]
            v.mul_(1.5)
            v.add_(g[..., 1::2] if g.ndim > 1 else g[1::2], alpha=-2.0)
        elif case == "transposed_view":
            if p.ndim > 1:
                pt = p.transpose(0, p.ndim - 1)
                pt += g.transpose(0, g.ndim - 1) * 0.5
            else:
                p += g * 0.5
        elif case == "lower_precision_operand":
            p += g.to(lib.float16) if dt != "float16" else g
    return p.to(lib.float32 if dt == "bfloat16" else _lib_dtype(lib, dt)).numpy()


INPLACE_CASES = ["add_alpha", "sub_alpha", "isub_scaled", "imul_scalar", "iadd_tensor",
                 "idiv_tensor", "add_scalar_alpha", "broadcast_row", "view_columns",
                 "transposed_view", "lower_precision_operand"]


@pytest.mark.parametrize("shape", [(37, 53), (5, 7, 11), (1001,), (1, 300), (2, 3, 40, 9)])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", INPLACE_CASES)
def test_inplace_update_split(forced, case, dt, shape):
    p0 = RNG.standard_normal(shape).astype(np.float32)
    g0 = RNG.standard_normal(shape).astype(np.float32)
    split = _inplace_case(numtorch, case, p0, g0, dt)
    if dt in ("float32", "float64") and not (case == "view_columns" and shape[0] == 1):
        assert forced, "never split"
    whole = _whole(_inplace_case, numtorch, case, p0, g0, dt)
    np.testing.assert_array_equal(split, whole)
    ref = _inplace_case(torch, case, p0, g0, dt)
    np.testing.assert_allclose(split, ref, rtol=RTOL[dt], atol=RTOL[dt])


RTOL = {"float32": 1e-6, "float64": 1e-14, "float16": 1e-3, "bfloat16": 8e-3}


def test_inplace_split_happens(forced):
    p = numtorch.randn(64, 32)
    g = numtorch.randn(64, 32)
    with numtorch.no_grad():
        p.add_(g, alpha=-0.1)
    assert forced == [3]


def test_inplace_split_skips_overlapping_operand(forced):
    base = RNG.standard_normal(500).astype(np.float32)
    arr = base.copy()
    # the other operand overlaps self's memory shifted (two from_numpy tensors: not judged
    # as views): parts run in any order would read values another part already wrote
    p = numtorch.from_numpy(arr[:400])
    other = numtorch.from_numpy(arr[100:])
    with numtorch.no_grad():
        p += other
    assert forced == []
    want = base.copy()
    np.add(want[:400], want[100:], out=want[:400])
    np.testing.assert_array_equal(arr, want)


def test_inplace_fused_update_threshold(monkeypatch):
    # a + alpha * b (about four passes) splits from a quarter of a plain update's size
    seen = []
    real = _intraop.split
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: 2 if n * unit >= 400 else 1)
    monkeypatch.setattr(_intraop, "_MIN_PART", 200)
    monkeypatch.setattr(_inplace, "_SPLIT_FROM", 0)
    monkeypatch.setattr(_inplace, "_SPLIT_FUSED", 0)
    monkeypatch.setattr(_intraop, "split", lambda *a: seen.append(a[1:]) or real(*a))
    p0 = RNG.standard_normal((10, 20)).astype(np.float32)
    p, g = numtorch.tensor(p0), numtorch.ones(10, 20)
    with numtorch.no_grad():
        p.add_(g)  # 200 elements, one pass: whole
        assert seen == []
        p.add_(g, alpha=-0.5)  # 200 elements, four passes: split
    assert seen == [(200, 1)]
    np.testing.assert_array_equal(p.numpy(), p0 + 1 - 0.5)


def test_inplace_split_small_tensors_untouched(monkeypatch):
    # at the default threshold a small update never reaches the split
    seen = []
    monkeypatch.setattr(_intraop, "split", lambda *a: seen.append(a))
    p = numtorch.randn(8, 8)
    with numtorch.no_grad():
        p.add_(numtorch.randn(8, 8), alpha=0.5)
        p *= 2.0
    assert seen == []


# ---- LayerNorm rows (``norm_rows``): one block in row parts ----

def _layer_norm(lib, x0, w0, b0, gy0, dt, affine, grads=True):
    x = lib.tensor(x0).to(_lib_dtype(lib, dt)).requires_grad_(grads)
    w = lib.tensor(w0).to(x.dtype).requires_grad_(grads) if affine else None
    b = lib.tensor(b0).to(x.dtype).requires_grad_(grads) if affine else None
    y = lib.nn.functional.layer_norm(x, x0.shape[-1:], w, b, eps=1e-5)
    out = [y.detach().numpy()]
    if grads:
        leaves = [t for t in (x, w, b) if t is not None]
        out += [g.numpy() for g in lib.autograd.grad(y, leaves, lib.tensor(gy0).to(x.dtype))]
    return out


LN_SHAPES = [(3, 67, 130), (201, 130), (130, 256), (1000, 33), (257, 100), (2048, 128)]


def _ln_inputs(shape, shifted_rows):
    x0 = RNG.standard_normal(shape).astype(np.float32)
    if shifted_rows:  # rows whose mean dwarfs their spread: the centred (two-pass) form
        x0.reshape(-1, shape[-1])[5] += 50
    w0 = RNG.standard_normal(shape[-1]).astype(np.float32)
    b0 = RNG.standard_normal(shape[-1]).astype(np.float32)
    gy0 = RNG.standard_normal(shape).astype(np.float32)
    return x0, w0, b0, gy0


@pytest.mark.parametrize("shape", LN_SHAPES)
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shifted_rows", [False, True])
def test_layer_norm_row_parts(forced, shape, dt, affine, shifted_rows):
    x0, w0, b0, gy0 = _ln_inputs(shape, shifted_rows)
    split = _layer_norm(numtorch, x0, w0, b0, gy0, dt, affine)
    assert len(forced) >= 2, "forward and backward should both split"
    whole = _whole(_layer_norm, numtorch, x0, w0, b0, gy0, dt, affine)
    ref = _layer_norm(torch, x0, w0, b0, gy0, dt, affine)
    tol = 2e-4 if dt == "float32" else 1e-10
    for s, w, t in zip(split, whole, ref):
        np.testing.assert_array_equal(s, w)
        np.testing.assert_allclose(s, t, rtol=tol, atol=tol * (1 + np.abs(t).max()))


def test_layer_norm_no_grad_split(forced):
    x0, w0, b0, gy0 = _ln_inputs((300, 96), True)
    split = _layer_norm(numtorch, x0, w0, b0, gy0, "float32", True, grads=False)
    assert forced
    whole = _whole(_layer_norm, numtorch, x0, w0, b0, gy0, "float32", True, False)
    np.testing.assert_array_equal(split[0], whole[0])
    ref = _layer_norm(torch, x0, w0, b0, gy0, "float32", True, grads=False)
    np.testing.assert_allclose(split[0], ref[0], rtol=2e-4, atol=2e-4)


def test_layer_norm_input_grad_only_split(forced):
    # weight and bias frozen: the backward computes the input gradient alone
    x0, w0, b0, gy0 = _ln_inputs((257, 100), False)

    def run(lib):
        x = lib.tensor(x0).requires_grad_(True)
        ln = lib.nn.LayerNorm(100)
        with lib.no_grad():
            ln.weight.copy_(lib.tensor(w0))
            ln.bias.copy_(lib.tensor(b0))
        ln.requires_grad_(False)
        (gx,) = lib.autograd.grad(ln(x), x, lib.tensor(gy0))
        return gx.numpy()

    split = run(numtorch)
    assert len(forced) >= 2
    np.testing.assert_array_equal(split, _whole(run, numtorch))
    np.testing.assert_allclose(split, run(torch), rtol=2e-4, atol=2e-4)


# ---- a + b, a - b, a * b forward (``_intraop.binary``) ----

@pytest.fixture
def forced_binary(forced, monkeypatch):
    from numtorch.ops import elementwise

    monkeypatch.setattr(elementwise, "_SPLIT_FROM", 16)
    return forced


def _binary(lib, case, a0, b0, dt, grad=False):
    a = lib.tensor(a0).to(_lib_dtype(lib, dt)).requires_grad_(grad)
    b = lib.tensor(b0).to(_lib_dtype(lib, dt))
    out = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
           "mul_scalar": lambda: a * 0.37, "rmul_scalar": lambda: 1.7 * a,
           "add_scalar": lambda: a + 0.25, "sub_scalar": lambda: a - 3,
           "add_broadcast": lambda: a + b[..., :1],
           "mul_noncontig": lambda: a.transpose(0, -1) * b.transpose(0, -1),
           "add_mixed": lambda: a + b.double()}[case]()
    y = out.to(lib.float32) if dt == "bfloat16" else out
    return y.detach().numpy()


BINARY_CASES = ["add", "sub", "mul", "mul_scalar", "rmul_scalar", "add_scalar", "sub_scalar",
                "add_broadcast", "mul_noncontig", "add_mixed"]


@pytest.mark.parametrize("shape", [(37, 53), (1001,), (2, 3, 40, 9)])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", BINARY_CASES)
def test_binary_forward_split(forced_binary, case, dt, shape):
    a0 = RNG.standard_normal(shape).astype(np.float32)
    b0 = RNG.standard_normal(shape).astype(np.float32)
    split = _binary(numtorch, case, a0, b0, dt)
    # (bfloat16 arrays, ml_dtypes', keep the whole call; a 16-bit array times a number
    # computes in float32 first)
    if dt != "bfloat16" and (case in ("add", "sub", "mul") or (
            case.endswith("scalar") and dt in ("float32", "float64"))):
        assert forced_binary, "never split"
    whole = _whole(_binary, numtorch, case, a0, b0, dt)
    np.testing.assert_array_equal(split, whole)
    ref = _binary(torch, case, a0, b0, dt)
    assert split.dtype == ref.dtype
    np.testing.assert_array_equal(split, ref)


def test_binary_forward_split_with_grad(forced_binary):
    a0 = RNG.standard_normal((64, 50)).astype(np.float32)
    b0 = RNG.standard_normal((64, 50)).astype(np.float32)

    def run(lib):
        a = lib.tensor(a0).requires_grad_(True)
        b = lib.tensor(b0).requires_grad_(True)
        y = (a * b + a) * 0.5 - b
        ga, gb = lib.autograd.grad(y, (a, b), lib.ones_like(y))
        return y.detach().numpy(), ga.numpy(), gb.numpy()

    split = run(numtorch)
    assert forced_binary
    for s, w, t in zip(split, _whole(run, numtorch), run(torch)):
        np.testing.assert_array_equal(s, w)
        np.testing.assert_array_equal(s, t)


# ---- exact GELU backward: four passes, split from a quarter of the size ----

@pytest.mark.parametrize("shape", [(33, 65), (4, 7, 129)])
@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_gelu_backward_split(forced, shape, dt):
    a0 = (RNG.standard_normal(shape) * 3).astype(np.float32)
    g0 = RNG.standard_normal(shape).astype(np.float32)

    def run(lib):
        x = lib.tensor(a0).to(_lib_dtype(lib, dt)).requires_grad_(True)
        y = lib.nn.functional.gelu(x)
        (gx,) = lib.autograd.grad(y, x, lib.tensor(g0).to(x.dtype))
        return [t.float().detach().numpy() for t in (y, gx)]

    split = run(numtorch)
    assert forced or dt == "bfloat16"  # (bfloat16 takes its own path, whole)
    whole = _whole(run, numtorch)
    for s, w, t in zip(split, whole, run(torch)):
        np.testing.assert_array_equal(s, w)
        np.testing.assert_allclose(s, t, rtol=RTOL[dt] * 2, atol=1e-5 if dt == "float32"
                                   else RTOL[dt])
