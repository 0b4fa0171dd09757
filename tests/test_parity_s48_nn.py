"""Session 48 NN parity tests: oracle comparisons with real torch at test time."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch
import numtorch.nn.functional as NF


def _nt(t, grad=False):
    out = numtorch.tensor(t.detach().float().numpy()).to(getattr(numtorch, str(t.dtype)[6:]))
    return out.requires_grad_() if grad else out


def _np(t):
    return t.detach().float().numpy()


def _ulps(ref, got, dtype):
    """Largest difference in units of the reference's last place (dtype float16/bfloat16)."""
    ref, got = _np(ref), _np(got)
    bits = 10 if dtype == torch.float16 else 7
    tiny = 2.0 ** -14 if dtype == torch.float16 else 2.0 ** -126
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(ref), tiny))) - bits)
    return float((np.abs(ref - got) / ulp).max()) if ref.size else 0.0


CONV_CASES = [
    # N, C, S, O, k, stride, pad, dilation, groups, nd
    (2, 16, 10, 32, 3, 1, 1, 1, 1, 2),
    (2, 4, 9, 6, 3, 2, 0, 1, 2, 2),
    (3, 8, 11, 8, 3, 1, 2, 2, 1, 2),
    (2, 8, 10, 8, 3, 1, 1, 1, 8, 2),
    (2, 32, 20, 16, 1, 2, 0, 1, 1, 2),
    (2, 8, 30, 16, 5, 2, 2, 1, 1, 1),
    (2, 4, 6, 8, 3, 2, 1, 1, 1, 3),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "-".join(map(str, c)))
def test_conv_half_gradients(case, dtype):
    n, c, s, o, k, st, p, d, g, nd = case
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn((n, c) + (s,) * nd, generator=gen).to(dt).requires_grad_()
    w = torch.randn((o, c // g) + (k,) * nd, generator=gen).to(dt).requires_grad_()
    b = torch.randn(o, generator=gen).to(dt).requires_grad_()
    conv = getattr(torch.nn.functional, f"conv{nd}d")
    y = conv(x, w, b, st, p, d, g)
    go = torch.randn(y.shape, generator=gen).to(dt)
    ref = torch.autograd.grad(y, (x, w, b), go)
    xs, ws, bs = _nt(x, True), _nt(w, True), _nt(b, True)
    ys = getattr(NF, f"conv{nd}d")(xs, ws, bs, st, p, d, g)
    got = numtorch.autograd.grad(ys, (xs, ws, bs), _nt(go))
    assert _ulps(y, ys, dt) <= 1
    for r, m in zip(ref, got):
        assert str(m.dtype) == str(r.dtype)
        # input and bias gradients round as torch's do; the weight gradient's 64-lane sums
        # may differ in an intermediate float16 rounding on a few values
        assert _ulps(r, m, dt) <= 2
    if dt == torch.float16:
        assert np.array_equal(_np(ref[0]), _np(got[0]))
        assert np.array_equal(_np(ref[2]), _np(got[2]))
        assert (_np(ref[1]) != _np(got[1])).mean() < 0.01


@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose_half(bias):
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(2, 16, 5, 5, generator=gen).half().requires_grad_()
    w = torch.randn(16, 8, 3, 3, generator=gen).half().requires_grad_()
    b = torch.randn(8, generator=gen).half().requires_grad_() if bias else None
    y = torch.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1)
    go = torch.randn(y.shape, generator=gen).half()
    ins = (x, w) + ((b,) if bias else ())
    ref = torch.autograd.grad(y, ins, go)
    xs, ws = _nt(x, True), _nt(w, True)
    bs = _nt(b, True) if bias else None
    ys = NF.conv_transpose2d(xs, ws, bs, 2, 1, 1)
    got = numtorch.autograd.grad(ys, (xs, ws) + ((bs,) if bias else ()), _nt(go))
    assert np.array_equal(_np(y), _np(ys))
    # the input gradient is a float32 sum rounded once (torch's summation order is not
    # emulated: within a unit of the largest value); weight and bias gradients match
    assert np.abs(_np(ref[0]) - _np(got[0])).max() <= 2.0 ** -10 * np.abs(_np(ref[0])).max()
    assert (_np(ref[1]) != _np(got[1])).mean() < 0.01
    assert _ulps(ref[1], got[1], torch.float16) <= 2
    if bias:
        assert np.array_equal(_np(ref[2]), _np(got[2]))


def test_conv_half_double_backward():
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 4, 6, 6, generator=gen).half().requires_grad_()
    w = torch.randn(6, 4, 3, 3, generator=gen).half().requires_grad_()
    y = torch.nn.functional.conv2d(x, w, padding=1)
    gx, gw = torch.autograd.grad(y.float().pow(2).sum(), (x, w), create_graph=True)
    xs, ws = _nt(x, True), _nt(w, True)
    ys = NF.conv2d(xs, ws, padding=1)
    gxs, gws = numtorch.autograd.grad(ys.float().pow(2).sum(), (xs, ws), create_graph=True)
    assert _ulps(gx, gxs, torch.float16) <= 2
    assert _ulps(gw, gws, torch.float16) <= 2


