"""``set_num_threads`` / ``get_num_threads``: the thread count of the BLAS NumPy uses.

NumPy's wheels bundle OpenBLAS; its thread-count setter is found by symbol name in the
libraries the process has loaded. Elementwise NumPy work is single-threaded anyway.
"""

import ctypes
import glob
import os
import threading

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


# BLAS's thread count is one value for the whole process, while ``single_blas_thread`` blocks
# run in any thread and overlap. So the blocks are counted, under one lock with every change:
# the first block to enter remembers the user's value and drops BLAS to one thread, the last
# to leave puts back the user's value *as it is then* (a ``set_num_threads`` made meanwhile is
# recorded, not overwritten), and ``get_num_threads`` always answers the user's value.
_lock = threading.Lock()
_blocks = {"depth": 0, "user": None}


def set_num_threads(num):
    """Set the number of threads BLAS calls (matmul, linear algebra) may use.

    Note:
        When NumPy's BLAS cannot be found (an unusual build), this records the value and
        changes nothing, as torch does on builds without intra-op parallelism.
    """
    if not isinstance(num, int) or isinstance(num, bool) or num <= 0:
        raise RuntimeError(f"set_num_threads expects a positive integer, but got {num!r}")
    blas = _blas()
    with _lock:
        if _blocks["depth"]:
            _blocks["user"] = num  # applied when the last one-thread block ends
        elif blas is not None:
            blas[0](ctypes.c_int(num))
        _state["threads"] = num


def get_num_threads():
    """The number of threads BLAS calls use (outside numtorch's one-thread blocks)."""
    blas = _blas()
    with _lock:
        if _blocks["depth"]:
            return _blocks["user"]
        if blas is not None:
            return int(blas[1]())
        return _state.get("threads", os.cpu_count() or 1)


def _reset_after_fork():
    # a child forked inside another thread's block inherits the count but not that thread
    global _lock
    _lock = threading.Lock()
    if _blocks["depth"]:
        _blocks["depth"] = 0
        blas = _blas()
        if blas is not None:
            blas[0](ctypes.c_int(_blocks["user"]))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def get_num_interop_threads():
    """Inter-op parallelism: numtorch runs ops one after another (1, unless set)."""
    return _state["interop"]


def set_num_interop_threads(num):
    """Accepted for compatibility; numtorch does not run independent ops concurrently."""
    if not isinstance(num, int) or num <= 0:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, got {num!r}")
    _state["interop"] = num


class single_blas_thread:
    """Run a block with BLAS on one thread (the user's setting comes back after).

    Why: a loop of small dependent GEMMs (a recurrent layer's time steps) gains nothing from
    a second BLAS thread, and when the cores are busy the threads' hand-offs cost more than the
    GEMMs themselves (measured 1.2 ms instead of 50 us per step on a loaded 2-core machine).
    Blocks may overlap across threads; see ``_blocks`` for how the setting stays the user's.
    """

    __slots__ = ()

    def __enter__(self):
        blas = _blas()
        if blas is None:
            return self
        with _lock:
            if _blocks["depth"] == 0:
                user = int(blas[1]())
                _blocks["user"] = user
                if user != 1:
                    blas[0](ctypes.c_int(1))
            _blocks["depth"] += 1
        return self

    def __exit__(self, *exc):
        blas = _blas()
        if blas is None:
            return False
        with _lock:
            _blocks["depth"] -= 1
            if _blocks["depth"] == 0 and _blocks["user"] != 1:
                blas[0](ctypes.c_int(_blocks["user"]))
        return False
