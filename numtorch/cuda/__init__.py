"""``numtorch.cuda``: CUDA devices through CuPy.

Without CuPy or a GPU, ``is_available()`` is False, ``device_count()`` is 0, and functions
that need a device raise torch's error. With CuPy, tensors on ``'cuda'`` hold CuPy arrays and
every op runs on the GPU through the same code.
"""

from .. import backend
from .._device import device as _torch_device
from .._legacy_types import CUDA_TYPES
from . import amp, comm  # noqa: F401
from .random import (  # noqa: F401
    get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed,
    seed_all, set_rng_state, set_rng_state_all,
)

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "device_of", "synchronize", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "initial_seed", "get_device_name", "get_device_capability", "get_device_properties",
           "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "is_initialized", "init", "Stream", "Event", "current_stream", "default_stream",
           "stream", "current_blas_handle", "comm", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
           "is_bf16_supported", "get_rng_state", "get_rng_state_all", "set_rng_state",
           "set_rng_state_all", "default_generators"]

_current = [0]


def _lazy_cupy():
    cp = backend.cupy_or_none()
    if cp is None:
        raise backend.cuda_unavailable()
    return cp


def is_available():
    """True when CuPy imports and sees at least one GPU."""
    return backend.cupy_or_none() is not None


def is_initialized():
    return is_available()


def init():
    _lazy_cupy()


def device_count():
    """Number of visible GPUs (0 without CuPy)."""
    cp = backend.cupy_or_none()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def current_device():
    """Index of the current GPU."""
    _lazy_cupy()
    return _current[0]


def set_device(device):
    """Make ``device`` (an index, 'cuda:N' or a device) the current GPU."""
    idx = _index(device)
    if idx < 0:
        return
    cp = _lazy_cupy()
    cp.cuda.Device(idx).use()
    _current[0] = idx


def _index(device):
    if isinstance(device, int):
        return device
    if device is None:
        return -1
    d = _torch_device(device)
    return 0 if d.index is None else d.index


class device:
    """Context manager that makes a GPU current inside the block."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev = _current[0]
            set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev >= 0:
            set_device(self.prev)
        return False


class device_of(device):
    """Context manager making the GPU of tensor ``obj`` current (a no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def synchronize(device=None):
    """Wait for all work on the GPU to finish."""
    cp = _lazy_cupy()
    cp.cuda.runtime.deviceSynchronize()


def get_device_name(device=None):
    cp = _lazy_cupy()
    idx = _current[0] if device is None else _index(device)
    props = cp.cuda.runtime.getDeviceProperties(idx)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else name


def get_device_capability(device=None):
    cp = _lazy_cupy()
    idx = _current[0] if device is None else _index(device)
    props = cp.cuda.runtime.getDeviceProperties(idx)
    return props["major"], props["minor"]


def get_device_properties(device=None):
    cp = _lazy_cupy()
    idx = _current[0] if device is None else _index(device)
    return cp.cuda.runtime.getDeviceProperties(idx)


def is_bf16_supported(including_emulation=True):
    """Always False: CuPy has no bfloat16 arrays, so bfloat16 tensors live on the CPU only."""
    return False


def empty_cache():
    """Release cached blocks of CuPy's memory pool (a no-op without CUDA)."""
    cp = backend.cupy_or_none()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    cp = backend.cupy_or_none()
    return 0 if cp is None else int(cp.get_default_memory_pool().used_bytes())


def max_memory_allocated(device=None):
    return memory_allocated(device)


def memory_reserved(device=None):
    cp = backend.cupy_or_none()
    return 0 if cp is None else int(cp.get_default_memory_pool().total_bytes())


def current_blas_handle():
    """The cuBLAS handle of the current device (as an int)."""
    cp = _lazy_cupy()
    return int(cp.cuda.device.get_cublas_handle())


class Stream:
    """A CUDA stream (a CuPy stream underneath)."""

    def __new__(cls, device=None, priority=0, **kwargs):
        cp = _lazy_cupy()
        self = object.__new__(cls)
        self._stream = cp.cuda.Stream(non_blocking=True)
        self.device = _torch_device("cuda", _current[0] if device is None else _index(device))
        return self

    def query(self):
        return self._stream.done

    def synchronize(self):
        self._stream.synchronize()

    def wait_event(self, event):
        self._stream.wait_event(event._event)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __enter__(self):
        self._stream.__enter__()
        return self

    def __exit__(self, *exc):
        return self._stream.__exit__(*exc)


class Event:
    """A CUDA event for timing and synchronisation (a CuPy event underneath)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, _handle=None):
        cp = _lazy_cupy()
        self._event = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                    interprocess=interprocess)

    def record(self, stream=None):
        self._event.record(stream._stream if stream is not None else None)

    def wait(self, stream=None):
        s = stream._stream if stream is not None else _lazy_cupy().cuda.get_current_stream()
        s.wait_event(self._event)

    def query(self):
        return self._event.done

    def synchronize(self):
        self._event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event``."""
        return float(_lazy_cupy().cuda.get_elapsed_time(self._event, end_event._event))

    def ipc_handle(self):
        raise RuntimeError("Event.ipc_handle: interprocess events are not supported by numtorch")


def current_stream(device=None):
    cp = _lazy_cupy()
    s = object.__new__(Stream)
    s._stream = cp.cuda.get_current_stream()
    s.device = _torch_device("cuda", _current[0])
    return s


default_stream = current_stream


class stream:
    """Context manager running the block's GPU work on ``stream`` (None: unchanged)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            self.stream.__enter__()
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.__exit__(*exc)
        return False


(DoubleTensor, FloatTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
 ByteTensor, BoolTensor) = CUDA_TYPES.values()  # torch.cuda.FloatTensor & co


def __getattr__(name):
    if name == "default_generators":  # one per visible GPU: known only once CuPy is looked up
        from .random import default_generators

        return default_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
