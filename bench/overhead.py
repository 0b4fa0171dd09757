"""Side-by-side overhead benchmark: numtorch against PyTorch, in one process.

Run ``python bench/overhead.py`` (``--repeats N`` for more repeats). Each workload runs the
same code on both libraries from the same starting arrays; after a warm-up the best of several
repeats is kept, and the ratio numtorch time / torch time is compared with its goal:

(a) a loop of 200 tiny forward+backward steps on an (8, 8) float32 tensor: per-op overhead
    with autograd; goal ratio <= 1.5.
(b) a 1024 x 1024 float32 matmul, forward and backward: BLAS-bound; goal ratio <= 1.05.
(c) one tiny op without grad (``x + y`` on (8, 8)): the bare dispatch cost, in microseconds
    (reported, no goal).

This is a benchmark, not a test: the numbers depend on the machine and its load.
"""

import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numtorch  # noqa: E402  (after the path tweak, so a source checkout works uninstalled)

try:
    import torch
except ImportError:  # the ratios need torch; numtorch's own times are still useful
    torch = None


def best_times(fns, repeats, warmup=2, timer=time.perf_counter):
    """Best time (``timer``: wall by default) of each function in ``fns`` over ``repeats`` runs.

    The functions take turns within every repeat, so a burst of load from elsewhere on the
    machine slows all of them rather than whichever happened to be running.
    """
    for fn in fns:
        for _ in range(warmup):
            fn()
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = timer()
            fn()
            best[i] = min(best[i], timer() - start)
    return best


def tiny_loop(lib, steps=200):
    """Workload (a): 200 tiny fused-looking steps, each its own small graph and backward."""
    x = lib.from_numpy(np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32))
    x.requires_grad_(True)

    def run():
        for _ in range(steps):
            y = (x * 1.0001 + 0.5).tanh().sum()
            y.backward()

    return run, steps


def matmul_fwd_bwd(lib, n=1024):
    """Workload (b): ``(x @ w).sum().backward()`` on n x n float32 (three GEMMs)."""
    rng = np.random.default_rng(1)
    x = lib.from_numpy(rng.standard_normal((n, n)).astype(np.float32)).requires_grad_(True)
    w = lib.from_numpy(rng.standard_normal((n, n)).astype(np.float32)).requires_grad_(True)

    def run():
        (x @ w).sum().backward()

    return run, 1


def tiny_add(lib, calls=2000):
    """Workload (c): ``x + y`` on (8, 8) float32 with no tensor requiring grad."""
    rng = np.random.default_rng(2)
    x = lib.from_numpy(rng.standard_normal((8, 8)).astype(np.float32))
    y = lib.from_numpy(rng.standard_normal((8, 8)).astype(np.float32))

    def run():
        for _ in range(calls):
            x + y

    return run, calls


WORKLOADS = [
    # (label, builder, unit, scale to unit, goal ratio or None)
    ("(a) 200x tiny fwd+bwd, (8,8) f32", tiny_loop, "us/iter", 1e6, 1.5),
    ("(b) matmul 1024^2 f32 fwd+bwd", matmul_fwd_bwd, "ms/iter", 1e3, 1.05),
    ("(c) x + y, (8,8) f32, no grad", tiny_add, "us/op", 1e6, None),
]


def measure(builder, libs, repeats, timer=time.perf_counter):
    """Seconds per iteration of one workload on each library in ``libs``."""
    runs = [builder(lib) for lib in libs]
    times = best_times([run for run, _ in runs], repeats, timer=timer)
    return [t / per_call for t, (_, per_call) in zip(times, runs)]


def main(argv=None):
    """Run every workload on both libraries and print times, ratios and PASS/MISS."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats (best kept)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall time, or this process's CPU time (steadier on a shared "
                        "machine; see also bench/small_loop.py, one library per process)")
    args = parser.parse_args(argv)
    timer = time.process_time if args.clock == "cpu" else time.perf_counter

    print(f"numtorch {numtorch.__version__}, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed'}, "
          f"python {platform.python_version()}, {os.cpu_count()} CPUs")
    print(f"best of {args.repeats} repeats after warm-up ({args.clock} time); "
          "ratio = numtorch / torch\n")
    header = f"{'workload':34s} {'numtorch':>12s} {'torch':>12s} {'ratio':>7s}  goal"
    print(header)
    print("-" * (len(header) + 12))
    results = []
    for label, builder, unit, scale, goal in WORKLOADS:
        ours, theirs = measure(builder, [numtorch, torch] if torch else [numtorch],
                               args.repeats, timer) + ([] if torch else [None])
        ratio = ours / theirs if theirs else None
        line = f"{label:34s} {ours * scale:8.2f} {unit.split('/')[0]:3s}"
        if theirs is None:
            print(line)
            continue
        line += f" {theirs * scale:8.2f} {unit.split('/')[0]:3s} {ratio:7.2f}"
        if goal is not None:
            line += f"  <= {goal:<5}  {'PASS' if ratio <= goal else 'MISS'}"
        print(line)
        results.append((label, ours, theirs, ratio, goal))
    if torch is None:
        print("\ntorch is not installed, so no ratios: pip install -e '.[test]'")
    return results


if __name__ == "__main__":
    main()
