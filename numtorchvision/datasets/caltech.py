"""Caltech 101 (``caltech101/101_ObjectCategories/<class>/image_NNNN.jpg`` with outline
annotations in ``caltech101/Annotations/<class>/annotation_NNNN.mat``) and Caltech 256
(``caltech256/256_ObjectCategories/NNN.<class>/NNN_NNNN.jpg``)."""

import os
import shutil

from .._pil import pil
from ._listed import NOT_FOUND_OR_CORRUPT, as_list, load_mat, pick_targets, require, transformed
from .utils import download_and_extract_archive, extract_archive, verify_str_arg
from .vision import VisionDataset

# the annotation folders that are not named like their image folder
_ANNOTATION_FOLDERS = {"Faces": "Faces_2", "Faces_easy": "Faces_3",
                       "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2"}


class _Caltech(VisionDataset):
    """What both share: classes are the sorted image folders; ``index`` holds each image's
    number in its folder (from 1) and ``y`` its class."""

    _images = None

    def _scan(self, keep=lambda name: True, skip=()):
        folder = os.path.join(self.root, self._images)
        self.categories = sorted(c for c in os.listdir(folder) if c not in skip)
        self.index, self.y = [], []
        for label, cls in enumerate(self.categories):
            count = sum(1 for name in os.listdir(os.path.join(folder, cls)) if keep(name))
            self.index.extend(range(1, count + 1))
            self.y.extend([label] * count)

    def _check_integrity(self):
        return os.path.exists(os.path.join(self.root, self._images))

    def __len__(self):
        return len(self.index)

    def _finish(self, image, target):
        return transformed(self, image, target)


class Caltech101(_Caltech):
    """Caltech 101 (needs SciPy for the annotation files).

    Args:
        root (str or pathlib.Path): folder holding ``caltech101``.
        target_type (str or list of str): ``"category"`` (default) and/or ``"annotation"``
            (the outline's points); a list gives a tuple.
        transform, target_transform (callable, optional): for the image / the target.
        download (bool): fetch and unpack the archives (MD5-checked) if needed.
    """

    _images = "101_ObjectCategories"

    def __init__(self, root, target_type="category", transform=None, target_transform=None,
                 download=False):
        super().__init__(os.path.join(root, "caltech101"), transform=transform,
                         target_transform=target_transform)
        os.makedirs(self.root, exist_ok=True)
        self.target_type = [verify_str_arg(t, "target_type", ("category", "annotation"))
                            for t in as_list(target_type)]
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT)
        self._scan(skip=("BACKGROUND_Google",))
        self.annotation_categories = [_ANNOTATION_FOLDERS.get(c, c) for c in self.categories]

    def _target(self, kind, index):
        if kind == "category":
            return self.y[index]
        path = os.path.join(self.root, "Annotations", self.annotation_categories[self.y[index]],
                            f"annotation_{self.index[index]:04d}.mat")
        return load_mat(path)["obj_contour"]

    def __getitem__(self, index):
        image = pil().open(os.path.join(self.root, self._images, self.categories[self.y[index]],
                                        f"image_{self.index[index]:04d}.jpg"))
        return self._finish(image, pick_targets(self.target_type,
                                                lambda kind: self._target(kind, index)))

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(
            "https://data.caltech.edu/records/mzrjq-6wc02/files/caltech-101.zip",
            download_root=self.root, filename="caltech-101.zip",
            md5="3138e1922a9193bfa496528edbbc45d0")
        # the zip holds one archive each for the images and the outlines; torchvision unpacks
        # only the images (so its "annotation" targets fail after a download): both here
        unpacked = os.path.join(self.root, "caltech-101")
        for inner in ("101_ObjectCategories.tar.gz", "Annotations.tar"):
            extract_archive(os.path.join(unpacked, inner), self.root)
        os.remove(os.path.join(self.root, "caltech-101.zip"))
        shutil.rmtree(unpacked)

    def extra_repr(self):
        return f"Target type: {self.target_type}"


class Caltech256(_Caltech):
    """Caltech 256 (256 object classes and a clutter class).

    Args:
        root (str or pathlib.Path): folder holding ``caltech256``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
    """

    _images = "256_ObjectCategories"

    def __init__(self, root, transform=None, target_transform=None, download=False):
        super().__init__(os.path.join(root, "caltech256"), transform=transform,
                         target_transform=target_transform)
        os.makedirs(self.root, exist_ok=True)
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT)
        self._scan(keep=lambda name: name.endswith(".jpg"))

    def __getitem__(self, index):
        label = self.y[index]
        image = pil().open(os.path.join(self.root, self._images, self.categories[label],
                                        f"{label + 1:03d}_{self.index[index]:04d}.jpg"))
        return self._finish(image, label)

    def download(self):
        if self._check_integrity():
            return
        download_and_extract_archive(
            "https://data.caltech.edu/records/nyy15-4j048/files/256_ObjectCategories.tar",
            self.root, filename="256_ObjectCategories.tar",
            md5="67b4f42ca05d46448c6bb8ecd2220f6d")
