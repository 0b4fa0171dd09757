"""German Traffic Sign Recognition Benchmark: training images in
``gtsrb/GTSRB/Training/<class 00000..00042>/*.ppm``, test images in
``gtsrb/GTSRB/Final_Test/Images/*.ppm`` labelled by ``gtsrb/GT-final_test.csv``."""

import csv

from .._pil import pil
from ._listed import ListedImages, as_path, check_split, fetch_unless_present, require
from .folder import make_dataset
from .utils import download_and_extract_archive

_HOST = "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
_ARCHIVES = {"train": [("GTSRB-Training_fixed.zip", "513f3c79a4c5141765e10e952eaa2478")],
             "test": [("GTSRB_Final_Test_Images.zip", "c7e4e6327067d32654124b0fe9e82185"),
                      ("GTSRB_Final_Test_GT.zip", "fe31e9c9270bbcd7b84b7f21a9d9d9e5")]}


class GTSRB(ListedImages):
    """GTSRB: 43 classes of traffic signs.

    Args:
        root (str or pathlib.Path): folder holding ``gtsrb``.
        split (str): ``"train"`` (default) or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archives (MD5-checked) if needed.

    Attributes:
        _samples (list of (path, class index)).
    """

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = check_split(split, ("train", "test"))
        self._base_folder = as_path(self.root) / "gtsrb"
        self._target_folder = self._base_folder / "GTSRB" / (
            "Training" if self._split == "train" else "Final_Test/Images")
        if download:
            self.download()
        require(self._check_exists())
        if self._split == "train":
            self._samples = make_dataset(str(self._target_folder), extensions=(".ppm",))
        else:
            with open(self._base_folder / "GT-final_test.csv") as f:
                rows = csv.DictReader(f, delimiter=";", skipinitialspace=True)
                self._samples = [(str(self._target_folder / row["Filename"]),
                                  int(row["ClassId"])) for row in rows]

    def __len__(self):
        return len(self._samples)

    def _item(self, idx):
        path, target = self._samples[idx]
        return pil().open(path).convert("RGB"), target

    def extra_repr(self):
        return ""

    def _check_exists(self):
        return self._target_folder.is_dir()

    def download(self):
        fetch_unless_present(self, self._fetch_archives)

    def _fetch_archives(self):
        for name, md5 in _ARCHIVES[self._split]:
            download_and_extract_archive(_HOST + name, download_root=str(self._base_folder),
                                         md5=md5)
