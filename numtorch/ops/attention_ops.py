"""Fused multi-head attention core: ``softmax(q k^T * scale + mask) v`` per head.

Why a primitive (speed, design doc section 8): composed, one attention call is about fifteen
nodes (head reshapes and transposes, two batched matmuls, the scale, the mask add, softmax
and the copies that merge the heads back), each allocating a full-size temporary, and the
per-op overhead dominates small transformer layers. Fused, the heads are strided views of
the projected inputs (no copies), the softmax runs in place on the score buffer, and the
merged output (and, in backward, the input gradients) is written straight into a buffer in
the caller's layout by ``matmul(..., out=)``.

The operands are sequence-first, as in ``nn.functional.multi_head_attention_forward``:
``q`` is ``(L, N, E)``, ``k`` ``(S, N, E)``, ``v`` ``(S, N, Ev)`` with any strides, or the
three packed side by side in one ``(L, N, 3E)`` tensor (self-attention with the packed input
projection, so backward returns one gradient and no slicing nodes are needed).

``backward_arrays`` is one NumPy pass, which the engine runs when no graph is being built;
``backward`` is the same formulas written with numtorch ops, for ``create_graph`` (so
gradients of any order work); the tests compare both with torch.
"""

import functools

import numpy as np

from .._tensor import _make
from .._threads import blas_threads_now, fit_blas_threads, small_gemm_kernels
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from ._intraop import parts as split_parts, run_split
from .join import cat
from .softmax import softmax

