"""Tensor creation filled with a value (zeros, ones, full, empty, eye and their ``_like``
forms), with the helpers every creation function shares (dtype and ``out=`` handling, number
checks). From data: ``_from_data.py``; ranges: ``_ranges.py``; samples: ``_sampling.py``.

Every function takes torch's keywords (``dtype``, ``device``, ``requires_grad``, ``out``, and the
accepted-but-meaningless ``layout`` / ``memory_format``; ``pin_memory=True`` needs CUDA, as in
torch). Without ``device`` tensors go to the default device (the CPU unless ``with
torch.device(...)`` says otherwise).
"""

import builtins

import numpy as np

from . import _compat, _dtype, _layout, backend
from ._alloc_errors import alloc_error, result_alloc_error
from ._device import default_device
from ._grad_state import FUNC_KINDS, tag_func_leaf
from ._preserve_layout import empty_preserving
from ._required_dim import check_missing, missing_arg
from ._size import parse_size
from ._tensor import Tensor, _make

__all__ = ["zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "eye", "empty_strided", "scalar_tensor", "is_tensor", "is_storage",
           "numel", "is_floating_point", "is_complex", "is_nonzero"]

# Python types accepted as a ``dtype=`` argument, and the dtype each one means in torch
_PY_DTYPES = {builtins.float: _dtype.float64, builtins.int: _dtype.int64,
              builtins.bool: _dtype.bool, builtins.complex: _dtype.complex128}
_PY_SCALARS = {builtins.float, builtins.int, builtins.bool, builtins.complex}


def dtype_arg(dtype, fn):
    """Validate a ``dtype=`` argument of ``fn``: a numtorch dtype or a Python number type."""
    if dtype is None or type(dtype) is _dtype.dtype:
        return dtype
    d = _PY_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if d is None:
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    return d


def _host(t):
    if type(t._array) is np.ndarray or backend.is_meta(t._array):  # meta stays meta
        return t._array
    return t._array.get()


def _xp(dev):
    return np if dev is None or dev.type == "cpu" else backend.get_xp(dev)


def _finish(arr, device=None, requires_grad=False, out=None):
    """Wrap ``arr``: move it to ``device`` (or the default), set ``requires_grad``, or write it
    into ``out``."""
    dev = default_device(device)
    if dev is not None and dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    if out is not None:
        return write_out(out, arr)
    t = _make(arr)
    if requires_grad:
        if arr.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
        if FUNC_KINDS:  # (made inside a torch.func transform)
            tag_func_leaf(t)
    return t


_PIN_ERROR = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
              "allocator is available on this system.")


def check_pin_memory(pin_memory, out=None):
    """torch's error for ``pin_memory=True`` on a machine without an accelerator (CuPy here);
    a result written into ``out`` is not allocated, so it is not checked."""
    if pin_memory and out is None and backend.cupy_or_none() is None:
        raise RuntimeError(_PIN_ERROR)


