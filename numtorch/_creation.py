"""Tensor creation: from data, filled, ranges, and random samples.

Every function takes torch's keywords (``dtype``, ``device``, ``requires_grad``, and the
accepted-but-meaningless ``layout`` / ``pin_memory`` / ``memory_format``).
"""

import math
import warnings

import numpy as np

from . import _dtype, backend
from ._device import as_device
from ._random import rng_for
from ._tensor import Tensor, _make
from .ops._util import shape_arg

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "eye", "arange", "range",
           "linspace", "logspace", "rand", "randn", "randint", "randperm", "rand_like",
           "randn_like", "randint_like", "normal", "bernoulli", "empty_strided", "scalar_tensor",
           "is_tensor", "is_storage", "numel", "is_floating_point", "is_complex",
           "is_nonzero"]


def _finish(arr, dtype=None, device=None, requires_grad=False):
    """Cast to ``dtype``, move to ``device``, set ``requires_grad``; return the Tensor."""
    if dtype is not None:
        dt = _dtype.as_dtype(dtype).np
        if arr.dtype != dt:
            arr = arr.astype(dt)
    dev = as_device(device)
    if dev is not None and dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = _make(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_array(data):
    """NumPy array for Python data, with torch's dtype inference for Python numbers."""
    if isinstance(data, Tensor):
        return data._array if type(data._array) is np.ndarray else data._array.get(), True
    if isinstance(data, np.ndarray):
        return data, True
    if isinstance(data, (list, tuple)) and _has_tensor(data):
        data = _tensors_to_lists(data)
    try:
        arr = np.array(data)
    except ValueError as e:
        raise ValueError(f"expected sequence of equal-length lists: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"tensor(): could not infer dtype from {type(data).__name__} data: "
                        "elements must be numbers, bools or tensors")
    if arr.dtype.kind in "US":
        raise TypeError(f"new(): invalid data type '{arr.dtype.kind == 'U' and 'str'}'")
    return arr, isinstance(data, np.generic)


def _has_tensor(seq):
    for x in seq:
        if isinstance(x, Tensor):
            return True
        if isinstance(x, (list, tuple)) and _has_tensor(x):
            return True
    return False


def _tensors_to_lists(x):
    if isinstance(x, Tensor):
        if x.numel() != 1 and x.dim() != 0:
            return x.tolist()
        return x.item() if x.dim() == 0 else x.tolist()
    if isinstance(x, (list, tuple)):
        return [_tensors_to_lists(v) for v in x]
    return x


def _python_dtype(arr):
    """torch's dtype for data that came from Python numbers."""
    k = arr.dtype.kind
    if k == "f":
        return _dtype.get_default_dtype().np
    if k == "c":
        return _dtype.default_complex().np
    if k in "iu":
        return np.dtype(np.int64)
    return arr.dtype


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Build a new tensor by copying ``data`` (a number, nested sequence, array or tensor).

    Python floats give the default dtype, ints give int64 and bools give bool; NumPy arrays
    keep their dtype.

    Example:
        >>> torch.tensor([[1., 2.]], requires_grad=True)
        tensor([[1., 2.]], requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    arr, keep = _infer_array(data)
    if dtype is None and not keep:
        dt = _python_dtype(arr)
        if arr.dtype != dt:
            arr = arr.astype(dt)
    elif dtype is None and arr.dtype not in _dtype._FROM_NP:
        _dtype.from_numpy_dtype(arr.dtype)  # raises the unsupported-type error
    arr = np.array(arr, dtype=None if dtype is None else _dtype.as_dtype(dtype).np, copy=True)
    return _finish(arr, None, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like :func:`tensor` but shares memory with ``data`` when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(dtype=_dtype.as_dtype(dtype), device=as_device(device))
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        return _finish(data, dtype, device)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Convert ``obj`` to a tensor, sharing memory when possible (unless ``copy=True``)."""
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = t.clone().detach()
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(ndarray):
    """Wrap a NumPy array as a tensor sharing its memory (writes show in both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior.", UserWarning, stacklevel=2)
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte "
                         "order. Conversion between byte orders is currently not supported.")
    return _make(ndarray)


def _size_and_dtype(size, dtype, default=None):
    shape = shape_arg(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    dt = _dtype.as_dtype(dtype) if dtype is not None else (default or
                                                          _dtype.get_default_dtype())
    return shape, dt


def _xp(device):
    dev = as_device(device)
    return np if dev is None or dev.type == "cpu" else backend.get_xp(dev)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """A tensor of zeros of shape ``size``."""
    shape, dt = _size_and_dtype(size, dtype)
    return _finish(_xp(device).zeros(shape, dtype=dt.np), None, device, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None):
    """A tensor of ones of shape ``size``."""
    shape, dt = _size_and_dtype(size, dtype)
    return _finish(_xp(device).ones(shape, dtype=dt.np), None, device, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """An uninitialised tensor of shape ``size``."""
    shape, dt = _size_and_dtype(size, dtype)
    return _finish(_xp(device).empty(shape, dtype=dt.np), None, device, requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, **unused):
    """An uninitialised tensor of ``size`` (numtorch's memory is always C-ordered)."""
    return empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of shape ``size`` filled with ``fill_value`` (dtype inferred from it)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = _dtype._scalar_dtype(fill_value) if dtype is None else None
    shape, dt = _size_and_dtype(size, dtype, default)
    return _finish(_xp(device).full(shape, fill_value, dtype=dt.np), None, device,
                   requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, **unused):
    """A 0-d tensor holding ``s`` (default float dtype unless ``dtype`` says otherwise)."""
    dt = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    return _finish(np.array(s, dtype=dt.np), None, device, requires_grad)


def _like(input, dtype, device):
    return (_dtype.as_dtype(dtype) or input.dtype), (device if device is not None
                                                      else input.device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Zeros with the shape (and by default dtype and device) of ``input``."""
    dt, dev = _like(input, dtype, device)
    return zeros(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Ones with the shape (and by default dtype and device) of ``input``."""
    dt, dev = _like(input, dtype, device)
    return ones(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Uninitialised, with the shape (and by default dtype and device) of ``input``."""
    dt, dev = _like(input, dtype, device)
    return empty(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with the shape (and by default dtype) of ``input``."""
    dt, dev = _like(input, dtype, device)
    return full(input.shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A 2-D tensor with ones on the diagonal."""
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    dt = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    return _finish(_xp(device).eye(n, n if m is None else m, dtype=dt.np), None, device,
                   requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``.

    The dtype is int64 when every argument is an int, else the default float dtype.
    """
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (start, end, step))
        dt = _dtype.int64 if ints else _dtype.get_default_dtype()
    else:
        dt = _dtype.as_dtype(dtype)
    n = max(int(math.ceil((end - start) / step)), 0)
    if dt._category == _dtype._INT and all(isinstance(v, (int, np.integer))
                                           for v in (start, end, step)):
        arr = np.arange(start, start + n * step, step, dtype=dt.np)[:n]
    else:
        arr = (np.arange(n, dtype=np.float64) * step + start).astype(dt.np)
    return _finish(arr, None, device, requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
          **unused):  # noqa: A001 - torch's deprecated name
    """Deprecated: like :func:`arange` but ``end`` is included and the dtype is float."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    dt = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    arr = (np.arange(n, dtype=np.float64) * step + start).astype(dt.np)
    return _finish(arr, None, device, requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dtype.as_dtype(dtype) or (_dtype.default_complex() if isinstance(
        start, complex) or isinstance(end, complex) else _dtype.get_default_dtype())
    if steps == 1:
        arr = np.array([start], dtype=np.float64)
    else:
        # fill from both ends, as torch does, so the last value is exactly ``end``
        step = (end - start) / (steps - 1) if steps > 1 else 0
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        arr = np.where(i < half, start + step * i, end - step * (steps - 1 - i))
    if dt._category == _dtype._INT:
        arr = np.trunc(arr)
    return _finish(arr.astype(dt.np), None, device, requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    dt = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    lin = linspace(start, end, steps, dtype=_dtype.float64)._array
    return _finish((float(base) ** lin).astype(dt.np), None, device, requires_grad)


def _float_dtype(dtype, fn):
    dt = _dtype.as_dtype(dtype) or _dtype.get_default_dtype()
    if dt._category < _dtype._FLOAT:
        raise RuntimeError(f'"{fn}" not implemented for '
                           f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    return dt


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform samples on [0, 1)."""
    shape = shape_arg(size)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    arr = _uniform(rng_for(generator), shape, dt.np)
    return _finish(arr, None, device, requires_grad)


def _uniform(rng, shape, np_dtype):
    if np_dtype in (np.float32, np.float64):
        return rng.random(shape, dtype=np_dtype)
    if np_dtype.kind == "c":
        real = np.float32 if np_dtype == np.complex64 else np.float64
        return (rng.random(shape, dtype=real) + 1j * rng.random(shape, dtype=real)).astype(
            np_dtype)
    return rng.random(shape, dtype=np.float32).astype(np_dtype)


def _normal(rng, shape, np_dtype):
    if np_dtype in (np.float32, np.float64):
        return rng.standard_normal(shape, dtype=np_dtype)
    if np_dtype.kind == "c":  # torch draws each part with variance 1/2
        real = np.float32 if np_dtype == np.complex64 else np.float64
        z = rng.standard_normal(shape + (2,), dtype=real) * np.sqrt(0.5).astype(real)
        return (z[..., 0] + 1j * z[..., 1]).astype(np_dtype)
    return rng.standard_normal(shape, dtype=np.float32).astype(np_dtype)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Samples from the standard normal distribution."""
    shape = shape_arg(size)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    return _finish(_normal(rng_for(generator), shape, dt.np), None, device, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False):
    """Integers drawn uniformly from ``[low, high)`` (``randint(high, size)`` also works)."""
    if size is None:
        if isinstance(high, (tuple, list)):
            low, high, size = 0, low, high
        else:
            raise TypeError("randint() missing 1 required positional argument: 'size'")
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    dt = _dtype.as_dtype(dtype) or _dtype.int64
    arr = rng_for(generator).integers(low, high, size=shape_arg((size,)), dtype=np.int64)
    return _finish(arr.astype(dt.np, copy=False), None, device, requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64)."""
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    dt = _dtype.as_dtype(dtype) or _dtype.int64
    return _finish(rng_for(generator).permutation(n).astype(dt.np), None, device,
                   requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """Uniform [0, 1) samples shaped like ``input``."""
    dt, dev = _like(input, dtype, device)
    return rand(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """Standard normal samples shaped like ``input``."""
    dt, dev = _like(input, dtype, device)
    return randn(input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """Random integers in ``[low, high)`` shaped like ``input``."""
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    return randint(low, high, input.shape, dtype=dt, device=dev, requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal samples with elementwise ``mean`` and ``std`` (tensors or numbers)."""
    rng = rng_for(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: a size is "
                            "needed when mean and std are numbers")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        arr = _normal(rng, shape_arg((size,)), dt.np) * dt.np.type(std) + dt.np.type(mean)
        return _finish(arr.astype(dt.np, copy=False), None, device, requires_grad)
    ref = mean if mt else std
    if st and bool((std._array < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    m = mean._array if mt else mean
    s = std._array if st else std
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    z = _normal(rng, shape, ref._array.dtype)
    return _make((z * s + m).astype(ref._array.dtype, copy=False))


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probability ``input`` (or ``p``) of a one, in ``input``'s dtype."""
    probs = input._array if p is None else np.broadcast_to(np.asarray(p), input._array.shape)
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    u = rng_for(generator).random(input._array.shape)
    return _make((u < probs).astype(input._array.dtype))


def is_tensor(obj):
    """True if ``obj`` is a numtorch Tensor."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """True if ``obj`` is a numtorch storage object."""
    return type(obj).__name__.endswith("Storage")


def numel(input):
    """Number of elements of ``input``."""
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def is_nonzero(input):
    """``bool(input)`` for a one-element tensor; torch's RuntimeError otherwise."""
    if input.numel() != 1:
        raise RuntimeError(f"Boolean value of Tensor with "
                           f"{'no values' if input.numel() == 0 else 'more than one value'} is "
                           "ambiguous")
    return bool(input.item())
