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

from . import _array
from ._array import HOOKS, POOL, STATS, ndarray
from ._names import NAMES

_local = threading.local()
_DEVICE_COUNT = 1
_TOTAL_MEMORY = 80 * (1 << 30)


_ERRORS = {1: ("cudaErrorInvalidValue", "invalid argument"),
           2: ("cudaErrorMemoryAllocation", "out of memory"),
           34: ("cudaErrorNotReady", "device not ready"),
           101: ("cudaErrorInvalidDevice", "invalid device ordinal")}


class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError``: made from a status code, worded
    "name: description" as CuPy's (a message string is kept as it is)."""

    def __init__(self, status):
        self.status = status
        if isinstance(status, int):
            name, text = _ERRORS.get(status, (f"cudaError{status}", "unknown error"))
            status = f"{name}: {text}"
        super().__init__(status)


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

    # graph capture: the stand-in runs kernels at once, so a graph records no work; capture
    # and launch are noted in STATS so tests can check how numtorch drives them
    def begin_capture(self, mode=None):
        if self.ptr in (0, 1):
            raise RuntimeError("cannot capture on the default (legacy) stream")
        if getattr(self, "_capturing", False):
            raise CUDARuntimeError("cudaErrorIllegalState: operation not permitted when stream "
                                   "is capturing")
        self._capturing = True
        STATS["captures"] = STATS.get("captures", 0) + 1

    def end_capture(self):
        if not getattr(self, "_capturing", False):
            raise CUDARuntimeError("cudaErrorIllegalState: stream is not capturing")
        self._capturing = False
        return Graph()

    def is_capturing(self):
        return getattr(self, "_capturing", False)

    def __eq__(self, other):
        return isinstance(other, Stream) and other.ptr == self.ptr

    def __hash__(self):
        return hash(self.ptr)

    def __repr__(self):
        return f"<Stream {self.ptr} (device {self.device_id})>"


Stream.null = Stream(null=True)


class ExternalStream(Stream):
    """``cupy.cuda.ExternalStream``: a stream made elsewhere, known by its handle."""

    def __init__(self, ptr, device_id=-1):
        super().__init__()
        self.ptr = int(ptr)


class Graph:
    """``cupy.cuda.Graph``: what ``end_capture`` returns; ``launch`` is noted in STATS."""

    def launch(self, stream=None):
        stream = stream if stream is not None else get_current_stream()
        STATS.setdefault("graph_launches", []).append(stream.ptr)

    def upload(self, stream=None):
        pass


def alloc(size):
    """``cupy.cuda.alloc``: ``size`` bytes through the installed allocator (a host buffer kept
    alive by the returned pointer)."""
    buf = np.empty(max(int(size), 1), dtype=np.uint8)
    _array._pool_track(buf)
    ptr = _array.MemoryPointer(buf.__array_interface__["data"][0],
                               _array.Memory(buf.__array_interface__["data"][0], buf.nbytes))
    _LIVE_RAW[ptr.ptr] = buf  # freed with the pointer (see _RawPointer)
    return _RawPointer(ptr.ptr, ptr.mem)


_LIVE_RAW = {}


class _RawPointer(_array.MemoryPointer):
    __slots__ = ()

    def __del__(self):
        _LIVE_RAW.pop(self.ptr, None)


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


class OutOfMemoryError(MemoryError):
    """``cupy.cuda.memory.OutOfMemoryError``, with CuPy's message."""

    def __init__(self, size, total, limit=0):
        msg = (f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes, "
               f"limit set to: {limit:,} bytes).") if limit else \
            f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes)."
        super().__init__(msg)


class MemoryPool:
    """``cupy.cuda.MemoryPool``: ``used_bytes`` follows the live stand-in arrays allocated
    from it (the default pool's counters are ``POOL``; a new pool has its own)."""

    def __init__(self, allocator=None):
        self._counter = _array._Pool()
        self._limit = 0

    def used_bytes(self):
        return self._counter.used

    def total_bytes(self):
        return self._counter.total

    def free_bytes(self):
        return self._counter.total - self._counter.used

    def free_all_blocks(self, stream=None):
        self._counter.total = self._counter.used

    def n_free_blocks(self):
        return 0

    def malloc(self, size):
        """A pointer to ``size`` bytes from this pool, counted as used until the array made on
        it is freed; past the pool's limit, CuPy's ``OutOfMemoryError``."""
        c = self._counter
        if self._limit and c.used + size > self._limit:
            raise OutOfMemoryError(size, c.total, self._limit)
        c.used += size
        c.total = max(c.total, c.used)
        return types.SimpleNamespace(device_id=get_device_id(), size=size, ptr=0, pool=self)

    def set_limit(self, size=None, fraction=None):
        self._limit = int(fraction * _TOTAL_MEMORY) if fraction is not None else (size or 0)

    def get_limit(self):
        return self._limit


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
_POOL._counter = POOL
_array.HOOKS["malloc"] = _POOL.malloc
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
    cuda.ExternalStream, cuda.Graph, cuda.alloc = ExternalStream, Graph, alloc
    cuda.memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError, alloc=alloc,
                                        MemoryPool=MemoryPool)
    cuda.nvtx = types.SimpleNamespace(**{n: _recorder("nvtx", n) for n in (
        "RangePush", "RangePop", "Mark", "RangeEnd")}, RangeStart=_range_start)
    cuda.profiler = types.SimpleNamespace(start=_recorder("profiler", "start"),
                                          stop=_recorder("profiler", "stop"))
    cuda.runtime = types.SimpleNamespace(
        getDeviceCount=lambda: _DEVICE_COUNT,
        getDevice=get_device_id,
        deviceSynchronize=lambda: STATS.__setitem__("sync", STATS["sync"] + 1),
        getDeviceProperties=lambda i: (_check_device(i), {
            "name": b"Stand-in GPU (NumPy)", "major": 9, "minor": 0,
            "totalGlobalMem": _TOTAL_MEMORY, "multiProcessorCount": 132})[1],
        memGetInfo=lambda: (_TOTAL_MEMORY - POOL.total, _TOTAL_MEMORY),
        runtimeGetVersion=lambda: 12080, driverGetVersion=lambda: 12080,
        deviceCanAccessPeer=lambda a, b: (_check_device(a), _check_device(b), 0)[2],
        profilerStart=_recorder("profiler", "start"), profilerStop=_recorder("profiler", "stop"),
        is_hip=False, CUDARuntimeError=CUDARuntimeError)
    cuda.device = types.SimpleNamespace(get_cublas_handle=lambda: 1, get_cusolver_handle=lambda: 2,
                                        Device=Device)
    from . import _cublas

    cuda.cublas = _cublas  # (CuPy's cupy.cuda.cublas, imported on first access there)
    for name in NAMES["cuda"]:
        if not hasattr(cuda, name):
            setattr(cuda, name, _missing(name))
    return cuda


def _recorder(group, name):
    """A function noting its calls in ``STATS[group]`` (NVTX ranges, profiler start/stop)."""
    def function(*args, **kwargs):
        STATS.setdefault(group, []).append((name,) + args)

    return function


def _range_start(message, color):
    STATS.setdefault("nvtx", []).append(("RangeStart", message))
    return len(STATS["nvtx"])


def _missing(name):
    def function(*args, **kwargs):
        raise NotImplementedError(f"stand-in: cupy.cuda.{name} is not faked")

    return function


HOOKS["stream"] = get_current_stream
HOOKS["allocator"] = lambda: _ALLOCATOR[0]
