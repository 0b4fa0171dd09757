"""Per-sample gradients of a small MLP: ``vmap(grad(loss))`` against a Python loop, and
against torch.func on the same weights and data.

The MLP is 32-64-64-10 (Linear + ReLU), the loss cross-entropy per sample, the batch 64. Three
ways of getting the 64 per-sample gradients of every parameter:

* numtorch ``vmap(grad(loss), in_dims=(None, 0, 0))`` with ``functional_call``;
* numtorch, a Python loop of 64 ``grad`` calls (what vmap replaces);
* torch ``torch.func.vmap(torch.func.grad(...))`` (the yardstick).

The three results are checked to agree, then each is timed; the libraries take turns within
each repeat, and the median of ``--repeats`` (with min and max) is printed. Ratios are
numtorch / torch and loop / vmap. The machine may be shared: read the spread. Not a test.

Run ``python bench/vmap.py`` (``--batch``, ``--repeats``).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numtorch  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

SIZES = (32, 64, 64, 10)


def build(lib, weights):
    nn = lib.nn
    layers = []
    for i in range(len(SIZES) - 1):
        layers.append(nn.Linear(SIZES[i], SIZES[i + 1]))
        if i < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    params = {}
    for k, (w, b) in enumerate(weights):
        params[f"{2 * k}.weight"] = lib.from_numpy(w.copy())
        params[f"{2 * k}.bias"] = lib.from_numpy(b.copy())
    return model, params


def per_sample_fns(lib, model):
    F = lib.nn.functional

    def loss(params, x, y):
        out = lib.func.functional_call(model, params, (x.unsqueeze(0),))
        return F.cross_entropy(out, y.unsqueeze(0))

    vmapped = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    single = lib.func.grad(loss)

    def loop(params, xs, ys):
        grads = [single(params, xs[i], ys[i]) for i in range(xs.shape[0])]
        return {k: lib.stack([g[k] for g in grads]) for k in params}

    return vmapped, loop


def timed(fn, *args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    weights = [(rng.standard_normal((SIZES[i + 1], SIZES[i])).astype(np.float32) * 0.2,
                rng.standard_normal(SIZES[i + 1]).astype(np.float32) * 0.1)
               for i in range(len(SIZES) - 1)]
    xs = rng.standard_normal((args.batch, SIZES[0])).astype(np.float32)
    ys = rng.integers(0, SIZES[-1], args.batch)

    model, params = build(numtorch, weights)
    vm, loop = per_sample_fns(numtorch, model)
    x, y = numtorch.from_numpy(xs), numtorch.from_numpy(ys)
    runs = {"numtorch vmap": (vm, (params, x, y)), "numtorch loop": (loop, (params, x, y))}
    ref = {k: v.numpy() for k, v in vm(params, x, y).items()}
    got = loop(params, x, y)
    for k in ref:
        np.testing.assert_allclose(got[k].numpy(), ref[k], rtol=1e-4, atol=1e-5)
    if torch is not None:
        tmodel, tparams = build(torch, weights)
        tvm, _ = per_sample_fns(torch, tmodel)
        tx, ty = torch.from_numpy(xs), torch.from_numpy(ys)
        runs["torch vmap"] = (tvm, (tparams, tx, ty))
        tref = tvm(tparams, tx, ty)
        for k in ref:
            np.testing.assert_allclose(tref[k].numpy(), ref[k], rtol=1e-4, atol=1e-5)
    for fn, a in runs.values():  # warm up
        fn(*a)
    times = {k: [] for k in runs}
    for _ in range(args.repeats):
        for k, (fn, a) in runs.items():
            times[k].append(timed(fn, *a))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"per-sample gradients, MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, "
          f"median of {args.repeats} (min..max), ms")
    for k, v in times.items():
        print(f"  {k:15s} {med[k] * 1e3:8.2f}  ({min(v) * 1e3:.2f}..{max(v) * 1e3:.2f})")
    print(f"  loop / vmap (numtorch):     {med['numtorch loop'] / med['numtorch vmap']:.1f}x")
    if "torch vmap" in med:
        print(f"  numtorch vmap / torch vmap: {med['numtorch vmap'] / med['torch vmap']:.2f}")


if __name__ == "__main__":
    main()
