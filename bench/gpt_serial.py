"""What of a nanoGPT training step stays on one core: numtorch's ops by main-thread CPU time,
with the intra-op fan-outs and the BLAS products each made, and the time outside the ops.

At two threads torch splits every large elementwise kernel over both cores, while numtorch
splits only its GEMMs (OpenBLAS) and the kernels that hand parts to ``ops._intraop``. An op
that made no fan-out and spent its time outside BLAS runs on one core; so does everything
outside the ops (the modules' Python, the autograd engine, ``clip_grad_norm_``'s norms, the
optimizer's bookkeeping). This lists them, largest first, so the next split or fusion can be
chosen by numbers that do not need an idle machine: run it with ``--threads 1`` for each op's
single-core cost, with ``--threads 2`` (and ``NUMTORCH_BLAS_ADAPT=0`` on a busy machine, so
that the splits are taken) to see which ops fan out.

    python -m numtorch.run bench/gpt_serial.py [--threads 1] [--steps 10] [--top 30]
        [--program nanogpt|transformer] [--nanogpt /work/ext/nanoGPT]

``--program transformer`` times ``train_transformer.py``'s step instead (the 2-layer
TransformerEncoder's forward and backward).

Each op class's ``forward`` and ``backward_arrays`` are wrapped (outermost call only);
times are ``time.thread_time`` of the calling thread. A measurement tool, not a test.
"""

import argparse
import collections
import contextlib
import io
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _transformer_step(torch):
    import numpy as np
    import train_transformer

    enc = train_transformer.build(torch)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((16, 64, 128)).astype(
        np.float32))

    def step(i):
        enc.zero_grad()
        out = enc(x)
        (out * out).mean().backward()

    return step


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--program", choices=("nanogpt", "transformer"), default="nanogpt")
    p.add_argument("--nanogpt", default=os.path.join(os.environ.get("NUMTORCH_EXT", "/work/ext"),
                                                     "nanoGPT"))
    args = p.parse_args()
    import torch

    if "numtorch" not in sys.modules:
        raise SystemExit("run it under numtorch: python -m numtorch.run bench/gpt_serial.py")
    torch.set_num_threads(args.threads)
    import train_gpt

    from numtorch import _dtype
    from numtorch.autograd import graph
    from numtorch.ops import _intraop

    if args.program == "transformer":
        step = _transformer_step(torch)
    else:
        with contextlib.redirect_stdout(io.StringIO()):
            step = train_gpt._nanogpt(torch, args.nanogpt, args.steps)
    clk = time.thread_time_ns
    state = {"fan": 0, "gemm": 0, "depth": 0}
    real_ranges = _intraop.run_ranges

    def ranges(kernel, bounds):
        state["fan"] += 1
        return real_ranges(kernel, bounds)

    _intraop.run_ranges = ranges
    real_mm = _dtype.opmath_matmul

    def matmul(*a, **k):
        t0 = clk()
        try:
            return real_mm(*a, **k)
        finally:
            state["gemm"] += clk() - t0

    for mod in list(sys.modules.values()):  # the modules that imported it by name
        if getattr(mod, "__name__", "").startswith("numtorch") and \
                getattr(mod, "opmath_matmul", None) is real_mm:
            mod.opmath_matmul = matmul
    tot, cnt, fan, gemm = (collections.Counter() for _ in range(4))

    def wrap(cls, meth):
        f = cls.__dict__.get(meth)
        if f is None:
            return

        def timed(self, *a, **k):
            if state["depth"]:
                return f(self, *a, **k)
            state["depth"] += 1
            f0, g0, t0 = state["fan"], state["gemm"], clk()
            try:
                return f(self, *a, **k)
            finally:
                state["depth"] -= 1
                key = (f"{type(self).__name__}{tuple(getattr(a[0], 'shape', ()))}"
                       if a else type(self).__name__, meth)
                tot[key] += clk() - t0
                cnt[key] += 1
                fan[key] += state["fan"] - f0
                gemm[key] += state["gemm"] - g0

        setattr(cls, meth, timed)

    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)

    for i in range(2):
        step(i)
    for cls in set(subclasses(graph.Op)):
        for meth in ("forward", "backward_arrays"):
            wrap(cls, meth)
    for i in range(2):
        step(i)
    for c in (tot, cnt, fan, gemm):
        c.clear()
    n = args.steps
    m0, c0, w0 = clk(), time.process_time(), time.perf_counter()
    for i in range(n):
        step(i)
    main_ms = (clk() - m0) / n / 1e6
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"{args.program} step, {args.threads} thread(s), load {load}: wall "
          f"{(time.perf_counter() - w0) / n * 1e3:.1f} ms, process CPU "
          f"{(time.process_time() - c0) / n * 1e3:.1f} ms, main thread CPU {main_ms:.1f} ms")
    in_ops = sum(tot.values()) / n / 1e6
    in_gemm = sum(gemm.values()) / n / 1e6
    lone = sum(tot[k] - gemm[k] for k in tot if not fan[k]) / n / 1e6
    print(f"  in ops {in_ops:.1f} ms (BLAS products {in_gemm:.1f}); ops without a fan-out, "
          f"outside BLAS: {lone:.1f} ms; outside the ops: {main_ms - in_ops:.1f} ms")
    print(f"  {'op.method (first input shape)':58s} {'us/step':>8s} {'calls':>6s} "
          f"{'fan-outs':>8s} {'BLAS us':>8s}")
    for key, v in tot.most_common(args.top):
        print(f"  {key[0] + '.' + key[1]:58s} {v / n / 1e3:8.0f} {cnt[key] / n:6.1f} "
              f"{fan[key] / n:8.1f} {gemm[key] / n / 1e3:8.0f}")


if __name__ == "__main__":
    main()
