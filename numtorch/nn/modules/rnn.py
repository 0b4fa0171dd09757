"""Recurrent layers (RNN, LSTM, GRU); their single-step cells (RNNCell, LSTMCell, GRUCell) are
defined in ``_rnn_cell.py`` and re-exported here, torch's path for them.

Parameter names, shapes, gate order and initialisation follow torch, so a torch state_dict
loads unchanged. Each layer and direction is one op over the whole sequence
(``numtorch.ops.rnn_sequence``: NumPy loops over time forward and backward, double backward
through a step-by-step recomputation).
"""

import numbers
import warnings

import numtorch

from ... import _creation, _dtype
from ..._warn_once import warn_once
from ...autograd.graph import rename_node
from ...ops.rnn_sequence import gru_sequence, lstm_sequence, rnn_sequence
from .. import functional as F
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _pack_time_major, _unpack_time_major
from ._rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase, _linear, _reset_uniform
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _run_direction(mode, x, h, c, weights, reverse, mask):
    """One layer in one direction over a time-major ``(T, B, F)`` input.

    ``mask[t]`` (``(B, 1)`` bool) marks the sequences still running at step ``t``; finished
    (padded) steps leave the state unchanged, so the final state is the one at each
    sequence's true length, and a reversed pass starts at its last real step.
    """
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    if mode == "LSTM":  # the op takes both biases (as torch's layer node does)
        return lstm_sequence(x, h, c, w_ih, w_hh, b_ih, w_hr, mask=mask, reverse=reverse,
                             b_hh=b_hh)
    # bias_hh can be folded into the input projection except for GRU's candidate gate
    b = b_ih
    if mode != "GRU" and b_hh is not None:
        b = b_hh if b is None else b + b_hh
    xs = _linear(x, w_ih, b)
    if mode == "GRU":
        out, h = gru_sequence(xs, h, w_hh, b_hh, mask=mask, reverse=reverse)
        return out, h, None
    act = "tanh" if mode == "RNN_TANH" else "relu"
    out, h = rnn_sequence(xs, h, w_hh, act, mask=mask, reverse=reverse)
    return out, h, None


def _autocast_on(x):
    """Whether autocast recasts the inputs and weights of a layer run on ``x``'s device."""
    kind = x.device.type
    return kind in ("cpu", "cuda") and numtorch.is_autocast_enabled(kind)


