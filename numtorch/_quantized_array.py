"""``QArray``: the array inside a quantized tensor (its integers plus their quantizer).

A quantized tensor is an ordinary :class:`numtorch.Tensor` whose ``_array`` is a ``QArray``
instead of a NumPy array, so ``type(q) is torch.Tensor`` holds as in torch. ``QArray`` is not
an ``ndarray``: it wraps one (``ints``, of the dtype's integer storage type) and answers just
the operations that have a meaning on quantized values:

* shape, strides, memory and the structural operations numtorch's view and copy ops use
  (indexing, reshape, transpose, copy, concatenate, sort, max/min, ...), applied to the
  integers and keeping the quantizer;
* comparisons, made on the dequantized values (as torch compares quantized tensors);
* writes (``a[i] = v``), which quantize ``v`` with the array's own parameters.

Every other NumPy function, ufunc or ndarray method raises torch's NotImplementedError for the
QuantizedCPU backend, so an op without quantized support fails loudly instead of computing on
the raw integers.

Per-channel quantizers follow their channel dim through views that keep it; views that would
scatter it (transpose, flatten, expand) raise torch's errors.

Numerics (checked against torch 2.13's CPU kernels):

* quantize (quint8/qint8, per tensor and per channel): ``q = clamp(rint(fma(x, 1/s, zp)))``,
  ``1/s`` in float32 and one float32 rounding of ``x * (1/s) + zp``; qint32 rounds twice
  (``rint(float32(x * (1/s)) + zp)``). ``rint`` rounds half to even.
* dequantize: per tensor ``float32(q - zp) * float32(s)``; per channel in float64 then
  rounded to float32.
"""

import sys

import numpy as np

from . import _dtype
from ._quantized_dtypes import QConst

__all__ = ["QArray", "PerTensor", "PerChannel", "quantize_per_tensor_array",
           "quantize_per_channel_array", "dequantize_array", "not_supported"]

_QUANTIZED_CPU = ("Could not run '{}' with arguments from the 'QuantizedCPU' backend. This "
                  "could be because the operator doesn't exist for this backend, or was omitted "
                  "during the selective/custom build process (if using custom build). If you "
                  "are a Facebook employee using PyTorch on mobile, please visit "
                  "https://fburl.com/ptmfixes for possible resolutions.")
_STRIDES_ERROR = "Setting strides is possible only on uniformly quantized tensor"
_CAT_PER_CHANNEL = "Only per-tensor quantization is supported in 'cat'!"


def not_supported(op=None):
    """Torch's NotImplementedError for an operator the QuantizedCPU backend lacks (named after
    the numtorch op being run when ``op`` is not given)."""
    if op is None:
        op = _running_op()
    op = _OUT_NAMES.get(op, op)
    return NotImplementedError(_QUANTIZED_CPU.format(f"aten::{op}"))


# the overload torch's dispatcher reports for a numtorch op (lower-case class name) it runs
# on a quantized tensor: the out= form its functional variant goes through
_OUT_NAMES = {"add": "add.out", "sub": "sub.out", "mul": "mul.out", "div": "div.out",
              "neg": "neg.out", "sum": "sum.IntList_out", "cumsum": "cumsum.out",
              "any": "any.all_out", "exp": "exp.out", "log": "log.out", "sqrt": "sqrt.out",
              "sin": "sin.out", "cos": "cos.out", "exp2": "exp2.out",
              "pow": "pow.Tensor_Scalar_out"}
_SCALAR_FORMS = frozenset(("add", "sub", "mul", "div"))
_EMPTY_STRIDED = ("empty_strided not supported on quantized tensors yet see "
                  "https://github.com/pytorch/pytorch/issues/74540")


def _promoting_op():
    """The lower-case name of the op class whose ``apply`` casts its inputs (None when that
    is no op torch names by its out= form)."""
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            break
        cls = frame.f_locals.get("cls")
        name = getattr(cls, "__name__", "").lower()
        if name in _OUT_NAMES:
            return name
        frame = frame.f_back
    return None


