"""MNIST and its relatives (Fashion-MNIST, KMNIST, EMNIST, QMNIST), read from the IDX files
("SN3 PascalVincent" format) under ``root/<ClassName>/raw``."""

import math
import os
import shutil
import string
import urllib.error
import warnings

import numpy as np

import numtorch as torch

from .._pil import from_array
from .utils import (
    _first_problem,
    check_integrity,
    download_and_extract_archive,
    extract_archive,
    verify_str_arg,
)
from .vision import VisionDataset


class MNIST(VisionDataset):
    """The MNIST handwritten digits: 28x28 gray images, targets 0-9.

    Args:
        root (str or os.PathLike): folder holding ``MNIST/raw/train-images-idx3-ubyte`` and the
            other three IDX files (or the old ``MNIST/processed/training.pt`` / ``test.pt``).
        train (bool): the 60,000 training images if True, else the 10,000 test images.
        transform (callable, optional): applied to the PIL image.
        target_transform (callable, optional): applied to the target.
        download (bool): fetch the files (MD5-checked) if they are not there yet.

    Attributes:
        data (Tensor): uint8 images, (N, 28, 28).
        targets (Tensor): int64 labels, (N,).
        classes (list of str): the class names.
    """

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/",
               "http://yann.lecun.com/exdb/mnist/"]
    resources = [("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
                 ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
                 ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
                 ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c")]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six",
               "7 - seven", "8 - eight", "9 - nine"]

    @property
    def train_labels(self):
        warnings.warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        warnings.warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        warnings.warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        warnings.warn("test_data has been renamed data")
        return self.data

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if self._check_legacy_exist():
            self.data, self.targets = self._load_legacy_data()
            return
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it"
                               + _first_problem((f, None) for f in self._expected_files()))
        self.data, self.targets = self._load_data()

    def _check_legacy_exist(self):
        folder = self.processed_folder
        return os.path.exists(folder) and all(
            check_integrity(os.path.join(folder, f)) for f in (self.training_file,
                                                                self.test_file))

    def _load_legacy_data(self):
        name = self.training_file if self.train else self.test_file
        return torch.load(os.path.join(self.processed_folder, name), weights_only=True)

    def _load_data(self):
        prefix = "train" if self.train else "t10k"
        data = read_image_file(os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"))
        targets = read_label_file(os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))
        return data, targets

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        img = from_array(img.numpy(), "L")
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {name: i for i, name in enumerate(self.classes)}

    def _expected_files(self):
        return [os.path.join(self.raw_folder, os.path.splitext(os.path.basename(url))[0])
                for url, _ in self.resources]

    def _check_exists(self):
        return all(check_integrity(f) for f in self._expected_files())

    def download(self):
        """Download the four IDX files from the first mirror that has them."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for filename, md5 in self.resources:
            errors = []
            for mirror in self.mirrors:
                try:
                    download_and_extract_archive(f"{mirror}{filename}",
                                                 download_root=self.raw_folder,
                                                 filename=filename, md5=md5)
                    break
                except (RuntimeError, urllib.error.URLError) as exc:
                    errors.append((mirror, exc))
            else:
                tried = "".join(f"Tried {m}, got:\n{e}\n" for m, e in errors)
                raise RuntimeError(f"Error downloading {filename}:\n{tried}")

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's format with 10 kinds of clothing."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
                 ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
                 ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
                 ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310")]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]


class KMNIST(MNIST):
    """Kuzushiji-MNIST: MNIST's format with 10 cursive Japanese characters."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
                 ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
                 ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
                 ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134")]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


_MERGED = set("cijklmopsuvwxyz")  # letters whose cases look alike and are merged
_ALL = set(string.digits + string.ascii_letters)


