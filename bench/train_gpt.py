"""Training iterations of minGPT and nanoGPT (the real model code, unmodified): numtorch
against PyTorch, each run in its own process, the libraries alternating.

* ``mingpt``: karpathy/minGPT's ``GPT`` as ``projects/chargpt`` trains it with the issue's
  ``gpt-micro`` size (4 layers, 4 heads, d=128; vocabulary 65, block 128, batch 64):
  ``configure_optimizers`` (AdamW with weight-decay groups), ``model(x, y)``, backward,
  ``clip_grad_norm_(1.0)``, step -- minGPT's ``Trainer`` loop body.
* ``nanogpt``: karpathy/nanoGPT's ``GPT`` with its README's CPU settings (4 layers, 4 heads,
  d=128, block 64, batch 12, dropout 0), ``configure_optimizers`` and its loop body
  (backward, ``clip_grad_norm_(1.0)``, step, ``zero_grad(set_to_none=True)``).

The model code is imported from checkouts of the two repositories (``--mingpt``/``--nanogpt``
give their paths). numtorch runs it through ``numtorch.run``'s import hook, so ``import
torch`` in the model files resolves to numtorch. Each process times ``--iters`` iterations
after warm-up; the parent prints the median and spread over ``--repeats`` processes per
library and the ratio of the medians. ``--busy`` keeps one core busy in another process
while measuring (see ``_busy.py``); each child reports its peak RSS above its baseline after
importing the library. ``--clock cpu`` times the process's CPU time instead of wall time
(with ``--threads 1`` the steadiest measure on a busy machine). This is a benchmark, not a
test.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from _busy import busy_core, median_spread  # noqa: E402

EXT = os.environ.get("NUMTORCH_EXT", "/work/ext")


def _checkout(name):
    """The default path of karpathy's ``name`` checkout under ``EXT``: ``EXT/name`` (a plain
    clone) or ``EXT/karpathy+name`` (a mirror's naming), whichever exists (the first if
    neither does, for the error message)."""
    plain, mirror = os.path.join(EXT, name), os.path.join(EXT, "karpathy+" + name)
    return mirror if not os.path.isdir(plain) and os.path.isdir(mirror) else plain


def _loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:  # not Linux
        return "?"


def _rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _mingpt(torch, path, steps):
    sys.path.insert(0, path)
    from mingpt.model import GPT

    cfg = GPT.get_default_config()
    cfg.model_type = "gpt-micro"
    cfg.vocab_size, cfg.block_size = 65, 128
    model = GPT(cfg)
    tcfg = type("C", (), dict(learning_rate=5e-4, betas=(0.9, 0.95), weight_decay=0.1))()
    opt = model.configure_optimizers(tcfg)
    g = torch.Generator().manual_seed(0)
    batches = [(torch.randint(0, 65, (64, 128), generator=g),
                torch.randint(0, 65, (64, 128), generator=g)) for _ in range(4)]

    def step(i):
        x, y = batches[i % len(batches)]
        _, loss = model(x, y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return float(loss)

    return step


def _nanogpt(torch, path, steps):
    sys.path.insert(0, path)
    from model import GPT, GPTConfig

    cfg = GPTConfig(block_size=64, vocab_size=65, n_layer=4, n_head=4, n_embd=128,
                    dropout=0.0, bias=False)
    model = GPT(cfg)
    opt = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99), "cpu")
    g = torch.Generator().manual_seed(0)
    batches = [(torch.randint(0, 65, (12, 64), generator=g),
                torch.randint(0, 65, (12, 64), generator=g)) for _ in range(4)]

    def step(i):
        x, y = batches[i % len(batches)]
        _, loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return float(loss)

    return step


def child(args):
    base = _rss_mb()
    import torch  # numtorch when started through numtorch.run

    torch.manual_seed(0)
    if args.threads:
        torch.set_num_threads(args.threads)
    after_import = _rss_mb()
    make = _mingpt if args.program == "mingpt" else _nanogpt
    path = args.mingpt if args.program == "mingpt" else args.nanogpt
    step = make(torch, path, args.iters)
    for i in range(args.warmup):
        step(i)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    start = clock()
    losses = [step(i) for i in range(args.iters)]
    elapsed = (clock() - start) / args.iters
    print(json.dumps(dict(time=elapsed, loss=losses[-1], rss_import=after_import - base,
                          rss_peak=_rss_mb() - after_import)))


def run_child(lib, args):
    cmd = [sys.executable] + (["-m", "numtorch.run"] if lib == "numtorch" else []) + [
        os.path.abspath(__file__), "--child", "--program", args.program, "--iters",
        str(args.iters), "--warmup", str(args.warmup), "--mingpt", args.mingpt,
        "--nanogpt", args.nanogpt, "--threads", str(args.threads), "--clock", args.clock]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{lib} child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--program", choices=("mingpt", "nanogpt"), default="mingpt")
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5, help="processes per library")
    parser.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    parser.add_argument("--threads", type=int, default=0,
                        help="set_num_threads in both libraries (0: their defaults)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: the process's CPU time (steadier on a shared machine; use "
                             "it with --threads 1, where no thread waits)")
    parser.add_argument("--mingpt", default=_checkout("minGPT"))
    parser.add_argument("--nanogpt", default=_checkout("nanoGPT"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    res = {"numtorch": [], "torch": []}
    load_before = _loadavg()
    with busy_core(args.busy):
        for _ in range(args.repeats):
            for lib in res:
                res[lib].append(run_child(lib, args))
    # the ratio moves with the machine's load even on CPU time (other processes evict the
    # caches that NumPy's one-pass-per-op kernels re-read more often than torch's fused ones)
    print(f"{args.program}: {args.iters} training iterations per process, {args.repeats} "
          f"processes per library{', one core kept busy' if args.busy else ''}"
          f"{f', {args.threads} thread(s)' if args.threads else ''}"
          f"{', process CPU time' if args.clock == 'cpu' else ''}; 1-min load "
          f"{load_before} -> {_loadavg()}")
    med = {}
    for lib, runs in res.items():
        med[lib], lo, hi = median_spread([r["time"] * 1e3 for r in runs])
        rss, _, _ = median_spread([r["rss_peak"] for r in runs])
        print(f"  {lib:9s} {med[lib]:8.1f} ms/iter [{lo:.1f}-{hi:.1f}]  peak RSS above "
              f"import {rss:7.1f} MB  last loss {runs[-1]['loss']:.4f}")
    rss_ratio = median_spread([r["rss_peak"] for r in res["numtorch"]])[0] / max(
        1e-9, median_spread([r["rss_peak"] for r in res["torch"]])[0])
    print(f"  time ratio numtorch/torch: {med['numtorch'] / med['torch']:.2f}; "
          f"peak-RSS ratio {rss_ratio:.2f}")


if __name__ == "__main__":
    main()
