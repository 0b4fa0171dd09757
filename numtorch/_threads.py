"""``set_num_threads`` / ``get_num_threads``: the thread count of the BLAS libraries numtorch uses,
and how that count follows the load on the machine.

NumPy's wheels bundle OpenBLAS, and SciPy's bundle a second copy (used by the LU, triangular
solve and inverse paths); each has its own thread pool, and their thread-count setters are
found by symbol name in the bundled libraries. Elementwise NumPy work is single-threaded anyway.

Why the count follows the load: OpenBLAS splits every GEMM above ~64^3 multiply-adds across its
threads and waits for all of them, spinning. When other processes keep the cores busy, one part
waits for a scheduler slice, and a step that takes 4 ms on one thread took 100-200 ms on two
(measured: five GEMMs of a 784-512-512 MLP step on this 2-core machine, load ~6). So before
GEMMs numtorch looks, at most every ``_PERIOD`` seconds, at how many tasks of *other* processes
are runnable (``/proc/loadavg`` minus this process's own running threads) and lets BLAS use at
most the cores left free (never fewer than one, never more than the user's count); a quieter
machine gets the threads back after a few calm samples. ``NUMTORCH_BLAS_ADAPT=0`` turns this off.
"""

import ctypes
import glob
import os
import sys
import threading
import time

import numpy as np

__all__ = ["set_num_threads", "get_num_threads", "get_num_interop_threads",
           "set_num_interop_threads"]

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads_64_",
            "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
            "openblas_set_num_threads", "MKL_Set_Num_Threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads_64_",
            "scipy_openblas_get_num_threads", "openblas_get_num_threads64_",
            "openblas_get_num_threads", "MKL_Get_Max_Threads")
_PERIOD = 0.1  # seconds between two looks at the machine's load
_CALM = 3  # calm looks in a row before threads are given back
_BUSY = 3  # busy looks in a row (_PERIOD apart) before BLAS gives up a core
_state = {"lib": None, "searched": False, "scipy": None, "interop": 1, "user": None,
          "cap": None, "calm": 0, "busy": 0, "next": 0.0,
          "adapt": os.environ.get("NUMTORCH_BLAS_ADAPT", "1") != "0"
          and os.path.exists("/proc/loadavg")}


def _load(roots):
    """(setter, getter) of the first BLAS library under ``roots`` that exports both."""
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
                _state.setdefault("lib_path", path)  # NumPy's is searched first
                return setter, getter
    return None


def _blas():
    """NumPy's BLAS as (setter, getter), or None for an unusual build."""
    if not _state["searched"]:
        _state["searched"] = True
        _state["lib"] = _load([os.path.join(os.path.dirname(os.path.dirname(np.__file__)),
                                            "numpy.libs"),
                               os.path.join(os.path.dirname(np.__file__), ".dylibs")])
    return _state["lib"]


def _scipy_blas():
    """SciPy's own BLAS once ``scipy.linalg`` is loaded (never loaded here just to set it)."""
    lib = _state["scipy"]
    if lib is None and "scipy.linalg" in sys.modules:
        import scipy

        root = os.path.dirname(os.path.dirname(scipy.__file__))
        lib = _load([os.path.join(root, "scipy.libs"), os.path.join(
            os.path.dirname(scipy.__file__), ".dylibs")]) or False
        _state["scipy"] = lib
    return lib or None


def _apply(num):
    """Give every BLAS library ``num`` threads (under ``_lock``)."""
    for lib in (_blas(), _scipy_blas()):
        if lib is not None and int(lib[1]()) != num:
            lib[0](ctypes.c_int(num))


def _user():
    """The user's thread count: what NumPy's BLAS started with until ``set_num_threads``."""
    if _state["user"] is None:
        blas = _blas()
        _state["user"] = int(blas[1]()) if blas is not None else (os.cpu_count() or 1)
    return _state["user"]


def _target():
    cap = _state["cap"]
    return _user() if cap is None else max(1, min(_user(), cap))


# BLAS's thread count is one value for the whole process, while ``single_blas_thread`` blocks
# run in any thread and overlap. So the blocks are counted, under one lock with every change:
# the first block to enter drops BLAS to one thread, the last to leave applies the count that
# holds *then* (the user's, as capped by the load); ``get_num_threads`` answers the user's.
_lock = threading.Lock()
_blocks = {"depth": 0}


def set_num_threads(num):
    """Set the number of threads BLAS calls (matmul, linear algebra) may use.

    Note:
        numtorch uses fewer while other processes keep the cores busy (see the module
        docstring; ``NUMTORCH_BLAS_ADAPT=0`` turns that off). When NumPy's BLAS cannot be
        found (an unusual build), this records the value and changes nothing, as torch does
        on builds without intra-op parallelism.
    """
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    with _lock:
        _state["user"] = num
        if not _blocks["depth"]:
            _apply(_target())


def get_num_threads():
    """The number of threads BLAS calls may use (the user's setting)."""
    with _lock:
        return _user()