def _running_op():
    """The lower-case name of the innermost numtorch op on the call stack (for messages)."""
    frame = sys._getframe(2)
    for _ in range(12):
        if frame is None:
            break
        owner = frame.f_locals.get("self")
        cls = getattr(type(owner), "_op_cls", None)
        if cls is not None:
            return cls.__name__.lower()
        frame = frame.f_back
    return "unknown"


class PerTensor:
    """``per_tensor_affine``: one ``scale`` (a Python float) and ``zero_point`` (int)."""

    __slots__ = ("scale", "zero_point")
    per_channel = False
    float_qparams = False

    def __init__(self, scale, zero_point):
        self.scale, self.zero_point = float(scale), int(zero_point)

    def same_as(self, other):
        return type(other) is PerTensor and other.scale == self.scale and \
            other.zero_point == self.zero_point


class PerChannel:
    """``per_channel_affine`` (integer zero points) or ``per_channel_affine_float_qparams``.

    Attributes:
        scales (ndarray): float64 per channel. zero_points (ndarray): int64, or float32 for
            float qparams. axis (int): the channel dim.
    """

    __slots__ = ("scales", "zero_points", "axis", "float_qparams")
    per_channel = True

    def __init__(self, scales, zero_points, axis, float_qparams=False):
        self.scales, self.zero_points, self.axis = scales, zero_points, int(axis)
        self.float_qparams = float_qparams

    def with_axis(self, axis):
        return PerChannel(self.scales, self.zero_points, axis, self.float_qparams)

    def take(self, channels):
        return PerChannel(self.scales[channels], self.zero_points[channels], self.axis,
                          self.float_qparams)

    def same_as(self, other):
        return type(other) is PerChannel and other.axis == self.axis and \
            other.float_qparams == self.float_qparams and \
            np.array_equal(other.scales, self.scales) and \
            np.array_equal(other.zero_points, self.zero_points)

    def expand(self, ndim, values):
        """``values`` (one per channel) shaped to broadcast along ``axis`` of an ndim array."""
        shape = [1] * ndim
        shape[self.axis] = -1
        return values.reshape(shape)


# -- numerics -------------------------------------------------------------------------------


def _round_fma(x, inv, zp):
    """``rint(float32(x * inv + zp))`` with one rounding to float32, as an FMA does.

    ``x`` and ``inv`` are float32, so their product is exact in float64 (24 + 24 bits);
    adding an integer zero point of at most 32 bits keeps it exact whenever ``|x * inv|``
    stays below 2**21 times the zero point's magnitude ratio, and beyond that the value is far
    outside every quantized range and is clamped anyway.
    """
    t = x.astype(np.float64)
    t *= np.float64(inv) if np.ndim(inv) == 0 else inv.astype(np.float64)
    t += zp
    return np.rint(t.astype(np.float32))


