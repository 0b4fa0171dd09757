"""KITTI object detection (the left colour camera, ``image_2``) with its ``label_2`` text
annotations."""

import os

from .._pil import pil
from ._listed import require, transformed
from .utils import download_and_extract_archive
from .vision import VisionDataset

# a label line: the object type, then these fields; list-valued ones take several numbers
_FIELDS = (("truncated", float, 1), ("occluded", int, 1), ("alpha", float, 1),
           ("bbox", float, 4), ("dimensions", float, 3), ("location", float, 3),
           ("rotation_y", float, 1))


def _parse_label_line(values):
    target, pos = {"type": values[0]}, 1
    for key, kind, count in _FIELDS:
        part = [kind(v) for v in values[pos:pos + count]]
        target[key] = part if count > 1 else part[0]
        pos += count
    return target


class Kitti(VisionDataset):
    """KITTI detection: each item is a PIL image and (training split) the list of its
    objects as dicts (``type``, ``truncated``, ``occluded``, ``alpha``, ``bbox``,
    ``dimensions``, ``location``, ``rotation_y``); test targets are ``None``.

    Args:
        root (str or os.PathLike): the folder holding ``Kitti/raw/{training,testing}/``.
        train (bool): the training split (with labels) or the test split.
        transform, target_transform, transforms (callable, optional): as in VisionDataset.
        download (bool): fetch and unpack the image and label zips first.
    """

    data_url = "https://s3.eu-central-1.amazonaws.com/avg-kitti/"
    resources = ["data_object_image_2.zip", "data_object_label_2.zip"]
    image_dir_name = "image_2"
    labels_dir_name = "label_2"

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 transforms=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         transforms=transforms)
        self.images, self.targets = [], []
        self.train = train
        self._location = "training" if train else "testing"
        if download:
            self.download()
        require(self._check_exists(),
                "Dataset not found. You may use download=True to download it.")
        where = os.path.join(self._raw_folder, self._location)
        image_dir = os.path.join(where, self.image_dir_name)
        for name in os.listdir(image_dir):
            self.images.append(os.path.join(image_dir, name))
            if train:
                self.targets.append(os.path.join(where, self.labels_dir_name,
                                                 f"{name.split('.')[0]}.txt"))

    def __getitem__(self, index):
        image = pil().open(self.images[index])
        target = self._parse_target(index) if self.train else None
        return transformed(self, image, target)

    def _parse_target(self, index):
        with open(self.targets[index]) as f:
            # split on single spaces as the files are written (a csv reader's behaviour)
            return [_parse_label_line(line.rstrip("\r\n").split(" "))
                    for line in f if line.rstrip("\r\n")]

    def __len__(self):
        return len(self.images)

    @property
    def _raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    def _check_exists(self):
        folders = [self.image_dir_name] + ([self.labels_dir_name] if self.train else [])
        return all(os.path.isdir(os.path.join(self._raw_folder, self._location, name))
                   for name in folders)

    def download(self):
        """Fetch and unpack the image and label zips into ``Kitti/raw``."""
        if self._check_exists():
            return
        os.makedirs(self._raw_folder, exist_ok=True)
        for name in self.resources:
            download_and_extract_archive(url=f"{self.data_url}{name}",
                                         download_root=self._raw_folder, filename=name)
