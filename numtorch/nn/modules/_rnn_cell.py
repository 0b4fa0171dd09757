"""The single-step recurrent cells (RNNCell, LSTMCell, GRUCell and their base RNNCellBase).

They belong to torch's ``nn.modules.rnn`` and are re-exported there; ``__module__`` names that
file, so reprs, pickles and saved models use torch's path. Parameter names, shapes, gate order
and initialisation follow torch; an LSTMCell call is one op (``lstm_step``), the others
compose numtorch ops (``gru_update`` fused for its gate arithmetic).
"""

import math

import numtorch

from ... import _creation, _dtype
from ...ops.rnn_ops import lstm_step
from ...ops.rnn_sequence import gru_update
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]


def _reset_uniform(module):
    """Torch's recurrent initialisation: every parameter from U(-k, k), k = 1/sqrt(hidden)."""
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for w in module.parameters():
        init.uniform_(w, -stdv, stdv)


def _linear(x, w, b):
    """``x @ w.T + b`` (``b`` may be None); the recurrent layers use it too."""
    y = x.matmul(w.t())
    return y if b is None else y + b


class RNNCellBase(Module):
    """Shared parameters and checks of the single-step cells.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): whether to use ``bias_ih`` and ``bias_hh``.
        num_chunks (int): gates stacked in the weights (1, 3 or 4).
        device: where to create the parameters.
        dtype: the parameters' dtype.
    """

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gate = num_chunks * hidden_size
        self.weight_ih = Parameter(_creation.empty((gate, input_size), device=device,
                                                   dtype=dtype))
        self.weight_hh = Parameter(_creation.empty((gate, hidden_size), device=device,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(gate, device=device, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(gate, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        """Constructor arguments that differ from the defaults."""
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _reset_uniform(self)

    def _prepare(self, input, states):
        """Check shapes, add the batch dim to unbatched input, default the states to zeros."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            states = [None if s is None else s.unsqueeze(0) for s in states]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} "
                               f"expected {self.input_size}")
        disp = _dtype._TYPE_DISPLAY
        kind = input.device.type
        checks = () if kind in ("cpu", "cuda") and numtorch.is_autocast_enabled(kind) else (
            (input, self.weight_ih), *((s, self.weight_hh) for s in states))
        for a, w in checks:
            # torch's products refuse mixed dtypes (numtorch's would promote)
            if a is not None and a.dtype is not w.dtype and a.dtype.name in disp:
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                                   f"{disp[a.dtype.name]} and {disp[w.dtype.name]}")
        batch = input.shape[0]
        out = []
        for i, s in enumerate(states):
            if s is None:
                s = _creation.zeros((batch, self.hidden_size), dtype=input.dtype,
                                    device=input.device)
            elif s.shape[0] != batch:
                raise RuntimeError(f"Input batch size {batch} doesn't match hidden{i} batch "
                                   f"size {s.shape[0]}")
            elif s.dim() < 2 or s.shape[1] != self.hidden_size:
                got = s.shape[1] if s.dim() >= 2 else None
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got "
                                   f"{got}, expected {self.hidden_size}")
            elif s.dim() != 2:
                raise RuntimeError(f"{name}: Expected hidden{i} to have as many dims as the "
                                   f"input ({input.dim()}D), got {s.dim() - (not batched)}D")
            out.append(s)
        return input, out, batched


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): whether to use biases. Default: True.
        nonlinearity (str): ``"tanh"`` (default) or ``"relu"``.

    Example:
        >>> cell = torch.nn.RNNCell(10, 20)
        >>> cell(torch.randn(3, 10)).shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """Return the next hidden state ``(B, H)`` (``(H,)`` for unbatched input)."""
        x, (h,), batched = self._prepare(input, [hx])
        # like torch, an unknown nonlinearity is only rejected when the cell runs
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        act = numtorch.tanh if self.nonlinearity == "tanh" else numtorch.relu
        out = act(_linear(x, self.weight_ih, self.bias_ih)
                  + _linear(h, self.weight_hh, self.bias_hh))
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the states.
        bias (bool): whether to use biases. Default: True.

    Example:
        >>> cell = torch.nn.LSTMCell(10, 20)
        >>> h, c = cell(torch.randn(3, 10))
        >>> c.shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """Return the next ``(h, c)``, each ``(B, H)`` (``(H,)`` for unbatched input)."""
        states = [None, None] if hx is None else list(hx)
        x, (h, c), batched = self._prepare(input, states)
        h, c = lstm_step(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step; returns ``h'``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        bias (bool): whether to use biases. Default: True.

    Example:
        >>> cell = torch.nn.GRUCell(10, 20)
        >>> cell(torch.randn(3, 10)).shape
        torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """Return the next hidden state ``(B, H)`` (``(H,)`` for unbatched input)."""
        x, (h,), batched = self._prepare(input, [hx])
        out = gru_update(_linear(x, self.weight_ih, self.bias_ih),
                        _linear(h, self.weight_hh, self.bias_hh), h)
        return out if batched else out.squeeze(0)


for _cls in (RNNCellBase, RNNCell, LSTMCell, GRUCell):
    _cls.__module__ = "numtorch.nn.modules.rnn"
