"""Datasets read from fabricated files in the real on-disk formats, against torchvision on the
same files: length, items (PIL pixels, targets), classes and the data attributes, reprs."""

import os
import pickle
import warnings

import numpy as np
import pytest
import torch
import torchvision.datasets as TD
import torchvision.transforms as TT

import numtorch
import numtorchvision.datasets as D
import numtorchvision.transforms as T

from . import _fabricate as fab
from ._helpers import assert_same_image, to_np


def same_items(a, b, indices=None):
    assert len(a) == len(b)
    for i in (range(len(a)) if indices is None else indices):
        (x, y), (u, v) = a[i], b[i]
        if isinstance(u, torch.Tensor):
            assert_same_image(x, u)
        else:
            assert_same_image(x, u)
        assert type(y) is type(v) and y == v, (i, y, v)


def same_array(a, b):
    np.testing.assert_array_equal(to_np(a), to_np(b))
    if isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor) and str(a.dtype) == str(b.dtype)
    elif isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype
    else:
        assert type(a) is type(b)


@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
def test_mnist_family(tmp_path, name):
    fab.write_files(tmp_path / name / "raw", fab.mnist_files())
    for train in (True, False):
        a = getattr(D, name)(str(tmp_path), train=train)
        b = getattr(TD, name)(str(tmp_path), train=train)
        same_items(a, b)
        same_array(a.data, b.data)
        same_array(a.targets, b.targets)
        assert a.classes == b.classes and a.class_to_idx == b.class_to_idx
        assert repr(a) == repr(b)
        assert a.raw_folder == b.raw_folder and a.processed_folder == b.processed_folder
    a = D.MNIST(tmp_path, transform=T.ToTensor(), target_transform=lambda t: t + 1) \
        if name == "MNIST" else None
    if a is not None:
        b = TD.MNIST(tmp_path, transform=TT.ToTensor(), target_transform=lambda t: t + 1)
        x, y = a[3]
        u, v = b[3]
        np.testing.assert_array_equal(x.numpy(), u.numpy())
        assert y == v
        with pytest.warns(UserWarning, match="renamed"):
            assert a.train_labels is a.targets


def test_mnist_legacy_processed_files(tmp_path):
    images, labels = fab.mnist_arrays(12)
    proc = tmp_path / "MNIST" / "processed"
    proc.mkdir(parents=True)
    for fname in ("training.pt", "test.pt"):
        torch.save((torch.from_numpy(images), torch.from_numpy(labels.astype(np.int64))),
                   proc / fname)
    a, b = D.MNIST(tmp_path), TD.MNIST(tmp_path)
    same_items(a, b)
    same_array(a.targets, b.targets)


def test_emnist_and_qmnist(tmp_path):
    files = {}
    for split in ("train", "test"):
        images, labels = fab.mnist_arrays(15, seed=3 if split == "train" else 4)
        files[f"emnist-letters-{split}-images-idx3-ubyte"] = fab.idx_bytes(images)
        files[f"emnist-letters-{split}-labels-idx1-ubyte"] = fab.idx_bytes(labels)
    fab.write_files(tmp_path / "EMNIST" / "raw", files)
    for train in (True, False):
        a = D.EMNIST(tmp_path, split="letters", train=train)
        b = TD.EMNIST(tmp_path, split="letters", train=train)
        same_items(a, b)
        assert a.classes == b.classes and repr(a) == repr(b)
    for split in TD.EMNIST.splits:
        assert D.EMNIST.classes_split_dict[split] == TD.EMNIST.classes_split_dict[split]
    with pytest.raises(ValueError, match="Unknown value 'nope' for argument split"):
        D.EMNIST(tmp_path, split="nope")

    images, _ = fab.mnist_arrays(30, seed=5)
    extended = np.random.default_rng(6).integers(0, 1000, size=(30, 8)).astype(np.int32)
    fab.write_files(tmp_path / "QMNIST" / "raw", {
        "qmnist-test-images-idx3-ubyte": fab.idx_bytes(images),
        "qmnist-test-labels-idx2-int": fab.idx_bytes(extended)})
    for what, compat in (("test", True), ("test", False)):
        a = D.QMNIST(tmp_path, what=what, compat=compat)
        b = TD.QMNIST(tmp_path, what=what, compat=compat)
        if compat:
            same_items(a, b)
        else:
            for i in range(len(b)):
                assert_same_image(a[i][0], b[i][0])
                same_array(a[i][1], b[i][1])
        same_array(a.targets, b.targets)
        assert repr(a) == repr(b)


