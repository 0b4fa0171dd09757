"""The void-item copy of short last-axis runs (``numtorch.backend._run_copy``): the same bytes
and layout as NumPy's own copy, on the paths that take it (``Tensor.contiguous``/``clone``
and the LSTM backward's gate-gradient copy). Correctness only: nothing here is timed."""

import numpy as np
import pytest

import numtorch
from numtorch.backend import _run_copy

torch = pytest.importorskip("torch")


@pytest.fixture
def always(monkeypatch):
    """Every eligible array takes the void-item copy, whatever its size."""
    monkeypatch.setattr(_run_copy, "_MIN_BYTES", 0)
    monkeypatch.setattr(_run_copy, "_PER_RUN_BYTE", 0)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def _special(shape, dtype, seed=0):
    """Values with NaNs (two payloads), infinities and both zeros among normal ones."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-100, 100, shape).astype(dtype)
    a = rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0]).astype(dtype)
    flat[:specials.size] = specials
    if np.dtype(dtype).kind == "f":  # a second NaN payload
        flat[specials.size] = np.frombuffer(
            (np.frombuffer(np.array(np.nan, dtype).tobytes(), np.uint8) | 1).tobytes(), dtype)[0]
    return a


LAYOUTS = [  # (shape of the base, the view taken)
    ((35, 64, 20), lambda a: a.transpose(1, 0, 2)),  # the LSTM's (steps, 4H, B) -> (4H, steps, B)
    ((2, 8, 4, 6), lambda a: a.transpose(0, 2, 1, 3)),  # (B, T, h, d) attention heads
    ((6, 5, 4), lambda a: a[::-1].transpose(1, 0, 2)),  # a negative stride
    ((7, 9, 3), lambda a: a[:, ::2]),  # a step on a middle axis
    ((5, 1, 4), lambda a: np.broadcast_to(a, (5, 6, 4))),  # a stride-0 axis
    ((4, 6, 2), lambda a: a.transpose(2, 0, 1)[..., :, :].swapaxes(0, 1)),  # 2 values a run
    ((3, 4, 5, 8), lambda a: a.transpose(2, 1, 0, 3)[:, 1:]),
]


@pytest.mark.parametrize("case", range(len(LAYOUTS)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "bool",
                                   "complex64", "complex128"])
def test_copy_c_same_bytes_and_layout(always, case, dtype):
    shape, view = LAYOUTS[case]
    a = view(_special(shape, dtype))
    want = np.ascontiguousarray(a)
    got = _run_copy.copy_c(a)
    assert got.flags.c_contiguous and got.flags.owndata and got.flags.writeable
    assert got.dtype == a.dtype and got.shape == a.shape
    assert np.shares_memory(got, a) is False
    assert np.array_equal(_bits(got), _bits(want))


def test_copy_c_took_the_void_path(always, monkeypatch):
    """The cases above do run the void-item copy (a wrong route would not show in values)."""
    seen = []
    real = _run_copy._void_of

    def spy(a):
        v = real(a)
        seen.append(v)
        return v

    monkeypatch.setattr(_run_copy, "_void_of", spy)
    a = np.arange(35 * 64 * 20, dtype=np.float32).reshape(35, 64, 20).transpose(1, 0, 2)
    np.testing.assert_array_equal(_run_copy.copy_c(a), np.ascontiguousarray(a))
    assert seen and seen[-1] == np.dtype((np.void, 80))


@pytest.mark.parametrize("make", [
    lambda: np.arange(24, dtype=np.float32).reshape(4, 6),  # already row-major
    lambda: np.arange(24, dtype=np.float32).reshape(4, 6).T,  # last axis strided
    lambda: np.arange(24, dtype=np.float32).reshape(24, 1)[::2],  # one value a run
    lambda: np.arange(400, dtype=np.float64).reshape(2, 200)[:, ::-1],  # negative last stride
    lambda: np.arange(2 * 3 * 40, dtype=np.float64).reshape(3, 2, 40).transpose(1, 0, 2),  # 320 B
    lambda: np.empty((0, 3, 4), np.float32).transpose(1, 0, 2),  # empty
    lambda: np.array(3.5, np.float32),  # 0-d
    lambda: np.array([[[1, None], [2, 3]], [[4, 5], [6, 7]]], dtype=object).transpose(1, 0, 2),
])
def test_copy_c_other_arrays_as_numpy(always, make):
    a = make()
    got = _run_copy.copy_c(a)
    assert got.flags.c_contiguous and got.shape == a.shape and got.dtype == a.dtype
    assert got is not a
    if a.dtype != object:
        np.testing.assert_array_equal(got, a)
    else:
        assert got.tolist() == a.tolist()
    same = _run_copy.contiguous(a)
    assert (same is a) == bool(a.flags.c_contiguous)


def test_defaults_leave_small_arrays_alone(monkeypatch):
    """Without the fixture: a small array never reaches the void path, a large one does."""
    seen = []
    real = _run_copy._void_of
    monkeypatch.setattr(_run_copy, "_void_of", lambda a: seen.append(a.nbytes) or real(a))
    small = np.zeros((4, 3, 5), np.float32).transpose(1, 0, 2)
    _run_copy.copy_c(small)
    assert seen == []
    big = np.zeros((35, 512, 20), np.float32).transpose(1, 0, 2)
    out = _run_copy.copy_c(big)
    assert seen == [big.nbytes] and out.flags.c_contiguous


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_contiguous_and_grad_against_torch(always, dtype):
    """``y.transpose(1, 2).contiguous()`` on attention-shaped heads: values, strides and the
    gradient through it as torch's."""
    base = np.random.default_rng(1).standard_normal((2, 4, 8, 6)).astype(dtype)
    w = np.random.default_rng(2).standard_normal((2, 8, 4, 6)).astype(dtype)
    outs = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(base.copy()).requires_grad_(True)
        y = x.transpose(1, 2).contiguous()
        (y * lib.from_numpy(w)).sum().backward()
        outs.append((y.detach().numpy(), y.stride(), y.is_contiguous(), x.grad.numpy()))
    (yn, sn, cn, gn), (yt, st, ct, gt) = outs
    np.testing.assert_array_equal(yn, yt)
    assert sn == st and cn == ct
    np.testing.assert_array_equal(gn, gt)