def _no_projection(kwargs):
    """RNN and GRU take no proj_size (torch's ValueError); other keywords are the base's."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    for key in kwargs:
        raise TypeError(f"RNNBase.__init__() got an unexpected keyword argument '{key}'")


class RNNBase(Module):
    """Shared machinery of RNN, LSTM and GRU: parameters, checks and the layer loop.

    Args:
        mode (str): ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"`` or ``"RNN_RELU"``.
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked recurrent layers.
        bias (bool): whether to use ``bias_ih`` and ``bias_hh``.
        batch_first (bool): input/output as ``(B, T, F)`` instead of ``(T, B, F)``.
        dropout (float): dropout on the outputs of all but the last layer (training only).
        bidirectional (bool): also run each layer backwards in time.
        proj_size (int): LSTM only; project the hidden state to this size.
        device: where to create the parameters.
        dtype: the parameters' dtype.
    """

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for d in range(dirs):
                fan = input_size if layer == 0 else real_hidden * dirs
                sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
                shapes = [("weight_ih", (gate, fan)), ("weight_hh", (gate, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    setattr(self, base + sfx, Parameter(_creation.empty(shape, device=device,
                                                                        dtype=dtype)))
                    names.append(base + sfx)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction, in torch's order."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Accepted for compatibility: parameters are never fused into one buffer here."""

    def reset_parameters(self):
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _reset_uniform(self)

    def extra_repr(self):
        """Constructor arguments that differ from the defaults."""
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer, d):
        sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
        return tuple(getattr(self, base + sfx, None)
                     for base in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def _check_hidden(self, hx, expected, msg):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.shape)))

    def _check_dtypes(self, x, packed, lstm):
        """Torch's refusals of an input or state whose dtype is not the weights' (numtorch
        would otherwise promote and return a result of another dtype)."""
        w = self.weight_ih_l0
        disp = _dtype._TYPE_DISPLAY
        if x.dtype is not w.dtype:
            if packed and lstm:  # torch's packed LSTM skips the check; oneDNN or its
                if x.dtype in (numtorch.float32, numtorch.bfloat16):  # product refuses
                    raise RuntimeError("get_mkldnn_dtype: unsupported data type")
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                                   f"{disp[x.dtype.name]} and {disp[w.dtype.name]}")
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({x.dtype})")
        for name, p in self._parameters.items():
            if p is not None and p.dtype is not w.dtype:  # a layer's weights were recast
                if lstm and x.dtype in (numtorch.float32, numtorch.bfloat16):
                    raise RuntimeError("get_mkldnn_dtype: unsupported data type")
                pair = (p, w) if name.startswith("bias") else (w, p)
                raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                                   f"{disp[pair[0].dtype.name]} and {disp[pair[1].dtype.name]}")

    def _check_state_dtypes(self, x, hx, lstm):
        """Torch's refusals of initial states whose dtype is not the weights'."""
        w = self.weight_ih_l0
        disp = _dtype._TYPE_DISPLAY
        states = tuple(hx) if lstm else (hx,)
        h = states[0]
        if lstm and w.dtype in (numtorch.float32, numtorch.bfloat16) and x.device.type == "cpu":
            # torch's CPU LSTM hands these dtypes to oneDNN, which refuses mixed states
            for s in states:
                if s.dtype is not w.dtype:
                    raise RuntimeError(
                        "get_mkldnn_dtype: unsupported data type" if s.dtype is numtorch.float64
                        else "could not create a primitive descriptor for the LSTM forward "
                        "propagation primitive. Run workload with environment variable "
                        "ONEDNN_VERBOSE=all to get additional diagnostic information.")
        elif h.dtype is not w.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{disp[h.dtype.name]} and {disp[w.dtype.name]}")

    def forward(self, input, hx=None):
        """Run the stack over a sequence.

        Args:
            input (Tensor or PackedSequence): ``(T, B, F)`` (``(B, T, F)`` with
                ``batch_first``), unbatched ``(T, F)``, or a PackedSequence.
            hx (Tensor or tuple, optional): initial hidden state ``(L*D, B, H)`` (LSTM: a
                pair ``(h_0, c_0)``); zeros when omitted.

        Returns:
            tuple: the output sequence (same layout as the input) and the final state(s).
        """
        lstm = self.mode == "LSTM"
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        mask = None
        if packed:
            x, lens = _unpack_time_major(input.data, input.batch_sizes)
            batched, batch = True, int(x.shape[1])
            steps = numtorch.arange(x.shape[0], device=x.device).view(-1, 1, 1)
            mask = steps < numtorch.as_tensor(lens, device=x.device).view(1, -1, 1)
            if hx is not None and input.sorted_indices is not None:
                # the caller's states are in the original batch order, the data sorted
                if lstm:
                    hx = tuple(s.index_select(1, input.sorted_indices) for s in hx)
                else:
                    hx = hx.index_select(1, input.sorted_indices)
        else:
            if input.dim() not in (2, 3):
                # torch's LSTM and GRU texts say "4D instead", its RNN's "4D tensor instead"
                noun = "" if self.mode in ("LSTM", "GRU") else " tensor"
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                                 f"{input.dim()}D{noun} instead")
            batched = input.dim() == 3
            if lstm and self.proj_size > 0 and input.device.type == "cpu" and \
                    input.dtype in (numtorch.float32, numtorch.bfloat16):
                # torch's CPU LSTM tries oneDNN for these dtypes and says once why it cannot
                warn_once("lstm-proj-onednn", "LSTM with projections is not supported with "
                          "oneDNN. Using default implementation.", UserWarning, stacklevel=1)
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            batch = int(x.shape[1])
            want, kind = (3, "batched 3-D") if batched else (2, "unbatched 2-D")
            if lstm and hx is not None:
                h, c = hx[0], hx[1]  # as torch: a lone tensor or a 1-tuple gives IndexError
                if h.dim() != want or c.dim() != want:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D "
                                       f"but got ({h.dim()}-D, {c.dim()}-D) tensors")
                if len(hx) != 2:
                    raise RuntimeError("lstm expects two hidden states")
            elif hx is not None and hx.dim() != want:
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got "
                                   f"{hx.dim()}-D tensor")
            if not batched and hx is not None:
                hx = tuple(s.unsqueeze(1) for s in hx) if lstm else hx.unsqueeze(1)
        autocast = _autocast_on(x)  # autocast casts all of them
        if not autocast:
            self._check_dtypes(input.data if packed else input, packed, lstm)
        if x.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {x.shape[-1]}")
        nl = self.num_layers * dirs
        if hx is None:
            # every layer and direction starts from the same zeros (the ops only read them):
            # two small tensors instead of (L*D, B, H) ones and their unbind's L*D select ops
            h0 = _creation.zeros((batch, real_hidden), dtype=x.dtype, device=x.device)
            c0 = (h0 if real_hidden == self.hidden_size else _creation.zeros(
                (batch, self.hidden_size), dtype=x.dtype, device=x.device)) if lstm else None
            hs, cs = (h0,) * nl, (c0,) * nl if lstm else None
        elif lstm:
            h0, c0 = hx
            self._check_hidden(h0, (nl, batch, real_hidden),
                               "Expected hidden[0] size {}, got {}")
            self._check_hidden(c0, (nl, batch, self.hidden_size),
                               "Expected hidden[1] size {}, got {}")
        else:
            h0, c0 = hx, None
            self._check_hidden(h0, (nl, batch, real_hidden), "Expected hidden size {}, got {}")
        if hx is not None:
            if not autocast:
                self._check_state_dtypes(x, (h0, c0) if lstm else h0, lstm)
            # one select per layer and direction, as torch's layers take them (SelectBackward0)
            hs = [h0.select(0, k) for k in range(nl)]
            cs = [c0.select(0, k) for k in range(nl)] if lstm else None
        if x.shape[0] == 0:  # torch's kernels refuse an empty sequence (an empty batch is fine)
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                out, h, c = _run_direction(self.mode, x, hs[k], cs[k] if lstm else None,
                                           self._weights(layer, d), d == 1, mask)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if dirs == 1 else numtorch.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = numtorch.stack(h_n, 0)
        c_n = numtorch.stack(c_n, 0) if lstm else None
        if packed:
            lens_sorted = [int(v) for v in lens]
            data, _ = _pack_time_major(x, lens_sorted)
            output = PackedSequence(data, input.batch_sizes, input.sorted_indices,
                                    input.unsorted_indices)
            if input.unsorted_indices is not None:
                h_n = h_n.index_select(1, input.unsorted_indices)
                c_n = c_n.index_select(1, input.unsorted_indices) if lstm else None
        elif batched:
            output = x
            if self.batch_first:
                output = x.transpose(0, 1)
                if not lstm:  # torch's step-by-step GRU and Elman layers transpose in place
                    rename_node(output, "TransposeBackward1")
        else:
            output = x.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        return output, ((h_n, c_n) if lstm else h_n)


