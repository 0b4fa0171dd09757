"""Whole-sequence primitives for the recurrent layers: one graph node per layer direction.

Why primitives: written with per-step ops (even with a fused LSTM cell), each time step costs
several graph nodes forward and about twice as many backward (recurrent matmul, add, gates,
their gradients and accumulation), and that per-op overhead is most of a small recurrent
layer's time. Here the forward and the backpropagation through time are two NumPy loops over
time; whatever does not depend on the previous step (gate derivatives, the recurrent weight's
gradient) is computed for all steps at once, and each loop step is a few in-place array calls.

The GRU and RNN ops take the input projections ``xs`` (T, B, G) (``x W_ih^T`` plus the biases
that can be folded in), the initial state and the recurrent weight; the LSTM op takes the
input and both weights and does its projection itself (see ``LSTMSequence``, which also keeps
its loop feature-major). ``mask`` (T, B, 1) bool marks the
steps that are real for each sequence of a packed batch: elsewhere the state passes through
unchanged, so the final state is the one at each sequence's true length. ``reverse`` runs from
the last step. The BPTT loop is ``backward_arrays``, which the engine runs when no graph is
being built; ``backward``, for ``create_graph``, recomputes the layer step by step with
differentiable ops (``*_steps`` below) and differentiates that, so double backward works.
"""

import contextlib

from .. import _dtype
from .._tensor import _make
from .._threads import blas_threads_now, fit_blas_threads, single_blas_thread, small_gemm_kernels
from ..autograd import grad as _grad
from ..autograd.graph import Op
from ..backend import helpers_for, is_device_array
from ..backends import mkldnn as _mkldnn
from ._smooth_activation import sigmoid
from .activation import relu
from .comparison import where
from .join import stack
from .rnn_ops import lstm_cell, unbind_steps
from .rnn_overlap import LSTMWeightGrads, finish, overlap_worker, spans, submit, wait
from .unary import tanh

__all__ = ["lstm_sequence", "gru_sequence", "rnn_sequence", "gru_update"]


def _blas_threads(macs):
    """One BLAS thread for a loop of small row-major GEMMs (<= 8M multiply-adds each): with
    few rows a second thread gains nothing, and on busy cores its hand-offs cost 20x."""
    return single_blas_thread() if macs <= 8_000_000 else contextlib.nullcontext()


class _Sequence(Op):
    """What the three layer ops share: time reversal, the packed mask, both backward paths."""


    def _time_major(self, *arrays):
        """The arrays (and mask) in processing order: reversed in time for ``reverse``."""
        mask = self.mask
        if not self.reverse:
            return arrays + (mask,)
        return tuple(a[::-1] for a in arrays) + (None if mask is None else mask[::-1],)

    @staticmethod
    def _keep_finished(xp, new, old, mask_t):
        """Padded steps leave the state as it was."""
        if mask_t is not None:
            xp.copyto(new, old, where=~mask_t)

    def _outputs(self, hs, *finals):
        # copies: the outputs must not alias what backward reads
        out = hs[:0:-1].copy() if self.reverse else hs[1:].copy()
        return (out,) + tuple(f.copy() for f in finals)

    @staticmethod
    def _split_masked(xp, grad, mask_t):
        """(the gradient into this step's computation, the part passing straight through)."""
        return xp.where(mask_t, grad, 0), xp.where(mask_t, 0, grad)

    def _save_present(self, *inputs):
        """Save the inputs that are not None (optional biases, projection), noting which."""
        self.present = tuple(a is not None for a in inputs)
        self.save_inputs(*(a for a in inputs if a is not None))

    def _inputs(self):
        """All the op's inputs as Tensors (the graph's, under create_graph), None for absent."""
        got = iter(self.saved_inputs())
        return tuple(next(got) if p else None for p in self.present)

    def backward(self, *grads):
        ins = self._inputs()
        outs = self.steps(*ins, mask=self.mask, reverse=self.reverse, **self._step_options())
        wanted = [k for k, x in enumerate(ins) if x is not None and x.requires_grad]
        got = _grad(outs, [ins[k] for k in wanted], list(grads),
                                     create_graph=True, allow_unused=True)
        res = [None] * len(ins)
        for k, g in zip(wanted, got):
            res[k] = g
        return tuple(res)

    def _step_options(self):
        return {}


def _masks(mask):
    return None if mask is None else _make(mask)


def _run_steps(xs, h, c, mask, reverse, step):
    """The reference loop over time with differentiable ops: ``step(x_t, h, c) -> (h, c)``."""
    steps = unbind_steps(xs)
    m = _masks(mask)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outs = [None] * len(steps)
    for t in order:
        hn, cn = step(steps[t], h, c)
        if m is not None:
            hn = where(m[t], hn, h)
            cn = None if c is None else where(m[t], cn, c)
        h, c = hn, cn
        outs[t] = h
    return stack(outs, 0), h, c


