"""The stand-in ``cupy.cuda``: one device (id 0), streams, events, memory pools, pinned memory.

They do no GPU work, but keep the state numtorch reads and writes as CuPy's do: the current
device and stream (thread-local, set by ``with`` blocks), events that time what ran between
them, a memory pool whose ``used_bytes`` follows the live device arrays, and pinned host buffers
that NumPy arrays can be built on (``cupyx.empty_pinned``). Every kernel the stand-in runs notes
the stream it ran on (``STATS["last_stream"]``), so tests can check that ops respect
``torch.cuda.stream``.
"""

import threading
import time
import types

import numpy as np

from ._array import HOOKS, POOL, STATS, ndarray
from ._names import NAMES

_local = threading.local()
_DEVICE_COUNT = 1
_TOTAL_MEMORY = 80 * (1 << 30)


class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError``."""


def _check_device(idx):
    if not 0 <= idx < _DEVICE_COUNT:
        raise CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal")


class Device:
    """``cupy.cuda.Device``: a device id that can be made current (also as a ``with`` block)."""

    def __init__(self, device=None):
        if device is None:
            device = get_device_id()
        self.id = int(device)
        _check_device(self.id)

    def use(self):
        _local.device = self.id

    def __enter__(self):
        stack = _local.__dict__.setdefault("device_stack", [])
        stack.append(get_device_id())
        self.use()
        return self

    def __exit__(self, *exc):
        _local.device = _local.device_stack.pop()
        return False

    def synchronize(self):
        STATS["sync"] += 1

    @property
    def compute_capability(self):
        return "90"

    @property
    def mem_info(self):
        return (_TOTAL_MEMORY - POOL.total, _TOTAL_MEMORY)

    @property
    def cublas_handle(self):
        return 1

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def get_device_id():
    return getattr(_local, "device", 0)


class Stream:
    """``cupy.cuda.Stream``: made current by ``with`` or ``use()``; work on it is recorded."""

    _next_ptr = [1000]

    def __init__(self, null=False, non_blocking=False, ptr=0, priority=None):
        if null:
            self.ptr = 0
        else:
            Stream._next_ptr[0] += 1
            self.ptr = Stream._next_ptr[0]
        self.non_blocking = non_blocking
        self.device_id = get_device_id()

    @property
    def done(self):
        return True

    def synchronize(self):
        STATS["sync"] += 1

    def use(self):
        _local.stream = self
        return self

    def __enter__(self):
        stack = _local.__dict__.setdefault("stream_stack", [])
        stack.append(get_current_stream())
        self.use()
        return self

    def __exit__(self, *exc):
        _local.stream = _local.stream_stack.pop()
        return False

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        if not isinstance(event, Event):
            raise TypeError("wait_event takes a cupy.cuda.Event")
        STATS.setdefault("waits", []).append((self.ptr, event))

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(self.ptr)

    def __repr__(self):
        return f"<Stream {self.ptr} (device {self.device_id})>"


Stream.null = Stream(null=True)


def get_current_stream(device_id=None):
    return getattr(_local, "stream", Stream.null)


class Event:
    """``cupy.cuda.Event``: records the host time when recorded (timing events only)."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        if interprocess and not disable_timing:
            raise ValueError("Timing must be disabled for interprocess events")
        self.block, self.disable_timing = block, disable_timing
        self._t = None
        self.stream = None

    def record(self, stream=None):
        self.stream = stream if stream is not None else get_current_stream()
        self._t = time.perf_counter()

    @property
    def done(self):
        return True

    def synchronize(self):
        STATS["sync"] += 1


def get_elapsed_time(start_event, end_event):
    if start_event.disable_timing or end_event.disable_timing:
        raise CUDARuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
    if start_event._t is None or end_event._t is None:
        raise CUDARuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
    return (end_event._t - start_event._t) * 1e3


class MemoryPool:
    """``cupy.cuda.MemoryPool``: ``used_bytes`` follows the live stand-in arrays."""

    def used_bytes(self):
        return POOL.used

    def total_bytes(self):
        return POOL.total

    def free_bytes(self):
        return POOL.total - POOL.used

    def free_all_blocks(self, stream=None):
        POOL.total = POOL.used

    def n_free_blocks(self):
        return 0

    def malloc(self, size):
        """A pointer to ``size`` bytes (already counted: the stand-in's arrays account for
        their own memory when made, and only then call the allocator)."""
        return types.SimpleNamespace(device_id=get_device_id(), size=size, ptr=0)

    def set_limit(self, size=None, fraction=None):
        self._limit = size

    def get_limit(self):
        return getattr(self, "_limit", 0)


