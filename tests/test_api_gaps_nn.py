"""torch.nn's missing pieces against torch: nn.attention (SDPBackend, sdpa_kernel, the
backend switches, attention biases), nn.grad, nn.factory_kwargs, F.conv_tbc / F.grad /
native_channel_shuffle."""

import importlib

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(3)


def _arr(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


# -- nn.attention ---------------------------------------------------------------------------

def test_sdp_backend_enum():
    same(lambda t: [(k, int(v)) for k, v in
                    t.nn.attention.SDPBackend.__members__.items()])
    same(lambda t: (repr(t.nn.attention.SDPBackend.MATH), str(t.nn.attention.SDPBackend.MATH),
                    t.nn.attention.SDPBackend.FLASH_ATTENTION.name,
                    t.nn.attention.SDPBackend.EFFICIENT_ATTENTION.value,
                    t.nn.attention.SDPBackend(0).name))


SWITCHES = ["flash_sdp_enabled", "math_sdp_enabled", "mem_efficient_sdp_enabled",
            "cudnn_sdp_enabled"]


@pytest.mark.parametrize("chosen", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"],
                                    "CUDNN_ATTENTION", ["ERROR"], [], ["MATH", "CUDNN_ATTENTION"]])
def test_sdpa_kernel(chosen):
    q, k = _arr(1, 2, 3, 4), _arr(1, 2, 5, 4)

    def fn(t):
        A = t.nn.attention
        backends = ([getattr(A.SDPBackend, c) for c in chosen] if isinstance(chosen, list)
                    else getattr(A.SDPBackend, chosen))
        with A.sdpa_kernel(backends):
            flags = [getattr(t.backends.cuda, s)() for s in SWITCHES]
            try:
                out = t.nn.functional.scaled_dot_product_attention(
                    t.from_numpy(q), t.from_numpy(k), t.from_numpy(k))
            except RuntimeError as e:
                out = str(e)
        after = [getattr(t.backends.cuda, s)() for s in SWITCHES]
        return flags, out, after

    same(fn, rtol=1e-10, atol=1e-12)


def test_sdpa_kernel_errors_and_switches():
    def enter(t, backends):
        with t.nn.attention.sdpa_kernel(backends) as entered:
            return entered

    same(lambda t: enter(t, "math"))
    same(lambda t: enter(t, [t.nn.attention.SDPBackend.MATH, 0]))
    for bad in (["math"], [0], (0,), 0, None):
        same(lambda t: (enter(t, bad), t.backends.cuda.math_sdp_enabled()))
    same(lambda t: enter(t, (t.nn.attention.SDPBackend.MATH,)))
    same(lambda t: type(t.nn.attention.sdpa_kernel("math")).__name__)

    def switches(t):
        b = t.backends.cuda
        b.enable_flash_sdp(False)
        b.enable_math_sdp(False)
        try:
            t.nn.functional.scaled_dot_product_attention(t.ones(1, 2, 3), t.ones(1, 2, 3),
                                                         t.ones(1, 2, 3))
            raised = None
        except RuntimeError as e:
            raised = str(e)
        state = [getattr(b, s)() for s in SWITCHES]
        b.enable_flash_sdp(True)
        b.enable_math_sdp(True)
        return raised, state

    same(switches)

    def priority(t):
        A = t.nn.attention
        with A.sdpa_kernel([A.SDPBackend.MATH, A.SDPBackend.FLASH_ATTENTION], set_priority=True):
            return t.nn.functional.scaled_dot_product_attention(t.ones(1, 2, 3), t.ones(1, 2, 3),
                                                                t.ones(1, 2, 3))

    same(priority)


def _bias(lib):
    return importlib.import_module(lib.__name__ + ".nn.attention.bias")


def test_causal_bias():
    q, k = _arr(1, 2, 3, 4), _arr(1, 2, 5, 4)
    for name, (L, S) in (("causal_upper_left", (3, 5)), ("causal_lower_right", (3, 5)),
                         ("causal_upper_left", (5, 3))):
        same(lambda t: getattr(_bias(t), name)(L, S)._materialize())
        same(lambda t: repr(getattr(_bias(t), name)(L, S)))
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=_bias(t).causal_lower_right(3, 5)), [q, k, _arr(1, 2, 5, 4)],
        second_order=False)  # torch's CPU flash kernel it dispatches to has no double backward
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=_bias(t).causal_upper_left(3, 5)), [q, k, _arr(1, 2, 5, 4)],
        second_order=False)
    same(lambda t: _bias(t).causal_lower_right(2, 3, 4))
    same(lambda t: _bias(t).causal_lower_right(4, 2)._materialize(), warns=True)
    same(lambda t: [(k, int(v)) for k, v in _bias(t).CausalVariant.__members__.items()])
    b = numtorch.nn.attention.bias.causal_lower_right(2, 4)
    assert (b.seq_len_q, b.seq_len_kv, b.variant) == (2, 4, 2)
    assert isinstance(b, numtorch.Tensor)


# -- nn.grad --------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3])
def test_nn_grad(n):
    spatial = {1: (9,), 2: (7, 6), 3: (5, 4, 4)}[n]
    x, w = _arr(2, 4, *spatial), _arr(6, 2, *((3,) * n))
    kw = dict(stride=2, padding=1, dilation=1, groups=2)
    conv = getattr(torch.nn.functional, f"conv{n}d")
    gshape = conv(torch.from_numpy(x), torch.from_numpy(w), **kw).shape
    g = _arr(*gshape)
    check_op(lambda t, w, g: getattr(t.nn.grad, f"conv{n}d_input")(x.shape, w, g, **kw),
             [w, g], second_order=n < 3)
    check_op(lambda t, x, g: getattr(t.nn.grad, f"conv{n}d_weight")(x, w.shape, g, **kw),
             [x, g], second_order=n < 3)


