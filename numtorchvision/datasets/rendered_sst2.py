"""Rendered SST2 (CLIP): sentences rendered as images in
``rendered-sst2/{train,valid,test}/{negative,positive}/*.png``."""

from ._listed import ListedImages, as_path, check_split, fetch_unless_present, index_of, require
from .folder import default_loader, make_dataset
from .utils import download_and_extract_archive

_FOLDERS = {"train": "train", "val": "valid", "test": "test"}


class RenderedSST2(ListedImages):
    """Rendered SST2: sentiment (negative / positive) of rendered movie-review sentences.

    Args:
        root (str or pathlib.Path): folder holding ``rendered-sst2``.
        split (str): ``"train"`` (default), ``"val"`` or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _URL = "https://openaipublic.azureedge.net/clip/data/rendered-sst2.tgz"
    _MD5 = "2384d08e9dcfa4bd55b324e610496ee5"

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, tuple(_FOLDERS))
        self._split_to_folder = dict(_FOLDERS)
        self._base_folder = as_path(self.root) / "rendered-sst2"
        self.classes = ["negative", "positive"]
        self.class_to_idx = index_of(self.classes)
        if download:
            self._download()
        require(self._check_exists())
        self._samples = make_dataset(str(self._base_folder / _FOLDERS[self._split]),
                                     extensions=("png",))

    def __len__(self):
        return len(self._samples)

    def _item(self, idx):
        path, target = self._samples[idx]
        return self.loader(path), target

    def _check_exists(self):
        folder = self._base_folder / _FOLDERS[self._split]
        return all((folder / name).is_dir() for name in self.classes)

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._URL,
                             download_root=self.root, md5=self._MD5)
