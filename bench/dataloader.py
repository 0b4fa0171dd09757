"""Iterate a 50,000 x 3x32x32 TensorDataset with batch 128 (0 and 2 workers) in numtorch and
torch, one process, and print the time ratios. Goal: numtorch/torch <= 1.2.

    python bench/dataloader.py [--n 50000] [--repeats 3]
"""

import argparse
import time

import numpy as np


def run(lib, data, labels, workers, repeats):
    ds = lib.utils.data.TensorDataset(lib.from_numpy(data), lib.from_numpy(labels))
    best = float("inf")
    for _ in range(repeats):
        loader = lib.utils.data.DataLoader(ds, batch_size=128, shuffle=True,
                                           num_workers=workers)
        t0 = time.perf_counter()
        n = 0
        for x, y in loader:
            n += x.shape[0]
        best = min(best, time.perf_counter() - t0)
        assert n == len(ds)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=50000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    import torch

    import numtorch

    rng = np.random.default_rng(0)
    data = rng.standard_normal((args.n, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, args.n)
    print(f"{'workers':>8} {'numtorch s':>11} {'torch s':>9} {'ratio':>6}  goal <= 1.2")
    for w in (0, 2):
        a = run(numtorch, data, labels, w, args.repeats)
        b = run(torch, data, labels, w, args.repeats)
        print(f"{w:>8} {a:>11.3f} {b:>9.3f} {a / b:>6.2f}  {'PASS' if a / b <= 1.2 else 'MISS'}")


if __name__ == "__main__":
    main()
