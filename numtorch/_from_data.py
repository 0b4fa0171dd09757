"""Tensors from data: ``tensor`` (copies Python data, NumPy arrays and tensors), ``as_tensor``
and ``asarray`` (share memory when they can) and ``from_numpy`` (always shares).

Python data gets torch's dtype inference (bool < int < float < complex over all its leaves,
with the default float dtype for floats) and torch's errors for ragged or mixed data.
"""

import builtins
import warnings

import numpy as np

from . import _dtype
from ._creation import _PY_SCALARS, _check_fits, _finish, _host, check_pin_memory, dtype_arg
from ._float8 import FLOAT8, to_float8
from ._required_dim import check_missing, missing_arg
from ._tensor import Tensor, _factory_requires_grad, _make
from ._warn_once import warn_once

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy"]


def _data_complex():
    """The dtype torch.tensor() gives Python complex data: there is no complex bfloat16."""
    if _dtype.get_default_dtype() is _dtype.bfloat16:
        raise RuntimeError("invalid default scalar type for complex")
    return _dtype.default_complex()


def _scalar_dtype(x):
    """torch's dtype for one element of Python data (numbers, NumPy scalars and arrays)."""
    t = type(x)
    if t is builtins.float:
        return _dtype.get_default_dtype()
    if t is builtins.int:
        return _dtype.int64
    if t is builtins.bool:
        return _dtype.bool
    if t is builtins.complex:
        return _data_complex()
    if isinstance(x, (np.generic, np.ndarray)):
        return _dtype.from_numpy_dtype(x.dtype)
    if isinstance(x, Tensor):
        return x.dtype
    return None


def _leaf_types(seq, out):
    """Collect the types of the non-sequence items of nested lists/tuples into ``out``."""
    types = set(map(type, seq))
    if types <= _PY_SCALARS:
        out |= types
        return
    for x in seq:
        if isinstance(x, (list, tuple)):
            _leaf_types(x, out)
        else:
            out.add(type(x))


def _zero_d_arrays(seq):
    # torch sizes nested data by its first entries: an array there is read as a sequence
    x = seq
    while isinstance(x, (list, tuple)) and x:
        x = x[0]
    if isinstance(x, np.ndarray) and x.ndim == 0:
        raise TypeError("len() of unsized object")


def _unwrap_tensors(x):
    """Replace one-element tensors in nested data by NumPy scalars of their dtype."""
    if isinstance(x, Tensor):
        if x.numel() != 1:  # torch reads an integer tensor as an index, others as numbers
            if x.dtype._category == _dtype._INT:
                raise TypeError("only integer tensors of a single element can be converted to "
                                "an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        if x.requires_grad:
            from . import _tensor

            if not _tensor._SCALAR_WARNED[0]:  # (torch reads each element as a number)
                from .ops._util import user_stacklevel

                _tensor._SCALAR_WARNED[0] = True
                warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead "
                              "to unexpected behavior.\nConsider using tensor.detach() first.",
                              UserWarning, stacklevel=user_stacklevel())
        return _host(x).reshape(-1)[0]
    if isinstance(x, (list, tuple)):
        return [_unwrap_tensors(v) for v in x]
    return x


def _promoted_dtype(x, acc):
    """Promote ``acc`` with the dtype of every leaf of nested data ``x``."""
    if isinstance(x, (list, tuple)):
        for v in x:
            acc = _promoted_dtype(v, acc)
        return acc
    d = _scalar_dtype(x)
    if d is None:
        return acc
    return d if acc is None else _dtype.promote_types(acc, d)


