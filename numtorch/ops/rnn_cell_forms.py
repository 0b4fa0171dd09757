"""torch's functional recurrent cells on raw weights: ``torch.lstm_cell``, ``torch.gru_cell``,
``torch.rnn_tanh_cell`` and ``torch.rnn_relu_cell``.

Each checks its arguments as torch does, in torch's order (which differs per cell: an LSTM
checks the input width, then the weights' rows, then the states; a GRU the input, the states,
then the weights; an Elman cell the weights first), with torch's messages. An LSTM step whose
arguments are plain 2-D float arrays of one dtype runs as the one-node ``LSTMStep``; other
steps compose ``nn.functional.linear`` (whose bias and dtype errors are torch's ``addmm``
ones) in the order torch evaluates the two products, so the first bad product reports.
"""

from .rnn_ops import LSTMStep, _step_fusable
from .rnn_sequence import gru_update

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "check_cell"]

_GATES = {"lstm": 4, "gru": 3, "tanh": 1, "relu": 1}


def _check_input(input, w_ih):
    width = w_ih.size(1)
    if input.size(1) != width:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{width}")


def _check_weights(kind, w_ih, w_hh):
    gates, hidden = _GATES[kind], w_hh.size(1)
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.size(0) != gates * hidden:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = "
                               f"{gates * hidden}, but got {w.size(0)}")


def _check_states(input, states, w_hh):
    hidden = w_hh.size(1)
    for k, s in enumerate(states):
        if input.size(0) != s.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} "
                               f"batch size {s.size(0)}")
        if s.size(1) != hidden:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {s.size(1)}, "
                               f"expected {hidden}")


def check_cell(kind, input, states, w_ih, w_hh):
    """Raise torch's error for the first bad argument of a ``kind`` cell ("lstm", "gru",
    "tanh" or "relu"); ``states`` is ``[h, c]`` or ``[h]``."""
    if kind == "lstm":
        _check_input(input, w_ih)
        _check_weights(kind, w_ih, w_hh)
        _check_states(input, states, w_hh)
    elif kind == "gru":
        _check_input(input, w_ih)
        _check_states(input, states, w_hh)
        _check_weights(kind, w_ih, w_hh)
    else:
        _check_weights(kind, w_ih, w_hh)
        _check_input(input, w_ih)
        _check_states(input, states, w_hh)


def lstm_states(hx):
    """``(h, c)`` from ``hx``, or torch's error when it does not hold two states."""
    states = list(hx)
    if len(states) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return states


def _linear(x, w, b):
    from ..nn.functional import linear

    return linear(x, w, b)


def _fusable(input, h, c, w_ih, w_hh, b_ih, b_hh):
    if input.dim() != 2 or h.dim() != 2 or c.dim() != 2 or w_ih.dim() != 2:
        return False
    if any(b is not None and b.dim() != 1 for b in (b_ih, b_hh)):
        return False
    return _step_fusable((input, h, c, w_ih, w_hh, b_ih, b_hh))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step from raw weights.

    Args:
        input (Tensor): ``(B, I)``.
        hx (sequence of Tensor): ``(h, c)``, each ``(B, H)``.
        w_ih, w_hh (Tensor): ``(4H, I)`` and ``(4H, H)``, gates in the order i, f, g, o.
        b_ih, b_hh (Tensor, optional): ``(4H,)``.

    Returns:
        tuple: the next ``(h, c)``.
    """
    from .rnn_ops import lstm_cell as gates_step

    h, c = lstm_states(hx)
    check_cell("lstm", input, [h, c], w_ih, w_hh)
    if _fusable(input, h, c, w_ih, w_hh, b_ih, b_hh) and all(
            b is None or b.shape[0] == w_ih.shape[0] for b in (b_ih, b_hh)):
        return LSTMStep.apply(input, h, c, w_ih, w_hh, b_ih, b_hh)
    gh = _linear(h, w_hh, b_hh)
    return gates_step(gh + _linear(input, w_ih, b_ih), c)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step from raw weights (``(3H, I)``, ``(3H, H)``, gates r, z, n): the next
    hidden state ``(B, H)``."""
    check_cell("gru", input, [hx], w_ih, w_hh)
    gi = _linear(input, w_ih, b_ih)
    return gru_update(gi, _linear(hx, w_hh, b_hh), hx)


def _elman(kind, input, hx, w_ih, w_hh, b_ih, b_hh):
    check_cell(kind, input, [hx], w_ih, w_hh)
    gh = _linear(hx, w_hh, b_hh)
    s = gh + _linear(input, w_ih, b_ih)
    return s.tanh() if kind == "tanh" else s.relu()


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` from raw weights."""
    return _elman("tanh", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)`` from raw weights."""
    return _elman("relu", input, hx, w_ih, w_hh, b_ih, b_hh)
