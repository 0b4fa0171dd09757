"""Side-by-side training benchmark: a LeNet-style CNN, numtorch against PyTorch.

Run ``python bench/train_cnn.py`` (``--steps N`` timed steps per repeat, ``--repeats R``). The
model is the classic MNIST example: conv(1->32, 3) relu, conv(32->64, 3) relu, max-pool 2,
flatten, linear(9216->128) relu, linear(128->10), cross-entropy, plain SGD; batch 64 of
1x28x28 images. Both libraries start from the same weights and the same batch. By default
each library runs in its own processes (``--processes``, alternating; bench/_alternate.py says
why), each process reporting its median time per step over the repeats; the medians over
processes are compared, and the ratio numtorch time / torch time with issue 17's goal for
this conv net (<= 1.2). ``--one-process`` runs both in this process, taking turns per repeat
(best kept), as the script did before.

``--threads N`` gives both libraries N threads (BLAS in numtorch, intra-op in torch); on a
machine busy with other work, ``--threads 1`` gives the steadier comparison, because spinning
BLAS worker threads compete for the cores.

Pieces numtorch may not have yet fall back to compositions of what it has: max-pool as
``reshape(...).amax``, cross-entropy as ``log_softmax`` plus ``gather``, SGD as an in-place
update under ``no_grad``. ``--profile`` prints a cProfile of the numtorch steps instead.

``--only numtorch`` / ``--only torch`` time one library in this process (same weights and
batch) and print its median ms/step over the repeats; ``--clock cpu`` measures process CPU
time instead of wall time (steadier under load with ``--threads 1``).

This is a benchmark, not a test: the numbers depend on the machine and its load.
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

from _alternate import emit, run_step_script

import numtorch  # (after the path tweak, so a source checkout works uninstalled)

try:
    import torch
except ImportError:  # the ratio needs torch; numtorch's own time is still useful
    torch = None

GOAL = 1.2  # issue 17: the conv net
_CLOCK = time.perf_counter


def build_model(lib):
    """The CNN's layers (convs, linears) as a ``Sequential``-free list of modules."""
    nn = lib.nn
    return [nn.Conv2d(1, 32, 3), nn.Conv2d(32, 64, 3), nn.Linear(9216, 128), nn.Linear(128, 10)]


def _max_pool2(lib, x):
    F = lib.nn.functional
    if hasattr(F, "max_pool2d"):
        return F.max_pool2d(x, 2)
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).amax((3, 5))


def _cross_entropy(lib, out, y):
    F = lib.nn.functional
    if hasattr(F, "cross_entropy"):
        return F.cross_entropy(out, y)
    log_softmax = getattr(F, "log_softmax", None) or lib.log_softmax
    return -(log_softmax(out, 1).gather(1, y[:, None])).mean()


def _relu(lib, x):
    F = lib.nn.functional
    return F.relu(x) if hasattr(F, "relu") else x.clamp_min(0)


def make_step(lib, layers, x, y, lr=0.01):
    """One training step (forward, loss, backward, SGD update) as a closure."""
    conv1, conv2, fc1, fc2 = layers
    params = [p for m in layers for p in m.parameters()]
    optim = getattr(lib, "optim", None)
    opt = optim.SGD(params, lr=lr) if optim is not None and hasattr(optim, "SGD") else None

    def step():
        h = _relu(lib, conv1(x))
        h = _relu(lib, conv2(h))
        h = _max_pool2(lib, h).flatten(1)
        h = _relu(lib, fc1(h))
        loss = _cross_entropy(lib, fc2(h), y)
        if opt is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
        else:
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p -= lr * p.grad
        return loss

    return step


