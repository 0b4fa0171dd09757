"""Convolution kernels per shape: numtorch against torch, in GF/s and against the GEMM peak.

Run ``python bench/conv_shapes.py`` (``--threads T``, ``--repeats R``, ``--clock cpu|wall``,
``--only SUBSTRING`` to pick shapes by name). For every shape a real CNN has (ResNet's 7x7
stem and its 3x3/1x1 convs at batch 16 of 112x112, the 32-channel blocks of a CIFAR ResNet,
the small MNIST net, depthwise convs as in MobileNet, a DCGAN transposed conv, conv1d and
conv3d; then ResNet's and the MNIST net's max pooling) it times three passes through the
public API, each alone:

* ``fwd``: ``y = conv(x, w)`` under ``no_grad``;
* ``bwd-in``: the input gradient ``dL/dx`` only (``autograd.grad`` of ``y`` w.r.t. ``x``);
* ``bwd-w``: the weight gradient ``dL/dw`` only;
* ``bwd-xw``: both (as in training a layer after the first: some kernels compute the two
  together);

and for pooling ``fwd`` (under ``no_grad``), ``fwd-grad`` (recording: the argmax is kept)
and ``bwd`` (the input gradient), in ms only.

Each pass does ``2 * N * C_out * C_in/groups * prod(kernel) * prod(out)`` useful flops
(a transposed conv is counted as the convolution it transposes). The line shows the best time
of ``--repeats`` for numtorch and torch (the libraries take turns), numtorch's GF/s, that as a
percentage of this machine's square-GEMM rate (NumPy's BLAS on 1024x1024 float32, measured
first with the same thread count), and the ratio numtorch time / torch time.

The default is one thread and ``--clock cpu`` (the process's CPU time): on a machine shared
with other work, CPU time of a single-threaded run is the steadiest measure there is, because
time slices lost to other processes do not count. ``--clock wall`` with ``--threads 2`` shows
what a user waits for on an idle machine. torch runs its convolutions through oneDNN.

This is a benchmark, not a test: the numbers depend on the machine and its load.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numtorch

try:
    import torch
except ImportError:
    torch = None

# name, dims, N, C_in, spatial, C_out, kernel, stride, padding, groups, transposed
SHAPES = [
    ("resnet18 stem 7x7/2", 2, 16, 3, 112, 64, 7, 2, 3, 1, False),
    ("resnet18 l1 3x3 64", 2, 16, 64, 28, 64, 3, 1, 1, 1, False),
    ("resnet18 l2 3x3/2 64>128", 2, 16, 64, 28, 128, 3, 2, 1, 1, False),
    ("resnet18 l2 1x1/2 64>128", 2, 16, 64, 28, 128, 1, 2, 0, 1, False),
    ("resnet18 l2 3x3 128", 2, 16, 128, 14, 128, 3, 1, 1, 1, False),
    ("resnet18 l3 3x3 256", 2, 16, 256, 7, 256, 3, 1, 1, 1, False),
    ("resnet18 l3 3x3/2 128>256", 2, 16, 128, 14, 256, 3, 2, 1, 1, False),
    ("resnet18 l3 1x1/2 128>256", 2, 16, 128, 14, 256, 1, 2, 0, 1, False),
    ("resnet18 l4 3x3/2 256>512", 2, 16, 256, 7, 512, 3, 2, 1, 1, False),
    ("resnet18 l4 1x1/2 256>512", 2, 16, 256, 7, 512, 1, 2, 0, 1, False),
    ("resnet18 l4 3x3 512", 2, 16, 512, 4, 512, 3, 1, 1, 1, False),
    ("cifar block 3x3 16", 2, 32, 16, 32, 16, 3, 1, 1, 1, False),
    ("cifar block 3x3 32", 2, 32, 32, 32, 32, 3, 1, 1, 1, False),
    ("mnist conv1 1>32 3x3", 2, 64, 1, 28, 32, 3, 1, 0, 1, False),
    ("mnist conv2 32>64 3x3", 2, 64, 32, 26, 64, 3, 1, 0, 1, False),
    ("bottleneck 1x1 64>256", 2, 16, 64, 28, 256, 1, 1, 0, 1, False),
    ("depthwise 3x3 96", 2, 16, 96, 56, 96, 3, 1, 1, 96, False),
    ("depthwise 3x3/2 144", 2, 16, 144, 56, 144, 3, 2, 1, 144, False),
    ("grouped 3x3 g=8 128", 2, 16, 128, 28, 128, 3, 1, 1, 8, False),
    # vit-pytorch's MobileViT at its driver's size (batch 8, 64x64 images): MV2 blocks
    ("mobilevit depthwise 3x3 96", 2, 8, 96, 16, 96, 3, 1, 1, 96, False),
    ("mobilevit depthwise 3x3/2 64", 2, 8, 64, 32, 64, 3, 2, 1, 64, False),
    ("dcgan convT 4x4/2 128>64", 2, 16, 128, 16, 64, 4, 2, 1, 1, True),
    ("conv1d k3 64", 1, 32, 64, 256, 64, 3, 1, 1, 1, False),
    ("conv3d 3x3x3 16>32", 3, 4, 16, 16, 32, 3, 1, 1, 1, False),
    # fast_neural_style's TransformerNet on a 1080x1080 image (reflection-padded beforehand,
    # so the convs themselves are unpadded): few output channels under a large kernel
    ("fns conv1 9x9 3>32", 2, 1, 3, 1088, 32, 9, 1, 0, 1, False),
    ("fns conv2 3x3/2 32>64", 2, 1, 32, 1082, 64, 3, 2, 0, 1, False),
    ("fns conv3 3x3/2 64>128", 2, 1, 64, 542, 128, 3, 2, 0, 1, False),
    ("fns res 3x3 128", 2, 1, 128, 272, 128, 3, 1, 0, 1, False),
    ("fns deconv1 3x3 128>64", 2, 1, 128, 542, 64, 3, 1, 0, 1, False),
    ("fns deconv2 3x3 64>32", 2, 1, 64, 1082, 32, 3, 1, 0, 1, False),
    ("fns deconv3 9x9 32>3", 2, 1, 32, 1088, 3, 9, 1, 0, 1, False),
    ("fns train 9x9 32>3", 2, 4, 32, 264, 3, 9, 1, 0, 1, False),
    # super_resolution's net (upscale 3, batch 4 of 85x85 crops)
    ("sr conv1 5x5 1>64", 2, 4, 1, 85, 64, 5, 1, 2, 1, False),
    ("sr conv2 3x3 64", 2, 4, 64, 85, 64, 3, 1, 1, 1, False),
    ("sr conv3 3x3 64>32", 2, 4, 64, 85, 32, 3, 1, 1, 1, False),
    ("sr conv4 3x3 32>9", 2, 4, 32, 85, 9, 3, 1, 1, 1, False),
    # dcgan (batch 64, 64x64 images): the generator's transposed convs, the discriminator's
    ("dcgan G 4x4/2 512>256", 2, 64, 512, 4, 256, 4, 2, 1, 1, True),
    ("dcgan G 4x4/2 256>128", 2, 64, 256, 8, 128, 4, 2, 1, 1, True),
    ("dcgan G 4x4/2 128>64", 2, 64, 128, 16, 64, 4, 2, 1, 1, True),
    ("dcgan G 4x4/2 64>3", 2, 64, 64, 32, 3, 4, 2, 1, 1, True),
    ("dcgan D 4x4/2 3>64", 2, 64, 3, 64, 64, 4, 2, 1, 1, False),
    ("dcgan D 4x4/2 64>128", 2, 64, 64, 32, 128, 4, 2, 1, 1, False),
    ("dcgan D 4x4/2 128>256", 2, 64, 128, 16, 256, 4, 2, 1, 1, False),
    ("dcgan D 4x4/2 256>512", 2, 64, 256, 8, 512, 4, 2, 1, 1, False),
    # pytorch/examples' dcgan as bench/programs runs it (ngf = ndf = 16, batch 16, 64x64)
    ("dcgan16 G 4x4/1 100>128", 2, 16, 100, 1, 128, 4, 1, 0, 1, True),
    ("dcgan16 G 4x4/2 128>64", 2, 16, 128, 4, 64, 4, 2, 1, 1, True),
    ("dcgan16 G 4x4/2 64>32", 2, 16, 64, 8, 32, 4, 2, 1, 1, True),
    ("dcgan16 G 4x4/2 32>16", 2, 16, 32, 16, 16, 4, 2, 1, 1, True),
    ("dcgan16 G 4x4/2 16>3", 2, 16, 16, 32, 3, 4, 2, 1, 1, True),
    ("dcgan16 D 4x4/2 3>16", 2, 16, 3, 64, 16, 4, 2, 1, 1, False),
    ("dcgan16 D 4x4/2 16>32", 2, 16, 16, 32, 32, 4, 2, 1, 1, False),
    ("dcgan16 D 4x4/2 32>64", 2, 16, 32, 16, 64, 4, 2, 1, 1, False),
    ("dcgan16 D 4x4/2 64>128", 2, 16, 64, 8, 128, 4, 2, 1, 1, False),
    ("dcgan16 D 4x4/1 128>1", 2, 16, 128, 4, 1, 4, 1, 0, 1, False),
    # siamese_network's ResNet-18 on 28x28 MNIST digits, test batch 1000: its strided convs
    ("siamese l2 3x3/2 64>128", 2, 1000, 64, 7, 128, 3, 2, 1, 1, False),
    ("siamese l3 3x3/2 128>256", 2, 1000, 128, 4, 256, 3, 2, 1, 1, False),
]


# name, N, C, spatial, kernel, stride, padding (2-d max pooling)
POOLS = [
    ("resnet18 maxpool 3x3/2", 16, 64, 56, 3, 2, 1),
    ("mnist maxpool 2x2/2", 64, 64, 24, 2, 2, 0),
]


def pool_passes(lib, spec, seed=0):
    """{pass name: callable} for 2-d max pooling: ``fwd`` under ``no_grad``, ``fwd-grad``
    (recording, so the argmax is kept) and ``bwd`` (the input gradient alone)."""
    _, n, c, s, k, st, p = spec
    rng = np.random.default_rng(seed)
    x = lib.from_numpy(rng.standard_normal((n, c, s, s)).astype(np.float32))
    xr = x.detach().requires_grad_(True)
    pool = lib.nn.functional.max_pool2d
    y = pool(xr, k, st, p)
    g = lib.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32))

    def fwd():
        with lib.no_grad():
            pool(x, k, st, p)

    return {"fwd": fwd, "fwd-grad": lambda: pool(xr, k, st, p),
            "bwd": lambda: lib.autograd.grad(y, xr, g, retain_graph=True)}


def gemm_peak(threads, clock, repeats):
    """GF/s of NumPy's float32 1024x1024 matmul (the machine's square-GEMM rate)."""
    a = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
    best = min(_timed(lambda: a @ a, clock) for _ in range(repeats))
    return 2 * 1024 ** 3 / best / 1e9


def _timed(fn, clock):
    start = clock()
    fn()
    return clock() - start


def _operands(lib, shape, rng):
    _, nd, n, c, s, o, k, _, _, g, transposed = shape
    x = rng.standard_normal((n, c) + (s,) * nd).astype(np.float32)
    w_shape = (c, o // g) if transposed else (o, c // g)
    w = (rng.standard_normal(w_shape + (k,) * nd) * 0.1).astype(np.float32)
    return lib.from_numpy(x), lib.from_numpy(w)


def _conv_fn(lib, shape):
    _, nd, _, _, _, _, _, st, p, g, transposed = shape
    F = lib.nn.functional
    if transposed:
        f = getattr(F, f"conv_transpose{nd}d")
        return lambda x, w: f(x, w, None, st, p, 0, g)
    f = getattr(F, f"conv{nd}d")
    return lambda x, w: f(x, w, None, st, p, 1, g)


def flops(shape, y_shape):
    """Useful flops of one pass (the same for forward and both gradients)."""
    _, nd, n, c, s, o, k, _, _, g, transposed = shape
    if transposed:  # the convolution it transposes maps y (o channels) to x (c channels)
        out = s ** nd
        return 2 * n * c * (o // g) * k ** nd * out
    out = int(np.prod(y_shape[2:]))
    return 2 * n * o * (c // g) * k ** nd * out


def passes(lib, shape, seed=0):
    """{pass name: zero-argument callable} for ``lib`` on ``shape``, and y's shape."""
    rng = np.random.default_rng(seed)
    x, w = _operands(lib, shape, rng)
    conv = _conv_fn(lib, shape)
    with lib.no_grad():
        y = conv(x, w)
    g = lib.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32))
    xr = x.detach().requires_grad_(True)
    wr = w.detach().requires_grad_(True)
    y_in = conv(xr, w)
    y_w = conv(x, wr)
    y_xw = conv(xr, wr)

    def fwd():
        with lib.no_grad():
            conv(x, w)

    return {
        "fwd": fwd,
        "bwd-in": lambda: lib.autograd.grad(y_in, xr, g, retain_graph=True),
        "bwd-w": lambda: lib.autograd.grad(y_w, wr, g, retain_graph=True),
        "bwd-xw": lambda: lib.autograd.grad(y_xw, (xr, wr), g, retain_graph=True),
    }, tuple(y.shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5, help="best of this many runs")
    parser.add_argument("--clock", choices=("cpu", "wall"), default=None,
                        help="cpu: process CPU time (default with one thread); wall otherwise")
    parser.add_argument("--only", default=None, help="shapes whose name contains this")
    args = parser.parse_args()
    clock_name = args.clock or ("cpu" if args.threads == 1 else "wall")
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    numtorch.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    peak = gemm_peak(args.threads, clock, max(args.repeats, 3))
    print(f"square GEMM (1024, float32): {peak:.1f} GF/s; {args.threads} thread(s), "
          f"{clock_name} clock, best of {args.repeats}")
    print(f"{'shape':28s} {'pass':7s} {'numtorch ms':>11s} {'GF/s':>6s} {'%peak':>6s} "
          f"{'torch ms':>9s} {'GF/s':>6s} {'ratio':>6s}")
    for shape in SHAPES:
        if args.only and args.only not in shape[0]:
            continue
        nt_passes, y_shape = passes(numtorch, shape)
        th_passes = passes(torch, shape)[0] if torch is not None else None
        work = flops(shape, y_shape)
        for name, fn in nt_passes.items():
            fns = [fn] + ([th_passes[name]] if th_passes else [])
            for f in fns:  # warm-up
                f()
            best = [float("inf")] * len(fns)
            for _ in range(args.repeats):
                for i, f in enumerate(fns):
                    best[i] = min(best[i], _timed(f, clock))
            done = 2 * work if name == "bwd-xw" else work  # two gradients' worth
            gf = done / best[0] / 1e9
            line = (f"{shape[0]:28s} {name:7s} {best[0] * 1e3:11.2f} {gf:6.1f} "
                    f"{100 * gf / peak:5.0f}%")
            if th_passes:
                line += (f" {best[1] * 1e3:9.2f} {done / best[1] / 1e9:6.1f} "
                         f"{best[0] / best[1]:6.2f}")
            print(line, flush=True)
    for spec in POOLS:
        if args.only and args.only not in spec[0]:
            continue
        nt_passes = pool_passes(numtorch, spec)
        th_passes = pool_passes(torch, spec) if torch is not None else None
        for name, fn in nt_passes.items():
            fns = [fn] + ([th_passes[name]] if th_passes else [])
            best = _best(fns, clock, args.repeats)
            line = f"{spec[0]:28s} {name:8s} {best[0] * 1e3:10.2f} {'':6s} {'':6s}"
            if th_passes:
                line += f" {best[1] * 1e3:9.2f} {'':6s} {best[0] / best[1]:6.2f}"
            print(line, flush=True)


def _best(fns, clock, repeats):
    """Best time of each function over ``repeats`` turns (after one warm-up call each)."""
    for f in fns:
        f()
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, f in enumerate(fns):
            best[i] = min(best[i], _timed(f, clock))
    return best


if __name__ == "__main__":
    main()
