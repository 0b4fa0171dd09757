"""Imagenette (fast.ai): ten ImageNet classes in
``imagenette2[-320|-160]/{train,val}/<wnid>/*.JPEG``."""

import pathlib

from ._listed import ListedImages, as_path, check_split, fetch_unless_present, require
from .folder import default_loader, find_classes, make_dataset
from .utils import download_and_extract_archive

_FAST_AI = "https://s3.amazonaws.com/fast-ai-imageclas/"


class Imagenette(ListedImages):
    """Imagenette: an easy ten-class subset of ImageNet.

    Args:
        root (str or pathlib.Path): folder holding ``imagenette2``, ``imagenette2-320`` or
            ``imagenette2-160``.
        split (str): ``"train"`` (default) or ``"val"``.
        size (str): ``"full"`` (default), ``"320px"`` or ``"160px"``.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        transform, target_transform (callable, optional): for the image / the label.
        loader (callable): reads an image from its path.

    Attributes:
        classes (list of tuples of names), class_to_idx (every name to its index),
        wnids (list of str), wnid_to_idx (dict).
    """

    _ARCHIVES = {"full": (_FAST_AI + "imagenette2.tgz", "fe2fc210e6bb7c5664d602c3cd71e612"),
                 "320px": (_FAST_AI + "imagenette2-320.tgz", "3df6f0d01a2c9592104656642f5e78a3"),
                 "160px": (_FAST_AI + "imagenette2-160.tgz", "e793b78cc4c9e9a4ccc0c1155377a412")}
    _WNID_TO_CLASS = {
        "n01440764": ("tench", "Tinca tinca"),
        "n02102040": ("English springer", "English springer spaniel"),
        "n02979186": ("cassette player",),
        "n03000684": ("chain saw", "chainsaw"),
        "n03028079": ("church", "church building"),
        "n03394916": ("French horn", "horn"),
        "n03417042": ("garbage truck", "dustcart"),
        "n03425413": ("gas pump", "gasoline pump", "petrol pump", "island dispenser"),
        "n03445777": ("golf ball",),
        "n03888257": ("parachute", "chute"),
    }

    def __init__(self, root, split="train", size="full", download=False, transform=None,
                 target_transform=None, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, ("train", "val"))
        self._size = check_split(size, tuple(self._ARCHIVES), "size")
        self._url, self._md5 = self._ARCHIVES[self._size]
        self._size_root = as_path(self.root) / pathlib.Path(self._url).stem
        self._image_root = self._size_root / self._split
        if download:
            self._download()
        else:
            require(self._check_exists(), "Dataset not found. You can use download=True to "
                                          "download it.")
        self.wnids, self.wnid_to_idx = find_classes(self._image_root)
        self.classes = [self._WNID_TO_CLASS[wnid] for wnid in self.wnids]
        self.class_to_idx = {name: i for i, names in enumerate(self.classes) for name in names}
        self._samples = make_dataset(self._image_root, self.wnid_to_idx, extensions=".jpeg")
        # ListedImages reads items (and the length) from these two lists
        self._image_files = [path for path, _ in self._samples]
        self._labels = [label for _, label in self._samples]

    def extra_repr(self):
        return ""

    def _check_exists(self):
        return self._size_root.exists()

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._url, self.root,
                             md5=self._md5)
