"""Autocast for the single-step recurrent cells (``LSTMCell``, ``GRUCell``, ``RNNCell`` and
``torch.lstm_cell``/``gru_cell``/``rnn_tanh_cell``/``rnn_relu_cell``), as torch's lists say.

* CUDA: the cells are on torch's float16 list, so the whole step runs in the region's dtype:
  input, states, weights and biases are cast, and both ``h'`` and ``c'`` come out in it.
* CPU: the cells are not listed; torch runs its composite, whose two ``linear`` calls are
  (gate pre-activations in bfloat16) while the pointwise tail promotes with the float32
  states: an LSTM's ``(h', c')`` and a GRU's ``h'`` come back float32, an Elman cell's in
  bfloat16 (nothing float32 enters after the linears).

The step is written here with numtorch's differentiable ops in torch's own order, with
``_cpu_linear`` (torch's CPU rounding of an autocast ``linear``) for the gate projections.

The multi-step layers (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``) follow torch's kernels: on CUDA
its cuDNN RNN casts the whole layer (input, states, weights) to the region's dtype, for every
mode; on the CPU ``mkldnn_rnn_layer`` does the same for LSTM, while the other layers are
composites, stepped through here the same way (``_elman``, ``_gru``, ``_projected_lstm``): an
Elman layer ends up in bfloat16 (each step's linears are), a GRU's output stays float32 (its
states promote), and a projected LSTM (no oneDNN kernel) has bfloat16 products and its cell
state in ``c_0``'s dtype.
"""

from .. import _dtype, _layers
from .._tensor import Tensor
from . import _state

CELL_FUNCTIONS = {"lstm_cell": "lstm", "gru_cell": "gru", "rnn_tanh_cell": "tanh",
                  "rnn_relu_cell": "relu"}
CELL_MODULES = {"LSTMCell": "lstm", "GRUCell": "gru", "RNNCell": None}


def _cpu_linear(x, w, b):
    """``linear`` as torch's CPU autocast computes it: the operands cast to the region's
    dtype, the product and bias summed in float32 and rounded once (a low-precision product
    rounded before its bias is added differs in about a third of the elements, and a ReLU or a
    long recurrence turns such differences into large ones). The gradients round the same way:
    once, after float32 products."""
    from ..nn.functional import linear

    target = _state.get_dtype("cpu")
    args = [_low(t, "cpu", target) for t in (x, w, b)]
    if any(t is not None and t.dtype != target for t in args):
        return linear(x, w, b)  # not autocast's to lower (float64): as autocast leaves it
    local = _state.local
    busy, local.busy = local.busy, True
    try:
        x, w, b = (None if t is None else t.float() for t in args)
        return linear(x, w, b).to(target)
    finally:
        local.busy = busy


def _step(kind, x, states, w_ih, w_hh, b_ih, b_hh, linear=None):
    if linear is None:  # CUDA: the inputs are already in the region's dtype
        from ..nn.functional import linear

    h = states[0]
    gi, gh = linear(x, w_ih, b_ih), linear(h, w_hh, b_hh)
    if kind == "lstm":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = f.sigmoid() * states[1] + i.sigmoid() * g.tanh()
        return o.sigmoid() * c.tanh(), c
    if kind == "gru":
        ir, iz, inn = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r = (ir + hr).sigmoid()
        z = (iz + hz).sigmoid()
        n = (inn + r * hn).tanh()
        return (h - n) * z + n
    s = gi + gh
    return s.tanh() if kind == "tanh" else s.relu()


def _low(t, device_type, target):
    if isinstance(t, Tensor) and t.dtype in (_dtype.float32, _dtype.float16, _dtype.bfloat16) \
            and t.device.type == device_type and t.dtype != target:
        return _state.cached_cast(t, target)
    return t


def run(kind, x, states, weights):
    """One step of ``kind`` ("lstm", "gru", "tanh", "relu") under the autocast region of
    ``x``'s device (see the module docstring)."""
    device_type = x.device.type
    if device_type != "cuda":
        return _step(kind, x, states, *weights, linear=_cpu_linear)
    target = _state.get_dtype("cuda")
    x = _low(x, "cuda", target)
    states = [_low(s, "cuda", target) for s in states]
    weights = [_low(w, "cuda", target) for w in weights]
    local = _state.local
    local.busy = True  # already in the low dtype: the ops inside are not cast again
    try:
        return _step(kind, x, states, *weights)
    finally:
        local.busy = False


def _active(x):
    local = _state.local
    return isinstance(x, Tensor) and not local.busy and local.enabled.get(x.device.type, False)


def function_wrapper(name, original):
    """``torch.lstm_cell``-style function ``original`` under autocast."""
    kind = CELL_FUNCTIONS[name]
    link = _layers.Link(original)  # torch.lstm_cell etc. can carry other layers too

    def autocast_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        if not _active(input):
            return link.below(input, hx, w_ih, w_hh, b_ih, b_hh)
        from ..ops.rnn_cell_forms import check_cell, lstm_states

        states = lstm_states(hx) if kind == "lstm" else [hx]
        check_cell(kind, input, states, w_ih, w_hh)  # torch checks before it casts
        return run(kind, input, states, (w_ih, w_hh, b_ih, b_hh))

    autocast_cell.__name__ = autocast_cell.__qualname__ = name
    autocast_cell.__doc__ = original.__doc__
    return _layers.attach(autocast_cell, link)