SDPA_CASES = [
    # B, H, L, S, E, causal, mask
    (2, 2, 8, 8, 16, False, None),
    (1, 4, 16, 12, 32, False, "float"),
    (2, 2, 10, 10, 8, True, None),
    (1, 2, 5, 7, 4, False, "bool"),
    (1, 2, 70, 12, 16, False, None),  # dk/dv summed over 32-query blocks
    (1, 1, 8, 600, 8, False, None),  # dq over 512-key blocks, online softmax
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", SDPA_CASES, ids=lambda c: "-".join(map(str, c)))
def test_sdpa_half_gradients(case, dtype):
    b, h, L, S, E, causal, mask = case
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(4)
    q = torch.randn(b, h, L, E, generator=gen).to(dt).requires_grad_()
    k = torch.randn(b, h, S, E, generator=gen).to(dt).requires_grad_()
    v = torch.randn(b, h, S, E, generator=gen).to(dt).requires_grad_()
    m = None
    if mask == "float":
        m = torch.randn(L, S, generator=gen).to(dt)
    elif mask == "bool":
        m = torch.rand(L, S, generator=gen) > 0.3
        m[1] = False  # a query that sees no key
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
    go = torch.randn(y.shape, generator=gen).to(dt)
    ref = torch.autograd.grad(y, (q, k, v), go)
    qs, ks, vs = _nt(q, True), _nt(k, True), _nt(v, True)
    ms = None if m is None else numtorch.tensor(m.numpy()) if mask == "bool" else _nt(m)
    ys = NF.scaled_dot_product_attention(qs, ks, vs, attn_mask=ms, is_causal=causal)
    got = numtorch.autograd.grad(ys, (qs, ks, vs), _nt(go))
    assert type(ys.grad_fn).__name__ == type(y.grad_fn).__name__
    scale = np.abs(_np(y)).max()
    # exact up to the float32 order of the sums (torch's vectorised exp is not emulated:
    # with 16 or more keys a weight may round the other way)
    tol = 2.0 ** (-10 if dt == torch.float16 else -7) * (1 if S < 16 else 4)
    assert np.abs(_np(y) - _np(ys)).max() <= tol * scale
    for r, g in zip(ref, got):
        assert str(g.dtype) == str(r.dtype)
        assert np.abs(_np(r) - _np(g)).max() <= 2 * tol * max(np.abs(_np(r)).max(), 1e-3)
        if S < 16:  # (a fully cancelling ds may keep float32 noise: a query seeing one key)
            assert (_np(r) != _np(g)).mean() < 0.05


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (8, 16, 7, 7), (2, 5), (3, 6, 10)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_half_training_gradients(shape, affine):
    gen = torch.Generator().manual_seed(5)
    c = shape[1]
    x = (torch.randn(shape, generator=gen) * 3 + 1).half().requires_grad_()
    w = torch.randn(c, generator=gen).half().requires_grad_() if affine else None
    b = torch.randn(c, generator=gen).half().requires_grad_() if affine else None
    rm, rv = torch.randn(c, generator=gen).half(), (torch.rand(c, generator=gen) + 0.5).half()
    rms, rvs = _nt(rm), _nt(rv)
    y = torch.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
    go = torch.randn(y.shape, generator=gen).half()
    ins = (x, w, b) if affine else (x,)
    ref = torch.autograd.grad(y, ins, go)
    xs = _nt(x, True)
    ws, bs = (_nt(w, True), _nt(b, True)) if affine else (None, None)
    ys = NF.batch_norm(xs, rms, rvs, ws, bs, training=True)
    got = numtorch.autograd.grad(ys, (xs, ws, bs) if affine else (xs,), _nt(go))
    assert _ulps(y, ys, torch.float16) <= 1
    assert np.array_equal(_np(rm), _np(rms)) and np.array_equal(_np(rv), _np(rvs))
    for r, g in zip(ref, got):
        assert str(g.dtype) == "torch.float16"
        assert _ulps(r, g, torch.float16) <= 1
        assert (_np(r) != _np(g)).sum() <= max(2, r.numel() // 100)


def test_batch_norm_half_double_backward():
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(6, 3, 4, generator=gen).half().requires_grad_()
    w = torch.randn(3, generator=gen).half().requires_grad_()
    y = torch.nn.functional.batch_norm(x, None, None, w, None, training=True)
    gx, = torch.autograd.grad((y.float() ** 3).sum(), x, create_graph=True)
    gw, = torch.autograd.grad(gx.float().pow(2).sum(), w)
    xs, ws = _nt(x, True), _nt(w, True)
    ys = NF.batch_norm(xs, None, None, ws, None, training=True)
    gxs, = numtorch.autograd.grad((ys.float() ** 3).sum(), xs, create_graph=True)
    gws, = numtorch.autograd.grad(gxs.float().pow(2).sum(), ws)
    assert _ulps(gx, gxs, torch.float16) <= 2
    np.testing.assert_allclose(_np(gws), _np(gw), rtol=2e-2, atol=1e-2)


def _both(fn):
    """fn(lib, F) under torch and numtorch: (result or exception text) each."""
    out = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        try:
            out.append(fn(lib, F))
        except Exception as e:  # noqa: BLE001 - the class and text are compared
            out.append(f"{type(e).__name__}: {e}")
    return out


@pytest.mark.parametrize("ls", [-0.1, -2.5, 0.0, 0.3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_cross_entropy_negative_label_smoothing(ls, weighted, red):
    # torch smooths only above 0: a negative amount is plain cross entropy (class indices)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    t = np.array([0, 3, 2, 1, 3])
    w = np.array([1.0, 2.0, 0.5, 3.0], np.float32)

    def f(lib, F):
        return F.cross_entropy(lib.tensor(x), lib.tensor(t),
                               weight=lib.tensor(w) if weighted else None,
                               label_smoothing=ls, reduction=red).numpy()

    ref, got = _both(f)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("red", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_ignored_targets_zeros_and_zero_weight_mean(red, weighted, loss):
    # ignored targets: +0 loss and gradient; a mean whose counted targets all weigh 0: NaN
    x = np.array([[1.5, -2.0, 0.3], [-0.7, 2.0, 1.0]], np.float32)
    t = np.array([-100, 1])
    w = np.array([1.0, 0.0, 2.0], np.float32)

    def f(lib, F):
        xt = lib.tensor(x, requires_grad=True)
        y = getattr(F, loss)(xt, lib.tensor(t), weight=lib.tensor(w) if weighted else None,
                             reduction=red)
        g, = lib.autograd.grad(y.sum(), xt)
        return y.detach().numpy(), g.numpy()

    (ry, rg), (gy, gg) = _both(f)
    np.testing.assert_array_equal(gy, ry)
    np.testing.assert_array_equal(np.signbit(gy), np.signbit(ry))
    np.testing.assert_array_equal(np.isnan(gg), np.isnan(rg))
    np.testing.assert_allclose(gg, rg, rtol=1e-6)
    if loss == "nll_loss":  # (cross entropy's weight-0 class keeps a -0 there)
        num = ~np.isnan(rg)
        np.testing.assert_array_equal(np.signbit(gg[num]), np.signbit(rg[num]))


def test_weight_norm_deprecation_warns_once_per_program():
    import warnings

    counts = []
    for lib in (torch, numtorch):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("default")
            for _ in range(2):
                lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
            lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))  # another call site
        counts.append(sum(issubclass(r.category, FutureWarning) for r in rec))
    assert counts[0] == counts[1]


def _warning_sites(lib, calls):
    """(category, message) of each warning shown under the default filters."""
    import warnings

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("default")
        calls(lib)
    return [(r.category.__name__, str(r.message)) for r in rec]


def test_legacy_reduction_and_grid_sample_warnings_shown_as_torch():
    def calls(lib):
        F = lib.nn.functional
        lib.nn.MSELoss(size_average=False)
        lib.nn.MSELoss(size_average=False)
        lib.nn.L1Loss(reduce=False)
        F.mse_loss(lib.ones(2), lib.ones(2), size_average=False)
        F.mse_loss(lib.ones(2), lib.ones(2), size_average=False)
        F.l1_loss(lib.ones(2), lib.ones(2), size_average=False)
        F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
        F.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))

    assert _warning_sites(numtorch, calls) == _warning_sites(torch, calls)


@pytest.mark.parametrize("case", [(2, 8, 9, 16, 3, 1), (2, 4, 7, 8, 5, 2), (1, 8, 6, 8, 1, 0)],
                         ids=lambda c: "-".join(map(str, c)))
def test_conv_half_channels_last_input_gradient(case):
    # torch's channels-last float16 col2im adds each input's taps in reverse order
    n, c, s, o, k, p = case
    gen = torch.Generator().manual_seed(7)
    cl = torch.channels_last
    x = torch.randn(n, c, s, s, generator=gen).half().to(memory_format=cl).requires_grad_()
    w = torch.randn(o, c, k, k, generator=gen).half().to(memory_format=cl).requires_grad_()
    y = torch.nn.functional.conv2d(x, w, padding=p)
    go = torch.randn(y.shape, generator=gen).half()
    gx, gw = torch.autograd.grad(y, (x, w), go)
    xs = _nt(x).to(memory_format=numtorch.channels_last).requires_grad_()
    ws = _nt(w).to(memory_format=numtorch.channels_last).requires_grad_()
    ys = NF.conv2d(xs, ws, padding=p)
    gxs, gws = numtorch.autograd.grad(ys, (xs, ws), _nt(go))
    assert (_np(gx) != _np(gxs)).mean() < 0.002
    assert _ulps(gx, gxs, torch.float16) <= 1
    assert _ulps(gw, gws, torch.float16) <= 2
    assert gxs.stride() == gx.stride()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("case", [((2, 3, 6, 6), (2, 2, 2, 2)), ((1, 2, 5, 7), (1, 3, 0, 2)),
                                  ((3, 4, 4), (3, 1, 2, 1)),
                                  ((1, 2, 4, 4, 5), (1, 1, 2, 0, 1, 1))],
                         ids=lambda c: "x".join(map(str, c[0])) + "-" + "".join(map(str, c[1])))
def test_pad_gradient_added_in_torch_order(case, mode, dtype):
    shape, pad = case
    gen = torch.Generator().manual_seed(8)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, generator=gen).to(dt).requires_grad_()
    y = torch.nn.functional.pad(x, pad, mode=mode)
    go = torch.randn(y.shape, generator=gen).to(dt)
    g, = torch.autograd.grad(y, x, go)
    xs = _nt(x, True)
    ys = NF.pad(xs, pad, mode=mode)
    gs, = numtorch.autograd.grad(ys, xs, _nt(go))
    assert np.array_equal(_np(y), _np(ys))
    assert np.array_equal(_np(g), _np(gs))
    assert ys.grad_fn.name() == y.grad_fn.name()


