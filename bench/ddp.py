"""Distributed benchmark: all-reduce bandwidth, DDP step time and overlap, on MPI ranks.

    python bench/ddp.py                 # everything (about a minute on 2 cores)
    python bench/ddp.py --json out.json # also keep the raw numbers (docs/distributed.md)

Three measurements, each in fresh processes started with mpiexec (this script re-runs
itself as the ranks):

1. ``allreduce``: ``dist.all_reduce`` on float32 tensors of 4 KB .. 64 MB on 2 ranks against
   mpi4py's ``comm.Allreduce`` on the same arrays (both in place), alternating, median of the
   repeats; the overhead is numtorch time / mpi4py time - 1 (goal: <= 10% from 1 MB).
2. ``step``: one DDP training step (forward, backward with bucketed all-reduce, SGD) of the
   MLP (784-512-512-10, global batch 128) and the LeNet-style CNN (bench/train_cnn.py's,
   global batch 64) on 1 rank and on 2 ranks with half the batch each; on 2 cores the compute
   per rank halves, so the ideal 2-rank step takes half the time.
3. ``overlap``: on 2 ranks, the step with communication, the same step under ``no_sync()``
   (no communication) and the bare all-reduce of all buckets after backward: the fraction
   of the all-reduce time hidden behind backward is
   ``1 - (t_step - t_nosync) / t_allreduce``.
4. ``model``: the cost model of docs/distributed.md, fitted to the 2-rank numbers (latency,
   bandwidth, reduction speed), checked against the measured 2-rank step and used to
   predict the step time on 8 and 64 ranks over 10 and 100 Gbit/s networks.

5. ``--sockets`` (run alone): the socket transport that serves processes started without
   mpiexec (mp.spawn, env://), against torch's gloo on the same 2-process setup: all-reduce
   per size and the MLP's DDP step (per-rank batch 64), library pairs alternating.

Timings are noisy on a shared machine: the script reports medians and ranges, and the
libraries / configurations alternate within each repeat. Two ranks on two cores suffer badly
from other load (a collective stalls whenever either rank is descheduled), so the overhead,
the overlap and the model's fit use the fastest repeats, the least disturbed ones.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

SIZES = [4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]


def _mpiexec():
    return os.path.join(os.path.dirname(sys.executable), "mpiexec")


def _spawn(n, *args, timeout=600):
    env = dict(os.environ, OMP_NUM_THREADS="1", HYDRA_LAUNCHER="fork")
    cmd = [_mpiexec(), "-n", str(n), sys.executable, os.path.abspath(__file__), "--worker",
           *map(str, args)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"worker {args} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")


# -- workers (run as MPI ranks) ------------------------------------------------------------

def worker_allreduce(repeats):
    import numtorch as torch
    import numtorch.distributed as dist
    from mpi4py import MPI

    dist.init_process_group("gloo")
    comm = MPI.COMM_WORLD
    res = {}
    for size in SIZES:
        arr = np.ones(size // 4, np.float32)
        t = torch.from_numpy(arr)
        inner = max(1, min(50, (1 << 20) // size))
        times = {"mpi4py": [], "numtorch": []}
        for rep in range(4 * repeats + 1):
            for lib in ("mpi4py", "numtorch"):
                comm.Barrier()
                t0 = time.perf_counter()
                for _ in range(inner):
                    if lib == "mpi4py":
                        comm.Allreduce(MPI.IN_PLACE, arr)
                    else:
                        dist.all_reduce(t)
                dt = (time.perf_counter() - t0) / inner
                if rep:  # the first round warms caches and MPI's buffers
                    times[lib].append(dt)
        res[size] = times
    # the reduction's arithmetic alone (MPI's own local SUM), for the cost model's gamma
    for size in SIZES[3:]:
        a, b = np.ones(size // 4, np.float32), np.ones(size // 4, np.float32)
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            MPI.SUM.Reduce_local(a, b)
            ts.append(time.perf_counter() - t0)
        res.setdefault("reduce_local", {})[size] = ts
    if dist.get_rank() == 0:
        print("RESULT " + json.dumps(res), flush=True)
    dist.destroy_process_group()


def worker_overhead(repeats):
    """numtorch's own cost per all_reduce call: one rank, so MPI moves nothing."""
    import numtorch as torch
    import numtorch.distributed as dist

    dist.init_process_group("gloo")
    t = torch.ones(256)
    for _ in range(200):
        dist.all_reduce(t)
    best = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(500):
            dist.all_reduce(t)
        best.append((time.perf_counter() - t0) / 500)
    print("RESULT " + json.dumps(min(best)), flush=True)
    dist.destroy_process_group()


