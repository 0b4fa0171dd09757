"""Session 50 nn/optim parity fixes, each checked against real torch at test time (oracle:
``tests.oracle.same`` runs one lambda on both libraries and compares whatever comes out)."""

import numpy as np
import pytest

from tests.oracle import same

# -- 1. F.linear / nn.Linear on a permuted or expanded input: a row-major result ---------------

_LAYOUTS = {
    "transpose01": lambda t, a: t.from_numpy(a.reshape(5, 9, 24)).transpose(0, 1),
    "permute4d": lambda t, a: t.from_numpy(a[:144].reshape(2, 3, 1, 24).repeat(4, 2)).permute(
        2, 0, 1, 3),
    "expanded": lambda t, a: t.from_numpy(a[:216].reshape(1, 9, 24)).expand(5, 9, 24),
    "channels_last": lambda t, a: t.from_numpy(a[:576].reshape(2, 24, 3, 4)).permute(0, 2, 3, 1),
    "sliced_last": lambda t, a: t.from_numpy(a.reshape(5, 9, 24))[..., ::2],
}


def _linear_layout(t, layout, out_features, bias, grad):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(5 * 9 * 24).astype(np.float32)
    x = _LAYOUTS[layout](t, a)
    in_features = x.shape[-1]
    w = t.from_numpy(rng.standard_normal((out_features, in_features)).astype(np.float32))
    b = t.from_numpy(rng.standard_normal(out_features).astype(np.float32)) if bias else None
    if grad:
        x = x.detach().requires_grad_()
        w.requires_grad_()
    y = t.nn.functional.linear(x, w, b)
    res = [y, tuple(y.stride()), y.is_contiguous()]
    if grad:
        y.backward(t.ones_like(y))
        res += [x.grad, tuple(x.grad.stride()), w.grad]
    return res


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("out_features", [7, 40])
@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_linear_permuted_input_row_major(layout, out_features, bias, grad):
    """torch's linear returns a row-major result whatever the input's layout; numtorch kept a
    permuted input's layout (strides (19, 171, 1) for torch's (95, 19, 1))."""
    same(lambda t: _linear_layout(t, layout, out_features, bias, grad), rtol=1e-5, atol=1e-5)


def test_linear_module_transposed_input_strides():
    def f(t):
        t.manual_seed(0)
        m = t.nn.Linear(24, 19)
        x = t.arange(5 * 9 * 24, dtype=t.float32).reshape(5, 9, 24).transpose(0, 1) / 100
        y = m(x)
        return tuple(y.stride()), y.is_contiguous()
    same(f)


# -- 2. F.interpolate(antialias=True) on float32: torch's weights and rounding, bit for bit -----

_AA_CASES = [
    ((2, 3, 61, 83), {"size": (232, 318), "mode": "bilinear"}),
    ((2, 3, 61, 83), {"size": (232, 318), "mode": "bicubic"}),
    ((2, 3, 61, 83), {"size": (20, 31), "mode": "bilinear"}),
    ((2, 3, 61, 83), {"size": (20, 31), "mode": "bicubic"}),
    ((2, 3, 61, 83), {"size": (232, 318), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 61, 83), {"size": (20, 31), "mode": "bicubic", "align_corners": True}),
    ((1, 2, 40, 50), {"size": (17, 50), "mode": "bicubic"}),
    ((1, 2, 40, 50), {"size": (63, 29), "mode": "bicubic"}),
    ((1, 2, 200, 30), {"size": (13, 41), "mode": "bilinear"}),
    ((1, 3, 48, 64), {"scale_factor": 0.37, "mode": "bilinear"}),
    ((1, 3, 48, 64), {"scale_factor": (0.5, 1.7), "mode": "bicubic"}),
    ((1, 3, 48, 64), {"scale_factor": (0.5, 1.7), "mode": "bicubic",
                      "recompute_scale_factor": True}),
    ((1, 3, 48, 64), {"size": (1, 5), "mode": "bicubic", "align_corners": True}),
]


def _aa_run(t, shape, kw, channels_last=False, grad=False):
    a = np.random.default_rng(sum(shape)).random(shape, dtype=np.float32)
    x = t.from_numpy(a)
    if channels_last:
        x = x.contiguous(memory_format=t.channels_last)
    if grad:
        x.requires_grad_()
    y = t.nn.functional.interpolate(x, antialias=True, **kw)
    if not grad:
        return y, tuple(y.stride())
    y.backward(t.from_numpy(np.cos(np.arange(y.numel(), dtype=np.float32)).reshape(y.shape)))
    return x.grad


