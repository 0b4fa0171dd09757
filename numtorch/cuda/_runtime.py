"""``torch.cuda``'s runtime queries and error classes, answered by CuPy's CUDA runtime.

Without CuPy or a GPU each name behaves as in torch's CPU-only build: most raise torch's
"Torch not compiled with CUDA enabled" ``AssertionError``, the lists and flags are empty or
False, and the NVML queries need ``nvidia-ml-py`` (``pynvml``) as torch's do.
"""

from .. import backend
from .._errors_device import AcceleratorError, OutOfMemoryError  # noqa: F401  (re-exported)
from .streams import _cupy, _index

__all__ = ["CudaError", "DeferredCudaCallError", "cudaStatus", "check_error", "cudart",
           "can_device_access_peer", "current_solver_handle", "get_arch_list",
           "get_gencode_flags", "is_tf32_supported", "ipc_collect", "get_stream_from_external",
           "set_sync_debug_mode", "get_sync_debug_mode", "has_half", "has_magma",
           "list_gpu_processes", "clock_rate", "device_memory_used", "memory_usage",
           "power_draw", "temperature", "utilization", "OutOfMemoryError", "AcceleratorError"]

has_half = True  # float16 arithmetic on the GPU (CuPy's float16 arrays)
has_magma = False  # numtorch's GPU linear algebra is CuPy's (cuSOLVER), not MAGMA


class cudaStatus:
    """The two CUDA status codes torch names (``cudaSuccess``, ``cudaErrorNotReady``)."""

    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


class CudaError(RuntimeError):
    """A CUDA runtime error code, with the runtime's description of it."""

    def __init__(self, code):
        if backend.cupy_or_none() is None:
            raise AttributeError("'NoneType' object has no attribute 'cudaGetErrorString'")
        # CuPy words a status code as "cudaErrorName: description"; torch keeps the description
        text = str(_cupy().cuda.runtime.CUDARuntimeError(int(code))).split(": ", 1)[-1]
        super().__init__(f"{text} ({code})")


class DeferredCudaCallError(Exception):
    """A call queued until CUDA initialised failed when it finally ran."""


def check_error(res):
    """Raise :class:`CudaError` when the CUDA runtime result code ``res`` is not success."""
    if backend.cupy_or_none() is None:
        raise AttributeError("'NoneType' object has no attribute 'cudaError'")
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


def cudart():
    """The CUDA runtime bindings in use (CuPy's ``cupy.cuda.runtime``)."""
    return _cupy().cuda.runtime


def can_device_access_peer(device, peer_device):
    """True when GPU ``device`` can read and write ``peer_device``'s memory directly."""
    cp = _cupy()
    a, b = _index(device), _index(peer_device)
    n = cp.cuda.runtime.getDeviceCount()
    if not 0 <= a < n:
        raise AssertionError("Invalid device id")
    if not 0 <= b < n:
        raise AssertionError("Invalid peer device id")
    return bool(cp.cuda.runtime.deviceCanAccessPeer(a, b))


def current_solver_handle():
    """The cuSOLVER dense handle of the current GPU, as an int."""
    cp = _cupy()
    return int(cp.cuda.device.get_cusolver_handle())


def _capability(index=None):
    cp = _cupy()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.get_device_id() if index is None
                                                 else index)
    return props["major"], props["minor"]


def get_arch_list():
    """The GPU architectures kernels are built for: CuPy compiles its kernels at run time for
    the GPUs present, so the current GPU's (``['sm_90']`` on an H100); empty without CUDA."""
    if backend.cupy_or_none() is None:
        return []
    major, minor = _capability()
    return [f"sm_{major}{minor}"]


def get_gencode_flags():
    """The nvcc ``-gencode`` flags matching :func:`get_arch_list` ("" without CUDA)."""
    return " ".join(f"-gencode compute=compute_{a.split('_')[1]},code={a}"
                    for a in get_arch_list())


def is_tf32_supported():
    """True on GPUs with TensorFloat-32 matmul units (compute capability 8.0 and later)."""
    if backend.cupy_or_none() is None:
        return False
    return _capability()[0] >= 8


def ipc_collect():
    """Free the GPU memory other processes have released (numtorch shares none between
    processes, so this returns CuPy's cached blocks to the driver)."""
    cp = _cupy()
    backend.helpers_for(cp).empty_cache()


def get_stream_from_external(data_ptr, device=None):
    """A :class:`Stream` around a ``cudaStream_t`` made by another library."""
    _cupy()
    from .streams import ExternalStream

    return ExternalStream(data_ptr, device=device)


_SYNC_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode):
    """Warn (1, "warn") or raise (2, "error") when a copy from the GPU to the host blocks the
    host (``.cpu()``, ``.numpy()`` of a copy, ``.item()``); 0 or "default" turns it off."""
    _cupy()
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               "`warn`, `error`")
        debug_mode = _SYNC_MODES[debug_mode]
    backend.helpers_for(backend.cupy_or_none()).SYNC_DEBUG[0] = int(debug_mode)


def get_sync_debug_mode():
    """The mode :func:`set_sync_debug_mode` set (0 by default)."""
    _cupy()
    return backend.helpers_for(backend.cupy_or_none()).SYNC_DEBUG[0]


# -- NVML queries (torch reads them through nvidia-ml-py, and so does numtorch) -------------------
def _nvml_handle(device):
    try:
        import pynvml
    except ModuleNotFoundError:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be "
                                  "imported.") from None
    pynvml.nvmlInit()
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_index(device))


def list_gpu_processes(device=None):
    """A readable list of the processes using ``device`` and their GPU memory."""
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    nvml, handle = _nvml_handle(device)
    lines = [f"GPU:{_index(device)}"]
    procs = nvml.nvmlDeviceGetComputeRunningProcesses(handle)
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB "
                     "GPU memory")
    return "\n".join(lines)


def clock_rate(device=None):
    """The SM clock of ``device`` in MHz."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetClockInfo(handle, 1)  # NVML_CLOCK_SM


def device_memory_used(device=None):
    """GPU memory in use on ``device`` by every process, in bytes."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetMemoryInfo(handle).used


def memory_usage(device=None):
    """Percent of the last sample period in which ``device``'s memory was read or written."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(handle).memory


def power_draw(device=None):
    """``device``'s power draw in milliwatts."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetPowerUsage(handle)


def temperature(device=None):
    """``device``'s temperature in degrees Celsius."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetTemperature(handle, 0)  # NVML_TEMPERATURE_GPU


def utilization(device=None):
    """Percent of the last sample period in which a kernel ran on ``device``."""
    nvml, handle = _nvml_handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(handle).gpu
