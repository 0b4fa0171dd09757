"""channels_last against torch: the strides of outputs of convolution, pooling, resampling,
dropout, padding and normalisation on channels-last inputs (and channels-last weights), the
strides of the gradients leaves receive (torch's layout contract), and equal values."""

import numpy as np
import pytest
import torch

import numtorch


def _run(lib, build, seed=0):
    """``build(lib, x, x5)`` on channels-last inputs made from the same numbers in both
    libraries; returns (outputs, input gradients, parameter gradients)."""
    rng = np.random.default_rng(seed)
    a4 = rng.standard_normal((2, 3, 6, 7))
    a5 = rng.standard_normal((2, 3, 4, 5, 6))
    x = lib.from_numpy(a4).to(memory_format=lib.channels_last).requires_grad_()
    x5 = lib.from_numpy(a5).to(memory_format=lib.channels_last_3d).requires_grad_()
    lib.manual_seed(0)
    out = build(lib, x, x5)
    outs = out if isinstance(out, tuple) else (out,)
    y = outs[0]
    if y.requires_grad:
        g = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape)))
        y.backward(g.to(y.dtype))
    return outs, (x.grad, x5.grad)


def _weights(lib, *shape, fmt=None):
    w = lib.from_numpy(np.random.default_rng(2).standard_normal(shape))
    if fmt is not None:
        w = w.to(memory_format=getattr(lib, fmt))
    return w.requires_grad_()


def _conv(lib, x, x5, **kw):
    return lib.nn.functional.conv2d(x, _weights(lib, 4, 3, 3, 3), padding=1, **kw)


CASES = {
    "conv2d": _conv,
    "conv2d_stride_groups": lambda lib, x, x5: lib.nn.functional.conv2d(
        x, _weights(lib, 6, 1, 3, 3), stride=2, groups=3),
    "conv2d_1x1": lambda lib, x, x5: lib.nn.functional.conv2d(x, _weights(lib, 5, 3, 1, 1)),
    "conv2d_cl_weight_only": lambda lib, x, x5: lib.nn.functional.conv2d(
        x.detach().contiguous(), _weights(lib, 4, 3, 2, 2, fmt="channels_last")),
    "conv3d": lambda lib, x, x5: lib.nn.functional.conv3d(x5, _weights(lib, 4, 3, 2, 2, 2)),
    "conv_transpose2d": lambda lib, x, x5: lib.nn.functional.conv_transpose2d(
        x, _weights(lib, 3, 4, 3, 3), stride=2, output_padding=1),
    "max_pool2d": lambda lib, x, x5: lib.nn.functional.max_pool2d(x, 2),
    "max_pool2d_indices": lambda lib, x, x5: lib.nn.functional.max_pool2d(
        x, 3, 2, 1, return_indices=True),
    "max_pool3d": lambda lib, x, x5: lib.nn.functional.max_pool3d(x5, 2),
    "avg_pool2d": lambda lib, x, x5: lib.nn.functional.avg_pool2d(x, 3, 2, 1),
    "avg_pool3d_row_major": lambda lib, x, x5: lib.nn.functional.avg_pool3d(x5, 2),
    "adaptive_avg_pool2d": lambda lib, x, x5: lib.nn.functional.adaptive_avg_pool2d(x, (4, 3)),
    "adaptive_avg_pool2d_global": lambda lib, x, x5: lib.nn.functional.adaptive_avg_pool2d(
        x, 1),
    "adaptive_avg_pool3d_row_major": lambda lib, x, x5:
        lib.nn.functional.adaptive_avg_pool3d(x5, 2),
    "adaptive_max_pool2d": lambda lib, x, x5: lib.nn.functional.adaptive_max_pool2d(
        x, (4, 3), return_indices=True),
    "max_unpool2d": lambda lib, x, x5: lib.nn.functional.max_unpool2d(
        *lib.nn.functional.max_pool2d(x[..., :6], 2, return_indices=True), 2),
    "interpolate_nearest": lambda lib, x, x5: lib.nn.functional.interpolate(x, scale_factor=2),
    "interpolate_bilinear": lambda lib, x, x5: lib.nn.functional.interpolate(
        x, size=(5, 9), mode="bilinear"),
    "interpolate_bicubic_aa": lambda lib, x, x5: lib.nn.functional.interpolate(
        x, size=(3, 4), mode="bicubic", antialias=True),
    "interpolate_area": lambda lib, x, x5: lib.nn.functional.interpolate(
        x, size=(4, 4), mode="area"),
    "interpolate_trilinear": lambda lib, x, x5: lib.nn.functional.interpolate(
        x5, scale_factor=2, mode="trilinear"),
    "interpolate_nearest3d": lambda lib, x, x5: lib.nn.functional.interpolate(
        x5, scale_factor=2),
    "upsample_module": lambda lib, x, x5: lib.nn.UpsamplingBilinear2d(scale_factor=2)(x),
    "dropout": lambda lib, x, x5: lib.nn.functional.dropout(x, 0.4),
    "dropout_p1": lambda lib, x, x5: lib.nn.functional.dropout(x, 1.0),
    "dropout2d": lambda lib, x, x5: lib.nn.functional.dropout2d(x, 0.4),
    "alpha_dropout": lambda lib, x, x5: lib.nn.functional.alpha_dropout(x, 0.4, True),
    "batch_norm": lambda lib, x, x5: lib.nn.functional.batch_norm(
        x, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), training=True),
    "relu": lambda lib, x, x5: lib.nn.functional.relu(x),
    "pad_constant": lambda lib, x, x5: lib.nn.functional.pad(x, (1, 2, 0, 1)),
    "pad_reflect": lambda lib, x, x5: lib.nn.functional.pad(x, (1, 2, 0, 1), mode="reflect"),
    "pixel_unshuffle": lambda lib, x, x5: lib.nn.functional.pixel_unshuffle(x[..., :6], 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_channels_last_output_and_grad_strides_match_torch(name):
    build = CASES[name]
    outs_n, grads_n = _run(numtorch, build)
    outs_t, grads_t = _run(torch, build)
    for o_n, o_t in zip(outs_n, outs_t):
        assert o_n.stride() == o_t.stride(), (name, o_n.stride(), o_t.stride())
        if "dropout" not in name or name == "dropout_p1":
            np.testing.assert_allclose(o_n.detach().numpy(), o_t.detach().numpy(), rtol=1e-10,
                                       atol=1e-12)
    for g_n, g_t in zip(grads_n, grads_t):
        assert (g_n is None) == (g_t is None)
        if g_n is not None:
            assert g_n.stride() == g_t.stride(), (name, g_n.stride(), g_t.stride())
            if "dropout" not in name:
                np.testing.assert_allclose(g_n.numpy(), g_t.numpy(), rtol=1e-10, atol=1e-12)


def test_dropout_draws_channels_last_masks_in_memory_order_as_torch(device):
    def run(lib):
        lib.manual_seed(3)
        x = lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last)
        y = lib.nn.functional.dropout(x, 0.5)
        z = lib.nn.functional.dropout(lib.ones(4, 3).t(), 0.5)
        return y, z

    for a, b in zip(run(numtorch), run(torch)):
        assert a.stride() == b.stride()
        if device == "cpu":  # (a device draws from its own generator)
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def _model(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 4, 1), nn.ConvTranspose2d(4, 4, 2, 2),
                         nn.AdaptiveAvgPool2d(3), nn.Upsample(scale_factor=2))