def setup(lib, seed=0, torch_layers=None):
    """Layers, input batch and labels for ``lib`` (numtorch copies torch's weights)."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    ys = rng.integers(0, 10, 64).astype(np.int64)
    lib.manual_seed(seed)
    layers = build_model(lib)
    if torch_layers is not None:
        for m, tm in zip(layers, torch_layers):
            m.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                               for k, v in tm.state_dict().items()})
    return layers, lib.from_numpy(xs), lib.from_numpy(ys)


def step_times(steps_fns, n_steps, repeats, warmup=2):
    """Seconds per step of each step function in every repeat, taking turns."""
    for fn in steps_fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in steps_fns]
    for _ in range(repeats):
        for i, fn in enumerate(steps_fns):
            start = _CLOCK()
            for _ in range(n_steps):
                fn()
            times[i].append((_CLOCK() - start) / n_steps)
    return times


def best_step_time(steps_fns, n_steps, repeats, warmup=2):
    """Best seconds per step of each step function, taking turns within every repeat."""
    return [min(ts) for ts in step_times(steps_fns, n_steps, repeats, warmup)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (best is kept)")
    parser.add_argument("--profile", action="store_true", help="cProfile numtorch's steps")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS/intra-op threads for both libraries (default: theirs)")
    parser.add_argument("--only", choices=("numtorch", "torch"), default=None,
                        help="time one library only (run the other in another process)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time (default) or process CPU time")
    parser.add_argument("--processes", type=int, default=5,
                        help="processes per library, alternating (default mode)")
    parser.add_argument("--one-process", action="store_true",
                        help="both libraries in this process, taking turns (the old mode)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--busy", action="store_true",
                        help="keep one core busy in another process while measuring")
    args = parser.parse_args()
    if args.only is None and not args.profile and not args.one_process:
        return _alternating(args)
    global _CLOCK
    _CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.threads is not None:
        numtorch.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)

    th_layers = None
    fns, names = [], []
    if torch is not None:
        th_layers, tx, ty = setup(torch)
        fns.append(make_step(torch, th_layers, tx, ty))
        names.append("torch")
    nt_layers, nx, ny = setup(numtorch, torch_layers=th_layers)
    nt_step = make_step(numtorch, nt_layers, nx, ny)

    if args.profile:
        import cProfile
        import pstats

        nt_step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            nt_step()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return

    if args.only is not None:
        fn = nt_step if args.only == "numtorch" else fns[0]
        loss = float(fn().item())
        ts = step_times([fn], args.steps, args.repeats)[0]
        if args.json:
            emit({"time": statistics.median(ts), "loss": loss})
            return
        print(f"{args.only} {statistics.median(ts) * 1e3:.1f} ms/step ({args.clock}; median of "
              f"{len(ts)}, range {min(ts) * 1e3:.1f}-{max(ts) * 1e3:.1f})")
        return
    fns.insert(0, nt_step)
    names.insert(0, "numtorch")
    if torch is not None:  # same weights and data: the first losses must agree
        l_nt, l_th = float(nt_step().item()), float(fns[1]().item())
        print(f"first-step loss: numtorch {l_nt:.5f}  torch {l_th:.5f}")
    times = best_step_time(fns, args.steps, args.repeats)
    threads = numtorch.get_num_threads()
    print(f"LeNet-style CNN, batch 64, 1x28x28, SGD ({platform.processor() or platform.machine()},"
          f" {threads} thread{'s' if threads > 1 else ''}, numpy {np.__version__}"
          + (f", torch {torch.__version__})" if torch else ")"))
    for name, t in zip(names, times):
        print(f"  {name:9s} {1.0 / t:8.2f} steps/s   {t * 1e3:8.1f} ms/step")
    if torch is not None:
        ratio = times[0] / times[1]
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print(f"  ratio numtorch/torch = {ratio:.2f}  (goal <= {GOAL})  {verdict}")


def _alternating(args):
    """The default: each library in its own processes (``--only``), alternating; the medians
    over processes, their ratio and the per-round range (bench/_alternate.py says why)."""
    run_step_script(__file__, args, "LeNet-style CNN, batch 64, 1x28x28, SGD", GOAL)

if __name__ == "__main__":
    main()