def test_nn_grad_plain_and_no_graph():
    x, w = _arr(1, 2, 5, 5), _arr(3, 2, 2, 2)
    g = _arr(1, 3, 4, 4)
    same(lambda t: t.nn.grad.conv2d_input(x.shape, t.from_numpy(w), t.from_numpy(g)),
         rtol=1e-10, atol=1e-12)
    same(lambda t: t.nn.grad.conv2d_weight(t.from_numpy(x), w.shape, t.from_numpy(g)),
         rtol=1e-10, atol=1e-12)
    assert numtorch.nn.functional.grad is numtorch.nn.grad


# -- factory_kwargs, F extras ---------------------------------------------------------------

def _items(d):
    """The dict's items in key order (torch builds it from a set: its order varies)."""
    return sorted(d.items(), key=lambda kv: kv[0]) if isinstance(d, dict) else d


def test_factory_kwargs():
    fk = lambda t, kw: _items(t.nn.factory_kwargs(kw))
    same(lambda t: fk(t, None))
    same(lambda t: fk(t, {"device": "cpu", "dtype": t.float64}))
    same(lambda t: fk(t, {"factory_kwargs": {"device": "cpu"}, "dtype": t.half}))
    same(lambda t: str(t.nn.factory_kwargs({"memory_format": t.channels_last})))
    same(lambda t: fk(t, {"foo": 1}))
    same(lambda t: fk(t, {"factory_kwargs": {"dtype": t.half}, "dtype": t.float32}))


def test_functional_extras():
    check_op(lambda t, x, w, b: t.nn.functional.conv_tbc(x, w, b, 1),
             [_arr(6, 2, 3), _arr(3, 3, 4), _arr(4)])
    same(lambda t: t.native_channel_shuffle(t.arange(8.0).reshape(1, 4, 2), 2))
    same(lambda t: t.nn.functional.native_channel_shuffle(t.arange(12.0).reshape(1, 6, 2), 3))
    same(lambda t: t.nn.common_types.__name__.split(".")[-1])


# -- linear cross entropy -------------------------------------------------------------------

def test_linear_cross_entropy_functional():
    x, W, b = _arr(4, 5), _arr(3, 5), _arr(3)
    target = np.array([0, 2, 1, 2])
    probs = rng.dirichlet(np.ones(3), size=4)
    F = lambda t: t.nn.functional
    check_op(lambda t, x, W: F(t).linear_cross_entropy(x, W, t.from_numpy(target)), [x, W])
    check_op(lambda t, x, W, b: F(t).linear_cross_entropy(
        x, W, t.from_numpy(target), linear_bias=b, reduction="none", ignore_index=2,
        label_smoothing=0.1), [x, W, b])
    check_op(lambda t, x, W: F(t).linear_cross_entropy(
        x, W, t.from_numpy(target), weight=t.tensor([1.0, 2.0, 0.5], dtype=t.float64),
        reduction="sum"), [x, W])
    check_op(lambda t, x, W, p: F(t).linear_cross_entropy(x, W, p), [x, W, probs])
    check_op(lambda t, x, W: F(t).linear_cross_entropy(x[0], W, t.tensor(1)), [x, W])
    W2, b2 = _arr(3, 2, 5), _arr(3, 2)
    t2 = rng.integers(0, 3, (4, 2))
    check_op(lambda t, x, W, b: F(t).linear_cross_entropy(x, W, t.from_numpy(t2),
                                                         linear_bias=b), [x, W2, b2])
    same(lambda t: F(t).linear_cross_entropy(t.ones(4, 6, 5), t.ones(3, 5),
                                             t.zeros(4, 6, dtype=t.long)))
    same(lambda t: F(t).linear_cross_entropy(t.ones(4, 5), t.ones(3, 4),
                                             t.zeros(4, dtype=t.long)))
    same(lambda t: F(t).linear_cross_entropy(
        t.from_numpy(x), t.from_numpy(W), t.from_numpy(target),
        options=t.nn.LinearCrossEntropyOptions(batch_chunk_size=2)), rtol=1e-10)


def test_linear_cross_entropy_module():
    from tests.oracle import load_torch_state

    x, tg = _arr(4, 5).astype("float32"), rng.integers(0, 3, (4, 2))
    for kw in ({}, {"out_features": (2,), "bias": True}, {"reduction": "sum",
                                                           "label_smoothing": 0.2}):
        m_nt, m_th = (lib.nn.LinearCrossEntropyLoss(5, 3, **kw) for lib in (numtorch, torch))
        load_torch_state(m_nt, m_th)
        assert repr(m_nt).replace("numtorch", "torch") == repr(m_th)
        target = tg if kw.get("out_features") else tg[:, 0]
        out_nt = m_nt(numtorch.from_numpy(x), numtorch.from_numpy(target))
        out_th = m_th(torch.from_numpy(x), torch.from_numpy(target))
        np.testing.assert_allclose(out_nt.detach().numpy(), out_th.detach().numpy(), rtol=1e-5)
        out_nt.backward()
        out_th.backward()
        np.testing.assert_allclose(m_nt.linear.weight.grad.numpy(),
                                   m_th.linear.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    w = lambda t: t.nn.LinearCrossEntropyLoss(5, 3, weight=t.ones(3))
    same(lambda t: (list(w(t).state_dict()), [n for n, _ in w(t).named_buffers()]))
    same(lambda t: repr(t.nn.LinearCrossEntropyOptions()))
    same(lambda t: t.nn.LinearCrossEntropyLoss.__module__)