def _row_blocks(like, rows, k, n):
    """Row ranges splitting a per-step ``(rows, k) @ (k, n)`` GEMM into pieces of at most
    100^3 multiply-adds, or None to run it whole (the batch-major GRU loops split the weight's
    columns the same way: ``(n, k) @ (k, rows)``).

    Why: below that size OpenBLAS's small-matrix kernels (AVX-512 cores) skip packing the
    weight, which with a batch of ~20 columns is a third of the GEMM: a 512x161x20 step takes
    43 us whole and 2 x 16 us in two pieces on one thread. Whole GEMMs stay when BLAS has
    several threads (only they are split across them) or the kernels are not there.
    """
    macs = rows * k * n
    if (macs <= 1_000_000 or is_device_array(like) or not small_gemm_kernels()
            or blas_threads_now() > 1):
        return None
    most = max(1, 1_000_000 // (k * n))  # rows per piece within the limit
    pieces = -(-rows // most)
    step = -(-rows // pieces)  # as even as the pieces can be
    return [(lo, min(lo + step, rows)) for lo in range(0, rows, step)]


def _feature_major(xp, g):
    """The output gradient ``g`` (T, B, H) as the loop's (T, H, B).

    A broadcast value (``output.sum()``'s gradient) stays a view. A batch-first layout
    (strided steps, contiguous features) is first gathered into (T, B, H) blocks: transposing
    it at once reads every element at a stride of T * H and took twice as long.
    """
    if not any(g.strides):
        return g.transpose(0, 2, 1)
    if not g.flags.c_contiguous and g.strides[-1] == g.itemsize:
        g = xp.ascontiguousarray(g)
    return xp.ascontiguousarray(g.transpose(0, 2, 1))


def _step_gemm(xp, a, b, c):
    """On a GPU, the loop's recurrent GEMM with its cuBLAS arguments worked out once
    (``gemm(ta, tb, tc)``: ``c[tc] = a[ta] @ b[tb]``, see backend ``step_gemm``); else None."""
    return helpers_for(xp).step_gemm(a, b, c) if is_device_array(a) else None


def _gate_rows(xp, w, n, rows=None):
    """``w``'s 4H gate rows in the loop's order [i f o g], the sigmoid gates' rows halved
    (into ``rows`` when given)."""
    if rows is None:
        rows = xp.empty_like(w)
    if is_device_array(w) and helpers_for(xp).lstm_gate_rows(w, rows, n):
        return rows  # one kernel on a GPU
    xp.multiply(w[:2 * n], 0.5, out=rows[:2 * n])
    xp.multiply(w[3 * n:], 0.5, out=rows[2 * n:3 * n])
    rows[3 * n:] = w[2 * n:3 * n]
    return rows


class LSTMSequence(_Sequence):
    """LSTM: input ``x`` (T, B, F), ``w_ih`` (4H, F), ``w_hh`` (4H, H), ``b_ih``, ``b_hh``
    (4H,) or None, ``h0``, ``c0`` (B, H), ``w_hr`` or None -> outputs (T, B, H), ``h_n``,
    ``c_n``. The inputs come in the order of torch's CPU layer node (oneDNN's), whose name
    the node takes (see :func:`lstm_sequence`); the two biases are summed here, so that the
    graph has no separate node for that sum.

    The loop keeps everything feature-major: states (H, B), gates (4H, B) with the gates in
    the order [i f o g] and the sigmoid gates' inputs halved, so that one tanh pass serves
    all four (sigmoid(z) = (1 + tanh(z / 2)) / 2). Feature-major, each gate block is one
    contiguous piece (the elementwise calls run about twice as fast as on row slices) and the
    recurrent GEMM is ``W_hh @ h`` with many rows, which BLAS splits across threads. The
    input projection is part of the op, and its gradients come from the same gate gradients
    as ``w_hh``'s.
    """

    def forward(self, x, w_ih, w_hh, b_ih, b_hh, h0, c0, w_hr=None):
        xp = self.xp
        fit_blas_threads()  # its per-step GEMMs use BLAS's threads: fewer on busy cores
        self._save_present(x, w_ih, w_hh, b_ih, b_hh, h0, c0, w_hr)
        b = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        steps, batch, feat = x.shape
        gates, p = w_hh.shape  # p: the recurrent state's size (proj_size, else H)
        n = gates // 4
        dt = x.dtype
        xr = x[::-1] if self.reverse else x
        mask = self._time_major()[0]
        if mask is not None:
            mask = mask.transpose(0, 2, 1)  # (T, 1, B): broadcasts over a state's features
        # A small input rides along in the recurrent GEMM: each step's GEMM input holds
        # [h; x_t; 1] against [W_hh W_ih b] (no separate projection, bias pass or per-step
        # add). A large one is projected for all steps at once by one GEMM.
        inline = feat + 1 <= p
        rows = p + feat + 1 if inline else p
        hfull = xp.empty((steps + 1, rows, batch), dt)
        # on a GPU each step is its GEMM and one fused kernel (backend ``lstm_seq_forward``)
        fused = is_device_array(x) and mask is None and w_hr is None
        xqf = None
        if inline:  # [W_hh W_ih b] written in place (no concatenation copy)
            wq = xp.empty((gates, rows), dt)
            _gate_rows(xp, w_hh, n, wq[:, :p])
            _gate_rows(xp, w_ih, n, wq[:, p:p + feat])
            if b is None:
                wq[:, p + feat] = 0
            else:
                _gate_rows(xp, b[:, None], n, wq[:, p + feat:])
            hfull[:steps, p:p + feat] = xr.transpose(0, 2, 1)
            hfull[:, p + feat] = 1
        elif fused:  # (4H, T * B): step t's (4H, B) gates are columns t*B.. of each row
            wq = _gate_rows(xp, w_hh, n)
            xqf = xp.dot(_gate_rows(xp, w_ih, n), xr.reshape(-1, feat).T)
            if b is not None:
                xqf += _gate_rows(xp, b[:, None], n)
            xq_steps = xqf.reshape(gates, steps, batch).transpose(1, 0, 2)
        else:
            wq = _gate_rows(xp, w_hh, n)
            xq = xp.matmul(xr.reshape(-1, feat), _gate_rows(xp, w_ih, n).T).reshape(
                steps, batch, gates)
            if b is not None:
                xq += _gate_rows(xp, b, n)
            xq_steps = xq.transpose(0, 2, 1)
        hs = hfull[:, :p]
        # with a projection h_t = W_hr (o * tanh(c_t)); ``pre`` keeps o * tanh(c_t)
        pre = xp.empty((steps, n, batch), dt) if w_hr is not None else hs[1:]
        acts = xp.empty((steps, gates, batch), dt)
        cs = xp.empty((steps + 1, n, batch), dt)
        tcs = xp.empty((steps, n, batch), dt)
        hs[0] = h0.T
        cs[0] = c0.T
        blocks = _row_blocks(x, gates, rows, batch)
        if fused and helpers_for(xp).lstm_seq_forward(wq, hfull, acts, cs, tcs, xqf):
            steps_xp = 0  # the whole loop ran on the GPU
        elif w_hr is None and mask is None:
            _plain_lstm_steps(xp, wq, blocks, hfull, p, acts, cs, tcs,
                              None if inline else xq_steps)
            steps_xp = 0
        else:
            steps_xp = steps
        for t in range(steps_xp):
            a = acts[t]
            if blocks is None:
                xp.matmul(wq, hfull[t], out=a)
            else:
                for lo, hi in blocks:
                    xp.matmul(wq[lo:hi], hfull[t], out=a[lo:hi])
            if not inline:
                a += xq_steps[t]
            xp.tanh(a, out=a)
            s = a[:3 * n]
            s *= 0.5
            s += 0.5
            tc, c = tcs[t], cs[t + 1]
            xp.multiply(a[:n], a[3 * n:], out=tc)
            xp.multiply(a[n:2 * n], cs[t], out=c)
            c += tc
            xp.tanh(c, out=tc)
            xp.multiply(a[2 * n:3 * n], tc, out=pre[t])
            if w_hr is not None:
                xp.matmul(w_hr, pre[t], out=hs[t + 1])
            if mask is not None:
                self._keep_finished(xp, hs[t + 1], hs[t], mask[t])
                self._keep_finished(xp, c, cs[t], mask[t])
        self.inline = inline
        self.save(acts=acts, hfull=hfull, cs=cs, tcs=tcs, pre=pre)
        out = hs[:0:-1] if self.reverse else hs[1:]
        return (xp.ascontiguousarray(out.transpose(0, 2, 1)), hs[-1].T.copy(),
                cs[-1].T.copy())

    def backward_arrays(self, gout, ghn, gcn):
        xp = self.xp
        fit_blas_threads()
        acts, hfull, cs, tcs, pre = (self.saved(k)
                                     for k in ("acts", "hfull", "cs", "tcs", "pre"))
        ins = self._inputs()
        x, w_ih, w, _, _, _, _, w_hr = (None if a is None else a._array
                                        for a in ins + (None,) * (8 - len(ins)))
        go, mask = self._time_major(gout)
        go = _feature_major(xp, go)
        if mask is not None:
            mask = mask.transpose(0, 2, 1)
        steps, gates, batch = acts.shape
        n = gates // 4
        # the gradients reaching each step's projected state, kept for W_hr's gradient
        dhs = xp.empty((steps,) + ghn.T.shape, acts.dtype) if w_hr is not None else None
        f = acts[:, n:2 * n]
        dz = xp.empty_like(acts)
        dz3 = dz[:, :3 * n].reshape(steps, 3, n, batch)
        wt = w.T
        needs = self.needs_input_grad
        grads = LSTMWeightGrads(self, x, w_ih, w.shape[1], hfull, dz)
        # on a GPU each step is one fused kernel (the gate factors made in it) and its GEMM
        # (backend ``lstm_seq_backward``)
        on_gpu = is_device_array(acts) and mask is None and w_hr is None
        if on_gpu:  # C-ordered arrays, as the kernel takes them
            dh, dc = xp.empty(ghn.T.shape, acts.dtype), xp.empty(gcn.T.shape, acts.dtype)
            dh[...], dc[...] = ghn.T, gcn.T
            if not go.flags.c_contiguous:  # (a broadcast gradient)
                go = xp.ascontiguousarray(go)
            wt = xp.ascontiguousarray(wt)
            on_gpu = helpers_for(xp).lstm_seq_backward(wt, go, acts, cs, tcs, dh, dc, dz,
                                                        needs[5])
        else:  # row-major copies, as the loop's other (H, B) arrays (no strided passes)
            dh = xp.array(ghn.T, dtype=acts.dtype, order="C")
            dc = xp.array(gcn.T, dtype=acts.dtype, order="C")
        if not on_gpu:
            fac = xp.empty_like(acts)  # gate-local derivative factors, torch's gate order
            dtanh_c = xp.empty_like(tcs)
            fac3 = fac[:, :3 * n].reshape(steps, 3, n, batch)
        tmp = xp.empty_like(dc)
        worker = None if on_gpu else overlap_worker(xp, steps, gates * batch)
        with (single_blas_thread() if worker is not None else contextlib.nullcontext()):
            blocks = _row_blocks(w, wt.shape[0], gates, batch)
            if blocks is None:
                wt = xp.ascontiguousarray(wt)
            # else the small-matrix kernels read the transposed blocks as fast as row-major
            # ones (25 against 27 us a step for LSTM(32, 128)): no copy of the weight
            dh_out = None if blocks is None else xp.empty((wt.shape[0], batch), acts.dtype)
            # Time runs in chunks (one without a second core, see
            # ``rnn_overlap``): a chunk's
            # factors are made before the loop reaches it, its weight gradients after
            chunks = spans(steps, worker)
            grads.expect(chunks)
            # the first chunk's factors are made here: waiting for them would add the
            # worker's wake-up (and a core still held by BLAS's spinning threads after the
            # forward) to the loop's start; the worker makes all the others in one go (each
            # of its calls takes the GIL back once, and each time it does the loop here
            # may wait for it: per chunk, that had cost the loop 40% more time)
            lo0, hi0 = chunks[0]
            ready = [None] if on_gpu else [submit(None, self._factors, xp, acts[lo0:hi0],
                                                  cs[lo0:hi0], tcs[lo0:hi0], fac[lo0:hi0],
                                                  dtanh_c[lo0:hi0])]
            if lo0:
                ready += [submit(worker, self._factors, xp, acts[:lo0], cs[:lo0], tcs[:lo0],
                                 fac[:lo0], dtanh_c[:lo0])] * (len(chunks) - 1)
            done = []
            plain = mask is None and w_hr is None
            for (lo, hi), fut in zip(chunks, ready):
                wait(fut)
                steps_xp = ()
                if on_gpu:
                    pass  # the steps ran on the GPU
                elif plain:
                    dh, dc = _plain_lstm_grads(xp, wt, blocks, dh_out, lo, hi, go, dtanh_c,
                                               fac, f, dz, dh, dc, tmp, needs[5], needs[6])
                else:
                    steps_xp = range(hi - 1, lo - 1, -1)
                for t in steps_xp:
                    dh += go[t]
                    if mask is not None:
                        dh, pass_h = self._split_masked(xp, dh, mask[t])
                        dc, pass_c = self._split_masked(xp, dc, mask[t])
                    dpre = dh
                    if w_hr is not None:
                        dhs[t] = dh
                        dpre = w_hr.T @ dh
                    xp.multiply(dpre, dtanh_c[t], out=tmp)
                    dc += tmp
                    xp.multiply(fac3[t], dc, out=dz3[t])
                    xp.multiply(fac[t, 3 * n:], dpre, out=dz[t, 3 * n:])
                    if t or needs[5]:  # the first step's state gradients reach only h0, c0
                        if blocks is None:
                            dh = wt @ dz[t]
                        else:  # dh is dead here (dz[t] holds what it gave): buffer reused
                            dh = dh_out
                            for b0, b1 in blocks:
                                xp.matmul(wt[b0:b1], dz[t], out=dh[b0:b1])
                    if t or needs[6]:
                        dc *= f[t]
                    if mask is not None:
                        dh += pass_h
                        dc += pass_c
                done.append((submit(worker, grads.add, lo, hi), lo, hi))
            finish(done, grads.add)
        dw, dw_ih, db, dx = grads.result()
        db_ih = db if self.present[3] and needs[3] else None
        db_hh = db if self.present[4] and needs[4] else None
        if db_ih is not None and db_hh is not None:
            db_hh = db.copy()  # each parameter its own gradient array
        dw_hr = None
        if w_hr is not None and needs[7]:
            dw_hr = (dhs.transpose(1, 0, 2).reshape(w.shape[1], -1)
                     @ pre.transpose(1, 0, 2).reshape(n, -1).T)
        return (dx, dw_ih, dw, db_ih, db_hh, dh.T if needs[5] else None,
                dc.T if needs[6] else None, dw_hr)[:len(ins)]

    @staticmethod
    def _factors(xp, acts, cs, tcs, fac, dtanh_c):
        """The gate-local derivative factors of some steps, in torch's gate order: ``fac``
        [i f g o] = [s_i' g, s_f' c_prev, i tanh'(g), s_o' tanh(c)] and ``dtanh_c`` =
        ``o tanh'(c)`` (``acts`` in the forward's order [i f o g], ``cs`` from the step before)."""
        n = tcs.shape[1]
        i, _, o, g = (acts[:, k * n:(k + 1) * n] for k in range(4))
        xp.multiply(tcs, tcs, out=dtanh_c)
        xp.subtract(1, dtanh_c, out=dtanh_c)
        dtanh_c *= o
        # sigmoid' = s (1 - s) over the whole array in two contiguous passes (the g block's
        # values unused), then each block's other factor, moving o's block to torch's order
        xp.subtract(1, acts, out=fac)
        fac *= acts
        fac[:, :n] *= g
        fac[:, n:2 * n] *= cs
        xp.multiply(fac[:, 2 * n:3 * n], tcs, out=fac[:, 3 * n:])
        blk = fac[:, 2 * n:3 * n]
        xp.multiply(g, g, out=blk)  # tanh' = 1 - t^2
        xp.subtract(1, blk, out=blk)
        blk *= i

    @staticmethod
    def steps(x, w_ih, w_hh, b_ih, b_hh, h, c, w_hr=None, mask=None, reverse=False):
        """The same layer with the fused cell per step (differentiable twice)."""
        xs = x.matmul(w_ih.t())
        for b in (b_ih, b_hh):
            if b is not None:
                xs = xs + b
        wt = w_hh.t()
        wr = None if w_hr is None else w_hr.t()

        def step(x, h, c):
            hn, cn = lstm_cell(x + h.matmul(wt), c)
            return (hn if wr is None else hn.matmul(wr)), cn
        return _run_steps(xs, h, c, mask, reverse, step)


def _plain_lstm_steps(xp, wq, blocks, hfull, p, acts, cs, tcs, xq):
    """The LSTM forward loop without projection, mask or GPU kernel (``LSTMSequence``'s
    arrays; ``xq`` the projected inputs (T, 4H, B) when they are not inline).

    Why a loop of its own: a step is ~10 small array calls, and on a small layer the Python
    around them (indexing each step's gate blocks and states) cost about as much as the calls;
    here every per-step view comes from iterating the arrays in one ``zip``.
    """
    n = tcs.shape[1]
    mm, tanh, mul = xp.matmul, xp.tanh, xp.multiply
    if blocks is None:
        blocks = [(0, acts.shape[1])]
    wb = [wq[lo:hi] for lo, hi in blocks]
    per_step = zip(acts, zip(*(acts[:, lo:hi] for lo, hi in blocks)), hfull, acts[:, :3 * n],
                   acts[:, :n], acts[:, n:2 * n], acts[:, 2 * n:3 * n], acts[:, 3 * n:], cs,
                   cs[1:], tcs, hfull[1:, :p], xq if xq is not None else acts)
    for a, a_blocks, h_in, sig, i, f, o, g, c_prev, c, tc, h, x_t in per_step:
        for w, a_b in zip(wb, a_blocks):
            mm(w, h_in, out=a_b)
        if xq is not None:
            a += x_t
        tanh(a, out=a)
        sig *= 0.5  # sigmoid(z) = (1 + tanh(z / 2)) / 2: the rows were halved
        sig += 0.5
        mul(i, g, out=tc)
        mul(f, c_prev, out=c)
        c += tc
        tanh(c, out=tc)
        mul(o, tc, out=h)


def _plain_lstm_grads(xp, wt, blocks, dh_out, lo, hi, go, dtanh_c, fac, f, dz, dh, dc, tmp,
                      need_h0, need_c0):
    """Steps ``hi - 1`` down to ``lo`` of the LSTM backward loop without projection, mask or
    GPU kernel (``LSTMSequence.backward_arrays``' arrays): the gate gradients into ``dz``;
    returns the state gradients (dh, dc) reaching step ``lo - 1``. As ``_plain_lstm_steps``,
    every per-step view comes from iterating the arrays in one ``zip``."""
    n = dc.shape[0]
    mm, mul = xp.matmul, xp.multiply
    if blocks is None:
        blocks = [(0, wt.shape[0])]
    if dh_out is None:
        dh_out = xp.empty(dh.shape, dh.dtype)
    wb = [wt[b0:b1] for b0, b1 in blocks]
    out_b = [dh_out[b0:b1] for b0, b1 in blocks]
    rev = slice(hi - 1, lo - 1 if lo else None, -1)
    gates = dz.shape[1]
    per_step = zip(range(hi - 1, lo - 1, -1), go[rev], dtanh_c[rev],
                   fac[rev, :3 * n].reshape(-1, 3, n, dz.shape[2]), fac[rev, 3 * n:],
                   dz[rev, :3 * n].reshape(-1, 3, n, dz.shape[2]), dz[rev, 3 * n:gates],
                   dz[rev], f[rev])
    for t, go_t, dtc, fac3, fac_o, dz3, dz_o, dz_t, f_t in per_step:
        dh += go_t
        mul(dh, dtc, out=tmp)
        dc += tmp
        mul(fac3, dc, out=dz3)
        mul(fac_o, dh, out=dz_o)
        if t or need_h0:  # the first step's state gradients reach only h0, c0
            # dh is dead here (dz_t holds what it gave): dh_out may be the array it was
            for w, o in zip(wb, out_b):
                mm(w, dz_t, out=o)
            dh = dh_out
        if t or need_c0:
            dc *= f_t
    return dh, dc


def gru_update(gi, gh, h):
    """One GRU step with differentiable ops from the input part ``gi`` and recurrent part
    ``gh`` (both ``(B, 3H)``, gates [r z n]) of the gate pre-activations: the new ``h``."""
    ir, iz, inn = gi.chunk(3, -1)
    hr, hz, hn = gh.chunk(3, -1)
    r = sigmoid(ir + hr)
    z = sigmoid(iz + hz)
    n = tanh(inn + r * hn)
    return n + z * (h - n)


class GRUSequence(_Sequence):
    """GRU: ``xs`` (T, B, 3H) with ``b_ih``, ``h0`` (B, H), ``w_hh`` (3H, H), ``b_hh`` (3H,) or
    None -> outputs (T, B, H), ``h_n``. ``n = tanh(x_n + r * (h W_hn^T + b_hn))`` keeps
    ``b_hh`` out of the input projection."""

    def forward(self, xs, h0, w, b):
        xp = self.xp
        self._save_present(xs, h0, w, b)
        xs, mask = self._time_major(xs)
        steps, batch, gates = xs.shape
        n = gates // 3
        dt = xs.dtype
        wt = xp.ascontiguousarray(w.T)
        rz = xp.empty((steps, batch, 2 * n), dt)
        nn_ = xp.empty((steps, batch, n), dt)
        ghn = xp.empty((steps, batch, n), dt)
        hs = xp.empty((steps + 1, batch, n), dt)
        hs[0] = h0
        done = False
        if mask is None and is_device_array(xs):  # a step: its GEMM and one kernel
            if not xs.flags.c_contiguous:  # (reversed in time)
                xs = xp.ascontiguousarray(xs)
            done = helpers_for(xp).gru_forward(xs, wt, b, hs, rz, nn_, ghn)
        gh = xp.empty((batch, gates), dt)
        gemm = None if done else _step_gemm(xp, hs, wt, gh)  # (one cuBLAS call a step)
        with _blas_threads(batch * gates * n):
            blocks = _row_blocks(wt, gates, n, batch)  # here blocks of gh's columns
            for t in range(0 if done else steps):
                if gemm is not None:
                    gemm(t, 0, 0)
                elif blocks is None:
                    xp.matmul(hs[t], wt, out=gh)
                else:
                    for lo, hi in blocks:
                        xp.matmul(hs[t], wt[:, lo:hi], out=gh[:, lo:hi])
                if b is not None:
                    gh += b
                a = rz[t]
                xp.add(xs[t, :, :2 * n], gh[:, :2 * n], out=a)
                # sigmoid(z) = (1 + tanh(z / 2)) / 2: one tanh pass instead of three
                a *= 0.5
                xp.tanh(a, out=a)
                a *= 0.5
                a += 0.5
                ghn[t] = gh[:, 2 * n:]
                nt = nn_[t]
                xp.multiply(a[:, :n], gh[:, 2 * n:], out=nt)
                nt += xs[t, :, 2 * n:]
                xp.tanh(nt, out=nt)
                h = hs[t + 1]
                xp.subtract(hs[t], nt, out=h)
                h *= a[:, n:]
                h += nt
                if mask is not None:
                    self._keep_finished(xp, h, hs[t], mask[t])
        self.save(rz=rz, n=nn_, ghn=ghn, hs=hs)
        return self._outputs(hs, hs[steps])

    def backward_arrays(self, gout, ghn_grad):
        xp = self.xp
        rz, nn_, ghn, hs = (self.saved(k) for k in ("rz", "n", "ghn", "hs"))
        w = self.saved_inputs()[2]._array
        go, mask = self._time_major(gout)
        steps, batch, n = nn_.shape
        r, z = rz[..., :n], rz[..., n:]
        # d(pre-activation)/dh_t factors for all steps: [r, z, n-in-gh] blocks, and x_n's
        fac_n = (1 - z) * (1 - nn_ * nn_)
        fac = xp.empty((steps, batch, 3 * n), nn_.dtype)
        xp.multiply(fac_n * ghn, r * (1 - r), out=fac[..., :n])
        xp.multiply(hs[:-1] - nn_, z * (1 - z), out=fac[..., n:2 * n])
        xp.multiply(fac_n, r, out=fac[..., 2 * n:])
        dgh = xp.empty_like(fac)
        dxn = xp.empty_like(nn_)
        dh = ghn_grad.astype(nn_.dtype, copy=True)
        done = None
        if mask is None and is_device_array(w):  # a step: one kernel and its GEMM
            if not go.flags.c_contiguous:  # (reversed, or a broadcast gradient)
                go = xp.ascontiguousarray(go)
            done = helpers_for(xp).gru_backward(w, go, fac, fac_n, rz, dh, dgh, dxn)
        with _blas_threads(batch * 3 * n * n):
            blocks = _row_blocks(w, n, 3 * n, batch)  # blocks of dh's columns
            # two buffers in turn: a step reads the old dh after its GEMM wrote the new one
            gemm = None
            if done is not None:
                dh = done
            elif is_device_array(w):
                bufs = xp.empty((2, batch, n), nn_.dtype)
                gemm = _step_gemm(xp, dgh, w, bufs)
            else:
                bufs = None if blocks is None else xp.empty((2, batch, n), nn_.dtype)
            for t in range(-1 if done is not None else steps - 1, -1, -1):
                dh += go[t]
                if mask is not None:
                    dh, pass_h = self._split_masked(xp, dh, mask[t])
                gt = dgh[t]
                xp.multiply(fac[t].reshape(batch, 3, n), dh[:, None, :],
                            out=gt.reshape(batch, 3, n))
                xp.multiply(fac_n[t], dh, out=dxn[t])
                if gemm is not None:
                    gemm(t, 0, t % 2)
                    dh_next = bufs[t % 2]
                elif blocks is None:
                    dh_next = gt @ w
                else:
                    dh_next = bufs[t % 2]
                    for lo, hi in blocks:
                        xp.matmul(gt, w[:, lo:hi], out=dh_next[:, lo:hi])
                dh_next += dh * z[t]
                dh = dh_next
                if mask is not None:
                    dh += pass_h
        dxs = dgh.copy()
        dxs[..., 2 * n:] = dxn
        flat = dgh.reshape(-1, 3 * n)
        dw = flat.T @ hs[:-1].reshape(-1, n)
        db = flat.sum(0) if self.present[3] else None
        return (dxs[::-1] if self.reverse else dxs), dh, dw, db

    @staticmethod
    def steps(xs, h, w, b, mask=None, reverse=False):
        """The same layer with differentiable ops per step."""
        wt = w.t()

        def step(x, h, c):
            return gru_update(x, h.matmul(wt) if b is None else h.matmul(wt) + b, h), None

        out, h, _ = _run_steps(xs, h, None, mask, reverse, step)
        return out, h


class RNNSequence(_Sequence):
    """Elman RNN: ``xs`` (T, B, H) with both biases, ``h0`` (B, H), ``w_hh`` (H, H) ->
    outputs (T, B, H), ``h_n``; ``nonlinearity`` is ``"tanh"`` or ``"relu"``."""

    def forward(self, xs, h0, w):
        xp = self.xp
        self._save_present(xs, h0, w)
        xs, mask = self._time_major(xs)
        steps, batch, n = xs.shape
        wt = xp.ascontiguousarray(w.T)
        hs = xp.empty((steps + 1, batch, n), xs.dtype)
        hs[0] = h0
        tanh = self.nonlinearity == "tanh"
        # on a GPU: a tanh layer's step is its GEMM and one kernel (backend rnn_tanh_forward);
        # else the GEMM is one cuBLAS call a step without views
        done = False
        if tanh and mask is None and is_device_array(xs):
            if not xs.flags.c_contiguous:  # (reversed in time)
                xs = xp.ascontiguousarray(xs)
            done = helpers_for(xp).rnn_tanh_forward(xs, wt, hs)
        gemm = None if done else _step_gemm(xp, hs, wt, hs)
        with _blas_threads(batch * n * n):
            for t in range(0 if done else steps):
                h = hs[t + 1]
                if gemm is not None:
                    gemm(t, 0, t + 1)
                else:
                    xp.matmul(hs[t], wt, out=h)
                h += xs[t]
                if tanh:
                    xp.tanh(h, out=h)
                else:
                    xp.maximum(h, 0, out=h)
                if mask is not None:
                    self._keep_finished(xp, h, hs[t], mask[t])
        self.save(hs=hs)
        return self._outputs(hs, hs[steps])

    def backward_arrays(self, gout, ghn):
        xp = self.xp
        hs = self.saved("hs")
        w = self.saved_inputs()[2]._array
        go, mask = self._time_major(gout)
        steps, batch, n = go.shape
        h = hs[1:]
        fac = 1 - h * h if self.nonlinearity == "tanh" else (h > 0).astype(h.dtype)
        da = xp.empty_like(fac)
        dh = ghn.astype(h.dtype, copy=True)
        buf = gemm = None
        if is_device_array(w):  # a step: one kernel and the GEMM (backend rnn_seq_backward)
            if mask is None and not go.flags.c_contiguous:
                go = xp.ascontiguousarray(go)  # (a broadcast gradient)
            done = mask is None and helpers_for(xp).rnn_seq_backward(w, go, fac, dh, da)
            if not done:
                buf = xp.empty_like(dh)
                gemm = _step_gemm(xp, da, w, buf)
        else:
            done = False
        with _blas_threads(batch * n * n):
            for t in range(-1 if done else steps - 1, -1, -1):
                dh += go[t]
                if mask is not None:
                    dh, pass_h = self._split_masked(xp, dh, mask[t])
                xp.multiply(dh, fac[t], out=da[t])
                if gemm is not None:  # dh is dead here (da[t] holds what it gave)
                    gemm(t, 0, 0)
                    dh = buf
                else:
                    dh = da[t] @ w
                if mask is not None:
                    dh += pass_h
        dw = da.reshape(-1, n).T @ hs[:-1].reshape(-1, n)
        return (da[::-1] if self.reverse else da), dh, dw

    def _step_options(self):
        return {"nonlinearity": self.nonlinearity}

    @staticmethod
    def steps(xs, h, w, mask=None, reverse=False, nonlinearity="tanh"):
        """The same layer with differentiable ops per step."""
        wt = w.t()
        act = tanh if nonlinearity == "tanh" else relu
        out, h, _ = _run_steps(xs, h, None, mask, reverse,
                               lambda x, h, c: (act(x + h.matmul(wt)), None))
        return out, h


def lstm_sequence(x, h0, c0, w_ih, w_hh, b=None, w_hr=None, mask=None, reverse=False,
                  b_hh=None):
    """One LSTM layer direction; returns (outputs, h_n, c_n).

    Args:
        x (Tensor): ``(T, B, F)`` time-major input.
        h0, c0 (Tensor): ``(B, H)`` initial states.
        w_ih (Tensor): ``(4H, F)`` input weight.
        w_hh (Tensor): ``(4H, H)`` recurrent weight.
        b (Tensor, optional): ``(4H,)``: ``b_ih`` (or ``b_ih + b_hh``).
        w_hr (Tensor, optional): ``(P, H)`` projection (``proj_size``); then ``w_hh`` is
            ``(4H, P)`` and ``h0``, the outputs and ``h_n`` have P features.
        mask (Tensor, optional): ``(T, B, 1)`` bool, True where a step is real.
        reverse (bool): run from the last step to the first.
        b_hh (Tensor, optional): ``(4H,)``, added to ``b`` inside the op.

    The node is named as torch 2.13's CPU layer names its own: ``MkldnnRnnLayerBackward0``
    where torch runs the layer with oneDNN (float32 or bfloat16, no projection, no packed
    mask, ``backends.mkldnn.enabled``), else ``StackBackward0`` (its step-by-step form ends
    in a stack of the steps' outputs).
    """
    onednn = (w_hr is None and mask is None and x.dtype in _ONEDNN_DTYPES
              and _mkldnn.enabled)
    # without a projection the op has torch's seven inputs (the node's next_functions)
    args = (x, w_ih, w_hh, b, b_hh, h0, c0) + (() if w_hr is None else (w_hr,))
    return LSTMSequence.apply(*args, mask=_mask_array(mask), reverse=reverse,
                              node_name=_LAYER_NODE if onednn else _STACK_NODE)


def gru_sequence(xs, h0, w_hh, b_hh=None, mask=None, reverse=False):
    """One GRU layer direction over projected inputs (``x W_ih^T + b_ih``); returns
    (outputs, h_n). Arguments as :func:`lstm_sequence`, plus ``b_hh`` ``(3H,)`` or None."""
    return GRUSequence.apply(xs, h0, w_hh, b_hh, mask=_mask_array(mask), reverse=reverse,
                             node_name=_STACK_NODE)


def rnn_sequence(xs, h0, w_hh, nonlinearity="tanh", mask=None, reverse=False):
    """One Elman RNN layer direction over projected inputs (``x W_ih^T + b_ih + b_hh``);
    returns (outputs, h_n). ``nonlinearity`` is ``"tanh"`` or ``"relu"``."""
    return RNNSequence.apply(xs, h0, w_hh, mask=_mask_array(mask), reverse=reverse,
                             nonlinearity=nonlinearity, node_name=_STACK_NODE)


# torch 2.13's CPU node names (GRU and Elman layers always run step by step there)
_LAYER_NODE, _STACK_NODE = "MkldnnRnnLayerBackward0", "StackBackward0"
_ONEDNN_DTYPES = (_dtype.float32, _dtype.bfloat16)


def _mask_array(mask):
    """The ops keep the packed mask as an array parameter (it is not differentiable)."""
    return None if mask is None else mask._array
