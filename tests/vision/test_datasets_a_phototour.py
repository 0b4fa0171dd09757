"""PhotoTour from fabricated BMP patch sheets, info and matches files (and a loopback
download of the zip), against torchvision 0.28; each library reads the other's .pt cache."""

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import image, same_dataset, same_error, serving, text, zip_bytes

served = pytest.fixture(serving)


def _sheets(folder, n_sheets=3):
    members = {}
    for k in range(n_sheets):
        path = image(folder / f"patches{k:04d}.bmp", seed=k, size=(128, 192), mode="L")
        members[path.name] = path.read_bytes()
    n = 6 * n_sheets
    members["info.txt"] = "".join(f"{i // 2} 0\n" for i in range(n)).encode()
    members["m50_100000_100000_0.txt"] = "".join(
        f"{i} {i // 2} 0 {(i * 7) % n} {((i * 7) % n) // 2} 0 0\n" for i in range(n)).encode()
    for name in ("info.txt", "m50_100000_100000_0.txt"):
        text(folder / name, members[name].decode())
    return members


@pytest.mark.parametrize("train", [True, False])
def test_phototour(tmp_path, train):
    _sheets(tmp_path / "nt" / "liberty")
    _sheets(tmp_path / "tv" / "liberty")
    a = D.PhotoTour(tmp_path / "nt", "liberty", train)
    b = TD.PhotoTour(tmp_path / "tv", "liberty", train)
    same_dataset(a, b, ["data", "labels", "matches", "mean", "std", "name"], repr_too=False)
    # the cache each wrote is read by the other
    same_dataset(D.PhotoTour(tmp_path / "tv", "liberty", train),
                 TD.PhotoTour(tmp_path / "nt", "liberty", train), ["data", "labels", "matches"],
                 repr_too=False)
    same_dataset(D.PhotoTour(tmp_path / "nt", "liberty", train),
                 TD.PhotoTour(tmp_path / "nt", "liberty", train))
    halve = lambda x: x // 2
    same_dataset(D.PhotoTour(tmp_path / "nt", "liberty", train, transform=halve),
                 TD.PhotoTour(tmp_path / "nt", "liberty", train, transform=halve),
                 repr_too=False)


def test_phototour_errors(tmp_path):
    same_error(lambda: D.PhotoTour(tmp_path, "liberty"), lambda: TD.PhotoTour(tmp_path, "liberty"),
               prefix=False)
    same_error(lambda: D.PhotoTour(tmp_path, "rome"), lambda: TD.PhotoTour(tmp_path, "rome"),
               prefix=False)


def test_phototour_download(tmp_path, served, monkeypatch):
    members = _sheets(tmp_path / "src" / "yosemite", n_sheets=2)
    data = zip_bytes(members)
    served.files["/yosemite.zip"] = data
    for lib in (D, TD):
        monkeypatch.setitem(lib.PhotoTour.urls, "yosemite",
                            [served.url("yosemite.zip"), "yosemite.zip", fab.md5(data)])
    a = D.PhotoTour(tmp_path / "nt", "yosemite", download=True)
    b = TD.PhotoTour(tmp_path / "tv", "yosemite", download=True)
    same_dataset(a, b, ["data", "labels", "matches"], repr_too=False)
    assert sorted(p.name for p in (tmp_path / "nt").iterdir()) == sorted(
        p.name for p in (tmp_path / "tv").iterdir())
    assert np.array_equal(a.data.numpy()[:6], b.data.numpy()[:6])