class PinnedMemoryPointer(bytearray):
    """Page-locked host memory: a buffer NumPy arrays can live on (CuPy's is a Cython class
    with the buffer protocol; here a bytearray subclass)."""

    @property
    def ptr(self):
        return np.frombuffer(self, dtype=np.uint8).__array_interface__["data"][0] \
            if len(self) else 0

    @property
    def size(self):
        return len(self)


class PinnedMemoryPool:
    def __init__(self):
        self._live = 0

    def malloc(self, size):
        return PinnedMemoryPointer(size)

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_all_blocks(self):
        pass

    def n_free_blocks(self):
        return 0


_POOL = MemoryPool()
_PINNED_POOL = PinnedMemoryPool()


def get_default_memory_pool():
    return _POOL


def get_default_pinned_memory_pool():
    return _PINNED_POOL


def alloc_pinned_memory(size):
    STATS["pinned_allocs"] = STATS.get("pinned_allocs", 0) + 1
    return _PINNED_POOL.malloc(size)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def empty_pinned(shape, dtype=float, order="C"):
    shape = _shape(shape)
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return np.ndarray(shape, dtype=dtype, buffer=alloc_pinned_memory(n), order=order)


def zeros_pinned(shape, dtype=float, order="C"):
    out = empty_pinned(shape, dtype, order)
    out[...] = 0
    return out


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    if type(a) is not np.ndarray and type(a) is not ndarray:
        raise TypeError("empty_like_pinned takes an array")
    return empty_pinned(a.shape if shape is None else shape, a.dtype if dtype is None else
                        dtype, "F" if order == "F" else "C")


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    out = empty_like_pinned(a, dtype, order, subok, shape)
    out[...] = 0
    return out


_ALLOCATOR = [None]


def set_allocator(allocator=None):
    _ALLOCATOR[0] = allocator


def get_allocator():
    return _ALLOCATOR[0] or _POOL.malloc


def build_module():
    cuda = types.ModuleType("cupy.cuda")
    cuda.Device, cuda.Stream, cuda.Event = Device, Stream, Event
    cuda.MemoryPool, cuda.PinnedMemoryPool = MemoryPool, PinnedMemoryPool
    cuda.PinnedMemoryPointer = PinnedMemoryPointer
    cuda.MemoryPointer = __import__(f"{__package__}._array", fromlist=["x"]).MemoryPointer
    cuda.alloc_pinned_memory = alloc_pinned_memory
    cuda.get_current_stream = get_current_stream
    cuda.get_device_id = get_device_id
    cuda.get_elapsed_time = get_elapsed_time
    cuda.set_allocator, cuda.get_allocator = set_allocator, get_allocator
    cuda.is_available = lambda: True
    cuda.runtime = types.SimpleNamespace(
        getDeviceCount=lambda: _DEVICE_COUNT,
        getDevice=get_device_id,
        deviceSynchronize=lambda: STATS.__setitem__("sync", STATS["sync"] + 1),
        getDeviceProperties=lambda i: (_check_device(i), {
            "name": b"Stand-in GPU (NumPy)", "major": 9, "minor": 0,
            "totalGlobalMem": _TOTAL_MEMORY, "multiProcessorCount": 132})[1],
        memGetInfo=lambda: (_TOTAL_MEMORY - POOL.total, _TOTAL_MEMORY),
        runtimeGetVersion=lambda: 12080, driverGetVersion=lambda: 12080,
        is_hip=False, CUDARuntimeError=CUDARuntimeError)
    cuda.device = types.SimpleNamespace(get_cublas_handle=lambda: 1, Device=Device)
    for name in NAMES["cuda"]:
        if not hasattr(cuda, name):
            setattr(cuda, name, _missing(name))
    return cuda


def _missing(name):
    def function(*args, **kwargs):
        raise NotImplementedError(f"stand-in: cupy.cuda.{name} is not faked")

    return function


HOOKS["stream"] = get_current_stream
HOOKS["allocator"] = lambda: _ALLOCATOR[0]