@pytest.mark.parametrize("input_cl", [False, True])
def test_module_converted_to_channels_last_matches_torch(input_cl):
    a = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    m_t = _model(torch)
    state = {k: v.detach().numpy().copy() for k, v in m_t.state_dict().items()}
    m_n = _model(numtorch)
    m_n.load_state_dict({k: numtorch.from_numpy(v.copy()) for k, v in state.items()})
    res = []
    for lib, m in ((numtorch, m_n), (torch, m_t)):
        m = m.to(memory_format=lib.channels_last)
        x = lib.from_numpy(a.copy())
        if input_cl:
            x = x.to(memory_format=lib.channels_last)
        x.requires_grad_()
        y = m(x)
        y.square().sum().backward()
        res.append((y, x.grad, list(m.parameters())))
    (y_n, gx_n, p_n), (y_t, gx_t, p_t) = res
    assert y_n.stride() == y_t.stride() and gx_n.stride() == gx_t.stride()
    np.testing.assert_allclose(y_n.detach().numpy(), y_t.detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(gx_n.numpy(), gx_t.numpy(), rtol=1e-3, atol=1e-4)
    for a_n, a_t in zip(p_n, p_t):
        assert a_n.stride() == a_t.stride() and a_n.grad.stride() == a_t.grad.stride()
        np.testing.assert_allclose(a_n.grad.numpy(), a_t.grad.numpy(), rtol=1e-3, atol=1e-3)


def test_leaf_gradient_takes_the_leaf_layout():
    """torch's layout contract for leaves: a transposed or channels-last leaf gets a gradient
    with its own strides, an expanded one a row-major gradient; a second backward adds in place
    and keeps the layout; create_graph keeps it too."""
    def run(lib):
        a = lib.arange(12.0).reshape(3, 4).t().requires_grad_()
        b = lib.ones(3, 1).expand(3, 4).requires_grad_()
        c = lib.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=lib.channels_last)
        c.requires_grad_()
        (a * 2).sum().backward()
        (b * 2).sum().backward()
        (c.contiguous() * 3).sum().backward()
        (c.contiguous() * 3).sum().backward()
        d = lib.arange(12.0).reshape(3, 4).t().requires_grad_()
        (d.contiguous() ** 2).sum().backward(create_graph=True)
        return [(t.grad.stride(), t.grad.detach().numpy()) for t in (a, b, c, d)]

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = run(numtorch), run(torch)
    for (s_n, v_n), (s_t, v_t) in zip(got, want):
        assert s_n == s_t
        np.testing.assert_array_equal(v_n, v_t)


def test_creation_and_conversion_strides_of_size_one_dims_match_torch():
    for shape in [(2, 1, 5, 6), (2, 3, 1, 1), (1, 3, 5, 6), (2, 3, 5, 1)]:
        def views(lib):
            x = lib.zeros(shape)
            cl = lib.channels_last
            return (x.to(memory_format=cl).stride(), x.contiguous(memory_format=cl).stride(),
                    lib.empty(shape, memory_format=cl).stride(),
                    x.clone(memory_format=cl).stride())

        assert views(numtorch) == views(torch), shape


def test_autograd_grad_of_channels_last_input_is_channels_last():
    def run(lib):
        x = lib.zeros(2, 3, 5, 5).to(memory_format=lib.channels_last).requires_grad_()
        w = lib.ones(4, 3, 3, 3)
        (g,) = lib.autograd.grad(lib.nn.functional.conv2d(x, w).sum(), x)
        return g.stride(), type(lib.nn.functional.conv2d(x, w).grad_fn).__name__

    assert run(numtorch) == run(torch)