def blas_threads_now():
    """How many threads NumPy's BLAS uses at this moment (the cap and one-thread blocks
    included); 1 when it cannot be found."""
    blas = _blas()
    return int(blas[1]()) if blas is not None else 1


def small_gemm_kernels():
    """Whether NumPy's OpenBLAS runs GEMMs of at most 100^3 multiply-adds with its
    small-matrix kernels (the AVX-512 cores since 0.3.17), which skip packing the operands:
    with a batch of 20 columns they reach ~100 GFLOP/s against ~75 just above that size."""
    got = _state.get("small")
    if got is None:
        got = False
        if _blas() is not None:
            path = _state.get("lib_path")
            lib = ctypes.CDLL(path) if path else None
            for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                         "openblas_get_corename64_", "openblas_get_corename"):
                fn = getattr(lib, name, None)
                if fn is not None:
                    fn.restype = ctypes.c_char_p
                    got = fn().decode().lower() in _SMALL_KERNEL_CORES
                    break
        _state["small"] = got
    return got


_SMALL_KERNEL_CORES = ("skylakex", "cooperlake", "sapphirerapids")


def _own_running():
    """This process's threads in state R (spinning BLAS workers included)."""
    own = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        own += stat[stat.rindex(b")") + 2:stat.rindex(b")") + 3] == b"R"
    return own


def _look():
    """One reading of other processes' runnable tasks. Our own threads are counted just
    before and just after ``/proc/loadavg`` and the larger count is taken: a worker that
    stops between the two reads would otherwise pass for another process's task."""
    before = _own_running()
    with open("/proc/loadavg", "rb") as f:
        running = int(f.read().split()[3].split(b"/")[0])
    if running <= 1:
        return 0
    return max(0, running - max(before, _own_running()))


def _running_elsewhere():
    """Runnable tasks of other processes right now (``/proc/loadavg`` counts everyone's).

    A busy reading is confirmed by a second one and the smaller is kept: a kernel thread or a
    moment's task seen once on an idle machine must not take a core from BLAS."""
    others = _look()
    return min(others, _look()) if others else 0


def fit_blas_threads():
    """Called before GEMMs: at most every ``_PERIOD`` seconds, cap BLAS's threads at the cores
    that other processes leave free (a cheap clock check otherwise)."""
    now = time.monotonic()
    if now < _state["next"] or not _state["adapt"]:
        return
    _state["next"] = now + _PERIOD
    if _user() == 1:
        # one thread is already the floor: no need to read /proc (~0.2-0.5 ms a look with
        # the BLAS and intra-op workers' stat files, 2-4% of a nanoGPT step at 10 looks/s)
        return
    try:
        others = _running_elsewhere()
    except (OSError, ValueError, IndexError):
        _state["adapt"] = False  # no usable /proc: keep the user's count
        return
    cores = _cores()
    # /proc/loadavg counts the whole machine: on a share of its cores (a cpuset), expect a
    # proportional share of the others' tasks on ours
    free = max(1, cores - others * cores // max(cores, os.cpu_count() or cores))
    with _lock:
        cap = _state["cap"]
        busy = free < (cores if cap is None else cap)
        _state["busy"] = _state["busy"] + 1 if busy else 0
        if busy and _state["busy"] < _BUSY:
            _state["calm"] = 0  # not yet: a kernel thread or a moment's task on an idle machine
        elif busy or cap is None:
            _state["cap"], _state["calm"] = free, 0
        elif free > cap:
            _state["calm"] += 1
            if _state["calm"] >= _CALM:
                _state["cap"], _state["calm"] = free, 0
        else:
            _state["calm"] = 0
        fresh = _state["scipy"] is None and "scipy.linalg" in sys.modules  # its BLAS too
        if not _blocks["depth"] and (_state["cap"] != cap or fresh):
            _apply(_target())


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _reset_after_fork():
    # a child forked inside another thread's block inherits the count but not that thread
    global _lock
    _lock = threading.Lock()
    _state["next"] = 0.0
    if _blocks["depth"]:
        _blocks["depth"] = 0
        _apply(_target())


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
    """Run a block with BLAS on one thread (the count in force comes back after).

    Why: a loop of small dependent GEMMs (a recurrent layer's time steps, one LAPACK call per
    matrix of a batch) gains nothing from a second BLAS thread, and when the cores are busy
    the threads' hand-offs cost more than the GEMMs themselves (measured 1.2 ms instead of
    50 us per step on a loaded 2-core machine). Blocks may overlap across threads; see
    ``_blocks`` for how the setting stays the user's.
    """

    __slots__ = ()

    def __enter__(self):
        with _lock:
            if _blocks["depth"] == 0:
                _user()
                _apply(1)
            _blocks["depth"] += 1
        return self

    def __exit__(self, *exc):
        with _lock:
            _blocks["depth"] -= 1
            if _blocks["depth"] == 0:
                _apply(_target())
        return False
