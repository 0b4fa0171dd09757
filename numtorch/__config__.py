"""``torch.__config__``: what this numtorch runs on, as text (``show``, ``parallel_info``)."""

import os
import platform


def _blas():
    """(NumPy's BLAS as its build records it, the threads it runs now or None)."""
    import numpy as np

    try:
        info = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        name = f"{info.get('name', 'BLAS')} {info.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - older NumPy: no dict form
        name = "the BLAS NumPy was built with"
    from . import _threads

    try:
        threads = _threads.blas_threads_now()
    except Exception:  # noqa: BLE001 - no BLAS library found to ask
        threads = None
    return name, threads


def show():
    """A description of the build: Python, NumPy, the BLAS, the optional backends found."""
    import numpy as np

    from . import __version__, cuda

    blas, _ = _blas()
    lines = [f"numtorch {__version__} built with:",
             f"  - Python {platform.python_version()} ({platform.python_implementation()})",
             f"  - NumPy {np.__version__}",
             f"  - BLAS: {blas}",
             f"  - CUDA: {'CuPy, available' if cuda.is_available() else 'not available'}"]
    try:
        import scipy

        lines.append(f"  - SciPy {scipy.__version__}")
    except ImportError:
        pass
    return "\n".join(lines) + "\n"


def parallel_info():
    """The thread counts numtorch uses and the environment variables that set them."""
    from . import get_num_interop_threads, get_num_threads

    _, blas_threads = _blas()
    lines = ["numtorch/Parallel:",
             f"\tget_num_threads() : {get_num_threads()}",
             f"\tget_num_interop_threads() : {get_num_interop_threads()}",
             f"\tBLAS threads : {blas_threads if blas_threads is not None else 'unknown'}",
             f"os.cpu_count() : {os.cpu_count()}",
             "Environment variables:"]
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        lines.append(f"\t{var} : {os.environ.get(var, '[not set]')}")
    lines.append("Parallel backend: BLAS threads and Python threads (NumPy releases the GIL)")
    return "\n".join(lines) + "\n"


def _cxx_flags():
    return ""