class RNN(RNNBase):
    """Elman recurrent network: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``.

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        nonlinearity (str): ``"tanh"`` (default) or ``"relu"``.
        bias (bool): whether to use biases. Default: True.
        batch_first (bool): ``(B, T, F)`` layout. Default: False.
        dropout (float): dropout between layers in training. Default: 0.
        bidirectional (bool): also run backwards. Default: False.

    Example:
        >>> rnn = torch.nn.RNN(10, 20, 2)
        >>> out, h = rnn(torch.randn(5, 3, 10))
        >>> out.shape, h.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None,
                 dtype=None, **kwargs):
        _no_projection(kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory layers (gates in torch's order: input, forget, cell, output).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the cell state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): whether to use biases. Default: True.
        batch_first (bool): ``(B, T, F)`` layout. Default: False.
        dropout (float): dropout between layers in training. Default: 0.
        bidirectional (bool): also run backwards. Default: False.
        proj_size (int): project hidden states to this size (0: off). Default: 0.

    Example:
        >>> lstm = torch.nn.LSTM(10, 20)
        >>> out, (h, c) = lstm(torch.randn(5, 3, 10))
        >>> out.shape
        torch.Size([5, 3, 20])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device=device, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit layers (gates in torch's order: reset, update, new).

    Args:
        input_size (int): features of the input.
        hidden_size (int): features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): whether to use biases. Default: True.
        batch_first (bool): ``(B, T, F)`` layout. Default: False.
        dropout (float): dropout between layers in training. Default: 0.
        bidirectional (bool): also run backwards. Default: False.

    Example:
        >>> gru = torch.nn.GRU(10, 20)
        >>> out, h = gru(torch.randn(5, 3, 10))
        >>> h.shape
        torch.Size([1, 3, 20])
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _no_projection(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)
