"""Side-by-side MLP training benchmark: numtorch against PyTorch, each in its own processes.

A 784-512-512-10 MLP (Linear + ReLU), batch 128, cross-entropy loss, plain SGD written by hand
(``p -= lr * p.grad`` under ``no_grad``). Both libraries start from the same weights and see
the same batches; the script prints the training steps per second of each, the time ratio
numtorch / torch (goal: <= 1.0) and how far the two loss curves drifted apart (a sanity check
that both trained the same model).

Run ``python bench/train_mlp.py`` (``--steps N``, ``--repeats R``, ``--batch B``, ``--busy``
to keep one core busy in another process meanwhile, ``--threads N`` for each library's
``set_num_threads``, ``--clock cpu`` to time process CPU time: steadier on a shared machine,
meaningful with ``--threads 1``; ``--floor`` adds the same step written in plain NumPy, the
GEMM-bound floor numtorch's overhead is measured against). Each library runs in its own processes,
``--processes`` of them, the libraries alternating (bench/_alternate.py says why); each
process keeps its best repeat, and the medians over processes are compared. ``--only NAME``
runs one library in this process. This is a benchmark, not a test.
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _alternate import alternate, emit, have_torch, mark_baseline, ratio_line
from _busy import busy_core

SIZES = (784, 512, 512, 10)


def make_model(lib, weights):
    """The MLP in ``lib``, with the given (weight, bias) arrays loaded."""
    nn = lib.nn
    layers = []
    for i in range(len(SIZES) - 1):
        layers.append(nn.Linear(SIZES[i], SIZES[i + 1]))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU() if hasattr(nn, "ReLU") else _ReLU(lib))
    model = nn.Sequential(*layers)
    state = {}
    linear = [m for m in model if isinstance(m, nn.Linear)]
    for k, (m, (w, b)) in enumerate(zip(linear, weights)):
        idx = list(model).index(m)
        state[f"{idx}.weight"] = lib.from_numpy(w.copy())
        state[f"{idx}.bias"] = lib.from_numpy(b.copy())
    model.load_state_dict(state)
    return model


def _ReLU(lib):
    """A stand-in ReLU module for a numtorch without ``nn.ReLU``."""

    class ReLU(lib.nn.Module):
        def forward(self, x):
            return x.relu()

    return ReLU()


def loss_fn(lib, out, target):
    """Cross-entropy: ``F.cross_entropy`` when the library has it, else the composition."""
    F = lib.nn.functional
    if hasattr(F, "cross_entropy"):
        return F.cross_entropy(out, target)
    logp = out.log_softmax(dim=1)
    return -logp.gather(1, target.unsqueeze(1)).mean()


def make_step(lib, model, lr):
    params = list(model.parameters())

    def step(x, y):
        loss = loss_fn(lib, model(x), y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss.detach()

    return step


def make_data(rng, batch, n_batches):
    xs = [rng.standard_normal((batch, SIZES[0])).astype(np.float32) for _ in range(n_batches)]
    ys = [rng.integers(0, SIZES[-1], batch).astype(np.int64) for _ in range(n_batches)]
    return xs, ys


def init_weights(rng):
    out = []
    for i in range(len(SIZES) - 1):
        bound = 1 / np.sqrt(SIZES[i])
        out.append((rng.uniform(-bound, bound, (SIZES[i + 1], SIZES[i])).astype(np.float32),
                    rng.uniform(-bound, bound, SIZES[i + 1]).astype(np.float32)))
    return out


def runner(lib, weights, xs, ys, lr):
    """A function running one pass over the batches; returns the losses."""
    model = make_model(lib, weights)
    step = make_step(lib, model, lr)
    data = [(lib.from_numpy(x), lib.from_numpy(y)) for x, y in zip(xs, ys)]

    def run():
        return [float(step(x, y)) for x, y in data]

    return run


def numpy_runner(weights, xs, ys, lr):
    """The same training pass in plain NumPy (no autograd, no dispatch): the floor that the
    GEMMs and the few elementwise passes set. Its losses are those of the other libraries."""
    ws = [(w.copy(), b.copy()) for w, b in weights]
    rows = np.arange(xs[0].shape[0])

    def step(x, y):
        acts = [x]
        for k, (w, b) in enumerate(ws):
            h = acts[-1] @ w.T
            h += b
            if k < len(ws) - 1:
                np.maximum(h, 0, out=h)
            acts.append(h)
        out = acts.pop()
        e = np.exp(out - out.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        loss = -np.log(p[rows, y]).mean()
        p[rows, y] -= 1
        g = p / len(y)
        grads = []
        for k in range(len(ws) - 1, -1, -1):
            w, _ = ws[k]
            h = acts[k]
            grads.append((g.T @ h, g.sum(0)))
            if k:
                g = g @ w
                g *= h > 0
        for (w, b), (gw, gb) in zip(ws, reversed(grads)):
            w -= lr * gw
            b -= lr * gb
        return loss

    def run():
        return [float(step(x, y)) for x, y in zip(xs, ys)]

    return run


def child(args):
    """One library in this process: the best time of a pass over the batches, and its losses."""
    # (the NumPy floor sets NumPy's BLAS threads through numtorch; torch's child never
    # imports numtorch, whose BLAS thread pool would share the cores)
    lib = __import__("torch" if args.only == "torch" else "numtorch")
    if args.threads:
        lib.set_num_threads(args.threads)
    mark_baseline()
    rng = np.random.default_rng(0)
    weights = init_weights(rng)
    xs, ys = make_data(rng, args.batch, args.steps)
    if args.only == "numpy":
        run = numpy_runner(weights, xs, ys, args.lr)
    else:
        run = runner(lib, weights, xs, ys, args.lr)
    tick = time.process_time if args.clock == "cpu" else time.perf_counter
    losses = run()  # warm-up, and the loss curve
    best = float("inf")
    with busy_core(args.busy):
        for _ in range(args.repeats):
            start = tick()
            run()
            best = min(best, tick() - start)
    emit({"time": best / args.steps, "losses": losses})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats per process (best kept)")
    parser.add_argument("--processes", type=int, default=5, help="processes per library")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--busy", action="store_true",
                        help="keep one core busy in another process while measuring")
    parser.add_argument("--threads", type=int, default=0, help="set_num_threads (0: default)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--floor", action="store_true",
                        help="also time the step in plain NumPy (the GEMM-bound floor)")
    parser.add_argument("--only", choices=("numtorch", "torch", "numpy"), default=None,
                        help="time one library in this process")
    args = parser.parse_args()
    if args.only:
        return child(args)
    libs = ("numtorch", "torch") if have_torch() else ("numtorch",)
    libs += ("numpy",) if args.floor else ()
    passed = ["--steps", str(args.steps), "--repeats", str(args.repeats), "--batch",
              str(args.batch), "--lr", str(args.lr), "--threads", str(args.threads),
              "--clock", args.clock] + (["--busy"] if args.busy else [])
    results = alternate(__file__, passed, args.processes, libs)
    floor = results.pop("numpy", None)
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, {args.steps} steps, best of "
          f"{args.repeats} in each of {args.processes} processes per library; "
          f"{platform.processor() or platform.machine()}, numpy {np.__version__}; "
          f"{args.clock} time, threads {args.threads or 'default'}"
          + (", one core kept busy" if args.busy else ""))
    ratio_line(results, 1.0)
    if floor is not None:
        f = statistics.median(r["time"] for r in floor)
        n = statistics.median(r["time"] for r in results["numtorch"])
        print(f"  plain NumPy floor {f * 1e3:.2f} ms (median); numtorch / floor = {n / f:.2f}")
    if "torch" in results:
        ours, theirs = results["numtorch"][0]["losses"], results["torch"][0]["losses"]
        drift = max(abs(a - b) for a, b in zip(ours, theirs))
        print(f"  loss after the first pass: numtorch {ours[-1]:.5f}, torch {theirs[-1]:.5f} "
              f"(largest difference over the pass {drift:.2e})")


if __name__ == "__main__":
    main()
