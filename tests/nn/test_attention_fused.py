"""The fused attention primitive (numtorch/ops/attention_ops.py) and the fused linear op's
permuted-layout path, against torch through nn.functional.multi_head_attention_forward,
F.linear and the Transformer modules.

Each case runs twice: without ``create_graph`` (the NumPy backward) and with second order
(the backward composed of numtorch ops), so both backward paths are compared with torch."""

import contextlib

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op

RNG = np.random.default_rng(3)


def _math_kernel(t):
    """torch's flash SDPA kernel has no double backward; its math kernel does (numtorch has
    one path only)."""
    if t is torch:
        return torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH)
    return contextlib.nullcontext()


def _mha_f(self_attn, need_weights, average=True, batch_first=False, **kw):
    """A check_op lambda for F.multi_head_attention_forward over (q, k, v, weights...).

    ``self_attn``: the same tensor is passed as query, key and value (the packed path).
    ``batch_first``: the inputs are given batch-first and transposed inside (strided views).
    """
    def fn(t, q, k, v, w_in, b_in, w_out, b_out):
        if batch_first:
            q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        if self_attn:
            k = v = q
        extra = {n: (t.tensor(a) if isinstance(a, np.ndarray) else a) for n, a in kw.items()}
        with _math_kernel(t):
            out, w = t.nn.functional.multi_head_attention_forward(
                q, k, v, q.shape[-1], HEADS, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                training=True, need_weights=need_weights, average_attn_weights=average,
                **extra)
        return (out, w) if need_weights else out
    return fn


HEADS = 2


def _shapes(L, S, N, E, batch_first=False, unbatched=False):
    if unbatched:
        q, kv = (L, E), (S, E)
    elif batch_first:
        q, kv = (N, L, E), (N, S, E)
    else:
        q, kv = (L, N, E), (S, N, E)
    return [q, kv, kv, (3 * E, E), (3 * E,), (E, E), (E,)]


CASES = [
    dict(self_attn=True, need_weights=False),
    dict(self_attn=True, need_weights=True),
    dict(self_attn=True, need_weights=True, average=False),
    dict(self_attn=False, need_weights=False),
    dict(self_attn=False, need_weights=True),
    dict(self_attn=True, need_weights=False, batch_first=True),
    dict(self_attn=False, need_weights=True, batch_first=True),
]


@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_fused_mha_functional(case, second_order):
    L, S = 5, (5 if case["self_attn"] else 3)
    check_op(_mha_f(**case), _shapes(L, S, 3, 6, case.get("batch_first", False)),
             second_order=second_order)


@pytest.mark.parametrize("second_order", [False, True])
def test_fused_mha_unbatched_float32(second_order):
    check_op(_mha_f(True, False), _shapes(4, 4, 1, 8, unbatched=True), dtype="float32",
             second_order=second_order)


MASKS = [
    dict(attn_mask=RNG.standard_normal((5, 5))),
    dict(attn_mask=RNG.standard_normal((3 * HEADS, 5, 5))),
    dict(key_padding_mask=np.array([[False] * 4 + [True]] * 3)),
    dict(attn_mask=np.triu(np.ones((5, 5), dtype=bool), 1),
         key_padding_mask=RNG.standard_normal((3, 5))),
]


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("masks", MASKS)
def test_fused_mha_masks(masks, second_order, need_weights):
    check_op(_mha_f(True, need_weights, **masks), _shapes(5, 5, 3, 6),
             second_order=second_order)


@pytest.mark.parametrize("second_order", [False, True])
def test_fused_mha_float_mask_gradient(second_order):
    """A float attn_mask that requires grad gets torch's gradient (summed over its
    broadcast dims)."""
    def fn(t, q, w_in, b_in, w_out, b_out, m):
        with _math_kernel(t):
            return t.nn.functional.multi_head_attention_forward(
                q, q, q, 6, HEADS, w_in, b_in, None, None, False, 0.0, w_out, b_out,
                need_weights=False, attn_mask=m)[0]
    check_op(fn, [(5, 3, 6), (18, 6), (18,), (6, 6), (6,), (5, 5)],
             second_order=second_order)


