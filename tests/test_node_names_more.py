"""Graph-node names of composite ops match torch's (they show in ``grad_fn=<...>`` reprs), and
renaming the final node leaves the gradients torch's."""

import numpy as np
import pytest
import torch

import numtorch


def _margin_target(L):
    return L.tensor([[0, -1, 0, 0], [3, 1, -1, 2], [2, -1, 1, 1]])


# name -> f(L, F, x, y, img) for L in (torch, numtorch); x, y are (3, 4), img is (1, 2, 5, 5)
CASES = {
    "take": lambda L, F, x, y, img: x.take(L.tensor([[1], [-2]])),
    "put": lambda L, F, x, y, img: x.put(L.tensor([0, 5]), y[0, :2]),
    "put_accumulate": lambda L, F, x, y, img: x.put(L.tensor([0, 0]), y[0, :2], accumulate=True),
    "kron": lambda L, F, x, y, img: L.kron(x, y),
    "kron_1d_2d": lambda L, F, x, y, img: L.kron(x[0], y),
    "multi_dot": lambda L, F, x, y, img: L.linalg.multi_dot([x, y.t(), x]),
    "multi_dot_two": lambda L, F, x, y, img: L.linalg.multi_dot([x, y.t()]),
    "multi_dot_row": lambda L, F, x, y, img: L.linalg.multi_dot([x[0], y.t(), x]),
    "mvlgamma": lambda L, F, x, y, img: L.mvlgamma(x.abs() + 2, 3),
    "pdist": lambda L, F, x, y, img: F.pdist(x),
    "pdist_p1": lambda L, F, x, y, img: F.pdist(x, 1),
    "instance_norm": lambda L, F, x, y, img: F.instance_norm(img),
    "instance_norm_running": lambda L, F, x, y, img: F.instance_norm(
        img, L.zeros(2), L.ones(2), use_input_stats=False),
    "pixel_shuffle": lambda L, F, x, y, img: F.pixel_shuffle(img.repeat(1, 2, 1, 1), 2),
    "pixel_unshuffle": lambda L, F, x, y, img: F.pixel_unshuffle(img[..., :4, :4], 2),
    "pad_circular": lambda L, F, x, y, img: F.pad(img, (1, 2, 2, 1), mode="circular"),
    "pad_circular_1d": lambda L, F, x, y, img: F.pad(img[0], (1, 2), mode="circular"),
    "embedding_bag_mean": lambda L, F, x, y, img: F.embedding_bag(L.tensor([[1, 2], [0, 2]]), x),
    "embedding_bag_sum": lambda L, F, x, y, img: F.embedding_bag(
        L.tensor([1, 2, 0]), x, L.tensor([0, 2]), mode="sum"),
    "embedding_bag_max": lambda L, F, x, y, img: F.embedding_bag(
        L.tensor([[1, 2], [0, 2]]), x, mode="max"),
    "multi_margin": lambda L, F, x, y, img: F.multi_margin_loss(x, L.tensor([0, 1, 3])),
    "multi_margin_none_p2": lambda L, F, x, y, img: F.multi_margin_loss(
        x, L.tensor([0, 1, 3]), p=2, reduction="none"),
    "multilabel_margin": lambda L, F, x, y, img: F.multilabel_margin_loss(x, _margin_target(L)),
    "multilabel_margin_sum": lambda L, F, x, y, img: F.multilabel_margin_loss(
        x, _margin_target(L), reduction="sum"),
    "rrelu_eval": lambda L, F, x, y, img: F.rrelu(x),
    "rrelu_inplace_eval": lambda L, F, x, y, img: F.rrelu(x * 1, inplace=True),
    "rfft_real": lambda L, F, x, y, img: L.fft.rfft(x).real,
    "complex_imag": lambda L, F, x, y, img: L.complex(x, y).imag,
    "trapezoid": lambda L, F, x, y, img: L.trapezoid(x),
    "trapezoid_dx": lambda L, F, x, y, img: L.trapezoid(x, dx=0.5, dim=0),
    "trapezoid_x": lambda L, F, x, y, img: L.trapezoid(x, L.tensor([0.0, 1.0, 3.0, 4.5])),
    "quantile": lambda L, F, x, y, img: L.quantile(x, 0.3),
    "quantile_dim_vec": lambda L, F, x, y, img: L.quantile(x, L.tensor([0.2, 0.9]), dim=1),
    "nanquantile_keepdim": lambda L, F, x, y, img: L.nanquantile(x, 0.5, dim=0, keepdim=True),
}


def _run(L, case):
    rng = np.random.default_rng(7)
    leaves = [L.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
              for s in ((3, 4), (3, 4), (1, 2, 5, 5))]
    out = CASES[case](L, L.nn.functional, *leaves)
    name = out.grad_fn.name()
    cot = L.tensor(rng.standard_normal(tuple(out.shape)).astype(np.float32))
    grads = L.autograd.grad(out, leaves, cot, allow_unused=True)
    return name, type(out.grad_fn).__name__, [None if g is None else g.numpy() for g in grads]


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_name_and_gradient_match_torch(case):
    t_name, t_type, t_grads = _run(torch, case)
    n_name, n_type, n_grads = _run(numtorch, case)
    assert n_name == t_name
    assert n_type == t_type  # what a tensor's repr prints
    for a, b in zip(n_grads, t_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_training_node_name(inplace):
    # the slopes are random: compare the names, and that the gradient is the slope used
    for L in (torch, numtorch):
        x = L.tensor([[-1.0, 2.0, -3.0], [0.5, -0.25, 4.0]], requires_grad=True)
        a = x * 1
        out = L.nn.functional.rrelu(a, training=True, inplace=inplace)
        want = "RreluWithNoiseBackward1" if inplace else "RreluWithNoiseBackward0"
        assert out.grad_fn.name() == want
        (g,) = L.autograd.grad(out.sum(), x)
        np.testing.assert_allclose(g.numpy(), (out / x).detach().numpy(), rtol=1e-6)


def _sdpa_name(lib, shape, mask, causal, drop):
    g = lib.Generator().manual_seed(0)
    q, k, v = (lib.randn(*shape, generator=g).requires_grad_() for _ in range(3))
    m = lib.ones(shape[-2], shape[-2], dtype=lib.bool).tril() if mask else None
    o = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal,
                                                       dropout_p=drop)
    return o.grad_fn.name()


@pytest.mark.parametrize("shape", [(4, 8), (2, 4, 8), (2, 3, 4, 8), (1, 2, 3, 4, 8)])
@pytest.mark.parametrize("mask,causal,drop", [(False, False, 0.0), (True, False, 0.0),
                                              (False, True, 0.0), (False, False, 0.2)])
def test_sdpa_node_named_by_torch_cpu_kernel_choice(shape, mask, causal, drop):
    assert _sdpa_name(numtorch, shape, mask, causal, drop) == \
        _sdpa_name(torch, shape, mask, causal, drop)
