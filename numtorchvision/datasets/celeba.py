"""CelebA: aligned face crops in ``celeba/img_align_celeba/*.jpg`` and whitespace-separated
annotation files (partition, identity, bounding boxes, landmarks, 40 binary attributes)."""

import collections
import os
import re

import numpy as np

from .._pil import pil
from ._listed import NOT_FOUND_OR_CORRUPT, pick_targets, require
from .utils import (
    check_integrity,
    download_file_from_google_drive,
    extract_archive,
    verify_str_arg,
)
from .vision import VisionDataset

CSV = collections.namedtuple("CSV", ["header", "index", "data"])

_SPLIT_CODES = {"train": 0, "valid": 1, "test": 2, "all": None}


# the annotation files read at construction, each with the row of its column names (None: no
# header row), in the order __init__ unpacks them
_TABLES = (("list_eval_partition.txt", None), ("identity_CelebA.txt", None),
           ("list_bbox_celeba.txt", 1), ("list_landmarks_align_celeba.txt", 1),
           ("list_attr_celeba.txt", 1))

class CelebA(VisionDataset):
    """Large-scale CelebFaces Attributes (CelebA).

    Args:
        root (str or pathlib.Path): folder holding ``celeba``.
        split (str): ``"train"`` (default), ``"valid"``, ``"test"`` or ``"all"``.
        target_type (str or list of str): ``"attr"`` (40 binary attributes, default),
            ``"identity"``, ``"bbox"`` and/or ``"landmarks"``; a list gives a tuple, an empty
            list ``None``.
        transform, target_transform (callable, optional): for the image / the target.
        download (bool): fetch the files from Google Drive (needs ``gdown``).

    Attributes:
        filename (list of str); attr, identity, bbox, landmarks_align (int64 tensors, one row
        per image); attr_names (list of str).
    """

    base_folder = "celeba"
    file_list = [
        ("0B7EVK8r0v71pZjFTYXZWM3FlRnM", "00d2c5bc6d35e252742224ab0c1e8fcb",
         "img_align_celeba.zip"),
        ("0B7EVK8r0v71pblRyaVFSWGxPY0U", "75e246fa4810816ffd6ee81facbd244c",
         "list_attr_celeba.txt"),
        ("1_ee_0u7vcNLOfNLegJRHmolfH5ICW-XS", "32bd1bd63d3c78cd57e08160ec5ed1e2",
         "identity_CelebA.txt"),
        ("0B7EVK8r0v71pbThiMVRxWXZ4dU0", "00566efa6fedff7a56946cd1c10f1c16",
         "list_bbox_celeba.txt"),
        ("0B7EVK8r0v71pd0FJY3Blby1HUTQ", "cc24ecafdb5b50baae59b03474781f8c",
         "list_landmarks_align_celeba.txt"),
        ("0B7EVK8r0v71pY0NSMzRuSXJEVkk", "d32c9cbf5e040fd4025c592c306e6668",
         "list_eval_partition.txt"),
    ]

    def __init__(self, root, split="train", target_type="attr", transform=None,
                 target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = split
        self.target_type = target_type if isinstance(target_type, list) else [target_type]
        if not self.target_type and self.target_transform is not None:
            raise RuntimeError("target_transform is specified but target_type is empty")
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT, self._text_files())
        code = _SPLIT_CODES[verify_str_arg(split.lower(), "split", tuple(_SPLIT_CODES))]
        splits, identity, bbox, landmarks, attr = (self._load_csv(name, header=header)
                                                   for name, header in _TABLES)
        rows = (slice(None) if code is None
                else np.flatnonzero(splits.data.numpy()[:, 0] == code))
        self.filename = (splits.index if code is None
                         else [splits.index[i] for i in rows.tolist()])
        self.identity = identity.data[rows]
        self.bbox = bbox.data[rows]
        self.landmarks_align = landmarks.data[rows]
        self.attr = (attr.data[rows] + 1) // 2  # -1/1 -> 0/1
        self.attr_names = attr.header

    def _load_csv(self, filename, header=None):
        """The file's header (split on runs of spaces: a trailing space gives a last empty
        name, as torchvision keeps it), its first column and the int64 table after it."""
        from numtorch import from_numpy

        with open(os.path.join(self.root, self.base_folder, filename)) as f:
            lines = [line.rstrip("\r\n") for line in f if line.strip()]
        names = []
        if header is not None:
            names, lines = re.split(" +", lines[header].lstrip(" ")), lines[header + 1:]
        index = [line.split(None, 1)[0] for line in lines]
        columns = len(lines[0].split()) if lines else 1
        values = np.loadtxt(lines, dtype=np.int64, usecols=range(1, columns), ndmin=2)
        return CSV(names, index, from_numpy(values.reshape(len(lines), columns - 1)))

    def _text_files(self):
        return [(os.path.join(self.root, self.base_folder, name), md5)
                for _, md5, name in self.file_list if not name.endswith((".zip", ".7z"))]

    def _check_integrity(self):
        return (all(check_integrity(path, md5) for path, md5 in self._text_files())
                and os.path.isdir(os.path.join(self.root, self.base_folder, "img_align_celeba")))

    def download(self):
        if self._check_integrity():
            return
        folder = os.path.join(self.root, self.base_folder)
        for file_id, md5, name in self.file_list:
            download_file_from_google_drive(file_id, folder, name, md5)
        extract_archive(os.path.join(folder, "img_align_celeba.zip"))

    def _target(self, kind, index):
        if kind == "attr":
            return self.attr[index, :]
        if kind == "identity":
            return self.identity[index, 0]
        if kind == "bbox":
            return self.bbox[index, :]
        if kind == "landmarks":
            return self.landmarks_align[index, :]
        raise ValueError(f'Target type "{kind}" is not recognized.')

    def __getitem__(self, index):
        image = pil().open(os.path.join(self.root, self.base_folder, "img_align_celeba",
                                        self.filename[index]))
        target = pick_targets(self.target_type, lambda kind: self._target(kind, index))
        if self.transform is not None:
            image = self.transform(image)
        if target is None or self.target_transform is None:
            return image, target
        return image, self.target_transform(target)

    def __len__(self):
        return len(self.filename)

    def extra_repr(self):
        return f"Target type: {self.target_type}\nSplit: {self.split}"


__all__ = ["CelebA"]
