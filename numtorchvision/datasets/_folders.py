"""ImageFolder datasets that live in a sub-folder of ``root`` (EuroSAT, Country211): the
folder is read as an :class:`ImageFolder` while ``root`` stays what the user passed."""

import os
import pathlib

from ._listed import require
from .folder import ImageFolder
from .utils import download_and_extract_archive


class _RootedImageFolder(ImageFolder):
    _URL = _MD5 = None

    def __init__(self, root, images, base, transform, target_transform, download, loader):
        self._base_folder = pathlib.Path(os.path.expanduser(root)) / base
        self._data_folder = self._base_folder.joinpath(*images)
        self._root_arg = root
        if download:
            self._download()
        require(self._check_exists())
        super().__init__(str(self._data_folder), transform=transform,
                         target_transform=target_transform, loader=loader)
        self.root = os.path.expanduser(root)

    def _check_exists(self):
        return self._data_folder.is_dir()

    def _download(self):
        if not self._check_exists():
            download_and_extract_archive(self._URL, download_root=self._download_root(),
                                         md5=self._MD5)

    def _download_root(self):
        return self._root_arg