class EMNIST(MNIST):
    """EMNIST: handwritten digits and letters, in six ``split``\\ s (``byclass``,
    ``bymerge``, ``balanced``, ``letters``, ``digits``, ``mnist``)."""

    url = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
    md5 = "58c8d27c78d21e728a6bc7b3cc06412e"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = _MERGED
    _all_classes = _ALL
    classes_split_dict = {
        "byclass": sorted(_ALL), "bymerge": sorted(_ALL - _MERGED),
        "balanced": sorted(_ALL - _MERGED), "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits), "mnist": list(string.digits),
    }

    def __init__(self, root, split, **kwargs):
        self.split = verify_str_arg(split, "split", self.splits)
        self.training_file = self._training_file(split)
        self.test_file = self._test_file(split)
        super().__init__(root, **kwargs)
        self.classes = self.classes_split_dict[self.split]

    @staticmethod
    def _training_file(split):
        return f"training_{split}.pt"

    @staticmethod
    def _test_file(split):
        return f"test_{split}.pt"

    @property
    def _file_prefix(self):
        return f"emnist-{self.split}-{'train' if self.train else 'test'}"

    @property
    def images_file(self):
        return os.path.join(self.raw_folder, f"{self._file_prefix}-images-idx3-ubyte")

    @property
    def labels_file(self):
        return os.path.join(self.raw_folder, f"{self._file_prefix}-labels-idx1-ubyte")

    def _load_data(self):
        return read_image_file(self.images_file), read_label_file(self.labels_file)

    def _expected_files(self):
        return [self.images_file, self.labels_file]

    def _check_exists(self):
        return all(check_integrity(f) for f in self._expected_files())

    def download(self):
        """Download the zip of all splits and unpack its IDX files into ``raw``."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        download_and_extract_archive(self.url, download_root=self.raw_folder, md5=self.md5)
        gzip_folder = os.path.join(self.raw_folder, "gzip")
        for name in os.listdir(gzip_folder):
            if name.endswith(".gz"):
                extract_archive(os.path.join(gzip_folder, name), self.raw_folder)
        shutil.rmtree(gzip_folder)


_QMNIST_BASE = "https://raw.githubusercontent.com/facebookresearch/qmnist/master/"


class QMNIST(MNIST):
    """QMNIST: MNIST re-created from NIST with extended labels (8 int64 fields per image:
    class, NIST writer, ...). ``what`` picks ``train``, ``test``, ``test10k``, ``test50k`` or
    ``nist``; with ``compat=True`` the target is the class alone."""

    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test",
               "nist": "nist"}
    resources = {
        "train": [(_QMNIST_BASE + "qmnist-train-images-idx3-ubyte.gz",
                   "ed72d4157d28c017586c42bc6afe6370"),
                  (_QMNIST_BASE + "qmnist-train-labels-idx2-int.gz",
                   "0058f8dd561b90ffdd0f734c6a30e5e4")],
        "test": [(_QMNIST_BASE + "qmnist-test-images-idx3-ubyte.gz",
                  "1394631089c404de565df7b7aeaf9412"),
                 (_QMNIST_BASE + "qmnist-test-labels-idx2-int.gz",
                  "5b5b05890a5e13444e108efe57b788aa")],
        "nist": [(_QMNIST_BASE + "xnist-images-idx3-ubyte.xz",
                  "7f124b3b8ab81486c9d8c2749c17f834"),
                 (_QMNIST_BASE + "xnist-labels-idx2-int.xz",
                  "5ed0e788978e45d4a8bd4b7caec3d79d")],
    }
    classes = MNIST.classes

    def __init__(self, root, what=None, compat=True, train=True, **kwargs):
        if what is None:
            what = "train" if train else "test"
        self.what = verify_str_arg(what, "what", tuple(self.subsets.keys()))
        self.compat = compat
        self.data_file = what + ".pt"
        self.training_file = self.test_file = self.data_file
        super().__init__(root, train, **kwargs)

    def _raw_path(self, which):
        url = self.resources[self.subsets[self.what]][which][0]
        return os.path.join(self.raw_folder, os.path.splitext(os.path.basename(url))[0])

    @property
    def images_file(self):
        return self._raw_path(0)

    @property
    def labels_file(self):
        return self._raw_path(1)

    def _expected_files(self):
        return [self.images_file, self.labels_file]

    def _check_exists(self):
        return all(check_integrity(f) for f in self._expected_files())

    def _load_data(self):
        data = read_sn3_pascalvincent_tensor(self.images_file)
        if data.dtype != torch.uint8:
            raise TypeError(f"data should be of dtype torch.uint8 instead of {data.dtype}")
        if data.ndimension() != 3:
            raise ValueError(f"data should have 3 dimensions instead of {data.ndimension()}")
        targets = read_sn3_pascalvincent_tensor(self.labels_file).long()
        if targets.ndimension() != 2:
            raise ValueError(f"targets should have 2 dimensions instead of "
                             f"{targets.ndimension()}")
        if self.what == "test10k":
            data, targets = data[0:10000].clone(), targets[0:10000].clone()
        elif self.what == "test50k":
            data, targets = data[10000:].clone(), targets[10000:].clone()
        return data, targets

    def download(self):
        """Download and decompress the images and labels of this subset."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        for url, md5 in self.resources[self.subsets[self.what]]:
            download_and_extract_archive(url, self.raw_folder, md5=md5)

    def __getitem__(self, index):
        img, target = self.data[index], self.targets[index]
        img = from_array(img.numpy(), "L")
        if self.transform is not None:
            img = self.transform(img)
        if self.compat:
            target = int(target[0])
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self):
        return f"Split: {self.what}"