def write_out(out, arr):
    """Store ``arr`` in the tensor ``out`` (resized when its shape differs) and return ``out``."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if out.requires_grad:
        raise RuntimeError("out=... arguments don't support automatic differentiation, but one "
                           "of the arguments requires grad.")
    if type(arr) is not type(out._array):
        arr = backend.to_device(arr, out.device)
    if arr.shape == out._array.shape:
        out._array[...] = arr
    else:
        out._array = arr.astype(out._array.dtype, copy=False)
    out._vc[0] += 1
    return out


# -- overflow checks for numbers written into a dtype --------------------------------------------
# torch names the target type in two spellings: C types (full, fill) and dtype names (tensor)
_C_TYPE = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
           "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double",
           "bfloat16": "c10::BFloat16"}


def _check_fits(values, dt, c_names):
    """torch's "value cannot be converted ... without overflow" check for numbers.

    Args:
        values (ndarray): the numbers (float64, int64 or complex128) before conversion.
        dt (dtype): the target dtype.
        c_names (bool): use C type names in the message (as ``full`` does).
    """
    if dt is _dtype.bool or values.size == 0:
        return
    if (dt._category == _dtype._INT and values.dtype.kind == "i"
            and np.dtype(dt.np).kind == "i" and values.dtype.itemsize <= dt.itemsize):
        return  # every value fits: no range scan (torch.tensor(list of ints) once per sample)
    name = _C_TYPE.get(dt.name, dt.name) if c_names else dt.name
    kind = values.dtype.kind
    if kind == "c":
        if dt._category != _dtype._COMPLEX and bool((values.imag != 0).any()):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        values = values.real
        kind = values.dtype.kind
    if dt._category == _dtype._INT:
        info = np.iinfo(dt.np)
        if kind == "f":
            if not bool(np.isfinite(values).all()):
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            # the float itself must lie in the type's range (127.9 does not fit int8 although
            # it truncates to 127); unsigned types take no negatives
            ok = (values >= float(info.min)) & (values <= float(info.max))
        else:
            # integers into an unsigned type may be negative down to -max (they wrap around)
            lo = -int(info.max) if info.min == 0 else int(info.min)
            ok = (values >= lo) & (values <= int(info.max))
        if not bool(ok.all()):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    elif dt is _dtype.float32 and kind == "f" or dt in _REDUCED_MAX and kind in "fi":
        values = values.astype(np.float64, copy=False)  # (abs of int64's min overflows)
        finite = values[np.isfinite(values)]
        top = _REDUCED_MAX.get(dt) or float(np.finfo(dt.np).max)
        if finite.size and float(np.abs(finite).max()) > top:
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


# the largest finite half-precision values (also integers beyond them overflow)
_REDUCED_MAX = {_dtype.float16: 65504.0, _dtype.bfloat16: 3.3895313892515355e38}


def number_as(value, dt, fn="fill_", keep_python=False):
    """A number written into a ``dt`` tensor (``fill_``, ``x[i] = v``, ``masked_fill``...), as
    a NumPy scalar of ``dt``: torch's overflow check, then a C cast (negative integers wrap
    into unsigned types).

    Args:
        value: a Python or NumPy number.
        dt (dtype): the tensor's dtype.
        fn (str): ``"setitem"`` for ``x[i] = v``, whose message for integers beyond int64
            differs from the other writers', and whose float16/bfloat16 writes are not
            checked (torch casts those from a double tensor).
        keep_python (bool): return a fitting Python number as it is (for a NumPy assignment,
            which casts it as C does, faster than from a NumPy scalar).
    """
    t = type(value)
    # the fast path (x[i] = 0.5 and fill_(0) sit in loops): a Python number that fits; NumPy's
    # own assignment then casts it as C does, so x[i] = v may keep the Python number
    if t is builtins.float or t is builtins.int and -2 ** 63 <= value < 2 ** 63:
        limits = _LIMITS.get(dt)
        if limits is not None and limits[0] <= value <= limits[1] and (
                t is builtins.int or dt._category == _dtype._FLOAT):
            return value if keep_python or fn == "setitem" else dt.np.type(value)
    if dt._category == _dtype._QUANT:  # written into a quantized tensor, which quantizes it
        return builtins.float(value)
    if dt in _dtype._FLOAT8:  # torch's float8 conversion (saturation, NaN bits), unchecked
        from ._float8 import to_float8

        return to_float8(np.asarray(value, np.float64), dt.np)[()]
    if t is builtins.int or t is builtins.bool or isinstance(value, (builtins.int, np.integer)):
        if not -2 ** 63 <= value < 2 ** 63:
            if fn == "setitem":
                raise ValueError("Overflow when unpacking long long")
            if not 0 <= value < 2 ** 64:
                raise _scalar_overflow(value)
    if fn == "setitem" and dt in _REDUCED_MAX:
        return unchecked_half(value, dt)
    _check_fits(np.asarray(value), dt, c_names=True)
    return _cast_scalar(value, dt)


def _scalar_overflow(value):
    """torch's error for a Python int that its Scalar (an int64 or a uint64) cannot hold."""
    if value < 0:
        return OverflowError("can't convert negative int to unsigned")
    return OverflowError("int too big to convert")


