"""Fine-grained classification datasets (Flowers102, Food101, DTD, OxfordIIITPet,
StanfordCars, FGVCAircraft) read from fabricated files in their real layouts, against
torchvision 0.28 on the same files."""

import json

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import image, mat, same_dataset, same_error, text


def _flowers(root, n=7):
    base = root / "flowers-102"
    for i in range(1, n + 1):
        image(base / "jpg" / f"image_{i:05d}.jpg", seed=i)
    mat(base / "imagelabels.mat", labels=np.array([[5, 1, 102, 5, 3, 7, 2]], np.uint8))
    mat(base / "setid.mat", trnid=np.array([[1, 4, 6]], np.uint16),
        valid=np.array([[2, 7]], np.uint16), tstid=np.array([[3, 5, 7]], np.uint16))
    return {k: (name, fab.md5(base / name) if k != "image" else md5)
            for k, (name, md5) in TD.Flowers102._file_dict.items()}


def test_flowers102(tmp_path, monkeypatch):
    files = _flowers(tmp_path)
    same_error(lambda: D.Flowers102(tmp_path), lambda: TD.Flowers102(tmp_path))
    for lib in (D, TD):
        monkeypatch.setattr(lib.Flowers102, "_file_dict", files)
    for split in ("train", "val", "test"):
        same_dataset(D.Flowers102(tmp_path, split), TD.Flowers102(tmp_path, split),
                     ["_labels", "_image_files", "classes"])
    same_error(lambda: D.Flowers102(tmp_path, "bad"), lambda: TD.Flowers102(tmp_path, "bad"),
               prefix=False)


def test_food101(tmp_path):
    base = tmp_path / "food-101"
    listing = {"split": {"train": {"pizza": ["pizza/11", "pizza/3"], "apple_pie": ["apple_pie/7"]},
                         "test": {"apple_pie": ["apple_pie/1"], "bibimbap": ["bibimbap/2"]}}}
    for split, classes in listing["split"].items():
        text(base / "meta" / f"{split}.json", json.dumps(classes))
        for stems in classes.values():
            for k, stem in enumerate(stems):
                image(base / "images" / f"{stem}.jpg", seed=k + len(stem))
    for split in ("train", "test"):
        same_dataset(D.Food101(tmp_path, split), TD.Food101(tmp_path, split),
                     ["_labels", "_image_files", "classes", "class_to_idx"])
    same_error(lambda: D.Food101(tmp_path / "x"), lambda: TD.Food101(tmp_path / "x"))
    same_error(lambda: D.Food101(tmp_path, "val"), lambda: TD.Food101(tmp_path, "val"),
               prefix=False)


def test_dtd(tmp_path):
    data = tmp_path / "dtd" / "dtd"
    names = {"train1": ["zigzagged/z_1.jpg", "banded/b_2.jpg", "banded/b_1.jpg"],
             "val1": ["woven/w_1.jpg"], "test1": ["banded/b_3.jpg", "woven/w_2.jpg"],
             "train2": ["woven/w_1.jpg", "banded/b_3.jpg"]}
    for k, (listing, entries) in enumerate(names.items()):
        text(data / "labels" / f"{listing}.txt", "\n".join(entries) + "\n")
        for e in entries:
            image(data / "images" / e, seed=k)
    for split, partition in [("train", 1), ("val", 1), ("test", 1), ("train", 2)]:
        same_dataset(D.DTD(tmp_path, split, partition), TD.DTD(tmp_path, split, partition),
                     ["_labels", "_image_files", "classes", "class_to_idx"])
    same_error(lambda: D.DTD(tmp_path / "x"), lambda: TD.DTD(tmp_path / "x"))
    same_error(lambda: D.DTD(tmp_path, "bad"), lambda: TD.DTD(tmp_path, "bad"), prefix=False)
    same_error(lambda: D.DTD(tmp_path, partition=7), lambda: TD.DTD(tmp_path, partition=7))
    with pytest.raises(TypeError):
        D.DTD(tmp_path, partition="1")


def _pets(root):
    base = root / "oxford-iiit-pet"
    rows = {"trainval": ["american_bulldog_12 2 2 1", "Abyssinian_100 1 1 1",
                         "great_pyrenees_3 3 2 2", "Abyssinian_7 1 1 1"],
            "test": ["great_pyrenees_9 3 2 2", "Bengal_1 4 1 3"]}
    for k, (split, lines) in enumerate(rows.items()):
        text(base / "annotations" / f"{split}.txt", "\n".join(lines) + "\n")
        for j, line in enumerate(lines):
            name = line.split()[0]
            image(base / "images" / f"{name}.jpg", seed=10 * k + j)
            image(base / "annotations" / "trimaps" / f"{name}.png", seed=j, mode="L")


@pytest.mark.parametrize("target_types", ["category", "binary-category", "segmentation",
                                          ["segmentation", "category"], []])
def test_oxford_iiit_pet(tmp_path, target_types):
    _pets(tmp_path)
    for split in ("trainval", "test"):
        same_dataset(D.OxfordIIITPet(tmp_path, split, target_types),
                     TD.OxfordIIITPet(tmp_path, split, target_types),
                     ["_labels", "_bin_labels", "_images", "_segs", "classes", "class_to_idx",
                      "bin_classes", "bin_class_to_idx", "_target_types"])