def quantize_per_tensor_array(x, scale, zero_point, key):
    """Integers of ``key.storage`` for float32 ``x`` quantized with one scale/zero point."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 0:  # ufuncs give NumPy scalars for 0-d arrays, which take no out=
        return quantize_per_tensor_array(x.reshape(1), scale, zero_point, key).reshape(())
    with np.errstate(divide="ignore", over="ignore"):
        inv = np.float32(1.0) / np.float32(scale)
    if key.bits == 32:  # torch's qint32 kernel rounds the product, then adds the zero point
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.rint((x * inv) + np.float32(zero_point)).astype(np.float64)
    elif key.bits < 8:  # sub-byte (quint4x2, quint2x4): the product rounded, then + zero point
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.rint(x * inv).astype(np.float64) + zero_point
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            r = _round_fma(x, inv, zero_point).astype(np.float64)
    np.clip(r, key.qmin, key.qmax, out=r)
    r[np.isnan(r)] = key.qmin if key.bits != 32 else 0
    return r.astype(key.storage)


def quantize_per_channel_array(x, quantizer, key):
    """Integers for float32 ``x`` quantized per channel along ``quantizer.axis``."""
    q = quantizer
    if x.ndim == 0:
        raise RuntimeError("Channel axis out of range in per channel affine quantization. "
                           "Got: 0Expected: [0, 0)")
    scales = q.expand(x.ndim, q.scales.astype(np.float32))
    if q.float_qparams:  # zero points are floats: round(x / s + zp), with 1/s for s == 0
        inv = np.where(scales == 0, np.float32(1.0), np.float32(1.0) / np.where(
            scales == 0, np.float32(1.0), scales))
        zps = q.expand(x.ndim, q.zero_points.astype(np.float32))
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.rint((x * inv) + zps).astype(np.float64)
    else:
        inv = np.float32(1.0) / scales
        zps = q.expand(x.ndim, q.zero_points.astype(np.float64))
        with np.errstate(over="ignore", invalid="ignore"):
            r = _round_fma(x, inv, zps).astype(np.float64)
    np.clip(r, key.qmin, key.qmax, out=r)
    r[np.isnan(r)] = key.qmin
    return r.astype(key.storage)


def dequantize_array(qa):
    """The float32 values of QArray ``qa``."""
    ints, q = qa.ints, qa.quantizer
    if not q.per_channel:
        out = ints.astype(np.float32)
        out -= np.float32(q.zero_point)
        out *= np.float32(q.scale)
        return out
    scales = q.expand(ints.ndim, q.scales)
    if q.float_qparams:
        zps = q.expand(ints.ndim, q.zero_points.astype(np.float32))
        return (ints.astype(np.float32) - zps) * scales.astype(np.float32)
    zps = q.expand(ints.ndim, q.zero_points)
    return ((ints - zps) * scales).astype(np.float32)


def _quantize_like(qa, values, shape=None):
    """``values`` (floats, broadcast to ``shape``) quantized with ``qa``'s parameters."""
    v = np.asarray(values, dtype=np.float32)
    shape = qa.ints.shape if shape is None else shape
    key = qa.key
    if not qa.quantizer.per_channel:
        return quantize_per_tensor_array(v, qa.quantizer.scale, qa.quantizer.zero_point, key)
    return quantize_per_channel_array(np.broadcast_to(v, shape), qa.quantizer, key)


# -- the array ------------------------------------------------------------------------------


def _is_basic(index):
    """Whether ``index`` is basic indexing (ints, slices, None, Ellipsis), giving a view."""
    items = index if type(index) is tuple else (index,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))) or \
                isinstance(i, (bool, np.bool_)):
            return False
    return True


def _channel_probe(shape, axis):
    """A zero-copy array of ``shape`` holding each element's channel number (along ``axis``):
    its only non-zero stride is the channel dim's, so views of it show where the dim went."""
    n = shape[axis]
    line = np.arange(n, dtype=np.int64).reshape([n if d == axis else 1
                                                 for d in range(len(shape))])
    return np.broadcast_to(line, shape)


def _axis_after(probe_view):
    """The channel dim of a view of a channel probe (None when it was indexed away)."""
    hits = [d for d, (st, n) in enumerate(zip(probe_view.strides, probe_view.shape))
            if st != 0 and n > 1]
    if len(hits) == 1:
        return hits[0]
    hits = [d for d, st in enumerate(probe_view.strides) if st != 0]
    return hits[0] if hits else None


def _non_unit(shape):
    return [(d, n) for d, n in enumerate(shape) if n != 1]


def _moved_axis(old_shape, new_shape, axis):
    """Where the channel dim lands when a reshape only adds or drops size-1 dims, else None."""
    old, new = _non_unit(old_shape), _non_unit(new_shape)
    if [n for _, n in old] != [n for _, n in new]:
        return None
    if old_shape[axis] != 1:
        return new[[d for d, _ in old].index(axis)][0]
    # a single-channel dim: keep its position among the size-1 dims (clamped to the new rank)
    return min(axis, len(new_shape) - 1) if new_shape else None


