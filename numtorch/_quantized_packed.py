"""Packed parameters of quantized layers, as the ``torch.ScriptObject`` s torch keeps them in.

torch stores a quantized layer's weight in an opaque object of a TorchScript class
(``__torch__.torch.classes.quantized.LinearPackedParamsBase`` and friends); pickles save it as
``torch.ScriptObject`` rebuilt from ``(state, class name)``. numtorch's :class:`ScriptObject`
pickles the same way (so torch can load numtorch's quantized models and the other way round),
and turns itself into the right packed class when unpickled. Each class keeps the unpacked
tensors (numtorch computes with them directly) and torch's ``__getstate__`` layout:

* Linear: ``(weight, bias)``
* Conv: ``("2", [int16 config, weight], [bias])`` with the config ``[spatial dims, stride...,
  padding..., dilation..., output_padding..., groups, transposed]`` (Conv1d is packed as 2-d
  with a unit first spatial dim, as torch does)
* Embedding: ``(1, [weight], [], [bit rate])``
* RNN cell (dynamic): ``("quantized_dynamic", [bias_ih, bias_hh], [], [reduce_range],
  [packed w_ih, packed w_hh])``
"""

import copyreg

import numpy as np

__all__ = ["ScriptObject", "LinearPackedParamsBase", "ConvPackedParamsBase",
           "EmbeddingPackedParamsBase", "CellParamsBase"]

_PREFIX = "__torch__.torch.classes."
_REGISTRY = {}


class ScriptObject:
    """An instance of a TorchScript class (``torch.ScriptObject``): numtorch's instances hold
    the packed parameters of quantized layers (``_impl``, one of the classes below, whose
    methods the object answers)."""

    def __init__(self, impl):
        self._impl = impl

    def __getattr__(self, name):
        impl = self.__dict__.get("_impl")
        if impl is None:
            raise AttributeError(name)
        return getattr(impl, name)

    def __getstate__(self):
        return (self._impl._state(), self._impl._qualified_name)

    def __setstate__(self, state):
        inner, name = state
        cls = _REGISTRY.get(name)
        if cls is None:
            raise RuntimeError(f"numtorch cannot rebuild a ScriptObject of class {name!r}")
        impl = object.__new__(cls)
        impl._restore(inner)
        self._impl = impl

    def __reduce_ex__(self, protocol):
        return (copyreg.__newobj__, (ScriptObject,), self.__getstate__())

    def __deepcopy__(self, memo):
        import copy

        new = object.__new__(ScriptObject)
        new.__setstate__((copy.deepcopy(self._impl._state(), memo),
                          self._impl._qualified_name))
        return new

    def _type(self):
        return self._impl._qualified_name

    def __getitem__(self, index):
        raise NotImplementedError(f"'__getitem__' is not implemented for "
                                  f"{self._impl._qualified_name}")

    def __repr__(self):
        return f"<torch.ScriptObject object of {self._impl._qualified_name}>"


ScriptObject.__module__ = "numtorch"


class _Packed:
    """Base of the packed-parameter implementations (registered by qualified name)."""

    _qualified_name = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._qualified_name:
            _REGISTRY[cls._qualified_name] = cls


class _Linear(_Packed):
    """A linear layer's quantized weight (qint8, or float16/float32 for fp16 packing) and
    float bias."""

    _qualified_name = _PREFIX + "quantized.LinearPackedParamsBase"

    def __init__(self, weight, bias):
        self.weight, self.bias = weight, bias
        self._gemm = None
        self.engine = _engine()

    def _state(self):
        return (self.weight, self.bias)

    def _restore(self, state):
        self.weight, self.bias = state
        self._gemm = None
        self.engine = _engine()  # torch packs again for the engine current at load time

    def unpack(self):
        """``(weight, bias)``."""
        return self.weight, self.bias

    def gemm_operands(self):
        """``(IntWeight of (w - zp).T, float64 scales, float32 bias)`` made once per packed
        weight, for layers that run many times (dynamic linear, RNNs)."""
        if getattr(self, "_gemm", None) is None:
            from .ops.quantized_gemm import IntWeight
            from .ops.quantized_nn import _bias_array, weight_params

            if not self.weight.is_quantized:  # float16 packing: the rounded float weight
                self._gemm = (None, None, _bias_array(self.bias))
            else:
                ints, scales, zps, _ = weight_params(self.weight)
                centred = (ints.astype(np.int32) - zps[:, None]).T
                self._gemm = (IntWeight(np.ascontiguousarray(centred)), scales,
                              _bias_array(self.bias))
        return self._gemm


