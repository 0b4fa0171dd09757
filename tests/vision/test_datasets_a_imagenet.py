"""ImageNet from fabricated ILSVRC2012 archives (devkit with meta.mat and the validation
ground truth, the flat val tar, the train tar of per-class tars), against torchvision 0.28:
the unpacked layout, meta.bin (each library reads the other's), items and attributes."""

import io
import os

import numpy as np
import pytest
import torchvision.datasets as TD
import torchvision.datasets.imagenet as tv_imagenet

import numtorchvision.datasets as D
import numtorchvision.datasets.imagenet as nt_imagenet

from . import _fabricate as fab
from ._datasets_a import file_tree, same_dataset, same_error, tar_bytes

WNIDS = ["n01440764", "n02102040", "n01443537"]
WORDS = ["tench, Tinca tinca", "English springer, English springer spaniel", "goldfish"]


def _meta_mat():
    import scipy.io

    fields = [("ILSVRC2012_ID", "O"), ("WNID", "O"), ("words", "O"), ("gloss", "O"),
              ("num_children", "O")]
    synsets = np.zeros((4, 1), dtype=fields)
    for i, (wnid, words) in enumerate(zip(WNIDS, WORDS)):
        synsets[i, 0] = (i + 1, wnid, words, "a gloss", 0)
    synsets[3, 0] = (1001, "n00001740", "entity", "root", 3)  # not a class: has children
    buf = io.BytesIO()
    scipy.io.savemat(buf, {"synsets": synsets})
    return buf.getvalue()


def _archives(root):
    rng = np.random.default_rng(0)

    def jpeg():
        return fab.png_bytes(rng.integers(0, 256, (9, 7, 3)).astype(np.uint8), "JPEG")

    val_labels = [2, 1, 3, 1, 2]
    devkit = tar_bytes({"ILSVRC2012_devkit_t12/data/meta.mat": _meta_mat(),
                   "ILSVRC2012_devkit_t12/data/ILSVRC2012_validation_ground_truth.txt":
                       "".join(f"{k}\n" for k in val_labels).encode()}, gz=True)
    val = tar_bytes({f"ILSVRC2012_val_{i + 1:08d}.JPEG": jpeg() for i in range(len(val_labels))})
    train = tar_bytes({f"{wnid}.tar": tar_bytes({f"{wnid}_{j}.JPEG": jpeg() for j in range(2)})
                  for wnid in WNIDS})
    meta = {}
    for kind, data in (("devkit", devkit), ("val", val), ("train", train)):
        name = tv_imagenet.ARCHIVE_META[kind][0]
        (root / name).write_bytes(data)
        meta[kind] = (name, fab.md5(data))
    return meta


@pytest.fixture
def archives(tmp_path, monkeypatch):
    roots = {}
    for lib, mod in (("nt", nt_imagenet), ("tv", tv_imagenet)):
        roots[lib] = tmp_path / lib
        roots[lib].mkdir()
        meta = _archives(roots[lib])
        monkeypatch.setattr(mod, "ARCHIVE_META", meta)
    return roots


@pytest.mark.parametrize("split", ["val", "train"])
def test_imagenet_from_archives(archives, split):
    a = D.ImageNet(archives["nt"], split)
    b = TD.ImageNet(archives["tv"], split)
    assert file_tree(archives["nt"]) == file_tree(archives["tv"])
    same_dataset(a, b, ["classes", "class_to_idx", "wnids", "wnid_to_idx", "targets", "split"],
                 repr_too=False)
    assert repr(a).replace("/nt", "/tv") == repr(b)
    assert [os.path.relpath(p, archives["nt"]) for p, _ in a.imgs] == [
        os.path.relpath(p, archives["tv"]) for p, _ in b.imgs]
    # each library reads the meta.bin the other wrote
    assert nt_imagenet.load_meta_file(archives["tv"]) == tv_imagenet.load_meta_file(archives["nt"])
    name_only = lambda p: os.path.basename(p)  # noqa: E731
    same_dataset(D.ImageNet(archives["nt"], split, loader=name_only, target_transform=str),
                 TD.ImageNet(archives["tv"], split, loader=name_only, target_transform=str),
                 repr_too=False)
    # second time: the unpacked folders are used as they are
    os.remove(archives["nt"] / tv_imagenet.ARCHIVE_META[split][0])
    same_dataset(D.ImageNet(archives["nt"], split), a, repr_too=False)


def test_imagenet_errors(tmp_path, archives):
    empty = tmp_path / "empty"
    empty.mkdir()
    same_error(lambda: D.ImageNet(empty), lambda: TD.ImageNet(empty), prefix=False)
    same_error(lambda: D.ImageNet(archives["nt"], "test"),
               lambda: TD.ImageNet(archives["tv"], "test"), prefix=False)
    same_error(lambda: nt_imagenet.load_meta_file(empty),
               lambda: tv_imagenet.load_meta_file(empty), prefix=False)
    (archives["nt"] / tv_imagenet.ARCHIVE_META["devkit"][0]).write_bytes(b"truncated")
    (archives["tv"] / tv_imagenet.ARCHIVE_META["devkit"][0]).write_bytes(b"truncated")
    with pytest.raises(RuntimeError) as ea:
        D.ImageNet(archives["nt"])
    with pytest.raises(RuntimeError) as eb:
        TD.ImageNet(archives["tv"])
    assert str(ea.value).replace("/nt", "/tv") == str(eb.value)