def unchecked_half(value, dt):
    """``value`` rounded into float16/bfloat16 as torch does where it converts through double
    (to inf, unchecked); only a complex number with an imaginary part is refused."""
    if isinstance(value, (builtins.complex, np.complexfloating)) and value.imag != 0:
        raise RuntimeError("value cannot be converted to type double without overflow")
    return _cast_scalar(value, dt)


_INF = float("inf")
# the values a Python number may take and need no further check
_LIMITS = {_dtype.float64: (-_INF, _INF), _dtype.float32: (-3.4028234663852886e38,
                                                            3.4028234663852886e38),
           _dtype.float16: (-65504.0, 65504.0)}
_LIMITS.update({d: (int(np.iinfo(d.np).min), int(np.iinfo(d.np).max))
                for d in (_dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64, _dtype.uint8)})


# -- filled ----------------------------------------------------------------------------------
def _factory_dtype(dtype, out, fn):
    if dtype is None:
        return out.dtype if out is not None else _dtype.get_default_dtype()
    return dtype_arg(dtype, fn)


def _filled(fn, size, kwargs, dtype, device, requires_grad, out, make, pin_memory=False,
            layout=None):
    shape = parse_size(fn, size, kwargs.pop("size", None),
                       "zeros: Dimension size must be non-negative." if fn == "zeros" else None)
    check_pin_memory(pin_memory, out)
    if kwargs:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dt = _factory_dtype(dtype, out, fn)
    if layout is _layout.sparse_coo:  # zeros/empty: no stored entries; ones: torch refuses
        if fn == "ones":
            raise RuntimeError("full(...) is not implemented for sparse layout")
        from .ops.sparse_ops import sparse_coo_tensor

        return sparse_coo_tensor(None, None, shape, dtype=dt, device=device,
                                 requires_grad=requires_grad)
    dev = default_device(device)
    try:
        arr = make(_xp(dev), shape, dt.np)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, shape) from None
    return _finish(arr, dev, requires_grad, out)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs):
    """Return a tensor of zeros of the given shape.

    Args:
        *size (int...): the shape, as ints or one sequence (``size=`` also works).
        dtype (dtype, optional): the dtype. Default: the default float dtype.
        device (device, optional): where to put the result.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> torch.zeros(2, 3).shape
        torch.Size([2, 3])
    """
    return _filled("zeros", size, kwargs, dtype, device, requires_grad, out,
                   lambda xp, s, d: xp.zeros(s, dtype=d), pin_memory, layout)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None, **kwargs):
    """Return a tensor of ones of the given shape (see :func:`zeros` for the arguments).

    Example:
        >>> torch.ones(2, dtype=torch.int64)
        tensor([1, 1])
    """
    return _filled("ones", size, kwargs, dtype, device, requires_grad, out,
                   lambda xp, s, d: xp.ones(s, dtype=d), pin_memory, layout)


def fill_uninitialized(arr):
    """``arr`` filled as torch fills new memory in deterministic mode
    (``numtorch.utils.deterministic``): NaN, or the integer type's largest value; unchanged
    otherwise."""
    if not _compat._flags["deterministic"] or not arr.size:
        return arr
    from .utils import deterministic

    if not deterministic.fill_uninitialized_memory or not hasattr(arr, "fill"):
        return arr
    kind = arr.dtype.kind
    if kind in "fcV":  # V: bfloat16 and the float8 types (ml_dtypes)
        arr.fill(float("nan"))
    elif kind == "b":
        arr.fill(True)
    elif kind in "iu":
        arr.fill(np.iinfo(arr.dtype).max)
    return arr


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kwargs):
    """Return an uninitialised tensor of the given shape (see :func:`zeros` for the arguments).

    Example:
        >>> torch.empty(2, 3).shape
        torch.Size([2, 3])
    """
    made = _filled("empty", size, kwargs, dtype, device, requires_grad, out,
                   lambda xp, s, d: _in_format(xp.empty(s, dtype=d), memory_format),
                   pin_memory, layout)
    if _compat._flags["deterministic"] and made.layout is _layout.strided:
        fill_uninitialized(made._array)
    return made


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Return an uninitialised tensor with the given shape and strides (in elements).

    Example:
        >>> torch.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    shape = parse_size("empty_strided", (size,))
    strides = parse_size("empty_strided", (stride,))
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of "
                           f"strides ({len(strides)})")
    check_pin_memory(pin_memory)
    dt = _factory_dtype(dtype, None, "empty_strided")
    dev = default_device(device)
    xp = _xp(dev)
    # one buffer just large enough for the furthest element the strides can reach
    need = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    try:
        buf = fill_uninitialized(xp.empty(max(need, 1), dtype=dt.np))
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, (need,), dt.itemsize) from None
    arr = backend.helpers_for(xp).as_strided(buf, shape,
                                             tuple(s * dt.itemsize for s in strides))
    return _finish(arr, dev, requires_grad)


