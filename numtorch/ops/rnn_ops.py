"""Primitive used by the recurrent layers (numtorch.nn.modules.rnn).

Why a primitive: the layers project every time step with one matmul, then read the steps one
by one. Reading them with ``unbind`` makes each step's backward scatter into a zero tensor of
the whole sequence, so backward costs O(T^2). ``unbind_steps`` is one node whose backward
stacks the step gradients once: O(T).
"""

import contextlib

from .. import ops
from .._threads import single_blas_thread
from ..autograd.graph import Op

__all__ = ["unbind_steps", "lstm_cell", "lstm_sequence"]


class UnbindSteps(Op):
    """ys[t] = x[t] for every t along dim 0; dx = stack(dys)."""

    def forward(self, x):
        # views are safe: the layers feed a fresh intermediate that nothing writes in place
        return tuple(x[t] for t in range(x.shape[0]))

    def backward(self, *grads):
        return ops.stack(list(grads), 0)


def unbind_steps(x):
    """Split ``x`` along dim 0 into its slices, with a single O(T) backward node.

    Args:
        x (Tensor): at least 1-D; for the recurrent layers ``(T, B, G)``.

    Returns:
        tuple of Tensor: ``x[0], ..., x[T-1]``.
    """
    if x.shape[0] == 1:
        return (x.squeeze(0),)
    return UnbindSteps.apply(x)


def _sigmoid_np(xp, x):
    return 1 / (1 + xp.exp(-x))


class LSTMCell(Op):
    """(h', c') from gate pre-activations z = [i f g o] (B, 4H) and cell c:
    c' = s(f) c + s(i) tanh(g), h' = s(o) tanh(c').

    Why a primitive: written with separate ops a step is ~13 nodes forward and backward, and
    the per-op overhead dominates small recurrent layers. The backward is one NumPy pass when
    no graph is being built; under ``create_graph`` it is the same formulas written with
    numtorch ops (so double backward works), and the tests compare both with torch.
    """

    def forward(self, z, c):
        xp, n = self.xp, c.shape[-1]
        i = _sigmoid_np(xp, z[..., :n])
        f = _sigmoid_np(xp, z[..., n:2 * n])
        g = xp.tanh(z[..., 2 * n:3 * n])
        o = _sigmoid_np(xp, z[..., 3 * n:])
        cn = f * c + i * g
        tc = xp.tanh(cn)
        self.save_inputs(z, c)
        self.save(i=i, f=f, g=g, o=o, tc=tc)
        return (o * tc).astype(c.dtype, copy=False), cn.astype(c.dtype, copy=False)

    def backward(self, gh, gc):
        from ..autograd.grad_mode import _state

        if _state.enabled:
            return self._backward_composed(gh, gc)
        i, f, g, o, tc = (self.saved(k) for k in ("i", "f", "g", "o", "tc"))
        z, c = self.saved_inputs()
        c = c._array
        gh, gc = gh._array, gc._array
        dcn = gc + gh * o * (1 - tc * tc)
        dz = self.xp.concatenate([dcn * g * i * (1 - i), dcn * c * f * (1 - f),
                                  dcn * i * (1 - g * g), gh * tc * o * (1 - o)], axis=-1)
        from .._tensor import _make

        return _make(dz.astype(c.dtype, copy=False)), _make(dcn * f)

    def _backward_composed(self, gh, gc):
        z, c = self.saved_inputs()
        n = c.shape[-1]
        i = z[..., :n].sigmoid()
        f = z[..., n:2 * n].sigmoid()
        g = z[..., 2 * n:3 * n].tanh()
        o = z[..., 3 * n:].sigmoid()
        tc = (f * c + i * g).tanh()
        dcn = gc + gh * o * (1 - tc * tc)
        dz = ops.cat([dcn * g * i * (1 - i), dcn * c * f * (1 - f), dcn * i * (1 - g * g),
                      gh * tc * o * (1 - o)], -1)
        return dz, dcn * f


def lstm_cell(z, c):
    """One LSTM step on gate pre-activations ``z`` (B, 4H) and cell ``c``: returns (h, c')."""
    return LSTMCell.apply(z, c)


