"""Dynamically quantized recurrent layers and cells (float in and out, qint8 or float16
weights packed per layer and direction)."""

import numbers
import warnings

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch._quantized_packed import CellParamsBase
from numtorch.ao.nn.quantized.modules.linear import linear_prepack, linear_prepack_fp16
from numtorch.ao.nn.quantized.modules.utils import _quantize_weight
from numtorch.nn.utils.rnn import PackedSequence
from numtorch.ops import quantized_rnn as _qrnn

__all__ = ["pack_weight_bias", "PackedParameter", "RNNBase", "LSTM", "GRU", "RNNCellBase",
           "RNNCell", "LSTMCell", "GRUCell", "apply_permutation"]


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    """Deprecated: ``tensor.index_select(dim, permutation)``."""
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, "
                  "permutation)` instead", FutureWarning, stacklevel=2)
    return _apply_permutation(tensor, permutation, dim)


def pack_weight_bias(qweight, bias, dtype):
    """Packed linear parameters of a qint8 (or float, for float16) weight and its bias."""
    if dtype is torch.qint8:
        return linear_prepack(qweight, bias)
    return linear_prepack_fp16(qweight, bias)


def _cell_params(packed_ih, packed_hh, b_ih, b_hh, dtype):
    kind = "quantized_dynamic" if dtype is torch.qint8 else "quantized_dynamic_fp16"
    return CellParamsBase(kind, packed_ih, packed_hh, b_ih, b_hh, True)


class PackedParameter(nn.Module):
    """Holds one layer-direction's packed cell parameters (``param``)."""

    def __init__(self, param):
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "param"] = self.param

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.param = state_dict[prefix + "param"]
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)


def _random_weights(gate_size, in_size, hidden_size, dtype):
    w_ih = torch.randn(gate_size, in_size)
    w_hh = torch.randn(gate_size, hidden_size)
    b_ih, b_hh = torch.randn(gate_size), torch.randn(gate_size)
    if dtype is torch.qint8:
        w_ih = torch.quantize_per_tensor(w_ih, scale=0.1, zero_point=0, dtype=torch.qint8)
        w_hh = torch.quantize_per_tensor(w_hh, scale=0.1, zero_point=0, dtype=torch.qint8)
    return w_ih, w_hh, b_ih, b_hh