class QArray:
    """The integers of a quantized tensor and their quantizer (see the module docstring).

    Attributes:
        ints (ndarray): the stored integers (one element per value, also for the packed
            sub-byte dtypes, which are packed only in ``int_repr`` and on saving).
        qdtype (numtorch.dtype): ``quint8``, ``qint8``, ``qint32``, ``quint4x2``, ...
        quantizer (PerTensor or PerChannel): the parameters mapping integers to values.
    """

    __slots__ = ("ints", "qdtype", "quantizer")
    __array_priority__ = 2000

    def __init__(self, ints, qdtype, quantizer):
        self.ints, self.qdtype, self.quantizer = ints, qdtype, quantizer

    @property
    def key(self):
        return self.qdtype.np

    def _like(self, ints, quantizer=None):
        return QArray(ints, self.qdtype, self.quantizer if quantizer is None else quantizer)

    # -- what numtorch reads of an array ---------------------------------------------------
    dtype = property(lambda self: self.qdtype.np)
    shape = property(lambda self: self.ints.shape)
    ndim = property(lambda self: self.ints.ndim)
    size = property(lambda self: self.ints.size)
    strides = property(lambda self: self.ints.strides)
    flags = property(lambda self: self.ints.flags)
    base = property(lambda self: self.ints.base)

    @property
    def itemsize(self):
        return self.qdtype.itemsize

    @property
    def nbytes(self):
        return self.ints.size * self.qdtype.itemsize

    @property
    def device(self):  # CuPy arrays have one; a QArray lives on the CPU only
        raise AttributeError("device")

    def __len__(self):
        return len(self.ints)

    def __repr__(self):
        return f"QArray({self.qdtype}, {self.ints!r})"

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Got unsupported ScalarType {_dtype._TYPE_DISPLAY[self.qdtype.name]}")

    get = __array__  # numtorch reads non-NumPy arrays with .get() (CuPy's host copy)

    def __reduce__(self):
        return (QArray, (self.ints, self.qdtype, self.quantizer))

    # -- views and copies ------------------------------------------------------------------
    def __getitem__(self, index):
        q = self.quantizer
        if not q.per_channel:
            if _is_basic(index):
                return self._like(self.ints[index])
            # a copy, laid out row-major as torch lays it (np.ascontiguousarray cannot reach a
            # QArray: NumPy does not dispatch it)
            return self._like(np.ascontiguousarray(self.ints[index]))
        if not _is_basic(index):
            raise RuntimeError("self.qscheme() == c10::kPerTensorAffine || self.qscheme() == "
                               "c10::kPerTensorSymmetric INTERNAL ASSERT FAILED: Indexing is "
                               "only supported for per-Tensor quantized Tensors.")
        ints = self.ints[index]
        probe = _channel_probe(self.ints.shape, q.axis)[index]
        axis = _axis_after(probe)
        if axis is None:  # the channel dim was indexed away: one channel's parameters remain
            c = int(probe.reshape(-1)[0]) if probe.size else 0
            if q.float_qparams:
                return self._like(ints, PerChannel(q.scales[c:c + 1], q.zero_points[c:c + 1],
                                                   0, True)) if ints.ndim else \
                    self._like(ints, PerTensor(np.float32(q.scales[c]), q.zero_points[c]))
            return self._like(ints, PerTensor(float(q.scales[c]), int(q.zero_points[c])))
        channels = np.moveaxis(probe, axis, 0).reshape(probe.shape[axis], -1)[:, 0] \
            if probe.size else np.arange(0)
        return self._like(ints, q.take(channels).with_axis(axis))

    def __setitem__(self, index, value):
        if isinstance(value, QArray):
            if value.qdtype is self.qdtype and value.quantizer.same_as(self.quantizer):
                self.ints[index] = value.ints
                return
            value = dequantize_array(value)
        if not self.quantizer.per_channel:
            self.ints[index] = _quantize_like(self, value)
            return
        target = self.ints[index] if _is_basic(index) else None
        if target is not None and target.base is not None and target.size:
            probe = _channel_probe(self.ints.shape, self.quantizer.axis)[index]
            full = np.broadcast_to(np.asarray(value, dtype=np.float32), target.shape)
            scales = self.quantizer.scales[probe]
            zps = self.quantizer.zero_points[probe]
            flat = PerChannel(scales.reshape(-1), zps.reshape(-1), 0,
                              self.quantizer.float_qparams)
            self.ints[index] = quantize_per_channel_array(
                full.reshape(-1), flat, self.key).reshape(target.shape)
            return
        values = dequantize_array(self)
        values[index] = value
        mask = np.zeros(self.ints.shape, dtype=bool)
        mask[index] = True
        self.ints[mask] = _quantize_like(self, values)[mask]

    def _on_grid(self, value):
        """``value`` (a number, or a QArray) as integers of this array's quantization, to
        compare with or clamp ``ints`` (torch quantizes clamp bounds the same way)."""
        if isinstance(value, QArray):
            if value.quantizer.same_as(self.quantizer):
                return value.ints
            value = dequantize_array(value)
        if not isinstance(value, (int, float, np.number, np.ndarray)):
            raise not_supported()
        if self.quantizer.per_channel:
            return _quantize_like(self, np.broadcast_to(np.float32(value), self.ints.shape))
        return _quantize_like(self, np.float32(value))

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        ints = self.ints.reshape(shape, order=order)
        q = self.quantizer
        if q.per_channel and _moved_axis(self.ints.shape, ints.shape, q.axis) is None:
            # torch's view keeps the axis number and only checks the channel count there
            if q.axis >= ints.ndim:
                raise RuntimeError(f"Channel axis out of range in per channel affine "
                                   f"dequantization. Got:{q.axis} Expected: [0, {ints.ndim})")
            if ints.shape[q.axis] != len(q.scales):
                raise RuntimeError(f"length of scales must equal to channel, expected "
                                   f"{ints.shape[q.axis]} got, {len(q.scales)}")
            return self._like(ints)
        return self._like(ints, self._channel_moved(ints.shape))

    def _channel_moved(self, new_shape):
        q = self.quantizer
        if not q.per_channel or tuple(new_shape) == self.ints.shape:
            return None
        axis = _moved_axis(self.ints.shape, new_shape, q.axis)
        if axis is None:
            raise RuntimeError(f"Channel axis out of range in per channel affine "
                               f"dequantization. Got:{q.axis} Expected: [0, {len(new_shape)})")
        return q.with_axis(axis)

    def restride(self, strides):
        """The same elements with other byte strides for size-1 dims (``ops._util.restride``)."""
        return self._like(np.lib.stride_tricks.as_strided(self.ints, self.ints.shape, strides))

    def _uniform_only(self, same=False):
        if self.quantizer.per_channel and not same:
            raise RuntimeError(_STRIDES_ERROR)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        ints = self.ints.transpose(*axes) if axes else self.ints.transpose()
        perm = tuple(axes) if axes else tuple(reversed(range(self.ints.ndim)))
        self._uniform_only(perm == tuple(range(self.ints.ndim)))
        return self._like(ints)

    def swapaxes(self, a, b):
        self._uniform_only(a % max(self.ndim, 1) == b % max(self.ndim, 1))
        return self._like(self.ints.swapaxes(a, b))

    T = property(lambda self: self.transpose())

    def squeeze(self, axis=None):
        ints = self.ints.squeeze(axis)
        return self._like(ints, self._channel_moved(ints.shape))

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    flatten = ravel

    def copy(self, order="C"):
        return self._like(self.ints.copy(order=order))

    def astype(self, dtype, copy=True, **kwargs):
        if dtype is self.qdtype.np:
            return self.copy() if copy else self
        op = _promoting_op()
        if op is not None:  # a float op promoting its input: torch refuses the op itself
            raise not_supported(op)
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")

    def view(self, *args, **kwargs):
        if not args and not kwargs:
            return self._like(self.ints.view())
        raise not_supported("view.dtype")

    def fill(self, value):
        self[...] = value

    def max(self, axis=None, out=None, keepdims=False, **kwargs):
        self._uniform_only()
        return self._like(self.ints.max(axis=axis, keepdims=keepdims))

    def min(self, axis=None, out=None, keepdims=False, **kwargs):
        self._uniform_only()
        return self._like(self.ints.min(axis=axis, keepdims=keepdims))

    def argmax(self, axis=None, out=None, keepdims=False):
        self._uniform_only()
        return self.ints.argmax(axis=axis, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        self._uniform_only()
        return self.ints.argmin(axis=axis, keepdims=keepdims)

    @property
    def data(self):
        """The address of the first element as ``.ptr`` and of the owning allocation as
        ``.mem.ptr`` (CuPy's spelling, which numtorch reads for arrays that are not NumPy's).
        There is deliberately no ``__array_interface__``: NumPy would read the raw integers
        through it as an ordinary array."""
        owner = self.ints
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        return _Address(self.ints.__array_interface__["data"][0],
                        _Address(owner.__array_interface__["data"][0], None))

    # -- comparisons (on the values) and arithmetic (refused) -----------------------------
    def _compare(self, other, op):
        other = dequantize_array(other) if isinstance(other, QArray) else other
        return op(dequantize_array(self), other)

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    __hash__ = None

    def _refuse(self, *args, **kwargs):
        if args and not isinstance(args[0], QArray) and _running_op() in _SCALAR_FORMS:
            # torch makes the output before it refuses the operator: with a number
            # operand that output is strided, which quantized tensors are not
            raise RuntimeError(_EMPTY_STRIDED)
        raise not_supported()

    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
                  "or", "xor", "lshift", "rshift"):
        for _form in ("__{}__", "__r{}__", "__i{}__"):
            locals()[_form.format(_name)] = _refuse
    __neg__ = __pos__ = __abs__ = __invert__ = _refuse
    del _name, _form

    def sort(self, axis=-1, kind=None, order=None, **kwargs):
        self._uniform_only()
        self.ints.sort(axis=axis, kind=kind)

    def argsort(self, axis=-1, kind=None, order=None, **kwargs):
        self._uniform_only()
        return self.ints.argsort(axis=axis, kind=kind)

    def take(self, indices, axis=None, **kwargs):
        self._uniform_only()
        return self._like(self.ints.take(indices, axis=axis))

    def repeat(self, repeats, axis=None):
        self._uniform_only()
        return self._like(self.ints.repeat(repeats, axis=axis))

    def nonzero(self):
        raise not_supported("nonzero")

    # -- NumPy's protocols -----------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__
        if method == "__call__" and name in _COMPARISONS and "out" not in kwargs:
            args = [dequantize_array(a) if isinstance(a, QArray) else a for a in inputs]
            return ufunc(*args, **kwargs)
        if method == "__call__" and name in ("maximum", "minimum") and len(inputs) == 2 and \
                self is inputs[0] and "out" not in kwargs:
            return self._like(ufunc(self.ints, self._on_grid(inputs[1])))
        if method == "reduce" and name in ("maximum", "minimum") and len(inputs) == 1:
            self._uniform_only()
            kwargs.pop("out", None)
            return self._like(ufunc.reduce(self.ints, **kwargs))
        raise not_supported(_ATEN_NAMES.get(name, name))

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is None:
            raise not_supported(func.__name__)
        return handler(*args, **kwargs)


