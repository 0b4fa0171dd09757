"""Per-step primitives of the recurrent layers: ``unbind_steps``, the fused ``lstm_cell`` and the
whole-cell ``lstm_step``.

``unbind_steps``: the step-by-step recurrent loops (``nn.LSTMCell`` & co and the
differentiable reference loops of ``rnn_sequence.py``) project every time step with one matmul,
then read the steps one by one. Reading them with ``unbind`` makes each step's backward scatter
into a zero tensor of the whole sequence, so backward costs O(T^2); ``unbind_steps`` is one
node whose backward stacks the step gradients once: O(T). ``lstm_cell`` is one LSTM step as one
node (see ``LSTMCell``); ``lstm_step`` is a whole ``nn.LSTMCell`` call, both products with
the weights included, as one node (see ``LSTMStep``). Whole sequences run as one op each in
``rnn_sequence.py``.
"""

import sys

import numpy as np

from .. import backend
from .._threads import fit_blas_threads
from .._tensor import Tensor
from ..amp import _state as _amp
from ..autograd import grad as _grad
from ..autograd.graph import Op
from ._smooth_activation import _sigmoid_array
from .join import cat, stack

__all__ = ["unbind_steps", "lstm_cell", "lstm_step"]


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
        if c.dtype.kind == "c":  # every factor below is a derivative: conjugated, as torch
            i, f, g, o, tc, c = (a.conj() for a in (i, f, g, o, tc, c))
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


def _times_t(xp, a, w):
    """``a @ w.T``. With one input feature it is an outer product, written as one: NumPy sends
    ``(B, 1) @ (1, G)`` (a transposed column, not BLAS-shaped) to its own loop, 15x slower."""
    if w.shape[1] == 1:
        return a * w.reshape(1, -1)
    return xp.matmul(a, w.T)


class LSTMStep(Op):
    """One ``nn.LSTMCell`` call: ``z = x W_ih^T + b_ih + h W_hh^T + b_hh`` (gates i f g o), then
    ``c' = s(f) c + s(i) tanh(g)``, ``h' = s(o) tanh(c')``.

    Why one node: composed, a call is ~8 nodes forward (two products with transposed weights,
    bias adds, the gate op) and more backward, and a loop of small cells (time series, a
    decoder) is mostly that per-node overhead. ``backward_arrays`` gives every gradient from
    one pass over the gates and four GEMMs; ``backward`` recomputes the call with composed ops
    and differentiates that, for ``create_graph``.
    """

    def forward(self, x, h, c, w_ih, w_hh, b_ih, b_hh):
        xp = self.xp
        fit_blas_threads()
        self.present = (b_ih is not None, b_hh is not None)
        self.save_inputs(*(a for a in (x, h, c, w_ih, w_hh, b_ih, b_hh) if a is not None))
        n = c.shape[-1]
        z = _times_t(xp, x, w_ih)
        z += xp.matmul(h, w_hh.T)
        b = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        if b is not None:
            z += b
        # sigmoid(v) = (1 + tanh(v / 2)) / 2: one tanh pass serves all four gates; the
        # sigmoid gates' halving and affine map as whole-row products with per-column
        # vectors (3 passes over z, where 6 on the strided gate blocks cost 1.35x as much)
        scale, shift = _gate_affine(n, z.dtype)
        z *= scale
        xp.tanh(z, out=z)
        z *= scale
        z += shift
        i, f, g, o = z[:, :n], z[:, n:2 * n], z[:, 2 * n:3 * n], z[:, 3 * n:]
        cn = f * c
        tc = i * g
        cn += tc
        xp.tanh(cn, out=tc)
        self.save(acts=z, tc=tc)
        return o * tc, cn

    def _arrays(self):
        got = iter(self.saved_inputs())
        x, h, c, w_ih, w_hh = (next(got)._array for _ in range(5))
        return x, h, c, w_ih, w_hh

    def backward_arrays(self, gh, gc):
        xp = self.xp
        z, tc = self.saved("acts"), self.saved("tc")
        x, h, c, w_ih, w_hh = self._arrays()
        n = c.shape[-1]
        i, f, g, o = z[:, :n], z[:, n:2 * n], z[:, 2 * n:3 * n], z[:, 3 * n:]
        dcn = tc * tc
        xp.subtract(1, dcn, out=dcn)
        dcn *= o
        dcn *= gh
        dcn += gc
        dz = z - z * z  # sigmoid' = s (1 - s) where s is a sigmoid gate (g's block rewritten)
        dz[:, :n] *= g
        dz[:, n:2 * n] *= c
        dz[:, 3 * n:] *= tc
        dz[:, 3 * n:] *= gh
        dg = dz[:, 2 * n:3 * n]
        xp.multiply(g, g, out=dg)  # tanh' = 1 - t^2
        xp.subtract(1, dg, out=dg)
        dg *= i
        dz3 = dz[:, :3 * n].reshape(dz.shape[0], 3, n)
        dz3 *= dcn[:, None, :]
        need = self.needs_input_grad
        dx = (dz @ w_ih) if need[0] else None
        dh = (dz @ w_hh) if need[1] else None
        dc = (dcn * f) if need[2] else None
        dw_ih = (dz.T @ x) if need[3] else None
        dw_hh = (dz.T @ h) if need[4] else None
        db = dz.sum(0) if (need[5] or need[6]) else None
        db_ih = db if need[5] else None
        db_hh = (db.copy() if need[5] else db) if need[6] else None
        return dx, dh, dc, dw_ih, dw_hh, db_ih, db_hh

    def backward(self, gh, gc):
        got = iter(self.saved_inputs())
        ins = tuple(next(got) for _ in range(5)) + tuple(
            next(got) if p else None for p in self.present)
        x, h, c, w_ih, w_hh, b_ih, b_hh = ins
        z = x.matmul(w_ih.t()) + h.matmul(w_hh.t())
        z = z if b_ih is None else z + b_ih
        z = z if b_hh is None else z + b_hh
        outs = lstm_cell(z, c)
        wanted = [k for k, a in enumerate(ins) if a is not None and a.requires_grad]
        grads = _grad(outs, [ins[k] for k in wanted], [gh, gc], create_graph=True,
                      allow_unused=True)
        res = [None] * len(ins)
        for k, g in zip(wanted, grads):
            res[k] = g
        return tuple(res)


