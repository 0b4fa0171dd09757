"""numtorch against PyTorch on the same GPU: training-step time ratios (issue 16, item 7).

Each workload builds the same model in both libraries (torch's initial weights copied into
numtorch's), trains both on the same batches, checks the loss curves agree, then times steady
training steps (forward, backward, optimizer step; both synchronised before the clock stops)
and prints numtorch's time / torch's, beside the goal:

==========================  ===========================================  =====
workload                    model                                        goal
==========================  ===========================================  =====
mlp_b128                    784-512-512-10 MLP, SGD, batch 128           2.0
mlp_wide_b4096_adam         784-4096-4096-10 MLP, Adam, batch 4096       1.2
lenet_b64                   LeNet-5 with batch norm, SGD, batch 64       2.0
convnet_b128                two 3x3 conv blocks, 32 px, batch 128        1.2
resnet18_b128               ResNet-18 (CIFAR stem), 32 px, batch 128     1.2
lstm_lm                     2-layer LSTM language model, 35 x 20 tokens  2.0
transformer                 2-layer Transformer encoder, d=128, Adam     2.0
==========================  ===========================================  =====

Run on a GPU machine with CuPy and a CUDA build of torch: ``python bench/gpu.py`` (``--quick``
for fewer steps, ``--only NAME[,NAME]``, ``--json FILE`` to save the results). Without a GPU,
``--standin`` runs every workload on the CPU stand-in for CuPy (tests/cuda/standin) against
torch on the CPU: the timings then mean nothing, but the whole GPU code path of each workload
runs and the loss curves are still compared. ``--standin --count`` instead counts, per
training step, the kernel launches and host synchronisations numtorch's CUDA path makes (the
stand-in tallies them): at ~5-10 us of host time per CuPy launch, launches x 7 us is about the
floor of numtorch's step time on a GPU whatever the GPU's speed; ``--sites N`` adds the N
numtorch lines that launch the most. This is a benchmark, not a test.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

import numtorch as nt  # noqa: E402

GOALS = {"mlp_b128": 2.0, "mlp_wide_b4096_adam": 1.2, "lenet_b64": 2.0, "convnet_b128": 1.2,
         "resnet18_b128": 1.2, "lstm_lm": 2.0, "transformer": 2.0}


# -- the models (written against either library) ------------------------------------------------
def mlp(lib, width=512):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, 10))


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5),
                         nn.BatchNorm2d(50), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))


def convnet(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64),
                         nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1, bias=False),
                         nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(64, 10))


def resnet18(lib, classes=10):
    """ResNet-18 (four stages of two basic blocks, 64-512 channels) with a 3x3 stem for
    32-pixel images."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.short = nn.Sequential()
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                           nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.b1(self.c1(x)).relu()
            return (self.b2(self.c2(y)) + self.short(x)).relu()

    layers = [nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def lstm_lm(lib):
    nn = lib.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(100, 64)
            self.rnn = nn.LSTM(64, 128, num_layers=2)
            self.out = nn.Linear(128, 100)

        def forward(self, x):
            return self.out(self.rnn(self.emb(x))[0])

    return LM()


def transformer(lib):
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)
    return nn.Sequential(nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
                         nn.Flatten(), nn.Linear(128 * 32, 10))


def ce(lib, m, x, y):
    return lib.nn.functional.cross_entropy(m(x), y)


def lm_loss(lib, m, x, y):
    return lib.nn.functional.cross_entropy(m(x).reshape(-1, 100), y.reshape(-1))


def _images(n, shape):
    rng = np.random.default_rng(0)
    return lambda: (rng.standard_normal((n,) + shape).astype(np.float32),
                    rng.integers(0, 10, n))


def _tokens():
    rng = np.random.default_rng(0)
    return lambda: (rng.integers(0, 100, (35, 20)), rng.integers(0, 100, (35, 20)))


# name -> (model, loss, optimizer, lr, batch maker, steps)
WORKLOADS = {
    "mlp_b128": (mlp, ce, "sgd", 0.05, _images(128, (784,)), 30),
    "mlp_wide_b4096_adam": (lambda lib: mlp(lib, 4096), ce, "adam", 1e-3,
                            _images(4096, (784,)), 20),
    "lenet_b64": (lenet, ce, "sgd", 0.05, _images(64, (1, 28, 28)), 30),
    "convnet_b128": (convnet, ce, "sgd", 0.05, _images(128, (3, 32, 32)), 20),
    "resnet18_b128": (resnet18, ce, "sgd", 0.05, _images(128, (3, 32, 32)), 10),
    "lstm_lm": (lstm_lm, lm_loss, "sgd", 0.5, _tokens(), 20),
    "transformer": (transformer, ce, "adam", 1e-4, _images(32, (32, 128)), 20),
}


# -- running one workload -------------------------------------------------------------------------
def _optimizer(lib, name, params, lr):
    return (lib.optim.SGD(params, lr=lr, momentum=0.9) if name == "sgd" else
            lib.optim.Adam(params, lr=lr))


def _sync(torch, th_device):
    nt.cuda.synchronize()
    if th_device == "cuda":
        torch.cuda.synchronize()


