"""Side-by-side overhead benchmark: numtorch against PyTorch, each library in its own processes.

Run ``python bench/overhead.py`` (``--processes N`` processes per library, ``--repeats N``
timed repeats inside each). Each workload runs the same code on both libraries from the same
starting arrays; every process imports one library only, warms up, and keeps the best of its
repeats; the libraries' processes alternate, and the ratio of the two medians (numtorch time /
torch time) is compared with its goal, the spread being the range of per-pair ratios:

(a) a loop of 200 tiny forward+backward steps on an (8, 8) float32 tensor: per-op overhead
    with autograd; goal ratio <= 0.7 (issue 17).
(b) a 1024 x 1024 float32 matmul, forward and backward: BLAS-bound; goal ratio <= 1.05.
(c) one tiny op without grad (``x + y`` on (8, 8)): the bare dispatch cost, in microseconds
    (reported, no goal).

Why separate processes: with both libraries in one process, torch's OpenMP workers (which spin
after each of torch's ops) and NumPy's OpenBLAS workers share the cores, and whichever library
runs second pays for the other's spinning threads; the 1024^2 matmul measured 1.14-1.28 that
way and 0.98 in separate processes, where each GEMM runs as fast as the same call in NumPy.

This is a benchmark, not a test: the numbers depend on the machine and its load.
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


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
    ("(a) 200x tiny fwd+bwd, (8,8) f32", tiny_loop, "us/iter", 1e6, 0.7),
    ("(b) matmul 1024^2 f32 fwd+bwd", matmul_fwd_bwd, "ms/iter", 1e3, 1.05),
    ("(c) x + y, (8,8) f32, no grad", tiny_add, "us/op", 1e6, None),
]


def _import(name):
    """The library ``name`` ("numtorch" or "torch"), or None when torch is not installed."""
    if name == "numtorch":
        sys.path.insert(0, ROOT)  # a source checkout works uninstalled
        import numtorch

        return numtorch
    try:
        import torch
    except ImportError:  # the ratios need torch; numtorch's own times are still useful
        return None
    return torch


def child(args):
    """One library, one workload: print seconds per call (the best of the repeats)."""
    lib = _import(args.child)
    _, builder, _, _, _ = WORKLOADS[args.workload]
    run, per_call = builder(lib)
    timer = time.process_time if args.clock == "cpu" else time.perf_counter
    print(best_times([run], args.repeats, timer=timer)[0] / per_call)


def _in_process(name, index, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--workload",
           str(index), "--repeats", str(args.repeats), "--clock", args.clock]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{name} child failed:\n{out.stderr[-3000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    """Run every workload on both libraries and print times, ratios and PASS/MISS."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per process "
                        "(best kept)")
    parser.add_argument("--processes", type=int, default=5, help="processes per library "
                        "(median kept)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall time, or the process's CPU time (steadier on a shared "
                        "machine with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1)")
    parser.add_argument("--child", choices=["numtorch", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--workload", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    have_torch = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True,
                                check=False).returncode == 0
    libs = ["numtorch", "torch"] if have_torch else ["numtorch"]
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs; "
          f"{args.processes} processes per library, alternating, best of {args.repeats} "
          f"repeats in each ({args.clock} time); median over processes; "
          "ratio = numtorch / torch\n")
    header = (f"{'workload':34s} {'numtorch':>12s} {'torch':>12s} {'ratio':>7s} "
              f"{'pair range':>11s}  goal")
    print(header)
    print("-" * (len(header) + 12))
    results = []
    for index, (label, _, unit, scale, goal) in enumerate(WORKLOADS):
        times = {name: [] for name in libs}
        for _ in range(args.processes):
            for name in libs:
                times[name].append(_in_process(name, index, args))
        ours = statistics.median(times["numtorch"])
        line = f"{label:34s} {ours * scale:8.2f} {unit.split('/')[0]:3s}"
        if not have_torch:
            print(line)
            continue
        theirs = statistics.median(times["torch"])
        ratio = ours / theirs
        pairs = [a / b for a, b in zip(times["numtorch"], times["torch"])]
        line += (f" {theirs * scale:8.2f} {unit.split('/')[0]:3s} {ratio:7.2f} "
                 f"{min(pairs):5.2f}-{max(pairs):<5.2f}")
        if goal is not None:
            line += f"  <= {goal:<5}  {'PASS' if ratio <= goal else 'MISS'}"
        print(line, flush=True)
        results.append((label, ours, theirs, ratio, goal))
    if not have_torch:
        print("\ntorch is not installed, so no ratios: pip install -e '.[test]'")
    return results


if __name__ == "__main__":
    main()