@pytest.mark.parametrize("case", range(len(_AA_CASES)))
def test_interpolate_antialias_float32_exact(case):
    """The antialiased float kernel's weights are float32 (step, centre, support, the cubic by
    fused multiply-adds) and each output adds its taps in window order: differed by up to
    ~1e-5 on most values (float64 weights, height first)."""
    shape, kw = _AA_CASES[case]
    same(lambda t: _aa_run(t, shape, kw))


@pytest.mark.parametrize("case", [1, 3, 10])
def test_interpolate_antialias_float32_channels_last_and_grad(case):
    shape, kw = _AA_CASES[case]
    same(lambda t: _aa_run(t, shape, kw, channels_last=True))
    same(lambda t: _aa_run(t, shape, kw, grad=True), rtol=1e-5, atol=1e-6)


def test_interpolate_antialias_inf_pixel_outside_window():
    """A pixel is read only by the windows that hold it: an inf elsewhere spoils no output."""
    def f(t):
        x = t.rand(1, 1, 300, 5, generator=t.Generator().manual_seed(0))
        x[0, 0, 17, 2] = float("inf")
        return t.nn.functional.interpolate(x, size=(7, 5), mode="bicubic", antialias=True)
    same(f)


# -- 3. Module API corners ----------------------------------------------------------------------

def _backward_hook_warning_site(t):
    import warnings
    lin = t.nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda mod, gin, gout: None)
    x = t.ones(4, 3)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = lin(x).sum()
        out.backward()  # the warning names this line
    return [(w.category.__name__, w.filename == __file__, w.lineno) for w in rec]


def test_full_backward_hook_warning_names_the_users_line():
    """The 'no inputs require gradients' warning of a full backward hook pointed into
    numtorch's hook machinery; torch's names the user's backward() call."""
    same(_backward_hook_warning_site)


def _spectral_metadata(t):
    m = t.nn.utils.spectral_norm(t.nn.Linear(5, 4))
    outer = t.nn.Sequential(m, t.nn.utils.spectral_norm(t.nn.Conv1d(2, 3, 2), name="weight"))
    sd = outer.state_dict()
    meta = {k: dict(v) for k, v in sd._metadata.items()}
    t.nn.utils.remove_spectral_norm(m)
    after = {k: dict(v) for k, v in outer.state_dict()._metadata.items()}
    return meta, after, list(sd.keys())


def test_spectral_norm_state_dict_metadata():
    """Old-style spectral_norm records its version in the state dict's metadata
    (``{'spectral_norm': {'weight.version': 1}}``), which torch's loader reads; it was
    missing, and removing the norm drops it again."""
    same(_spectral_metadata)


# -- 4. F.rms_norm of a permuted input: torch's row-major result ---------------------------------

def _rms_permuted(t, layout, k, weight, dtype):
    a = np.random.default_rng(0).standard_normal((4, 6, 7, 33)).astype(np.float32)
    x = t.from_numpy(a)
    x = {"t01": x.transpose(0, 1), "t23": x.transpose(2, 3),
         "cl": x.contiguous(memory_format=t.channels_last)}[layout]
    shape = tuple(x.shape[-k:])
    w = t.from_numpy(np.random.default_rng(1).random(shape).astype(np.float32)) if weight else None
    dt = getattr(t, dtype)
    x = x.to(dt)
    y = t.nn.functional.rms_norm(x, shape, weight=None if w is None else w.to(dt))
    return tuple(x.stride()), tuple(y.stride()), y.dtype, y.float()


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("layout", ["t01", "t23", "cl"])
def test_rms_norm_permuted_input_layout(layout, k, weight, dtype):
    """rms_norm kept a permuted input's layout (torch's result is row-major, a channels-last
    one stays channels-last); a batch-permuted input now also sums its squares in torch's
    order (exact), the others within an ulp (a strided reduction's order)."""
    exact = layout == "t01" or dtype != "float32"
    tol = 0.0 if exact else 1e-6
    same(lambda t: _rms_permuted(t, layout, k, weight, dtype), rtol=tol, atol=tol)


# -- 5. pooling / rrelu / gelu of permuted or broadcast inputs: torch's row-major results --------

def _layout_input(t, layout):
    a = np.random.default_rng(0).standard_normal((4, 6, 8, 10)).astype(np.float32)
    x = t.from_numpy(a)
    return {"t01": x.transpose(0, 1), "t23": x.transpose(2, 3),
            "cl": x.contiguous(memory_format=t.channels_last),
            "expanded": t.from_numpy(a[:1]).expand(4, 6, 8, 10),
            "unbatched_t": x[0].transpose(1, 2)}[layout]


