"""CelebA, Caltech101 and Caltech256 from fabricated files in their real layouts, against
torchvision 0.28 on the same files (targets are int64 tensors / .mat arrays)."""

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import image, mat, same_dataset, same_error, text

ATTRS = ["5_o_Clock_Shadow", "Arched_Eyebrows", "Smiling"]


def _celeba(root):
    base = root / "celeba"
    names = [f"{i:06d}.jpg" for i in range(1, 8)]
    parts = [0, 0, 1, 2, 0, 1, 2]
    rng = np.random.default_rng(0)
    for i, name in enumerate(names):
        image(base / "img_align_celeba" / name, seed=i)

    def rows(values):
        # columns padded with runs of spaces, as in the real files ("000001.jpg -1  1  1")
        return "".join(f"{n} " + " ".join(f"{int(v):>2}" for v in row) + "\n"
                       for n, row in zip(names, values))
    text(base / "list_eval_partition.txt", rows([[p] for p in parts]))
    text(base / "identity_CelebA.txt", rows(rng.integers(1, 50, (7, 1))))
    text(base / "list_bbox_celeba.txt", "7\nimage_id x_1 y_1 width height\n"
         + rows(rng.integers(0, 300, (7, 4))))
    text(base / "list_landmarks_align_celeba.txt",
         "7\nlefteye_x lefteye_y righteye_x righteye_y nose_x nose_y leftmouth_x leftmouth_y "
         "rightmouth_x rightmouth_y\n" + rows(rng.integers(0, 200, (7, 10))))
    text(base / "list_attr_celeba.txt", "7\n" + " ".join(ATTRS) + " \n"
         + rows(rng.choice([-1, 1], (7, 3))))
    return [(fid, md5 if name.endswith(".zip") else fab.md5(base / name), name)
            for fid, md5, name in TD.CelebA.file_list]


@pytest.fixture
def celeba(tmp_path, monkeypatch):
    files = _celeba(tmp_path)
    same_error(lambda: D.CelebA(tmp_path), lambda: TD.CelebA(tmp_path))
    for lib in (D, TD):
        monkeypatch.setattr(lib.CelebA, "file_list", files)
    return tmp_path


@pytest.mark.parametrize("split", ["train", "valid", "test", "all"])
@pytest.mark.parametrize("target_type", ["attr", "identity", "bbox", "landmarks",
                                         ["identity", "attr"], []])
def test_celeba(celeba, split, target_type):
    same_dataset(D.CelebA(celeba, split, target_type), TD.CelebA(celeba, split, target_type),
                 ["filename", "identity", "bbox", "landmarks_align", "attr", "attr_names",
                  "target_type", "split"])


def test_celeba_errors(celeba):
    same_error(lambda: D.CelebA(celeba, "val"), lambda: TD.CelebA(celeba, "val"), prefix=False)
    same_error(lambda: D.CelebA(celeba, target_type=[], target_transform=int),
               lambda: TD.CelebA(celeba, target_type=[], target_transform=int), prefix=False)
    same_error(lambda: D.CelebA(celeba, target_type="age")[0],
               lambda: TD.CelebA(celeba, target_type="age")[0], prefix=False)
    (celeba / "celeba" / "identity_CelebA.txt").write_text("damaged")
    same_error(lambda: D.CelebA(celeba), lambda: TD.CelebA(celeba))


def _caltech101(root):
    base = root / "caltech101"
    for ci, cls in enumerate(["Faces", "BACKGROUND_Google", "accordion", "airplanes"]):
        for j in range(1, 3 + ci % 2):
            image(base / "101_ObjectCategories" / cls / f"image_{j:04d}.jpg", seed=ci + j,
                  mode="L" if j == 2 else "RGB")
            ann = {"Faces": "Faces_2", "airplanes": "Airplanes_Side_2"}.get(cls, cls)
            contour = np.random.default_rng(j).random((2, 3 + j))
            mat(base / "Annotations" / ann / f"annotation_{j:04d}.mat", obj_contour=contour,
                box_coord=np.array([[1, 2, 3, 4]], np.uint16))


@pytest.mark.parametrize("target_type", ["category", "annotation", ["annotation", "category"]])
def test_caltech101(tmp_path, target_type):
    _caltech101(tmp_path)
    same_dataset(D.Caltech101(tmp_path, target_type), TD.Caltech101(tmp_path, target_type),
                 ["categories", "annotation_categories", "index", "y", "target_type", "root"])


def test_caltech101_errors(tmp_path):
    same_error(lambda: D.Caltech101(tmp_path), lambda: TD.Caltech101(tmp_path))
    same_error(lambda: D.Caltech101(tmp_path, "box"), lambda: TD.Caltech101(tmp_path, "box"),
               prefix=False)


def test_caltech256(tmp_path):
    base = tmp_path / "caltech256" / "256_ObjectCategories"
    for ci, cls in enumerate(["001.ak47", "002.american-flag", "257.clutter"]):
        label = int(cls[:3]) if ci < 2 else 3
        for j in range(1, 3):
            image(base / cls / f"{label:03d}_{j:04d}.jpg", seed=ci + j,
                  mode="L" if j == 1 else "RGB")
        text(base / cls / "notes.txt", "not an image")
    same_dataset(D.Caltech256(tmp_path), TD.Caltech256(tmp_path),
                 ["categories", "index", "y", "root"])
    same_error(lambda: D.Caltech256(tmp_path / "x"), lambda: TD.Caltech256(tmp_path / "x"))


@pytest.mark.parametrize("target_type", ["bbox", "identity", ["bbox", "identity"], [], "attr",
                                         ["identity", "landmarks"]])
def test_celeba_wrapped_for_v2(celeba, target_type):
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    from numtorchvision.datasets import wrap_dataset_for_transforms_v2 as nt_wrap

    def make(wrap, lib):
        return wrap(lib.CelebA(celeba, "all", target_type))

    if "attr" in target_type or "landmarks" in target_type:
        same_error(lambda: make(nt_wrap, D), lambda: make(tv_wrap, TD), prefix=False)
        return
    a, b = make(nt_wrap, D), make(tv_wrap, TD)
    same_dataset(a, b, repr_too=False)
    bbox = (a[2][1] if target_type == "bbox" else a[2][1][0]) if "bbox" in target_type else None
    if bbox is not None:
        assert type(bbox).__name__ == "BoundingBoxes" and str(bbox.format).endswith("XYXY")


@pytest.mark.parametrize("target_type", ["category", "annotation"])
def test_caltech_wrapped_for_v2(tmp_path, target_type):
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    from numtorchvision.datasets import wrap_dataset_for_transforms_v2 as nt_wrap

    _caltech101(tmp_path)
    if target_type == "annotation":
        same_error(lambda: nt_wrap(D.Caltech101(tmp_path, target_type)),
                   lambda: tv_wrap(TD.Caltech101(tmp_path, target_type)), prefix=False)
    else:
        same_dataset(nt_wrap(D.Caltech101(tmp_path, target_type)),
                     tv_wrap(TD.Caltech101(tmp_path, target_type)), repr_too=False)
