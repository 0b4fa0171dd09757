"""FGVC-Aircraft 2013b: ``fgvc-aircraft-2013b/data/images/<id>.jpg`` with the labels in
``data/images_<level>_<split>.txt`` and the class names in ``data/<level>s.txt``."""

import os

from ._listed import ListedImages, check_split, fetch_unless_present, index_of, read_lines, require
from .folder import default_loader
from .utils import download_and_extract_archive

_LEVEL_FILES = {"variant": "variants.txt", "family": "families.txt",
                "manufacturer": "manufacturers.txt"}


class FGVCAircraft(ListedImages):
    """FGVC-Aircraft: 10,000 aircraft images at three label levels.

    Args:
        root (str or pathlib.Path): folder holding ``fgvc-aircraft-2013b``.
        split (str): ``"train"``, ``"val"``, ``"trainval"`` (default) or ``"test"``.
        annotation_level (str): ``"variant"`` (100 classes, default), ``"family"`` (70) or
            ``"manufacturer"`` (30).
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive if needed.
        loader (callable): reads an image from its path.
    """

    _URL = ("https://www.robots.ox.ac.uk/~vgg/data/fgvc-aircraft/archives/"
            "fgvc-aircraft-2013b.tar.gz")

    def __init__(self, root, split="trainval", annotation_level="variant", transform=None,
                 target_transform=None, download=False, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, ("train", "val", "trainval", "test"))
        self._annotation_level = check_split(annotation_level, tuple(_LEVEL_FILES),
                                             "annotation_level")
        self._data_path = os.path.join(self.root, "fgvc-aircraft-2013b")
        if download:
            self._download()
        require(self._check_exists())
        data = os.path.join(self._data_path, "data")
        self.classes = read_lines(os.path.join(data, _LEVEL_FILES[self._annotation_level]))
        self.class_to_idx = index_of(self.classes)
        listing = os.path.join(data, f"images_{self._annotation_level}_{self._split}.txt")
        for entry in read_lines(listing):
            image_id, name = entry.split(" ", 1)
            self._image_files.append(os.path.join(data, "images", f"{image_id}.jpg"))
            self._labels.append(self.class_to_idx[name])

    def extra_repr(self):
        return ""

    def _check_exists(self):
        return os.path.isdir(self._data_path)

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._URL, self.root)