class RNNBase(nn.Module):
    """Common parts of the dynamically quantized LSTM and GRU (``_all_weight_values``: one
    PackedParameter per layer and direction)."""

    _FLOAT_MODULE = nn.RNNBase
    _version = 2

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=torch.qint8):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout = float(dropout)
        self.bidirectional, self.dtype = bidirectional, dtype
        self.version = 2
        self.training = False
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)
        dirs = 2 if bidirectional else 1
        values = []
        for layer in range(num_layers):
            for _ in range(dirs):
                in_size = input_size if layer == 0 else hidden_size * dirs
                w_ih, w_hh, b_ih, b_hh = _random_weights(gate_size, in_size, hidden_size, dtype)
                values.append(PackedParameter(_cell_params(
                    pack_weight_bias(w_ih, b_ih, dtype), pack_weight_bias(w_hh, b_hh, dtype),
                    b_ih, b_hh, dtype)))
        self._all_weight_values = nn.ModuleList(values)

    def _get_name(self):
        return "DynamicQuantizedRNN"

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        child = ["(" + k + "): " + nn.modules.module._addindent(repr(m), 2)
                 for k, m in self._modules.items()
                 if not isinstance(m, (PackedParameter, nn.ModuleList))]
        body = ""
        if lines or child:
            body = lines[0] if len(lines) == 1 and not child else \
                "\n  " + "\n  ".join(lines + child) + "\n"
        return self._get_name() + "(" + body + ")"

    def check_input(self, input, batch_sizes):
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.version = local_metadata.get("version", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _names(self):
        dirs = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            for d in range(dirs):
                yield layer, "_reverse" if d == 1 else ""

    def set_weight_bias(self, weight_bias_dict):
        """Repack from ``{"weight_ih_l0": qweight, "bias_ih_l0": bias, ...}``."""
        values = []
        for layer, suffix in self._names():
            w_ih = weight_bias_dict[f"weight_ih_l{layer}{suffix}"]
            b_ih = weight_bias_dict[f"bias_ih_l{layer}{suffix}"]
            w_hh = weight_bias_dict[f"weight_hh_l{layer}{suffix}"]
            b_hh = weight_bias_dict[f"bias_hh_l{layer}{suffix}"]
            dtype = torch.qint8 if w_ih.dtype is torch.qint8 else torch.float16
            values.append(PackedParameter(_cell_params(
                pack_weight_bias(w_ih, b_ih, dtype), pack_weight_bias(w_hh, b_hh, dtype),
                b_ih, b_hh, dtype)))
        self._all_weight_values = nn.ModuleList(values)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic layer of a float ``nn.LSTM``/``nn.GRU`` (weights quantized per layer
        and direction with the qconfig's weight observer)."""
        if type(mod) not in (nn.LSTM, nn.GRU):
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for "
                                 "nn.LSTM and nn.GRU")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if mod.qconfig is not None and mod.qconfig.weight is not None:
            observer_ctor = mod.qconfig.weight
        else:
            from numtorch.ao.quantization.qconfig import default_dynamic_qconfig

            observer_ctor = default_dynamic_qconfig.weight
        dtype = observer_ctor().dtype
        if dtype not in (torch.qint8, torch.float16):
            raise RuntimeError(f"Unsupported dtype for dynamic RNN quantization: {dtype}")
        qcls = LSTM if mod.mode == "LSTM" else GRU
        qrnn = qcls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                    mod.dropout, mod.bidirectional, dtype)
        if not mod.bias:
            raise AssertionError("mod.bias must be True")

        def pack(w, b):
            if dtype is torch.qint8:
                observer = observer_ctor()
                observer(w)
                return linear_prepack(_quantize_weight(w.float(), observer), b)
            return linear_prepack_fp16(w.float(), b)

        values = []
        for layer, suffix in qrnn._names():
            w_ih, b_ih = getattr(mod, f"weight_ih_l{layer}{suffix}"), \
                getattr(mod, f"bias_ih_l{layer}{suffix}")
            w_hh, b_hh = getattr(mod, f"weight_hh_l{layer}{suffix}"), \
                getattr(mod, f"bias_hh_l{layer}{suffix}")
            values.append(PackedParameter(_cell_params(pack(w_ih, b_ih), pack(w_hh, b_hh),
                                                       b_ih, b_hh, dtype)))
        qrnn._all_weight_values = nn.ModuleList(values)
        return qrnn

    def _weight_bias(self):
        out = {"weight": {}, "bias": {}}
        for (layer, suffix), m in zip(self._names(), self._all_weight_values):
            cell = m.param
            for name, packed in (("ih", cell.packed_ih), ("hh", cell.packed_hh)):
                w, b = packed.unpack()
                out["weight"][f"weight_{name}_l{layer}{suffix}"] = w
                out["bias"][f"bias_{name}_l{layer}{suffix}"] = b
        return out

    def get_weight(self):
        return self._weight_bias()["weight"]

    def get_bias(self):
        return self._weight_bias()["bias"]

    def _start(self, input, kind):
        """The packed cells, the input as float32 and a zero initial state's shape; refuses a
        PackedSequence (these layers take padded tensors)."""
        if isinstance(input, PackedSequence):
            raise RuntimeError(f"numtorch's dynamic quantized {kind} takes padded tensors, not "
                               "PackedSequence inputs")
        batch = input.size(0) if self.batch_first else input.size(1)
        state = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        cells = [m.param for m in self._all_weight_values]
        return cells, _float32(input), state


def _float32(t):
    return t.detach()._array.astype(np.float32, copy=False)