def _patch_cifar(monkeypatch, tmp_path, hundred=False):
    base = "cifar-100-python" if hundred else "cifar-10-batches-py"
    members = fab.cifar_members(base, hundred=hundred, classes=100 if hundred else 10)
    fab.write_files(tmp_path, members)
    for lib in (D, TD):
        cls = getattr(lib, "CIFAR100" if hundred else "CIFAR10")
        for attr in ("train_list", "test_list"):
            monkeypatch.setattr(cls, attr, [[n, fab.md5(members[f"{base}/{n}"])]
                                            for n, _ in getattr(cls, attr)])
        meta = dict(cls.meta, md5=fab.md5(members[f"{base}/{cls.meta['filename']}"]))
        monkeypatch.setattr(cls, "meta", meta)
    return members


@pytest.mark.parametrize("hundred", [False, True])
def test_cifar(tmp_path, monkeypatch, hundred):
    _patch_cifar(monkeypatch, tmp_path, hundred)
    name = "CIFAR100" if hundred else "CIFAR10"
    for train in (True, False):
        a = getattr(D, name)(tmp_path, train=train)
        b = getattr(TD, name)(tmp_path, train=train)
        same_items(a, b, indices=range(0, len(b), 7))
        same_array(a.data, b.data)
        same_array(a.targets, b.targets)
        assert a.classes == b.classes and a.class_to_idx == b.class_to_idx
        assert repr(a) == repr(b)


def test_cifar_corrupt_batch_is_reported(tmp_path, monkeypatch):
    _patch_cifar(monkeypatch, tmp_path)
    with open(tmp_path / "cifar-10-batches-py" / "data_batch_2", "ab") as f:
        f.write(b"x")
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted. You can use "
                                           "download=True to download it .*data_batch_2 has "
                                           "MD5 .*, expected"):
        D.CIFAR10(tmp_path)


def test_svhn(tmp_path, monkeypatch):
    scipy_io = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, size=(32, 32, 3, 9)).astype(np.uint8)
    y = rng.integers(1, 11, size=(9, 1)).astype(np.uint8)
    scipy_io.savemat(tmp_path / "test_32x32.mat", {"X": x, "y": y})
    for lib in (D, TD):
        table = dict(lib.SVHN.split_list)
        table["test"] = [table["test"][0], "test_32x32.mat", fab.md5(tmp_path / "test_32x32.mat")]
        monkeypatch.setattr(lib.SVHN, "split_list", table)
    a, b = D.SVHN(tmp_path, split="test"), TD.SVHN(tmp_path, split="test")
    same_items(a, b)
    same_array(a.data, b.data)
    same_array(a.labels, b.labels)
    assert 0 in a.labels and repr(a) == repr(b)


