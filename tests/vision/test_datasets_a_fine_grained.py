"""Fine-grained classification datasets (Flowers102, Food101, DTD, OxfordIIITPet,
StanfordCars, FGVCAircraft) read from fabricated files in their real layouts, against
torchvision 0.28 on the same files."""

import json

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import image, mat, same_dataset, same_error, text


def _flowers(root, n=7):
    base = root / "flowers-102"
    for i in range(1, n + 1):
        image(base / "jpg" / f"image_{i:05d}.jpg", seed=i)
    mat(base / "imagelabels.mat", labels=np.array([[5, 1, 102, 5, 3, 7, 2]], np.uint8))
    mat(base / "setid.mat", trnid=np.array([[1, 4, 6]], np.uint16),
        valid=np.array([[2, 7]], np.uint16), tstid=np.array([[3, 5, 7]], np.uint16))
    return {k: (name, fab.md5(base / name) if k != "image" else md5)
            for k, (name, md5) in TD.Flowers102._file_dict.items()}


def test_flowers102(tmp_path, monkeypatch):
    files = _flowers(tmp_path)
    same_error(lambda: D.Flowers102(tmp_path), lambda: TD.Flowers102(tmp_path))
    for lib in (D, TD):
        monkeypatch.setattr(lib.Flowers102, "_file_dict", files)
    for split in ("train", "val", "test"):
        same_dataset(D.Flowers102(tmp_path, split), TD.Flowers102(tmp_path, split),
                     ["_labels", "_image_files", "classes"])
    same_error(lambda: D.Flowers102(tmp_path, "bad"), lambda: TD.Flowers102(tmp_path, "bad"),
               prefix=False)