class LSTM(RNNBase):
    """Dynamically quantized LSTM: float input and hidden state, qint8 (or float16)
    weights."""

    _FLOAT_MODULE = nn.LSTM

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _get_name(self):
        return "DynamicQuantizedLSTM"

    def forward(self, input, hx=None):
        from numtorch._tensor import _make

        cells, x, state = self._start(input, "LSTM")
        if hx is None:
            zeros = torch.zeros(state, dtype=input.dtype)
            hx = (zeros, zeros)
        self.check_forward_args(input, hx[0], None)
        self.check_hidden_size(hx[1], self.get_expected_hidden_size(input, None),
                               "Expected hidden[1] size {}, got {}")
        out, h, c = _qrnn.lstm_layers(x, _float32(hx[0]), _float32(hx[1]), cells,
                                      self.num_layers, self.bidirectional, self.batch_first)
        return _make(out), (_make(h), _make(c))


class GRU(RNNBase):
    """Dynamically quantized GRU."""

    _FLOAT_MODULE = nn.GRU

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    def _get_name(self):
        return "DynamicQuantizedGRU"

    def forward(self, input, hx=None):
        from numtorch._tensor import _make

        cells, x, state = self._start(input, "GRU")
        if hx is None:
            hx = torch.zeros(state, dtype=input.dtype)
        self.check_forward_args(input, hx, None)
        out, h = _qrnn.gru_layers(x, _float32(hx), cells,
                                  self.num_layers, self.bidirectional, self.batch_first)
        return _make(out), _make(h)


class RNNCellBase(nn.Module):
    """Common parts of the dynamically quantized cells (``_packed_weight_ih``/``_hh``)."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=4, dtype=torch.qint8):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_dtype = dtype
        if bias:
            self.bias_ih = torch.randn(num_chunks * hidden_size)
            self.bias_hh = torch.randn(num_chunks * hidden_size)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        w_ih = torch.randn(num_chunks * hidden_size, input_size)
        w_hh = torch.randn(num_chunks * hidden_size, hidden_size)
        if dtype is torch.qint8:
            w_ih = torch.quantize_per_tensor(w_ih, scale=1, zero_point=0, dtype=torch.qint8)
            w_hh = torch.quantize_per_tensor(w_hh, scale=1, zero_point=0, dtype=torch.qint8)
        self._packed_weight_ih = pack_weight_bias(w_ih, self.bias_ih, dtype)
        self._packed_weight_hh = pack_weight_bias(w_hh, self.bias_hh, dtype)

    def _get_name(self):
        return "DynamicQuantizedRNNBase"

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def check_forward_input(self, input):
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)}, "
                               f"expected {self.input_size}")

    def check_forward_hidden(self, input, hx, hidden_label=""):
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match "
                               f"hidden{hidden_label} batch size {hx.size(0)}")
        if hx.size(1) != self.hidden_size:
            raise RuntimeError(f"hidden{hidden_label} has inconsistent hidden_size: got "
                               f"{hx.size(1)}, expected {self.hidden_size}")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic cell of a float ``LSTMCell``/``GRUCell``/``RNNCell``."""
        if type(mod) not in (nn.LSTMCell, nn.GRUCell, nn.RNNCell):
            raise AssertionError("nn.quantized.dynamic.RNNCellBase.from_float only works for "
                                 "nn.LSTMCell, nn.GRUCell and nn.RNNCell")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        if mod.qconfig is not None and mod.qconfig.weight is not None:
            observer_ctor = mod.qconfig.weight
        else:
            from numtorch.ao.quantization.qconfig import default_dynamic_qconfig

            observer_ctor = default_dynamic_qconfig.weight
        dtype = observer_ctor().dtype
        if dtype not in (torch.qint8, torch.float16):
            raise RuntimeError(f"Unsupported dtype for dynamic RNN quantization: {dtype}")
        if type(mod) is nn.LSTMCell:
            qcell = LSTMCell(mod.input_size, mod.hidden_size, bias=mod.bias, dtype=dtype)
        elif type(mod) is nn.GRUCell:
            qcell = GRUCell(mod.input_size, mod.hidden_size, bias=mod.bias, dtype=dtype)
        else:
            qcell = RNNCell(mod.input_size, mod.hidden_size, bias=mod.bias,
                            nonlinearity=mod.nonlinearity, dtype=dtype)
        if not mod.bias:
            raise AssertionError("mod.bias must be True")

        def quantized(w):
            if dtype is not torch.qint8:
                return w.float()
            observer = observer_ctor()
            observer(w)
            return _quantize_weight(w.float(), observer)

        qcell._packed_weight_ih = pack_weight_bias(quantized(mod.weight_ih), mod.bias_ih, dtype)
        qcell._packed_weight_hh = pack_weight_bias(quantized(mod.weight_hh), mod.bias_hh, dtype)
        return qcell

    def _weight_bias(self):
        w1, b1 = self._packed_weight_ih.unpack()
        w2, b2 = self._packed_weight_hh.unpack()
        return {"weight": {"weight_ih": w1, "weight_hh": w2},
                "bias": {"bias_ih": b1, "bias_hh": b2}}

    def get_weight(self):
        return self._weight_bias()["weight"]

    def get_bias(self):
        return self._weight_bias()["bias"]

    def set_weight_bias(self, weight_bias_dict):
        w, b = weight_bias_dict["weight"], weight_bias_dict["bias"]
        self._packed_weight_ih = pack_weight_bias(w["weight_ih"], b["bias_ih"],
                                                  self.weight_dtype)
        self._packed_weight_hh = pack_weight_bias(w["weight_hh"], b["bias_hh"],
                                                  self.weight_dtype)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "_packed_weight_ih"] = self._packed_weight_ih
        destination[prefix + "_packed_weight_hh"] = self._packed_weight_hh

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self._packed_weight_ih = state_dict.pop(prefix + "_packed_weight_ih")
        self._packed_weight_hh = state_dict.pop(prefix + "_packed_weight_hh")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _arrays(self, input, hx):
        self.check_forward_input(input)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        return input.detach()._array.astype(np.float32), hx


