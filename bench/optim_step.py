"""The optimizer update alone: numtorch against PyTorch, in one process.

For two parameter sets -- the 784-512-512-10 MLP of ``train_mlp.py`` (6 tensors, 670k
values), a GPT shaped like minGPT's ``gpt-micro`` (4 layers, d=128, vocabulary 65, block
128: 53 tensors, many of them small) and ``small`` (64 tensors of 2 to 512 values, where
per-parameter overhead sets the time) -- every optimizer below runs ``step()`` on fixed random
gradients, the libraries taking turns within each repeat. Printed per row: the median and best
time of each library, the ratio of the medians (numtorch / torch) and the spread of the
per-repeat ratios.

Run ``python bench/optim_step.py`` (``--repeats N``, ``--threads N`` sets torch's intra-op
threads; NumPy's elementwise work is single-threaded; ``--clock cpu --threads 1`` compares
process CPU time, steadier on a busy machine; ``--sets small`` picks parameter sets). This is a benchmark, not a test.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numtorch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

MLP = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]


def gpt_shapes(layers=4, d=128, vocab=65, block=128):
    """Parameter shapes of a minGPT model (token/position embeddings, blocks, head)."""
    out = [(vocab, d), (block, d)]
    for _ in range(layers):
        out += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,), (d,), (d,),
                (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
    return out + [(d,), (d,), (vocab, d)]


# many small tensors: where per-parameter overhead, not arithmetic, sets the step's time
# (the 4-128-2 policy of the reinforcement-learning examples, repeated as in a small ensemble)
SMALL = [(128, 4), (128,), (2, 128), (2,)] * 16


OPTIMIZERS = {
    "SGD": lambda o, ps: o.SGD(ps, lr=0.01),
    "SGD momentum": lambda o, ps: o.SGD(ps, lr=0.01, momentum=0.9),
    "SGD nesterov+wd": lambda o, ps: o.SGD(ps, lr=0.01, momentum=0.9, nesterov=True,
                                           weight_decay=1e-4),
    "Adam": lambda o, ps: o.Adam(ps, lr=1e-3),
    "AdamW": lambda o, ps: o.AdamW(ps, lr=1e-3, weight_decay=0.1),
}


def make(lib, shapes, name):
    rng = np.random.default_rng(0)
    params = []
    for s in shapes:
        p = lib.nn.Parameter(lib.from_numpy(rng.standard_normal(s).astype(np.float32)))
        p.grad = lib.from_numpy(rng.standard_normal(s).astype(np.float32))
        params.append(p)
    opt = OPTIMIZERS[name](lib.optim, params)
    for _ in range(3):
        opt.step()
    return opt.step


def measure(fns, repeats, inner, clock=time.perf_counter):
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            start = clock()
            for _ in range(inner):
                fn()
            times[k].append((clock() - start) / inner)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--inner", type=int, default=10, help="steps per timed repeat")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="cpu: process CPU time (steadier on a shared machine; use with "
                             "--threads 1)")
    parser.add_argument("--sets", default="MLP,gpt-micro,small",
                        help="comma-separated parameter sets: MLP, gpt-micro, small")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if torch is not None and args.threads:
        torch.set_num_threads(args.threads)
    print(f"optimizer step alone, median (best) of {args.repeats} x {args.inner} steps"
          + (f"; torch {torch.__version__}, {torch.get_num_threads()} threads" if torch else ""))
    sets = {"MLP": MLP, "gpt-micro": gpt_shapes(), "small": SMALL}
    for set_name in args.sets.split(","):
        shapes = sets[set_name]
        for name in OPTIMIZERS:
            fns = {"numtorch": make(numtorch, shapes, name)}
            if torch is not None:
                fns["torch"] = make(torch, shapes, name)
            t = measure(fns, args.repeats, args.inner, clock)
            med = {k: float(np.median(v)) for k, v in t.items()}
            line = f"  {set_name:9s} {name:16s}" + "".join(
                f" {k} {med[k] * 1e6:8.0f} us ({min(t[k]) * 1e6:6.0f})" for k in t)
            if torch is not None:
                ratios = np.array(t["numtorch"]) / np.array(t["torch"])
                line += (f"  ratio {med['numtorch'] / med['torch']:.2f} "
                         f"[{ratios.min():.2f}-{ratios.max():.2f}]")
            print(line)


if __name__ == "__main__":
    main()
