"""Per-step primitives of the recurrent layers: ``unbind_steps`` and the fused ``lstm_cell``.

``unbind_steps``: the step-by-step recurrent loops (``nn.LSTMCell`` & co and the
differentiable reference loops of ``rnn_sequence.py``) project every time step with one matmul,
then read the steps one by one. Reading them with ``unbind`` makes each step's backward scatter
into a zero tensor of the whole sequence, so backward costs O(T^2); ``unbind_steps`` is one
node whose backward stacks the step gradients once: O(T). ``lstm_cell`` is one LSTM step as one
node (see ``LSTMCell``). Whole sequences run as one op each in ``rnn_sequence.py``.
"""

import numpy as np

from .. import backend
from ..autograd.graph import Op
from ._smooth_activation import _sigmoid_array
from .join import cat, stack

__all__ = ["unbind_steps", "lstm_cell"]


class UnbindSteps(Op):
    """ys[t] = x[t] for every t along dim 0; dx = stack(dys)."""

    def forward(self, x):
        # views are safe: the layers feed a fresh intermediate that nothing writes in place
        return tuple(x[t] for t in range(x.shape[0]))

    def backward(self, *grads):
        return stack(list(grads), 0)


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


class LSTMCell(Op):
    """(h', c') from gate pre-activations z = [i f g o] (B, 4H) and cell c:
    c' = s(f) c + s(i) tanh(g), h' = s(o) tanh(c').

    Why a primitive: written with separate ops a step is ~13 nodes forward and backward, and
    the per-op overhead dominates small recurrent layers. ``backward_arrays`` is one NumPy pass
    (the engine's choice when no graph is being built); ``backward`` is the same formulas
    written with numtorch ops, for ``create_graph``; the tests compare both with torch.
    """

    def forward(self, z, c):
        xp, n = self.xp, c.shape[-1]
        fused = None if xp is np else backend.helpers_for(xp).lstm_cell(z, c)
        if fused is not None:  # a GPU: the gate math as one kernel
            h, cn, i, f, g, o, tc = fused
            self.save_inputs(z, c)
            self.save(i=i, f=f, g=g, o=o, tc=tc)
            return h, cn
        i = _sigmoid_array(xp, z[..., :n])
        f = _sigmoid_array(xp, z[..., n:2 * n])
        g = xp.tanh(z[..., 2 * n:3 * n])
        o = _sigmoid_array(xp, z[..., 3 * n:])
        cn = f * c + i * g
        tc = xp.tanh(cn)
        self.save_inputs(z, c)
        self.save(i=i, f=f, g=g, o=o, tc=tc)
        return (o * tc).astype(c.dtype, copy=False), cn.astype(c.dtype, copy=False)

    def backward_arrays(self, gh, gc):
        i, f, g, o, tc = (self.saved(k) for k in ("i", "f", "g", "o", "tc"))
        z, c = self.saved_inputs()
        c = c._array
        dcn = gc + gh * o * (1 - tc * tc)
        dz = self.xp.concatenate([dcn * g * i * (1 - i), dcn * c * f * (1 - f),
                                  dcn * i * (1 - g * g), gh * tc * o * (1 - o)], axis=-1)
        return dz.astype(c.dtype, copy=False), dcn * f

    def backward(self, gh, gc):
        z, c = self.saved_inputs()
        n = c.shape[-1]
        i = z[..., :n].sigmoid()
        f = z[..., n:2 * n].sigmoid()
        g = z[..., 2 * n:3 * n].tanh()
        o = z[..., 3 * n:].sigmoid()
        tc = (f * c + i * g).tanh()
        dcn = gc + gh * o * (1 - tc * tc)
        dz = cat([dcn * g * i * (1 - i), dcn * c * f * (1 - f), dcn * i * (1 - g * g),
                      gh * tc * o * (1 - o)], -1)
        return dz, dcn * f


def lstm_cell(z, c):
    """One LSTM step on gate pre-activations ``z`` (B, 4H) and cell ``c``: returns (h, c')."""
    return LSTMCell.apply(z, c)
