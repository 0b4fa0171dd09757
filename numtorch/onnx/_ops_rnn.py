"""Converters of whole recurrent layers (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``) to ONNX's LSTM,
GRU and RNN operators, one per layer, which run any sequence length and batch size.

ONNX orders the gates differently from torch: LSTM ``[i, o, f, c]`` for torch's
``[i, f, g, o]``, GRU ``[z, r, h]`` for ``[r, z, n]``; the weights are reordered here (folded
into new initializers). Torch's GRU applies the reset gate after the recurrent product, which
is ONNX's ``linear_before_reset=1``.
"""

from ._convert import converter

_ORDER = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2)}
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


@converter("module:RNNBase")
def _recurrent(ctx):
    b = ctx.b
    m = ctx.node.extra
    mode = m.mode
    if m.proj_size:
        raise ctx.unsupported("LSTM with proj_size")
    dt = ctx.out().dtype
    x = ctx.x(0, dt)
    batched = ctx.rank(0) == 3
    if not batched:
        x = b.unsqueeze(x, [1])
    elif m.batch_first:
        x = b.op("Transpose", x, perm=[1, 0, 2])
    states = [ctx.x(1 + i, dt) for i in range(ctx.p("n_states"))]
    if not batched:
        states = [b.unsqueeze(s, [1]) for s in states]
    dirs = 2 if m.bidirectional else 1
    hidden = m.hidden_size
    gates = _GATES[mode]
    op_type = "LSTM" if mode == "LSTM" else "GRU" if mode == "GRU" else "RNN"
    h_n, c_n = [], []
    for layer in range(m.num_layers):
        ws, rs, bs = [], [], []
        for d in range(dirs):
            w_ih, w_hh, b_ih, b_hh, _ = m._weights(layer, d)
            ws.append(b.unsqueeze(_gate_rows(ctx, w_ih, mode, gates * hidden, dt), [0]))
            rs.append(b.unsqueeze(_gate_rows(ctx, w_hh, mode, gates * hidden, dt), [0]))
            if b_ih is not None:
                bs.append(b.unsqueeze(b.op("Concat", _gate_rows(ctx, b_ih, mode,
                                                                 gates * hidden, dt),
                                           _gate_rows(ctx, b_hh, mode, gates * hidden, dt),
                                           axis=0), [0]))
        inputs = [x, _cat(b, ws), _cat(b, rs), _cat(b, bs) if bs else "", ""]
        for s in states:
            inputs.append(b.slice(s, [layer * dirs], [(layer + 1) * dirs], [0]))
        attrs = {"hidden_size": hidden,
                 "direction": "bidirectional" if dirs == 2 else "forward"}
        if op_type == "GRU":
            attrs["linear_before_reset"] = 1
        if op_type == "RNN":
            attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * dirs
        outs = b.op(op_type, *inputs, outputs=3 if op_type == "LSTM" else 2, **attrs)
        y = outs[0]  # (T, D, B, H)
        if dirs == 1:
            x = b.squeeze(y, [1])
        else:
            x = b.op("Reshape", b.op("Transpose", y, perm=[0, 2, 1, 3]), b.ints([0, 0, -1]))
        h_n.append(outs[1])
        if op_type == "LSTM":
            c_n.append(outs[2])
    out = x
    h = _cat(b, h_n)
    c = _cat(b, c_n) if c_n else None
    if not batched:
        out, h = b.squeeze(out, [1]), b.squeeze(h, [1])
        c = b.squeeze(c, [1]) if c is not None else None
    elif m.batch_first:
        out = b.op("Transpose", out, perm=[1, 0, 2])
    ctx.set(out, h, c)


def _gate_rows(ctx, tensor, mode, rows, dt):
    """A weight or bias of the layer as an ONNX value with its gates in ONNX's order."""
    b = ctx.b
    name = ctx.tensor(tensor, dt)
    order = _ORDER.get(mode)
    if order is None:
        return name
    size = rows // len(order)
    parts = b.split(name, [size] * len(order), 0)
    return b.op("Concat", *[parts[k] for k in order], axis=0)


def _cat(b, names):
    return names[0] if len(names) == 1 else b.op("Concat", *names, axis=0)
