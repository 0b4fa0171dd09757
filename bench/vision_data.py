"""An ImageFolder of 1,000 small JPEGs through RandomResizedCrop(64) + RandomHorizontalFlip +
ToTensor + Normalize in a DataLoader (batch 32, 2 workers): images per second of numtorch +
numtorchvision against torch + torchvision. Goal: numtorch's rate >= torchvision's
(ratio numtorch time / torch time <= 1.0).

Each measurement runs in a fresh process and the two libraries take turns, so load from
elsewhere on the machine slows both; each process times its second epoch (the first warms
the file cache and the imports). The median and range of ``--repeats`` runs are printed.

    python bench/vision_data.py [--repeats 5] [--images 1000] [--workers 2]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

_MEAN, _STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def make_folder(root, n, classes=10, seed=0):
    """``n`` JPEGs of 96x112 smooth random colour patterns, spread over ``classes`` folders."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:96, 0:112]
    for i in range(n):
        folder = os.path.join(root, f"class{i % classes}")
        os.makedirs(folder, exist_ok=True)
        fx, fy, phase = rng.uniform(0.02, 0.2, 3)
        base = np.stack([np.sin(xx * fx + phase), np.cos(yy * fy), np.sin((xx + yy) * fx * fy)],
                        axis=-1)
        noise = rng.normal(0, 0.1, base.shape)
        arr = np.clip((base + noise + 1) * 127.5, 0, 255).astype(np.uint8)
        Image.fromarray(arr).save(os.path.join(folder, f"{i:05d}.jpg"), quality=90)


def _import(lib):
    if lib == "numtorch":
        import numtorch as torch
        import numtorchvision as tv
        return torch, tv
    import torch

    orig = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision as tv
    finally:
        torch.library.register_fake = orig
    return torch, tv


def child(lib, root, workers, batch):
    """One measurement: a warm-up epoch, then the timed epoch; prints images per second."""
    torch, tv = _import(lib)
    T = tv.transforms
    tf = T.Compose([T.RandomResizedCrop(64), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize(_MEAN, _STD)])
    ds = tv.datasets.ImageFolder(root, transform=tf)
    loader = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=True,
                                         num_workers=workers)
    for _ in loader:
        pass
    t0 = time.perf_counter()
    n = 0
    for x, y in loader:
        assert tuple(x.shape[1:]) == (3, 64, 64)
        n += x.shape[0]
    rate = n / (time.perf_counter() - t0)
    print(f"{rate:.1f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--images", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--child", choices=["numtorch", "torch"])
    p.add_argument("--root")
    args = p.parse_args()
    if args.child:
        child(args.child, args.root, args.workers, args.batch)
        return
    with tempfile.TemporaryDirectory() as root:
        make_folder(root, args.images)
        rates = {"numtorch": [], "torch": []}
        for r in range(args.repeats):
            order = ("numtorch", "torch") if r % 2 == 0 else ("torch", "numtorch")
            for lib in order:
                out = subprocess.run([sys.executable, __file__, "--child", lib, "--root", root,
                                      "--workers", str(args.workers), "--batch",
                                      str(args.batch)], check=True, capture_output=True,
                                     text=True)
                rates[lib].append(float(out.stdout.strip().splitlines()[-1]))
    nt, th = statistics.median(rates["numtorch"]), statistics.median(rates["torch"])
    print(f"{args.images} JPEGs, RandomResizedCrop(64)+flip+ToTensor+Normalize, batch "
          f"{args.batch}, {args.workers} workers, {args.repeats} runs each (median [min-max])")
    for lib, med in (("numtorch+numtorchvision", nt), ("torch+torchvision", th)):
        vals = rates["numtorch" if lib.startswith("numtorch") else "torch"]
        print(f"  {lib:<24} {med:8.1f} images/s  [{min(vals):.1f} - {max(vals):.1f}]")
    ratio = th / nt  # time ratio: numtorch time / torch time
    print(f"  ratio numtorch time / torch time: {ratio:.2f}  goal <= 1.0  "
          f"{'PASS' if ratio <= 1.0 else 'MISS'}")


if __name__ == "__main__":
    main()