def _is_number(x):
    return isinstance(x, (builtins.int, builtins.float, builtins.complex, np.number, np.bool_))


def _fill_dtype(value):
    """The dtype ``full`` infers from its fill value (NumPy scalars count by their kind)."""
    if isinstance(value, builtins.bool):
        return _dtype.bool
    if isinstance(value, np.bool_):  # torch reads NumPy bools as floats here
        return _dtype.get_default_dtype()
    if isinstance(value, (builtins.int, np.integer)):
        return _dtype.int64
    if isinstance(value, (builtins.float, np.floating)):
        return _dtype.get_default_dtype()
    return _dtype.default_complex()


def _fill_value(value, fn, position=2, name="fill_value"):
    if isinstance(value, Tensor) and value._array.ndim == 0:
        value = value.item()  # (torch reads a 0-d tensor as a number, any other as a Tensor)
    if not _is_number(value):
        from ._generator_args import type_name  # torch.dtype, numpy.str_ as torch names them

        check_missing(fn, **{name: value})  # (left out: torch's parser words)

        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Number, "
                        f"not {type_name(value)}")
    if type(value) is builtins.int and not -2 ** 63 <= value < 2 ** 64:
        raise _scalar_overflow(value)
    return value.item() if isinstance(value, np.generic) else value


