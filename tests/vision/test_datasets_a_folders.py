"""Folder-shaped classification datasets (EuroSAT, Country211, SUN397, GTSRB, RenderedSST2,
Imagenette, CLEVRClassification) from fabricated trees in their real layouts, against
torchvision 0.28 on the same files."""

import json

import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from ._datasets_a import image, same_dataset, same_error, text

FOLDER_ATTRS = ["classes", "class_to_idx", "samples", "targets", "imgs", "root"]


def _tree(base, classes, per_class=2, ext="jpg", seed=0):
    for ci, cls in enumerate(classes):
        for j in range(per_class):
            image(base / cls / f"{cls.replace('/', '_')}_{j}.{ext}", seed=seed + 7 * ci + j)


def test_eurosat(tmp_path):
    _tree(tmp_path / "eurosat" / "2750", ["River", "AnnualCrop", "Forest"])
    for root in (tmp_path, str(tmp_path)):
        same_dataset(D.EuroSAT(root), TD.EuroSAT(root), FOLDER_ATTRS)
    same_error(lambda: D.EuroSAT(tmp_path / "x"), lambda: TD.EuroSAT(tmp_path / "x"))


def test_country211(tmp_path):
    for k, split in enumerate(("train", "valid", "test")):
        _tree(tmp_path / "country211" / split, ["AD", "FR", "ZW"][: 2 + (k == 0)], seed=k)
    for split in ("train", "valid", "test"):
        same_dataset(D.Country211(tmp_path, split), TD.Country211(tmp_path, split),
                     FOLDER_ATTRS)
    same_error(lambda: D.Country211(tmp_path / "x"), lambda: TD.Country211(tmp_path / "x"))
    same_error(lambda: D.Country211(tmp_path, "val"), lambda: TD.Country211(tmp_path, "val"),
               prefix=False)


def test_sun397(tmp_path):
    data = tmp_path / "SUN397"
    text(data / "ClassName.txt", "/a/abbey\n/b/bakery/shop\n/z/zen_garden\n")
    for k, rel in enumerate(["a/abbey/sun_aaa.jpg", "b/bakery/shop/sun_bbb.jpg",
                             "a/abbey/sun_ccc.jpg", "z/zen_garden/sun_ddd.jpg"]):
        image(data / rel, seed=k)
    image(data / "a" / "abbey" / "other.jpg")  # not a sun_* file: skipped
    same_dataset(D.SUN397(tmp_path), TD.SUN397(tmp_path),
                 ["_image_files", "_labels", "classes", "class_to_idx"])
    same_error(lambda: D.SUN397(tmp_path / "x"), lambda: TD.SUN397(tmp_path / "x"))


def test_gtsrb(tmp_path):
    base = tmp_path / "gtsrb"
    for ci, cls in enumerate(["00000", "00001", "00002"]):
        for j in range(2):
            image(base / "GTSRB" / "Training" / cls / f"0000{j}_0000{ci}.ppm", seed=ci + j)
        text(base / "GTSRB" / "Training" / cls / f"GT-{cls}.csv", "x")
    rows = ["Filename;Width;Height;Roi.X1;Roi.Y1;Roi.X2;Roi.Y2;ClassId"]
    for j, cls in enumerate([2, 0, 1]):
        image(base / "GTSRB" / "Final_Test" / "Images" / f"{j:05d}.ppm", seed=20 + j)
        rows.append(f"{j:05d}.ppm;11;9;1;1;8;8;{cls}")
    text(base / "GT-final_test.csv", "\n".join(rows) + "\n")
    for split in ("train", "test"):
        same_dataset(D.GTSRB(tmp_path, split), TD.GTSRB(tmp_path, split), ["_samples"])
    same_error(lambda: D.GTSRB(tmp_path / "x"), lambda: TD.GTSRB(tmp_path / "x"))
    same_error(lambda: D.GTSRB(tmp_path, "val"), lambda: TD.GTSRB(tmp_path, "val"), prefix=False)


def test_rendered_sst2(tmp_path):
    for k, folder in enumerate(("train", "valid", "test")):
        _tree(tmp_path / "rendered-sst2" / folder, ["negative", "positive"], ext="png", seed=k)
    for split in ("train", "val", "test"):
        same_dataset(D.RenderedSST2(tmp_path, split), TD.RenderedSST2(tmp_path, split),
                     ["_samples", "classes", "class_to_idx"])
    same_error(lambda: D.RenderedSST2(tmp_path / "x"), lambda: TD.RenderedSST2(tmp_path / "x"))
    same_error(lambda: D.RenderedSST2(tmp_path, "valid"),
               lambda: TD.RenderedSST2(tmp_path, "valid"), prefix=False)


@pytest.mark.parametrize("size", ["full", "160px"])
def test_imagenette(tmp_path, size):
    top = {"full": "imagenette2", "160px": "imagenette2-160"}[size]
    for k, split in enumerate(("train", "val")):
        _tree(tmp_path / top / split, ["n03888257", "n01440764", "n03425413"], ext="JPEG",
              seed=k)
    for split in ("train", "val"):
        same_dataset(D.Imagenette(tmp_path, split, size), TD.Imagenette(tmp_path, split, size),
                     ["_samples", "classes", "class_to_idx", "wnids", "wnid_to_idx"])
    same_error(lambda: D.Imagenette(tmp_path / "x", size=size),
               lambda: TD.Imagenette(tmp_path / "x", size=size))
    same_error(lambda: D.Imagenette(tmp_path, size="320"),
               lambda: TD.Imagenette(tmp_path, size="320"), prefix=False)


def test_clevr_classification(tmp_path):
    data = tmp_path / "clevr" / "CLEVR_v1.0"
    for k, split in enumerate(("train", "val", "test")):
        names = [f"CLEVR_{split}_{i:06d}.png" for i in (2, 0, 1)]
        for j, name in enumerate(names):
            image(data / "images" / split / name, seed=10 * k + j)
        if split != "test":
            scenes = [{"image_filename": n, "objects": [{"shape": "cube"}] * (j + 3)}
                      for j, n in enumerate(names)]
            text(data / "scenes" / f"CLEVR_{split}_scenes.json", json.dumps({"scenes": scenes}))
    for split in ("train", "val", "test"):
        same_dataset(D.CLEVRClassification(tmp_path, split),
                     TD.CLEVRClassification(tmp_path, split), ["_image_files", "_labels"])
    same_error(lambda: D.CLEVRClassification(tmp_path / "x"),
               lambda: TD.CLEVRClassification(tmp_path / "x"))


def test_gtsrb_and_imagenette_wrapped_for_v2(tmp_path):
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    from numtorchvision.datasets import wrap_dataset_for_transforms_v2 as nt_wrap

    _tree(tmp_path / "gtsrb" / "GTSRB" / "Training", ["00000", "00001"], ext="ppm")
    _tree(tmp_path / "imagenette2" / "train", ["n03888257", "n01440764"], ext="JPEG")
    for name in ("GTSRB", "Imagenette"):
        same_dataset(nt_wrap(getattr(D, name)(tmp_path)), tv_wrap(getattr(TD, name)(tmp_path)),
                     repr_too=False)
