"""Multi-view Stereo Correspondence (Photo Tourism patches): ``<root>/<name>/`` holds BMP
sheets of 16x16 grey 64x64 patches, ``info.txt`` (the 3D point of each patch) and
``m50_100000_100000_0.txt`` (patch pairs); they are read once into ``<root>/<name>.pt``
(torch's format: (patches, labels, matches))."""

import os

import numpy as np

from .._pil import pil
from .utils import download_url, extract_archive
from .vision import VisionDataset

_PATCH = 64


class PhotoTour(VisionDataset):
    """Photo Tourism patches: training items are single patches (uint8 tensors, 64x64); test
    items are ``(patch1, patch2, 1 if they show the same 3D point else 0)``.

    Args:
        root (str or pathlib.Path): the folder with ``<name>`` / ``<name>.pt``.
        name (str): ``"notredame"``, ``"yosemite"``, ``"liberty"`` or a ``*_harris`` set.
        train (bool): patches (default) or matched pairs.
        transform (callable, optional): applied to each patch.
        download (bool): fetch and unpack the zip (MD5-checked) if needed.
    """

    urls = {
        "notredame_harris": ["http://matthewalunbrown.com/patchdata/notredame_harris.zip",
                             "notredame_harris.zip", "69f8c90f78e171349abdf0307afefe4d"],
        "yosemite_harris": ["http://matthewalunbrown.com/patchdata/yosemite_harris.zip",
                            "yosemite_harris.zip", "a73253d1c6fbd3ba2613c45065c00d46"],
        "liberty_harris": ["http://matthewalunbrown.com/patchdata/liberty_harris.zip",
                           "liberty_harris.zip", "c731fcfb3abb4091110d0ae8c7ba182c"],
        "notredame": ["http://icvl.ee.ic.ac.uk/vbalnt/notredame.zip", "notredame.zip",
                      "509eda8535847b8c0a90bbb210c83484"],
        "yosemite": ["http://icvl.ee.ic.ac.uk/vbalnt/yosemite.zip", "yosemite.zip",
                     "533b2e8eb7ede31be40abc317b2fd4f0"],
        "liberty": ["http://icvl.ee.ic.ac.uk/vbalnt/liberty.zip", "liberty.zip",
                    "fdd9152f138ea5ef2091746689176414"],
    }
    means = {"notredame": 0.4854, "yosemite": 0.4844, "liberty": 0.4437,
             "notredame_harris": 0.4854, "yosemite_harris": 0.4844, "liberty_harris": 0.4437}
    stds = {"notredame": 0.1864, "yosemite": 0.1818, "liberty": 0.2019,
            "notredame_harris": 0.1864, "yosemite_harris": 0.1818, "liberty_harris": 0.2019}
    lens = {"notredame": 468159, "yosemite": 633587, "liberty": 450092,
            "liberty_harris": 379587, "yosemite_harris": 450912, "notredame_harris": 325295}
    image_ext = "bmp"
    info_file = "info.txt"
    matches_files = "m50_100000_100000_0.txt"

    def __init__(self, root, name, train=True, transform=None, download=False):
        super().__init__(root, transform=transform)
        self.name = name
        # the unpacked folder, the archive and the cached tensors share the name as a stem
        self.data_dir, self.data_down, self.data_file = (
            os.path.join(self.root, name + suffix) for suffix in ("", ".zip", ".pt"))
        self.train = train
        self.mean, self.std = self.means[name], self.stds[name]
        if download:
            self.download()
        if not self._check_datafile_exists():
            self.cache()
        from numtorch import load

        self.data, self.labels, self.matches = load(self.data_file, weights_only=True)

    def __getitem__(self, index):
        if self.train:
            patch = self.data[index]
            return patch if self.transform is None else self.transform(patch)
        first, second, same = self.matches[index]
        patches = self.data[first], self.data[second]
        if self.transform is not None:
            patches = tuple(self.transform(p) for p in patches)
        return (*patches, same)

    def __len__(self):
        return len(self.data if self.train else self.matches)

    def _check_datafile_exists(self):
        return os.path.exists(self.data_file)

    def _check_downloaded(self):
        return os.path.exists(self.data_dir)

    def download(self):
        # either the cached .pt or the unpacked sheets make the archive unnecessary
        if self._check_datafile_exists() or self._check_downloaded():
            return
        url, filename, md5 = self.urls[self.name]
        download_url(url, self.root, filename, md5)
        extract_archive(os.path.join(self.root, filename), self.data_dir, remove_finished=True)

    def cache(self):
        """Read the patch sheets and text files once into ``<name>.pt``."""
        from numtorch import save

        save((read_image_file(self.data_dir, self.image_ext, self.lens[self.name]),
              read_info_file(self.data_dir, self.info_file),
              read_matches_files(self.data_dir, self.matches_files)), self.data_file)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


def read_image_file(data_dir, image_ext, n):
    """The first ``n`` 64x64 patches of the sheets in ``data_dir`` (sheets in file-name order,
    patches row by row), as a uint8 tensor (n, 64, 64)."""
    from numtorch import from_numpy

    sheets = sorted(os.path.join(data_dir, f) for f in os.listdir(data_dir)
                    if f.endswith(image_ext))
    patches = []
    for path in sheets:
        sheet = np.asarray(pil().open(path), dtype=np.uint8)
        rows, cols = sheet.shape[0] // _PATCH, sheet.shape[1] // _PATCH
        grid = sheet[:rows * _PATCH, :cols * _PATCH].reshape(rows, _PATCH, cols, _PATCH)
        patches.append(grid.swapaxes(1, 2).reshape(-1, _PATCH, _PATCH))
        if sum(len(p) for p in patches) >= n:
            break
    stacked = np.concatenate(patches) if patches else np.zeros((0, _PATCH, _PATCH), np.uint8)
    return from_numpy(np.ascontiguousarray(stacked[:n]))


def read_info_file(data_dir, info_file):
    """The 3D point id of each patch (first column of ``info.txt``), int64."""
    from numtorch import from_numpy

    path = os.path.join(data_dir, info_file)
    return from_numpy(np.loadtxt(path, dtype=np.int64, usecols=0, ndmin=1))


def read_matches_files(data_dir, matches_file):
    """(patch1, patch2, same point) rows from the matches file, int64; "same point" compares
    the two point-id fields as written."""
    from numtorch import from_numpy

    path = os.path.join(data_dir, matches_file)
    patches = np.loadtxt(path, dtype=np.int64, usecols=(0, 3), ndmin=2)
    points = np.loadtxt(path, dtype=str, usecols=(1, 4), ndmin=2)
    same = (points[:, 0] == points[:, 1]).astype(np.int64)
    return from_numpy(np.ascontiguousarray(np.column_stack([patches, same])))
