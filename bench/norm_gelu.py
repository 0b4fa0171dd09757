"""LayerNorm, BatchNorm (training) and GELU (exact and tanh) as standalone ops: numtorch
against PyTorch, forward alone (no graph) and forward + backward.

Shapes: layer norm (12, 64, 128) (nanoGPT's README CPU model: 768 rows of 128), (2, 768, 768)
((1536, 768): GPT-2 small rows) and (1, 4, 8) (per-call cost); GELU (768, 512) (that model's
MLP), (16384, 1536) (nanoGPT 64 x 256 tokens, n_embd 384) and (1, 4, 32); batch norm
(32, 32, 32, 32) (a ResNet block), (64, 32, 26, 26) (an MNIST conv net) and BatchNorm1d on
(64, 64) (mnist_rnn). Layer norm and batch norm have a random weight and bias; the backward
takes a random output gradient.

Two ways to run:
- default: both libraries in this process, taking turns within each repeat; printed per
  row: the median (``--stat best``: the best) time of each, the ratio numtorch / torch and,
  for the median, the ratio's spread as the ratios of the two libraries' quartiles.
- ``--processes K``: each library in its own fresh process, K processes each, alternating
  (numtorch, torch, numtorch, ...); each process reports its median over ``--repeats``;
  printed: the median of the K process medians with their min-max, and the ratio. Steadier
  on a shared machine (no cache or allocator state shared between the libraries).

``--only`` picks workloads by name prefix (``--only LayerNorm,GELU``); ``--threads N`` sets
both libraries' thread counts; ``--clock cpu`` times the calling thread's CPU time instead
of wall time (use it with ``--threads 1``). ``--cold`` runs the library's own
(768, 128) @ (128, 512) matmul (nanoGPT's MLP GEMM, untimed) before every timed call, so each
call starts from the caches a training step leaves (a warm loop keeps the op's arrays in L2).
Both libraries slow down: layer norm (12, 64, 128), one thread, CPU, loaded machine (s48):
forward numtorch 108 -> 214 us, torch 71 -> 120; forward + backward 370 -> 570 and
175 -> 338. This is a benchmark, not a test.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

CASES = [("LayerNorm", (12, 64, 128)), ("LayerNorm", (2, 768, 768)), ("LayerNorm", (1, 4, 8)),
         ("GELU", (768, 512)), ("GELU", (16384, 1536)), ("GELU", (1, 4, 32)),
         ("GELU tanh", (768, 512)), ("GELU tanh", (16384, 1536)), ("GELU tanh", (1, 4, 32)),
         ("BatchNorm2d", (32, 32, 32, 32)), ("BatchNorm2d", (64, 32, 26, 26)),
         ("BatchNorm1d", (64, 64))]
# ``--set s40``: nanoGPT / minGPT layer norm rows, GPT-2's MLP width, the two batch norms
CASES_S40 = [("LayerNorm", (12, 64, 768)), ("LayerNorm", (64, 256, 384)),
             ("LayerNorm", (16, 64, 128)), ("GELU", (12, 64, 3072)),
             ("GELU tanh", (12, 64, 3072)), ("BatchNorm2d", (32, 32, 32, 32)),
             ("BatchNorm2d", (64, 16, 32, 32))]
# ``--set s41``: issue #17's shapes (GPT-2 / nanoGPT rows, small rows, two conv batch norms)
# and two group norms (8 groups of a ResNet-sized map, 32 groups of a smaller one)
CASES_S41 = [("LayerNorm", (12, 64, 768)), ("LayerNorm", (64, 256, 384)),
             ("LayerNorm", (16, 64, 128)), ("GELU", (12, 64, 3072)), ("GELU", (16, 64, 512)),
             ("BatchNorm2d", (32, 32, 32, 32)), ("BatchNorm2d", (64, 64, 16, 16)),
             ("GroupNorm8", (32, 64, 32, 32)), ("GroupNorm32", (16, 128, 16, 16))]
_SETS = {"": CASES, "s40": CASES_S40, "s41": CASES_S41}


def _module(lib, name, shape, rng):
    if name == "LayerNorm":
        m = lib.nn.LayerNorm(shape[-1])
    elif name.startswith("GroupNorm"):  # GroupNormG: G groups
        m = lib.nn.GroupNorm(int(name[len("GroupNorm"):]), shape[1])
    elif name.startswith("BatchNorm"):
        m = getattr(lib.nn, name)(shape[1])
    else:
        return lib.nn.GELU("tanh" if name.endswith("tanh") else "none")
    with lib.no_grad():
        m.weight.copy_(lib.from_numpy(rng.standard_normal(m.weight.shape).astype(np.float32)))
        m.bias.copy_(lib.from_numpy(rng.standard_normal(m.bias.shape).astype(np.float32)))
    return m


def workloads(lib, name, shape):
    """{"fwd": call, "f+b": call} for one module and input shape."""
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal(shape).astype(np.float32)).requires_grad_()
    gy = lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    m = _module(lib, name, shape, rng)

    def fwd():
        with lib.no_grad():
            m(x)

    def fwd_bwd():
        x.grad = None
        m(x).backward(gy)

    return {"fwd": fwd, "f+b": fwd_bwd}


def _cold(lib):
    """A call that leaves the caches as a training step's GEMM does (``--cold``)."""
    rng = np.random.default_rng(1)
    a = lib.from_numpy(rng.standard_normal((768, 128)).astype(np.float32))
    b = lib.from_numpy(rng.standard_normal((128, 512)).astype(np.float32))

    def gemm():
        with lib.no_grad():
            lib.mm(a, b)

    return gemm