def run(torch, name, th_device, quick=False, count=False):
    """Train ``name`` in both libraries; its loss gap, step times and ratio as a dict (with
    ``count``, on the stand-in: the loss gap and one step's launches and syncs instead)."""
    make, loss_fn, opt_name, lr, batches, steps = WORKLOADS[name]
    steps = max(3, steps // 5) if quick else steps
    torch.manual_seed(0)
    th_m = make(torch)
    nt_m = make(nt)
    nt_m.load_state_dict({k: nt.from_numpy(v.detach().numpy().copy())
                          for k, v in th_m.state_dict().items()})
    th_m.to(th_device)
    nt_m.cuda()
    th_opt = _optimizer(torch, opt_name, th_m.parameters(), lr)
    nt_opt = _optimizer(nt, opt_name, nt_m.parameters(), lr)
    data = [batches() for _ in range(3)]

    def step(lib, m, opt, x, y):
        opt.zero_grad()
        loss = loss_fn(lib, m, x, y)
        loss.backward()
        opt.step()
        return loss

    gap = 0.0
    for xb, yb in data:  # the same three steps: the loss curves must agree
        a = step(nt, nt_m, nt_opt, nt.from_numpy(xb).cuda(), nt.from_numpy(yb).cuda()).item()
        b = step(torch, th_m, th_opt, torch.from_numpy(xb).to(th_device),
                 torch.from_numpy(yb).to(th_device)).item()
        gap = max(gap, abs(a - b) / max(abs(b), 1e-6))
    if count:
        from tests.cuda import standin

        x, y = (nt.from_numpy(a).cuda() for a in data[0])
        standin.reset_stats()
        sites = _launch_sites(lambda: step(nt, nt_m, nt_opt, x, y), standin.STATS) if \
            count == "sites" else step(nt, nt_m, nt_opt, x, y)
        r = {"workload": name, "max_rel_loss_gap": gap,
             "launches": standin.STATS["kernels"], "syncs": standin.STATS["sync"],
             "floor_ms": round(standin.STATS["kernels"] * 7e-3, 2)}
        if count == "sites":
            r["sites"] = sites.most_common()
        return r

    def timed(lib, m, opt, device):
        x, y = (lib.from_numpy(a) for a in data[0])
        x, y = (x.cuda(), y.cuda()) if lib is nt else (x.to(device), y.to(device))
        step(lib, m, opt, x, y)
        _sync(torch, th_device)
        t = time.perf_counter()
        for _ in range(steps):
            step(lib, m, opt, x, y)
        _sync(torch, th_device)
        return (time.perf_counter() - t) / steps

    t_nt = timed(nt, nt_m, nt_opt, "cuda")
    t_th = timed(torch, th_m, th_opt, th_device)
    return {"workload": name, "max_rel_loss_gap": gap, "ms_numtorch": round(t_nt * 1e3, 3),
            "ms_torch": round(t_th * 1e3, 3), "ratio": round(t_nt / t_th, 2),
            "goal": GOALS[name]}


def _launch_sites(fn, stats):
    """Run ``fn`` noting, for every stand-in launch, the numtorch line that asked for it (the
    innermost numtorch frame outside the stand-in); a Counter of ``file:line function``."""
    import collections

    sites, last = collections.Counter(), [stats.get("kernels", 0)]

    def note(frame, event, arg):
        k = stats.get("kernels", 0)
        if k != last[0]:
            f = frame
            while f is not None and "/numtorch/" not in f.f_code.co_filename:
                f = f.f_back
            where = "?" if f is None else (f"{os.path.relpath(f.f_code.co_filename, ROOT)}:"
                                           f"{f.f_lineno} {f.f_code.co_name}")
            sites[where] += k - last[0]
            last[0] = k
        return note

    sys.settrace(lambda frame, event, arg: note if "/standin/" in frame.f_code.co_filename
                 else None)
    try:
        fn()
    finally:
        sys.settrace(None)
    return sites


def _print_row(r, count):
    if count:
        print(f"{r['workload']:<22}{r['launches']:>9}{r['syncs']:>6}{r['floor_ms']:>9.2f}"
              f"{r['max_rel_loss_gap']:>10.1e}")
    else:
        print(f"{r['workload']:<22}{r['ms_numtorch']:>12.2f}{r['ms_torch']:>10.2f}"
              f"{r['ratio']:>7.2f}{r['goal']:>6.1f}{r['max_rel_loss_gap']:>10.1e}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer timed steps")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument("--json", default="", help="write the results to this file")
    p.add_argument("--standin", action="store_true",
                   help="no GPU: numtorch on the CPU stand-in for CuPy, torch on the CPU")
    p.add_argument("--count", action="store_true",
                   help="with --standin: kernel launches and host syncs per training step")
    p.add_argument("--sites", type=int, default=0, metavar="N",
                   help="with --count: also the N numtorch lines launching the most kernels")
    args = p.parse_args(argv)
    if args.count and not args.standin:
        sys.exit("--count needs --standin (the stand-in counts the launches)")
    import torch

    if args.standin:
        from tests.cuda import standin

        standin.install()
        th_device = "cpu"
    else:
        if not nt.cuda.is_available() or not torch.cuda.is_available():
            sys.exit("bench/gpu.py needs a GPU with CuPy and a CUDA build of torch "
                     "(or --standin to run the code paths on the CPU)")
        th_device = "cuda"
        # both libraries in full float32 (torch's cuDNN convolutions default to TF32)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    names = [n for n in args.only.split(",") if n] or list(WORKLOADS)
    results = []
    if args.count:
        print(f"{'workload':<22}{'launches':>9}{'syncs':>6}{'floor ms':>9}{'loss gap':>10}")
    else:
        print(f"{'workload':<22}{'numtorch ms':>12}{'torch ms':>10}{'ratio':>7}{'goal':>6}"
              f"{'loss gap':>10}")
    for name in names:
        try:
            r = run(torch, name, th_device, args.quick,
                    "sites" if args.count and args.sites else args.count)
        except Exception as e:  # noqa: BLE001 - report the failing workload and go on
            r = {"workload": name, "error": f"{type(e).__name__}: {e}"[:300]}
            print(f"{name:<22}FAILED {r['error']}")
        else:
            _print_row(r, args.count)
            for where, n in r.get("sites", [])[:args.sites]:
                print(f"{n:>8}  {where}")
        results.append(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == "__main__":
    main()
