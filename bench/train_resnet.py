"""Side-by-side training benchmark: ResNet-18, numtorch(vision) against torch(vision).

Run ``python bench/train_resnet.py`` (``--steps N`` timed steps per repeat, ``--repeats R``,
``--threads T``). One training step of ``resnet18`` in training mode: batch 16 of 3x112x112
images, 1000 classes, cross-entropy, SGD with momentum 0.9 and weight decay 1e-4. The model
comes from ``numtorchvision.models.resnet18`` and ``torchvision.models.resnet18``; numtorch
starts from torch's weights, on the same batch. By default each library runs in its own
processes (``--processes``, alternating; bench/_alternate.py says why), each reporting its
median time per step over the repeats; the medians over processes, their spread and the
ratio numtorch / torch are printed and compared with the goal (<= 1.5). ``--one-process``
runs both in this process, taking turns within each repeat, as the script did before.
``--profile`` prints a cProfile of numtorch's steps instead.

``--only numtorch`` / ``--only torch`` time one library in this process (same weights and
batch) and print its median ms/step; ``--clock cpu`` measures process CPU time instead of
wall time (steadier under load with ``--threads 1``).

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

import numtorch
import numtorchvision

GOAL = 1.5
_CLOCK = time.perf_counter
BATCH, SIZE, CLASSES = 16, 112, 1000


def import_torchvision():
    """torch and torchvision, or (None, None); torchvision's compiled ops do not load with the
    CPU torch wheel, so its fake-kernel registration is skipped while importing."""
    try:
        import torch
    except ImportError:
        return None, None
    original = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision
    except ImportError:
        return torch, None
    finally:
        torch.library.register_fake = original
    return torch, torchvision


def make_step(lib, model, x, y):
    """One step (forward, loss, backward, SGD update) as a closure returning the loss."""
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def setup(seed=0):
    """(numtorch step, torch step or None); both models hold the same weights."""
    torch, torchvision = import_torchvision()
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((BATCH, 3, SIZE, SIZE)).astype(np.float32)
    ys = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    numtorch.manual_seed(seed)
    nt_model = numtorchvision.models.resnet18().train()
    th_step = None
    if torchvision is not None:
        torch.manual_seed(seed)
        th_model = torchvision.models.resnet18().train()
        nt_model.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                                  for k, v in th_model.state_dict().items()})
        th_step = make_step(torch, th_model, torch.from_numpy(xs), torch.from_numpy(ys))
    nt_step = make_step(numtorch, nt_model, numtorch.from_numpy(xs), numtorch.from_numpy(ys))
    return nt_step, th_step


def step_times(fns, n_steps, repeats, warmup=2):
    """Seconds per step of each function in every repeat, the functions taking turns."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = _CLOCK()
            for _ in range(n_steps):
                fn()
            times[i].append((_CLOCK() - start) / n_steps)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (median is kept)")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS/intra-op threads for both libraries (default: theirs)")
    parser.add_argument("--profile", action="store_true", help="cProfile numtorch's steps")
    parser.add_argument("--only", choices=("numtorch", "torch"), default=None,
                        help="time one library only (run the other in another process)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time (default) or process CPU time")
    parser.add_argument("--processes", type=int, default=3,
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
    nt_step, th_step = setup()
    if args.threads is not None:
        numtorch.set_num_threads(args.threads)
        torch, _ = import_torchvision()
        if torch is not None:
            torch.set_num_threads(args.threads)

    if args.profile:
        import cProfile
        import pstats

        nt_step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            nt_step()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return

    if args.only is not None:
        fn = nt_step if args.only == "numtorch" else th_step
        loss = float(fn().item())
        ts = step_times([fn], args.steps, args.repeats)[0]
        if args.json:
            emit({"time": statistics.median(ts), "loss": loss})
            return
        print(f"{args.only} {statistics.median(ts) * 1e3:.1f} ms/step ({args.clock}; median of "
              f"{len(ts)}, range {min(ts) * 1e3:.1f}-{max(ts) * 1e3:.1f})")
        return
    fns, names = [nt_step], ["numtorch"]
    if th_step is not None:  # same weights and data: the first losses must agree
        l_nt, l_th = float(nt_step().item()), float(th_step().item())
        print(f"first-step loss: numtorch {l_nt:.5f}  torch {l_th:.5f}")
        fns.append(th_step)
        names.append("torch")
    times = step_times(fns, args.steps, args.repeats)
    threads = numtorch.get_num_threads()
    print(f"ResNet-18 training step, batch {BATCH}, 3x{SIZE}x{SIZE}, SGD momentum "
          f"({platform.processor() or platform.machine()}, {threads} thread"
          f"{'s' if threads > 1 else ''}, numpy {np.__version__})")
    medians = []
    for name, ts in zip(names, times):
        med = statistics.median(ts)
        medians.append(med)
        print(f"  {name:9s} {med * 1e3:8.1f} ms/step  (median of {len(ts)}; "
              f"range {min(ts) * 1e3:.1f}-{max(ts) * 1e3:.1f})")
    if len(medians) == 2:
        ratio = medians[0] / medians[1]
        lo = min(times[0]) / max(times[1])
        hi = max(times[0]) / min(times[1])
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print(f"  ratio numtorch/torch = {ratio:.2f}  (range {lo:.2f}-{hi:.2f}; goal <= {GOAL})"
              f"  {verdict}")


def _alternating(args):
    """The default: each library in its own processes (``--only``), alternating; the medians
    over processes, their ratio and the per-round range (bench/_alternate.py says why)."""
    run_step_script(__file__, args,
                    "ResNet-18 training step, batch 16, 3x112x112, SGD momentum", GOAL)

if __name__ == "__main__":
    main()