_COMPARISONS = frozenset(("equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"))
_ATEN_NAMES = {"add": "add.out", "subtract": "sub.out", "multiply": "mul.out",
               "true_divide": "div.out", "absolute": "abs.out", "negative": "neg.out",
               "sign": "sign.out", "exp": "exp.out", "log": "log.out", "sqrt": "sqrt.out"}


class _Address:
    __slots__ = ("ptr", "mem")

    def __init__(self, ptr, mem):
        self.ptr, self.mem = ptr, mem


def _refusing(name):
    def refuse(self, *args, **kwargs):
        raise not_supported(name)

    refuse.__name__ = name
    return refuse


# every other ndarray method refuses with torch's error instead of an AttributeError
for _name in dir(np.ndarray):
    if not _name.startswith("_") and not hasattr(QArray, _name):
        setattr(QArray, _name, _refusing(_name))
del _name


# -- NumPy functions a QArray answers (its integers, same quantizer) -------------------------

_FUNCTIONS = {}


def _implements(*funcs):
    def register(handler):
        for f in funcs:
            _FUNCTIONS[f] = handler
        return handler
    return register


@_implements(np.transpose)
def _transpose(a, axes=None):
    return a.transpose() if axes is None else a.transpose(axes)


@_implements(np.moveaxis)
def _moveaxis(a, source, destination):
    return a.transpose(_moved_order(a.ndim, source, destination))


