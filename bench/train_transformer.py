"""A 2-layer TransformerEncoder (d_model 128, 4 heads, ff 512, seq 64, batch 16), forward +
backward, numtorch against torch, each library in its own processes, alternating
(bench/_alternate.py says why). Goal: numtorch/torch time <= 1.0 (issue 17).

    python bench/train_transformer.py [--steps 10] [--repeats 5] [--processes 5]
                                      [--threads 1 --clock cpu] [--only numtorch|torch]

Both libraries load the same weights (drawn with NumPy, key by key in sorted order) and see
the same input. Each process keeps its best repeat; the medians over processes are compared.
``--clock cpu`` times the process's CPU time (steadier on a shared machine; use it with
``--threads 1``). This is a benchmark, not a test.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _alternate import alternate, emit, have_torch, mark_baseline, ratio_line
from _busy import busy_core


def build(lib):
    layer = lib.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)
    enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    rng = np.random.default_rng(1)
    state = {}
    for key, value in sorted(enc.state_dict().items()):
        shape = tuple(value.shape)
        bound = 1 / np.sqrt(shape[-1]) if len(shape) > 1 else 0.1
        state[key] = lib.from_numpy(rng.uniform(-bound, bound, shape).astype(np.float32))
        if key.endswith(("norm1.weight", "norm2.weight")):
            state[key] = lib.from_numpy(np.ones(shape, dtype=np.float32))
    enc.load_state_dict(state)
    return enc


def child(args):
    if args.only == "numtorch":
        import numtorch as lib
    else:
        import torch as lib
    mark_baseline()
    if args.threads:
        lib.set_num_threads(args.threads)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    enc = build(lib)
    x = lib.from_numpy(np.random.default_rng(0).standard_normal((16, 64, 128)).astype(np.float32))
    best = float("inf")
    for _ in range(args.repeats + 1):  # the first is the warm-up
        t0 = clock()
        for _ in range(args.steps):
            enc.zero_grad()
            out = enc(x)
            (out * out).mean().backward()
        best = min(best, (clock() - t0) / args.steps)
    emit({"time": best, "out": float(out.sum())})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--repeats", type=int, default=5, help="repeats per process (best kept)")
    p.add_argument("--processes", type=int, default=5, help="processes per library")
    p.add_argument("--threads", type=int, default=0, help="set_num_threads in both (0: default)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    p.add_argument("--only", choices=("numtorch", "torch"), default=None,
                   help="time one library in this process")
    p.add_argument("--busy", action="store_true",
                   help="keep one core busy in another process while measuring")
    args = p.parse_args()
    if args.only:
        return child(args)
    libs = ("numtorch", "torch") if have_torch() else ("numtorch",)
    passed = ["--steps", str(args.steps), "--repeats", str(args.repeats), "--threads",
              str(args.threads), "--clock", args.clock]
    with busy_core(args.busy):
        results = alternate(__file__, passed, args.processes, libs)
    outs = [r["out"] for rs in results.values() for r in rs]
    print(f"TransformerEncoder 2x(128, 4 heads, ff 512), seq 64, batch 16, fwd+bwd "
          f"(outputs agree: {max(outs) - min(outs) < 1e-1})"
          + ("; one core kept busy" if args.busy else ""))
    ratio_line(results, 1.0)


if __name__ == "__main__":
    main()