def _gate_affine(n, dtype):
    """(scale, shift) over [i f g o]'s 4n columns: 1/2 and 1/2 on the sigmoid gates, 1 and 0
    on g (cached per size and dtype)."""
    key = (n, dtype)
    got = _GATE_AFFINE.get(key)
    if got is None:
        scale = np.full(4 * n, 0.5, dtype)
        scale[2 * n:3 * n] = 1
        shift = scale.copy()
        shift[2 * n:3 * n] = 0
        got = _GATE_AFFINE[key] = (scale, shift)
    return got


_GATE_AFFINE = {}


def _step_fusable(tensors):
    """Whether ``LSTMStep`` can take a call: NumPy float32/float64 arrays of one dtype, no
    autocast anywhere (it casts the products), no ONNX export recording (its converters know
    the composed ops)."""
    dt = tensors[0]._array.dtype
    if dt != np.float32 and dt != np.float64:
        return False
    for t in tensors:
        if t is not None and (not isinstance(t, Tensor) or type(t._array) is not np.ndarray
                              or t._array.dtype != dt):
            return False
    if _amp._threads_casting:
        return False
    trace = sys.modules.get("numtorch.onnx._trace")
    return trace is None or trace._ACTIVE[0] is None


_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16"}


def lstm_step(x, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    """One ``nn.LSTMCell`` step on a batch: returns ``(h', c')``.

    Args:
        x (Tensor): ``(B, I)`` input.
        h, c (Tensor): ``(B, H)`` states.
        w_ih, w_hh (Tensor): ``(4H, I)`` and ``(4H, H)`` weights, gates i, f, g, o.
        b_ih, b_hh (Tensor, optional): ``(4H,)`` biases.
    """
    if _step_fusable((x, h, c, w_ih, w_hh, b_ih, b_hh)):
        return LSTMStep.apply(x, h, c, w_ih, w_hh, b_ih, b_hh)
    for a, w in ((x, w_ih), (h, w_hh)):  # torch's products refuse mixed dtypes in its words
        names = (_SCALAR_NAMES.get(a.dtype.name), _SCALAR_NAMES.get(w.dtype.name))
        if a.dtype != w.dtype and None not in names:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {names[0]} "
                               f"and {names[1]}")
    z = x.matmul(w_ih.t()) if b_ih is None else x.matmul(w_ih.t()) + b_ih
    z = z + (h.matmul(w_hh.t()) if b_hh is None else h.matmul(w_hh.t()) + b_hh)
    return lstm_cell(z, c)