def _shape_error(data):
    """Raise torch's error for nested sequences that do not form a rectangular array."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def check(seq, d):
        if len(seq) != shape[d]:
            raise ValueError(f"expected sequence of length {shape[d]} at dim {d} "
                             f"(got {len(seq)})")
        for item in seq:
            if d + 1 < len(shape):
                if not isinstance(item, (list, tuple)):
                    raise TypeError("not a sequence")
                check(item, d + 1)
            elif isinstance(item, (list, tuple)):
                raise TypeError(f"'{type(item).__name__}' object cannot be interpreted as an "
                                "integer")

    check(data, 0)
    raise ValueError("tensor(): the nested sequences do not form a rectangular array")


def _str_error(data, kind):
    """torch reads a string met first as one more (character) dimension, later as a bad
    element."""
    x = data
    while isinstance(x, (list, tuple)) and x:
        x = x[0]
    if isinstance(x, str):
        raise ValueError("too many dimensions 'str'")
    raise TypeError(f"new(): invalid data type '{kind}'")


def _type_name(x):
    """The type name torch's messages give: a class defined in Python by its bare name, a type
    defined in C by its full name (``decimal.Decimal``, ``numpy.str_``)."""
    t = type(x)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # (Py_TPFLAGS_HEAPTYPE)
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _object_error(arr):
    for v in arr.reshape(-1):
        if isinstance(v, builtins.int) and not -(1 << 63) <= v < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
        if isinstance(v, (str, bytes)):
            _str_error(arr.tolist(), type(v).__name__)
        if _scalar_dtype(v) is None and not isinstance(v, (list, tuple)):
            raise RuntimeError(f"Could not infer dtype of {_type_name(v)}")
    raise TypeError("tensor(): could not infer a dtype from the given data")


def _check_byte_order(arr):
    if not arr.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")


def is_sequence(x):
    """Whether torch reads ``x`` as a sequence of elements: it has ``__len__`` and
    ``__getitem__`` and is not a string, bytes, mapping or tensor."""
    t = type(x)
    return (hasattr(t, "__getitem__") and hasattr(t, "__len__")
            and not isinstance(x, (str, bytes, dict, Tensor, np.ndarray))
            and not hasattr(t, "keys"))


def _warn_ndarray_list():
    from ._warn_once import warn_once
    from .ops._util import user_stacklevel

    warn_once("ndarray-list", "Creating a tensor from a list of numpy.ndarrays is extremely "
              "slow. Please consider converting the list to a single numpy.ndarray with "
              "numpy.array() before converting to a tensor.", UserWarning,
              stacklevel=user_stacklevel())


def _from_data(data):
    """A NumPy array holding Python data, and the dtype torch infers for that data."""
    if isinstance(data, np.ndarray):
        data = np.asarray(data)  # a subclass (np.memmap...) as the plain array over its memory
        _check_byte_order(data)
        return data, _dtype.from_numpy_dtype(data.dtype)
    if isinstance(data, np.generic):
        if isinstance(data, (np.str_, np.bytes_)):
            raise TypeError(f"new(): invalid data type 'numpy.{type(data).__name__}'")
        return np.asarray(data), _dtype.from_numpy_dtype(data.dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if type(data) in _PY_SCALARS:
        if type(data) is builtins.int and not -(1 << 63) <= data < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
        return np.asarray(data), _scalar_dtype(data)
    if not isinstance(data, (list, tuple)) and is_sequence(data):
        data = list(data)  # deque, range, array.array, UserList...: read as a list, as torch
    if not isinstance(data, (list, tuple)):
        raise RuntimeError(f"Could not infer dtype of {_type_name(data)}")
    if data and isinstance(data[0], np.ndarray):
        _warn_ndarray_list()
    types = set()
    _leaf_types(data, types)
    if any(issubclass(t, np.ndarray) for t in types):
        # torch reads an array inside a list as a sequence: a 0-d one has no length
        _zero_d_arrays(data)
    inferred = None
    if not types <= _PY_SCALARS:
        if Tensor in types or any(issubclass(t, Tensor) for t in types):
            data = _unwrap_tensors(data)
        inferred = _promoted_dtype(data, None)
    try:
        arr = np.array(data)
    except ValueError:
        _shape_error(data)
    if arr.dtype == object:
        _object_error(arr)
    if arr.dtype.kind in "USV":
        _str_error(data, "str" if arr.dtype.kind == "U" else "bytes")
    if inferred is None:
        kind = arr.dtype.kind
        if kind == "u":  # only Python ints past int64's range make NumPy pick uint64
            raise ValueError("Overflow when unpacking long long")
        inferred = _data_complex() if kind == "c" else \
            {"b": _dtype.bool, "i": _dtype.int64, "f": _dtype.get_default_dtype()}[kind]
    return arr, inferred


def _convert(arr, dt):
    if arr.dtype == dt.np:
        return arr
    if arr.dtype.kind == "c" and dt._category != _dtype._COMPLEX:
        raise TypeError("must be real number, not complex")
    if dt.np in FLOAT8:
        return to_float8(arr, dt.np)
    with np.errstate(invalid="ignore", over="ignore"):
        return arr.astype(dt.np)


def _element_error(data, dt):
    """With a dtype given torch converts element by element, without inferring a dtype: a bad
    element is refused by the dtype's Python conversion."""
    for x in data:
        if isinstance(x, (list, tuple)):
            _element_error(x, dt)
        elif not isinstance(x, (builtins.bool, builtins.int, builtins.float, builtins.complex,
                                Tensor, np.generic)):
            if dt._category in (_dtype._INT, _dtype._BOOL):
                raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an "
                                "integer")
            raise TypeError(f"must be real number, not {type(x).__name__}")


