"""The fused scaled_dot_product_attention primitive (ops/attention_ops.py,
``ScaledDotProductAttention``) against torch: nanoGPT's head layout (views cut from one
(B, T, 3C) projection), causal masks with L != S, boolean masks with fully masked rows,
float masks with their own gradient, more than one batch dim, and the output's memory
layout. ``check_op`` runs each case's backward twice (the NumPy ``backward_arrays`` path and,
with second order, the composed one), so both are compared with torch."""

import contextlib
import functools

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op

RNG = np.random.default_rng(7)


def _math(fn):
    """Run torch's side under its math kernel (its flash kernel has no double backward)."""
    @functools.wraps(fn)
    def wrapped(t, *xs):
        ctx = torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH) \
            if t is torch else contextlib.nullcontext()
        with ctx:
            return fn(t, *xs)
    return wrapped


def _sdpa(**kw):
    def fn(t, q, k, v, *mask):
        extra = dict(kw)
        if mask:
            extra["attn_mask"] = mask[0]
        elif "mask" in kw:
            extra["attn_mask"] = t.tensor(extra.pop("mask"))
        return t.nn.functional.scaled_dot_product_attention(q, k, v, **extra)
    return _math(fn)


@_math
def _nanogpt_heads(t, qkv, heads=2):
    """nanoGPT's CausalSelfAttention core on a (B, T, 3C) projection."""
    b, n, c3 = qkv.shape
    c = c3 // 3
    q, k, v = qkv.split(c, dim=2)
    q, k, v = (x.view(b, n, heads, c // heads).transpose(1, 2) for x in (q, k, v))
    y = t.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0,
                                                     is_causal=True)
    return y.transpose(1, 2).contiguous().view(b, n, c)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nanogpt_layout(dtype):
    check_op(_nanogpt_heads, [(3, 5, 12)], dtype=dtype)


def test_output_layout_follows_query():
    qkv = RNG.standard_normal((2, 5, 12)).astype("float32")
    strides = []
    for lib in (numtorch, torch):
        q, k, v = lib.from_numpy(qkv.copy()).split(4, dim=2)
        q, k, v = (x.view(2, 5, 2, 2).transpose(1, 2) for x in (q, k, v))
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        strides.append((tuple(y.stride()), y.transpose(1, 2).is_contiguous()))
        y2 = lib.nn.functional.scaled_dot_product_attention(q.contiguous(), k.contiguous(),
                                                            v.contiguous())
        strides.append((tuple(y2.stride()), y2.is_contiguous()))
    assert strides[:2] == strides[2:]


def test_fused_node_is_used():
    q = numtorch.randn(2, 3, 4, requires_grad=True)
    y = numtorch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    # the node carries torch's name for its CPU kernel choice; the op underneath is the fused one
    assert y.grad_fn._op_cls.__name__ == "ScaledDotProductAttention"
    if y.device.type == "cpu":
        assert y.grad_fn.name() == "UnsafeViewBackward0"


@pytest.mark.parametrize("L,S", [(4, 6), (6, 4), (1, 3)])
def test_causal_rectangular(L, S):
    check_op(_sdpa(is_causal=True), [(2, 3, L, 5), (2, 3, S, 5), (2, 3, S, 4)])


def test_causal_float32_scale_five_dims():
    check_op(_sdpa(is_causal=True, scale=0.7), [(2, 2, 2, 6, 4), (2, 2, 2, 6, 4),
                                                (2, 2, 2, 6, 3)], dtype="float32")


def test_bool_mask_with_dead_rows():
    mask = RNG.random((2, 1, 4, 6)) > 0.5
    mask[0, 0, 1] = False  # a query that may attend to no key gets zeros
    mask[1, 0, 2] = True
    check_op(_sdpa(mask=mask), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 3)])


@pytest.mark.parametrize("mask_shape", [(4, 6), (2, 1, 4, 6), (6,)])
def test_float_mask_gradient(mask_shape):
    check_op(_sdpa(), [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 3), mask_shape])


def test_mask_with_causal_raises():
    with pytest.raises(RuntimeError):
        numtorch.nn.functional.scaled_dot_product_attention(
            numtorch.zeros(2, 4, 5), numtorch.zeros(2, 4, 5), numtorch.zeros(2, 4, 5),
            attn_mask=numtorch.zeros(4, 4), is_causal=True)


def test_two_dim_operands_and_no_keys():
    check_op(_sdpa(is_causal=True), [(4, 5), (6, 5), (6, 3)])
    check_op(_sdpa(), [(2, 4, 5), (2, 0, 5), (2, 0, 3)], second_order=False)


@pytest.mark.parametrize("causal", [True, False])
def test_batch_split_across_threads(monkeypatch, causal):
    # nanoGPT-sized calls split the batch across the intra-op threads; force the split on
    # small inputs (parts of one batch entry each) and compare with torch
    from numtorch.ops import _intraop, attention_ops

    monkeypatch.setattr(_intraop, "_MIN_PART", 1)
    # as on an idle machine, whatever the load now (BLAS's thread cap follows the load)
    monkeypatch.setattr(attention_ops, "fit_blas_threads", lambda: None)
    monkeypatch.setattr(attention_ops, "blas_threads_now", lambda: 2)
    splits = []
    real = attention_ops.run_split
    monkeypatch.setattr(attention_ops, "run_split",
                        lambda k, n, unit: splits.append(_intraop.parts(n, unit)) or
                        real(k, n, unit))
    threads = numtorch.get_num_threads()
    numtorch.set_num_threads(2)
    try:
        check_op(_sdpa(is_causal=causal), [(3, 2, 5, 4), (3, 2, 6, 4), (3, 2, 6, 3)],
                 dtype="float32")
        check_op(_nanogpt_heads, [(3, 5, 12)])
    finally:
        numtorch.set_num_threads(threads)
    if not numtorch.backend.is_device_array(numtorch.zeros(1)._array):
        assert splits and all(k == 2 for k in splits)