def _timed(f, k, clock, between):
    """Seconds per call of ``k`` calls of ``f``, each after an untimed ``between()``."""
    if between is None:
        start = clock()
        for _ in range(k):
            f()
        return (clock() - start) / k
    total = 0.0
    for _ in range(k):
        between()
        start = clock()
        f()
        total += clock() - start
    return total / k


def _inner(shape):
    """Calls per timed repeat: about 2M values' worth, at least one."""
    return max(1, min(200, 2_000_000 // int(np.prod(shape))))


def _selected(only, case_set=""):
    for name, shape in _SETS[case_set]:
        for op in ("fwd", "f+b"):
            label = f"{name} {op}"
            if not only or label.startswith(only):
                yield name, shape, op


def _one_process(args, lib_name):
    """Print one line per selected workload: its label and the median seconds per call."""
    lib = _import(lib_name)
    if args.threads:
        lib.set_num_threads(args.threads)
    clock = time.perf_counter if args.clock == "wall" else time.thread_time
    between = _cold(lib) if args.cold else None
    for name, shape, op in _selected(_only(args), args.set):
        f = workloads(lib, name, shape)[op]
        k = _inner(shape)
        for _ in range(2):
            f()
        times = [_timed(f, k, clock, between) for _ in range(args.repeats)]
        print(f"{name}|{shape}|{op}|{float(np.median(times))!r}", flush=True)


def _import(name):
    if name == "torch":
        import torch

        return torch
    import numtorch

    return numtorch


def _only(args):
    return tuple(p for p in args.only.split(",") if p)


def _processes(args):
    libs = ["numtorch", "torch"]
    results = {}
    cmd = [sys.executable, os.path.abspath(__file__), "--repeats", str(args.repeats),
           "--clock", args.clock] + (["--threads", str(args.threads)] if args.threads else []) \
        + (["--cold"] if args.cold else []) \
        + (["--only", args.only] if args.only else []) + ["--set", args.set]
    for _ in range(args.processes):
        for lib in libs:
            out = subprocess.run(cmd + ["--lib", lib], capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                name, shape, op, t = line.split("|")
                results.setdefault((name, shape, op), {}).setdefault(lib, []).append(float(t))
    print(f"median of {args.processes} processes per library (min-max), each the median of "
          f"{args.repeats} repeats; {args.clock} clock" + (", cold" if args.cold else "")
          + (f", {args.threads} thread(s)" if args.threads else ""))
    for (name, shape, op), by_lib in results.items():
        line = f"  {name + ' ' + op:16s} {shape:18s}"
        med = {}
        for lib in libs:
            t = np.array(by_lib[lib]) * 1e6
            med[lib] = np.median(t)
            line += f" {lib} {med[lib]:9.1f} us ({t.min():.1f}-{t.max():.1f})"
        print(line + f"  ratio {med['numtorch'] / med['torch']:.2f}", flush=True)


def _same_process(args):
    import numtorch

    try:
        import torch
    except ImportError:
        torch = None
    clock = time.perf_counter if args.clock == "wall" else time.thread_time
    libs = [("numtorch", numtorch)] + ([("torch", torch)] if torch is not None else [])
    if args.threads:
        for _, lib in libs:
            lib.set_num_threads(args.threads)
    print(f"{args.stat} of {args.repeats}, {args.clock} clock"
          + (f", {args.threads} thread(s)" if args.threads else "")
          + (", cold" if args.cold else ""))
    cold = {lib_name: _cold(lib) if args.cold else None for lib_name, lib in libs}
    for name, shape, op in _selected(_only(args), args.set):
        runs = {lib_name: workloads(lib, name, shape)[op] for lib_name, lib in libs}
        k = _inner(shape)
        times = {}
        for lib_name, f in runs.items():
            f()
            times[lib_name] = []
        for _ in range(args.repeats):
            for lib_name, f in runs.items():
                times[lib_name].append(_timed(f, k, clock, cold[lib_name]))
        pick = {lib_name: np.percentile(t, [25, 50, 75]) if args.stat == "median" else
                [min(t)] * 3 for lib_name, t in times.items()}
        line = f"  {shape!s:18s} {name + ' ' + op:16s}" + "".join(
            f" {lib_name} {q[1] * 1e6:9.1f} us" for lib_name, q in pick.items())
        if torch is not None:
            nt, th = pick["numtorch"], pick["torch"]
            line += f"  ratio {nt[1] / th[1]:.2f}"
            if args.stat == "median":
                line += f" ({nt[0] / th[2]:.2f}-{nt[2] / th[0]:.2f})"
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--stat", choices=("median", "best"), default="median")
    parser.add_argument("--only", default="", help="comma-separated workload name prefixes")
    parser.add_argument("--set", choices=tuple(_SETS), default="",
                        help="s40 / s41: those sessions' shapes instead of the default cases")
    parser.add_argument("--cold", action="store_true",
                        help="an untimed (768, 128) @ (128, 512) matmul before every call")
    parser.add_argument("--processes", type=int, default=0,
                        help="run each library in its own processes, this many each")
    parser.add_argument("--lib", choices=("numtorch", "torch"), default=None,
                        help=argparse.SUPPRESS)  # one process of --processes
    args = parser.parse_args()
    if args.lib:
        _one_process(args, args.lib)
    elif args.processes:
        _processes(args)
    else:
        _same_process(args)


if __name__ == "__main__":
    main()