def tensor(data=missing_arg, *, dtype=None, device=None, requires_grad=False, pin_memory=False,
           _caller=("torch.tensor", 2)):
    """Build a new tensor by copying ``data``: a number, nested lists/tuples, an array or a tensor.

    Python floats give the default dtype, ints int64, bools bool and complex numbers the
    default complex dtype; NumPy arrays and scalars keep their dtype, and mixed data is promoted
    as torch does.

    Args:
        data: the values.
        dtype (dtype, optional): the result dtype instead of the inferred one.
        device (device, optional): where to put the result.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> torch.tensor([[1., 2.]], requires_grad=True)
        tensor([[1., 2.]], requires_grad=True)
        >>> torch.tensor([1, 2]).dtype
        torch.int64

    """
    dt = dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        # (``_caller``: the name in the advice and the warning's stack level; new_tensor's)
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      f"requires_grad_(True), rather than {_caller[0]}(sourceTensor).",
                      UserWarning, stacklevel=_caller[1])
        arr, inferred, python_data = _host(data), data.dtype, False
        source = arr
    else:
        try:
            arr, inferred = _from_data(data)
        except ValueError as e:
            if dt is not None and dt._category in (_dtype._FLOAT, _dtype._COMPLEX) and \
                    str(e) == "Overflow when unpacking long long":
                # ints past int64's range read as floats for a floating dtype, as torch does
                wide = np.complex128 if dt._category == _dtype._COMPLEX else np.float64
                arr, inferred = np.array(data, dtype=object).astype(wide), dt
            elif dt is None or dt.name != "uint64":
                raise
            else:
                arr, inferred = _uint64_data(data), dt  # (ints past int64's range)
        except (TypeError, RuntimeError):
            if dt is not None and isinstance(data, (list, tuple)):
                _element_error(data, dt)
            check_missing("tensor", data=data)
            raise
        source = data
        python_data = not isinstance(data, (np.ndarray, np.generic))
        if not python_data and data.strides:
            _no_negative_strides(data)
    if dt is not None and python_data and dt.name == "uint64":
        if arr.dtype.kind not in "bu":
            arr = _uint64_data(data)
    elif dt is not None and python_data and dt._category == _dtype._INT:
        _check_fits(arr, dt, c_names=False)
    arr = _convert(arr, dt or inferred)
    if isinstance(source, np.ndarray) and not source.flags.c_contiguous and \
            min(source.strides, default=0) >= 0:
        # a copy of an array keeps its layout (torch's preserve_format: x.T stays transposed)
        from ._preserve_layout import copy_preserving

        with np.errstate(invalid="ignore", over="ignore"):
            arr = copy_preserving(np, np.asarray(source), arr.dtype)
    elif arr is data or arr is source or not arr.flags.c_contiguous or (
            isinstance(source, np.ndarray) and np.may_share_memory(arr, source)):
        arr = arr.copy(order="C")
    check_pin_memory(pin_memory)
    return _finish(arr, device, requires_grad)


def _uint64_data(data):
    """Python data read for ``dtype=torch.uint64`` as torch reads it, element by element as
    unsigned ints (ints past int64's range fit; floats and negative ints are refused)."""
    arr = np.array(data, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, Tensor) and v.dim() == 0:
            flat[i] = v = v.item()
        if isinstance(v, (builtins.bool, np.bool_)):
            continue
        if not isinstance(v, (builtins.int, np.integer)):
            raise TypeError("an integer is required")
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 1 << 64:
            raise OverflowError("int too big to convert")
    return flat.reshape(arr.shape).astype(np.uint64)


def _no_negative_strides(arr):
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")


