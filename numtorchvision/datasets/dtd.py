"""Describable Textures: ``dtd/dtd/images/<class>/<file>.jpg`` and ten train/val/test
partitions listed in ``dtd/dtd/labels/<split><partition>.txt``."""

from ._listed import ListedImages, as_path, check_split, index_of, read_lines, require
from .folder import default_loader
from .utils import download_and_extract_archive


class DTD(ListedImages):
    """Describable Textures Dataset (47 texture classes).

    Args:
        root (str or pathlib.Path): folder holding ``dtd``.
        split (str): ``"train"`` (default), ``"val"`` or ``"test"``.
        partition (int): which of the ten official splits, 1 to 10 (default 1).
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _URL = "https://www.robots.ox.ac.uk/~vgg/data/dtd/download/dtd-r1.0.1.tar.gz"
    _MD5 = "fff73e5086ae6bdbea199a49dfb8a4c1"

    def __init__(self, root, split="train", partition=1, transform=None,
                 target_transform=None, download=False, loader=default_loader):
        self._split = check_split(split, ("train", "val", "test"))
        # torchvision raises only for a non-int outside 1..10 (a str fails the comparison)
        if not isinstance(partition, int) and not 1 <= partition <= 10:
            raise ValueError(f"Parameter 'partition' should be an integer with "
                             f"`1 <= partition <= 10`, but got {partition} instead")
        self._partition = partition
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._base_folder = as_path(self.root) / type(self).__name__.lower()
        self._data_folder = self._base_folder / "dtd"
        self._meta_folder, self._images_folder = (self._data_folder / sub
                                                  for sub in ("labels", "images"))
        if download:
            self._download()
        require(self._check_exists())
        names = []
        for entry in read_lines(self._meta_folder / f"{self._split}{self._partition}.txt"):
            cls, name = entry.split("/")
            self._image_files.append(self._images_folder.joinpath(cls, name))
            names.append(cls)
        self.classes = sorted(set(names))
        self.class_to_idx = index_of(self.classes)
        self._labels = [self.class_to_idx[cls] for cls in names]

    def extra_repr(self):
        return f"split={self._split}, partition={self._partition}"

    def _check_exists(self):
        return self._data_folder.is_dir()

    def _download(self):
        if not self._check_exists():
            download_and_extract_archive(self._URL, download_root=str(self._base_folder),
                                         md5=self._MD5)
