"""What handing half of an elementwise kernel to a second thread costs and saves: the
intra-op split of ``numtorch.ops._intraop`` measured on nanoGPT-sized passes.

    python bench/intraop_split.py [--repeats 300]

Prints, per row, the median and the 10th percentile (the machine's quiet moments) of the
wall time and the process CPU time (both threads) in microseconds:

* hand-offs: ``run_ranges`` with two no-op parts (a ``ThreadPoolExecutor`` submit, the
  caller's own part, the future's result) and, for comparison, the least a hand-off between
  two Python threads costs (a worker woken by one lock and answering with another);
* P passes (multiplies) over N float32 values, N = 98K (nanoGPT's (768, 128) activations:
  layer norm, residual adds, the optimizer's larger tensors) and 393K (its (768, 512) MLP
  hidden layer: GELU and its backward), whole on this thread and in two halves through
  ``run_ranges``;
* nanoGPT's layer norm forward, no grad (``F.layer_norm``, (12, 64, 128), no bias), whole and
  as two (6, 64, 128) halves on two threads (rows are independent: the same values).

A split pays when the wall time of the halves is below the whole's. The process CPU time
says what the split costs the machine. On a loaded machine the second thread waits for a core
and the split rows read slower than the whole ones: there the library keeps everything on one
thread (``_intraop._cores_taken``). A benchmark, not a test.
"""

import argparse
import os
import statistics
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numtorch
from numtorch.ops import _intraop


def _lock_pair():
    """A worker thread woken by one lock, answering on another: ``hand(fn)`` runs ``fn``
    there and waits for it."""
    go, done = threading.Lock(), threading.Lock()
    go.acquire()
    done.acquire()
    job = [None]

    def worker():
        while True:
            go.acquire()
            fn = job[0]
            if fn is None:
                return
            fn()
            done.release()

    threading.Thread(target=worker, daemon=True).start()

    def hand(fn):
        job[0] = fn
        go.release()
        done.acquire()

    def stop():
        job[0] = None
        go.release()

    return hand, stop


def measure(fn, repeats):
    """(wall median, wall p10, process CPU median, process CPU p10) in us."""
    for _ in range(max(10, repeats // 10)):
        fn()
    wall, cpu = [], []
    for _ in range(repeats):
        c0, t0 = time.process_time_ns(), time.perf_counter_ns()
        fn()
        t1, c1 = time.perf_counter_ns(), time.process_time_ns()
        wall.append((t1 - t0) / 1e3)
        cpu.append((c1 - c0) / 1e3)
    wall.sort()
    cpu.sort()
    return (statistics.median(wall), wall[len(wall) // 10], statistics.median(cpu),
            cpu[len(cpu) // 10])


def row(label, stats):
    print(f"  {label:38s} wall {stats[0]:8.1f} (p10 {stats[1]:7.1f})   process CPU "
          f"{stats[2]:8.1f} (p10 {stats[3]:7.1f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=300)
    args = p.parse_args()
    numtorch.set_num_threads(2)
    reps = args.repeats
    print(f"us per call; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    def noop(lo, hi):
        return None

    print("hand-offs")
    row("run_ranges, two no-op parts", measure(lambda: _intraop.run_ranges(
        noop, [(0, 1), (1, 2)]), reps * 5))
    hand, stop = _lock_pair()
    row("lock pair, one no-op", measure(lambda: hand(lambda: None), reps * 5))
    stop()

    rng = np.random.default_rng(0)
    for n in (768 * 128, 768 * 512):
        x = rng.standard_normal(n).astype(np.float32)
        y = np.empty_like(x)
        for passes in (1, 6, 11):
            def kernel(lo, hi, passes=passes, x=x, y=y):
                a, b = x[lo:hi], y[lo:hi]
                for _ in range(passes):
                    np.multiply(a, np.float32(1.0001), out=b)
            half = n // 2
            print(f"{passes} pass(es) over {n} float32")
            row("whole", measure(lambda k=kernel, n=n: k(0, n), reps))
            row("two halves (run_ranges)", measure(
                lambda k=kernel, n=n, h=half: _intraop.run_ranges(k, [(0, h), (h, n)]), reps))

    F = numtorch.nn.functional
    x = numtorch.from_numpy(rng.standard_normal((12, 64, 128)).astype(np.float32))
    w = numtorch.ones(128)
    halves = (x[:6].contiguous(), x[6:].contiguous())

    def ln(lo, hi):
        F.layer_norm(halves[lo], (128,), w)

    print("layer norm (12, 64, 128) forward, no grad")
    with numtorch.no_grad():
        row("whole", measure(lambda: F.layer_norm(x, (128,), w), reps))
        row("two (6, 64, 128) halves, two threads", measure(
            lambda: _intraop.run_ranges(ln, [(0, 1), (1, 2)]), reps))


if __name__ == "__main__":
    main()
