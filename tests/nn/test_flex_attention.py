"""torch.nn.attention.flex_attention against torch 2.13 (whose CPU path runs it eagerly):
values, gradients, lse, GQA, block masks (structure, repr, slicing) and errors."""

import warnings

import pytest
import torch
import torch.nn.attention.flex_attention

import numtorch
import numtorch.nn.attention.flex_attention
from tests.oracle import check_op, same


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def fa(t):
    return t.nn.attention.flex_attention


def causal(b, h, q, kv):
    return q >= kv


def sliding(b, h, q, kv):
    return (q - kv).abs() <= 3


def relative(score, b, h, q, kv):
    return score + 0.1 * (q - kv)


def head_bias(score, b, h, q, kv):
    return score * (1.0 + 0.5 * h) - 0.05 * kv


# -- values and gradients ---------------------------------------------------------------------
# torch 2.13 refuses flex_attention's backward on the CPU ("FlexAttention does not support
# backward on CPU"); numtorch differentiates it. So each case is checked twice: values (out and
# lse) against torch's own flex_attention, and gradients (first and second order) against the
# same attention written out in torch ops, whose values must match torch's flex_attention too.


def _reference(t, q, k, v, score_mod=None, mask_mod=None, scale=None, gqa=False):
    """Attention written out with torch ops: scores, score_mod, the dense mask, softmax (rows
    with nothing allowed give zeros), and the lse."""
    B, Hq, L, E = q.shape
    S = k.shape[2]
    if gqa:
        k = k.repeat_interleave(Hq // k.shape[1], dim=1)
        v = v.repeat_interleave(Hq // v.shape[1], dim=1)
    scale = 1 / E ** 0.5 if scale is None else scale
    s = q @ k.transpose(-2, -1) * scale
    idx = [t.arange(n).view([n if i == d else 1 for i in range(4)])
           for d, n in enumerate((B, Hq, L, S))]
    if score_mod is not None:
        s = score_mod(s, *idx)
    if mask_mod is not None:
        s = s.masked_fill(~mask_mod(*idx).expand(B, Hq, L, S), float("-inf"))
    m = s.detach().amax(-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0)
    e = (s - m).exp()
    total = e.sum(-1, keepdim=True)
    return (e / total.masked_fill(total == 0, 1)) @ v, (total.log() + m).squeeze(-1)


def check_flex(shapes, score_mod=None, mask_mod=None, B=None, H=None, block=128, scale=None,
               gqa=False, dtype="float64", tol=None):
    L, S = shapes[0][2], shapes[1][2]

    def flex(t, q, k, v):
        bm = None if mask_mod is None else fa(t).create_block_mask(
            mask_mod, B, H, L, S, BLOCK_SIZE=block)
        return fa(t).flex_attention(q, k, v, score_mod=score_mod, block_mask=bm, scale=scale,
                                    enable_gqa=gqa, return_lse=True)

    def differentiated(t, q, k, v):
        if t is numtorch:
            return flex(t, q, k, v)
        want = flex(t, q.detach(), k.detach(), v.detach())
        got = _reference(t, q, k, v, score_mod, mask_mod, scale, gqa)
        for a, b in zip(got, want):
            t.testing.assert_close(a.detach(), b, atol=1e-6, rtol=1e-6)
        return got

    kw = {} if tol is None else {"atol": tol, "rtol": tol}
    check_op(flex, shapes, dtype=dtype, grad=False, **kw)
    check_op(differentiated, shapes, dtype=dtype, second_order=dtype == "float64", **kw)


@pytest.mark.parametrize("score_mod", [None, relative, head_bias])
def test_flex_attention_matches_torch(score_mod):
    check_flex([(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3)], score_mod)


@pytest.mark.parametrize("mask_mod,size,block", [
    (causal, (7, 7), 2), (sliding, (9, 11), 4), (causal, (5, 6), 128),
    (lambda b, h, q, kv: (kv < q) & (h != 1), (6, 6), 2),   # fully masked rows and heads
    (lambda b, h, q, kv: (b == 0) | (kv % 2 == 0), (5, 8), (2, 4)),
])
def test_flex_attention_block_mask_matches_torch(mask_mod, size, block):
    L, S = size
    check_flex([(2, 2, L, 4), (2, 2, S, 4), (2, 2, S, 5)], relative, mask_mod, 2, 2, block)


def test_flex_attention_broadcast_block_mask_and_scale():
    check_flex([(3, 2, 6, 4)] * 3, None, causal, None, None, 2, scale=0.37)


def test_flex_attention_gqa_and_lse():
    check_flex([(1, 6, 5, 4), (1, 2, 7, 4), (1, 2, 7, 3)], head_bias, causal, 1, 6, 2,
               gqa=True)


def test_flex_attention_return_aux_matches_torch():
    def fn(t, q, k, v):
        out, aux = fa(t).flex_attention(q, k, v, score_mod=head_bias, enable_gqa=True,
                                        return_aux=fa(t).AuxRequest(lse=True))
        return out, aux.lse, aux.max_scores, type(aux).__name__

    check_op(fn, [(1, 6, 5, 4), (1, 2, 7, 4), (1, 2, 7, 3)], grad=False)


def test_flex_attention_gradient_reaches_captured_tensor():
    def fn(t, q, k, v, bias):
        def mod(score, b, h, qi, ki):
            return score + bias[h, qi - ki + 4]

        if t is numtorch:
            return fa(t).flex_attention(q, k, v, score_mod=mod)
        return _reference(t, q, k, v, mod)[0]

    check_op(fn, [(1, 2, 5, 4), (1, 2, 5, 4), (1, 2, 5, 4), (2, 9)])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_flex_attention_low_precision(dtype):
    def fn(t, q, k, v):
        bm = fa(t).create_block_mask(causal, 1, 1, 6, 6, BLOCK_SIZE=2)
        q, k, v = (x.to(getattr(t, dtype)) for x in (q, k, v))
        out, lse = fa(t).flex_attention(q, k, v, block_mask=bm, return_lse=True)
        return out.float(), lse, str(out.dtype), str(lse.dtype)

    tol = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 2e-2}[dtype]
    check_op(fn, [(1, 2, 6, 4)] * 3, dtype="float32", atol=tol, rtol=tol, grad=False)


def test_flex_attention_float32_gradients():
    check_flex([(2, 2, 8, 4)] * 3, relative, sliding, 1, 2, 4, dtype="float32", tol=1e-5)


def test_flex_attention_backward_is_numtorchs_extension():
    """torch refuses the CPU backward; numtorch's gradient agrees with finite differences."""
    q = numtorch.randn(1, 2, 4, 3, dtype=numtorch.float64, requires_grad=True)
    k = numtorch.randn(1, 2, 5, 3, dtype=numtorch.float64, requires_grad=True)
    v = numtorch.randn(1, 2, 5, 3, dtype=numtorch.float64, requires_grad=True)
    bm = fa(numtorch).create_block_mask(causal, 1, 1, 4, 5, BLOCK_SIZE=2)
    assert numtorch.autograd.gradcheck(
        lambda q, k, v: fa(numtorch).flex_attention(q, k, v, score_mod=relative,
                                                    block_mask=bm), (q, k, v))
    with pytest.raises(NotImplementedError, match="does not support backward on CPU"):
        fa(torch).flex_attention(*(torch.ones(1, 1, 2, 2, requires_grad=True),) * 3)


# -- BlockMask structure ------------------------------------------------------------------

def _fields(bm):
    names = ["kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
             "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices"]
    return ([getattr(bm, n) for n in names], bm.BLOCK_SIZE, bm.shape, bm.seq_lengths,
            bm.numel(), round(bm.sparsity(), 9), bm.to_dense(), repr(bm), str(bm))


@pytest.mark.parametrize("mask_mod,B,H,L,S,block", [
    (causal, 1, 1, 300, 260, 128),
    (causal, 2, 3, 256, 256, 64),
    (sliding, None, None, 1024, 1024, 128),
    (causal, None, None, 4096, 4096, 128),
    (lambda b, h, q, kv: (q >= 200) & (kv < 128), 1, 1, 130, 256, 128),
    (lambda b, h, q, kv: (h == 1) & (q >= kv), 1, 2, 192, 192, 64),
    (lambda b, h, q, kv: (b + h + q + kv) % 3 == 0, 2, 2, 20, 30, (4, 8)),
    (fa(numtorch).noop_mask, 1, 1, 5, 5, 128),
    (fa(numtorch).noop_mask, 1, 1, 256, 256, 128),
])
def test_create_block_mask_matches_torch(mask_mod, B, H, L, S, block):
    def fn(t):
        mod = fa(t).noop_mask if mask_mod is fa(numtorch).noop_mask else mask_mod
        return _fields(fa(t).create_block_mask(mod, B, H, L, S,
                                               BLOCK_SIZE=block))

    same(fn)


def test_block_mask_slicing_adjust_and_options():
    def fn(t):
        bm = fa(t).create_block_mask(causal, 2, 3, 256, 256, BLOCK_SIZE=64)
        big = fa(t).create_block_mask(causal, 1, 1, 300, 300)
        plain = fa(t).create_block_mask(causal, 1, 1, 256, 256,
                                        separate_full_blocks=False)
        return (_fields(bm[1]), _fields(bm[:, 1]), _fields(bm[1, 2]), _fields(bm[0, 0, 1:]),
                _fields(big._adjust(200, 200)), _fields(plain),
                bm.to_string(limit=1), bm.to_string(grid_size=1),
                bm[0, 0, 1:].mask_mod.__name__, len(bm.as_tuple()),
                len(bm.as_tuple(flatten=False)), _fields(bm.to("cpu")))

    same(fn)


def test_block_mask_from_kv_blocks_and_to_string_downsampling():
    def fn(t):
        out = []
        for n in (17, 20, 23, 31, 33, 48, 64, 88):
            dense = t.zeros(n, n + 5, dtype=t.bool)
            dense[0, :3] = True
            dense[-1, -1] = True
            dense[n // 2, : n // 3] = True
            num = dense.sum(-1).int()[None, None]
            idx = t.argsort((~dense).int(), dim=-1, stable=True).int()[None, None]
            bm = fa(t).BlockMask.from_kv_blocks(num, idx, BLOCK_SIZE=1)
            out.append((bm.to_string(), bm.q_num_blocks, bm.q_indices, bm.seq_lengths))
        bm = fa(t).BlockMask.from_kv_blocks(t.tensor([[[1, 2]]], dtype=t.int32),
                                            t.tensor([[[[0, 1], [0, 1]]]], dtype=t.int32))
        out.append(_fields(bm))
        return out

    same(fn)


def test_mask_combinators_and_create_mask():
    def fn(t):
        both = fa(t).and_masks(causal, lambda b, h, q, kv: kv > 1)
        either = fa(t).or_masks(causal, lambda b, h, q, kv: kv > 3)
        return (both.__name__, either.__name__,
                fa(t).create_mask(both, 1, 2, 4, 5),
                fa(t).create_mask(either, None, None, 4, 5),
                fa(t).noop_mask(*[t.tensor(0)] * 4),
                _fields(fa(t).create_block_mask(both, 1, 1, 8, 8, BLOCK_SIZE=2)),
                fa(t)._DEFAULT_SPARSE_BLOCK_SIZE, fa(t).AuxRequest(lse=True))

    same(fn)


def test_flex_attention_with_combined_and_document_masks():
    docs = [0, 0, 0, 1, 1, 2, 2, 2, 2]

    def same_doc(b, h, qi, ki):
        ids = (numtorch if isinstance(qi, numtorch.Tensor) else torch).tensor(docs)
        return ids[qi] == ids[ki]

    def mask(b, h, qi, ki):
        return causal(b, h, qi, ki) & same_doc(b, h, qi, ki)

    check_flex([(1, 2, 9, 4)] * 3, None, mask, 1, 1, 2)


# -- errors ---------------------------------------------------------------------------------

def _call(q_shape, k_shape, v_shape, **kw):
    def fn(t):
        kwargs = dict(kw)
        bm = kwargs.pop("bm", None)
        if bm is not None:
            kwargs["block_mask"] = bm(t)
        return fa(t).flex_attention(t.ones(q_shape), t.ones(k_shape), t.ones(v_shape),
                                    **kwargs)
    return fn


@pytest.mark.parametrize("case", [
    _call((2, 5, 4), (2, 5, 4), (2, 5, 4)),
    _call((1, 4, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8)),
    _call((1, 3, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8), enable_gqa=True),
    _call((2, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8)),
    _call((1, 2, 5, 8), (1, 2, 5, 6), (1, 2, 5, 8)),
    _call((1, 2, 5, 8), (1, 2, 6, 8), (1, 2, 7, 8)),
    _call((1, 2, 5, 0), (1, 2, 5, 0), (1, 2, 5, 0)),
    _call((1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8), return_lse=True,
          return_aux=fa(numtorch).AuxRequest(lse=True)),
    _call((1, 2, 200, 8), (1, 2, 200, 8), (1, 2, 200, 8),
          bm=lambda t: fa(t).create_block_mask(causal, 1, 1, 300, 300)),
    _call((1, 2, 400, 8), (1, 2, 400, 8), (1, 2, 400, 8),
          bm=lambda t: fa(t).create_block_mask(causal, 1, 1, 300, 300)),
    _call((1, 2, 3, 8), (1, 2, 5, 8), (1, 2, 5, 8),
          bm=lambda t: fa(t).create_block_mask(causal, 2, 1, 5, 5)[:1]._adjust(
              3, 5)),
])
def test_flex_attention_errors_match_torch(case):
    same(case)


@pytest.mark.parametrize("bad", [lambda b, h: b, lambda s, b, h, q, kv: s])
def test_create_block_mask_rejects_bad_functions(bad):
    same(lambda t: fa(t).create_block_mask(bad, 1, 1, 4, 4))
