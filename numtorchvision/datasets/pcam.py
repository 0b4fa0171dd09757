"""PatchCamelyon: 96x96 histopathology patches in HDF5 files
``pcam/camelyonpatch_level_2_split_<train|valid|test>_<x|y>.h5`` (images "x" (N, 96, 96, 3),
labels "y" (N, 1, 1, 1)). Reading them needs ``h5py``."""

import pathlib

from .._pil import pil
from ._listed import check_split, require, transformed
from .utils import _decompress, download_file_from_google_drive
from .vision import VisionDataset


class PCAM(VisionDataset):
    """PCAM: binary labels (metastatic tissue or not) for 327,680 patches.

    Args:
        root (str or pathlib.Path): folder holding ``pcam``.
        split (str): ``"train"`` (default), ``"test"`` or ``"val"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch the gzipped files from Google Drive (needs ``gdown``).

    Raises:
        RuntimeError: ``h5py`` is not installed.
    """

    _FILES = {
        "train": {"images": ("camelyonpatch_level_2_split_train_x.h5",
                             "1Ka0XfEMiwgCYPdTI-vv6eUElOBnKFKQ2",
                             "1571f514728f59376b705fc836ff4b63"),
                  "targets": ("camelyonpatch_level_2_split_train_y.h5",
                              "1269yhu3pZDP8UYFQs-NYs3FPwuK-nGSG",
                              "35c2d7259d906cfc8143347bb8e05be7")},
        "test": {"images": ("camelyonpatch_level_2_split_test_x.h5",
                            "1qV65ZqZvWzuIVthK8eVDhIwrbnsJdbg_",
                            "d8c2d60d490dbd479f8199bdfa0cf6ec"),
                 "targets": ("camelyonpatch_level_2_split_test_y.h5",
                             "17BHrSrwWKjYsOgTMmoqrIjDy6Fa2o_gP",
                             "60a7035772fbdb7f34eb86d4420cf66a")},
        "val": {"images": ("camelyonpatch_level_2_split_valid_x.h5",
                           "1hgshYGWK8V-eGRy8LToWJJgDU_rXWVJ3",
                           "d5b63470df7cfa627aeec8b9dc0c066e"),
                "targets": ("camelyonpatch_level_2_split_valid_y.h5",
                            "1bH8ZRbhSVAhScTS0p9-ZzGnX91cHT3uO",
                            "2b85f58b927af9964a4c15b8f7e8f179")},
    }

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False):
        try:
            import h5py
        except ImportError:
            raise RuntimeError("h5py is not found. This dataset needs to have h5py installed: "
                               "please run pip install h5py") from None
        self.h5py = h5py
        self._split = check_split(split, ("train", "test", "val"))
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._base_folder = pathlib.Path(self.root) / "pcam"
        if download:
            self._download()
        require(self._check_exists())

    def _file(self, kind):
        return self._base_folder / self._FILES[self._split][kind][0]

    def __len__(self):
        with self.h5py.File(self._file("images")) as f:
            return f["x"].shape[0]

    def __getitem__(self, idx):
        with self.h5py.File(self._file("images")) as f:
            image = pil().fromarray(f["x"][idx]).convert("RGB")
        with self.h5py.File(self._file("targets")) as f:
            target = int(f["y"][idx, 0, 0, 0])
        return transformed(self, image, target)

    def _check_exists(self):
        return all(self._file(kind).exists() for kind in ("images", "targets"))

    def _download(self):
        if self._check_exists():
            return
        for name, file_id, md5 in self._FILES[self._split].values():
            download_file_from_google_drive(file_id, str(self._base_folder),
                                            filename=name + ".gz", md5=md5)
            _decompress(str(self._base_folder / name) + ".gz")
