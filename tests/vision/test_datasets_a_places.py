"""Places365 from fabricated devkit file lists and image folders, and downloaded from a
loopback server (devkit tar + images tar, MD5s patched in), against torchvision 0.28."""

import hashlib
import os

import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from ._datasets_a import image, image_bytes, same_dataset, same_error, serving, tar_bytes, text

served = pytest.fixture(serving)

CATEGORIES = "/b/bakery/shop 0\n/a/airfield 1\n/c/canyon 2\n"
LISTS = {"places365_train_standard.txt": "/a/airfield/00000001.jpg 1\n"
                                         "/b/bakery/shop/00000002.jpg 0\n",
         "places365_train_challenge.txt": "/c/canyon/00000003.jpg 2\n"
                                          "/a/airfield/00000004.jpg 1\n",
         "places365_val.txt": "Places365_val_00000001.jpg 2\nPlaces365_val_00000002.jpg 0\n",
         "places365_test.txt": "Places365_test_00000001.jpg\nPlaces365_test_00000002.jpg\n"}
FOLDERS = {"train-standard": "data_{}_standard", "train-challenge": "data_{}_challenge",
           "val": "val_{}", "test": "test_{}"}


def _md5(data):
    return hashlib.md5(data.encode() if isinstance(data, str) else data).hexdigest()


@pytest.fixture
def patched(monkeypatch):
    for lib in (D, TD):
        monkeypatch.setattr(lib.Places365, "_CATEGORIES_META",
                            ("categories_places365.txt", _md5(CATEGORIES)))
        monkeypatch.setattr(lib.Places365, "_FILE_LIST_META", {
            split: (name, _md5(LISTS[name]))
            for split, (name, _) in TD.Places365._FILE_LIST_META.items()})


def _places(root):
    text(root / "categories_places365.txt", CATEGORIES)
    for name, content in LISTS.items():
        text(root / name, content)
    for k, (split, folder) in enumerate(FOLDERS.items()):
        name = TD.Places365._FILE_LIST_META[split][0]
        for j, line in enumerate(LISTS[name].splitlines()):
            for size in ("large", "256"):
                image(root / folder.format(size) / line.split()[0].lstrip("/"), seed=k + j,
                      size=(12, 12) if size == "large" else (6, 6))


@pytest.mark.parametrize("split", ["train-standard", "train-challenge", "val", "test"])
@pytest.mark.parametrize("small", [False, True])
def test_places365(tmp_path, patched, split, small):
    _places(tmp_path)
    same_dataset(D.Places365(tmp_path, split, small), TD.Places365(tmp_path, split, small),
                 ["classes", "class_to_idx", "imgs", "targets", "images_dir", "variant"])


def test_places365_errors(tmp_path, patched):
    same_error(lambda: D.Places365(tmp_path), lambda: TD.Places365(tmp_path), prefix=False)
    _places(tmp_path)
    same_error(lambda: D.Places365(tmp_path, "train"), lambda: TD.Places365(tmp_path, "train"),
               prefix=False)
    (tmp_path / "places365_val.txt").write_text("damaged")
    same_error(lambda: D.Places365(tmp_path, "val"), lambda: TD.Places365(tmp_path, "val"),
               prefix=False)


def test_places365_download(tmp_path, patched, served, monkeypatch):
    devkit = tar_bytes({"categories_places365.txt": CATEGORIES.encode(),
                        **{n: c.encode() for n, c in LISTS.items()}})
    val = tar_bytes({f"val_256/{line.split()[0]}": image_bytes(j, fmt="JPEG")
                     for j, line in enumerate(LISTS["places365_val.txt"].splitlines())})
    train = tar_bytes({f"data_256/{line.split()[0].lstrip('/')}": image_bytes(j, fmt="JPEG")
                       for j, line in enumerate(LISTS["places365_train_standard.txt"]
                                                .splitlines())})
    served.files.update({"/p/filelist_places365-standard.tar": devkit, "/p/val_256.tar": val,
                         "/p/train_256_places365standard.tar": train})
    for lib in (D, TD):
        monkeypatch.setattr(lib.Places365, "_BASE_URL", served.url("p/"))
        monkeypatch.setattr(lib.Places365, "_DEVKIT_META", {
            "standard": ("filelist_places365-standard.tar", _md5(devkit))})
        monkeypatch.setattr(lib.Places365, "_IMAGES_META", {
            ("val", True): ("val_256.tar", _md5(val)),
            ("train-standard", True): ("train_256_places365standard.tar", _md5(train))})
    for split in ("val", "train-standard"):
        a = D.Places365(tmp_path / "nt", split, small=True, download=True)
        b = TD.Places365(tmp_path / "tv", split, small=True, download=True)
        assert len(a) == len(b) == 2
        same_dataset(a, b, ["targets"], repr_too=False)
        assert sorted(os.listdir(tmp_path / "nt")) == sorted(os.listdir(tmp_path / "tv"))
    hits = len(served.hits)
    D.Places365(tmp_path / "nt", "val", small=True, download=True)  # all there: no request
    assert len(served.hits) == hits
