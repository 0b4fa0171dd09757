"""Helpers shared by the benchmarks: a process that keeps one core busy (``--busy``), the
median and spread of repeated timings, and peak RSS above a baseline."""

import contextlib
import multiprocessing
import resource
import statistics


def _spin(stop):
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


@contextlib.contextmanager
def busy_core(enabled=True):
    """Inside the block another process spins on one core (a stand-in for other work on a
    shared machine); nothing happens when ``enabled`` is false."""
    if not enabled:
        yield
        return
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    proc = ctx.Process(target=_spin, args=(stop,), daemon=True)
    proc.start()
    try:
        yield
    finally:
        stop.set()
        proc.join(5)
        if proc.is_alive():
            proc.terminate()


def median_spread(values):
    """(median, min, max) of ``values``."""
    return statistics.median(values), min(values), max(values)


def peak_rss_mb():
    """This process's peak resident set size so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
