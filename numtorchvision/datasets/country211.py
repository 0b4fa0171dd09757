"""Country211 (CLIP's geolocation set): ``country211/{train,valid,test}/<country>/*.jpg``."""

from ._folders import _RootedImageFolder
from ._listed import check_split
from .folder import default_loader


class Country211(_RootedImageFolder):
    """Country211: YFCC100m photos labelled with one of 211 countries (an ImageFolder).

    Args:
        root (str or pathlib.Path): folder holding ``country211``.
        split (str): ``"train"`` (default), ``"valid"`` or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _URL = "https://openaipublic.azureedge.net/clip/data/country211.tgz"
    _MD5 = "84988d7644798601126c29e9877aab6a"

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        self._split = check_split(split, ("train", "valid", "test"))
        super().__init__(root, (self._split,), "country211", transform, target_transform,
                         download, loader)

    def _check_exists(self):
        return self._base_folder.is_dir()
