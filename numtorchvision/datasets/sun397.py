"""SUN397: ``SUN397/<letter>/<scene>[/<sub>]/sun_*.jpg`` with the class list in
``SUN397/ClassName.txt`` ("/a/abbey")."""

from ._listed import ListedImages, as_path, fetch_unless_present, index_of, read_lines, require
from .folder import default_loader
from .utils import download_and_extract_archive


class SUN397(ListedImages):
    """The SUN397 scene recognition data set (397 categories).

    Args:
        root (str or pathlib.Path): folder holding ``SUN397``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _DATASET_URL = "http://vision.princeton.edu/projects/2010/SUN/SUN397.tar.gz"
    _DATASET_MD5 = "8ca2778205c41d23104230ba66911c7a"

    def __init__(self, root, transform=None, target_transform=None, download=False,
                 loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._data_dir = as_path(self.root) / "SUN397"
        if download:
            self._download()
        require(self._check_exists())
        # "/a/abbey" -> "abbey"; "/b/bakery/shop" -> "bakery/shop"
        self.classes = [entry[3:] for entry in read_lines(self._data_dir / "ClassName.txt")]
        self.class_to_idx = index_of(self.classes)
        self._image_files = list(self._data_dir.rglob("sun_*.jpg"))
        self._labels = [self.class_to_idx["/".join(p.relative_to(self._data_dir).parts[1:-1])]
                        for p in self._image_files]

    def _check_exists(self):
        return self._data_dir.is_dir()

    def _download(self):
        fetch_unless_present(self, download_and_extract_archive, self._DATASET_URL,
                             download_root=self.root, md5=self._DATASET_MD5)
