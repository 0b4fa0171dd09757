"""float16/bfloat16 scaled dot-product attention with torch's CPU flash-kernel roundings.

Why an op of its own (numerics): torch's CPU flash attention computes in float32 but rounds
to the input type at fixed points, and its gradients carry those roundings (a float32
composition rounded once differed from them on half the values, by up to thousands of units
in the last place where a gradient cancels). Measured against torch 2.13:

* forward: scores, their maxima and exponentials in float32; the exponentials rounded to
  the input type for the product with ``value`` (float32 sums); keys in blocks of 512 with
  the running maximum (online softmax); the float32 quotient rounded once. The kernel's
  vectorised ``exp`` differs from the exact one in float32's last bits, which moves the
  rounding of an exponential (and so a query's row by a unit) on a few rows of long
  sequences; that is not emulated;
* backward: the weights ``p = exp(s - logsumexp)`` in float32; ``dv`` sums ``round(p)^T g``,
  ``dq`` ``round(ds) k * scale`` and ``dk`` ``round(ds)^T q * scale`` with
  ``ds = p * (g v^T - rowsum(g * out))`` (``out`` the rounded output); each gradient is
  accumulated in the input type block after block: ``dq`` over blocks of 512 keys, ``dk``
  and ``dv`` over blocks of 32 queries (64 from 192 queries, 256 from 768).
"""

import numpy as np

import numtorch

from ...autograd import graph as _graph
from ...autograd.graph import Op

_KV_BLOCK = 512


def _q_block(length):
    return 256 if length >= 768 else 64 if length >= 192 else 32


def _scores(xp, q, k, mask, causal, scale):
    """float32 scores ``q k^T * scale`` with the causal pattern or ``mask`` applied."""
    s = xp.matmul(q, k.swapaxes(-1, -2))
    s *= np.float32(scale)
    L, S = s.shape[-2:]
    if causal:
        s = xp.where(xp.tril(xp.ones((L, S), bool)), s, np.float32(-np.inf))
    elif mask is not None:
        s = xp.where(mask, s, np.float32(-np.inf)) if mask.dtype == np.bool_ else \
            s + mask.astype(np.float32)
    return s


def _exp(xp, x):
    """float32 ``exp`` correctly rounded (the kernel's scalar ``exp``; NumPy's float32 one
    is a unit off on many inputs)."""
    return xp.exp(x.astype(np.float64)).astype(np.float32)


class HalfFlashAttention(Op):
    """o = softmax(q k^T * scale + mask) v for float16/bfloat16 4-d operands, rounded as
    torch's CPU flash kernel rounds (module docstring). Inputs ``(q, k, v[, mask])``;
    parameters ``causal``, ``scale``, ``masked`` (whether a mask input follows)."""

    def forward(self, q, k, v, mask=None):
        xp, half = self.xp, q.dtype
        s = _scores(xp, q.astype(np.float32), k.astype(np.float32), mask, self.causal,
                    self.scale)
        vf = v.astype(np.float32)
        top = xp.full(s.shape[:-1] + (1,), -np.inf, np.float32)
        total = xp.zeros_like(top)
        acc = xp.zeros(s.shape[:-1] + v.shape[-1:], np.float32)
        for j in range(0, max(s.shape[-1], 1), _KV_BLOCK):
            blk = s[..., j:j + _KV_BLOCK]
            new = xp.maximum(top, blk.max(-1, keepdims=True)) if blk.shape[-1] else top
            shift = xp.where(xp.isneginf(new), np.float32(0), new)
            e = _exp(xp, blk - shift)
            alpha = _exp(xp, top - shift)
            total = total * alpha + e.sum(-1, keepdims=True, dtype=np.float64).astype(np.float32)
            acc = acc * alpha + xp.matmul(e.astype(half).astype(np.float32),
                                          vf[..., j:j + _KV_BLOCK, :])
            top = new
        empty = total == 0  # a query with no key to see: 0 (as the kernel)
        out = (acc / xp.where(empty, np.float32(1), total)).astype(half)
        lse = xp.where(empty, np.float32(np.inf),
                       xp.where(xp.isneginf(top), np.float32(0), top) + xp.log(
                           xp.where(empty, np.float32(1), total)))
        self.save_inputs(q, k, v) if mask is None else self.save_inputs(q, k, v, mask)
        self.save(lse=lse)
        return self.save_output(out)

    def backward(self, grad):
        saved = self.saved_inputs()
        q, k, v = saved[:3]
        mask = saved[3] if len(saved) > 3 else None
        half = q.dtype
        out = self.saved_output()
        qf, kf, vf = q.float(), k.float(), v.float()
        s = qf.matmul(kf.transpose(-2, -1)) * self.scale
        L, S = s.shape[-2:]
        if self.causal:
            keep = numtorch.ones((L, S), dtype=numtorch.bool, device=q.device).tril()
            s = s.masked_fill(keep.logical_not(), float("-inf"))
        elif mask is not None:
            s = s.masked_fill(mask.logical_not(), float("-inf")) \
                if mask.dtype == numtorch.bool else s + mask.float()
        lse = numtorch.tensor(self.saved("lse"), device=q.device)
        p = (s - lse).exp()
        g = grad.float()
        p16 = p.to(half).float()
        ds = p * (g.matmul(vf.transpose(-2, -1)) - (g * out.float()).sum(-1, keepdim=True))
        ds16 = ds.to(half).float()
        nq = self.needs_input_grad
        gq = gk = gv = None
        if nq[0]:
            gq = numtorch.zeros(q.shape, dtype=half, device=q.device)
            for j in range(0, S, _KV_BLOCK):
                part = ds16[..., j:j + _KV_BLOCK].matmul(kf[..., j:j + _KV_BLOCK, :])
                gq = (gq.float() + part * self.scale).to(half)
        if nq[1] or nq[2]:
            step = _q_block(L)
            gk = numtorch.zeros(k.shape, dtype=half, device=q.device) if nq[1] else None
            gv = numtorch.zeros(v.shape, dtype=half, device=q.device) if nq[2] else None
            for i in range(0, L, step):
                rows = slice(i, i + step)
                if nq[1]:
                    part = ds16[..., rows, :].transpose(-2, -1).matmul(qf[..., rows, :])
                    gk = (gk.float() + part * self.scale).to(half)
                if nq[2]:
                    part = p16[..., rows, :].transpose(-2, -1).matmul(g[..., rows, :])
                    gv = (gv.float() + part).to(half)
        grads = (gq, gk, gv)
        return grads if len(nq) == 3 else grads + (None,)


def applies(query, key, value, attn_mask):
    """Whether the flash emulation covers the call: 4-d operands of one batch size, head
    count and head size (the kernel's shapes), a mask that does not need a gradient."""
    if not all(t.dim() == 4 for t in (query, key, value)) or _graph._hook is not None or \
            _graph.ops_traced():
        return False  # (an exporter, a tracer or vmap takes the composed form)
    if not (query.shape[0] == key.shape[0] == value.shape[0]
            and query.shape[1] == key.shape[1] == value.shape[1]
            and query.shape[-1] == key.shape[-1] == value.shape[-1]):
        return False
    return attn_mask is None or not (attn_mask.requires_grad or attn_mask.dim() > 4)


def attention(query, key, value, attn_mask, is_causal, scale):
    """The flash-rounded attention of checked float16/bfloat16 operands."""
    ins = (query, key, value) if attn_mask is None else (query, key, value, attn_mask)
    return HalfFlashAttention.apply(*ins, causal=bool(is_causal), scale=float(scale))
