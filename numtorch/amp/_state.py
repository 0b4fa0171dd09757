"""Autocast's per-thread state (as torch's, it is thread-local) and its cast cache.

Each thread has, per device type, an enabled flag and a target dtype, plus the cache switch,
the nesting depth of autocast regions and the cache of weight casts. The cast policy itself
(``_policy``) is only installed while some thread has autocast enabled for a device that
holds tensors (cpu, cuda), so programs that never use autocast pay nothing.
"""

import threading

from .. import _dtype

# torch's default autocast dtype per device type (get_autocast_dtype before any set_...)
_DEFAULT_DTYPES = {"cpu": "bfloat16", "cuda": "float16", "xpu": "float16", "mps": "float16",
                   "hpu": "bfloat16", "ipu": "float16", "xla": "bfloat16", "mtia": "float16",
                   "maia": "bfloat16", "privateuseone": "float16"}
CASTING_DEVICES = ("cpu", "cuda")  # the device types numtorch tensors live on


class _Local(threading.local):
    def __init__(self):
        self.enabled = {}
        self.dtype = {}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}  # id(weight) -> (weight, {dtype: cast copy})
        self.busy = False  # inside an autocast op: the ops it calls run as they are


local = _Local()
_lock = threading.Lock()
_threads_casting = set()


def check_device_type(device_type):
    """Raise torch's error for a device type autocast does not know; return it."""
    if device_type not in _DEFAULT_DTYPES:
        from .._device import device

        device(device_type)  # raises torch's "Expected one of cpu, cuda, ..." RuntimeError
        raise RuntimeError("unsupported scalarType")
    return device_type


def is_enabled(device_type):
    return local.enabled.get(check_device_type(device_type), False)


def set_enabled(device_type, enabled):
    local.enabled[check_device_type(device_type)] = bool(enabled)
    _sync_policy()


def get_dtype(device_type):
    name = _DEFAULT_DTYPES[check_device_type(device_type)]
    return local.dtype.get(device_type) or getattr(_dtype, name)


def set_dtype(device_type, dtype):
    local.dtype[check_device_type(device_type)] = dtype


def _sync_policy():
    """Install the op policy while any thread casts; remove it when none does."""
    from . import _policy

    casting = any(local.enabled.get(d, False) for d in CASTING_DEVICES)
    me = threading.get_ident()
    with _lock:
        if casting:
            _threads_casting.add(me)
        else:
            _threads_casting.discard(me)
        # a thread that ended inside a region no longer counts
        _threads_casting.intersection_update(t.ident for t in threading.enumerate())
        _policy.set_installed(bool(_threads_casting))


def cached_cast(tensor, dtype):
    """``tensor.to(dtype)``, reusing the copy made earlier in this autocast region for a
    float32 weight (a leaf that requires grad), as torch's cache does. The op itself, not
    the public method: torch casts below ``__torch_function__``, so a mode never sees it."""
    from ..ops.cast import to

    if not (local.cache_enabled and tensor.is_leaf and tensor.requires_grad
            and tensor.dtype == _dtype.float32):
        return to(tensor, dtype)
    entry = local.cache.get(id(tensor))
    if entry is None or entry[0] is not tensor:
        entry = local.cache[id(tensor)] = (tensor, {})
    cast = entry[1].get(dtype)
    if cast is None:
        cast = entry[1][dtype] = to(tensor, dtype)
    return cast
