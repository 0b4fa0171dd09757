"""Intra-op parallelism for long elementwise kernels on the CPU.

NumPy runs each ufunc on one core, while torch splits a large elementwise kernel across its
intra-op threads. A kernel of many passes (exact GELU is ~25) over a large array is split
here into contiguous parts, one per thread, each part running every pass: NumPy releases the
GIL inside each ufunc, so the parts run concurrently and only the few microseconds of Python
between ufunc calls are serialised. The thread count follows ``torch.set_num_threads``
(``numtorch.get_num_threads``); arrays with fewer than ``_MIN_PART`` elements per part stay on the
calling thread, where the hand-off would cost more than it saves. Elementwise kernels give
bit-identical results however they are split.

``NUMTORCH_INTRAOP_MIN_PART`` (an integer, read once when this module is imported) sets
``_MIN_PART``, default 131072 (1 << 17): a process run with another value measures another
threshold (bench/README.md, "Intra-op split threshold"). Kernels of several passes weigh each
element by their passes (``unit``), so they split from ``2 * _MIN_PART / passes`` elements.
"""

import os
import threading

import numpy as np


def _min_part(default=1 << 17):
    raw = os.environ.get("NUMTORCH_INTRAOP_MIN_PART", "").strip()
    try:
        value = int(raw, 0) if raw else default
    except ValueError:
        return default
    return max(1, value)


_MIN_PART = _min_part()  # elements per part, at least (hand-offs cost more on a busy machine)
_pool = {"executor": None, "size": 0}
_lock = threading.Lock()


def _executor(size):
    with _lock:
        if _pool["executor"] is None or _pool["size"] < size:
            from concurrent.futures import ThreadPoolExecutor

            old = _pool["executor"]
            _pool["executor"] = ThreadPoolExecutor(size, thread_name_prefix="numtorch-intraop")
            _pool["size"] = size
            if old is not None:
                old.shutdown(wait=False)
        return _pool["executor"]


def _forget_pool():
    # a forked child inherits the pool object but not its threads
    _pool["executor"] = None
    _pool["size"] = 0
    _helpers.clear()
    global _fanout
    _fanout = threading.Lock()  # (a fan-out of another thread may have held it at the fork)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


class _Worker(threading.local):
    busy = False  # (a class default: a missing thread-local attribute cost ~0.4 us a look)


_worker = _Worker()


def _quiet(kernel, lo, hi):
    # torch's kernels never warn; the worker threads need NumPy's error state set too. A
    # kernel running on a worker never splits again: its parts would queue behind the very
    # workers that wait for them.
    _worker.busy = True
    try:
        with np.errstate(all="ignore"):
            return kernel(lo, hi)
    finally:
        _worker.busy = False