def test_oxford_iiit_pet_errors_and_transforms(tmp_path):
    _pets(tmp_path)
    same_error(lambda: D.OxfordIIITPet(tmp_path / "x"), lambda: TD.OxfordIIITPet(tmp_path / "x"))
    for kw in (dict(split="train"), dict(target_types=["category", "bad"])):
        same_error(lambda: D.OxfordIIITPet(tmp_path, **kw),
                   lambda: TD.OxfordIIITPet(tmp_path, **kw), prefix=False)

    def both(img, target):
        return img.size, target + 1

    a = D.OxfordIIITPet(tmp_path, transforms=both)
    b = TD.OxfordIIITPet(tmp_path, transforms=both)
    assert [a[i] for i in range(len(a))] == [b[i] for i in range(len(b))]


def _cars(root):
    import numpy as np

    base = root / "stanford_cars"
    mat(base / "devkit" / "cars_meta.mat",
        class_names=np.array([["AM General Hummer SUV 2000", "Acura RL Sedan 2012",
                               "Audi TT RS Coupe 2012"]], dtype=object))
    for k, (where, folder) in enumerate([(base / "devkit" / "cars_train_annos.mat", "cars_train"),
                                         (base / "cars_test_annos_withlabels.mat", "cars_test")]):
        recs = np.zeros((1, 3), dtype=[("bbox_x1", "O"), ("class", "O"), ("fname", "O")])
        for j, (cls, name) in enumerate([(3, "00003.jpg"), (1, "00001.jpg"), (2, "00010.jpg")]):
            recs[0, j] = (np.array([[5]], np.uint8), np.array([[cls]], np.uint8), name)
            image(base / folder / name, seed=10 * k + j)
        mat(where, annotations=recs)


def test_stanford_cars(tmp_path):
    _cars(tmp_path)
    for split in ("train", "test"):
        same_dataset(D.StanfordCars(tmp_path, split), TD.StanfordCars(tmp_path, split),
                     ["_samples", "classes", "class_to_idx"])
    same_error(lambda: D.StanfordCars(tmp_path / "x"), lambda: TD.StanfordCars(tmp_path / "x"))
    same_error(lambda: D.StanfordCars(tmp_path, "val"), lambda: TD.StanfordCars(tmp_path, "val"),
               prefix=False)
    same_error(lambda: D.StanfordCars(tmp_path, download=True),
               lambda: TD.StanfordCars(tmp_path, download=True), prefix=False)


def test_fgvc_aircraft(tmp_path):
    data = tmp_path / "fgvc-aircraft-2013b" / "data"
    text(data / "variants.txt", "707-320\nA300B4\nBAE 146-200\n")
    text(data / "families.txt", "Boeing 707\nA300\nBAE 146\n")
    text(data / "manufacturers.txt", "Boeing\nAirbus\nBritish Aerospace\n")
    rows = [("1025794", "707-320", "Boeing 707", "Boeing"),
            ("0034309", "BAE 146-200", "BAE 146", "British Aerospace"),
            ("2231134", "A300B4", "A300", "Airbus")]
    for j, (image_id, *_) in enumerate(rows):
        image(data / "images" / f"{image_id}.jpg", seed=j)
    for li, level in enumerate(("variant", "family", "manufacturer")):
        for split, pick in [("train", rows[:2]), ("val", rows[2:]), ("trainval", rows),
                            ("test", rows[1:])]:
            text(data / f"images_{level}_{split}.txt",
                 "".join(f"{r[0]} {r[1 + li]}\n" for r in pick))
    for level in ("variant", "family", "manufacturer"):
        for split in ("train", "val", "trainval", "test"):
            same_dataset(D.FGVCAircraft(tmp_path, split, level),
                         TD.FGVCAircraft(tmp_path, split, level),
                         ["_labels", "_image_files", "classes", "class_to_idx"])
    same_error(lambda: D.FGVCAircraft(tmp_path / "x"), lambda: TD.FGVCAircraft(tmp_path / "x"))
    same_error(lambda: D.FGVCAircraft(tmp_path, annotation_level="model"),
               lambda: TD.FGVCAircraft(tmp_path, annotation_level="model"), prefix=False)


@pytest.mark.parametrize("target_types", ["category", "segmentation",
                                          ["segmentation", "binary-category"], []])
def test_oxford_iiit_pet_wrapped_for_v2(tmp_path, target_types):
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    from numtorchvision.datasets import wrap_dataset_for_transforms_v2 as nt_wrap

    _pets(tmp_path)
    a = nt_wrap(D.OxfordIIITPet(tmp_path, target_types=target_types))
    b = tv_wrap(TD.OxfordIIITPet(tmp_path, target_types=target_types))
    same_dataset(a, b, repr_too=False)
    if "segmentation" in target_types:
        mask = a[0][1] if target_types == "segmentation" else a[0][1][0]
        assert type(mask).__name__ == "Mask"