def _workload(name, torch, nn, F, batch, seed=0):
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        x = rng.standard_normal((batch, 784)).astype(np.float32)
    else:
        class LeNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.c1, self.c2 = nn.Conv2d(1, 32, 3), nn.Conv2d(32, 64, 3)
                self.f1, self.f2 = nn.Linear(9216, 128), nn.Linear(128, 10)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.c2(F.relu(self.c1(x)))), 2)
                return self.f2(F.relu(self.f1(x.flatten(1))))

        model = LeNet()
        x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    return model, torch.from_numpy(x), torch.from_numpy(y)


def worker_step(name, global_batch, steps, repeats, with_overlap):
    import numtorch as torch
    import numtorch.distributed as dist
    import numtorch.nn as nn
    import numtorch.nn.functional as F
    from numtorch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo")
    n, r = dist.get_world_size(), dist.get_rank()
    model, x, y = _workload(name, torch, nn, F, global_batch)
    per = global_batch // n
    x, y = x[r * per:(r + 1) * per].contiguous(), y[r * per:(r + 1) * per].contiguous()
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)

    def step(sync=True):
        opt.zero_grad()
        if sync:
            F.cross_entropy(ddp(x), y).backward()
        else:
            with ddp.no_sync():
                F.cross_entropy(ddp(x), y).backward()
        opt.step()

    def bare_allreduce():
        # the buckets' all-reduces alone, one after another, after backward is over
        for b in ddp.reducer.buckets:
            t = torch.from_numpy(b.flat)
            dist.all_reduce(t)

    ready = []  # (bucket, seconds since backward began) of the last timed step
    launch = ddp.reducer._launch_ready

    def traced_launch():
        ready.append((ddp.reducer.next_bucket, time.perf_counter() - bwd_start[0]))
        launch()

    bwd_start = [0.0]

    def phases():
        # forward, backward (no communication), optimizer: the compute a step is made of
        opt.zero_grad()
        t0 = time.perf_counter()
        with ddp.no_sync():
            loss = F.cross_entropy(ddp(x), y)
            t1 = time.perf_counter()
            loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        return t1 - t0, t2 - t1, t3 - t2

    def traced_step():
        ddp.reducer._launch_ready = traced_launch
        ready.clear()
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        bwd_start[0] = time.perf_counter()
        loss.backward()
        total = time.perf_counter() - bwd_start[0]
        ddp.reducer._launch_ready = launch
        return total

    kinds = {"step": lambda: step(True)}
    if with_overlap:
        kinds["nosync"] = lambda: step(False)
        kinds["allreduce"] = bare_allreduce
    times = {k: [] for k in kinds}
    for k in kinds:  # warm-up
        kinds[k]()
    for _ in range(repeats):
        for k, fn in kinds.items():
            dist.barrier()
            for _ in range(steps):  # each step timed alone: the least disturbed ones count
                t0 = time.perf_counter()
                fn()
                times[k].append(time.perf_counter() - t0)
    extra = {}
    if with_overlap:
        ph = [phases() for _ in range(repeats)]
        extra["phases"] = [min(p[i] for p in ph) for i in range(3)]
        fracs = []
        for _ in range(repeats):
            traced_step()
            fracs.append(sorted(ready))
        extra["bucket_ready_s"] = [min(f[k][1] for f in fracs)
                                   for k in range(len(fracs[0]))]
    every = [None] * n
    dist.all_gather_object(every, times)
    if r == 0:  # a step is as slow as its slowest rank
        merged = {k: [max(t[k][i] for t in every) for i in range(len(times[k]))]
                  for k in times}
        merged["buckets"] = [int(b.flat.nbytes) for b in ddp.reducer.buckets]
        merged.update(extra)
        print("RESULT " + json.dumps(merged), flush=True)
    dist.destroy_process_group()


