"""The Elman (tanh or relu) RNN layer direction as one graph node (``RNNSequence``, see
``rnn_sequence``)."""

from ..backend import helpers_for, is_device_array
from .activation import relu
from .rnn_sequence_base import (
    _STACK_NODE,
    _blas_threads,
    _mask_array,
    _run_steps,
    _Sequence,
    _step_gemm,
)
from .unary import tanh

__all__ = ["rnn_sequence"]


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
        if h.dtype.kind == "c":  # complex: gradients carry conjugate derivatives, as torch
            fac, w, hs = fac.conj(), w.conj(), hs.conj()
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



def rnn_sequence(xs, h0, w_hh, nonlinearity="tanh", mask=None, reverse=False):
    """One Elman RNN layer direction over projected inputs (``x W_ih^T + b_ih + b_hh``);
    returns (outputs, h_n). ``nonlinearity`` is ``"tanh"`` or ``"relu"``."""
    return RNNSequence.apply(xs, h0, w_hh, mask=_mask_array(mask), reverse=reverse,
                             nonlinearity=nonlinearity, node_name=_STACK_NODE)