__all__ = ["multi_head_attention_core", "scaled_dot_product"]

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _heads(a, n_heads):
    """(T, N, H*d) array -> (N, H, T, d) strided view (splitting the last dim is free)."""
    t, n, e = a.shape
    return a.reshape(t, n, n_heads, e // n_heads).transpose(1, 2, 0, 3)


def _batch_major(a):
    """Whether the (T, N, E) array lies in memory batch by batch (a transposed batch-first
    tensor), so results are laid out the same way."""
    return a.shape[0] > 1 and a.strides[0] < a.strides[1]


def _alloc(xp, t, n, parts, n_heads, d, dtype, batch_major):
    """A (T, N, parts*H*d) result buffer and, per part, its (N, H, T, d) head view (the
    ``out=`` targets of the batched matmuls)."""
    if batch_major:
        buf = xp.empty((n, t, parts, n_heads, d), dtype)
        views = [buf[:, :, i].transpose(0, 2, 1, 3) for i in range(parts)]
        return buf.reshape(n, t, parts * n_heads * d).transpose(1, 0, 2), views
    buf = xp.empty((t, n, parts, n_heads, d), dtype)
    views = [buf[:, :, i].transpose(1, 2, 0, 3) for i in range(parts)]
    return buf.reshape(t, n, parts * n_heads * d), views


def _grad_buffer(xp, a, n_heads, need):
    """(gradient buffer shaped and laid out like ``a``, its head view), or (None, None)."""
    if not need:
        return None, None
    t, n, e = a.shape
    full, (view,) = _alloc(xp, t, n, 1, n_heads, e // n_heads, a.dtype, _batch_major(a))
    return full, view


def _split(op, arrays):
    """(q, k, v, mask) from the op's inputs, packed or not."""
    if op.packed:
        qkv, mask = arrays
        e = qkv.shape[-1] // 3
        return qkv[..., :e], qkv[..., e:2 * e], qkv[..., 2 * e:], mask
    return arrays


def _swap(a):
    """``a`` with its last two dims swapped (a view); a 1-D mask becomes a column."""
    return a[:, None] if a.ndim == 1 else a.swapaxes(-1, -2)


# Sums over the keys: one einsum pass on the CPU (no temporary); on a GPU cupy.einsum parses
# its subscripts in Python at every call (~250 us of host time against ~10 us for a reduction
# or an elementwise launch), so there the sums are reductions and the products ufuncs.
def _col_sums(xp, st):
    """The sums over axis -2 of the transposed scores ``st`` (..., S, L), as (..., 1, L)."""
    if xp is np:
        return xp.einsum("...sl->...l", st)[..., None, :]
    return st.sum(axis=-2, keepdims=True)


def _col_dots(xp, a, b):
    """sum over axis -2 of ``a * b`` (transposed scores), as (..., 1, L)."""
    if xp is np:
        return xp.einsum("...sl,...sl->...l", a, b)[..., None, :]
    return (a * b).sum(axis=-2, keepdims=True)


def _row_dots(xp, g, o, spec):
    """The dot products ``g_l . o_l`` of the output gradient and the output over their last
    dim, shaped (..., 1, L) to broadcast over transposed scores: ``spec`` is the CPU's einsum
    from ``g``'s dims to the scores' leading dims and L (``lnhd`` heads of a (L, N, E) tensor
    go to ``nhl``; batch-first operands keep their order)."""
    if xp is np:
        return xp.einsum(spec, g, o)[..., None, :]
    dots = (g * o).sum(axis=-1)
    if g.ndim == 4 and spec.startswith("lnhd"):  # (L, N, H) -> (N, H, L)
        dots = dots.transpose(1, 2, 0)
    return dots[..., None, :]


def _mT(xp, a, rows):
    """``a``'s matrices transposed, as the second operand of a batched ``matmul`` whose first
    operand's matrices have ``rows`` rows: a
    C-contiguous copy where OpenBLAS's small-matrix kernels run the transposed (NT) product
    slowly, else the view. One thread, float32, batches of (L, d) @ (d, L): (48, 64, 32)
    204 -> 154 us with the copy, (64, 64, 32) 266 -> 204, (48, 64, 128) 854 -> 650,
    (256, 128, 32) 4.5 -> 3.8 ms; from L * L * d = 2^20 (the small kernels' end) it is even,
    and below 2^15 the copy costs more than it saves ((96, 16, 32): 29 -> 38 us), counted in
    multiply-adds per matrix product."""
    t = a.swapaxes(-1, -2)
    if xp is not np or a.ndim < 3 or t.flags.c_contiguous or a.dtype not in _BLAS_FLOATS:
        return t
    work = rows * a.shape[-2] * a.shape[-1]
    if not (1 << 15 <= work <= 1 << 19) or not small_gemm_kernels():
        return t
    return xp.ascontiguousarray(t)


class MultiHeadAttentionCore(Op):
    """o = merge_heads(softmax(q_h k_h^T * scale + mask) v_h); optionally also the weights.

    With p the weights and dp = g_o v^T (+ g_p): ds = p * (dp - sum(dp * p)),
    dq = ds k * scale, dk = ds^T q * scale, dv = p^T g_o, dmask = ds.
    ``safe``: rows whose scores are all ``-inf`` give zero weights (else NaN, as softmax).

    The scores are held transposed, as (N, H, S, L): NumPy reduces over the second-to-last
    axis about three times faster than over a short last axis (the softmax max and sum),
    and every product then reads p^T or ds^T as it lies (BLAS takes either orientation).
    """

    on_device = False  # whether forward took the GPU path (_mha_device_forward)

    def forward(self, *arrays):
        if self.xp is not np:
            out = _mha_device_forward(self, arrays)
            if out is not None:
                return out
        xp, h = self.xp, self.heads
        q, k, v, mask = _split(self, arrays)
        q4, k4, v4 = _heads(q, h), _heads(k, h), _heads(v, h)
        st = xp.empty(k4.shape[:-1] + q4.shape[-2:-1], q.dtype)  # scores^T: (N, H, S, L)
        dt = st.dtype.type
        length, n = q.shape[0], q.shape[1]
        out, (o4,) = _alloc(xp, length, n, 1, h, v.shape[-1] // h, v.dtype, _batch_major(q))
        deads = []

        def part(lo, hi):
            b = slice(lo, hi)
            s, q4t = st[b], _mT(xp, q4[b], k4.shape[-2])

            def scores(s):
                xp.matmul(k4[b], q4t, out=s)
                s *= dt(self.scale)
                if mask is not None:
                    s += _swap(mask)

            scores(s)
            done = _softmax_blocks(xp, s) if mask is None else None
            if done is False:  # the block shift did not hold: per-query maxima instead
                scores(s)
            dead = None
            if s.size and not done:  # with no keys (or no queries) nothing to normalise
                m = s.max(axis=-2, keepdims=True)
                if self.safe:
                    m, dead = _zero_dead(xp, m)
                s -= m
                xp.exp(s, out=s)
                s /= _unit_dead(xp, _col_sums(xp, s), dead)
            if dead is not None:
                deads.append((b, dead))
            xp.matmul(s.transpose(0, 1, 3, 2), v4[b], out=o4[b])

        if mask is None:
            _run_batch(part, q4, st)
        else:  # a mask may broadcast over the batch: one part
            part(None, None)
        dead = _gather_dead(xp, deads, st)
        if self.packed:
            self.save_inputs(*arrays[:1 if mask is None else 2])
        else:
            self.save_inputs(*arrays[:3 if mask is None else 4])
        # the rows (N, H, L, 1) whose every key is masked, for the composed backward
        self.save(dead=None if dead is None else _swap(dead))
        self.save_output(out, 0)
        if self.weights:
            return out, self.save_output(_swap(st), 1)
        self.save(pt=st)
        return out

    def backward_arrays(self, g_out, g_p=None):
        if self.on_device:
            return _mha_device_backward(self, g_out, g_p)
        xp, h = self.xp, self.heads
        saved = self.saved_inputs()
        saved = saved if type(saved) is tuple else (saved,)
        arrays = [t._array for t in saved]
        if len(arrays) < (2 if self.packed else 4):
            arrays.append(None)
        q, k, v, mask = _split(self, arrays)
        pt = _swap(self.saved_output(1)._array) if self.weights else self.saved("pt")
        q4, k4, v4 = _heads(q, h), _heads(k, h), _heads(v, h)
        g4 = _heads(g_out, h)
        length, n, ev = g_out.shape
        o = self.saved_output(0)._array.reshape(length, n, h, ev // h)
        g_o = g_out.reshape(o.shape)
        gpt = None if g_p is None else _swap(g_p)
        needs = self.needs_input_grad
        if self.packed:
            dqkv, (dq4, dk4, dv4) = _alloc(xp, q.shape[0], q.shape[1], 3, h,
                                           q.shape[-1] // h, q.dtype, _batch_major(q))
            grads = [dqkv if needs[0] else None]
        else:
            (dq, dq4), (dk, dk4), (dv, dv4) = (_grad_buffer(xp, a, h, need)
                                               for a, need in zip((q, k, v), needs))
            grads = [dq, dk, dv]
        scale = q.dtype.type(self.scale)
        dst = xp.empty(pt.shape, pt.dtype)

        def part(lo, hi):
            # ds^T = p^T * (dp^T - colsum(dp^T * p^T)) with dp^T = v g^T (+ g_p^T), in
            # place. The column sums, sum_s p[l, s] (g_l . v_s), are g_l . o_l: one pass
            # over the (smaller) output.
            b = slice(lo, hi)
            d, p = dst[b], pt[b]
            xp.matmul(v4[b], _mT(xp, g4[b], v4.shape[-2]), out=d)
            dots = _row_dots(xp, g_o[:, b], o[:, b], "lnhd,lnhd->nhl")
            if gpt is not None:
                d += gpt[b]
                dots += _col_dots(xp, gpt[b], p)
            d -= dots
            d *= p
            if dq4 is not None:
                xp.matmul(d.transpose(0, 1, 3, 2), k4[b], out=dq4[b])
                dq4[b] *= scale
            if dk4 is not None:
                xp.matmul(d, q4[b], out=dk4[b])
                dk4[b] *= scale
            if dv4 is not None:
                xp.matmul(p, g4[b], out=dv4[b])

        if mask is None and gpt is None:
            _run_batch(part, q4, pt)
        else:  # a mask (or the weights' gradient) may broadcast over the batch: one part
            part(None, None)
        grads.append(_swap(dst) if mask is not None and needs[-1] else None)
        return tuple(grads)

    def backward(self, g_out, g_p=None):
        h = self.heads
        saved = self.saved_inputs()
        saved = list(saved) if type(saved) is tuple else [saved]
        if len(saved) < (2 if self.packed else 4):
            saved.append(None)
        if self.packed:
            qkv, mask = saved
            q, k, v = qkv.chunk(3, -1)
        else:
            q, k, v, mask = saved

        def heads(t):
            s, n, e = t.shape
            return t.reshape(s, n, h, e // h).permute(1, 2, 0, 3)

        def merge(t4):
            n, _, s, d = t4.shape
            return t4.permute(2, 0, 1, 3).reshape(s, n, h * d)

        q4, k4, v4, g4 = heads(q), heads(k), heads(v), heads(g_out)
        s = (q4 @ k4.mT) * self.scale
        if mask is not None:
            s = s + mask
        dead = self.saved("dead")
        if dead is not None:
            dead = _make(dead)
            s = s.masked_fill(dead, 0.0)
        p = softmax(s, -1)
        if dead is not None:
            p = p.masked_fill(dead, 0.0)
        dp = g4 @ v4.mT
        if g_p is not None:
            dp = dp + g_p
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = merge((ds @ k4) * self.scale)
        dk = merge((ds.mT @ q4) * self.scale)
        dv = merge(p.mT @ g4)
        dmask = ds if mask is not None else None
        if self.packed:
            return cat([dq, dk, dv], -1), dmask
        return dq, dk, dv, dmask


# -- the GPU path ---------------------------------------------------------------------------------
# cupy.matmul copies every operand (and output) that is not C-contiguous, so products of the
# strided head views cost hidden copy launches, and the softmax as xp code is nine launches.
# Here the heads are copied once into C-contiguous (N, H, T, d) arrays (packed q, k, v in one
# copy), the scores are (N, H, L, S) with each query's keys contiguous, every product reads
# C-contiguous operands, and the softmax and its backward are whole-row kernels (the backward's
# also writes ds^T and p^T, the transposed operands of the key and value gradients): forward 6
# launches, backward 8, where the strided xp path takes about 16 and 19 with cupy's copies.
def _mha_device_forward(op, arrays):
    """``MultiHeadAttentionCore.forward`` on device arrays; None when the whole-row kernels do
    not apply (dtypes, long rows, no values) and the general path runs."""
    xp, h = op.xp, op.heads
    q, k, v, mask = _split(op, arrays)
    length, n, s_len = q.shape[0], q.shape[1], k.shape[0]
    dt = q.dtype
    helpers = helpers_for(xp)
    if not (k.dtype == dt and v.dtype == dt and (mask is None or mask.dtype == dt) and
            helpers.attention_rows_ok((n, h, length, s_len), dt) and q.shape[-1] and
            v.shape[-1]):
        return None
    d, dv = q.shape[-1] // h, v.shape[-1] // h
    if op.packed:
        buf = xp.empty((3, n, h, length, d), dt)
        xp.copyto(buf, arrays[0].reshape(length, n, 3, h, d).transpose(2, 1, 3, 0, 4))
        q4, k4, v4 = buf[0], buf[1], buf[2]
    else:
        q4, k4, v4 = (xp.ascontiguousarray(_heads(a, h)) for a in (q, k, v))
    s = xp.matmul(q4, xp.ascontiguousarray(k4.swapaxes(-1, -2)))  # (N, H, L, S)
    scale = op.scale
    if mask is not None:
        s *= dt.type(scale)
        s += mask
        scale = 1.0
    dead = helpers.attention_softmax(s, scale, op.safe)
    if dead is None:
        return None
    out, (o4,) = _alloc(xp, length, n, 1, h, dv, dt, _batch_major(q))
    xp.copyto(o4, xp.matmul(s, v4))
    op.on_device = True
    if op.packed:
        op.save_inputs(*arrays[:1 if mask is None else 2])
    else:
        op.save_inputs(*arrays[:3 if mask is None else 4])
    op.save(heads=(q4, k4, v4), layouts=[(a.shape, _batch_major(a)) for a in (q, k, v)],
            has_mask=mask is not None,
            dead=dead.reshape(n, h, length, 1) if op.safe else None)
    if op.weights:
        return out, op.save_output(s, 1)
    op.save(p=s)
    return out


def _mha_device_backward(op, g_out, g_p):
    """``MultiHeadAttentionCore.backward_arrays`` after ``_mha_device_forward``."""
    xp, h = op.xp, op.heads
    op.saved_input_arrays()  # raises torch's error for an input changed in place since
    q4, k4, v4 = op.saved("heads")
    p = op.saved_output_array(1) if op.weights else op.saved("p")
    n, _, length, s_len = p.shape
    dt = p.dtype
    needs = op.needs_input_grad
    g4 = xp.empty((n, h, length, v4.shape[-1]), dt)
    xp.copyto(g4, _heads(g_out, h))
    dp = xp.matmul(g4, xp.ascontiguousarray(v4.swapaxes(-1, -2)))  # (N, H, L, S)
    if g_p is not None:
        dp += g_p
    # a float mask's gradient is ds itself: then the scale goes on the input gradients
    mask_grad = bool(needs[-1]) and op.saved("has_mask")
    scale = 1.0 if mask_grad else op.scale
    got = helpers_for(xp).attention_softmax_grad(p.reshape(-1, length, s_len),
                                                 dp.reshape(-1, length, s_len), scale)
    dst, pt = (a.reshape(n, h, s_len, length) for a in got)
    products = ((dp, k4), (dst, q4), (pt, g4))  # dq, dk, dv

    def scaled(r, i):
        if mask_grad and i < 2:
            r *= dt.type(op.scale)
        return r

    layouts = op.saved("layouts")
    if op.packed:
        grads = [None]
        if needs[0]:
            d = q4.shape[-1]
            gb = xp.empty((3, n, h, length, d), dt)
            for i, (a, b) in enumerate(products):
                xp.matmul(a, b, out=gb[i])
            if mask_grad:
                gb[:2] *= dt.type(op.scale)
            bm = layouts[0][1]
            raw = xp.empty((n, length, 3, h, d) if bm else (length, n, 3, h, d), dt)
            xp.copyto(raw, gb.transpose(1, 3, 0, 2, 4) if bm else gb.transpose(3, 1, 0, 2, 4))
            grads[0] = raw.reshape(n, length, 3 * h * d).transpose(1, 0, 2) if bm else \
                raw.reshape(length, n, 3 * h * d)
    else:
        grads = []
        for i, ((a, b), (shape, bm)) in enumerate(zip(products, layouts)):
            if not needs[i]:
                grads.append(None)
                continue
            t, nb, e = shape
            full, (view,) = _alloc(xp, t, nb, 1, h, e // h, dt, bm)
            xp.copyto(view, scaled(xp.matmul(a, b), i))
            grads.append(full)
    grads.append(dp if mask_grad else None)
    return tuple(grads)


def multi_head_attention_core(q, k, v, mask, num_heads, scale, safe=True,
                              need_weights=False):
    """Scaled dot-product attention over ``num_heads`` heads of sequence-first operands.

    Args:
        q (Tensor): ``(L, N, E)`` queries, or ``(L, N, 3E)`` packed queries, keys and values
            when ``k`` and ``v`` are None.
        k (Tensor or None): ``(S, N, E)`` keys.
        v (Tensor or None): ``(S, N, Ev)`` values.
        mask (Tensor or None): additive float mask broadcastable to ``(N, H, L, S)``.
        num_heads (int): ``H``; divides ``E`` and ``Ev``.
        scale (float): factor applied to ``q k^T``.
        safe (bool): rows with every score ``-inf`` get zero weights instead of NaN.
        need_weights (bool): also return the ``(N, H, L, S)`` attention weights.

    Returns:
        Tensor ``(L, N, Ev)`` with the heads merged, or ``(output, weights)``.
    """
    if k is None:
        return MultiHeadAttentionCore.apply(q, mask, heads=num_heads, scale=float(scale),
                                            safe=safe, weights=need_weights, packed=True)
    return MultiHeadAttentionCore.apply(q, k, v, mask, heads=num_heads, scale=float(scale),
                                        safe=safe, weights=need_weights, packed=False)


# ---------------------------------------------------------------------------------------------
# scaled_dot_product_attention on (..., L, E) operands

_CAUSAL = {}  # (S, L, dtype) -> the transposed causal mask: -inf where key s > query l


def _causal_t(xp, s, length, dtype):
    key = (s, length, np.dtype(dtype).str, xp.__name__)
    mask = _CAUSAL.get(key)
    if mask is None:
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        mask = xp.tril(xp.full((s, length), -np.inf, dtype=dtype), -1)
        _CAUSAL[key] = mask
    return mask


def _empty_like_layout(xp, like, shape, dtype):
    """An empty array of ``shape`` whose leading dims lie in memory in the order of ``like``'s
    strides (the last dim innermost): an output or gradient laid out as the input is, as
    torch's attention kernels do, so a following ``transpose(1, 2).contiguous()`` of
    (B, H, T, D) heads cut from a (B, T, 3C) projection copies nothing."""
    lead = len(shape) - 1
    order, inv = _layout_order(like.strides[:lead])
    if inv is None:
        return xp.empty(shape, dtype)
    buf = xp.empty([shape[i] for i in order] + [shape[-1]], dtype)
    return buf.transpose(inv)


# (looked up per call: a handful of layouts per model, where sorting them each time was a
# tenth of a small attention call)
@functools.lru_cache(maxsize=256)
def _layout_order(strides):
    """The leading dims ordered from the largest stride down, and the permutation back to
    them (the last dim appended), or ``(order, None)`` when they already are in order."""
    lead = len(strides)
    order = sorted(range(lead), key=lambda i: -strides[i])
    if order == list(range(lead)):
        return order, None
    return order, tuple(sorted(range(lead), key=order.__getitem__)) + (lead,)


def _softmax_cols(xp, st, safe):
    """Softmax over axis -2 of the transposed scores ``st``, in place; returns the mask of
    query columns with every key at ``-inf`` (zero weights there) when ``safe``, else None."""
    dead = None
    if not st.size:
        return None
    m = st.max(axis=-2, keepdims=True)
    if safe:
        m, dead = _zero_dead(xp, m)
    st -= m
    xp.exp(st, out=st)
    st /= _unit_dead(xp, _col_sums(xp, st), dead)
    return dead


# Unmasked CPU attention shifts the scores of each (batch, head) block by the block's maximum
# instead of each query's: the max of a contiguous 64x64 block is one vectorised reduction
# (15 us for nanoGPT's 48 blocks) where the per-query max over the second-to-last axis took
# 107 us, most of the softmax. Any shift at or above a query's maximum gives the same weights;
# exp only loses precision where the shift is far above it, so the result is kept only when
# every query's sum of exp is at least _SHIFT_FLOOR (its maximum within ~24 of the block's:
# a weight the underflow drops is below e^-63). NaN or inf scores fail that test too, and the
# caller then redoes the softmax with the per-query maxima.
_SHIFT_FLOOR = float(np.exp(-20.0))


def _softmax_blocks(xp, st):
    """Softmax over axis -2 of the transposed scores ``st`` (..., S, L), in place, shifted by
    each trailing (S, L) block's maximum: True when done; False when that was not exact
    enough (``st`` is overwritten: the caller recomputes the scores); None when it does not
    apply (a device array, no values, a strided buffer; ``st`` untouched)."""
    if xp is not np or st.ndim < 3 or not st.size or not st.flags.c_contiguous:
        return None
    lead = st.shape[:-2]
    m = st.reshape(-1, st.shape[-2] * st.shape[-1]).max(axis=1).reshape(lead + (1, 1))
    with np.errstate(invalid="ignore", over="ignore"):
        st -= m
        xp.exp(st, out=st)
    z = xp.einsum("...sl->...l", st)
    if not z.min() >= _SHIFT_FLOOR:  # (NaN compares False)
        return False
    st /= z[..., None, :]
    return True


def _zero_dead(xp, m):
    """``(m, dead)``: the softmax maxima ``m`` with their ``-inf`` entries (every key masked)
    set to 0, so that exp(-inf - 0) = 0 and no NaN arises, and the mask of those entries
    (None on the CPU when there are none). On a GPU the mask is always kept, as a ``where``:
    asking whether any entry is dead would make the host wait for the device."""
    dead = m == m.dtype.type(-np.inf)
    if is_device_array(m):
        return xp.where(dead, m.dtype.type(0), m), dead
    if dead.any():
        m[dead] = 0
        return m, dead
    return m, None


def _gather_dead(xp, deads, like):
    """The (N, H, 1, L) mask of rows with every key masked, from the ``(batch slice, mask)``
    pairs of the parts that had any (``like``: the scores); None when no part had one."""
    if not deads:
        return None
    if len(deads) == 1 and deads[0][0] == slice(None, None):
        return deads[0][1]
    full = xp.zeros(like.shape[:-2] + (1, like.shape[-1]), dtype=bool)
    for b, dead in deads:
        full[b] = dead
    return full


def _unit_dead(xp, z, dead):
    """The softmax sums ``z`` with 1 where ``dead`` (their rows' weights stay 0)."""
    if dead is None:
        return z
    if is_device_array(z):
        return xp.where(dead, z.dtype.type(1), z)
    z[dead] = 1
    return z


def _run_batch(part, q, scores):
    """Run ``part(lo, hi)`` over the leading batch dim, split across the intra-op threads when
    there is enough work: each batch entry is a few small GEMMs and softmax passes, which BLAS
    runs on one thread at these sizes (the work is counted as 8 passes over the scores, about
    what the forward and backward each make)."""
    if q.ndim < 3 or is_device_array(q):
        part(None, None)
        return
    fit_blas_threads()
    n = q.shape[0]
    unit = 8 * (scores.size // max(n, 1))
    if split_parts(n, unit) < 2 or blas_threads_now() < 2:
        # too little work for a second thread, or other processes hold the cores
        # (numtorch._threads caps BLAS then): a hand-off to a second thread would wait for a
        # core (measured 10-20% slower at load 19)
        part(None, None)
        return
    run_split(part, n, unit)


class ScaledDotProductAttention(Op):
    """o = softmax(q k^T * scale + mask) v over the last two dims, batch dims equal.

    ``causal``: key s is masked for query l when s > l. ``mask`` (optional input): an
    additive float mask, or a boolean one (True attends), broadcastable to (..., L, S);
    with a mask, rows with every key masked give zero weights (as torch's math kernel).
    Gradients as in ``MultiHeadAttentionCore``: dv = p^T g, ds = p * (g v^T - rowsum),
    dq = ds k * scale, dk = ds^T q * scale, dmask = ds (float masks).

    The scores are held transposed, (..., S, L), for the reasons given there; the output
    and the input gradients are laid out like the corresponding inputs.
    """

    on_device = False  # whether forward took the GPU path (_sdpa_device_forward)

    def forward(self, q, k, v, mask=None):
        if self.xp is not np:
            out = _sdpa_device_forward(self, q, k, v, mask)
            if out is not None:
                return out
        xp = self.xp
        dt = q.dtype.type
        st = xp.empty(q.shape[:-2] + (k.shape[-2], q.shape[-2]), q.dtype)  # scores^T
        out = _empty_like_layout(xp, q, q.shape[:-1] + v.shape[-1:], v.dtype)
        causal = _causal_t(xp, k.shape[-2], q.shape[-2], q.dtype) if self.causal else None
        add = mask
        if mask is not None and mask.dtype == np.bool_:
            add = xp.where(mask, dt(0), dt(-np.inf))
        dead = []

        def part(lo, hi):
            b = slice(lo, hi)
            s = st[b]
            qt = _mT(xp, q[b], k.shape[-2])

            def scores(s):
                xp.matmul(k[b], qt, out=s)
                s *= dt(self.scale)
                if causal is not None:
                    s += causal
                if add is not None:
                    s += _swap(add)

            scores(s)
            done = _softmax_blocks(xp, s) if add is None else None
            if done:
                dead.append(None)
            else:
                if done is False:
                    scores(s)  # the block shift did not hold: per-query maxima instead
                dead.append(_softmax_cols(xp, s, add is not None))
            xp.matmul(s.swapaxes(-1, -2), v[b], out=out[b])

        if mask is None:
            _run_batch(part, q, st)
        else:  # the rows that every key is masked for are found over the whole batch
            part(None, None)
        if mask is None:
            self.save_inputs(q, k, v)
        else:
            self.save_inputs(q, k, v, mask)
        self.save(pt=st, dead=None if dead[0] is None else _swap(dead[0]))
        return self.save_output(out, 0)

    def backward_arrays(self, g):
        if self.on_device:
            return _sdpa_device_backward(self, g)
        xp = self.xp
        saved = self.saved_inputs()
        q, k, v = (t._array for t in saved[:3])
        has_mask = len(saved) > 3
        pt = self.saved("pt")
        o = self.saved_output(0)._array
        needs = self.needs_input_grad
        scale = q.dtype.type(self.scale)
        dq = _empty_like_layout(xp, q, q.shape, q.dtype) if needs[0] else None
        dk = _empty_like_layout(xp, k, k.shape, k.dtype) if needs[1] else None
        dv = _empty_like_layout(xp, v, v.shape, v.dtype) if needs[2] else None
        dst = xp.empty(pt.shape, pt.dtype)

        def part(lo, hi):
            # ds^T = p^T * (dp^T - colsum(dp^T * p^T)), dp^T = v g^T; the column sums are
            # g_l . o_l (one pass over the smaller output)
            b = slice(lo, hi)
            d, p, gb = dst[b], pt[b], g[b]
            xp.matmul(v[b], _mT(xp, gb, v.shape[-2]), out=d)
            d -= _row_dots(xp, gb, o[b], "...ld,...ld->...l")
            d *= p
            if dq is not None:
                xp.matmul(d.swapaxes(-1, -2), k[b], out=dq[b])
                dq[b] *= scale
            if dk is not None:
                xp.matmul(d, q[b], out=dk[b])
                dk[b] *= scale
            if dv is not None:
                xp.matmul(p, gb, out=dv[b])

        if has_mask:
            part(None, None)
            return dq, dk, dv, (_swap(dst) if needs[3] else None)
        _run_batch(part, q, pt)
        return dq, dk, dv

    def backward(self, g):
        saved = self.saved_inputs()
        q, k, v = saved[:3]
        mask = saved[3] if len(saved) > 3 else None
        s = (q @ k.mT) * self.scale
        if self.causal:
            length, n_keys = q.shape[-2], k.shape[-2]
            blocked = _make(_swap(_causal_t(self.xp, n_keys, length, q._array.dtype))
                            == -np.inf)
            s = s.masked_fill(blocked, float("-inf"))
        if mask is not None:
            s = s.masked_fill(mask.logical_not(), float("-inf")) \
                if mask._array.dtype == np.bool_ else s + mask
        dead = self.saved("dead")
        if dead is not None:
            dead = _make(dead)
            s = s.masked_fill(dead, 0.0)
        p = softmax(s, -1)
        if dead is not None:
            p = p.masked_fill(dead, 0.0)
        dp = g @ v.mT
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        needs = self.needs_input_grad
        dq = (ds @ k) * self.scale if needs[0] else None
        dk = (ds.mT @ q) * self.scale if needs[1] else None
        dv = p.mT @ g if needs[2] else None
        if mask is None:
            return dq, dk, dv
        return dq, dk, dv, (ds if needs[3] else None)


def _sdpa_device_forward(op, q, k, v, mask):
    """``ScaledDotProductAttention.forward`` on device arrays as the multi-head core's GPU
    path (C-contiguous operands for every product, the whole-row softmax kernel, scores
    (..., L, S)); None when the kernels do not apply (the general path runs)."""
    xp = op.xp
    dt = q.dtype
    length, s_len = q.shape[-2], k.shape[-2]
    helpers = helpers_for(xp)
    if not (k.dtype == dt and v.dtype == dt and q.shape[-1] and v.shape[-1] and
            (mask is None or mask.dtype == np.bool_ or mask.dtype == dt) and
            helpers.attention_rows_ok(q.shape[:-2] + (length, s_len), dt)):
        return None
    qc, kc, vc = (xp.ascontiguousarray(a) for a in (q, k, v))
    s = xp.matmul(qc, xp.ascontiguousarray(kc.swapaxes(-1, -2)))  # (..., L, S)
    scale = op.scale
    if mask is not None:
        s *= dt.type(scale)
        scale = 1.0
        s += xp.where(mask, dt.type(0), dt.type(-np.inf)) if mask.dtype == np.bool_ else mask
    dead = helpers.attention_softmax(s, scale, mask is not None, op.causal)  # (causal: j > l)
    if dead is None:
        return None
    out = _empty_like_layout(xp, q, q.shape[:-1] + v.shape[-1:], dt)
    xp.matmul(s, vc, out=out)
    op.on_device = True
    if mask is None:
        op.save_inputs(q, k, v)
    else:
        op.save_inputs(q, k, v, mask)
    op.save(p=s, heads=(qc, kc, vc), has_mask=mask is not None,
            dead=None if mask is None else dead.reshape(s.shape[:-1] + (1,)))
    return out


def _sdpa_device_backward(op, g):
    """``ScaledDotProductAttention.backward_arrays`` after ``_sdpa_device_forward``: the
    gradients laid out like the corresponding inputs (as the general path)."""
    xp = op.xp
    saved = op.saved_input_arrays()
    q, k, v = saved[:3]
    qc, kc, vc = op.saved("heads")
    p = op.saved("p")
    length, s_len = p.shape[-2], p.shape[-1]
    lead = p.shape[:-2]
    dt = p.dtype
    needs = op.needs_input_grad
    has_mask = op.saved("has_mask")
    mask_grad = has_mask and bool(needs[3]) and saved[3].dtype != np.bool_
    gc = xp.ascontiguousarray(g)
    dp = xp.matmul(gc, xp.ascontiguousarray(vc.swapaxes(-1, -2)))  # (..., L, S)
    scale = 1.0 if mask_grad else op.scale
    got = helpers_for(xp).attention_softmax_grad(p.reshape(-1, length, s_len),
                                                 dp.reshape(-1, length, s_len), scale)
    dst, pt = (a.reshape(lead + (s_len, length)) for a in got)
    grads = []
    for i, (a, b, like) in enumerate(((dp, kc, q), (dst, qc, k), (pt, gc, v))):
        if not needs[i]:
            grads.append(None)
            continue
        r = _empty_like_layout(xp, like, like.shape, dt)
        xp.matmul(a, b, out=r)
        if mask_grad and i < 2:
            r *= dt.type(op.scale)
        grads.append(r)
    if has_mask:
        grads.append(dp if mask_grad else None)
    return tuple(grads)


def scaled_dot_product(query, key, value, mask, scale, causal):
    """``softmax(query @ key^T * scale + mask) @ value`` for operands that
    ``nn.functional.scaled_dot_product_attention`` checked: equal batch dims, one floating
    dtype; ``mask`` None, boolean (True attends) or additive; ``causal`` masks key s for
    query l when s > l. Rows with every key masked give zeros when a mask is given.

    Returns:
        Tensor ``(..., L, Ev)`` laid out like ``query``.
    """
    if mask is None:
        return ScaledDotProductAttention.apply(query, key, value, scale=float(scale),
                                               causal=bool(causal))
    return ScaledDotProductAttention.apply(query, key, value, mask, scale=float(scale),
                                           causal=bool(causal))
