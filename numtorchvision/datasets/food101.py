"""Food-101: ``food-101/images/<class>/<id>.jpg`` and the split lists in
``food-101/meta/{train,test}.json``."""

import json

from ._listed import ListedImages, as_path, check_split, fetch_unless_present, index_of, require
from .folder import default_loader
from .utils import download_and_extract_archive


class Food101(ListedImages):
    """The Food-101 data set: 101 food categories, 750 training and 250 test images each.

    Args:
        root (str or pathlib.Path): folder holding ``food-101``.
        split (str): ``"train"`` (default) or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.

    Attributes:
        classes (list of str): sorted class names; class_to_idx (dict).
    """

    _URL = "http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz"
    _MD5 = "85eeb15f3717b99a5da872d97d918f87"

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, ("train", "test"))
        self._base_folder = as_path(self.root) / "food-101"
        self._meta_folder = self._base_folder / "meta"
        self._images_folder = self._base_folder / "images"
        if download:
            self._download()
        require(self._check_exists())
        with open(self._meta_folder / f"{split}.json") as f:
            listing = json.load(f)
        self.classes = sorted(listing)
        self.class_to_idx = index_of(self.classes)
        for name, stems in listing.items():
            self._labels += [self.class_to_idx[name]] * len(stems)
            self._image_files += [self._images_folder / f"{stem}.jpg" for stem in stems]

    def _check_exists(self):
        return self._meta_folder.is_dir() and self._images_folder.is_dir()

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._URL,
                             download_root=self.root, md5=self._MD5)