def _blas_threads(macs):
    """One BLAS thread for a loop of small GEMMs (<= 8M multiply-adds each)."""
    return single_blas_thread() if macs <= 8_000_000 else contextlib.nullcontext()


class LSTMSequence(Op):
    """A whole LSTM layer direction: from projected inputs ``xs`` (T, B, 4H), states ``h0``,
    ``c0`` (B, H) and ``w_hh`` (4H, H), the outputs (T, B, H) and final ``(h_n, c_n)``.

    Why a primitive: even with a fused cell, a step costs ~4 graph nodes forward and ~10
    backward (recurrent matmul, add, cell, their gradients and accumulation), and that per-op
    overhead is most of a small recurrent layer's time. Here the forward and the
    backpropagation through time are two NumPy loops over time; everything that does not
    depend on the previous step (gate derivatives, the ``w_hh`` gradient) is computed for all
    steps at once. Under ``create_graph`` the backward recomputes the layer with the fused cell
    and differentiates that, so double backward works.

    ``mask`` (T, B, 1) bool marks the steps that are real for each sequence (packed input):
    elsewhere the state passes through unchanged. ``reverse`` runs from the last step.
    """

    def forward(self, xs, h0, c0, w):
        xp = self.xp
        self.save_inputs(xs, h0, c0, w)
        mask, rev = self.mask, self.reverse
        if rev:
            xs = xs[::-1]
            mask = None if mask is None else mask[::-1]
        steps, batch, gates = xs.shape
        n = gates // 4
        dt = xs.dtype
        # Inside the loop the gates are ordered [i f o g] and the sigmoid gates' inputs are
        # halved, so one tanh pass serves all four: sigmoid(z) = (1 + tanh(z / 2)) / 2.
        perm = xp.concatenate([xp.arange(0, 2 * n), xp.arange(3 * n, 4 * n),
                               xp.arange(2 * n, 3 * n)])
        scale = xp.ones(gates, dt)
        scale[:3 * n] = 0.5
        wt = xp.ascontiguousarray((w[perm] * scale[:, None]).T)
        xq = xp.empty(xs.shape, dt)
        xp.multiply(xs[..., :2 * n], 0.5, out=xq[..., :2 * n])
        xp.multiply(xs[..., 3 * n:], 0.5, out=xq[..., 2 * n:3 * n])
        xq[..., 3 * n:] = xs[..., 2 * n:3 * n]
        xs = xq
        acts = xp.empty((steps, batch, gates), dt)
        hs = xp.empty((steps + 1, batch, n), dt)
        cs = xp.empty((steps + 1, batch, n), dt)
        tcs = xp.empty((steps, batch, n), dt)
        hs[0] = h0
        cs[0] = c0
        with _blas_threads(batch * gates * n):
            for t in range(steps):
                a = acts[t]
                xp.matmul(hs[t], wt, out=a)
                a += xs[t]
                xp.tanh(a, out=a)
                s = a[:, :3 * n]
                s *= 0.5
                s += 0.5
                tc, c = tcs[t], cs[t + 1]
                xp.multiply(a[:, :n], a[:, 3 * n:], out=tc)
                xp.multiply(a[:, n:2 * n], cs[t], out=c)
                c += tc
                xp.tanh(c, out=tc)
                xp.multiply(a[:, 2 * n:3 * n], tc, out=hs[t + 1])
                if mask is not None:
                    keep = ~mask[t]
                    xp.copyto(hs[t + 1], hs[t], where=keep)
                    xp.copyto(c, cs[t], where=keep)
        self.save(acts=acts, hs=hs, cs=cs, tcs=tcs)
        # copies: the outputs must not alias what backward reads
        out = hs[:0:-1].copy() if rev else hs[1:].copy()
        return out, hs[steps].copy(), cs[steps].copy()

    def backward(self, gout, ghn, gcn):
        from ..autograd.grad_mode import _state

        if _state.enabled:
            return self._backward_composed(gout, ghn, gcn)
        from .._tensor import _make

        xp = self.xp
        acts, hs, cs, tcs = (self.saved(k) for k in ("acts", "hs", "cs", "tcs"))
        w = self.saved_inputs()[3]._array
        mask, rev = self.mask, self.reverse
        go = gout._array
        if rev:
            go = go[::-1]
            mask = None if mask is None else mask[::-1]
        steps, batch, gates = acts.shape
        n = gates // 4
        i, f, o, g = (acts[..., k * n:(k + 1) * n] for k in range(4))  # forward's order
        # gate-local derivative factors, for all steps at once
        dtanh_c = o * (1 - tcs * tcs)
        fac = xp.empty_like(acts)
        xp.multiply(g, i * (1 - i), out=fac[..., :n])
        xp.multiply(cs[:-1], f * (1 - f), out=fac[..., n:2 * n])
        xp.multiply(i, 1 - g * g, out=fac[..., 2 * n:3 * n])
        xp.multiply(tcs, o * (1 - o), out=fac[..., 3 * n:])
        dz = xp.empty_like(acts)
        dh = ghn._array.astype(acts.dtype, copy=True)
        dc = gcn._array.astype(acts.dtype, copy=True)
        with _blas_threads(batch * gates * n):
            for t in range(steps - 1, -1, -1):
                dh += go[t]
                if mask is not None:
                    m = mask[t]
                    pass_h, pass_c = xp.where(m, 0, dh), xp.where(m, 0, dc)
                    dh = xp.where(m, dh, 0)
                    dc = xp.where(m, dc, 0)
                dc += dh * dtanh_c[t]
                zt = dz[t]
                xp.multiply(fac[t].reshape(batch, 4, n)[:, :3], dc[:, None, :],
                            out=zt.reshape(batch, 4, n)[:, :3])
                xp.multiply(fac[t, :, 3 * n:], dh, out=zt[:, 3 * n:])
                dh = zt @ w
                dc = dc * f[t]
                if mask is not None:
                    dh += pass_h
                    dc += pass_c
        dw = dz.reshape(-1, gates).T @ hs[:-1].reshape(-1, n)
        dxs = dz[::-1] if rev else dz
        return _make(dxs), _make(dh), _make(dc), _make(dw)

    def _backward_composed(self, gout, ghn, gcn):
        import numtorch

        ins = self.saved_inputs()
        outs = lstm_sequence_steps(*ins, mask=self.mask, reverse=self.reverse)
        wanted = [k for k, x in enumerate(ins) if x.requires_grad]
        grads = numtorch.autograd.grad(outs, [ins[k] for k in wanted], [gout, ghn, gcn],
                                       create_graph=True, allow_unused=True)
        res = [None] * 4
        for k, gk in zip(wanted, grads):
            res[k] = gk
        return tuple(res)


