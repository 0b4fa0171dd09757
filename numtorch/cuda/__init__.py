"""``numtorch.cuda``: CUDA devices through CuPy.

Without CuPy or a GPU, ``is_available()`` is False, ``device_count()`` is 0, and functions
that need a device raise torch's error. With CuPy, tensors on ``'cuda'`` hold CuPy arrays and
every op runs on the GPU through the same code.
"""

from typing import Union

from .. import _legacy_types, backend
from .._device import device as _torch_device
from .._legacy_types import CUDA_TYPES
from . import amp, comm  # noqa: F401
from .memory import (  # noqa: F401
    empty_cache, max_memory_allocated, max_memory_cached, max_memory_reserved, mem_get_info,
    memory_allocated, memory_cached, memory_reserved, memory_stats, reset_max_memory_allocated,
    reset_max_memory_cached, reset_peak_memory_stats, set_per_process_memory_fraction,
)
from .streams import (  # noqa: F401
    Event, ExternalStream, Stream, StreamContext, current_stream, default_stream, set_stream,
    stream,
)
from .random import (  # noqa: F401
    get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed,
    seed_all, set_rng_state, set_rng_state_all,
)
from . import (  # noqa: F401  (torch.cuda's submodules)
    _allocator, _runtime, _storages, gds, graphs, green_contexts, jiterator, nccl, nvtx,
    profiler, sparse, tunable,
)
from ._allocator import *  # noqa: F401,F403  (memory_summary, MemPool, caching_allocator_*...)
from ._runtime import *  # noqa: F401,F403  (OutOfMemoryError, CudaError, get_arch_list...)
from ._storages import *  # noqa: F401,F403  (torch.cuda.FloatStorage & co)
from .graphs import (  # noqa: F401
    CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing, make_graphed_callables,
)
from .green_contexts import GreenContext  # noqa: F401

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "device_of", "synchronize", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "initial_seed", "get_device_name", "get_device_capability", "get_device_properties",
           "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "is_initialized", "init", "Stream", "Event", "current_stream", "default_stream",
           "stream", "current_blas_handle", "comm", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
           "is_bf16_supported", "get_rng_state", "get_rng_state_all", "set_rng_state",
           "set_rng_state_all", "default_generators", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "mem_get_info",
           "memory_stats", "memory_cached", "max_memory_cached", "reset_max_memory_cached",
           "set_per_process_memory_fraction", "ExternalStream", "StreamContext", "set_stream",
           "BFloat16Tensor", "Device", "CUDAGraph", "graph", "graph_pool_handle",
           "is_current_stream_capturing", "make_graphed_callables", "GreenContext", "gds",
           "graphs", "green_contexts", "jiterator", "nccl", "nvtx", "profiler", "sparse",
           "tunable"]
__all__ += _allocator.__all__ + _runtime.__all__ + _storages.__all__

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
    """Index of the current GPU (CuPy's current device)."""
    return _lazy_cupy().cuda.get_device_id()


def set_device(device):
    """Make ``device`` (an index, 'cuda:N' or a device) the current GPU."""
    idx = _index(device)
    if idx < 0:
        return
    _lazy_cupy().cuda.Device(idx).use()


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
            self.prev = current_device()
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
    """Block the host until all work queued on the GPU (default: the current one) is done."""
    cp = _lazy_cupy()
    with cp.cuda.Device(current_device() if device is None else _index(device)):
        cp.cuda.runtime.deviceSynchronize()


def get_device_name(device=None):
    cp = _lazy_cupy()
    idx = current_device() if device is None else _index(device)
    props = cp.cuda.runtime.getDeviceProperties(idx)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else name


def get_device_capability(device=None):
    cp = _lazy_cupy()
    idx = current_device() if device is None else _index(device)
    props = cp.cuda.runtime.getDeviceProperties(idx)
    return props["major"], props["minor"]


def get_device_properties(device=None):
    """The GPU's properties under torch's names (``total_memory``, ``multi_processor_count``,
    ``major``/``minor``...)."""
    from ._properties import _CudaDeviceProperties

    cp = _lazy_cupy()
    idx = current_device() if device is None else _index(device)
    return _CudaDeviceProperties(cp.cuda.runtime.getDeviceProperties(idx))


def is_bf16_supported(including_emulation=True):
    """True on a GPU of compute capability 8.0 or newer (native bfloat16); on an older one only
    with ``including_emulation`` (CuPy's bfloat16 arrays compute through float32 there, as
    torch's emulation does). False without a GPU."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or bool(including_emulation)


def current_blas_handle():
    """The cuBLAS handle of the current device (as an int)."""
    cp = _lazy_cupy()
    return int(cp.cuda.device.get_cublas_handle())


(DoubleTensor, FloatTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
 ByteTensor, BoolTensor) = CUDA_TYPES.values()  # torch.cuda.FloatTensor & co
BFloat16Tensor = _legacy_types._types(("bfloat16",), True, __name__)["BFloat16Tensor"]

Device = Union[_torch_device, str, int, None]  # what the device= arguments take


def __dir__():
    return sorted(set(globals()) | {"default_generators"})


def __getattr__(name):
    if name == "default_generators":  # one per visible GPU: known only once CuPy is looked up
        from .random import default_generators

        return default_generators()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
