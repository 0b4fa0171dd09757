"""Omniglot: ``omniglot-py/images_background/<alphabet>/<character>/*.png`` (and
``images_evaluation``), with the downloaded zip kept beside it and MD5-checked."""

import os

from .._pil import pil
from ._listed import NOT_FOUND_OR_CORRUPT, require, transformed
from .utils import check_integrity, download_and_extract_archive, list_dir, list_files
from .vision import VisionDataset


class Omniglot(VisionDataset):
    """Omniglot: 1,623 handwritten characters from 50 alphabets.

    Args:
        root (str or pathlib.Path): folder holding ``omniglot-py``.
        background (bool): the background set (default) or the evaluation set.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the zip (MD5-checked) if needed.
        loader (callable, optional): reads an image from its path (default: grey-scale PIL).

    The target is the character's index over all alphabets of the set.
    """

    folder = "omniglot-py"
    download_url_prefix = "https://raw.githubusercontent.com/brendenlake/omniglot/master/python"
    zips_md5 = {"images_background": "68d2efa1b9178cc56df9314c21c6e718",
                "images_evaluation": "6b91aef0f799c5bb55b94e3f2daec811"}

    def __init__(self, root, background=True, transform=None, target_transform=None,
                 download=False, loader=None):
        super().__init__(os.path.join(root, self.folder), transform=transform,
                         target_transform=target_transform)
        self.background = background
        self.loader = loader
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT, [self._zip()])
        self.target_folder = os.path.join(self.root, self._get_target_folder())
        self._alphabets = list_dir(self.target_folder)
        self._characters = [os.path.join(alphabet, character) for alphabet in self._alphabets
                            for character in list_dir(os.path.join(self.target_folder,
                                                                   alphabet))]
        self._character_images = [
            [(name, label) for name in list_files(os.path.join(self.target_folder, character),
                                                  ".png")]
            for label, character in enumerate(self._characters)]
        self._flat_character_images = [pair for images in self._character_images
                                       for pair in images]

    def __len__(self):
        return len(self._flat_character_images)

    def __getitem__(self, index):
        name, label = self._flat_character_images[index]
        path = os.path.join(self.target_folder, self._characters[label], name)
        image = pil().open(path, mode="r").convert("L") if self.loader is None \
            else self.loader(path)
        return transformed(self, image, label)

    def _zip(self):
        name = self._get_target_folder()
        return os.path.join(self.root, name + ".zip"), self.zips_md5[name]

    def _check_integrity(self):
        return check_integrity(*self._zip())

    def download(self):
        if self._check_integrity():
            return
        name = self._get_target_folder() + ".zip"
        download_and_extract_archive(f"{self.download_url_prefix}/{name}", self.root,
                                     filename=name, md5=self.zips_md5[name[:-4]])

    def _get_target_folder(self):
        return "images_background" if self.background else "images_evaluation"