_LAYOUT_FNS = {
    "avg_pool1d": lambda F, x: F.avg_pool1d(x.flatten(2), 3),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 2),
    "avg_pool2d_ceil_pad": lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
    "lp_pool2d": lambda F, x: F.lp_pool2d(x, 2, 2),
    "avg_pool3d": lambda F, x: F.avg_pool3d(x.unsqueeze(2).expand(-1, -1, 2, -1, -1), 2),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True),
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2, return_indices=True),
    "rrelu_eval": lambda F, x: F.rrelu(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "channel_shuffle": lambda F, x: F.channel_shuffle(x, 3),
}


def _layout_result(t, name, layout, grad):
    x = _layout_input(t, layout)
    if grad:
        x = x.detach().requires_grad_()
    out = _LAYOUT_FNS[name](t.nn.functional, x)
    y = out[0] if isinstance(out, tuple) else out
    res = [[tuple(o.stride()) for o in (out if isinstance(out, tuple) else (out,))], out,
           y.grad_fn.name() if grad else None]
    if grad:
        y.sum().backward()
        res.append(x.grad)
    return res


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("layout", ["t01", "t23", "cl", "expanded", "unbatched_t"])
@pytest.mark.parametrize("name", sorted(_LAYOUT_FNS))
def test_permuted_input_result_layout(name, layout, grad):
    """Average (and Lp, adaptive max) pooling and rrelu of a permuted or broadcast input kept
    its layout (or odd strides), GELU of a broadcast one too; torch writes these row-major
    (channels-last stays channels-last, 1-d pooling of a channel-minor input too), so a
    ``.view`` after them failed in numtorch only. channel_shuffle made a channels-last input's
    result row-major (torch keeps channels-last)."""
    if grad and layout == "expanded":
        pytest.skip("a broadcast view cannot be a leaf that requires grad")
    same(lambda t: _layout_result(t, name, layout, grad), rtol=2e-6, atol=1e-6)


_POOL_NODE_CASES = {
    "avg_pool2d": lambda F, x3, x4: F.avg_pool2d(x3, 2),
    "max_pool2d": lambda F, x3, x4: F.max_pool2d(x3, 2),
    "max_pool2d_indices": lambda F, x3, x4: F.max_pool2d(x3, 2, return_indices=True)[0],
    "avg_pool3d": lambda F, x3, x4: F.avg_pool3d(x4, 2),
    "max_pool3d": lambda F, x3, x4: F.max_pool3d(x4, 2),
    "fractional2d_unbatched": lambda F, x3, x4: F.fractional_max_pool2d(x3, 2, output_size=3),
    "fractional2d": lambda F, x3, x4: F.fractional_max_pool2d(x3[None], 2, output_size=3),
    "fractional3d_unbatched": lambda F, x3, x4: F.fractional_max_pool3d(x4, 2, output_size=2),
    "fractional3d": lambda F, x3, x4: F.fractional_max_pool3d(x4[None], 2, output_size=2),
    "avg_pool1d": lambda F, x3, x4: F.avg_pool1d(x3[0], 2),
    "adaptive_max2d": lambda F, x3, x4: F.adaptive_max_pool2d(x3, 3),
}


@pytest.mark.parametrize("case", sorted(_POOL_NODE_CASES))
def test_pool_node_names(case):
    """An unbatched 2-d/3-d pooling showed SqueezeBackward1 (torch's kernels take unbatched
    inputs: AvgPool2DBackward0, MaxPool2DWithIndicesBackward0, ...); fractional max pooling
    showed WindowMaxBackward0 batched or not."""
    def f(t):
        x3 = t.rand(3, 8, 10, generator=t.Generator().manual_seed(0)).requires_grad_()
        x4 = t.rand(3, 4, 6, 8, generator=t.Generator().manual_seed(1)).requires_grad_()
        y = _POOL_NODE_CASES[case](t.nn.functional, x3, x4)
        return y.grad_fn.name(), tuple(y.shape)
    same(f)


_POOL1D = {
    "adaptive_avg_pool1d": lambda F, x, o: F.adaptive_avg_pool1d(x, o),
    "adaptive_max_pool1d": lambda F, x, o: F.adaptive_max_pool1d(x, o, return_indices=True),
    "avg_pool1d": lambda F, x, o: F.avg_pool1d(x, o),
    "max_pool1d": lambda F, x, o: F.max_pool1d(x, o),
}


