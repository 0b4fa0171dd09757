"""CIFAR-10 and CIFAR-100, read from the pickled batches of the "python version" archives."""

import os

import numpy as np

from .._pil import pil
from ._safe_pickle import load_data_pickle
from .utils import _first_problem, check_integrity, download_and_extract_archive
from .vision import VisionDataset


class CIFAR10(VisionDataset):
    """CIFAR-10: 32x32 colour images in 10 classes.

    Args:
        root (str or os.PathLike): folder holding ``cifar-10-batches-py``.
        train (bool): the five training batches (50,000 images) if True, else the test batch.
        transform, target_transform (callable, optional): applied to the PIL image / target.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.

    Attributes:
        data (numpy.ndarray): uint8 images, (N, 32, 32, 3).
        targets (list of int): the labels.
        classes (list of str), class_to_idx (dict): the class names, from the meta file.
    """

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names",
            "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it" + _first_problem(self._files()))
        batches, self.targets = [], []
        for name, _ in (self.train_list if self.train else self.test_list):
            path = os.path.join(self.root, self.base_folder, name)
            entry = load_data_pickle(path, encoding="latin1")
            data = entry.get("data") if isinstance(entry, dict) else None
            if not (isinstance(data, np.ndarray) and data.ndim == 2 and data.shape[1] == 3072
                    and ("labels" in entry or "fine_labels" in entry)):
                raise RuntimeError(f"{path} is not a CIFAR batch (a dict of 'data', rows of "
                                   f"3072 bytes, and labels); delete it and download it again")
            batches.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        # rows are 3072 bytes: the red plane, then green, then blue, each 32x32
        self.data = np.vstack(batches).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path, self.meta["md5"]):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use "
                               "download=True to download it")
        self.classes = load_data_pickle(path, encoding="latin1")[self.meta["key"]]
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}

    def __getitem__(self, index):
        img, target = pil().fromarray(self.data[index]), self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def _files(self):
        return [(os.path.join(self.root, self.base_folder, name), md5)
                for name, md5 in self.train_list + self.test_list]

    def _check_integrity(self):
        return all(check_integrity(path, md5) for path, md5 in self._files())

    def download(self):
        """Download and unpack the archive unless every batch is already there intact."""
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename,
                                     md5=self.tgz_md5)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: 32x32 colour images in 100 classes (``fine_labels``)."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names",
            "md5": "7973b15100ade9c7d40fb424638fde48"}