def test_pad_gather_double_backward_and_wide_replicate():
    x = torch.arange(12.0).reshape(1, 1, 3, 4).cos().requires_grad_()
    res = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        xt = lib.tensor(x.detach().numpy()).requires_grad_()
        y = F.pad(xt, (1, 2, 2, 1), mode="reflect")
        gx, = lib.autograd.grad((y ** 3).sum(), xt, create_graph=True)
        gg, = lib.autograd.grad(gx.sum(), xt)
        w = F.pad(xt, (6, 6, 6, 6), mode="replicate")  # (the per-dim fold keeps it)
        gw, = lib.autograd.grad((w * w).sum(), xt)
        res.append((gx.detach().numpy(), gg.numpy(), gw.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(2, 8, 6, 6), (3, 4, 10), (1, 2, 3, 4, 5)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("affine", [True, False])
def test_instance_norm_half(shape, affine):
    # torch: batch norm of (1, N*C, ...) in float16, weight and bias repeated N times
    gen = torch.Generator().manual_seed(9)
    c = shape[1]
    x = (torch.randn(shape, generator=gen) * 2 + 0.5).half().requires_grad_()
    w = torch.randn(c, generator=gen).half().requires_grad_() if affine else None
    b = torch.randn(c, generator=gen).half().requires_grad_() if affine else None
    y = torch.nn.functional.instance_norm(x, weight=w, bias=b)
    go = torch.randn(y.shape, generator=gen).half()
    ins = (x, w, b) if affine else (x,)
    ref = torch.autograd.grad(y, ins, go)
    xs = _nt(x, True)
    ws, bs = (_nt(w, True), _nt(b, True)) if affine else (None, None)
    ys = NF.instance_norm(xs, weight=ws, bias=bs)
    got = numtorch.autograd.grad(ys, (xs, ws, bs) if affine else (xs,), _nt(go))
    assert _ulps(y, ys, torch.float16) <= 1
    assert (_np(y) != _np(ys)).sum() <= max(2, y.numel() // 200)
    for r, g in zip(ref, got):
        assert _ulps(r, g, torch.float16) <= 1
        assert (_np(r) != _np(g)).sum() <= max(2, r.numel() // 100)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", [((2, 4, 9, 9), 3, 2, 1, False, True, None),
                                  ((2, 3, 10, 10), 3, 1, 1, False, False, None),
                                  ((1, 2, 7, 8), (3, 2), (2, 1), (1, 0), True, True, None),
                                  ((2, 2, 9, 9), 4, 2, 2, True, False, 3),
                                  ((2, 3, 11), 3, 2, 1, False, True, None)],
                         ids=lambda c: "x".join(map(str, c[0])) + f"-k{c[1]}s{c[2]}")
def test_avg_pool_gradient_added_in_torch_order(case, dtype):
    shape, k, s, p, ceil, cip, div = case
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(10)
    x = torch.randn(shape, generator=gen).to(dt).requires_grad_()
    nd = len(shape) - 2
    kw = {"ceil_mode": ceil, "count_include_pad": cip}
    if nd > 1:
        kw["divisor_override"] = div
    y = getattr(torch.nn.functional, f"avg_pool{nd}d")(x, k, s, p, **kw)
    go = torch.randn(y.shape, generator=gen).to(dt)
    g, = torch.autograd.grad(y, x, go)
    xs = _nt(x, True)
    ys = getattr(NF, f"avg_pool{nd}d")(xs, k, s, p, **kw)
    gs, = numtorch.autograd.grad(ys, xs, _nt(go))
    assert np.array_equal(_np(y), _np(ys))
    assert np.array_equal(_np(g), _np(gs))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
@pytest.mark.parametrize("case", [((2, 4, 9, 9), (3, 4)), ((2, 3, 10, 10), (4, 4)),
                                  ((1, 2, 7, 8), (5, 3)), ((2, 3, 9, 9), (3, 3)),
                                  ((2, 3, 8, 8), (2, None)), ((1, 2, 4, 4), (6, 7)),
                                  ((3, 5, 11), 4), ((1, 2, 4, 6, 6), (2, 3, 4))],
                         ids=lambda c: "x".join(map(str, c[0])) + "-" + str(c[1]))
def test_adaptive_avg_pool_torch_roundings(case, dtype):
    shape, osz = case
    if len(shape) == 5 and dtype in ("float16", "bfloat16"):
        pytest.skip("torch has no 16-bit adaptive_avg_pool3d on the CPU")
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(shape, generator=gen).to(dt).requires_grad_()
    nd = 1 if isinstance(osz, int) else len(osz)
    y = getattr(torch.nn.functional, f"adaptive_avg_pool{nd}d")(x, osz)
    go = torch.randn(y.shape, generator=gen).to(dt)
    g, = torch.autograd.grad(y, x, go)
    xs = _nt(x, True)
    ys = getattr(NF, f"adaptive_avg_pool{nd}d")(xs, osz)
    gs, = numtorch.autograd.grad(ys, xs, _nt(go))
    assert np.array_equal(_np(y), _np(ys))
    assert np.array_equal(_np(g), _np(gs))
    assert ys.grad_fn.name() == y.grad_fn.name()


def test_adaptive_avg_pool_double_backward():
    x = torch.arange(2 * 9 * 7.0).reshape(1, 2, 9, 7).cos().requires_grad_()
    res = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        xt = lib.tensor(x.detach().numpy()).requires_grad_()
        y = F.adaptive_avg_pool2d(xt, (4, 3))
        gx, = lib.autograd.grad((y ** 3).sum(), xt, create_graph=True)
        gg, = lib.autograd.grad((gx ** 2).sum(), xt)
        res.append((gx.detach().numpy(), gg.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("case", [((2, 3, 7, 7), (4, 5)), ((1, 2, 9), 4), ((2, 3, 4, 4), (8, 6)),
                                  ((1, 2, 5, 6, 7), (2, 3, 4))],
                         ids=lambda c: "x".join(map(str, c[0])))
def test_interpolate_area_is_adaptive_avg_pool(case, dtype):
    shape, size = case
    if len(shape) == 5 and dtype == "float16":
        pytest.skip("torch has no 16-bit adaptive_avg_pool3d on the CPU")
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(shape, generator=gen).to(dt).requires_grad_()
    y = torch.nn.functional.interpolate(x, size=size, mode="area")
    go = torch.randn(y.shape, generator=gen).to(dt)
    g, = torch.autograd.grad(y, x, go)
    xs = _nt(x, True)
    ys = NF.interpolate(xs, size=size, mode="area")
    gs, = numtorch.autograd.grad(ys, xs, _nt(go))
    assert np.array_equal(_np(y), _np(ys)) and np.array_equal(_np(g), _np(gs))
    assert ys.grad_fn.name() == y.grad_fn.name()


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("red", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (2, 3, 2, 2, 2)],
                         ids=lambda s: f"{len(s)}d")
def test_nll_node_names_by_rank(shape, red, dtype):
    # torch: ranks other than 4 run through the 2-d kernel, an unreduced result viewed back
    names = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        x = lib.zeros(shape, dtype=getattr(lib, dtype), requires_grad=True)
        t = lib.zeros((shape[0],) + shape[2:], dtype=lib.long)
        names.append((F.nll_loss(x, t, reduction=red).grad_fn.name(),
                      F.cross_entropy(x, t, reduction=red).grad_fn.name()))
    assert names[0] == names[1]


def test_half_paths_with_empty_batch():
    # the emulated float16 convolution, padding, pooling and attention with no samples
    out = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        x = lib.ones(0, 2, 5, 5, dtype=lib.float16, requires_grad=True)
        w = lib.ones(3, 2, 3, 3, dtype=lib.float16, requires_grad=True)
        b = lib.ones(3, dtype=lib.float16, requires_grad=True)
        shapes = [tuple(g.shape) for g in lib.autograd.grad(
            F.conv2d(x, w, b, dilation=2).sum(), (x, w, b))]
        shapes.append(tuple(lib.autograd.grad(F.conv2d(x, w, padding=1).sum(), x)[0].shape))
        shapes.append(tuple(lib.autograd.grad(
            F.pad(x, (1, 1, 1, 1), mode="reflect").sum(), x)[0].shape))
        shapes.append(tuple(lib.autograd.grad(F.adaptive_avg_pool2d(x, (3, 2)).sum(), x)[0].shape))
        q = lib.ones(2, 1, 3, 4, dtype=lib.float16)
        e = lib.ones(2, 1, 0, 4, dtype=lib.float16)
        shapes.append(tuple(F.scaled_dot_product_attention(e, q, q).shape))
        o = F.scaled_dot_product_attention(q, e, e)
        shapes.append((tuple(o.shape), float(o.float().sum())))
        out.append(shapes)
    assert out[0] == out[1]


def test_softmax_module_implicit_dim_warning_shown_as_torch():
    # torch's warning points into its module machinery: once per program, not per call site
    def calls(lib):
        lib.nn.Softmax()(lib.ones(2))
        lib.nn.Softmax()(lib.ones(2))
        lib.nn.LogSoftmax()(lib.ones(2, 3))
        lib.nn.Softmin()(lib.ones(2))

    got, ref = _warning_sites(numtorch, calls), _warning_sites(torch, calls)
    assert got == ref


@pytest.mark.parametrize("osz", [(1, 1), 1, (2, 3)], ids=str)
def test_adaptive_avg_pool_channels_last_gradient_layout(osz):
    # the global case is torch's mean (+ restride): its input gradient is row-major
    strides = []
    for lib, F in ((torch, torch.nn.functional), (numtorch, NF)):
        x = lib.ones(2, 3, 6, 6).to(memory_format=lib.channels_last).requires_grad_()
        y = F.adaptive_avg_pool2d(x, osz)
        g, = lib.autograd.grad(y.sum(), x)
        strides.append((y.stride(), g.stride(), y.grad_fn.name()))
    assert strides[0] == strides[1]