def test_clone_keeps_layout_rules(always):
    """``clone()`` of a dense permuted tensor keeps its strides (preserve_format, not this
    path); ``clone(memory_format=torch.contiguous_format)`` takes it: both as torch."""
    base = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    for fmt in (None, "contiguous_format"):
        got = []
        for lib in (numtorch, torch):
            v = lib.from_numpy(base.copy()).permute(1, 0, 2)
            c = v.clone() if fmt is None else v.clone(memory_format=getattr(lib, fmt))
            got.append((c.numpy().tolist(), c.stride()))
        assert got[0] == got[1]


@pytest.mark.parametrize("batch_first", [False, True])
def test_lstm_backward_same_bits_either_copy(monkeypatch, batch_first):
    """The LSTM's gradients are the same bits whether the gate-gradient copy is NumPy's or
    the void-item one, and match torch's within float32 rounding."""
    rng = np.random.default_rng(3)
    x_np = rng.standard_normal((7, 5, 6) if not batch_first else (5, 7, 6)).astype(np.float32)

    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(6, 8, batch_first=batch_first)
        x = lib.from_numpy(x_np.copy()).requires_grad_(True)
        out, _ = m(x)
        (out * out).sum().backward()
        return [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in m.parameters()]

    monkeypatch.setattr(_run_copy, "_MAX_RUN", 0)  # NumPy's copy everywhere
    plain = run(numtorch)
    monkeypatch.setattr(_run_copy, "_MAX_RUN", 128)
    monkeypatch.setattr(_run_copy, "_MIN_BYTES", 0)
    monkeypatch.setattr(_run_copy, "_PER_RUN_BYTE", 0)
    seen = []
    real = _run_copy._void_of
    monkeypatch.setattr(_run_copy, "_void_of", lambda a: seen.append(a.shape) or real(a))
    runs = run(numtorch)
    assert seen  # the void path ran
    for a, b in zip(plain, runs):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
    for a, b in zip(runs, run(torch)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


RESHAPES = [  # (base shape, permutation, target shape)
    ((2, 4, 8, 6), (0, 2, 1, 3), (2, 8, 24)),  # attention heads back to (B, T, C): a copy
    ((2, 4, 8, 6), (0, 2, 1, 3), (2, 8, 4, 3, 2)),  # the last dim split: a view
    ((2, 4, 8, 6), (0, 2, 1, 3), (16, 4, 6)),  # leading dims merged: a copy
    ((5, 3, 4), (1, 0, 2), (3, 5, 4, 1)),  # a size-1 dim added: a view
    ((5, 3, 4), (1, 0, 2), (60,)),
    ((6, 4), (1, 0), (24,)),  # a strided last dim: NumPy's copy
]


@pytest.mark.parametrize("case", range(len(RESHAPES)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_reshape_of_permuted_against_torch(always, monkeypatch, case, dtype):
    """``reshape`` of a permuted tensor through the run copy (every size): values, strides,
    whether the result aliases the input (written through), and the gradient, as torch's."""
    from numtorch.ops import shape as shape_ops

    monkeypatch.setattr(shape_ops, "_RUN_COPY_MIN", 0)
    base_shape, perm, target = RESHAPES[case]
    base = _special(base_shape, dtype, seed=case)
    if dtype != "int64":
        base = np.nan_to_num(base)  # (the gradient check multiplies)
    got = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(base.copy())
        floating = x.dtype.is_floating_point
        if floating:
            x.requires_grad_(True)
        p = x.permute(*perm)
        y = p.reshape(target)
        vals = y.detach().numpy().copy()
        grad = None
        if floating:
            w = lib.from_numpy(np.arange(y.numel(), dtype=dtype).reshape(target))
            (y * w).sum().backward()
            grad = x.grad.numpy().copy()
        with lib.no_grad():
            src = lib.from_numpy(np.zeros(base_shape, dtype))
            ys = src.permute(*perm).reshape(target)
            src.view(-1)[0] = 7  # seen through a view, not through a copy
            aliases = bool((ys == 7).any())
        got.append((vals, y.stride(), grad, aliases))
    (vn, sn, gn, an), (vt, st, gt, at) = got
    assert np.array_equal(vn.view(np.uint8), vt.view(np.uint8))
    assert sn == st and an == at
    if gn is not None:
        np.testing.assert_array_equal(gn, gt)


def test_view_of_permuted_still_refuses(always, monkeypatch):
    from numtorch.ops import shape as shape_ops

    monkeypatch.setattr(shape_ops, "_RUN_COPY_MIN", 0)
    errs = []
    for lib in (numtorch, torch):
        x = lib.arange(2 * 4 * 8 * 6, dtype=lib.float32).reshape(2, 4, 8, 6)
        with pytest.raises(RuntimeError) as e:
            x.transpose(1, 2).view(2, 8, 24)
        errs.append(str(e.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("xs, o, groups, stride", [((4, 8, 3, 3), 6, 1, 1), ((3, 8, 4, 4), 8, 2, 1),
                                                   ((2, 6, 5, 5), 4, 1, 2),
                                                   ((2, 64, 3, 3), 64, 1, 1),  # one dW GEMM
                                                   ((2, 64, 4, 4), 32, 2, 1)])
def test_pointwise_conv_small_maps_same_bits(monkeypatch, xs, o, groups, stride):
    """1x1 convolutions on maps under 32 positions (position-major copies of x, y and gy):
    output and gradients the same bits with either copy, and as torch's within float32
    rounding."""
    rng = np.random.default_rng(4)
    x_np = rng.standard_normal(xs).astype(np.float32)
    w_np = rng.standard_normal((o, xs[1] // groups, 1, 1)).astype(np.float32)
    g_np = None

    def run(lib):
        nonlocal g_np
        x = lib.from_numpy(x_np.copy()).requires_grad_(True)
        w = lib.from_numpy(w_np.copy()).requires_grad_(True)
        y = lib.nn.functional.conv2d(x, w, stride=stride, groups=groups)
        if g_np is None:
            g_np = rng.standard_normal(tuple(y.shape)).astype(np.float32)
        y.backward(lib.from_numpy(g_np.copy()))
        return [y.detach().numpy().copy(), x.grad.numpy().copy(), w.grad.numpy().copy()]

    monkeypatch.setattr(_run_copy, "_MAX_RUN", 0)
    plain = run(numtorch)
    monkeypatch.setattr(_run_copy, "_MAX_RUN", 128)
    monkeypatch.setattr(_run_copy, "_MIN_BYTES", 0)
    monkeypatch.setattr(_run_copy, "_PER_RUN_BYTE", 0)
    seen = []
    real = _run_copy._void_of
    monkeypatch.setattr(_run_copy, "_void_of", lambda a: seen.append(a.shape) or real(a))
    runs = run(numtorch)
    assert seen
    for a, b in zip(plain, runs):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
    for a, b in zip(runs, run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_reshape_without_numpy_no_copy_reshape(always, monkeypatch):
    """Before NumPy 2.1 (no ``reshape(copy=False)``) a strided reshape keeps NumPy's own
    reshape: the same values and view-or-copy outcome."""
    from numtorch.ops import shape as shape_ops

    monkeypatch.setattr(shape_ops, "_RUN_COPY_MIN", 0)
    base = np.arange(2 * 4 * 8 * 6, dtype=np.float32).reshape(2, 4, 8, 6)
    got = {}
    for flag in (False, True):
        monkeypatch.setattr(shape_ops, "_RESHAPE_NO_COPY", flag)
        src = numtorch.from_numpy(base.copy())
        copied = src.transpose(1, 2).reshape(2, 8, 24)
        viewed = src.transpose(1, 2).reshape(2, 8, 4, 3, 2)
        src.view(-1)[0] = -1
        got[flag] = (copied.numpy().copy(), copied.stride(), viewed.numpy().copy(),
                     viewed.stride())
    for a, b in zip(got[False], got[True]):
        if isinstance(a, tuple):
            assert a == b
        else:
            assert np.array_equal(a, b)
    assert got[True][0].ravel()[0] == 0 and got[True][2].ravel()[0] == -1
