"""The new datasets given ``root`` as a str with ``~`` (expanded as torchvision expands it)
and as a pathlib.Path: the same items, attributes and repr as torchvision 0.28."""

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import same_dataset
from .test_datasets_a_faces_objects import _caltech101
from .test_datasets_a_fine_grained import _cars, _flowers, _pets
from .test_datasets_a_folders import _tree
from .test_datasets_a_inaturalist import _inat2021


def _moving(root):
    (root / "MovingMNIST").mkdir(parents=True)
    np.save(root / "MovingMNIST" / "mnist_test_seq.npy",
            np.zeros((20, 2, 4, 4), np.uint8))


# name -> (make the files under root, constructor kwargs)
BUILDERS = {
    "Flowers102": (_flowers, {}),
    "OxfordIIITPet": (_pets, {}),
    "StanfordCars": (_cars, {"split": "test"}),
    "Caltech101": (_caltech101, {}),
    "INaturalist": (_inat2021, {"version": "2021_valid"}),
    "EuroSAT": (lambda r: _tree(r / "eurosat" / "2750", ["A", "B"]), {}),
    "Country211": (lambda r: _tree(r / "country211" / "test", ["A", "B"]), {"split": "test"}),
    "Imagenette": (lambda r: _tree(r / "imagenette2" / "val", ["n01440764"], ext="JPEG"),
                   {"split": "val"}),
    "MovingMNIST": (_moving, {}),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("form", ["tilde", "path"])
def test_root_forms(tmp_path, monkeypatch, name, form):
    build, kwargs = BUILDERS[name]
    data = tmp_path / "data"
    build(data)
    if name == "Flowers102":
        files = {k: (n, fab.md5(data / "flowers-102" / n) if k != "image" else m)
                 for k, (n, m) in TD.Flowers102._file_dict.items()}
        for lib in (D, TD):
            monkeypatch.setattr(lib.Flowers102, "_file_dict", files)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # torchvision's StanfordCars makes "~/data" under the cwd
    root = "~/data" if form == "tilde" else data
    a = getattr(D, name)(root, **kwargs)
    if name == "StanfordCars" and form == "tilde":
        # torchvision's StanfordCars looks for its files under the unexpanded root (and
        # finds none); ours expands "~" as its base class and the other datasets do
        with pytest.raises(RuntimeError, match="Dataset not found"):
            TD.StanfordCars(root, **kwargs)
        same_dataset(a, TD.StanfordCars(str(data), **kwargs), ["_samples", "classes"])
        return
    same_dataset(a, getattr(TD, name)(root, **kwargs), ["root"])
