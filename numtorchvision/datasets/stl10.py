"""STL-10, read from the binary files of ``stl10_binary``."""

import os

import numpy as np

from .._pil import pil
from .utils import (
    _first_problem,
    check_integrity,
    download_and_extract_archive,
    verify_str_arg,
)
from .vision import VisionDataset


class STL10(VisionDataset):
    """STL-10: 96x96 colour images in 10 classes, plus 100,000 unlabeled images.

    Args:
        root (str or os.PathLike): folder holding ``stl10_binary``.
        split (str): ``'train'``, ``'test'``, ``'unlabeled'`` or ``'train+unlabeled'``
            (unlabeled images get target -1).
        folds (int, optional): one of the 10 predefined training folds (0-9).
        transform, target_transform (callable, optional): applied to the PIL image / target.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.

    Attributes:
        data (numpy.ndarray): uint8 images, (N, 3, 96, 96).
        labels (numpy.ndarray): labels (0-9, or -1).
        classes (list of str): from ``class_names.txt`` when present.
    """

    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    tgz_md5 = "91f7769df0f17e558f3565bffb0c7dfb"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    train_list = [["train_X.bin", "918c2871b30a85fa023e0c44e0bee87f"],
                  ["train_y.bin", "5a34089d4802c674881badbb80307741"],
                  ["unlabeled_X.bin", "5242ba1fed5e4be9e1e742405eb56ca4"]]
    test_list = [["test_X.bin", "7f263ba9f9e0b06b93213547f721ac82"],
                 ["test_y.bin", "36f9794fa4beb8a2c72628de14fa638e"]]
    splits = ("train", "train+unlabeled", "unlabeled", "test")

    def __init__(self, root, split="train", folds=None, transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", self.splits)
        self.folds = self._verify_folds(folds)
        if download:
            self.download()
        elif not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it" + _first_problem(self._files()))
        train_x, train_y, unlabeled_x = (name for name, _ in self.train_list)
        if self.split in ("train", "train+unlabeled"):
            self.data, self.labels = self._loadfile(train_x, train_y)
            self._load_folds(folds)
            if self.split == "train+unlabeled":
                extra, _ = self._loadfile(unlabeled_x)
                self.data = np.concatenate((self.data, extra))
                self.labels = np.concatenate((self.labels, np.asarray([-1] * extra.shape[0])))
        elif self.split == "unlabeled":
            self.data, _ = self._loadfile(unlabeled_x)
            self.labels = np.asarray([-1] * self.data.shape[0])
        else:
            self.data, self.labels = self._loadfile(*(name for name, _ in self.test_list))
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    def _verify_folds(self, folds):
        if folds is None:
            return folds
        if isinstance(folds, int):
            if folds in range(10):
                return folds
            raise ValueError(f"Value for argument folds should be in the range [0, 10), but got "
                             f"{folds}.")
        raise ValueError(f"Expected type None or int for argument folds, but got type "
                         f"{type(folds)}.")

    def __getitem__(self, index):
        if self.labels is not None:
            img, target = self.data[index], int(self.labels[index])
        else:
            img, target = self.data[index], None
        img = pil().fromarray(np.transpose(img, (1, 2, 0)))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.data.shape[0]

    def _loadfile(self, data_file, labels_file=None):
        labels = None
        if labels_file:
            path = os.path.join(self.root, self.base_folder, labels_file)
            labels = np.fromfile(path, dtype=np.uint8) - 1  # stored 1-10
        path = os.path.join(self.root, self.base_folder, data_file)
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size % (3 * 96 * 96):
            raise RuntimeError(f"{path} is truncated ({raw.size} bytes is not a whole number of "
                               f"96x96 colour images); delete it and download it again")
        # each image is stored column-major per channel: swap to rows first
        images = np.transpose(raw.reshape(-1, 3, 96, 96), (0, 1, 3, 2))
        return images, labels

    def _files(self):
        return [(os.path.join(self.root, self.base_folder, name), md5)
                for name, md5 in self.train_list + self.test_list]

    def _check_integrity(self):
        return all(check_integrity(path, md5) for path, md5 in self._files())

    def download(self):
        """Download and unpack the archive unless every file is already there intact."""
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename,
                                     md5=self.tgz_md5)

    def extra_repr(self):
        return f"Split: {self.split}"

    def _load_folds(self, folds):
        if folds is None:
            return
        with open(os.path.join(self.root, self.base_folder, self.folds_list_file)) as f:
            line = f.read().splitlines()[folds]
        idx = np.array(line.split(), dtype=np.int64)
        self.data = self.data[idx]
        if self.labels is not None:
            self.labels = self.labels[idx]