def lstm_sequence_steps(xs, h, c, w, mask=None, reverse=False):
    """The same layer as ``LSTMSequence``, one fused cell per step (differentiable twice)."""
    import numtorch
    from .._tensor import _make

    steps = unbind_steps(xs)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    m = None if mask is None else _make(mask)
    outs = [None] * len(steps)
    wt = w.t()
    for t in order:
        hn, cn = lstm_cell(steps[t] + h.matmul(wt), c)
        if m is not None:
            hn = numtorch.where(m[t], hn, h)
            cn = numtorch.where(m[t], cn, c)
        h, c = hn, cn
        outs[t] = h
    return numtorch.stack(outs, 0), h, c


def lstm_sequence(xs, h0, c0, w_hh, mask=None, reverse=False):
    """Run one LSTM layer direction over projected inputs; returns (outputs, h_n, c_n).

    Args:
        xs (Tensor): ``(T, B, 4H)`` input projections with both biases added.
        h0, c0 (Tensor): ``(B, H)`` initial states.
        w_hh (Tensor): ``(4H, H)`` recurrent weight.
        mask (ndarray, optional): ``(T, B, 1)`` bool, True where a step is real.
        reverse (bool): run from the last step to the first.
    """
    return LSTMSequence.apply(xs, h0, c0, w_hh, mask=mask, reverse=reverse)
