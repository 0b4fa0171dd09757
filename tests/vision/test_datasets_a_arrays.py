"""Digit and character datasets stored as arrays or small files (USPS, SEMEION, Omniglot,
MovingMNIST): fabricated files in the real formats and downloads from a loopback server,
against torchvision 0.28."""

import bz2
import os

import numpy as np
import pytest
import torchvision.datasets as TD
import torchvision.transforms as TT

import numtorchvision.datasets as D
import numtorchvision.transforms as T

from . import _fabricate as fab
from ._datasets_a import image_bytes, same_dataset, same_error, serving, zip_bytes

served = pytest.fixture(serving)


def _usps_bytes(n, seed):
    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, (n, 256))
    values[:, :3] = [-1, 1, 0]
    lines = [f"{int(rng.integers(1, 11))} " + " ".join(f"{j + 1}:{v:.6f}"
                                                       for j, v in enumerate(row))
             for row in values]
    return bz2.compress(("\n".join(lines) + "\n").encode())


def test_usps(tmp_path):
    (tmp_path / "usps.bz2").write_bytes(_usps_bytes(6, 0))
    (tmp_path / "usps.t.bz2").write_bytes(_usps_bytes(4, 1))
    for train in (True, False):
        same_dataset(D.USPS(tmp_path, train), TD.USPS(tmp_path, train), ["data", "targets"])
    a = D.USPS(tmp_path, transform=T.ToTensor(), target_transform=lambda t: -t)
    b = TD.USPS(tmp_path, transform=TT.ToTensor(), target_transform=lambda t: -t)
    same_dataset(a, b, repr_too=False)
    same_error(lambda: D.USPS(tmp_path / "x"), lambda: TD.USPS(tmp_path / "x"), prefix=False)


def test_usps_download(tmp_path, served, monkeypatch):
    train, test = _usps_bytes(5, 2), _usps_bytes(3, 3)
    served.files.update({"/usps.bz2": train, "/usps.t.bz2": test})
    table = {"train": [served.url("usps.bz2"), "usps.bz2", fab.md5(train)],
             "test": [served.url("usps.t.bz2"), "usps.t.bz2", fab.md5(test)]}
    for lib in (D, TD):
        monkeypatch.setattr(lib.USPS, "split_list", table)
    for train in (True, False):
        same_dataset(D.USPS(tmp_path / "nt", train, download=True),
                     TD.USPS(tmp_path / "tv", train, download=True), ["data", "targets"],
                     repr_too=False)


def _semeion_text(n=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        onehot = np.eye(10, dtype=int)[rng.integers(0, 10)]
        rows.append(" ".join(f"{v:.4f}" for v in rng.integers(0, 2, 256)) + " "
                    + " ".join(map(str, onehot)) + " ")
    return "\n".join(rows) + "\n"


def test_semeion_and_download(tmp_path, served, monkeypatch):
    data = _semeion_text().encode()
    same_error(lambda: D.SEMEION(tmp_path, download=False),
               lambda: TD.SEMEION(tmp_path, download=False))
    served.files["/semeion.data"] = data
    for lib in (D, TD):
        monkeypatch.setattr(lib.SEMEION, "url", served.url("semeion.data"))
        monkeypatch.setattr(lib.SEMEION, "md5_checksum", fab.md5(data))
    a, b = D.SEMEION(tmp_path / "nt"), TD.SEMEION(tmp_path / "tv")
    same_dataset(a, b, ["data", "labels"], repr_too=False)
    assert (tmp_path / "nt" / "semeion.data").read_bytes() == data
    same_dataset(D.SEMEION(tmp_path / "tv", download=False), b, repr_too=True)
    (tmp_path / "tv" / "semeion.data").write_bytes(data[:-10])  # damaged: MD5 fails
    same_error(lambda: D.SEMEION(tmp_path / "tv", download=False),
               lambda: TD.SEMEION(tmp_path / "tv", download=False))


def _omniglot_zip(folder, seed):
    members = {}
    for a, alphabet in enumerate(["Greek", "Korean"]):
        for c in range(1, 3 + a):
            for k in range(2):
                members[f"{folder}/{alphabet}/character{c:02d}/{c:04d}_{k + 1:02d}.png"] = \
                    image_bytes(seed + 10 * a + c + k, size=(8, 8), mode="L")
    members[f"{folder}/Greek/character01/readme.txt"] = b"not a png"
    return zip_bytes(members)


@pytest.mark.parametrize("background", [True, False])
def test_omniglot_download(tmp_path, served, monkeypatch, background):
    folder = "images_background" if background else "images_evaluation"
    data = _omniglot_zip(folder, int(background))
    served.files[f"/omni/{folder}.zip"] = data
    for lib in (D, TD):
        monkeypatch.setattr(lib.Omniglot, "download_url_prefix", served.url("omni"))
        monkeypatch.setattr(lib.Omniglot, "zips_md5", {**TD.Omniglot.zips_md5,
                                                       folder: fab.md5(data)})
    same_error(lambda: D.Omniglot(tmp_path / "nt", background),
               lambda: TD.Omniglot(tmp_path / "tv", background))
    a = D.Omniglot(tmp_path / "nt", background, download=True)
    b = TD.Omniglot(tmp_path / "tv", background, download=True)
    assert sorted(os.listdir(a.root)) == sorted(os.listdir(b.root))
    # the listing order is the file system's: compare on one tree read by both
    b = TD.Omniglot(tmp_path / "nt", background)
    same_dataset(a, b, ["_alphabets", "_characters", "_character_images",
                        "_flat_character_images", "target_folder"])
    loader = lambda p: os.path.basename(p)
    same_dataset(D.Omniglot(tmp_path / "nt", background, loader=loader),
                 TD.Omniglot(tmp_path / "nt", background, loader=loader))


@pytest.mark.parametrize("split,ratio", [(None, 10), ("train", 10), ("test", 10),
                                         ("train", 3), ("test", 19)])
def test_moving_mnist(tmp_path, split, ratio):
    folder = tmp_path / "MovingMNIST"
    folder.mkdir()
    frames = np.random.default_rng(0).integers(0, 256, (20, 3, 8, 8)).astype(np.uint8)
    np.save(folder / "mnist_test_seq.npy", frames)
    a = D.MovingMNIST(tmp_path, split, ratio)
    b = TD.MovingMNIST(tmp_path, split, ratio)
    same_dataset(a, b, ["data", "split", "split_ratio", "_base_folder", "_filename"])
    same_dataset(D.MovingMNIST(tmp_path, split, ratio, transform=lambda x: x.float() / 255),
                 TD.MovingMNIST(tmp_path, split, ratio, transform=lambda x: x.float() / 255),
                 repr_too=False)


def test_moving_mnist_errors(tmp_path):
    for kw in (dict(), dict(split="val"), dict(split="train", split_ratio=1.5),
               dict(split_ratio=0), dict(split="test", split_ratio=20)):
        same_error(lambda: D.MovingMNIST(tmp_path, **kw),
                   lambda: TD.MovingMNIST(tmp_path, **kw), prefix=False)
