"""LayerNorm, BatchNorm (training) and exact GELU as standalone ops: numtorch against
PyTorch, forward alone and forward + backward, in one process.

Shapes: (12, 64, 128) (nanoGPT's README CPU model), (64, 128, 128) (minGPT gpt-micro) and
(64, 128, 512) (4M values); LayerNorm over the last dim, BatchNorm1d over dim 1, GELU exact;
GELU tanh (approximate='tanh'); then BatchNorm2d (training mode) at ResNet-18's shapes in
bench/train_resnet.py. The libraries take turns within each repeat; printed per row: the
median (``--stat best``: the best) time of each, the ratio numtorch / torch and, for the
median, the ratio's spread as the ratios of the two libraries' quartiles. ``--only`` picks
workloads by name prefix (``--only LayerNorm,GELU``). ``--threads N`` sets both libraries'
thread counts (numtorch splits long elementwise kernels across its intra-op threads, as torch
does); ``--clock cpu`` times the calling thread's CPU time instead of wall time (steadier on
a shared machine, but it leaves out work done on other threads, so use it with
``--threads 1``). This is a benchmark, not a test.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numtorch

try:
    import torch
except ImportError:
    torch = None

SHAPES = [(12, 64, 128), (64, 128, 128), (64, 128, 512)]
# BatchNorm2d in training mode at bench/train_resnet.py's ResNet-18 shapes (batch 16, 112x112)
BN2D_SHAPES = [(16, 64, 56, 56), (16, 64, 28, 28), (16, 128, 14, 14), (16, 256, 7, 7),
               (16, 512, 4, 4)]


def workloads(lib, shape):
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_()
    gy = lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    if len(shape) == 4:
        mods = {"BatchNorm2d": lib.nn.BatchNorm2d(shape[1])}
    else:
        mods = {"LayerNorm": lib.nn.LayerNorm(shape[-1]),
                "BatchNorm1d": lib.nn.BatchNorm1d(shape[1]), "GELU": lib.nn.GELU(),
                "GELU tanh": lib.nn.GELU("tanh")}
    out = {}
    for name, m in mods.items():
        def fwd(m=m):
            with lib.no_grad():
                m(x)

        def fwd_bwd(m=m):
            m(x).backward(gy)

        out[f"{name} fwd"] = fwd
        out[f"{name} f+b"] = fwd_bwd
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--stat", choices=("median", "best"), default="median")
    parser.add_argument("--only", default="", help="comma-separated workload name prefixes")
    args = parser.parse_args()
    only = tuple(p for p in args.only.split(",") if p)
    clock = time.perf_counter if args.clock == "wall" else time.thread_time
    libs = [("numtorch", numtorch)] + ([("torch", torch)] if torch is not None else [])
    if args.threads:
        for _, lib in libs:
            lib.set_num_threads(args.threads)
    print(f"{args.stat} of {args.repeats}, {args.clock} clock"
          + (f", {args.threads} thread(s)" if args.threads else ""))
    for shape in SHAPES + BN2D_SHAPES:
        runs = {name: workloads(lib, shape) for name, lib in libs}
        for op in runs["numtorch"]:
            if only and not op.startswith(only):
                continue
            times = {}
            for name in runs:
                runs[name][op]()
                times[name] = []
            for _ in range(args.repeats):
                for name in runs:
                    start = clock()
                    runs[name][op]()
                    times[name].append(clock() - start)
            pick = {name: np.percentile(t, [25, 50, 75]) if args.stat == "median" else
                    [min(t)] * 3 for name, t in times.items()}
            line = f"  {shape!s:18s} {op:16s}" + "".join(
                f" {name} {q[1] * 1e3:8.3f} ms" for name, q in pick.items())
            if torch is not None:
                nt, th = pick["numtorch"], pick["torch"]
                line += f"  ratio {nt[1] / th[1]:.2f}"
                if args.stat == "median":
                    line += f" ({nt[0] / th[2]:.2f}-{nt[2] / th[0]:.2f})"
            print(line)


if __name__ == "__main__":
    main()
