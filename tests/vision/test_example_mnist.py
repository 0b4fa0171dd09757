"""examples/mnist.py on a small fabricated MNIST (raw IDX files): one epoch runs, the test
accuracy is printed, and it learns the (easy) fabricated digits."""

import importlib.util
import os

import numpy as np

from . import _fabricate as fab

_EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "mnist.py")


def _digits(n, seed):
    """28x28 images whose class is where a bright 7x7 patch sits, with noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    images = rng.integers(0, 60, size=(n, 28, 28)).astype(np.uint8)
    for i, c in enumerate(labels):
        r, col = 2 + 8 * (c // 4), 2 + 8 * (c % 4)
        images[i, r:r + 7, col:col + 7] = 230
    return images, labels


def test_example_trains_on_fabricated_idx(tmp_path, capsys):
    files = {}
    for split, n, seed in (("train", 192, 0), ("t10k", 100, 1)):
        images, labels = _digits(n, seed)
        files[f"{split}-images-idx3-ubyte"] = fab.idx_bytes(images)
        files[f"{split}-labels-idx1-ubyte"] = fab.idx_bytes(labels)
    fab.write_files(tmp_path / "MNIST" / "raw", files)
    spec = importlib.util.spec_from_file_location("example_mnist", _EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    accuracy = example.main(["--epochs", "1", "--data", str(tmp_path), "--batch-size", "32",
                             "--test-batch-size", "50", "--log-interval", "5",
                             "--workers", "0"])
    out = capsys.readouterr().out
    assert "Train Epoch: 1 [0/192 (0%)]" in out
    assert "Test set: Average loss:" in out and "/100 (" in out
    assert accuracy > 60, out