@pytest.mark.parametrize("second_order", [False, True])
def test_fused_mha_fully_masked_rows(second_order):
    """need_weights=False: a query row with every key masked gives zeros (and zero
    gradient), as torch's scaled_dot_product_attention path."""
    kpm = np.array([[False] * 5, [True] * 5, [False, True, False, True, True]])
    check_op(_mha_f(True, False, key_padding_mask=kpm), _shapes(5, 5, 3, 6),
             second_order=second_order)


@pytest.mark.parametrize("second_order", [False, True])
def test_fused_mha_separate_weights(second_order):
    """kdim/vdim: q, k and v projected by separate weights (non-packed path)."""
    def fn(t, q, k, v, wq, wk, wv, b_in, w_out, b_out):
        with _math_kernel(t):
            return t.nn.functional.multi_head_attention_forward(
                q, k, v, 6, HEADS, None, b_in, None, None, False, 0.0, w_out, b_out,
                need_weights=False, use_separate_proj_weight=True, q_proj_weight=wq,
                k_proj_weight=wk, v_proj_weight=wv)[0]
    check_op(fn, [(4, 2, 6), (3, 2, 5), (3, 2, 7), (6, 6), (6, 5), (6, 7), (18,), (6, 6),
                  (6,)], second_order=second_order)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [dict(batch_first=True), dict(batch_first=False),
                                dict(batch_first=True, bias=False)])
def test_self_attention_module(kw, dtype):
    """The module's self-attention call (one tensor for q, k, v) in both layouts."""
    shape = (3, 7, 8) if kw["batch_first"] else (7, 3, 8)
    check_module(lambda t: t.nn.MultiheadAttention(8, 4, **kw), [shape], dtype=dtype,
                 forward=lambda m, x: m(x, x, x, need_weights=False)[0])


@pytest.mark.parametrize("kw", [dict(batch_first=True), dict(batch_first=True,
                                                               norm_first=True),
                                dict(batch_first=False, activation="gelu")])
def test_encoder_self_attention(kw):
    check_module(lambda t: t.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw),
                 [(3, 5, 8)])


def test_output_layout_follows_input():
    """The fused op writes its output in the input's memory order (no merge copy) and keeps
    float32."""
    x = numtorch.randn(4, 6, 8)
    m = numtorch.nn.MultiheadAttention(8, 2, batch_first=True)
    out = m(x, x, x, need_weights=False)[0]
    assert out.dtype == numtorch.float32
    assert out._array.flags.c_contiguous


# -------------------------------------------------------------------- linear, permuted input

@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1, 3), (1, 2, 0, 3)])
def test_linear_permuted_input(perm, second_order):
    shape = (3, 4, 2)[:len(perm) - 1] + (5,)
    check_op(lambda t, x, w, b: t.nn.functional.linear(x.permute(*perm), w, b),
             [shape, (6, 5), (6,)], second_order=second_order)


@pytest.mark.parametrize("second_order", [False, True])
def test_linear_sliced_and_float32(second_order):
    check_op(lambda t, x, w: t.nn.functional.linear(x[:, ::2].transpose(0, 1), w),
             [(3, 8, 5), (4, 5)], dtype="float32", second_order=second_order)


def test_linear_permuted_output_values_and_dtype():
    x = numtorch.randn(5, 3, 4).transpose(0, 1)
    w = numtorch.randn(2, 4, requires_grad=True)
    y = numtorch.nn.functional.linear(x, w)
    assert y.dtype == numtorch.float32
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ w.detach().numpy().T,
                               rtol=1e-5, atol=1e-6)
    y.sum().backward()
    assert w.grad.dtype == numtorch.float32


# ------------------------------------- column sums by BLAS (layer norm, batch norm, bias)

