"""``torch.lstm`` / ``torch.gru`` / ``torch.rnn_tanh`` / ``torch.rnn_relu``: whole recurrent
stacks from a flat list of weights (what ``nn.LSTM`` & co. hold in ``_flat_weights``).

Each runs the same per-layer, per-direction sequence ops as the modules (numtorch's fused
recurrent ops), so results and gradients match theirs.
"""

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def _run(mode, input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    import numtorch

    from .nn import functional as F
    from .nn.modules.rnn import _run_direction

    if input.dim() != 3:
        raise RuntimeError(f"{mode.lower()}: expected a 3-D input (time, batch, features), "
                           f"got {input.dim()}-D")
    dirs = 2 if bidirectional else 1
    per = len(params) // (num_layers * dirs)
    expected = (4 if has_biases else 2), (5 if has_biases else 3)
    if len(params) % (num_layers * dirs) or per not in expected:
        raise RuntimeError(f"{mode.lower()}: got {len(params)} parameters for {num_layers} "
                           f"layer(s) and {dirs} direction(s)")
    x = input.transpose(0, 1) if batch_first else input
    hs = h0.unbind(0)
    cs = c0.unbind(0) if c0 is not None else None
    h_n, c_n = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            group = list(params[k * per:(k + 1) * per])
            w_ih, w_hh = group[0], group[1]
            b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
            w_hr = group[-1] if per in (3, 5) else None
            out, h, c = _run_direction(mode, x, hs[k], cs[k] if cs is not None else None,
                                       (w_ih, w_hh, b_ih, b_hh, w_hr), d == 1, None)
            outs.append(out)
            h_n.append(h)
            c_n.append(c)
        x = outs[0] if dirs == 1 else numtorch.cat(outs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    output = x.transpose(0, 1) if batch_first else x
    h_n = numtorch.stack(h_n, 0)
    if c0 is None:
        return output, h_n
    return output, h_n, numtorch.stack(c_n, 0)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    """A multi-layer LSTM over ``input`` from flat weights.

    Args:
        input (Tensor): ``(T, B, F)`` (``(B, T, F)`` with ``batch_first``).
        hx (sequence of Tensor): ``(h_0, c_0)``, each ``(layers * directions, B, H)``.
        params (sequence of Tensor): per layer and direction ``w_ih, w_hh[, b_ih, b_hh][,
            w_hr]``, in ``nn.LSTM``'s ``_flat_weights`` order.
        has_biases, num_layers, dropout, train, bidirectional, batch_first: as the module.

    Returns:
        tuple: ``(output, h_n, c_n)``.
    """
    h0, c0 = hx
    return _run("LSTM", input, h0, c0, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
        batch_first):
    """A multi-layer GRU from flat weights (see :func:`lstm`); returns ``(output, h_n)``."""
    return _run("GRU", input, hx, None, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """A multi-layer tanh RNN from flat weights (see :func:`lstm`); returns
    ``(output, h_n)``."""
    return _run("RNN_TANH", input, hx, None, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):
    """A multi-layer ReLU RNN from flat weights (see :func:`lstm`); returns
    ``(output, h_n)``."""
    return _run("RNN_RELU", input, hx, None, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)
