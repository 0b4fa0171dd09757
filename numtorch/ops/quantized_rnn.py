"""Dynamically quantized recurrent layers (LSTM, GRU) and cells (LSTM, GRU, RNN).

Each gate projection is a dynamic quantized linear (the float input quantized to quint8 from
its own range, integer GEMM with the packed qint8 weight, float32 out with the bias added);
the gate arithmetic is float32. As in torch's CPU implementation, a layer projects its whole
input sequence at once (one set of input parameters for all time steps) and the hidden state
step by step.
"""

import numpy as np

from .quantized_nn import linear_dynamic_array

__all__ = ["lstm_layers", "gru_layers", "lstm_cell", "gru_cell", "rnn_cell"]

_F = np.float32


def _sigmoid(x):
    return (_F(1) / (_F(1) + np.exp(-x))).astype(_F)


def lstm_cell(gates_x, h, c, packed_hh, reduce_range):
    """One LSTM step from precomputed input gates; returns (h, c)."""
    gates = linear_dynamic_array(h, packed_hh, reduce_range) + gates_x
    i, f, g, o = np.split(gates, 4, axis=-1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return (_sigmoid(o) * np.tanh(c)).astype(_F), c.astype(_F)


def gru_cell(gates_x, h, packed_hh, reduce_range):
    """One GRU step from precomputed input gates; returns h."""
    gh = linear_dynamic_array(h, packed_hh, reduce_range)
    xr, xz, xn = np.split(gates_x, 3, axis=-1)
    hr, hz, hn = np.split(gh, 3, axis=-1)
    r = _sigmoid(hr + xr)
    z = _sigmoid(hz + xz)
    n = np.tanh(xn + hn * r)
    return ((h - n) * z + n).astype(_F)


def rnn_cell(x, h, packed_ih, packed_hh, nonlinearity, reduce_range):
    """One Elman RNN step (tanh or relu)."""
    pre = linear_dynamic_array(h, packed_hh, reduce_range) + \
        linear_dynamic_array(x, packed_ih, reduce_range)
    return np.tanh(pre).astype(_F) if nonlinearity == "tanh" else np.maximum(pre, _F(0))


def _run_direction(kind, xs, h0, c0, cell, reverse):
    """One direction of one layer over the sequence ``xs`` (T, B, I)."""
    gates_x = linear_dynamic_array(xs, cell.packed_ih, cell.reduce_range)
    steps = range(xs.shape[0] - 1, -1, -1) if reverse else range(xs.shape[0])
    out = np.empty((xs.shape[0],) + h0.shape, _F)
    h, c = h0, c0
    for t in steps:
        if kind == "LSTM":
            h, c = lstm_cell(gates_x[t], h, c, cell.packed_hh, cell.reduce_range)
        else:
            h = gru_cell(gates_x[t], h, cell.packed_hh, cell.reduce_range)
        out[t] = h
    return out, h, c


def _layers(kind, x, h0, c0, cells, num_layers, bidirectional, batch_first):
    if batch_first:
        x = np.swapaxes(x, 0, 1)
    dirs = 2 if bidirectional else 1
    hs, cs = [], []
    layer_input = x
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            out, h, c = _run_direction(kind, layer_input, h0[k],
                                       None if c0 is None else c0[k], cells[k], d == 1)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        layer_input = outs[0] if dirs == 1 else np.concatenate(outs, axis=-1)
    out = np.swapaxes(layer_input, 0, 1) if batch_first else layer_input
    return np.ascontiguousarray(out), np.stack(hs), (np.stack(cs) if c0 is not None else None)


def lstm_layers(x, h0, c0, cells, num_layers, bidirectional, batch_first):
    """``(output, h_n, c_n)`` of a dynamically quantized LSTM on float32 arrays."""
    return _layers("LSTM", x, h0, c0, cells, num_layers, bidirectional, batch_first)


def gru_layers(x, h0, cells, num_layers, bidirectional, batch_first):
    """``(output, h_n)`` of a dynamically quantized GRU on float32 arrays."""
    out, h, _ = _layers("GRU", x, h0, None, cells, num_layers, bidirectional, batch_first)
    return out, h
