"""FER2013 (Kaggle): 48x48 grey faces as space-separated pixel strings in CSV files under
``root/fer2013``: ``fer2013.csv`` (emotion, pixels, Usage), ``icml_face_data.csv`` (the same
columns in another order) or the ``train.csv`` / ``test.csv`` pair (test without labels).
The first of these that exists is read."""

import csv
import pathlib

import numpy as np

from .._pil import pil
from ._listed import check_split, transformed
from .utils import check_integrity
from .vision import VisionDataset

_KAGGLE = ("https://www.kaggle.com/c/challenges-in-representation-learning-facial-"
           "expression-recognition-challenge")
_USAGE = {"train": ("Training",), "test": ("PublicTest", "PrivateTest")}


class FER2013(VisionDataset):
    """FER2013: facial expressions in seven classes.

    Args:
        root (str or pathlib.Path): folder holding ``fer2013``.
        split (str): ``"train"`` (default) or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.

    Test targets are ``None`` when only ``test.csv`` is there.
    """

    _RESOURCES = {"train": ("train.csv", "3f0dfb3d3fd99c811a1299cb947e3131"),
                  "test": ("test.csv", "b02c2298636a634e8c2faabbf3ea9a23"),
                  "fer": ("fer2013.csv", "f8428a1edbd21e88f42c73edd2a14f95"),
                  "icml": ("icml_face_data.csv", "b114b9e04e6949e5fe8b6a98b3892b1d")}

    def __init__(self, root, split="train", transform=None, target_transform=None):
        self._split = check_split(split, ("train", "test"))
        super().__init__(root, transform=transform, target_transform=target_transform)
        base = pathlib.Path(self.root) / "fer2013"
        kinds = [k for k in ("fer", "icml") if (base / self._RESOURCES[k][0]).exists()]
        kind = kinds[0] if kinds else self._split
        name, md5 = self._RESOURCES[kind]
        if not check_integrity(str(base / name), md5):
            raise RuntimeError(f"{name} not found in {base} or corrupted. You can download it "
                               f"from {_KAGGLE}")
        with open(base / name, newline="") as f:
            rows = [{key.strip(): value for key, value in row.items()}
                    for row in csv.DictReader(f)]
        if kind in ("fer", "icml"):
            rows = [row for row in rows if row["Usage"] in _USAGE[self._split]]
        from numtorch import from_numpy

        # all pixel strings parsed by NumPy at once: one (48, 48) uint8 tensor per row
        pixels = (np.loadtxt([row["pixels"] for row in rows], dtype=np.uint8, ndmin=2)
                  .reshape(-1, 48, 48) if rows else np.zeros((0, 48, 48), np.uint8))
        self._samples = [(from_numpy(image), int(row["emotion"]) if "emotion" in row else None)
                         for image, row in zip(pixels, rows)]

    def __getitem__(self, idx):
        pixels, target = self._samples[idx]
        image = pil().fromarray(pixels.numpy())
        return transformed(self, image, target)

    def __len__(self):
        return len(self._samples)

    def extra_repr(self):
        return f"split={self._split}"
