"""The Semantic Boundaries Dataset (SBD, Hariharan et al.): VOC 2011 images with class
segmentations and per-class boundary maps stored as MATLAB ``.mat`` files."""

import os
import shutil

import numpy as np

from .._pil import pil
from ._listed import check_split, transformed
from .utils import download_and_extract_archive, download_url
from .vision import VisionDataset


class SBDataset(VisionDataset):
    """SBD: each item is an RGB PIL image and its target, read from ``cls/<id>.mat``.

    Args:
        root (str or os.PathLike): the folder holding ``img/``, ``cls/`` and the split files.
        image_set (str): ``"train"``, ``"val"`` or ``"train_noval"`` (train without the VOC
            2012 val images).
        mode (str): ``"boundaries"`` (a ``(20, H, W)`` uint8 NumPy array, one boundary map per
            class) or ``"segmentation"`` (an ``"L"`` PIL image of class indices).
        download (bool): fetch ``benchmark.tgz`` (and the ``train_noval`` list) first.
        transforms (callable, optional): takes and returns ``(image, target)``.

    Needs SciPy to read the ``.mat`` files.
    """

    url = ("https://www2.eecs.berkeley.edu/Research/Projects/CS/vision/grouping/"
           "semantic_contours/benchmark.tgz")
    md5 = "82b4d87ceb2ed10f6038a1cba92111cb"
    filename = "benchmark.tgz"
    voc_train_url = "https://www.cs.cornell.edu/~bharathh/train_noval.txt"
    voc_split_filename = "train_noval.txt"
    voc_split_md5 = "79bff800c5f0b1ec6b21080a3c066722"

    # the pieces of the archive's benchmark_RELEASE/dataset/ that the dataset reads
    _RELEASED = ("cls", "img", "inst", "train.txt", "val.txt")

    def __init__(self, root, image_set="train", mode="boundaries", download=False,
                 transforms=None):
        try:
            from scipy.io import loadmat
        except ImportError:
            raise RuntimeError("Scipy is not found. This dataset needs to have scipy installed: "
                               "pip install scipy") from None
        super().__init__(root, transforms)
        self._loadmat = loadmat
        self.image_set = check_split(image_set, ("train", "val", "train_noval"), "image_set")
        self.mode = check_split(mode, ("segmentation", "boundaries"), "mode")
        self.num_classes = 20
        root = self.root
        if download:
            download_and_extract_archive(self.url, root, filename=self.filename, md5=self.md5)
            released = os.path.join(root, "benchmark_RELEASE", "dataset")
            for name in self._RELEASED:
                target = os.path.join(root, name)
                if os.path.isdir(target):
                    shutil.rmtree(target)  # an earlier download: replaced by this one
                shutil.move(os.path.join(released, name), target)
            if self.image_set == "train_noval":
                download_url(self.voc_train_url, root, self.voc_split_filename,
                             self.voc_split_md5)
        if not os.path.isdir(root):
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it")
        with open(os.path.join(root, image_set.rstrip("\n") + ".txt")) as f:
            ids = [line.strip() for line in f]
        self.images = [os.path.join(root, "img", i + ".jpg") for i in ids]
        self.masks = [os.path.join(root, "cls", i + ".mat") for i in ids]
        self._get_target = (self._get_segmentation_target if self.mode == "segmentation"
                            else self._get_boundaries_target)

    def _gtcls(self, path):
        # the struct's fields come back as 1x1 object arrays around the real values
        return self._loadmat(path)["GTcls"][0]

    def _get_segmentation_target(self, filepath):
        return pil().fromarray(self._gtcls(filepath)["Segmentation"][0])

    def _get_boundaries_target(self, filepath):
        cells = self._gtcls(filepath)["Boundaries"][0]
        return np.stack([cells[c][0].toarray() for c in range(self.num_classes)])

    def __getitem__(self, index):
        image = pil().open(self.images[index]).convert("RGB")
        target = self._get_target(self.masks[index])
        return transformed(self, image, target)

    def __len__(self):
        return len(self.images)

    def extra_repr(self):
        return f"Image set: {self.image_set}\nMode: {self.mode}"