class _Conv(_Packed):
    """A convolution's quantized weight, bias and geometry (``nd`` spatial dims as the layer
    sees them; Conv1d is stored as 2-d)."""

    _qualified_name = _PREFIX + "quantized.Conv2dPackedParamsBase"

    def __init__(self, weight, bias, stride, padding, dilation, groups, transposed=False,
                 output_padding=None):
        nd = len(stride)
        self.weight, self.bias = weight, bias
        self._stride, self._padding, self._dilation = list(stride), list(padding), \
            list(dilation)
        self._output_padding = list(output_padding) if output_padding is not None else \
            [0] * nd
        self._groups, self._transposed = int(groups), bool(transposed)

    def _state(self):
        from ._tensor import _make

        nd = len(self._stride)
        config = [nd] + self._stride + self._padding + self._dilation + self._output_padding \
            + [self._groups, int(self._transposed)]
        return ("2", [_make(np.array(config, dtype=np.int16)), self.weight], [self.bias])

    def _restore(self, state):
        version, tensors, optional = state
        if str(version) not in ("2", "3"):
            raise RuntimeError(f"numtorch reads packed convolutions of version 2 or 3, got "
                               f"{version!r}")
        config = [int(v) for v in tensors[0].tolist()]
        nd = config[0]
        self._stride = config[1:1 + nd]
        self._padding = config[1 + nd:1 + 2 * nd]
        self._dilation = config[1 + 2 * nd:1 + 3 * nd]
        self._output_padding = config[1 + 3 * nd:1 + 4 * nd]
        self._groups, self._transposed = config[1 + 4 * nd], bool(config[2 + 4 * nd])
        self.weight = tensors[1]
        self.bias = optional[0] if optional else None

    def unpack(self):
        """``(weight, bias)``."""
        return self.weight, self.bias

    def stride(self):
        return list(self._stride)

    def padding(self):
        return list(self._padding)

    def dilation(self):
        return list(self._dilation)

    def output_padding(self):
        return list(self._output_padding)

    def groups(self):
        return self._groups

    def transpose(self):
        return self._transposed


class _Conv3d(_Conv):
    """The packed parameters of a 3-d (transposed) convolution."""

    _qualified_name = _PREFIX + "quantized.Conv3dPackedParamsBase"


class _Embedding(_Packed):
    """A quantized embedding table (per-row float qparams, 8 or 4 bits)."""

    _qualified_name = _PREFIX + "quantized.EmbeddingPackedParamsBase"

    def __init__(self, weight, bit_rate=8):
        self.weight, self._bit_rate = weight, int(bit_rate)

    def _state(self):
        return (1, [self.weight], [], [self._bit_rate])

    def _restore(self, state):
        _, tensors, _, ints = state
        self.weight = tensors[0]
        self._bit_rate = int(ints[0]) if ints else 8

    def unpack(self):
        """The quantized weight."""
        return self.weight

    def bit_rate(self):
        return self._bit_rate

    def version(self):
        return 1


class _Cell(_Packed):
    """One direction of one layer of a dynamically quantized RNN: packed input and hidden
    weights and their float biases."""

    _qualified_name = _PREFIX + "rnn.CellParamsBase"

    def __init__(self, kind, packed_ih, packed_hh, bias_ih, bias_hh, reduce_range=True):
        self.kind = kind
        self.packed_ih, self.packed_hh = packed_ih, packed_hh
        self.bias_ih, self.bias_hh = bias_ih, bias_hh
        self.reduce_range = bool(reduce_range)

    def _state(self):
        if self.kind == "quantized_dynamic":
            return (self.kind, [self.bias_ih, self.bias_hh], [], [int(self.reduce_range)],
                    [self.packed_ih, self.packed_hh])
        return (self.kind, [self.bias_ih, self.bias_hh], [], [],
                [self.packed_ih, self.packed_hh])

    def _restore(self, state):
        kind, tensors, _, ints, packed = state
        self.kind = kind
        self.bias_ih, self.bias_hh = tensors[0], tensors[1]
        self.reduce_range = bool(ints[0]) if ints else True
        self.packed_ih, self.packed_hh = packed


def LinearPackedParamsBase(weight, bias):  # noqa: N802 - torch's class name
    """Packed linear parameters (a ScriptObject)."""
    return ScriptObject(_Linear(weight, bias))


def ConvPackedParamsBase(weight, bias, stride, padding, dilation, groups,  # noqa: N802
                         transposed=False, output_padding=None):
    """Packed convolution parameters (2-d, or 3-d for three spatial dims)."""
    cls = _Conv3d if len(stride) == 3 else _Conv
    return ScriptObject(cls(weight, bias, stride, padding, dilation, groups, transposed,
                            output_padding))


def EmbeddingPackedParamsBase(weight, bit_rate=8):  # noqa: N802
    """A packed quantized embedding table."""
    return ScriptObject(_Embedding(weight, bit_rate))


def CellParamsBase(kind, packed_ih, packed_hh, bias_ih, bias_hh,  # noqa: N802
                   reduce_range=True):
    """One layer-direction of a packed dynamic RNN."""
    return ScriptObject(_Cell(kind, packed_ih, packed_hh, bias_ih, bias_hh, reduce_range))


def _engine():
    from .backends.quantized import _state

    return _state["engine"]


def packed_weight(weight, kernel):
    """``weight`` as torch's packing returns it from ``unpack()``: fbgemm stores weight scales
    as float32, so under the ``fbgemm`` engine (and ``x86`` for linear layers, whose x86
    kernels are fbgemm's) the scales come back rounded to float32; oneDNN (x86
    convolutions) and qnnpack keep them as given. The integers never change."""
    from .backends.quantized import _state
    from ._quantized_array import PerChannel, PerTensor, QArray
    from ._quantized_tensor import make_quantized

    engine = _state["engine"]
    a = getattr(weight, "_array", None)
    if type(a) is not QArray or not (engine == "fbgemm" or (engine == "x86" and
                                                            kernel == "linear")):
        return weight
    q = a.quantizer
    if q.per_channel:
        if q.float_qparams:
            return weight
        rounded = PerChannel(q.scales.astype(np.float32).astype(np.float64), q.zero_points,
                             q.axis)
    else:
        rounded = PerTensor(float(np.float32(q.scale)), q.zero_point)
    return make_quantized(a.ints, a.qdtype, rounded)

