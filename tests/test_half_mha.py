"""float16/bfloat16 MultiheadAttention without weights runs, as torch's, through
scaled_dot_product_attention on (N, H, L, E) heads: the composed ops' roundings gave another
last bit on ~45% of the outputs."""

import numpy as np
import pytest
import torch

import numtorch as nt

L, N, E, H = 5, 3, 16, 4


def _masks(lib, name, dtype):
    rng = np.random.default_rng(1)
    kpm = np.zeros((N, L), bool)
    kpm[0, -2:] = True
    kw = {}
    if "kpm" in name:
        kw["key_padding_mask"] = lib.tensor(kpm)
    if name == "float_mask":
        kw["attn_mask"] = lib.tensor(np.triu(np.full((L, L), -np.inf, np.float32), 1)).to(dtype)
    if "bool_mask" in name:
        kw["attn_mask"] = lib.tensor(np.triu(np.ones((L, L), bool), 1))
    if name == "head_mask":
        kw["attn_mask"] = lib.tensor(rng.standard_normal((N * H, L, L)).astype(np.float32)).to(
            dtype)
    return kw


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["none", "kpm", "float_mask", "bool_mask", "head_mask",
                                  "kpm+bool_mask", "unbatched", "seq_first"])
def test_mha_forward_bit_for_bit(dtype, name):
    xs = np.random.default_rng(0).standard_normal((N, L, E)).astype(np.float32)
    outs = []
    for lib in (nt, torch):
        lib.manual_seed(0)
        first = name == "seq_first"
        m = lib.nn.MultiheadAttention(E, H, batch_first=not first).to(getattr(lib, dtype))
        x = lib.tensor(xs).to(getattr(lib, dtype))
        x = x.transpose(0, 1) if first else x[0] if name == "unbatched" else x
        y, w = m(x, x, x, need_weights=False, **_masks(lib, name, x.dtype))
        assert w is None
        outs.append((y.detach().float().numpy(), str(y.dtype)))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]


def test_transformer_layer_training_forward():
    xs = np.random.default_rng(0).standard_normal((3, 6, 16)).astype(np.float32)
    outs = []
    for lib in (nt, torch):
        lib.manual_seed(0)
        m = lib.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        y = m.to(lib.bfloat16)(lib.tensor(xs).to(lib.bfloat16))
        outs.append(y.detach().float().numpy())
    np.testing.assert_array_equal(*outs)
