"""USPS handwritten digits, read from the bzip2-compressed LIBSVM files ``usps.bz2`` (train)
and ``usps.t.bz2`` (test) in ``root``: "<label 1..10> 1:<v> 2:<v> ... 256:<v>" with pixel
values in [-1, 1]."""

import bz2
import io
import os
import re

import numpy as np

from .._pil import pil
from ._listed import transformed
from .utils import download_url
from .vision import VisionDataset


class USPS(VisionDataset):
    """USPS: 16x16 grey-scale digits (7,291 train, 2,007 test).

    Args:
        root (str or pathlib.Path): folder holding ``usps.bz2`` / ``usps.t.bz2``.
        train (bool): the training file (default) or the test file.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch the file (MD5-checked) if it is not there.

    Attributes:
        data (numpy.ndarray): uint8 images, (N, 16, 16); targets (list of int, 0-based).
    """

    split_list = {
        "train": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.bz2",
                  "usps.bz2", "ec16c51db3855ca6c91edd34d0e9b197"],
        "test": ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/usps.t.bz2",
                 "usps.t.bz2", "8ea070ee2aca1ac39742fdd1ef5ed118"],
    }

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        url, filename, md5 = self.split_list["train" if train else "test"]
        path = os.path.join(self.root, filename)
        if download and not os.path.exists(path):
            download_url(url, self.root, filename, md5=md5)
        with bz2.open(path) as f:
            text = f.read().decode()
        # drop the "<index>:" in front of each pixel and let NumPy parse the table (parsed as
        # float64 then rounded to float32, the same two steps as float(str) then float32)
        table = np.loadtxt(io.StringIO(re.sub(r"(?<=\s)\d+:", "", text)), ndmin=2)
        values = table[:, 1:].astype(np.float32).reshape(-1, 16, 16)
        self.data = ((values + 1) / 2 * 255).astype(np.uint8)
        self.targets = [int(label) - 1 for label in table[:, 0].tolist()]

    def __getitem__(self, index):
        image, target = pil().fromarray(self.data[index]), int(self.targets[index])
        return transformed(self, image, target)

    def __len__(self):
        return len(self.data)
