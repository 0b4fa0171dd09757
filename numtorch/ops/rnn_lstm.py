"""The LSTM layer direction as one graph node (``LSTMSequence``, see ``rnn_sequence``): the
forward loop feature-major with the input projection inside the op, the backpropagation
through time with its side work on a second thread where one is free (``rnn_overlap``)."""

import contextlib

from .. import _dtype
from .._threads import fit_blas_threads, single_blas_thread
from ..backend import helpers_for, is_device_array
from ..backends import mkldnn as _mkldnn
from .rnn_ops import lstm_cell
from .rnn_overlap import LSTMWeightGrads, finish, overlap_worker, spans, submit
from .rnn_sequence_base import _STACK_NODE, _mask_array, _row_blocks, _run_steps, _Sequence

__all__ = ["lstm_sequence"]


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
        if acts.dtype.kind == "c":  # complex: the derivatives enter conjugated, as torch
            acts, hfull, cs, tcs, pre, x, w_ih, w, w_hr = (
                None if a is None else a.conj()
                for a in (acts, hfull, cs, tcs, pre, x, w_ih, w, w_hr))
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
            # Time runs in chunks (one without a second core, see ``rnn_overlap``): each
            # chunk's weight gradients are made (on the worker) once the loop is past it
            chunks = spans(steps, worker)
            grads.expect(chunks)
            # The gate factors of all steps are made here, on this thread, in one go. Made
            # on the worker (as before s39), the lines it wrote sat in the other core's
            # cache: the loop here read them across cores, and the next forward, whose
            # arrays reuse the freed memory, wrote over them across cores again (two
            # threads, 4 x 200 steps p10: forward 2.65-2.93 -> 1.64-2.27 ms, backward
            # 2.94-3.29 -> 2.17-2.83). The worker is left the weight GEMMs, which write
            # only arrays of their own.
            if not on_gpu:
                self._factors(xp, acts, cs[:-1], tcs, fac, dtanh_c)
            done = []
            plain = mask is None and w_hr is None
            wb = None
            for lo, hi in chunks:
                steps_xp = ()
                if on_gpu:
                    pass  # the steps ran on the GPU
                elif plain:
                    if wb is None:  # W^T's row blocks (each made once)
                        wb = _dot_blocks(xp, w, wt, blocks)
                    dh, dc = _plain_lstm_grads(xp, wb, blocks, lo, hi, go, dtanh_c,
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
        # sigmoid' = s (1 - s) of the three sigmoid gates ([i f o], runs of 3H * B values),
        # then each block's other factor, moving o's block to torch's order
        sig, sig_d = acts[:, :3 * n], fac[:, :3 * n]
        xp.subtract(1, sig, out=sig_d)
        sig_d *= sig
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
    # ``dot`` (every operand here 2-D, the outputs row blocks) costs ~0.5 us less a call
    # than ``matmul``; out= positionally saves the keyword's parsing
    mm, tanh, mul, add = xp.dot, xp.tanh, xp.multiply, xp.add
    if blocks is None:
        blocks = [(0, acts.shape[1])]
    wb = [wq[lo:hi] for lo, hi in blocks]
    half = acts.dtype.type(0.5)  # a scalar of the arrays' type takes the ufuncs' fast path
    per_step = zip(acts, zip(*(acts[:, lo:hi] for lo, hi in blocks)), hfull, acts[:, :3 * n],
                   acts[:, :n], acts[:, n:2 * n], acts[:, 2 * n:3 * n], acts[:, 3 * n:], cs,
                   cs[1:], tcs, hfull[1:, :p], xq if xq is not None else acts)
    for a, a_blocks, h_in, sig, i, f, o, g, c_prev, c, tc, h, x_t in per_step:
        for w, a_b in zip(wb, a_blocks):
            mm(w, h_in, a_b)
        if xq is not None:
            add(a, x_t, a)
        tanh(a, a)
        mul(sig, half, sig)  # sigmoid(z) = (1 + tanh(z / 2)) / 2: the rows were halved
        add(sig, half, sig)
        mul(i, g, tc)
        mul(f, c_prev, c)
        add(c, tc, c)
        tanh(c, tc)
        mul(o, tc, h)


def _dot_blocks(xp, w, wt, blocks):
    """``wt`` (W^T) whole, or its row blocks as Fortran-ordered copies: ``dot`` hands a C- or
    Fortran-ordered matrix to BLAS as it is but copies a strided view on every call (a
    transposed block of W), and it costs ~1 us less a call than ``matmul``."""
    if blocks is None:
        return [wt]
    return [xp.ascontiguousarray(w[:, b0:b1]).T for b0, b1 in blocks]


def _plain_lstm_grads(xp, wb, blocks, lo, hi, go, dtanh_c, fac, f, dz, dh, dc, tmp,
                      need_h0, need_c0):
    """Steps ``hi - 1`` down to ``lo`` of the LSTM backward loop without projection, mask or
    GPU kernel (``LSTMSequence.backward_arrays``' arrays; ``wb`` W^T's row ``blocks`` from
    ``_dot_blocks``): the gate gradients into ``dz``; returns the state gradients (dh, dc)
    reaching step ``lo - 1``. As ``_plain_lstm_steps``, every per-step view comes from
    iterating the arrays in one ``zip``."""
    n = dc.shape[0]
    mm, mul, add = xp.dot, xp.multiply, xp.add  # (as ``_plain_lstm_steps``)
    if blocks is None:
        blocks = [(0, wb[0].shape[0])]
    # the state gradients side by side, [dc; dh]: with the gate factors in torch's order
    # [i f g o], the g and o gates' gradients are one product of two contiguous (2H, B)
    # blocks, [fac_g fac_o] * [dc dh] (a broadcast product of the three dc gates cost as
    # much as four plain ones); each step's GEMM writes the new dh in place
    state = xp.empty((2,) + dc.shape, dc.dtype)
    state[0], state[1] = dc, dh
    dc, dh = state
    pair = state.reshape(2 * n, -1)
    out_b = [dh[b0:b1] for b0, b1 in blocks]
    rev = slice(hi - 1, lo - 1 if lo else None, -1)
    per_step = zip(range(hi - 1, lo - 1, -1), go[rev], dtanh_c[rev], fac[rev, :n],
                   fac[rev, n:2 * n], fac[rev, 2 * n:], dz[rev, :n], dz[rev, n:2 * n],
                   dz[rev, 2 * n:], dz[rev], f[rev])
    for t, go_t, dtc, fac_i, fac_f, fac_go, dz_i, dz_f, dz_go, dz_t, f_t in per_step:
        add(dh, go_t, dh)
        mul(dh, dtc, tmp)
        add(dc, tmp, dc)
        mul(fac_i, dc, dz_i)
        mul(fac_f, dc, dz_f)
        mul(fac_go, pair, dz_go)
        if t or need_h0:  # the first step's state gradients reach only h0, c0
            # dh is dead here (dz_t holds what it gave): the GEMM overwrites it
            for w, o in zip(wb, out_b):
                mm(w, dz_t, o)
        if t or need_c0:
            mul(dc, f_t, dc)
    return dh, dc



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


# torch 2.13's CPU node name where it runs the layer with oneDNN
_LAYER_NODE = "MkldnnRnnLayerBackward0"
_ONEDNN_DTYPES = (_dtype.float32, _dtype.bfloat16)
