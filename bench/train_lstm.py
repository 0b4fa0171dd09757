"""One-layer LSTM (input 32, hidden 128, seq 35, batch 20), loss = sum of outputs,
forward + backward, numtorch against torch. Goal: numtorch/torch time <= 1.2.

    python bench/train_lstm.py [--steps 20] [--repeats 5] [--busy] [--threads N] [--clock cpu]

The libraries take turns, each repeat in a fresh process (one library's thread pools and
caches do not slow the other); the script prints the median of the repeats with their range.
``--busy`` keeps one core busy in another process meanwhile; ``--clock cpu`` times process CPU
time instead of wall time (steadier on a shared machine, meaningful with ``--threads 1``).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _busy import busy_core, median_spread  # noqa: E402


def run(lib_name, steps, threads, clock):
    """Seconds per training step of one library (the best of three rounds of ``steps``)."""
    if lib_name == "numtorch":
        sys.path.insert(0, os.path.dirname(HERE))
    lib = __import__(lib_name)
    if threads:
        lib.set_num_threads(threads)
    lib.manual_seed(0)
    lstm = lib.nn.LSTM(32, 128)
    x = lib.from_numpy(np.random.default_rng(0).standard_normal((35, 20, 32)).astype(np.float32))
    tick = time.process_time if clock == "cpu" else time.perf_counter
    best = float("inf")
    for _ in range(3):
        lstm.zero_grad()
        t0 = tick()
        for _ in range(steps):
            lstm.zero_grad()
            out, _ = lstm(x)
            out.sum().backward()
        best = min(best, (tick() - t0) / steps)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    p.add_argument("--threads", type=int, default=0, help="set_num_threads (0: default)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(run(args.child, args.steps, args.threads, args.clock)))
        return
    times = {"numtorch": [], "torch": []}
    cmd = [sys.executable, os.path.abspath(__file__), "--steps", str(args.steps),
           "--threads", str(args.threads), "--clock", args.clock, "--child"]
    with busy_core(args.busy):
        for _ in range(args.repeats):
            for lib in times:
                out = subprocess.run(cmd + [lib], capture_output=True, text=True, check=True)
                times[lib].append(json.loads(out.stdout.strip().splitlines()[-1]))
    (a, a0, a1), (b, b0, b1) = median_spread(times["numtorch"]), median_spread(times["torch"])
    ratios = sorted(x / y for x, y in zip(times["numtorch"], times["torch"]))
    print(f"LSTM 32->128, seq 35, batch 20, fwd+bwd; {args.clock} time, threads "
          f"{args.threads or 'default'}{', one core busy' if args.busy else ''}; median of "
          f"{args.repeats} alternating processes (range)")
    print(f"  numtorch {a * 1e3:7.2f} ms ({a0 * 1e3:.2f}-{a1 * 1e3:.2f})")
    print(f"  torch    {b * 1e3:7.2f} ms ({b0 * 1e3:.2f}-{b1 * 1e3:.2f})")
    print(f"  ratio numtorch/torch = {a / b:.2f} (per-repeat {ratios[0]:.2f}-{ratios[-1]:.2f}; "
          f"goal <= 1.2)  {'PASS' if a / b <= 1.2 else 'MISS'}")


if __name__ == "__main__":
    main()