def _moved_order(ndim, source, destination):
    source = [source] if isinstance(source, (int, np.integer)) else list(source)
    destination = [destination] if isinstance(destination, (int, np.integer)) \
        else list(destination)
    source = [s % ndim for s in source]
    destination = [d % ndim for d in destination]
    order = [n for n in range(ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tuple(order)


@_implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    return a.swapaxes(axis1, axis2)


@_implements(np.reshape)
def _reshape(a, *args, **kwargs):
    shape = kwargs.pop("shape", kwargs.pop("newshape", None))
    if shape is None:
        shape, args = args[0], args[1:]
    return a.reshape(shape, *args, **kwargs)


@_implements(np.ravel)
def _ravel(a, order="C"):
    return a.ravel(order)


@_implements(np.expand_dims)
def _expand_dims(a, axis):
    ints = np.expand_dims(a.ints, axis)
    return a._like(ints, a._channel_moved(ints.shape))


@_implements(np.squeeze)
def _squeeze(a, axis=None):
    return a.squeeze(axis)


@_implements(np.broadcast_to)
def _broadcast_to(a, shape, subok=False):
    ints = np.broadcast_to(a.ints, shape)
    a._uniform_only(ints.shape == a.ints.shape)
    return a._like(ints)


@_implements(np.ascontiguousarray, np.asfortranarray, np.copy)
def _copy_like(a, *args, **kwargs):
    return a._like(np.copy(a.ints, order="F" if kwargs.get("order") == "F" else "K")
                   if kwargs.get("order") else np.ascontiguousarray(a.ints))


@_implements(np.flip)
def _flip(a, axis=None):
    a._uniform_only()
    return a._like(np.flip(a.ints, axis))


@_implements(np.repeat)
def _repeat(a, repeats, axis=None):
    return a.repeat(repeats, axis)


@_implements(np.tile)
def _tile(a, reps):
    a._uniform_only()
    return a._like(np.tile(a.ints, reps))


@_implements(np.take)
def _take(a, indices, axis=None, **kwargs):
    return a.take(indices, axis=axis)


@_implements(np.take_along_axis)
def _take_along_axis(arr, indices, axis=None):
    arr._uniform_only()
    return arr._like(np.take_along_axis(arr.ints, indices, axis))


@_implements(np.sort)
def _sort(a, axis=-1, kind=None, order=None, **kwargs):
    a._uniform_only()
    return a._like(np.sort(a.ints, axis=axis, kind=kind))


@_implements(np.argsort)
def _argsort(a, axis=-1, kind=None, order=None, **kwargs):
    return a.argsort(axis=axis, kind=kind)


@_implements(np.partition)
def _partition(a, kth, axis=-1, **kwargs):
    a._uniform_only()
    return a._like(np.partition(a.ints, kth, axis=axis))


@_implements(np.argpartition)
def _argpartition(a, kth, axis=-1, **kwargs):
    a._uniform_only()
    return np.argpartition(a.ints, kth, axis=axis)


@_implements(np.amax, np.max)
def _amax(a, axis=None, out=None, keepdims=False, **kwargs):
    return a.max(axis=axis, keepdims=keepdims)


@_implements(np.amin, np.min)
def _amin(a, axis=None, out=None, keepdims=False, **kwargs):
    return a.min(axis=axis, keepdims=keepdims)


@_implements(np.argmax)
def _argmax(a, axis=None, out=None, keepdims=False):
    # torch's max(dim) takes the position of the largest integer, but has no quantized argmax
    if _running_op() == "argreduce":
        raise not_supported("argmax.out")
    return a.argmax(axis=axis, keepdims=keepdims)


@_implements(np.argmin)
def _argmin(a, axis=None, out=None, keepdims=False):
    if _running_op() == "argreduce":
        raise not_supported("argmin.out")
    return a.argmin(axis=axis, keepdims=keepdims)


@_implements(np.shape)
def _shape(a):
    return a.shape


@_implements(np.ndim)
def _ndim(a):
    return a.ndim


@_implements(np.size)
def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


@_implements(np.shares_memory, np.may_share_memory)
def _shares(a, b, *args, **kwargs):
    a = a.ints if isinstance(a, QArray) else a
    b = b.ints if isinstance(b, QArray) else b
    return np.shares_memory(a, b, *args, **kwargs)


@_implements(np.array_equal)
def _array_equal(a1, a2, equal_nan=False):
    if isinstance(a1, QArray) and isinstance(a2, QArray):
        return a1.qdtype is a2.qdtype and a1.quantizer.same_as(a2.quantizer) and \
            np.array_equal(a1.ints, a2.ints)
    raise not_supported("equal")


def join(arrays, axis, stack):
    """``concatenate``/``stack`` of quantized arrays: every input is requantized to the
    first one's parameters (torch's quantized cat); per-channel inputs are refused."""
    first = arrays[0]
    if not all(isinstance(a, QArray) for a in arrays):
        raise not_supported("qscheme")
    if first.quantizer.per_channel:
        raise RuntimeError(_CAT_PER_CHANNEL)
    parts = []
    for a in arrays:
        if a.quantizer.per_channel:
            raise RuntimeError("Expected quantizer->qscheme() == kPerTensorAffine to be true, "
                               "but got false.  (Could this error message be improved?  If "
                               "so, please report an enhancement request to PyTorch.)")
        if a.qdtype is not first.qdtype:
            raise RuntimeError("Expected all tensors to have the same dtype")
        parts.append(a.ints if a.quantizer.same_as(first.quantizer)
                     else _quantize_like(first, dequantize_array(a)))
    fn = np.stack if stack else np.concatenate
    return first._like(fn(parts, axis=axis))


@_implements(np.concatenate)
def _concatenate(arrays, axis=0, out=None, **kwargs):
    return join(list(arrays), axis, False)


@_implements(np.stack)
def _stack(arrays, axis=0, out=None, **kwargs):
    return join(list(arrays), axis, True)


@_implements(np.clip)
def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    lo = None if a_min is None else a._on_grid(a_min)
    hi = None if a_max is None else a._on_grid(a_max)
    if lo is None and hi is None:
        return a.copy()
    return a._like(np.clip(a.ints, lo, hi))


@_implements(np.where)
def _where(condition, x=None, y=None):
    if x is None or not isinstance(x, QArray):
        if isinstance(y, QArray) and x is not None:
            return y._like(np.where(condition, y._on_grid(x), y.ints))
        raise not_supported("where")
    return x._like(np.where(condition, x.ints, x._on_grid(y)))