# -- driver --------------------------------------------------------------------------------

def _med(xs):
    return statistics.median(xs)


def _p20(xs):
    return float(np.percentile(xs, 20))


def _fmt_range(xs, scale=1e3):
    return f"{_med(xs) * scale:8.3f} ({min(xs) * scale:.3f}-{max(xs) * scale:.3f})"


def run(args):
    out = {}
    print(f"numtorch.distributed benchmark ({os.cpu_count()} cores; timings are noisy on a "
          "shared machine: medians and ranges)\n")
    ar = _spawn(2, "allreduce", args.repeats)
    out["allreduce"] = ar
    print("1. all_reduce, float32, 2 ranks, in place: ms per call, median (min-max); the "
          "overhead\n   compares the fast calls (20th percentile: the least disturbed by other "
          "load) and the medians")
    print(f"{'size':>8} {'mpi4py':>24} {'numtorch':>24} {'overhead p20':>13} "
          f"{'median':>7} {'GB/s':>6}")
    for size in SIZES:
        t = ar[str(size)]
        over = _p20(t["numtorch"]) / _p20(t["mpi4py"]) - 1
        over_med = _med(t["numtorch"]) / _med(t["mpi4py"]) - 1
        goal = "" if size < (1 << 20) else ("  ok" if over <= 0.10 else "  MISS (goal <= 10%)")
        print(f"{_size(size):>8} {_fmt_range(t['mpi4py']):>24} {_fmt_range(t['numtorch']):>24}"
              f" {over * 100:12.1f}% {over_med * 100:6.1f}% "
              f"{size / _p20(t['numtorch']) / 1e9:6.2f}{goal}")
    fixed = _spawn(1, "overhead", args.repeats)
    out["fixed_overhead_s"] = fixed
    print(f"   numtorch's fixed cost per all_reduce call (1 rank, no transfer): "
          f"{fixed * 1e6:.1f} us, i.e. {fixed / 0.5e-3 * 100:.1f}% of a 0.5 ms (1 MB) transfer")
    print("\n2. DDP training step (forward, backward + all-reduce, SGD), ms per step")
    out["step"] = {}
    for name, batch in (("mlp", 128), ("lenet", 64)):
        res = {1: [], 2: []}
        for _ in range(args.rounds):  # alternate 1 and 2 ranks so load hits both alike
            for n in (1, 2):
                res[n] += _spawn(n, "step", name, batch, args.steps, args.repeats, 0)["step"]
        out["step"][name] = res
        t1, t2 = _med(res[1]), _med(res[2])
        b1, b2 = min(res[1]), min(res[2])
        print(f"  {name:5} global batch {batch:3}: 1 rank {_fmt_range(res[1])}   2 ranks "
              f"{_fmt_range(res[2])}\n        speed-up {t1 / t2:.2f}x by medians, "
              f"{b1 / b2:.2f}x by the fastest steps (ideal 2.00x)")
    print("\n3. all-reduce hidden behind backward (2 ranks; fastest of the repeats)")
    out["overlap"] = {}
    for name, batch in (("mlp", 128), ("lenet", 64)):
        r = _spawn(2, "step", name, batch, args.steps, args.repeats, 1)
        out["overlap"][name] = r
        step, nosync, allr = min(r["step"]), min(r["nosync"]), min(r["allreduce"])
        exposed = max(0.0, step - nosync)
        hidden = 1 - min(1.0, exposed / allr) if allr > 0 else 0.0
        print(f"  {name:5}: step {step * 1e3:.2f} ms, no_sync step {nosync * 1e3:.2f} ms, bare "
              f"all-reduce of {len(r['buckets'])} bucket(s) ({sum(r['buckets']) / 1e6:.2f} MB) "
              f"{allr * 1e3:.2f} ms -> exposed {exposed * 1e3:.2f} ms, hidden {hidden * 100:.0f}%")
    model_report(out, args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


# -- the cost model (docs/distributed.md) ------------------------------------------------

def allreduce_time(nbytes, p, alpha, beta, gamma):
    """MPICH's all-reduce cost: recursive doubling up to 2 KB, Rabenseifner's reduce-scatter
    + all-gather above (Thakur, Rabenseifner & Gropp 2005); alpha s per message, beta s per
    byte moved, gamma s per byte reduced."""
    if p <= 1:
        return 0.0
    lg = math.ceil(math.log2(p))
    if nbytes <= 2048:
        return lg * (alpha + nbytes * (beta + gamma))
    return 2 * lg * alpha + 2 * (p - 1) / p * nbytes * beta + (p - 1) / p * nbytes * gamma


def predicted_step(phases, buckets, ready_s, p, alpha, beta, gamma):
    """Forward + backward + the all-reduce pipeline's tail past backward + optimizer.

    Bucket k can start when backward produced it (``ready_s[k]``) and when bucket k-1 is
    done (MPI runs them one after another); whatever runs past the end of backward is
    exposed.
    """
    fwd, bwd, opt = phases
    finish = 0.0
    for nbytes, ready in zip(buckets, ready_s):
        finish = max(min(ready, bwd), finish) + allreduce_time(nbytes, p, alpha, beta, gamma)
    return fwd + bwd + max(0.0, finish - bwd) + opt


def fit_shared_memory(allreduce):
    """alpha, beta, gamma of the 2-rank shared-memory all-reduce.

    A line through the fast calls (20th percentile) of 64 KB .. 4 MB, DDP's bucket sizes,
    fitted for relative error so the small sizes weigh as much as the large ones.
    """
    sizes = [s for s in SIZES if (64 << 10) <= s <= (4 << 20)]
    t = np.array([_p20(allreduce[str(s)]["mpi4py"]) for s in sizes])
    slope, intercept = np.polyfit(np.array(sizes, float), t, 1, w=1 / t)
    red = allreduce["reduce_local"]
    gamma = float(np.median([_p20(red[k]) / int(k) for k in red]))
    beta = max(slope - gamma / 2, 1e-12)  # 2 ranks: n*beta + n*gamma/2
    alpha = max(intercept / 2, 1e-7)
    return alpha, beta, gamma


def model_report(out, args):
    alpha, beta, gamma = fit_shared_memory(out["allreduce"])
    out["model"] = {"alpha_s": alpha, "beta_s_per_byte": beta, "gamma_s_per_byte": gamma}
    print(f"\n4. cost model (docs/distributed.md): 2-rank shared-memory fit alpha "
          f"{alpha * 1e6:.1f} us, beta {1 / beta / 1e9:.2f} GB/s, reduction gamma "
          f"{1 / gamma / 1e9:.2f} GB/s")
    nets = [(f"{g} Gbit/s, {a:g} us", a * 1e-6, 8 / (g * 1e9)) for g, a in
            ((10, args.latency_us), (100, args.latency_us / 5))]
    for name in ("mlp", "lenet"):
        r = out["overlap"][name]
        phases, buckets, ready = r["phases"], r["buckets"], r["bucket_ready_s"]
        measured = min(r["step"])
        two = predicted_step(phases, buckets, ready, 2, alpha, beta, gamma)
        print(f"  {name:5} (per-rank batch as on 2 ranks): compute {sum(phases) * 1e3:.2f} ms;"
              f" 2 ranks measured {measured * 1e3:.2f} ms, model {two * 1e3:.2f} ms")
        for label, a, b in nets:
            preds = [predicted_step(phases, buckets, ready, p, a, b, gamma) for p in (8, 64)]
            comm = [allreduce_time(sum(buckets), p, a, b, gamma) for p in (8, 64)]
            print(f"        {label:>20}: 8 ranks {preds[0] * 1e3:7.2f} ms (all-reduce "
                  f"{comm[0] * 1e3:.2f} ms), 64 ranks {preds[1] * 1e3:7.2f} ms (all-reduce "
                  f"{comm[1] * 1e3:.2f} ms)")
            out["model"].setdefault(name, {})[label] = {"8": preds[0], "64": preds[1]}


# -- 5. the socket transport (no mpiexec) against torch's gloo ---------------------------

def worker_sockets(lib, repeats, steps):
    """One rank of a 2-process env:// job (started apart, as mp.spawn does), numtorch's
    socket transport or torch's gloo: all-reduce times per size and a DDP step (MLP)."""
    if lib == "torch":
        import torch
    else:
        import numtorch as torch
    import importlib

    dist, nn = torch.distributed, torch.nn
    F = importlib.import_module(torch.__name__ + ".nn.functional")
    dist.init_process_group("gloo")
    res = {}
    for size in SIZES:
        t = torch.ones(size // 4)
        inner = max(1, min(50, (1 << 20) // size))
        dist.all_reduce(t)
        ts = []
        for _ in range(repeats):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(inner):
                dist.all_reduce(t)
            ts.append((time.perf_counter() - t0) / inner)
        res[size] = ts
    model, x, y = _workload("mlp", torch, nn, F, 64, seed=dist.get_rank())
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    ts = []
    for rep in range(repeats + 1):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            F.cross_entropy(ddp(x), y).backward()
            opt.step()
        if rep:
            ts.append((time.perf_counter() - t0) / steps)
    res["ddp_mlp_step"] = ts
    if dist.get_rank() == 0:
        print("RESULT " + json.dumps(res), flush=True)
    dist.destroy_process_group()


def _socket_pair(lib, repeats, steps):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in (0, 1):
        env = dict(os.environ, OMP_NUM_THREADS="1", RANK=str(rank), WORLD_SIZE="2",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "sockets", lib,
             str(repeats), str(steps)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=env))
    outs = [p.communicate(timeout=600) for p in procs]
    for line in outs[0][0].splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"socket worker {lib} failed:\n{outs[0][1][-3000:]}")


def run_sockets(args):
    """Numtorch's socket transport against torch's gloo, 2 ranks, alternating pairs."""
    got = {"numtorch": [], "torch": []}
    for _ in range(args.rounds):
        for lib in ("numtorch", "torch"):
            got[lib].append(_socket_pair(lib, args.repeats, args.steps))
    print("5. socket transport (2 processes started apart, env://) vs torch gloo: median "
          "of the per-round medians, ms [range]")
    out = {}
    for key in [str(s) for s in SIZES] + ["ddp_mlp_step"]:
        row = {lib: [_med(r[key]) for r in got[lib]] for lib in got}
        out[key] = row
        label = _size(int(key)) if key.isdigit() else key
        print(f"  {label:>12}: numtorch {_fmt_range(row['numtorch'])}  torch "
              f"{_fmt_range(row['torch'])}  ratio "
              f"{_med(row['numtorch']) / _med(row['torch']):.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sockets": out}, f, indent=1)


def _size(n):
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--rounds", type=int, default=3, help="1-rank/2-rank alternations")
    p.add_argument("--steps", type=int, default=10, help="steps per timed repeat")
    p.add_argument("--json", default=None, help="write the raw numbers here")
    p.add_argument("--latency-us", type=float, default=25.0,
                   help="per-message latency of the modelled 10 Gbit/s network (100 Gbit/s: /5)")
    p.add_argument("--sockets", action="store_true",
                   help="only 5.: the socket transport (no mpiexec) against torch's gloo")
    p.add_argument("--worker", nargs="+", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        kind, *rest = args.worker
        if kind == "allreduce":
            worker_allreduce(int(rest[0]))
        elif kind == "overhead":
            worker_overhead(int(rest[0]))
        elif kind == "sockets":
            worker_sockets(rest[0], int(rest[1]), int(rest[2]))
        else:
            worker_step(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), bool(int(rest[4])))
        return
    if args.sockets:
        run_sockets(args)
        return
    run(args)


if __name__ == "__main__":
    main()
