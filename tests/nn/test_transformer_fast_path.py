"""The visible rules of torch's inference fast paths for MultiheadAttention,
TransformerEncoderLayer and TransformerEncoder (nested tensors), compared with torch:
padded positions of an encoder's output are 0, a query that sees no key gives nan, a float
mask is read as a boolean one, ``is_causal`` without a mask is dropped, and each rule holds
only under torch's conditions (eval mode, nothing to differentiate, batch-first inputs, ...).
"""

import math
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt


def _copy_weights(src, dst):
    state = {k: nt.tensor(v.detach().numpy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def _pair(build):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = build(torch)
        n = build(nt)
    _copy_weights(t, n)
    return t, n


def _x(lib, shape=(2, 4, 8)):
    return lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def _outcome(lib, module, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call(lib, module)
        except Exception as e:  # noqa: BLE001 - class and text are compared
            return ("raise", type(e).__name__, str(e))
    r = r[0] if isinstance(r, tuple) else r
    return ("ok", np.asarray(r.detach().tolist()))


def _compare(build, call):
    t, n = _pair(build)
    a, b = _outcome(nt, n, call), _outcome(torch, t, call)
    assert a[0] == b[0], (a, b)
    if a[0] == "raise":
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-5, equal_nan=True)


PAD = [[False, False, True, True], [False, False, False, True]]
FULL = [[True, True, True, True], [False, False, False, True]]


def _encoder(layer_kw=None, enc_kw=None, norm_bias=None):
    def build(lib):
        kw = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        kw.update(layer_kw or {})
        norm = None
        if norm_bias is not None:
            norm = lib.nn.LayerNorm(8)
            lib.nn.init.constant_(norm.bias, norm_bias)
        return lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(**kw), 2, norm=norm,
                                         **(enc_kw or {})).eval()
    return build


def _run_encoder(pad=PAD, float_pad=False, grad=False, train=False, src_mask=False,
                 is_causal=None, x_grad=False, unbatched=False, batch_first=True):
    def call(lib, m):
        m.train(train)
        x = _x(lib)
        p = lib.tensor(pad)
        if unbatched:
            x, p = x[0], p[0]
        elif not batch_first:
            x = x.transpose(0, 1)
        if float_pad:
            p = lib.zeros(p.shape).masked_fill(p, -math.inf)
        if x_grad:
            x.requires_grad_()
        kw = {}
        if src_mask:
            kw["mask"] = lib.zeros(4, 4, dtype=lib.bool)
        if is_causal is not None:
            kw["is_causal"] = is_causal
        with lib.set_grad_enabled(grad):
            return m(x, src_key_padding_mask=p, **kw)
    return call


@pytest.mark.parametrize("case", [
    "plain", "no_nested", "train", "grad", "x_grad", "batch_first_false", "norm_first",
    "gelu", "odd_heads", "four_heads", "src_mask", "float_pad", "fully_padded", "unaligned",
    "unaligned_unchecked", "final_norm_bias", "unbatched", "no_bias", "is_causal_only",
    "no_padding",
])
def test_encoder_nested_tensor_path(case):
    layer_kw, enc_kw, run_kw, norm_bias = {}, {}, {}, None
    if case == "no_nested":
        enc_kw = dict(enable_nested_tensor=False)
    elif case in ("train", "grad", "x_grad", "src_mask", "float_pad", "unbatched"):
        run_kw = {case if case != "x_grad" else "x_grad": True} if case != "x_grad" else \
            dict(grad=True, x_grad=True)
    elif case == "batch_first_false":
        layer_kw, run_kw = dict(batch_first=False), dict(batch_first=False)
    elif case == "norm_first":
        layer_kw = dict(norm_first=True)
    elif case == "gelu":
        layer_kw = dict(activation="gelu")
    elif case == "odd_heads":
        layer_kw = dict(nhead=1)
    elif case == "four_heads":
        layer_kw = dict(nhead=4)
    elif case == "fully_padded":
        run_kw = dict(pad=FULL)
    elif case == "unaligned":
        run_kw = dict(pad=[[False, True, False, True], [False, False, False, True]])
    elif case == "unaligned_unchecked":
        enc_kw = dict(mask_check=False)
        run_kw = dict(pad=[[False, True, False, True], [False, False, False, True]])
    elif case == "final_norm_bias":
        norm_bias = 1.0
    elif case == "no_bias":
        layer_kw = dict(bias=False)
    elif case == "is_causal_only":
        run_kw = dict(is_causal=True)
    elif case == "no_padding":
        run_kw = dict(pad=[[False] * 4, [False] * 4])
    _compare(_encoder(layer_kw, enc_kw, norm_bias), _run_encoder(**run_kw))


def test_encoder_first_layer_training_decides():
    def build(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 1)

    t, n = _pair(build)
    for m in (t, n):
        m.train()
        m.layers[0].eval()
    for lib, m in ((nt, n), (torch, t)):
        with lib.no_grad():
            y = m(_x(lib), src_key_padding_mask=lib.tensor(PAD))
        assert bool((y[0, 2:] == 0).all())


def _layer(**kw):
    def build(lib):
        args = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        args.update(kw)
        return lib.nn.TransformerEncoderLayer(**args).eval()
    return build


@pytest.mark.parametrize("pad", ["bool", "float_inf", "float_half", "float_big"])
@pytest.mark.parametrize("src_mask", [None, "bool", "float"])
@pytest.mark.parametrize("mode", ["eval_nograd", "eval_grad", "train", "fastpath_off"])
def test_layer_fast_path_masks(pad, src_mask, mode):
    def call(lib, m):
        m.train(mode == "train")
        p = lib.tensor(FULL)
        if pad != "bool":
            value = {"float_inf": -math.inf, "float_half": 0.5, "float_big": -1e9}[pad]
            p = lib.zeros(p.shape).masked_fill(p, value)
        kw = {}
        if src_mask is not None:
            sm = lib.zeros(4, 4, dtype=lib.bool)
            sm[1] = True
            kw["src_mask"] = sm if src_mask == "bool" else lib.zeros(4, 4).masked_fill(sm, 0.5)
        lib.backends.mha.set_fastpath_enabled(mode != "fastpath_off")
        try:
            with lib.set_grad_enabled(mode == "eval_grad"):
                return m(_x(lib), src_key_padding_mask=p, **kw)
        finally:
            lib.backends.mha.set_fastpath_enabled(True)

    _compare(_layer(), call)


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True), dict(activation="gelu"),
                                dict(activation="tanh"), dict(nhead=1), dict(bias=False),
                                dict(layer_norm_eps=1e-6), dict(batch_first=False)])