LN_CASES = {
    "affine": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (7,), w, b),
               [(16, 9, 7), (7,), (7,)]),
    "weight_only": (lambda t, x, w: t.nn.functional.layer_norm(x, (7,), w),
                    [(16, 9, 7), (7,)]),
    "bias_only": (lambda t, x, b: t.nn.functional.layer_norm(x, (7,), None, b),
                  [(16, 9, 7), (7,)]),
    "two_dims": (lambda t, x, w, b: t.nn.functional.layer_norm(x, (3, 5), w, b),
                 [(11, 3, 5), (3, 5), (3, 5)]),
    "permuted": (lambda t, x, w, b: t.nn.functional.layer_norm(x.transpose(0, 1), (7,), w, b),
                 [(9, 16, 7), (7,), (7,)]),
    "batch_norm_2d": (lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b,
                                                                     training=True),
                      [(33, 6), (6,), (6,)]),
}


# torch 2.13 cannot take the second derivative of layer_norm with a bias but no weight
_FIRST_ORDER_ONLY = {"bias_only"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("case", sorted(LN_CASES))
def test_norm_column_sums(case, second_order, dtype):
    fn, shapes = LN_CASES[case]
    check_op(fn, shapes, dtype=dtype,
             second_order=second_order and case not in _FIRST_ORDER_ONLY)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("second_order", [False, True])
def test_linear_bias_gradient(second_order, dtype):
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(5, 33, 4), (3, 4), (3,)],
             dtype=dtype, second_order=second_order)
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(1, 4), (3, 4), (3,)],
             dtype=dtype, second_order=second_order)


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("lengths", [(0, 3), (3, 0), (1, 1)])
def test_fused_mha_empty_and_single(lengths, need_weights):
    L, S = lengths
    check_op(_mha_f(False, need_weights), _shapes(L, S, 2, 4), second_order=False)
    check_op(_mha_f(False, need_weights), _shapes(L, S, 2, 4))



def _force_batch_split(monkeypatch, counts):
    """As on an idle machine with two threads: the fused core splits its batch (tiny parts
    allowed); ``counts`` receives the part count of each split call."""
    from numtorch.ops import _intraop, attention_ops

    monkeypatch.setattr(_intraop, "_MIN_PART", 1)
    monkeypatch.setattr(attention_ops, "fit_blas_threads", lambda: None)
    monkeypatch.setattr(attention_ops, "blas_threads_now", lambda: 2)
    real = attention_ops.run_split
    monkeypatch.setattr(attention_ops, "run_split",
                        lambda k, n, unit: counts.append(_intraop.parts(n, unit)) or
                        real(k, n, unit))


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[5], CASES[1]])
def test_fused_mha_batch_split(monkeypatch, case):
    """The fused core's batch split across the intra-op threads (no mask): torch's values
    and gradients, first and second order."""
    counts = []
    _force_batch_split(monkeypatch, counts)
    threads = numtorch.get_num_threads()
    numtorch.set_num_threads(2)
    try:
        for second_order in (False, True):
            L, S = 5, (5 if case["self_attn"] else 3)
            check_op(_mha_f(**case), _shapes(L, S, 3, 6, case.get("batch_first", False)),
                     second_order=second_order, dtype="float32")
    finally:
        numtorch.set_num_threads(threads)
    if not numtorch.backend.is_device_array(numtorch.zeros(1)._array):
        assert counts and all(k == 2 for k in counts)


def test_fused_mha_batch_split_is_bitwise(monkeypatch):
    """Split or not, the fused core's output and input gradients are the same bits (each
    batch entry is computed by the same NumPy calls either way)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 7, 16)).astype(np.float32)
    m = numtorch.nn.MultiheadAttention(16, 4, batch_first=True)

    def run():
        t = numtorch.tensor(x, requires_grad=True)
        out = m(t, t, t, need_weights=False)[0]
        out.backward(numtorch.tensor(x[..., ::-1].copy()))
        return out.detach().numpy(), t.grad.numpy(), m.in_proj_weight.grad.numpy()

    whole = run()
    m.zero_grad()
    counts = []
    _force_batch_split(monkeypatch, counts)
    threads = numtorch.get_num_threads()
    numtorch.set_num_threads(2)
    try:
        parts = run()
    finally:
        numtorch.set_num_threads(threads)
    for a, b in zip(whole, parts):
        np.testing.assert_array_equal(a, b)
    if not numtorch.backend.is_device_array(numtorch.zeros(1)._array):
        assert counts and all(k == 2 for k in counts)
