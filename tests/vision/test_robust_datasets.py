"""Corrupt and hostile dataset files, against torchvision on the same files.

MNIST's IDX files with a bad magic number, type, header or length raise a RuntimeError naming
the file (torchvision: an AssertionError, KeyError or a view error that names nothing).
CIFAR batches are pickles, which torchvision hands to ``pickle.load`` (a crafted batch runs
code): numtorchvision builds only plain data and NumPy arrays, and refuses anything else
naming the file. Images Pillow cannot decode raise Pillow's exception as in torchvision, with
the file's path in the message.
"""

import io
import os
import pickle
import struct
import zlib

import numpy as np
import pytest
import torchvision.datasets as TD
from PIL import Image

import numtorchvision.datasets as D
from numtorchvision.datasets._safe_pickle import load_data_pickle

from . import _fabricate as fab


# -- MNIST IDX files -------------------------------------------------------------------------
def _idx(magic, sizes, body):
    return magic + struct.pack(f">{len(sizes)}I", *sizes) + body


_IDX_CASES = {
    "bad_magic": (b"\x01\x02\x08\x03" + b"\0" * 64, "bad magic number"),
    "unknown_type": (_idx(b"\0\0\x07\x03", [1, 2, 2], b"\0" * 4), "type code 7"),
    "zero_dims": (b"\0\0\x08\x00", "0 dimensions"),
    "four_dims": (_idx(b"\0\0\x08\x04", [1, 1, 1, 1], b"\0"), "4 dimensions"),
    "short_header": (b"\0\0\x08\x03\0\0", "truncated header"),
    "truncated_body": (None, "is truncated: its header promises"),
    "product_past_2_63": (_idx(b"\0\0\x08\x03", [2 ** 31, 2 ** 31, 4], b"\0" * 16),
                          "promises 18446744073709551616 values"),
    "labels_as_images": (None, "should have 3 dimension"),
    "empty_file": (b"", "bad magic number"),
}


@pytest.mark.parametrize("case", sorted(_IDX_CASES))
def test_corrupt_mnist_images_file(case, tmp_path):
    files = fab.mnist_files()
    data, words = _IDX_CASES[case]
    name = "train-images-idx3-ubyte"
    if case == "truncated_body":
        data = files[name][:-7]
    elif case == "labels_as_images":
        data = files["train-labels-idx1-ubyte"]
    files[name] = data
    fab.write_files(tmp_path / "MNIST" / "raw", files)
    with pytest.raises((AssertionError, KeyError, RuntimeError, ValueError)):  # own ways
        TD.MNIST(tmp_path)
    cls = ValueError if case == "labels_as_images" else RuntimeError  # torchvision's class
    with pytest.raises(cls, match=words) as info:
        D.MNIST(tmp_path)
    if cls is RuntimeError:
        assert name in str(info.value) and "download it again" in str(info.value)


def test_mnist_label_file_with_wrong_count(tmp_path):
    files = fab.mnist_files()
    files["train-labels-idx1-ubyte"] = files["train-labels-idx1-ubyte"][:-3]
    fab.write_files(tmp_path / "MNIST" / "raw", files)
    with pytest.raises(RuntimeError, match="train-labels-idx1-ubyte is truncated"):
        D.MNIST(tmp_path)


# -- CIFAR pickles -----------------------------------------------------------------------------
def _cifar(monkeypatch, tmp_path, replace=None, protocol=None):
    """A fabricated CIFAR-10 folder (MD5 lists patched to match), ``replace`` giving the
    bytes of some members."""
    base = "cifar-10-batches-py"
    members = fab.cifar_members(base)
    if protocol is not None:
        members = {k: pickle.dumps(pickle.loads(v), protocol=protocol)
                   for k, v in members.items()}
    for name, data in (replace or {}).items():
        members[f"{base}/{name}"] = data
    fab.write_files(tmp_path, members)
    for lib in (D, TD):
        for attr in ("train_list", "test_list"):
            monkeypatch.setattr(lib.CIFAR10, attr, [[n, fab.md5(members[f"{base}/{n}"])]
                                                    for n, _ in getattr(lib.CIFAR10, attr)])
        monkeypatch.setattr(lib.CIFAR10, "meta", dict(
            lib.CIFAR10.meta, md5=fab.md5(members[f"{base}/batches.meta"])))
    return members


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_cifar_pickles_of_every_protocol_load_as_in_torchvision(protocol, tmp_path,
                                                                 monkeypatch):
    _cifar(monkeypatch, tmp_path, protocol=protocol)
    for train in (True, False):
        a, b = D.CIFAR10(tmp_path, train=train), TD.CIFAR10(tmp_path, train=train)
        np.testing.assert_array_equal(a.data, b.data)
        assert a.targets == b.targets and a.classes == b.classes