def parts(n, unit=1):
    """How many parts a kernel over ``n`` items of ``unit`` elements each is split into."""
    if n * unit < 2 * _MIN_PART or n < 2 or getattr(_worker, "busy", False):
        return 1
    threads = _THREADS_MODULE[0]
    if threads is None:  # looked up once: the import statement cost ~2 us a call
        from .. import _threads as threads

        _THREADS_MODULE[0] = threads
    return max(1, min(threads.get_num_threads(), n * unit // _MIN_PART, n))


_THREADS_MODULE = [None]


def run_split(kernel, n, unit=1):
    """Call ``kernel(lo, hi)`` over contiguous ranges covering ``[0, n)`` (items of ``unit``
    elements: rows, for a kernel over rows), concurrently when the work is large and more
    than one thread is allowed; returns when every part is done."""
    k = parts(n, unit)
    if k == 1:
        kernel(0, n)
        return
    step = -(-n // k)
    run_ranges(kernel, [(lo, min(n, lo + step)) for lo in range(0, n, step)])


def run_ranges(kernel, bounds):
    """Call ``kernel(lo, hi)`` for every ``(lo, hi)`` of ``bounds`` at once: the first on
    this thread, the others on the intra-op helpers; returns when every one is done.

    The helpers are threads of their own, each woken by a lock and answering on another
    (``_Helper``): a hand-off took 22-23 us through a ``ThreadPoolExecutor`` (its queue,
    future and condition variables) and 6-15 us this way (two no-op parts, loaded 2-core
    machine, bench/intraop_split.py). One fan-out holds the helpers at a time: a call from
    another thread meanwhile (or from inside a part) runs its ranges one after another on
    its own thread, with the same results (the ranges are independent)."""
    if len(bounds) == 1:
        kernel(*bounds[0])
        return
    if not _fanout.acquire(blocking=False):
        kernel(*bounds[0])
        for lo, hi in bounds[1:]:
            _quiet_here(kernel, lo, hi)
        return
    try:
        while len(_helpers) < len(bounds) - 1:
            _helpers.append(_Helper())
        helpers = []  # those handed a part (all of them, unless interrupted meanwhile)
        try:
            for h, part in zip(_helpers, bounds[1:]):
                h.job = (kernel,) + tuple(part)
                h.go.release()
                helpers.append(h)
            kernel(*bounds[0])
        finally:
            error = None
            try:
                for h in helpers:
                    h.done.acquire()
                    if h.error is not None:
                        error = error or h.error
                        h.error = None
            except BaseException:
                # interrupted while a part may still run (Ctrl-C): its helpers are not
                # handed work again (each finishes its part and waits on its own)
                _helpers[:] = [h for h in _helpers if h not in helpers]
                raise
        if error is not None:
            raise error
    finally:
        _fanout.release()


def _quiet_here(kernel, lo, hi):
    """``_quiet`` on the calling thread, which may itself be inside a part."""
    was = getattr(_worker, "busy", False)
    try:
        _quiet(kernel, lo, hi)
    finally:
        _worker.busy = was


class _Helper:
    """A thread that runs ``job`` (kernel, lo, hi) through ``_quiet`` each time ``go`` is
    released, then releases ``done`` (an exception is kept in ``error``)."""

    __slots__ = ("done", "error", "go", "job")

    def __init__(self):
        self.go, self.done = threading.Lock(), threading.Lock()
        self.go.acquire()
        self.done.acquire()
        self.job = self.error = None
        threading.Thread(target=self._loop, name="numtorch-intraop-helper",
                         daemon=True).start()

    def _loop(self):
        while True:
            self.go.acquire()
            kernel, lo, hi = self.job
            self.job = None
            try:
                _quiet(kernel, lo, hi)
            except BaseException as e:  # noqa: BLE001 - raised again on the calling thread
                self.error = e
            finally:
                kernel = None
                self.done.release()


_helpers = []  # the _Helper threads, made as fan-outs first need them
_fanout = threading.Lock()  # held by the one run_ranges that uses the helpers


def _cores_taken():
    """Whether BLAS runs on one thread now: the user asked for one, or other processes hold
    the cores (``numtorch._threads`` then caps BLAS); a part handed to a second thread would
    wait for a core (the fused attention split measured 10-20% slower so at load 19)."""
    now = _THREADS_NOW[0]
    if now is None:  # looked up once (an import statement per call cost ~0.5 us)
        from .. import _threads

        now = getattr(_threads, "blas_threads_now", None)
        if now is None:
            return False
        _THREADS_NOW[0] = now
    return now() < 2


_THREADS_NOW = [None]


def split(kernel, n, unit=1):
    """``run_split``, except while ``_cores_taken``: then ``kernel(0, n)`` on this thread."""
    # parts() first: inside a split part it answers at once, without the BLAS query
    if parts(n, unit) == 1 or _cores_taken():
        kernel(0, n)
    else:
        run_split(kernel, n, unit)


def binary(ufunc, a, b):
    """``ufunc(a, b)`` for a large C-contiguous float array ``a`` and ``b`` a NumPy scalar of
    its dtype or a float array of ``a``'s shape and layout, written in parts of the flat values on the intra-op
    threads (``split``: whole while other processes hold the cores); None (nothing computed)
    for any other case, left to the caller's whole call. Elementwise, so the same bits."""
    n = a.size
    if a.__class__ is not np.ndarray or parts(n) == 1 or a.dtype.kind != "f" or \
            not a.flags.c_contiguous:
        return None
    if b.__class__ is np.ndarray:
        if b.shape != a.shape or b.dtype.kind != "f" or not b.flags.c_contiguous:
            return None
        flat_b = b.reshape(-1)
    elif isinstance(b, np.generic) and b.dtype == a.dtype:  # (a number joins in a's type)
        flat_b = None
    else:
        return None
    if _cores_taken():
        return None
    out = np.empty(a.shape, dtype=np.result_type(a, b))
    flat_a, flat_o = a.reshape(-1), out.reshape(-1)

    def kernel(lo, hi):
        ufunc(flat_a[lo:hi], b if flat_b is None else flat_b[lo:hi], out=flat_o[lo:hi])

    run_split(kernel, n)
    return out


def copy(src, out=None):
    """A C-contiguous copy of the (strided) NumPy array ``src``, written into ``out`` if given.

    The copy is split along the leading axis of ``src`` (or the second, when the first is too
    short to give every thread an even share): NumPy releases the GIL inside one large copy,
    so the parts run concurrently. im2col columns, col2im scatters and transposing copies
    around a multi-threaded GEMM are otherwise the single-threaded half of a convolution.
    """
    if out is None:
        out = np.empty(src.shape, dtype=src.dtype)
    k = parts(src.size) if src.ndim else 1
    if k > 1 and _cores_taken():
        k = 1
    axis = 0
    if k > 1 and src.shape[0] < 4 * k and src.shape[0] % k and src.ndim > 1 and \
            src.shape[1] > src.shape[0]:
        axis = 1
    n = src.shape[axis] if src.ndim else 1
    if k == 1 or n < 2:
        np.copyto(out, src)
        return out
    lead = (slice(None),) * axis

    def kernel(lo, hi):
        np.copyto(out[lead + (slice(lo, hi),)], src[lead + (slice(lo, hi),)])

    run_split(kernel, n, src.size // n)
    return out
