"""Attention family against torch: F.scaled_dot_product_attention, MultiheadAttention and the
Transformer modules (outputs, attention weights, input and parameter gradients, bad input)."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

RNG = np.random.default_rng(0)
KPM = np.array([[False] * 5 + [True], [False] * 6])
BOOL_MASK = RNG.random((4, 6)) > 0.6
BOOL_MASK[:, 0] = False  # keep every row attendable so no softmax row is all -inf
CAUSAL5 = np.triu(np.full((5, 5), -np.inf, dtype="float32"), 1)


def _lib(x):
    return numtorch if isinstance(x, numtorch.Tensor) else torch


def _with(**extra):
    """A ``forward`` for check_module passing ``extra`` keywords (arrays become tensors)."""
    def fw(m, *xs):
        lib = _lib(xs[0])
        kw = {n: lib.tensor(v) if isinstance(v, np.ndarray) else v for n, v in extra.items()}
        return m(*xs, **kw)
    return fw


# ---------------------------------------------------------------- scaled_dot_product_attention

SDPA_SHAPES = [
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7)),
    ((4, 5), (6, 5), (6, 3)),
    ((2, 1, 4, 5), (3, 6, 5), (3, 6, 5)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shapes", SDPA_SHAPES)
def test_sdpa_plain(shapes, dtype):
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v),
             list(shapes), dtype=dtype)


@pytest.mark.parametrize("scale", [None, 0.3])
def test_sdpa_causal_and_scale(scale):
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=scale), [(2, 4, 5), (2, 6, 5), (2, 6, 3)])


def test_sdpa_bool_mask():
    mask = BOOL_MASK.copy()
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=t.tensor(mask)), [(2, 4, 5), (2, 6, 5), (2, 6, 3)])


def test_sdpa_float_mask():
    check_op(lambda t, q, k, v, m: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m), [(2, 4, 5), (2, 6, 5), (2, 6, 3), (4, 6)])


def test_sdpa_dropout_is_random_and_scaled():
    q, k = numtorch.zeros(2, 4, 8), numtorch.zeros(2, 8, 8)
    out = numtorch.nn.functional.scaled_dot_product_attention(q, k, numtorch.ones(2, 8, 3),
                                                              dropout_p=0.5)
    # Zero queries give uniform weights 1/8; with values all 1 each output is the number of
    # kept weights times (1/8) / (1 - p), so a multiple of 1/4, and not all of them 1.
    vals = out.numpy() * 4
    assert vals.shape == (2, 4, 3)
    np.testing.assert_allclose(vals, np.round(vals), atol=1e-5)
    assert not np.allclose(vals, 4.0)


def test_sdpa_gqa():
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, enable_gqa=True), [(2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 5)],
        second_order=False)  # torch's CPU kernel for this case has no double backward


def test_sdpa_mask_and_causal_raises():
    check_raises(lambda t, q: t.nn.functional.scaled_dot_product_attention(
        q, q, q, attn_mask=t.ones(4, 4, dtype=t.bool), is_causal=True),
        [RNG.standard_normal((2, 4, 5)).astype("float32")])


# ---------------------------------------------------------------- MultiheadAttention

def _mha(t, **kw):
    return t.nn.MultiheadAttention(8, 2, **kw)


MHA_OPTIONS = [{}, dict(bias=False), dict(add_bias_kv=True), dict(add_zero_attn=True),
               dict(add_bias_kv=True, add_zero_attn=True), dict(dropout=0.3)]


@pytest.mark.parametrize("kw", MHA_OPTIONS)
def test_mha_options(kw):
    check_module(lambda t: _mha(t, **kw), [(4, 2, 8), (6, 2, 8), (6, 2, 8)], train=False)


def test_mha_kdim_vdim():
    check_module(lambda t: _mha(t, kdim=3, vdim=5), [(4, 2, 8), (6, 2, 3), (6, 2, 5)],
                 train=False)


def test_mha_batch_first_and_unbatched():
    check_module(lambda t: _mha(t, batch_first=True), [(2, 4, 8), (2, 6, 8), (2, 6, 8)],
                 train=False)
    check_module(lambda t: _mha(t), [(4, 8), (6, 8), (6, 8)], train=False)


def test_mha_state_dict_names():
    names = [n for n, _ in numtorch.nn.MultiheadAttention(8, 2, kdim=3).named_parameters()]
    assert names == [n for n, _ in torch.nn.MultiheadAttention(8, 2, kdim=3).named_parameters()]


MASKS = [
    dict(key_padding_mask=KPM),
    dict(attn_mask=BOOL_MASK),
    dict(attn_mask=BOOL_MASK, key_padding_mask=KPM),
    dict(attn_mask=RNG.standard_normal((4, 6)).astype("float32"),
         key_padding_mask=RNG.standard_normal((2, 6)).astype("float32")),
    dict(attn_mask=RNG.standard_normal((4, 4, 6)).astype("float32")),
    dict(attn_mask=BOOL_MASK, need_weights=False),
    dict(average_attn_weights=False),
]


@pytest.mark.parametrize("extra", [{}, dict(add_bias_kv=True, add_zero_attn=True)])
@pytest.mark.parametrize("masks", MASKS)
def test_mha_masks(masks, extra):
    check_module(lambda t: _mha(t, **extra), [(4, 2, 8), (6, 2, 8), (6, 2, 8)], train=False,
                 forward=_with(**masks))


def test_mha_train_dropout_runs():
    m = numtorch.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = numtorch.randn(4, 2, 8, requires_grad=True)
    out, w = m(x, x, x)
    out.sum().backward()
    assert x.grad.shape == (4, 2, 8) and w.shape == (2, 4, 4)


def test_mha_bad_embed_dim():
    check_raises(lambda t: t.nn.MultiheadAttention(7, 2))


@pytest.mark.parametrize("mask_shape", [(4, 5), (3, 4, 6), (1, 1, 4, 6)])
def test_mha_bad_mask_shape(mask_shape):
    x = RNG.standard_normal((4, 2, 8)).astype("float32")
    y = RNG.standard_normal((6, 2, 8)).astype("float32")
    mask = RNG.standard_normal(mask_shape).astype("float32")
    nt_m, th_m = numtorch.nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)
    check_raises(lambda t, q, k, m: (th_m if t is torch else nt_m)(q, k, k, attn_mask=m),
                 [x, y, mask])


def test_mha_bad_key_padding_mask_shape():
    x = RNG.standard_normal((4, 2, 8)).astype("float32")
    nt_m, th_m = numtorch.nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)
    check_raises(lambda t, q, m: (th_m if t is torch else nt_m)(
        q, q, q, key_padding_mask=m.bool()), [x, np.zeros((2, 5), "float32")])


def test_mha_is_causal_needs_mask():
    x = RNG.standard_normal((4, 2, 8)).astype("float32")
    nt_m, th_m = numtorch.nn.MultiheadAttention(8, 2), torch.nn.MultiheadAttention(8, 2)
    check_raises(lambda t, q: (th_m if t is torch else nt_m)(q, q, q, is_causal=True), [x],
                 match="attn_mask")


# ---------------------------------------------------------------- Transformer family

ENC_OPTIONS = [{}, dict(norm_first=True), dict(activation="gelu"), dict(bias=False)]


@pytest.mark.parametrize("kw", ENC_OPTIONS)
def test_encoder_layer(kw):
    check_module(lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, **kw), [(5, 2, 8)],
                 train=False)
    check_module(lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, **kw), [(5, 8)],
                 train=False)


def test_encoder_layer_batch_first_callable_activation():
    check_module(lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                        activation=t.nn.functional.tanh),
                 [(2, 5, 8)], train=False)


def test_encoder_layer_bad_activation():
    check_raises(lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, activation="swish"))


@pytest.mark.parametrize("masks", [dict(mask=CAUSAL5, src_key_padding_mask=KPM[:, 1:]),
                                   dict(mask=CAUSAL5, is_causal=True)])
def test_encoder_stack(masks):
    check_module(lambda t: t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                   t.nn.LayerNorm(8)),
                 [(5, 2, 8)], train=False, forward=_with(**masks))


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True)])
def test_decoder(kw):
    check_module(lambda t: t.nn.TransformerDecoderLayer(8, 2, 16, **kw), [(5, 2, 8), (6, 2, 8)],
                 train=False, forward=_with(tgt_mask=CAUSAL5))
    check_module(lambda t: t.nn.TransformerDecoder(t.nn.TransformerDecoderLayer(8, 2, 16, **kw),
                                                   2),
                 [(5, 2, 8), (6, 2, 8)], train=False,
                 forward=_with(tgt_mask=CAUSAL5, tgt_key_padding_mask=KPM[:, 1:],
                               memory_key_padding_mask=KPM))


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True), dict(batch_first=True)])
def test_transformer(kw):
    shapes = [(2, 6, 8), (2, 5, 8)] if kw.get("batch_first") else [(6, 2, 8), (5, 2, 8)]
    check_module(lambda t: t.nn.Transformer(8, 2, 2, 2, 16, **kw), shapes, train=False,
                 forward=_with(tgt_mask=CAUSAL5))


def test_square_subsequent_mask():
    a = numtorch.nn.Transformer.generate_square_subsequent_mask(4)
    b = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_transformer_batch_mismatch():
    nt_m, th_m = (lib.nn.Transformer(8, 2, 1, 1, 16) for lib in (numtorch, torch))
    check_raises(lambda t, s, g: (th_m if t is torch else nt_m)(s, g),
                 [np.zeros((6, 2, 8), "float32"), np.zeros((5, 3, 8), "float32")],
                 match="batch number")


def test_sdpa_fully_masked_row_is_zero():
    mask = np.array([[True, True, False], [False, False, False]])
    check_op(lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=t.tensor(mask)), [(2, 2, 4), (2, 3, 4), (2, 3, 5)])


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_fully_padded_sequence(need_weights):
    kpm = np.array([[True] * 6, [False] * 6])
    check_module(lambda t: _mha(t), [(4, 2, 8), (6, 2, 8), (6, 2, 8)], train=False,
                 forward=_with(key_padding_mask=kpm, need_weights=need_weights),
                 grad=not need_weights)


@pytest.mark.parametrize("make", [
    lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, device="cuda"),
    lambda t: t.nn.TransformerDecoderLayer(8, 2, 16, device="cuda"),
    lambda t: t.nn.Transformer(8, 2, 1, 1, 16, device="cuda"),
])
def test_transformer_layers_honour_device(make):
    # the layers once passed only dtype on, silently building on the CPU
    if numtorch.cuda.is_available():
        assert {p.device.type for p in make(numtorch).parameters()} == {"cuda"}
    else:
        from tests.oracle import same

        same(make)  # torch's AssertionError: Torch not compiled with CUDA enabled