def get_int(b):
    """The big-endian unsigned integer in the bytes ``b``."""
    return int.from_bytes(b, "big")


# IDX type codes -> (NumPy big-endian type, numtorch dtype)
SN3_PASCALVINCENT_TYPEMAP = {8: torch.uint8, 9: torch.int8, 11: torch.int16, 12: torch.int32,
                             13: torch.float32, 14: torch.float64}
_NP_TYPES = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}


def read_sn3_pascalvincent_tensor(path, strict=True):
    """Read an IDX file: a 4-byte magic number (type code and number of dimensions), the
    big-endian dimension sizes, then the big-endian data.

    Raises:
        RuntimeError: the file is truncated or not an IDX file (the message names it).
    """
    with open(path, "rb") as f:
        raw = f.read()
    bad = f"{path} is not a valid IDX file"
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise RuntimeError(f"{bad} (bad magic number); delete it and download it again")
    ty, nd = raw[2], raw[3]
    if not 1 <= nd <= 3 or ty not in _NP_TYPES:
        raise RuntimeError(f"{bad} (type code {ty}, {nd} dimensions); delete it and download it "
                           f"again")
    header = 4 * (nd + 1)
    if len(raw) < header:
        raise RuntimeError(f"{bad} (truncated header); delete it and download it again")
    sizes = [get_int(raw[4 * (i + 1):4 * (i + 2)]) for i in range(nd)]
    dt = np.dtype(_NP_TYPES[ty])
    count = math.prod(sizes)  # Python ints: NumPy's product wraps past 2**63
    available = (len(raw) - header) // dt.itemsize
    if available < count:
        raise RuntimeError(f"{path} is truncated: its header promises {count} values of shape "
                           f"{tuple(sizes)} but it holds {available}; delete it and download "
                           f"it again")
    if available != count:  # more values than the shape holds: torchvision's view refuses
        shape = "[" + ", ".join(str(n) for n in sizes) + "]"
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {available} ({bad}: "
                           f"more values than its header's shape; delete it and download it "
                           f"again)")
    arr = np.frombuffer(raw, dtype=dt, count=count, offset=header)
    arr = arr.astype(dt.newbyteorder("=")).reshape(sizes)
    return torch.from_numpy(arr)


def read_label_file(path):
    """Read an IDX file of uint8 labels as an int64 (N,) tensor."""
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != torch.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndimension()}")
    return x.long()


def read_image_file(path):
    """Read an IDX file of uint8 images as a (N, H, W) tensor."""
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != torch.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndimension()}")
    return x