def as_tensor(data, dtype=None, device=None):
    """Convert ``data`` to a tensor, sharing memory with it when no conversion is needed.

    A tensor comes back as itself (or converted with ``to``); a NumPy array of a supported
    dtype on the CPU is wrapped without a copy.

    Example:
        >>> a = np.array([1., 2.])
        >>> t = torch.as_tensor(a)
        >>> t[0] = 5.
        >>> a
        array([5., 2.])
    """
    dt = dtype_arg(dtype, "as_tensor")
    if isinstance(data, Tensor):
        return data.to(dtype=dt, device=device)
    if isinstance(data, np.ndarray):
        data = np.asarray(data)  # a subclass (np.memmap...) as the plain array over its memory
        _no_negative_strides(data)
        _check_byte_order(data)
        src = _dtype.from_numpy_dtype(data.dtype)
        arr = data if dt is None or dt is src else _convert(data, dt)
        return _finish(arr, device)
    arr, inferred = _from_data(data)
    if dt is not None and not isinstance(data, np.generic) and dt._category == _dtype._INT:
        _check_fits(arr, dt, c_names=False)
    return _finish(np.array(_convert(arr, dt or inferred)), device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Convert ``obj`` to a tensor, sharing memory when possible.

    Args:
        obj: a tensor, a NumPy array (or anything NumPy can view without copying), a number
            or nested sequences.
        dtype (dtype, optional): the result dtype.
        device (device, optional): where to put the result.
        copy (bool, optional): True always copies; False never does (and raises when a copy
            would be needed); None copies only when needed.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> torch.asarray([1, 2], dtype=torch.float64)
        tensor([1., 2.], dtype=torch.float64)
    """
    dt = dtype_arg(dtype, "asarray")
    if isinstance(obj, Tensor):
        if copy is False and dt is not None and dt is not obj.dtype:
            raise ValueError(_alias_error(obj.dtype, dt))
        t = obj.to(dtype=dt, device=device)
        if copy and t is obj:
            t = t.clone()
    elif isinstance(obj, (list, tuple)) or type(obj) in _PY_SCALARS:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = as_tensor(obj, dtype=dt, device=device)
    else:
        arr = obj if type(obj) is np.ndarray else np.asarray(obj)  # (np.memmap: its memory)
        _check_byte_order(arr)
        src = _dtype.from_numpy_dtype(arr.dtype)
        if copy is False and dt is not None and dt is not src:
            raise ValueError(_alias_error(src, dt))
        t = as_tensor(arr, dtype=dt, device=device)
        if copy and t._array is arr:
            t = _make(arr.copy())
    if requires_grad:
        _factory_requires_grad(t)
    return t


def _alias_error(src, dst):
    names = _dtype._TYPE_DISPLAY
    return f"can't alias tensor with dtype '{names[src.name]}' into dtype '{names[dst.name]}'."


def from_numpy(ndarray):
    """Wrap a NumPy array as a tensor sharing its memory: writes to either show in both.

    Example:
        >>> a = np.zeros(2, dtype=np.float32)
        >>> t = torch.from_numpy(a)
        >>> t += 1
        >>> a
        array([1., 1.], dtype=float32)
    """
    if not isinstance(ndarray, np.ndarray):
        t = type(ndarray)  # a NumPy scalar type is named with its module, as torch names it
        raise TypeError(f"expected np.ndarray (got "
                        f"{'numpy.' if isinstance(ndarray, np.generic) else ''}{t.__name__})")
    _check_byte_order(ndarray)
    _dtype.from_numpy_dtype(ndarray.dtype)
    _no_negative_strides(ndarray)
    if not ndarray.flags.writeable:
        # torch warns about this once per process, and says so
        warn_once("numpy-not-writable", "The given NumPy array is not writable, and PyTorch "
                  "does not support non-writable tensors. This means writing to this tensor "
                  "will result in undefined behavior. You may want to copy the array to "
                  "protect its data or make it writable before converting it to a tensor. "
                  "This type of warning will be suppressed for the rest of this program.",
                  UserWarning, stacklevel=2)
    if ndarray.size:
        # an array of its own over a buffer of its own: torch gives every from_numpy a
        # storage of its own, so the in-place overlap check (autograd.inplace.shares_owner)
        # must not take two of one array for one storage, as it takes x and x.data
        ndarray = _own_buffer(ndarray)
    return _make(ndarray)


def _own_buffer(arr):
    """``arr`` as an array whose base is a buffer of its own (same memory). Types the buffer
    protocol cannot name (bfloat16 and the float8 types of ml_dtypes) go through an unsigned
    integer view of the same item size."""
    try:
        return np.asarray(memoryview(arr))
    except (ValueError, TypeError):
        pass
    size = arr.dtype.itemsize
    if size not in (1, 2, 4, 8):
        return arr
    return np.asarray(memoryview(arr.view(np.dtype(f"u{size}")))).view(arr.dtype)
