"""SVHN (Street View House Numbers), read from the cropped-digit ``.mat`` files."""

import os

import numpy as np

from .._pil import pil
from .utils import _first_problem, check_integrity, download_url, verify_str_arg
from .vision import VisionDataset


class SVHN(VisionDataset):
    """SVHN cropped digits: 32x32 colour images, labels 0-9 (the files' 10 is read as 0).

    Reading the MATLAB files needs SciPy.

    Args:
        root (str or os.PathLike): folder holding ``train_32x32.mat`` etc.
        split (str): ``'train'``, ``'test'`` or ``'extra'``.
        transform, target_transform (callable, optional): applied to the PIL image / target.
        download (bool): fetch the file (MD5-checked) if needed.

    Attributes:
        data (numpy.ndarray): uint8 images, (N, 3, 32, 32).
        labels (numpy.ndarray): int64 labels.
    """

    split_list = {
        "train": ["http://ufldl.stanford.edu/housenumbers/train_32x32.mat", "train_32x32.mat",
                  "e26dedcc434d2e4c54c9b2d4a06d8373"],
        "test": ["http://ufldl.stanford.edu/housenumbers/test_32x32.mat", "test_32x32.mat",
                 "eb5a983be6a315427106f1b164d9cef3"],
        "extra": ["http://ufldl.stanford.edu/housenumbers/extra_32x32.mat", "extra_32x32.mat",
                  "a93ce644f1a588dc4d68dda5feec44a7"],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", tuple(self.split_list.keys()))
        self.url, self.filename, self.file_md5 = self.split_list[split]
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it" + _first_problem(self._files()))
        try:
            import scipy.io as sio
        except ImportError as exc:
            raise ImportError("SVHN reads MATLAB .mat files with SciPy: pip install scipy") \
                from exc
        mat = sio.loadmat(os.path.join(self.root, self.filename))
        self.labels = mat["y"].astype(np.int64).squeeze()
        np.place(self.labels, self.labels == 10, 0)
        # the file stores (H, W, C, N); keep (N, C, H, W)
        self.data = np.transpose(mat["X"], (3, 2, 0, 1))

    def __getitem__(self, index):
        img, target = self.data[index], int(self.labels[index])
        img = pil().fromarray(np.transpose(img, (1, 2, 0)))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def _files(self):
        return [(os.path.join(self.root, self.filename), self.split_list[self.split][2])]

    def _check_integrity(self):
        return all(check_integrity(path, md5) for path, md5 in self._files())

    def download(self):
        """Download this split's file."""
        download_url(self.url, self.root, self.filename, self.split_list[self.split][2])

    def extra_repr(self):
        return f"Split: {self.split}"
