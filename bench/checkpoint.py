"""Save and load a 100 MB state dict with numtorch and torch; print the time ratios and
numtorch's peak extra memory (goal: time ratio <= 1.2, peak <= 1.5x the state dict).

    python bench/checkpoint.py [--mb 100] [--repeats 5]
"""

import argparse
import os
import tempfile
import time
import tracemalloc

import numpy as np

def timed_pair(fn_a, fn_b, repeats, settle=None):
    """Best-of-``repeats`` times of two functions, run alternately so that both see the same
    disk and page-cache conditions; ``settle`` (untimed) runs before each call."""
    best_a = best_b = float("inf")
    for _ in range(repeats):
        for fn, which in ((fn_a, 0), (fn_b, 1)):
            if settle is not None:
                settle()
            t0 = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - t0
            if which == 0:
                best_a = min(best_a, elapsed)
            else:
                best_b = min(best_b, elapsed)
    return best_a, best_b


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mb", type=int, default=100)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    import torch

    import numtorch

    rng = np.random.default_rng(0)
    n_tensors = 20
    per = args.mb * 2 ** 20 // 4 // n_tensors
    arrays = {f"layer{i}.weight": rng.standard_normal(per, dtype=np.float32)
              for i in range(n_tensors)}
    nsd = {k: numtorch.from_numpy(v) for k, v in arrays.items()}
    tsd = {k: torch.from_numpy(v) for k, v in arrays.items()}
    with tempfile.TemporaryDirectory() as d:
        pn, pt = os.path.join(d, "n.pt"), os.path.join(d, "t.pt")
        # each save overwrites the previous one's file, as checkpointing in a loop does; the
        # disk is synced first so that neither save pays for the other's pending writeback
        settle = getattr(os, "sync", None)
        save_n, save_t = timed_pair(lambda: numtorch.save(nsd, pn), lambda: torch.save(tsd, pt),
                                    args.repeats, settle)
        load_n, load_t = timed_pair(lambda: numtorch.load(pn), lambda: torch.load(pt),
                                    args.repeats)
        # NumPy reports its allocations to tracemalloc, so this is the peak of everything
        # numtorch.load allocates (the state dict itself included)
        tracemalloc.start()
        sd = numtorch.load(pn)
        peak_mb = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        del sd
    print(f"state dict {args.mb} MB in {n_tensors} tensors")
    print(f"save: numtorch {save_n:.3f} s  torch {save_t:.3f} s  ratio {save_n / save_t:.2f}")
    print(f"load: numtorch {load_n:.3f} s  torch {load_t:.3f} s  ratio {load_n / load_t:.2f}")
    print(f"numtorch load peak memory: {peak_mb:.0f} MB ({peak_mb / args.mb:.2f}x the state "
          f"dict; goal <= 1.5x)")


if __name__ == "__main__":
    main()
