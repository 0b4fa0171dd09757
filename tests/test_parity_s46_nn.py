"""Session 46 nn/optim parity fixes, each checked against torch at test time."""

import math
import warnings

import pytest
import torch

import numtorch


def _plain(v):
    """A comparable form of a result: tensors as (dtype, shape, rounded values with NaN
    spelled out), containers element by element."""
    if isinstance(v, (torch.Tensor, numtorch.Tensor)):
        vals = v.detach().cpu().flatten().tolist()
        out = []
        for a in vals:
            if isinstance(a, float):
                out.append("nan" if math.isnan(a) else round(a, 5))
            else:
                out.append(a)
        return (str(v.dtype), tuple(v.shape), out)
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [_plain(a) for a in v]
    if isinstance(v, dict):
        return {k: _plain(a) for k, a in v.items()}
    if isinstance(v, float):
        return "nan" if math.isnan(v) else round(v, 6)
    if isinstance(v, (torch.dtype, numtorch.dtype)):
        return str(v)
    return v


def _outcome(lib, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", _plain(fn(lib))
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)


def _same(fn):
    want = _outcome(torch, fn)
    assert _outcome(numtorch, fn) == want
    return want


# -- 1. recurrent layers refuse inputs and states of another dtype than their weights ------

_RNNS = ["RNN", "GRU", "LSTM"]
_CASES = [(w, h) for w in ("float64", "float32") for h in ("float32", "float64", "float16")
          if w != h]


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("wd,xd", _CASES + [("float64", "int64")])
@pytest.mark.parametrize("packed", [False, True])
def test_rnn_input_dtype_mismatch(cls, wd, xd, packed):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2).to(getattr(t, wd))
        x = t.ones(4, 3).to(getattr(t, xd))
        if packed:
            x = t.nn.utils.rnn.pack_sequence([x])
        out = m(x)[0]
        return out.data if packed else out
    if packed and xd == "int64":
        pytest.skip("torch's pack_sequence of integers is not this test's subject")
    _same(fn)


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("wd,hd", _CASES)
@pytest.mark.parametrize("which", [0, 1])
def test_rnn_state_dtype_mismatch(cls, wd, hd, which):
    if which == 1 and cls != "LSTM":
        pytest.skip("only LSTM has a cell state")

    def fn(t):
        t.manual_seed(0)
        w = getattr(t, wd)
        m = getattr(t.nn, cls)(3, 2).to(w)
        s = [t.zeros(1, 2, dtype=w), t.zeros(1, 2, dtype=w)]
        s[which] = s[which].to(getattr(t, hd))
        return m(t.ones(4, 3, dtype=w), tuple(s) if cls == "LSTM" else s[0])[0]
    _same(fn)


@pytest.mark.parametrize("cls", _RNNS)
@pytest.mark.parametrize("name", ["weight_hh_l1", "bias_ih_l1"])
def test_rnn_recast_layer_weight_refused(cls, name):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2, num_layers=2)
        p = getattr(m, name)
        p.data = p.data.double()
        return m(t.ones(4, 3))[0]
    _same(fn)


@pytest.mark.parametrize("cls", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("which", ["input", "hidden"])
def test_rnn_cells_refuse_mixed_dtypes(cls, which):
    def fn(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(3, 2).double()
        x = t.ones(4, 3, dtype=t.float32 if which == "input" else t.float64)
        h = t.zeros(4, 2, dtype=t.float32 if which == "hidden" else t.float64)
        return m(x, (h, h.double()) if cls == "LSTMCell" else h)
    _same(fn)


# -- 2. scaled_dot_product_attention: is_causal with an explicit mask ------------------------

def _seq(t, *shape):
    return t.arange(math.prod(shape), dtype=t.float32).reshape(shape).sin()


@pytest.mark.parametrize("case", ["plain", "v_head6", "dropout", "kv_batch1", "kv_head1",
                                  "kv_head1_gqa", "five_d", "three_d", "float_mask"])
def test_sdpa_causal_with_mask_follows_torchs_kernel_choice(case):
    def fn(t):
        q, k, v = _seq(t, 2, 2, 3, 4), _seq(t, 2, 2, 5, 4).cos(), _seq(t, 2, 2, 5, 4) * 2
        kw = {"is_causal": True, "attn_mask": t.ones(3, 5, dtype=t.bool)}
        if case == "v_head6":
            v = _seq(t, 2, 2, 5, 6)
        elif case == "dropout":
            kw["dropout_p"] = 0.5
        elif case == "kv_batch1":
            k, v = k[:1], v[:1]
        elif case.startswith("kv_head1"):
            k, v = k[:, :1], v[:, :1]
            kw["enable_gqa"] = case.endswith("gqa")
        elif case == "five_d":
            q, k, v = q[None], k[None], v[None]
        elif case == "three_d":
            q, k, v = q[0], k[0], v[0]
        elif case == "float_mask":
            kw["attn_mask"] = _seq(t, 3, 5)
        out = t.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        return out if case != "dropout" else out.shape
    _same(fn)
