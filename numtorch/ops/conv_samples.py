"""Convolutions split over the samples of the batch: one part per core, BLAS on one thread in
each part.

Why: with a multi-threaded BLAS only the GEMMs of a convolution use both cores; its im2col
copies, col2im adds, Winograd transforms and bias sums run on the calling thread (or are split
one pass at a time, each split a hand-off). Torch runs all of it on every core. Samples are
independent, so a batch cut into contiguous parts, each convolved start to end on its own
thread with a one-thread BLAS, keeps every core busy through all of it with a single hand-off
per op; the weight gradient is the sum of the parts' partial sums. NumPy and OpenBLAS release
the GIL inside each call, so only the Python between calls is serialised.

Parts run only while BLAS may use several threads (``numtorch._threads`` caps it at the cores
other processes leave free): on busy cores a second part would wait for a core. Inside a part
every nested split stays on its thread (BLAS then reports one thread), and the convolution
blocks its columns as for a one-thread BLAS (``in_part``).

Splitting changes only the order in which the weight and bias gradients add up the samples
(float rounding), and outputs and input gradients only as far as GEMMs over fewer columns round
differently.
"""

import threading

import numpy as np

from ..backend import is_device_array
from . import _intraop

# multiply-adds a part must have: below, the hand-off costs more than the second core saves
_MIN_PART_MACS = 1 << 22
_local = threading.local()


def in_part():
    """Whether this thread is computing one part of a split batch."""
    return getattr(_local, "part", False)


def parts(arrays, n, macs):
    """How many parts a convolution of ``n`` samples and ``macs`` multiply-adds over NumPy
    ``arrays`` is split into (1: not split)."""
    if n < 2 or macs < 2 * _MIN_PART_MACS or in_part():
        return 1
    for a in arrays:
        if a is not None and is_device_array(a):
            return 1  # device arrays: their own kernels are parallel
    return max(1, min(_free_cores(), n, macs // _MIN_PART_MACS))


def _free_cores():
    """The threads BLAS may use now: the user's count, capped while other processes hold
    the cores (1 then, or when BLAS already runs one thread)."""
    from .. import _threads

    _threads.fit_blas_threads()
    if _intraop._cores_taken():
        return 1
    return _threads.blas_threads_now()


def _run(kernel, lo, hi):
    _local.part = True
    try:
        return _intraop._quiet(kernel, lo, hi)
    finally:
        _local.part = False


def run(kernel, n, k):
    """``[kernel(lo, hi) for each of k contiguous sample ranges covering [0, n)]``, the ranges
    computed concurrently with BLAS on one thread; the first on the calling thread."""
    from .._threads import single_blas_thread

    step = -(-n // k)
    bounds = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    with single_blas_thread():
        pool = _intraop._executor(len(bounds) - 1)
        futures = [pool.submit(_run, kernel, lo, hi) for lo, hi in bounds[1:]]
        _local.part = True
        # the calling thread's part never splits again either (as on the workers): marked
        # busy, its nested copies and splits skip the thread-count lock and BLAS query
        was_busy = getattr(_intraop._worker, "busy", False)
        _intraop._worker.busy = True
        try:
            with np.errstate(all="ignore"):
                first = kernel(*bounds[0])
        finally:
            _local.part = False
            _intraop._worker.busy = was_busy
            rest = [f.result() for f in futures]
    return [first] + rest


def joined(results):
    """The parts' per-sample results as one batch: one copy, each part's share copied on its
    own core (on the calling thread alone it would be the serial tail of every split op)."""
    first = results[0]
    starts = np.cumsum([0] + [len(r) for r in results])
    out = np.empty((int(starts[-1]),) + first.shape[1:], dtype=np.result_type(*results))

    def copy(lo, hi):
        for i in range(lo, hi):
            np.copyto(out[starts[i]:starts[i + 1]], results[i])

    _intraop.split(copy, len(results), out.size // len(results))
    return out


def summed(results):
    """The parts' partial sums (weight or bias gradients) added up, in part order.

    Large sums are added up split across the cores (``_intraop.split``): the serial adds ran
    on the calling thread while the others waited (ResNet-18's 47 MB of weight gradients
    every step). Each element still adds its parts in part order, so the values are those of
    the serial sum."""
    total = results[0]
    rest = results[1:]
    flat = (isinstance(total, np.ndarray) and total.flags.c_contiguous
            and total.flags.writeable and all(
                isinstance(r, np.ndarray) and r.flags.c_contiguous and r.shape == total.shape
                for r in rest))
    if not flat or not rest:
        for r in rest:
            total += r
        return total
    whole = total.reshape(-1)
    parts_ = [r.reshape(-1) for r in rest]

    def add(lo, hi):
        for r in parts_:
            whole[lo:hi] += r[lo:hi]

    _intraop.split(add, whole.size)
    return total
