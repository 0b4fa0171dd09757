"""The multi-head attention core's GPU path on the CuPy stand-in (ops/attention_ops.py's
_mha_device_forward/_mha_device_backward, backend/_cupy_attention.py): heads copied once into
C-contiguous arrays, whole-row softmax kernels forward and backward, every product on
C-contiguous operands. Launch counts, and values and gradients against torch (the oracle, on
the CPU) and against the xp path (kernels off)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _mha(lib, device, dtype, batch_first, kdim=None, mask=None, need_weights=True, seed=0):
    rng = np.random.default_rng(seed)
    n, length, s_len, e = 3, 5, 4 if kdim else 5, 8
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(e, 2, batch_first=batch_first, kdim=kdim, vdim=kdim,
                                  dtype=getattr(lib, dtype))
    if lib is numtorch:
        m.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                           for k, v in _MODULES[(dtype, batch_first, kdim)].state_dict().items()})
        m = m.to(device)
    else:
        _MODULES[(dtype, batch_first, kdim)] = m

    def t(a, grad=True):
        x = lib.from_numpy(a.astype(dtype)).to(device)
        return x.requires_grad_(grad)

    shape = (n, length, e) if batch_first else (length, n, e)
    kshape = (n, s_len, kdim or e) if batch_first else (s_len, n, kdim or e)
    x = t(rng.standard_normal(shape))
    mem = t(rng.standard_normal(kshape)) if kdim else None
    am = None
    if mask is not None:
        am = t(mask, grad=False)
    out, w = m(x, mem if kdim else x, mem if kdim else x, attn_mask=am,
               need_weights=need_weights)
    loss = (out * out).sum() + ((w * w).sum() if need_weights else 0)
    leaves = [x] + ([mem] if kdim else []) + list(m.parameters())
    grads = lib.autograd.grad(loss, leaves)
    res = [out] + ([w] if need_weights else []) + list(grads)
    return [r.detach().cpu().numpy() for r in res]


_MODULES = {}


def _case(dtype, batch_first, kdim=None, mask=None, need_weights=True):
    want = _mha(torch, "cpu", dtype, batch_first, kdim, mask, need_weights)
    standin.reset_stats()
    got = _mha(numtorch, "cuda", dtype, batch_first, kdim, mask, need_weights)
    fused = standin.STATS.get("fused", [])
    return want, got, fused


_TOL = {"float32": {"rtol": 2e-4, "atol": 2e-5}, "float64": {"rtol": 1e-9, "atol": 1e-11}}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("kdim", [None, 6], ids=["packed", "separate"])
def test_attention_core_in_row_kernels_matches_torch(cuda, dtype, batch_first, kdim):
    want, got, fused = _case(dtype, batch_first, kdim)
    assert fused.count("numtorch_attn_softmax") == 1
    assert fused.count("numtorch_attn_softmax_grad") == 1
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **_TOL[dtype])


def test_masked_rows_and_float_mask(cuda):
    mask = np.zeros((5, 5))
    mask[2, :] = -np.inf  # every key masked for query 2: zero weights, as torch's fast path
    mask[3, 1] = -np.inf
    want, got, fused = _case("float64", True, mask=mask)
    assert "numtorch_attn_softmax" in fused
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), **_TOL["float64"])


def test_float_mask_gradient(cuda):
    rng = np.random.default_rng(3)
    res = []
    standin.reset_stats()
    for lib, dev in ((torch, "cpu"), (numtorch, "cuda")):
        q, k, v = (lib.from_numpy(rng.standard_normal((4, 2, 6))).to(dev).requires_grad_()
                   for _ in range(3))
        mask = lib.from_numpy(rng.standard_normal((4, 4))).to(dev).requires_grad_()
        w = lib.from_numpy(np.eye(6)).to(dev)
        out, _ = lib.nn.functional.multi_head_attention_forward(
            q, k, v, 6, 2, None, None, None, None, False, 0.0, w, None, training=False,
            need_weights=False, attn_mask=mask, use_separate_proj_weight=True,
            q_proj_weight=w, k_proj_weight=w, v_proj_weight=w)
        res.append([g.detach().cpu().numpy() for g in
                    lib.autograd.grad((out * out).sum(), [q, k, v, mask])])
        rng = np.random.default_rng(3)
    assert "numtorch_attn_softmax_grad" in standin.STATS.get("fused", [])
    for a, b in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def _core_launches(qkv):
    from numtorch.ops import attention_ops

    standin.reset_stats()
    o = attention_ops.multi_head_attention_core(qkv, None, None, None, 4, 0.125)
    forward = standin.STATS["kernels"]
    g = numtorch.ones_like(o)
    standin.reset_stats()
    (dqkv,) = numtorch.autograd.grad(o, qkv, g)
    return forward, standin.STATS["kernels"], o.detach().cpu().numpy(), dqkv.cpu().numpy()


def test_fewer_launches_than_the_xp_path(cuda):
    """The packed self-attention core: 6 launches forward (one copy of the heads, K^T, two
    products, the softmax, the merged output) and 8 backward, where the xp path launches 11
    and 12 (and cupy.matmul adds a copy for each strided operand on a GPU)."""
    rng = np.random.default_rng(0)
    qkv = numtorch.from_numpy(rng.standard_normal((8, 16, 96)).astype(np.float32)).cuda()
    qkv = qkv.transpose(0, 1).requires_grad_()  # batch-first memory, as nn.MultiheadAttention
    fwd, bwd, o, dqkv = _core_launches(qkv)
    assert (fwd, bwd) == (6, 8)
    _cupy_kernels.ENABLED[0] = False
    fwd_xp, bwd_xp, o_xp, dqkv_xp = _core_launches(qkv)
    assert fwd_xp >= fwd + 5 and bwd_xp >= bwd + 4
    np.testing.assert_allclose(o, o_xp, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(dqkv, dqkv_xp, rtol=2e-5, atol=2e-6)
    t = torch.from_numpy(qkv.detach().cpu().numpy()).requires_grad_()
    q, k, v = (a.reshape(16, 8, 4, 8).permute(1, 2, 0, 3) for a in t.chunk(3, -1))
    ot = torch.softmax(q @ k.mT * 0.125, -1) @ v
    ot = ot.permute(2, 0, 1, 3).reshape(16, 8, 32)
    (gt,) = torch.autograd.grad(ot, t, torch.ones_like(ot))
    np.testing.assert_allclose(o, ot.detach().numpy(), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(dqkv, gt.numpy(), rtol=2e-5, atol=2e-6)


def _sdpa(lib, device, causal, dtype=np.float32):
    """nanoGPT's layout: q, k, v heads cut from one (B, T, 3C) projection, transposed."""
    rng = np.random.default_rng(5)
    qkv = lib.from_numpy(rng.standard_normal((2, 6, 3 * 16)).astype(dtype)).to(device)
    qkv.requires_grad_(True)
    q, k, v = (t.reshape(2, 6, 4, 4).transpose(1, 2) for t in qkv.split(16, dim=2))
    y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    out = y.transpose(1, 2).contiguous().reshape(2, 6, 16)
    g = lib.from_numpy(np.sin(np.arange(out.numel())).reshape(2, 6, 16).astype(dtype))
    (gq,) = lib.autograd.grad(out, qkv, g.to(device))
    return out.detach().cpu().numpy(), gq.cpu().numpy()


@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_in_row_kernels(cuda, causal):
    want = _sdpa(torch, "cpu", causal, np.float64)
    standin.reset_stats()
    got = _sdpa(numtorch, "cuda", causal, np.float64)
    fused = standin.STATS.get("fused", [])
    assert fused.count("numtorch_attn_softmax") == 1
    assert fused.count("numtorch_attn_softmax_grad") == 1
    launches = standin.STATS["kernels"]
    _cupy_kernels.ENABLED[0] = False
    standin.reset_stats()
    plain = _sdpa(numtorch, "cuda", causal, np.float64)
    assert launches <= standin.STATS["kernels"] - 5
    for a, b, c in zip(got, want, plain):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(a, c, rtol=1e-10, atol=1e-12)