class _Runs:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("member", ["data_batch_3", "batches.meta"])
def test_cifar_batch_that_runs_code_is_refused(member, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    evil = pickle.dumps({"data": np.zeros((1, 3072), np.uint8), "labels": [0],
                         "label_names": ["x"], "x": _Runs(marker)}, protocol=2)
    _cifar(monkeypatch, tmp_path, {member: evil})
    with pytest.raises(RuntimeError, match=member + ".*asks for the global posix.system"):
        D.CIFAR10(tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize("payload,words", [
    (lambda b: b[:len(b) // 2], "corrupted"),
    (lambda b: b"\x80\x02" + b"]" * 10 + b"(", "corrupted"),
    (lambda b: pickle.dumps([1, 2, 3], protocol=2), "is not a CIFAR batch"),
    (lambda b: pickle.dumps({"data": [1, 2], "labels": [0]}, protocol=2), "is not a CIFAR"),
    (lambda b: pickle.dumps({"data": np.zeros((1, 2), np.uint8), "labels": [0]}, protocol=2),
     "is not a CIFAR"),
    (lambda b: pickle.dumps(collections_ordered_dict(), protocol=2),
     "asks for the global collections.OrderedDict"),
], ids=["truncated", "unclosed_marks", "a_list", "data_not_array", "short_rows",
        "ordered_dict"])
def test_corrupt_cifar_batch_names_the_file(payload, words, tmp_path, monkeypatch):
    original = fab.cifar_members("cifar-10-batches-py")["cifar-10-batches-py/data_batch_2"]
    _cifar(monkeypatch, tmp_path, {"data_batch_2": payload(original)})
    if words.startswith("asks"):
        TD.CIFAR10(tmp_path)  # torchvision's pickle.load builds any class it is told to
    else:
        with pytest.raises((pickle.UnpicklingError, EOFError, TypeError, ValueError)):
            TD.CIFAR10(tmp_path)
    with pytest.raises(RuntimeError, match=words) as info:
        D.CIFAR10(tmp_path)
    assert "data_batch_2" in str(info.value)


def collections_ordered_dict():
    import collections

    return collections.OrderedDict(data=np.zeros((1, 3072), np.uint8), labels=[0])


def test_data_pickle_reader_keeps_plain_data(tmp_path):
    # the LSUN key cache: a list of bytes keys
    path = tmp_path / "_cache_x"
    keys = [b"k%05d" % i for i in range(50)]
    path.write_bytes(pickle.dumps(keys))
    assert load_data_pickle(path) == keys
    path.write_bytes(pickle.dumps([_Runs(tmp_path / "ran")]))
    with pytest.raises(RuntimeError, match="_cache_x.*posix.system"):
        load_data_pickle(path)
    assert not (tmp_path / "ran").exists()


# -- ImageFolder with images Pillow cannot read ----------------------------------------------
def _image_bytes(fmt):
    arr = (np.random.default_rng(0).random((48, 40, 3)) * 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt)
    return buf.getvalue()


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _bomb():
    """A 60000x60000 PNG header over a few bytes of data."""
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 2,
                                                                 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + _chunk(b"IEND", b""))


def _flipped_png():
    data = bytearray(_image_bytes("PNG"))
    data[200] ^= 0xFF
    return bytes(data)


_IMAGES = {
    "truncated.png": lambda: _image_bytes("PNG")[:300],
    "truncated.jpg": lambda: _image_bytes("JPEG")[:400],
    "garbage.png": lambda: b"not an image at all",
    "empty.jpg": lambda: b"",
    "header_only.png": lambda: _image_bytes("PNG")[:40],
    "bit_flip.png": _flipped_png,
    "bomb.png": _bomb,
}


@pytest.mark.parametrize("name", sorted(_IMAGES))
def test_unreadable_image_names_the_file(name, tmp_path):
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "ok.png").write_bytes(_image_bytes("PNG"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / name).write_bytes(_IMAGES[name]())
    outcomes = []
    for lib in (TD, D):
        ds = lib.ImageFolder(tmp_path)
        index = [os.path.basename(p) for p, _ in ds.samples].index(name)
        assert ds[1 - index][0].size == (40, 48)
        with pytest.raises(Exception) as info:
            ds[index]
        outcomes.append((type(info.value), str(info.value)))
    (want_cls, want_msg), (got_cls, got_msg) = outcomes
    assert got_cls is want_cls
    assert got_msg.startswith(want_msg)
    assert str(tmp_path / "bad" / name) in got_msg


def test_unreadable_image_in_a_worker_names_the_file(tmp_path):
    import numtorch
    import numtorchvision.transforms as T

    (tmp_path / "a").mkdir()
    for i in range(4):
        (tmp_path / "a" / f"{i}.png").write_bytes(_image_bytes("PNG"))
    (tmp_path / "a" / "2.png").write_bytes(_image_bytes("PNG")[:300])
    ds = D.ImageFolder(tmp_path, transform=T.ToTensor())
    loader = numtorch.utils.data.DataLoader(ds, batch_size=2, num_workers=1)
    with pytest.raises(OSError, match="image file is truncated") as info:
        list(loader)
    assert str(tmp_path / "a" / "2.png") in str(info.value)
