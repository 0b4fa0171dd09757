"""SEMEION handwritten digits: ``root/semeion.data``, one digit per line as 256 binary
pixels followed by a one-hot label of 10."""

import os

import numpy as np

from .._pil import pil
from ._listed import NOT_FOUND_OR_CORRUPT, require, transformed
from .utils import check_integrity, download_url
from .vision import VisionDataset


class SEMEION(VisionDataset):
    """SEMEION: 1,593 16x16 binary digits.

    Args:
        root (str or pathlib.Path): folder holding ``semeion.data``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch the file (MD5-checked) if needed; True by default.

    Attributes:
        data (numpy.ndarray): uint8 images (0 or 255), (N, 16, 16); labels (numpy int array).
    """

    url = "http://archive.ics.uci.edu/ml/machine-learning-databases/semeion/semeion.data"
    filename = "semeion.data"
    md5_checksum = "cb545d371d2ce14ec121470795a77432"

    def __init__(self, root, transform=None, target_transform=None, download=True):
        super().__init__(root, transform=transform, target_transform=target_transform)
        if download:
            self.download()
        path = os.path.join(self.root, self.filename)
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT, [(path, self.md5_checksum)])
        table = np.loadtxt(path)
        self.data = (table[:, :256] * 255).astype("uint8").reshape(-1, 16, 16)
        self.labels = np.nonzero(table[:, 256:])[1]

    def __getitem__(self, index):
        image, target = pil().fromarray(self.data[index]), int(self.labels[index])
        return transformed(self, image, target)

    def __len__(self):
        return len(self.labels)

    def _check_integrity(self):
        return check_integrity(os.path.join(self.root, self.filename), self.md5_checksum)

    def download(self):
        if self._check_integrity():
            return
        download_url(self.url, self.root, self.filename, self.md5_checksum)
