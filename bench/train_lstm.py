"""Recurrent training steps, forward + backward, numtorch against torch. Goal: numtorch/torch
time <= 1.2.

    python bench/train_lstm.py [--case lstm] [--steps 20] [--repeats 5] [--busy] [--threads N]
                               [--clock cpu]

Cases (``--case``, several comma-separated, ``all`` for every one):
  lstm       one-layer LSTM (input 32, hidden 128, seq 35, batch 20), loss = sum of outputs;
  wlm_lstm   word_language_model's RNN part: embedding (5045 words, 200) -> 2-layer LSTM(200,
             200, dropout 0.2) -> sum, seq 35, batch 20 (its decoder is a plain Linear);
  wlm_gru    the same with a GRU;
  wlm_rnn    the same with an Elman RNN (RNN_TANH, word_language_model's ``--model RNN_TANH``);
  mnist_rnn  mnist_rnn's LSTM(28, 64, batch_first) over 28 rows of a batch of 64, last output;
  tsp        time_sequence_prediction's two LSTMCells (1 -> 51 -> 51, float64) over 100 steps
             of a batch of 97, a Linear on each step's output.

The libraries take turns, each repeat in a fresh process (one library's thread pools and
caches do not slow the other); the script prints the median of the repeats with their range.
``--busy`` keeps one core busy in another process meanwhile; ``--clock cpu`` times process CPU
time instead of wall time (steadier on a shared machine, meaningful with ``--threads 1``).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _busy import busy_core, median_spread  # noqa: E402


def _case(lib, name):
    """(module, loss function) of one case."""
    rng = np.random.default_rng(0)
    if name == "lstm":
        model = lib.nn.LSTM(32, 128)
        x = lib.from_numpy(rng.standard_normal((35, 20, 32)).astype(np.float32))
        return model, lambda: model(x)[0].sum()
    if name in ("wlm_lstm", "wlm_gru", "wlm_rnn"):
        emb = lib.nn.Embedding(5045, 200)
        kind = {"wlm_lstm": lib.nn.LSTM, "wlm_gru": lib.nn.GRU, "wlm_rnn": lib.nn.RNN}[name]
        rnn = kind(200, 200, 2, dropout=0.2)
        model = lib.nn.ModuleList([emb, rnn])
        idx = lib.from_numpy(rng.integers(0, 5045, (35, 20)))
        return model, lambda: rnn(emb(idx))[0].sum()
    if name == "mnist_rnn":
        model = lib.nn.LSTM(28, 64, batch_first=True)
        x = lib.from_numpy(rng.standard_normal((64, 28, 28)).astype(np.float32))
        return model, lambda: model(x)[0][:, -1, :].sum()
    if name == "tsp":
        c1, c2, lin = lib.nn.LSTMCell(1, 51), lib.nn.LSTMCell(51, 51), lib.nn.Linear(51, 1)
        model = lib.nn.ModuleList([c1, c2, lin]).double()
        x = lib.from_numpy(rng.standard_normal((97, 100)))

        def loss():
            h = c = h2 = c2_ = lib.zeros(97, 51, dtype=lib.double)
            outs = []
            for xt in x.split(1, dim=1):
                h, c = c1(xt, (h, c))
                h2, c2_ = c2(h, (h2, c2_))
                outs.append(lin(h2))
            return (lib.cat(outs, 1) ** 2).mean()
        return model, loss
    raise SystemExit(f"unknown case {name}")


def run(lib_name, case, steps, threads, clock):
    """Seconds per training step of one library (the best of three rounds of ``steps``), and
    the peak resident memory above the library's import, in MB."""
    if lib_name == "numtorch":
        sys.path.insert(0, os.path.dirname(HERE))
    lib = __import__(lib_name)
    base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if threads:
        lib.set_num_threads(threads)
    lib.manual_seed(0)
    model, loss = _case(lib, case)
    tick = time.process_time if clock == "cpu" else time.perf_counter
    best = float("inf")
    for _ in range(3):
        model.zero_grad()
        t0 = tick()
        for _ in range(steps):
            model.zero_grad()
            loss().backward()
        best = min(best, (tick() - t0) / steps)
    return best, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_kb) / 1024


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", default="lstm", help="lstm, wlm_lstm, wlm_gru, wlm_rnn, "
                   "mnist_rnn, tsp, comma-separated, or all")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    p.add_argument("--threads", type=int, default=0, help="set_num_threads (0: default)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(run(args.child, args.case, args.steps, args.threads, args.clock)))
        return
    cases = CASES if args.case == "all" else args.case.split(",")
    for case in cases:
        _compare(args, case)


CASES = ("lstm", "wlm_lstm", "wlm_gru", "wlm_rnn", "mnist_rnn", "tsp")


def _compare(args, case):
    times = {"numtorch": [], "torch": []}
    rss = {"numtorch": [], "torch": []}
    steps = max(1, args.steps // 10) if case == "tsp" else args.steps
    cmd = [sys.executable, os.path.abspath(__file__), "--case", case, "--steps", str(steps),
           "--threads", str(args.threads), "--clock", args.clock, "--child"]
    with busy_core(args.busy):
        for _ in range(args.repeats):
            for lib in times:
                out = subprocess.run(cmd + [lib], capture_output=True, text=True, check=True)
                t, peak = json.loads(out.stdout.strip().splitlines()[-1])
                times[lib].append(t)
                rss[lib].append(peak)
    (a, a0, a1), (b, b0, b1) = median_spread(times["numtorch"]), median_spread(times["torch"])
    ratios = sorted(x / y for x, y in zip(times["numtorch"], times["torch"]))
    print(f"{case}: fwd+bwd; {args.clock} time, threads "
          f"{args.threads or 'default'}{', one core busy' if args.busy else ''}; median of "
          f"{args.repeats} alternating processes (range)")
    print(f"  numtorch {a * 1e3:7.2f} ms ({a0 * 1e3:.2f}-{a1 * 1e3:.2f})")
    print(f"  torch    {b * 1e3:7.2f} ms ({b0 * 1e3:.2f}-{b1 * 1e3:.2f})")
    print(f"  ratio numtorch/torch = {a / b:.2f} (per-repeat {ratios[0]:.2f}-{ratios[-1]:.2f}; "
          f"goal <= 1.2)  {'PASS' if a / b <= 1.2 else 'MISS'}")
    m_n, m_t = statistics.median(rss["numtorch"]), statistics.median(rss["torch"])
    print(f"  peak RSS above import (median): numtorch {m_n:.1f} MB, torch {m_t:.1f} MB"
          + (f"; ratio {m_n / m_t:.2f} (goal <= 1.3)" if m_t > 0 else ""))


if __name__ == "__main__":
    main()
