"""One-layer LSTM (input 32, hidden 128, seq 35, batch 20), loss = sum of outputs,
forward + backward, numtorch and torch in one process. Goal: numtorch/torch time <= 2.0.

    python bench/train_lstm.py [--steps 20] [--repeats 5]
"""

import argparse
import time

import numpy as np


def run(lib, x_np, state, steps, repeats):
    lstm = lib.nn.LSTM(32, 128)
    lstm.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
    x = lib.from_numpy(x_np)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            lstm.zero_grad()
            out, _ = lstm(x)
            out.sum().backward()
        best = min(best, (time.perf_counter() - t0) / steps)
    return best, float(out.sum())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    import torch

    import numtorch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((35, 20, 32)).astype(np.float32)
    state = {k: v.detach().numpy() for k, v in torch.nn.LSTM(32, 128).state_dict().items()}
    a, la = run(numtorch, x, state, args.steps, args.repeats)
    b, lb = run(torch, x, state, args.steps, args.repeats)
    print(f"LSTM 32->128, seq 35, batch 20, fwd+bwd (outputs agree: {abs(la - lb) < 1e-2})")
    print(f"  numtorch {1 / a:8.1f} steps/s ({a * 1e3:6.2f} ms)")
    print(f"  torch    {1 / b:8.1f} steps/s ({b * 1e3:6.2f} ms)")
    print(f"  ratio numtorch/torch = {a / b:.2f}  (goal <= 2.0)  {'PASS' if a / b <= 2.0 else 'MISS'}")


if __name__ == "__main__":
    main()