_CELL_REDUCE_RANGE = True  # torch's cell ops quantize activations over half the range, as x86 does


class RNNCell(RNNCellBase):
    """Dynamically quantized Elman cell (tanh or relu)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh",
                 dtype=torch.qint8):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    def _get_name(self):
        return "DynamicQuantizedRNNCell"

    def forward(self, input, hx=None):
        from numtorch._tensor import _make

        x, hx = self._arrays(input, hx)
        self.check_forward_hidden(input, hx, "")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return _make(_qrnn.rnn_cell(x, hx.detach()._array.astype(np.float32),
                                    self._packed_weight_ih, self._packed_weight_hh,
                                    self.nonlinearity, _CELL_REDUCE_RANGE))


class LSTMCell(RNNCellBase):
    """Dynamically quantized LSTM cell: ``(h, c) = cell(input, (h, c))``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, num_chunks=4, **kwargs)

    def _get_name(self):
        return "DynamicQuantizedLSTMCell"

    def forward(self, input, hx=None):
        from numtorch._tensor import _make
        from numtorch.ops.quantized_nn import linear_dynamic_array

        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        x, _ = self._arrays(input, hx[0])
        self.check_forward_hidden(input, hx[0], "[0]")
        self.check_forward_hidden(input, hx[1], "[1]")
        gates_x = linear_dynamic_array(x, self._packed_weight_ih, _CELL_REDUCE_RANGE)
        h, c = _qrnn.lstm_cell(gates_x, hx[0].detach()._array.astype(np.float32),
                               hx[1].detach()._array.astype(np.float32),
                               self._packed_weight_hh, _CELL_REDUCE_RANGE)
        return _make(h), _make(c)


class GRUCell(RNNCellBase):
    """Dynamically quantized GRU cell."""

    def __init__(self, input_size, hidden_size, bias=True, dtype=torch.qint8):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)

    def _get_name(self):
        return "DynamicQuantizedGRUCell"

    def forward(self, input, hx=None):
        from numtorch._tensor import _make
        from numtorch.ops.quantized_nn import linear_dynamic_array

        x, hx = self._arrays(input, hx)
        self.check_forward_hidden(input, hx, "")
        gates_x = linear_dynamic_array(x, self._packed_weight_ih, _CELL_REDUCE_RANGE)
        return _make(_qrnn.gru_cell(gates_x, hx.detach()._array.astype(np.float32),
                                    self._packed_weight_hh, _CELL_REDUCE_RANGE))
