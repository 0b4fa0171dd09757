"""``set_num_threads`` / ``get_num_threads``: the thread count of the BLAS NumPy uses.

NumPy's wheels bundle OpenBLAS; its thread-count setter is found by symbol name in the
libraries the process has loaded. Elementwise NumPy work is single-threaded anyway.
"""

import ctypes
import glob
import os

import numpy as np

__all__ = ["set_num_threads", "get_num_threads", "get_num_interop_threads",
           "set_num_interop_threads"]

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads_64_",
            "openblas_set_num_threads64_", "openblas_set_num_threads", "MKL_Set_Num_Threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads_64_",
            "openblas_get_num_threads64_", "openblas_get_num_threads", "MKL_Get_Max_Threads")
_state = {"lib": None, "searched": False, "interop": 1}


def _blas():
    if _state["searched"]:
        return _state["lib"]
    _state["searched"] = True
    roots = [os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs"),
             os.path.join(os.path.dirname(np.__file__), ".dylibs")]
    for root in roots:
        for path in glob.glob(os.path.join(root, "*openblas*")) + glob.glob(
                os.path.join(root, "*mkl*")):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            setter = next((getattr(lib, s) for s in _SETTERS if hasattr(lib, s)), None)
            getter = next((getattr(lib, s) for s in _GETTERS if hasattr(lib, s)), None)
            if setter is not None and getter is not None:
                _state["lib"] = (setter, getter)
                return _state["lib"]
    return None


def set_num_threads(num):
    """Set the number of threads BLAS calls (matmul, linear algebra) may use.

    Note:
        When NumPy's BLAS cannot be found (an unusual build), this records the value and
        changes nothing, as torch does on builds without intra-op parallelism.
    """
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, but got {num!r}")
    blas = _blas()
    if blas is not None:
        blas[0](ctypes.c_int(num))
    _state["threads"] = num


def get_num_threads():
    """The number of threads BLAS calls use."""
    blas = _blas()
    if blas is not None:
        return int(blas[1]())
    return _state.get("threads", os.cpu_count() or 1)


def get_num_interop_threads():
    """Inter-op parallelism: numtorch runs ops one after another (1, unless set)."""
    return _state["interop"]


def set_num_interop_threads(num):
    """Accepted for compatibility; numtorch does not run independent ops concurrently."""
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, got {num!r}")
    _state["interop"] = num


class single_blas_thread:
    """Run a block with BLAS on one thread (restored after).

    Why: a loop of small dependent GEMMs (a recurrent layer's time steps) gains nothing from
    a second BLAS thread, and when the cores are busy the threads' hand-offs cost more than the
    GEMMs themselves (measured 1.2 ms instead of 50 us per step on a loaded 2-core machine).
    """

    __slots__ = ("_prev",)

    def __enter__(self):
        blas = _blas()
        self._prev = None
        if blas is not None:
            prev = int(blas[1]())
            if prev != 1:
                self._prev = prev
                blas[0](ctypes.c_int(1))
        return self

    def __exit__(self, *exc):
        if self._prev is not None:
            _blas()[0](ctypes.c_int(self._prev))
        return False
