"""Moving MNIST: ``MovingMNIST/mnist_test_seq.npy``, 10,000 sequences of 20 64x64 frames
stored frame-major, (20, N, 64, 64) uint8."""

import os

import numpy as np

from ._listed import check_split, fetch_unless_present, require
from .utils import download_url
from .vision import VisionDataset


class MovingMNIST(VisionDataset):
    """Moving MNIST: each item is a uint8 tensor of frames, (T, 1, 64, 64).

    Args:
        root (str or pathlib.Path): folder holding ``MovingMNIST``.
        split (str, optional): ``None`` (all 20 frames, default), ``"train"`` (the first
            ``split_ratio`` frames) or ``"test"`` (the rest).
        split_ratio (int): 1 to 19 (default 10).
        download (bool): fetch the file (MD5-checked) if needed.
        transform (callable, optional): applied to each sequence tensor.
    """

    _URL = "http://www.cs.toronto.edu/~nitish/unsupervised_video/mnist_test_seq.npy"
    _MD5 = "be083ec986bfe91a449d63653c411eb2"

    def __init__(self, root, split=None, split_ratio=10, download=False, transform=None):
        super().__init__(root, transform=transform)
        self._base_folder = os.path.join(self.root, type(self).__name__)
        self._filename = self._URL.rsplit("/", 1)[-1]
        self.split = split if split is None else check_split(split, ("train", "test"))
        if not isinstance(split_ratio, int):
            raise TypeError(f"`split_ratio` should be an integer, but got {type(split_ratio)}")
        if not 1 <= split_ratio <= 19:
            raise ValueError(f"`split_ratio` should be `1 <= split_ratio <= 19`, but got "
                             f"{split_ratio} instead.")
        self.split_ratio = split_ratio
        if download:
            self.download()
        require(self._check_exists(),
                "Dataset not found. You can use download=True to download it.")
        from numtorch import from_numpy

        frames = np.load(os.path.join(self._base_folder, self._filename))
        if split == "train":
            frames = frames[:split_ratio]
        elif split == "test":
            frames = frames[split_ratio:]
        # (T, N, H, W) -> (N, T, 1, H, W)
        self.data = from_numpy(np.ascontiguousarray(frames.swapaxes(0, 1)[:, :, None]))

    def __getitem__(self, idx):
        sequence = self.data[idx]
        return sequence if self.transform is None else self.transform(sequence)

    def __len__(self):
        return len(self.data)

    def _check_exists(self):
        return os.path.exists(os.path.join(self._base_folder, self._filename))

    def download(self):
        fetch_unless_present(self, download_url, url=self._URL, root=self._base_folder,
                             filename=self._filename, md5=self._MD5)
