"""CLEVR as classification (count the objects): ``clevr/CLEVR_v1.0/images/<split>/*.png``
with the scenes in ``clevr/CLEVR_v1.0/scenes/CLEVR_<split>_scenes.json``."""

import json

from ._listed import (
    NOT_FOUND_OR_CORRUPT,
    ListedImages,
    as_path,
    check_split,
    fetch_unless_present,
    require,
)
from .folder import default_loader
from .utils import download_and_extract_archive


class CLEVRClassification(ListedImages):
    """CLEVR classification: the target is the number of objects in the scene (``None`` for
    the unlabelled test split).

    Args:
        root (str or pathlib.Path): folder holding ``clevr``.
        split (str): ``"train"`` (default), ``"val"`` or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _URL = "https://dl.fbaipublicfiles.com/clevr/CLEVR_v1.0.zip"
    _MD5 = "b11922020e72d0cd9154779b2d3d07d2"

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        self._split = check_split(split, ("train", "val", "test"))
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._base_folder = as_path(self.root) / "clevr"
        self._data_folder = self._base_folder / "CLEVR_v1.0"
        if download:
            self._download()
        require(self._check_exists(), NOT_FOUND_OR_CORRUPT)
        self._image_files = sorted(self._data_folder.joinpath("images", self._split).glob("*"))
        if self._split == "test":
            self._labels = [None] * len(self._image_files)
        else:
            scenes = self._data_folder / "scenes" / f"CLEVR_{self._split}_scenes.json"
            with open(scenes) as f:
                counts = {scene["image_filename"]: len(scene["objects"])
                          for scene in json.load(f)["scenes"]}
            self._labels = [counts[path.name] for path in self._image_files]

    def _check_exists(self):
        return self._data_folder.is_dir()

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._URL,
                             str(self._base_folder), md5=self._MD5)
