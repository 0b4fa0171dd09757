"""nn.TransformerEncoder's nested-tensor flags and warning against torch: which encoder layer
rules torch's fast path out, the first reason in torch's order, the warning's text, category
and the user's line, and the layer's activation_relu_or_gelu code."""

import warnings

import pytest
import torch

import numtorch
from tests.oracle import same


def _layer(lib, d=8, heads=2, eps1=None, qkv=True, **kw):
    layer = lib.nn.TransformerEncoderLayer(d, heads, 16, **kw)
    if eps1 is not None:
        layer.norm1.eps = eps1
    if not qkv:
        layer.self_attn._qkv_same_embed_dim = False
    return layer


CASES = [
    {},
    {"batch_first": True},
    {"batch_first": True, "norm_first": True},
    {"norm_first": True},  # norm_first is reported before batch_first
    {"batch_first": True, "bias": False, "norm_first": True},
    {"batch_first": True, "bias": False, "activation": "tanh"},  # bias before activation
    {"batch_first": True, "activation": "tanh", "heads": 3, "d": 9},
    {"batch_first": True, "activation": "tanh", "eps1": 1e-3},
    {"batch_first": True, "eps1": 1e-3, "heads": 3, "d": 9},
    {"batch_first": True, "heads": 1},
    {"batch_first": True, "qkv": False, "bias": False},
    {"qkv": False},
    {"batch_first": True, "activation": "gelu"},
    {"batch_first": True, "activation": "relu_fn"},
    {"batch_first": True, "activation": "gelu_module"},
    {"batch_first": True, "activation": "relu_module"},
]


def _activation(lib, name):
    return {"tanh": lib.tanh, "relu_fn": lib.nn.functional.relu, "gelu": "gelu",
            "gelu_module": lib.nn.GELU("tanh"), "relu_module": lib.nn.ReLU()}[name]


@pytest.mark.parametrize("enable", [True, False, 1, 0])
@pytest.mark.parametrize("case", CASES)
def test_encoder_nested_tensor_warning_matches_torch(case, enable):
    def build(lib):
        kw = dict(case)
        if "activation" in kw:
            kw["activation"] = _activation(lib, kw["activation"])
        layer = _layer(lib, **kw)
        enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=enable)
        return (layer.activation_relu_or_gelu, enc.enable_nested_tensor,
                enc.use_nested_tensor, enc.mask_check)

    same(build, warns=True)


def test_warning_names_the_callers_line_and_covers_custom_layers():
    class Custom(numtorch.nn.Module):
        def forward(self, x, **kwargs):
            return x

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        enc = numtorch.nn.TransformerEncoder(Custom(), 1)
    assert [w.category for w in got] == [UserWarning]
    assert got[0].filename == __file__
    assert str(got[0].message).endswith("because encoder_layer was not TransformerEncoderLayer")
    with warnings.catch_warnings(record=True) as ref:
        warnings.simplefilter("always")
        torch.nn.TransformerEncoder(torch.nn.Identity(), 1)
    assert str(got[0].message) == str(ref[0].message)
    assert enc.use_nested_tensor is False
    x = numtorch.randn(2, 3, 8)
    assert enc(x) is x or bool((enc(x) == x).all())


def test_transformer_warns_like_torch():
    same(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16).encoder.use_nested_tensor, warns=True)
    same(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, batch_first=True,
                                        norm_first=True).encoder.use_nested_tensor, warns=True)