@pytest.mark.parametrize("hook", [False, True])
def test_layer_is_causal_without_mask(kw, hook):
    if kw.get("activation") == "tanh":
        kw = dict(kw, activation=None)

    def build(lib):
        args = dict(kw)
        if "activation" in args and args["activation"] is None:
            args["activation"] = lib.tanh
        m = _layer(**args)(lib)
        if hook:
            m.linear1.register_forward_hook(lambda *a: None)
        return m

    def call(lib, m):
        with lib.no_grad():
            x = _x(lib) if m.self_attn.batch_first else _x(lib).transpose(0, 1)
            return m(x, is_causal=True)

    _compare(build, call)


def _mha(**kw):
    def build(lib):
        args = dict(batch_first=True)
        args.update(kw)
        return lib.nn.MultiheadAttention(8, 2, **args).eval()
    return build


@pytest.mark.parametrize("masks", ["pad", "pad_float", "attn", "attn_float", "both",
                                   "attn_3d", "causal_attn", "causal_pad", "causal_pad_float",
                                   "causal_none"])
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("same_object", [True, False])
def test_mha_fast_path(masks, need_weights, same_object):
    def call(lib, m):
        x = _x(lib)
        pad = lib.tensor(FULL)
        am = lib.zeros(4, 4, dtype=lib.bool)
        am[1] = True
        kw = {}
        if masks in ("pad", "both", "causal_pad"):
            kw["key_padding_mask"] = pad
        if masks in ("pad_float", "causal_pad_float"):
            kw["key_padding_mask"] = lib.zeros(2, 4).masked_fill(pad, -math.inf)
        if masks in ("attn", "both", "causal_attn"):
            kw["attn_mask"] = am
        if masks == "attn_float":
            kw["attn_mask"] = lib.zeros(4, 4).masked_fill(am, -math.inf)
        if masks == "attn_3d":
            kw["attn_mask"] = am.expand(4, 4, 4)
        if masks.startswith("causal"):
            kw["is_causal"] = True
        with lib.no_grad():
            k = x if same_object else x.clone()
            return m(x, k, k, need_weights=need_weights, **kw)

    _compare(_mha(), call)


@pytest.mark.parametrize("kw", [dict(batch_first=False), dict(add_bias_kv=True),
                                dict(add_zero_attn=True), dict(bias=False), dict(kdim=4)])
def test_mha_without_fast_path(kw):
    def call(lib, m):
        x = _x(lib)
        if not m.batch_first:
            x = x.transpose(0, 1)
        with lib.no_grad():
            if m._qkv_same_embed_dim:
                return m(x, x, x, key_padding_mask=lib.tensor(FULL), need_weights=False)
            k = _x(lib, (2, 4, 4))
            return m(x, k, x, key_padding_mask=lib.tensor(FULL), need_weights=False)

    _compare(_mha(**kw), call)


def test_backends_mha_flag():
    assert nt.backends.mha.get_fastpath_enabled() is True
    nt.backends.mha.set_fastpath_enabled(False)
    try:
        assert nt.backends.mha.get_fastpath_enabled() is False
    finally:
        nt.backends.mha.set_fastpath_enabled(True)


@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("padding", [False, True])
def test_layer_is_causal_with_a_mask(train, padding):
    def call(lib, m):
        m.train(train)
        am = lib.zeros(4, 4, dtype=lib.bool)
        am[1] = True
        am[2, 0] = True
        kw = {"src_key_padding_mask": lib.tensor(PAD)} if padding else {}
        with lib.no_grad():
            return m(_x(lib), src_mask=am, is_causal=True, **kw)

    _compare(_layer(), call)