def test_stl10(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    base = tmp_path / "stl10_binary"
    files = {"train_X.bin": rng.integers(0, 256, 4 * 27648).astype(np.uint8).tobytes(),
             "train_y.bin": rng.integers(1, 11, 4).astype(np.uint8).tobytes(),
             "unlabeled_X.bin": rng.integers(0, 256, 3 * 27648).astype(np.uint8).tobytes(),
             "test_X.bin": rng.integers(0, 256, 2 * 27648).astype(np.uint8).tobytes(),
             "test_y.bin": rng.integers(1, 11, 2).astype(np.uint8).tobytes(),
             "class_names.txt": "\n".join(f"c{i}" for i in range(10)).encode(),
             "fold_indices.txt": "\n".join(" ".join(str(j) for j in range(i % 3, 4, 2))
                                           for i in range(10)).encode()}
    fab.write_files(base, files)
    for lib in (D, TD):
        for attr in ("train_list", "test_list"):
            monkeypatch.setattr(lib.STL10, attr, [[n, fab.md5(files[n])]
                                                  for n, _ in getattr(lib.STL10, attr)])
    for split, folds in (("train", None), ("train", 1), ("test", None), ("unlabeled", None),
                         ("train+unlabeled", 2)):
        a = D.STL10(tmp_path, split=split, folds=folds)
        b = TD.STL10(tmp_path, split=split, folds=folds)
        same_items(a, b)
        same_array(a.data, b.data)
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.classes == b.classes and repr(a) == repr(b)
    with pytest.raises(ValueError, match="folds"):
        D.STL10(tmp_path, folds=10)


def test_image_folder_and_dataset_folder(tmp_path):
    fab.image_folder(tmp_path)
    a, b = D.ImageFolder(tmp_path), TD.ImageFolder(tmp_path)
    assert a.classes == b.classes and a.class_to_idx == b.class_to_idx
    assert a.samples == b.samples and a.imgs == b.imgs and a.targets == b.targets
    same_items(a, b)
    assert repr(a) == repr(b)
    only_png = lambda p: p.lower().endswith(".png")
    a = D.ImageFolder(tmp_path, is_valid_file=only_png)
    b = TD.ImageFolder(tmp_path, is_valid_file=only_png)
    assert a.samples == b.samples
    a = D.DatasetFolder(tmp_path, loader=lambda p: os.path.getsize(p), extensions=(".txt",))
    b = TD.DatasetFolder(tmp_path, loader=lambda p: os.path.getsize(p), extensions=(".txt",))
    assert a.samples == b.samples and [a[i] for i in range(len(a))] == [b[i] for i in
                                                                         range(len(b))]
    assert D.folder.find_classes(tmp_path) == TD.folder.find_classes(tmp_path)
    assert D.folder.make_dataset(tmp_path, extensions=".jpg") == TD.folder.make_dataset(
        tmp_path, extensions=".jpg")
    for fn, args in ((D.folder.default_loader, ()), (TD.folder.default_loader, ())):
        assert fn(a.samples[0][0].replace("notes.txt", "img0.png")).mode == "RGB"


def test_image_folder_errors_and_allow_empty(tmp_path):
    fab.image_folder(tmp_path)
    (tmp_path / "empty").mkdir()
    for lib in (D, TD):
        with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty"):
            lib.ImageFolder(tmp_path)
    a = D.ImageFolder(tmp_path, allow_empty=True)
    b = TD.ImageFolder(tmp_path, allow_empty=True)
    assert a.classes == b.classes and a.samples == b.samples
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        D.ImageFolder(tmp_path / "empty")
    with pytest.raises(ValueError, match="Both extensions and is_valid_file"):
        D.DatasetFolder(tmp_path, loader=open)
    with pytest.raises(ValueError, match="Both extensions and is_valid_file"):
        D.folder.make_dataset(tmp_path, extensions=".png", is_valid_file=bool)


def test_fakedata():
    a = D.FakeData(size=5, image_size=(3, 8, 9), num_classes=4, transform=T.ToTensor())
    assert len(a) == 5
    x0, y0 = a[0]
    assert tuple(x0.shape) == (3, 8, 9) and isinstance(y0, int) and 0 <= y0 < 4
    numtorch.manual_seed(9)
    before = numtorch.rand(1)
    numtorch.manual_seed(9)
    x1, _ = a[0]
    np.testing.assert_array_equal(x0.numpy(), x1.numpy())  # the same image for an index
    assert numtorch.rand(1).item() == before.item()  # and the global stream is untouched
    with pytest.raises(IndexError, match="FakeData index out of range"):
        a[5]
    assert repr(D.FakeData(size=3)) == repr(TD.FakeData(size=3))
    pipeline = (T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]), T.Lambda(abs))
    tv_pipeline = (TT.Compose([TT.ToTensor(), TT.Normalize([0.5], [0.5])]), TT.Lambda(abs))
    assert repr(D.FakeData(3, transform=pipeline[0], target_transform=pipeline[1])) == repr(
        TD.FakeData(3, transform=tv_pipeline[0], target_transform=tv_pipeline[1]))
    img, _ = D.FakeData(size=2, image_size=(1, 4, 4))[1]
    assert img.mode == "L" and img.size == (4, 4)


def _lsun_db(path, arrays):
    lmdb = pytest.importorskip("lmdb")
    env = lmdb.open(str(path), map_size=1 << 24)
    with env.begin(write=True) as txn:
        for i, arr in enumerate(arrays):
            txn.put(f"{i:040x}".encode(), fab.png_bytes(arr, "WEBP" if i % 2 else "PNG"))
    env.close()


@pytest.mark.parametrize("builtin_reader", [False, True])
def test_lsun(tmp_path, monkeypatch, builtin_reader):
    rng = np.random.default_rng(0)
    _lsun_db(tmp_path / "bedroom_val_lmdb", [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8)
                                             for _ in range(3)])
    _lsun_db(tmp_path / "tower_val_lmdb", [rng.integers(0, 256, (5, 9, 3)).astype(np.uint8)
                                           for _ in range(2)])
    monkeypatch.chdir(tmp_path)  # the key cache goes to the working directory
    b = TD.LSUN(str(tmp_path), classes=["bedroom_val", "tower_val"])
    expected = [b[i] for i in range(len(b))]
    b_classes, b_repr = b.classes, repr(b)
    for db in b.dbs:
        db.env.close()  # lmdb opens an environment once per process
    for f in tmp_path.glob("_cache_*"):
        f.unlink()
    if builtin_reader:
        import sys

        monkeypatch.setitem(sys.modules, "lmdb", None)  # as if the package were missing
    a = D.LSUN(str(tmp_path), classes=["bedroom_val", "tower_val"])
    same_items(a, expected)
    assert a.classes == b_classes and repr(a) == b_repr
    assert list(tmp_path.glob("_cache_*"))  # written like torchvision's
    with pytest.raises(ValueError, match="Unknown value 'kitchens' for LSUN class"):
        D.LSUN(str(tmp_path), classes=["kitchens_val"])
    with pytest.raises(ValueError, match="postfix"):
        D.LSUN(str(tmp_path), classes=["kitchen_vl"])