@pytest.mark.parametrize("size", [1, 3, 10])
@pytest.mark.parametrize("layout", ["channel_minor", "batch_first", "row_major"])
@pytest.mark.parametrize("name", sorted(_POOL1D))
def test_pool1d_result_layout(name, layout, size):
    """1-d pooling runs as 2-d over (N, C, 1, L) in torch: a channel-minor input (a sequence
    batch transposed to (N, C, L), as for global pooling) gives a channel-minor result, any
    other one a row-major result; adaptive 1-d pooling gave row-major, resp. kept odd
    layouts."""
    def f(t):
        a = t.rand(4, 10, 6, generator=t.Generator().manual_seed(0))
        x = {"channel_minor": a.transpose(1, 2), "batch_first": a.permute(2, 0, 1),
             "row_major": a.permute(0, 2, 1).contiguous()}[layout].detach().requires_grad_()
        out = _POOL1D[name](t.nn.functional, x, size)
        y = out[0] if isinstance(out, tuple) else out
        y.backward(t.ones_like(y))
        outs = out if isinstance(out, tuple) else (out,)
        return [tuple(o.stride()) for o in outs], out, y.grad_fn.name(), x.grad
    same(f, rtol=1e-6)  # (a global mean sums a strided dim: an ulp apart)


# -- 6. empty inputs: GroupNorm of an empty batch, RNNs of an empty sequence --------------------

@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape", [(0, 2, 4), (0, 4), (0, 2, 3, 3)])
def test_group_norm_empty_batch(shape, affine):
    """GroupNorm of an empty batch raised 'cannot reshape tensor of 0 elements' (a -1 in the
    grouping reshape); torch returns the empty result and gradients."""
    def f(t):
        x = t.zeros(shape).requires_grad_()
        m = t.nn.GroupNorm(2, shape[1], affine=affine)
        y = m(x)
        y.sum().backward()
        return y, x.grad, y.grad_fn.name(), None if not affine else m.weight.grad
    same(f)


@pytest.mark.parametrize("shape,batch_first", [((0, 2, 3), False), ((2, 0, 3), True),
                                               ((0, 3), False), ((0, 0, 3), False),
                                               ((2, 0, 3), False)])
@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_rnn_empty_sequence_raises(mode, shape, batch_first):
    """An empty sequence returned empty outputs; torch raises 'Expected sequence length to be
    larger than 0 in RNN' (an empty batch still runs)."""
    def f(t):
        t.manual_seed(0)
        m = getattr(t.nn, mode)(3, 4, batch_first=batch_first)
        out = m(t.zeros(shape))
        return out[0].shape
    same(f)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("shapes", [((0, 1, 3, 3), (0, 2, 2, 2)),
                                    ((0, 2, 3, 3, 3), (0, 2, 2, 2, 3)),
                                    ((2, 1, 3, 3), (2, 0, 2, 2)), ((0, 0, 3, 3), (0, 2, 2, 2))])
def test_grid_sample_empty(mode, shapes):
    """grid_sample of an empty batch raised 'cannot reshape tensor of 0 elements' (a -1 in
    the flattening reshape); torch returns the empty result and gradients."""
    shape, gshape = shapes
    if mode == "bicubic" and len(shape) == 5:
        pytest.skip("bicubic is 2-d only")

    def f(t):
        x = t.zeros(shape).requires_grad_()
        grid = t.zeros(gshape).requires_grad_()
        y = t.nn.functional.grid_sample(x, grid, mode=mode, align_corners=False)
        y.sum().backward()
        return y, tuple(y.stride()), y.grad_fn.name(), x.grad, grid.grad
    same(f)


@pytest.mark.parametrize("sizes", [(2, 2, 3, 0), (0, 2, 3, 4), (2, 2, 3, 4)])
def test_bilinear_zero_sizes(sizes):
    """nn.Bilinear with out_features=0 raised 'cannot reshape tensor of 0 elements into shape
    [-1, 0, 3]'; torch returns a (batch, 0) result."""
    n, i1, i2, o = sizes

    def f(t):
        t.manual_seed(0)
        m = t.nn.Bilinear(i1, i2, o)
        a = t.ones(n, i1).requires_grad_()
        y = m(a, t.ones(n, i2))
        y.sum().backward()
        return y, a.grad, m.weight.grad
    same(f, rtol=1e-6)
