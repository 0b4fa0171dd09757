"""The main job: train a small CNN on the bundled handwritten digits, ``python -m numtorch.demo``.

Everything a PyTorch training script uses appears here in its PyTorch spelling: a Dataset and
DataLoader, an ``nn.Module`` with convolutions, pooling and linear layers, cross-entropy, an
optimizer, ``no_grad`` evaluation, and a checkpoint written with ``torch.save`` in PyTorch's
own format (real PyTorch can ``torch.load`` it). The data (1,797 8x8 digit images, see
``DATA.md``) ships inside the package, so nothing is downloaded.
"""

import argparse
import os
import sys
import time

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch.utils.data import DataLoader, TensorDataset, random_split

__all__ = ["load_digits", "DigitsNet", "train", "evaluate", "main"]

_DATA = os.path.join(os.path.dirname(__file__), "digits.npz")


def load_digits():
    """The bundled digits as ``(images, labels)``: float32 (N, 1, 8, 8) in [0, 1], int64 (N,)."""
    with np.load(_DATA) as f:
        images = f["images"].astype(np.float32)[:, None] / 16.0
        labels = f["labels"].astype(np.int64)
    return torch.from_numpy(images), torch.from_numpy(labels)


class DigitsNet(nn.Module):
    """conv(1->16) relu, conv(16->32) relu, maxpool 2, linear(512->64) relu, linear(64->10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def _progress(iterable, total, desc, enabled):
    """tqdm when installed (and wanted), else a plain iterator with a one-line summary."""
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, leave=False, file=sys.stdout,
                    dynamic_ncols=True)
    except ImportError:
        return iterable


def evaluate(model, loader):
    """Accuracy of ``model`` over ``loader`` (no graph is recorded)."""
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def train(epochs=12, batch_size=64, lr=3e-3, seed=0, progress=True, log=print):
    """Train DigitsNet on 80% of the digits; returns ``(model, losses, test_accuracy)``."""
    torch.manual_seed(seed)
    images, labels = load_digits()
    full = TensorDataset(images, labels)
    n_test = len(full) // 5
    train_set, test_set = random_split(full, [len(full) - n_test, n_test],
                                       generator=torch.Generator().manual_seed(seed))
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=256)
    model = DigitsNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        bar = _progress(train_loader, len(train_loader), f"epoch {epoch + 1}/{epochs}",
                        progress)
        running = 0.0
        for x, y in bar:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(loss=f"{loss.item():.4f}")
        losses.append(running / len(train_loader))
        log(f"epoch {epoch + 1:2d}/{epochs}  loss {losses[-1]:.4f}")
    return model, losses, evaluate(model, test_loader)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m numtorch.demo",
                                     description="Train a small CNN on the bundled digits.")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checkpoint", default="digits_cnn.pt",
                        help="where to save the trained state_dict (PyTorch's format)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    args = parser.parse_args(argv)
    t0 = time.time()
    model, losses, acc = train(epochs=args.epochs, seed=args.seed,
                               progress=not args.no_progress)
    print(f"test accuracy: {acc:.2%}  ({time.time() - t0:.1f} s)")
    if args.checkpoint:
        torch.save(model.state_dict(), args.checkpoint)
        print(f"saved {args.checkpoint} (load it in PyTorch with torch.load(path))")
    return model, losses, acc


if __name__ == "__main__":
    main()