def full(size=missing_arg, fill_value=missing_arg, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Return a tensor of the given shape filled with ``fill_value``.

    Without ``dtype`` the dtype follows the value: bool, int64, the default float dtype or
    the default complex dtype.

    Example:
        >>> torch.full((2,), 7)
        tensor([7, 7])
        >>> torch.full((2,), 0.5)
        tensor([0.5000, 0.5000])
    """
    if not isinstance(size, (tuple, list)):
        check_missing("full", size=size, fill_value=fill_value)
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    shape = parse_size("full", (size,))
    value = _fill_value(fill_value, "full")
    check_pin_memory(pin_memory, out)
    dt = dtype_arg(dtype, "full") or (out.dtype if out is not None else _fill_dtype(
        value if isinstance(fill_value, Tensor) else fill_value))
    _check_fits(np.asarray(value), dt, c_names=True)
    dev = default_device(device)
    try:
        arr = _xp(dev).full(shape, _cast_scalar(value, dt), dtype=dt.np)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, shape) from None
    return _finish(arr, dev, requires_grad, out)


def _cast_scalar(value, dt):
    """``value`` converted to ``dt`` as a C cast does (integers wrap into unsigned types)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if isinstance(value, builtins.complex) and dt._category != _dtype._COMPLEX:
            value = value != 0 if dt is _dtype.bool else value.real
        return np.asarray(value).astype(dt.np)[()]


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Return a 0-d tensor holding ``s`` (the default float dtype unless ``dtype`` is given).

    Example:
        >>> torch.scalar_tensor(3)
        tensor(3.)
    """
    value = _fill_value(s, "scalar_tensor", 1, "s")
    check_pin_memory(pin_memory)
    dt = dtype_arg(dtype, "scalar_tensor") or _dtype.get_default_dtype()
    if dt in _REDUCED_MAX:  # torch rounds into half precision unchecked (to inf)
        return _finish(np.array(unchecked_half(value, dt)), device, requires_grad)
    _check_fits(np.asarray(value), dt, c_names=True)
    return _finish(np.array(_cast_scalar(value, dt)), device, requires_grad)


def _like(input, dtype, device, memory_format, fn, pin_memory=False):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    check_pin_memory(pin_memory)
    dt = dtype_arg(dtype, fn) or input.dtype
    dev = input.device if device is None else default_device(device)
    # torch's default preserve_format keeps the input's memory layout; NumPy's order="K" does
    order = "C" if memory_format is not None and "contiguous" in str(memory_format) else "K"
    if memory_format in (_layout.channels_last, _layout.channels_last_3d):
        order = memory_format  # applied by _made_like
    return dt, dev, order


def _sparse_like(input, dt, layout, requires_grad):
    """zeros_like / empty_like of a sparse COO tensor: one with no stored entries (its sparse
    and dense dims kept), or dense zeros when ``layout=torch.strided``."""
    shape = tuple(input.shape)
    if layout is _layout.strided:
        return _finish(np.zeros(shape, dt.np), None, requires_grad)
    from .ops.sparse_ops import make as make_sparse

    sd = input.sparse_dim()
    values = _make(np.zeros((0,) + shape[sd:], dt.np))
    out = make_sparse(np.zeros((sd, 0), np.int64), values, shape, True)
    return out.requires_grad_() if requires_grad else out


def _made_like(input, dt, dev, order, requires_grad, make):
    fmt = None if isinstance(order, str) else order
    try:
        if dev == input.device:
            arr = make(backend.xp_of(input._array), input._array, dt.np, "C" if fmt else order)
        else:
            arr = make(_xp(dev), _xp(dev).empty(input._array.shape, dtype=dt.np), dt.np, "C")
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, input._array.shape, dt.itemsize) from None
    if order == "K" and dev == input.device:
        arr = _preserving(input._array, arr)
    return _finish(_in_format(arr, fmt), dev, requires_grad)


def _preserving(like, arr):
    """``arr`` (made like ``like``) in torch's preserve_format layout: NumPy's order "K"
    ranks an expanded (stride-0) dim otherwise (see _preserve_layout.py)."""
    if like.flags.c_contiguous and 1 not in like.shape or type(like) is not type(arr) or not (
            type(like) is np.ndarray or backend.is_device_array(like)):
        return arr
    out = empty_preserving(backend.xp_of(arr), like, arr.dtype)
    if out.strides != arr.strides:
        out[...] = arr
        return out
    return arr


def _in_format(arr, memory_format):
    """``arr`` in the channels-last order ``memory_format`` asks for (else unchanged)."""
    return arr if memory_format is None else _layout.array_in_format(arr, memory_format)


def _quantized_like(input, dtype, fill):
    """ones_like / full_like / empty_like of a quantized tensor: its quantizer kept, ``fill``
    quantized onto it (torch refuses another dtype, and zeros_like, which runs zero_)."""
    if dtype is not None and dtype is not input.dtype:
        cpp = _dtype._CPP_TYPE
        raise RuntimeError(
            "It is currently not supported to specify a dtype that doesn't match the input "
            f"tensor's dtype via empty_like.  Specified: {cpp.get(dtype.name, 'c10::' + dtype.name)}"
            f" Input tensor's dtype: c10::{input.dtype.name}")
    if fill is None:
        from ._quantized_array import not_supported

        raise not_supported("zero_")
    out = input.detach().clone()
    out._array[...] = fill
    return out


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False, memory_format=None):
    """Return zeros with the shape (and by default the dtype and device) of ``input``.

    Example:
        >>> torch.zeros_like(torch.ones(2, dtype=torch.int32))
        tensor([0, 0], dtype=torch.int32)
    """
    if isinstance(input, Tensor) and input.is_quantized:
        return _quantized_like(input, dtype, None)
    dt, dev, order = _like(input, dtype, device, memory_format, "zeros_like", pin_memory)
    if input.__class__ is not Tensor and input.layout is _layout.sparse_coo:
        return _sparse_like(input, dt, layout, requires_grad)
    return _made_like(input, dt, dev, order, requires_grad,
                      lambda xp, a, d, o: xp.zeros_like(a, dtype=d, order=o))


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              pin_memory=False, memory_format=None):
    """Return ones with the shape (and by default the dtype and device) of ``input``.

    Example:
        >>> torch.ones_like(torch.zeros(2))
        tensor([1., 1.])
    """
    if isinstance(input, Tensor) and input.is_quantized:
        return _quantized_like(input, dtype, 1.0)
    dt, dev, order = _like(input, dtype, device, memory_format, "ones_like", pin_memory)
    return _made_like(input, dt, dev, order, requires_grad,
                      lambda xp, a, d, o: xp.ones_like(a, dtype=d, order=o))


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False, memory_format=None):
    """Return an uninitialised tensor shaped (and typed) like ``input``.

    Example:
        >>> torch.empty_like(torch.zeros(2, 3)).shape
        torch.Size([2, 3])
    """
    if isinstance(input, Tensor) and input.is_quantized:
        return _quantized_like(input, dtype, 0.0)
    dt, dev, order = _like(input, dtype, device, memory_format, "empty_like", pin_memory)
    if input.__class__ is not Tensor and input.layout is _layout.sparse_coo:
        return _sparse_like(input, dt, layout, requires_grad)
    return _made_like(input, dt, dev, order, requires_grad,
                      lambda xp, a, d, o: fill_uninitialized(xp.empty_like(a, dtype=d, order=o)))


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, pin_memory=False, memory_format=None):
    """Return ``fill_value`` everywhere, with the shape and (by default) dtype of ``input``.

    Example:
        >>> torch.full_like(torch.zeros(2, dtype=torch.int64), 2.7)
        tensor([2, 2])
    """
    if isinstance(input, Tensor) and input.is_quantized:
        return _quantized_like(input, dtype, float(fill_value))
    dt, dev, order = _like(input, dtype, device, memory_format, "full_like", pin_memory)
    value = _fill_value(fill_value, "full_like")
    _check_fits(np.asarray(value), dt, c_names=True)
    value = _cast_scalar(value, dt)

    def make(xp, a, d, o):
        return xp.full_like(a, value, dtype=d, order=o)

    return _made_like(input, dt, dev, order, requires_grad, make)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """Return a 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: ``n``.

    Example:
        >>> torch.eye(2, 3)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    check_pin_memory(pin_memory, out)
    n = _int_arg(n, "n", "eye", 1)
    m = n if m is None else _int_arg(m, "m", "eye", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = _factory_dtype(dtype, out, "eye")
    dev = default_device(device)
    try:
        arr = _xp(dev).eye(n, m, dtype=dt.np)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, (n, m)) from None
    return _finish(arr, dev, requires_grad, out)


def _int_arg(x, what, fn, position):
    if isinstance(x, (builtins.bool, builtins.float)) or not hasattr(x, "__index__") or \
            (isinstance(x, Tensor) and x.dtype._category != _dtype._INT):
        raise TypeError(f"{fn}(): argument '{what}' (position {position}) must be int, not "
                        f"{type(x).__name__}")
    value = x.__index__()
    if not -2 ** 63 <= value < 2 ** 63:  # (torch's parser reads an int argument as int64)
        raise ValueError("Overflow when unpacking long long")
    return value


# -- predicates -----------------------------------------------------------------------------------
def is_tensor(obj):
    """Return True if ``obj`` is a numtorch Tensor.

    Example:
        >>> torch.is_tensor(torch.zeros(1)), torch.is_tensor([0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def is_storage(obj):
    """Return True if ``obj`` is a numtorch storage object."""
    return type(obj).__name__.endswith("Storage")


def numel(input):
    """Return the number of elements of ``input``.

    Example:
        >>> torch.numel(torch.zeros(2, 3))
        6
    """
    return input.numel()


def is_floating_point(input):
    """Return True if ``input`` has a floating point dtype."""
    return input.is_floating_point()


def is_complex(input):
    """Return True if ``input`` has a complex dtype."""
    return input.is_complex()


def is_nonzero(input):
    """Return ``bool(input)`` for a one-element tensor; torch's RuntimeError otherwise.

    Example:
        >>> torch.is_nonzero(torch.tensor([1.]))
        True
    """
    if input.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with "
                           f"{'no values' if input.numel() == 0 else 'more than one value'} is "
                           "ambiguous")
    return bool(input.item())