@pytest.mark.parametrize("captions", [False, True])
def test_coco(tmp_path, captions):
    pytest.importorskip("pycocotools")  # torchvision's oracle needs it; numtorchvision doesn't
    ann = fab.coco(tmp_path, captions=captions)
    name = "CocoCaptions" if captions else "CocoDetection"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints progress
            b = getattr(TD, name)(str(tmp_path), ann)
    a = getattr(D, name)(str(tmp_path), ann)
    assert a.ids == b.ids
    for i in range(len(b)):
        assert_same_image(a[i][0], b[i][0])
        assert a[i][1] == b[i][1]
    assert repr(a) == repr(b)
    c = a.coco
    assert c.getImgIds() == b.coco.getImgIds()
    if not captions:
        assert c.getCatIds(catNms=["b"]) == b.coco.getCatIds(catNms=["b"])
        assert sorted(c.getImgIds(catIds=[1])) == sorted(b.coco.getImgIds(catIds=[1]))
        assert c.getAnnIds(imgIds=b.ids[:2], iscrowd=0) == b.coco.getAnnIds(imgIds=b.ids[:2],
                                                                              iscrowd=0)
        assert c.loadCats(c.getCatIds()) == b.coco.loadCats(b.coco.getCatIds())
    with pytest.raises(ValueError, match="Index must be of type integer"):
        a[np.int64(0).item() + 0.5]


def test_missing_dataset_messages(tmp_path):
    for cls, args in ((D.MNIST, ()), (D.CIFAR10, ()), (D.STL10, ()), (D.SVHN, ()),
                      (D.FashionMNIST, ()), (D.EMNIST, ("digits",)), (D.QMNIST, ())):
        with pytest.raises(RuntimeError, match=r"download=True to download it \(missing: "):
            cls(tmp_path, *args)


def test_truncated_idx_file_names_the_file(tmp_path):
    files = fab.mnist_files()
    files["train-images-idx3-ubyte"] = files["train-images-idx3-ubyte"][:-100]
    fab.write_files(tmp_path / "MNIST" / "raw", files)
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte is truncated.*download it"):
        D.MNIST(tmp_path)
    files["train-images-idx3-ubyte"] = b"\x08\x03garbage"
    fab.write_files(tmp_path / "MNIST" / "raw", files)
    with pytest.raises(RuntimeError, match="not a valid IDX file"):
        D.MNIST(tmp_path)


def test_dataloader_with_workers_over_image_folder(tmp_path):
    fab.image_folder(tmp_path, per_class=4)
    ds = D.ImageFolder(tmp_path, transform=T.Compose([T.RandomResizedCrop(8), T.ToTensor()]))
    loader = numtorch.utils.data.DataLoader(ds, batch_size=4, num_workers=2, shuffle=True)
    seen = 0
    for x, y in loader:
        assert tuple(x.shape[1:]) == (3, 8, 8) and x.dtype == numtorch.float32
        seen += x.shape[0]
    assert seen == len(ds)
    assert pickle.loads(pickle.dumps(ds)).samples == ds.samples


def test_download_locations_and_checksums_are_torchvision_s():
    attrs = {
        "MNIST": ("mirrors", "resources", "classes", "training_file", "test_file"),
        "FashionMNIST": ("mirrors", "resources", "classes"),
        "KMNIST": ("mirrors", "resources", "classes"),
        "EMNIST": ("url", "md5", "splits", "classes_split_dict"),
        "QMNIST": ("subsets", "resources", "classes"),
        "CIFAR10": ("base_folder", "url", "filename", "tgz_md5", "train_list", "test_list",
                    "meta"),
        "CIFAR100": ("base_folder", "url", "filename", "tgz_md5", "train_list", "test_list",
                     "meta"),
        "SVHN": ("split_list",),
        "STL10": ("base_folder", "url", "filename", "tgz_md5", "class_names_file",
                  "folds_list_file", "train_list", "test_list", "splits"),
    }
    for name, fields in attrs.items():
        for field in fields:
            assert getattr(getattr(D, name), field) == getattr(getattr(TD, name), field), \
                (name, field)
    assert D.folder.IMG_EXTENSIONS == TD.folder.IMG_EXTENSIONS
