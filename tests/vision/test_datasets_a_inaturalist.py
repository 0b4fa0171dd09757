"""INaturalist from fabricated 2021 species folders and pre-2021 super/id folders, and a
download from a loopback server, against torchvision 0.28."""

import pytest
import torchvision.datasets as TD
import torchvision.datasets.inaturalist as tv_inat

import numtorchvision.datasets as D
import numtorchvision.datasets.inaturalist as nt_inat

from . import _fabricate as fab
from ._datasets_a import image, image_bytes, same_dataset, same_error, serving, tar_bytes

served = pytest.fixture(serving)

SPECIES = ["00000_Plantae_Tracheophyta_Magnoliopsida_Rosales_Rosaceae_Rosa_canina",
           "00001_Animalia_Annelida_Clitellata_Haplotaxida_Lumbricidae_Lumbricus_terrestris",
           "00002_Animalia_Chordata_Aves_Passeriformes_Corvidae_Corvus_corax"]
ATTRS = ["all_categories", "categories_index", "categories_map", "index", "target_type",
         "version", "root"]


def _inat2021(root, version="2021_valid"):
    for k, folder in enumerate(SPECIES):
        for j in range(2 + k % 2):
            image(root / version / folder / f"{k}{j}abc.jpg", seed=k + j)


def _inat2018(root):
    for sup, cats in [("Plantae", ["2", "0", "3"]), ("Amphibia", ["1"])]:
        for c in cats:
            for j in range(2):
                image(root / "2018" / sup / c / f"i{j}.jpg", seed=int(c) + j)


@pytest.mark.parametrize("target_type", ["full", "kingdom", "genus", ["order", "full"]])
def test_inaturalist_2021(tmp_path, target_type):
    _inat2021(tmp_path)
    a = D.INaturalist(tmp_path, "2021_valid", target_type)
    b = TD.INaturalist(tmp_path, "2021_valid", target_type)
    same_dataset(a, b, ATTRS)
    for level in ("full", "kingdom", "family"):
        for i in range(2):
            assert a.category_name(level, i) == b.category_name(level, i)
    for args in (("genus", 7), ("super", 0)):
        same_error(lambda: a.category_name(*args), lambda: b.category_name(*args),
                   prefix=False)


@pytest.mark.parametrize("target_type", ["full", "super", ["super", "full"]])
def test_inaturalist_pre2021(tmp_path, target_type):
    _inat2018(tmp_path)
    loader = lambda p: p[len(str(tmp_path)):]
    for kw in ({}, {"loader": loader}):
        same_dataset(D.INaturalist(tmp_path, "2018", target_type, **kw),
                     TD.INaturalist(tmp_path, "2018", target_type, **kw), ATTRS)


def test_inaturalist_errors(tmp_path):
    same_error(lambda: D.INaturalist(tmp_path), lambda: TD.INaturalist(tmp_path))
    same_error(lambda: D.INaturalist(tmp_path, "2020"), lambda: TD.INaturalist(tmp_path, "2020"),
               prefix=False)
    _inat2021(tmp_path)
    _inat2018(tmp_path)
    for version, target in (("2021_valid", "super"), ("2018", "genus")):
        same_error(lambda: D.INaturalist(tmp_path, version, target),
                   lambda: TD.INaturalist(tmp_path, version, target), prefix=False)
    (tmp_path / "2021_valid" / "00004_a_b").mkdir()
    same_error(lambda: D.INaturalist(tmp_path, "2021_valid"),
               lambda: TD.INaturalist(tmp_path, "2021_valid"), prefix=False)
    (tmp_path / "2021_valid" / "00004_a_b").rename(tmp_path / "2021_valid" / "00004_a_b_c_d_e_f_g")
    same_error(lambda: D.INaturalist(tmp_path, "2021_valid"),
               lambda: TD.INaturalist(tmp_path, "2021_valid"), prefix=False)
    (tmp_path / "2018" / "Plantae" / "x").mkdir()
    same_error(lambda: D.INaturalist(tmp_path, "2018"), lambda: TD.INaturalist(tmp_path, "2018"),
               prefix=False)


def test_inaturalist_download(tmp_path, served, monkeypatch):
    archive = tar_bytes({f"val/{folder}/{j}.jpg": image_bytes(k + j, fmt="JPEG")
                         for k, folder in enumerate(SPECIES) for j in range(2)}, gz=True)
    served.files["/2021/val.tar.gz"] = archive
    for mod in (nt_inat, tv_inat):
        monkeypatch.setitem(mod.DATASET_URLS, "2021_valid", served.url("2021/val.tar.gz"))
        monkeypatch.setitem(mod.DATASET_MD5, "2021_valid", fab.md5(archive))
    a = D.INaturalist(tmp_path / "nt", "2021_valid", download=True)
    b = TD.INaturalist(tmp_path / "tv", "2021_valid", download=True)
    same_dataset(a, b, ["all_categories", "categories_index"], repr_too=False)
    assert sorted(p.name for p in (tmp_path / "nt").iterdir()) == ["2021_valid",
                                                                   "2021_valid.tgz"]
