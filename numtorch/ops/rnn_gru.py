"""The GRU layer direction as one graph node (``GRUSequence``, see ``rnn_sequence``), and the
differentiable GRU step ``gru_update`` that the cells and the reference loop share."""

from ..backend import helpers_for, is_device_array
from ._smooth_activation import sigmoid
from .rnn_sequence_base import (
    _STACK_NODE,
    _blas_threads,
    _mask_array,
    _row_blocks,
    _run_steps,
    _Sequence,
    _step_gemm,
)
from .unary import tanh

__all__ = ["gru_sequence", "gru_update"]


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
        if w.dtype.kind == "c":  # complex: the derivatives enter conjugated, as torch
            rz, nn_, ghn, hs, w = (a.conj() for a in (rz, nn_, ghn, hs, w))
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



def gru_sequence(xs, h0, w_hh, b_hh=None, mask=None, reverse=False):
    """One GRU layer direction over projected inputs (``x W_ih^T + b_ih``); returns
    (outputs, h_n). Arguments as :func:`lstm_sequence`, plus ``b_hh`` ``(3H,)`` or None."""
    return GRUSequence.apply(xs, h0, w_hh, b_hh, mask=_mask_array(mask), reverse=reverse,
                             node_name=_STACK_NODE)