def module_wrapper(name, original):
    """The ``forward`` of cell module class ``name`` under autocast."""
    link = _layers.Link(original)

    def forward(self, input, hx=None):
        if not _active(input):
            return link.below(self, input, hx)
        kind = CELL_MODULES[name]
        if kind is None:
            if self.nonlinearity not in ("tanh", "relu"):
                raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
            kind = self.nonlinearity
        states = ([None, None] if hx is None else list(hx)) if kind == "lstm" else [hx]
        x, states, batched = self._prepare(input, states)
        out = run(kind, x, states, (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh))
        if batched:
            return out
        return tuple(o.squeeze(0) for o in out) if kind == "lstm" else out.squeeze(0)

    forward.__name__ = "forward"
    forward.__qualname__ = f"{name}.forward"
    forward.__doc__ = original.__doc__
    return _layers.attach(forward, link)


def layer_wrapper(original):
    """``nn.modules.rnn._run_direction`` (one layer, one direction) under autocast."""
    link = _layers.Link(original)

    def run_direction(mode, x, h, c, weights, reverse, mask):
        if not _active(x):
            return link.below(mode, x, h, c, weights, reverse, mask)
        device_type = x.device.type
        if device_type == "cpu" and mode == "GRU":
            return _gru(x, h, weights, reverse, mask)
        if device_type == "cpu" and mode == "LSTM" and weights[4] is not None:
            return _projected_lstm(x, h, c, weights, reverse, mask)
        if device_type == "cpu" and mode != "LSTM":
            return _elman(mode, x, h, weights, reverse, mask)
        target = _state.get_dtype(device_type)
        x, h, c = (_low(t, device_type, target) for t in (x, h, c))
        weights = tuple(_low(w, device_type, target) for w in weights)
        local = _state.local
        local.busy = True
        try:
            return link.below(mode, x, h, c, weights, reverse, mask)
        finally:
            local.busy = False

    return _layers.attach(run_direction, link)


def _projected_lstm(x, h, c, weights, reverse, mask):
    """A projected LSTM layer direction under CPU autocast, step by step as torch runs it
    (oneDNN has no projection): the input projection, each step's recurrent ``linear`` and the
    ``matmul`` by ``W_hr`` are cast to the region's dtype, while the cell state promotes with
    ``c_0`` (a float32 ``c_0`` keeps ``c`` float32, as in torch)."""
    linear = _cpu_linear
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    wr = w_hr.t()
    # every step's h is a product's, so a padded step must keep h_0 in the same dtype
    h = _low(h, "cpu", _state.get_dtype("cpu"))

    def step(xt, h, c):
        i, f, g, o = (linear(h, w_hh, b_hh) + xt).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return (o.sigmoid() * c.tanh()).matmul(wr), c

    return _steps(linear(x, w_ih, b_ih), h, c, mask, reverse, step)


def _elman(mode, x, h, weights, reverse, mask):
    """An Elman layer direction under CPU autocast in torch's composite order: each step
    adds two separately rounded bfloat16 ``linear`` results (``h W_hh^T + b_hh`` and the
    precomputed ``x W_ih^T + b_ih``) before the nonlinearity; the whole layer run in bfloat16
    would round elsewhere, and a ReLU flips on such differences."""
    linear = _cpu_linear
    w_ih, w_hh, b_ih, b_hh, _ = weights
    h = _low(h, "cpu", _state.get_dtype("cpu"))
    act = "tanh" if mode == "RNN_TANH" else "relu"

    def step(xt, h, c):
        return getattr(linear(h, w_hh, b_hh) + xt, act)(), None

    out, h, _ = _steps(linear(x, w_ih, b_ih), h, None, mask, reverse, step)
    return out, h, None


def _gru(x, h, weights, reverse, mask):
    """A GRU layer direction under CPU autocast in torch's composite order: bfloat16 gate
    products (the input's for all steps at once), bfloat16 gates, and the state update
    promoting with ``h`` (float32 from a float32 ``h_0``)."""
    from ..ops.rnn_sequence import gru_update

    w_ih, w_hh, b_ih, b_hh, _ = weights

    def step(xt, h, c):
        return gru_update(xt, _cpu_linear(h, w_hh, b_hh), h), None

    out, h, _ = _steps(_cpu_linear(x, w_ih, b_ih), h, None, mask, reverse, step)
    return out, h, None


def _steps(xs, h, c, mask, reverse, step):
    from ..ops.rnn_sequence import _run_steps

    return _run_steps(xs, h, c, None if mask is None else mask._array, reverse, step)


def entries():
    """``(owner, name, wrapper)`` for each function and module ``forward`` wrapped here."""
    import numtorch
    from ..nn.modules import _rnn_cell

    for name in CELL_FUNCTIONS:
        original = getattr(numtorch, name, None)
        if original is not None:
            yield numtorch, name, function_wrapper(name, original)
    for name in CELL_MODULES:
        cls = getattr(_rnn_cell, name)
        yield cls, "forward", module_wrapper(name, vars(cls)["forward"])
    from ..nn.modules import rnn

    yield rnn, "_run_direction", layer_wrapper(rnn._run_direction)
