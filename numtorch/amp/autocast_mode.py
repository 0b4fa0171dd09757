"""``torch.autocast``: run chosen ops in lower precision inside a region.

Inside ``autocast("cpu", dtype=torch.bfloat16)`` the ops on torch's CPU lists cast their
floating inputs first (``_policy``): matrix products and convolutions to the region's dtype,
losses and the precision-hungry ops to float32, a few ops to the widest input type. Ops
called with ``dtype=`` or ``out=``, in-place ops and float64 tensors are left alone. The
state is per thread, as in torch.

``autocast("cuda")`` without a GPU warns and disables itself, as torch does.
"""

import collections.abc
import functools
import warnings

from .. import _dtype
from .._class_repr import object_repr as _object_repr
from .._tensor import Tensor
from . import _state

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd",
           "custom_bwd"]


def is_autocast_available(device_type):
    """True if autocast can be used for ``device_type`` (any device type torch knows)."""
    _state.check_device_type(device_type)
    return True


# -- the state functions torch exposes at top level (torch.is_autocast_enabled, ...) ------------
def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` in this thread (CUDA when omitted)."""
    return _state.is_enabled("cuda" if device_type is None else device_type)


def set_autocast_enabled(device_type, enabled=None):
    """Turn autocast on or off for ``device_type``; ``set_autocast_enabled(flag)`` is CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _state.set_enabled(device_type, enabled)


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type`` in this thread."""
    return _state.get_dtype(device_type)


def set_autocast_dtype(device_type, dtype):
    _state.set_dtype(device_type, dtype)


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _state.is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    _state.set_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return _state.get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    _state.set_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return _state.get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    _state.set_dtype("cuda", dtype)


def is_autocast_cache_enabled():
    return _state.local.cache_enabled


def set_autocast_cache_enabled(enabled):
    _state.local.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Drop the weight casts kept for the current autocast region."""
    _state.local.cache.clear()


def autocast_increment_nesting():
    _state.local.nesting += 1
    return _state.local.nesting


def autocast_decrement_nesting():
    _state.local.nesting -= 1
    return _state.local.nesting


# -- the context manager ----------------------------------------------------------------------
class autocast:  # noqa: N801 - torch's name
    """Context manager (and decorator) that enables autocast for ``device_type``.

    Args:
        device_type (str): ``"cpu"``, ``"cuda"``, ... (a string, not a ``torch.device``).
        dtype (torch.dtype, optional): the lower precision type; default
            ``torch.get_autocast_dtype(device_type)`` (bfloat16 on CPU, float16 on CUDA).
        enabled (bool): False makes the region a no-op (or turns autocast off inside an
            enclosing region). Default: True.
        cache_enabled (bool, optional): reuse each weight's cast within the region.
            Default: ``torch.is_autocast_cache_enabled()``.

    Example:
        >>> with torch.autocast("cpu", dtype=torch.bfloat16):
        ...     y = torch.mm(torch.ones(2, 3), torch.ones(3, 2))
        >>> y.dtype
        torch.bfloat16
    """

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _state.check_device_type(device_type)
        self.fast_dtype = _state.get_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        self._enabled = enabled
        if not enabled:
            return
        if device_type == "cpu" and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", stacklevel=2)
            self._enabled = False
        elif device_type == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                              "autocast.", stacklevel=2)
                self._enabled = False
            elif self.fast_dtype == _dtype.bfloat16 and not cuda.is_bf16_supported():
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please "
                                   "switch dtype to float16.")

    def __enter__(self):
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        self.prev_cache_enabled = is_autocast_cache_enabled()
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)


def autocast_decorator(autocast_instance, func):
    """``func`` wrapped to run inside ``autocast_instance``."""

    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


def _enter_autocast(*vals):
    """Enter ``autocast(*vals)`` and return it (the un-``with`` form traced programs use)."""
    mode = autocast(*vals)
    mode.__enter__()
    return mode


def _exit_autocast(mode):
    mode.__exit__(None, None, None)


# -- custom autograd Functions ----------------------------------------------------------------
def _cast(value, device_type, dtype):
    """``value`` with its floating tensors on ``device_type`` (not float64) cast to ``dtype``,
    looking inside dicts, lists and tuples."""
    if isinstance(value, Tensor):
        eligible = (value.is_floating_point() and value.device.type == device_type
                    and value.dtype != _dtype.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable) and not hasattr(value, "__array__"):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``Function.forward`` used inside autocast regions.

    Records the region's state on ``ctx`` for :func:`custom_bwd`. With ``cast_inputs``
    (a dtype) and autocast on, the floating inputs are cast to it and ``forward`` runs with
    autocast off.
    """
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``Function.backward``: it runs with the autocast state its
    forward saw (see :func:`custom_fwd`)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
