"""A 2-layer TransformerEncoder (d_model 128, 4 heads, ff 512, seq 64, batch 16), forward +
backward, numtorch and torch in one process. Goal: numtorch/torch time <= 1.0 (issue 17).

    python bench/train_transformer.py [--steps 10] [--repeats 5] [--threads 1 --clock cpu]

``--clock cpu`` times the process's CPU time (steadier on a shared machine; use it with
``--threads 1``).
"""

import argparse
import time

import numpy as np


def build(lib, state):
    layer = lib.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)
    enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    enc.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
    return enc


def run(lib, x_np, state, steps, repeats, clock=time.perf_counter):
    enc = build(lib, state)
    x = lib.from_numpy(x_np)
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        for _ in range(steps):
            enc.zero_grad()
            out = enc(x)
            (out * out).mean().backward()
        best = min(best, (clock() - t0) / steps)
    return best, float(out.sum())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=0, help="set_num_threads in both (0: default)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = p.parse_args()
    import torch

    import numtorch

    if args.threads:
        torch.set_num_threads(args.threads)
        numtorch.set_num_threads(args.threads)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 64, 128)).astype(np.float32)
    ref = build(torch, {k: v.detach().numpy() for k, v in torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True), 2,
        enable_nested_tensor=False).state_dict().items()})
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    a, la = run(numtorch, x, state, args.steps, args.repeats, clock)
    b, lb = run(torch, x, state, args.steps, args.repeats, clock)
    print(f"TransformerEncoder 2x(128, 4 heads, ff 512), seq 64, batch 16, fwd+bwd "
          f"(outputs agree: {abs(la - lb) < 1e-1})")
    print(f"  numtorch {1 / a:8.1f} steps/s ({a * 1e3:6.2f} ms)")
    print(f"  torch    {1 / b:8.1f} steps/s ({b * 1e3:6.2f} ms)")
    print(f"  ratio numtorch/torch = {a / b:.2f}  (goal <= 1.0)  {'PASS' if a / b <= 1.0 else 'MISS'}")


if __name__ == "__main__":
    main()
