"""VOC, SBD, Cityscapes, WIDERFace and Kitti against torchvision 0.28 on small datasets
fabricated in the real on-disk layouts (tests/vision/_fabricate_b.py)."""

import os

import numpy as np
import pytest
import torch
import torchvision.datasets as TD

import numtorch
import numtorchvision.datasets as D

from . import _fabricate_b as fab
from ._helpers import assert_same_image


def assert_same(a, b):
    """Equal samples: nested tuples/lists/dicts of PIL images, tensors, arrays and scalars."""
    from PIL import Image

    if isinstance(b, Image.Image):
        assert_same_image(a, b)
    elif isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor), type(a)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype, (type(a), b.dtype)
        np.testing.assert_array_equal(a, b)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), (a.keys(), b.keys())
        for key in b:
            assert_same(a[key], b[key])
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        assert type(a) is type(b) and a == b, (a, b)


def assert_same_dataset(a, b):
    assert len(a) == len(b) > 0
    for i in range(len(b)):
        assert_same(a[i], b[i])


def raises_alike(make_a, make_b):
    """Both constructors raise the same exception class with the same message."""
    with pytest.raises(Exception) as eb:
        make_b()
    with pytest.raises(type(eb.value)) as ea:
        make_a()
    assert str(ea.value) == str(eb.value)
    return str(eb.value)


@pytest.fixture(scope="module")
def voc_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("voc"))
    fab.voc_tree(root)
    fab.voc_tree(root, base_dir="VOCdevkit/VOC2007")
    fab.voc_tree(root, base_dir="TrainVal/VOCdevkit/VOC2011")
    return root


@pytest.mark.parametrize("name", ["VOCDetection", "VOCSegmentation"])
@pytest.mark.parametrize("year,image_set", [("2012", "train"), ("2012", "val"),
                                            ("2007", "test"), ("2011", "trainval")])
def test_voc_samples(voc_root, name, year, image_set):
    a = getattr(D, name)(voc_root, year=year, image_set=image_set)
    b = getattr(TD, name)(voc_root, year=year, image_set=image_set)
    assert_same_dataset(a, b)
    assert (a.images, a.targets, a.year, a.image_set, a.url, a.filename, a.md5) == \
        (b.images, b.targets, b.year, b.image_set, b.url, b.filename, b.md5)
    extra = "annotations" if name == "VOCDetection" else "masks"
    assert getattr(a, extra) == getattr(b, extra)
    assert repr(a) == repr(b)


def test_voc_xml_parser_and_transforms(voc_root):
    from xml.etree.ElementTree import fromstring

    for xml in ("<annotation><object><name>a</name></object></annotation>",
                "<annotation><size><w>3</w></size><object/><object><n>x</n></object>"
                "<x> </x><y></y></annotation>",
                "<root><a>1</a><a>2</a><b><c/></b></root>"):
        assert D.VOCDetection.parse_voc_xml(fromstring(xml)) == \
            TD.VOCDetection.parse_voc_xml(fromstring(xml))
    a = D.VOCDetection(voc_root, transforms=lambda i, t: (i.size, len(t["annotation"])))
    b = TD.VOCDetection(voc_root, transforms=lambda i, t: (i.size, len(t["annotation"])))
    assert a[1] == b[1]
    a = D.VOCSegmentation(voc_root, transform=lambda i: i.size, target_transform=lambda t: t.mode)
    assert a[0] == (b[0][0], "P")


@pytest.mark.parametrize("kw", [dict(year="2013"), dict(year=2012), dict(image_set="test"),
                                dict(year="2010"), dict(image_set="bogus", year="2007")])
def test_voc_errors(voc_root, kw):
    raises_alike(lambda: D.VOCSegmentation(voc_root, **kw),
                 lambda: TD.VOCSegmentation(voc_root, **kw))


def test_sbd(tmp_path):
    fab.sbd_tree(str(tmp_path))
    for image_set in ("train", "val", "train_noval"):
        for mode in ("boundaries", "segmentation"):
            a = D.SBDataset(tmp_path, image_set=image_set, mode=mode)
            b = TD.SBDataset(tmp_path, image_set=image_set, mode=mode)
            assert_same_dataset(a, b)
            assert (a.images, a.masks, a.num_classes) == (b.images, b.masks, b.num_classes)
            assert repr(a) == repr(b)
    for kw in (dict(mode="x"), dict(image_set="test"), dict(image_set=1)):
        raises_alike(lambda: D.SBDataset(tmp_path, **kw), lambda: TD.SBDataset(tmp_path, **kw))
    raises_alike(lambda: D.SBDataset(tmp_path / "none"), lambda: TD.SBDataset(tmp_path / "none"))


@pytest.fixture(scope="module")
def cityscapes_root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("cityscapes"))
    fab.cityscapes_tree(root)
    return root


@pytest.mark.parametrize("mode,split", [("fine", "train"), ("fine", "test"),
                                        ("coarse", "train_extra"), ("coarse", "val")])
@pytest.mark.parametrize("target_type", ["instance", "semantic", "color", "polygon",
                                         ["semantic", "polygon", "instance", "color"]])
def test_cityscapes(cityscapes_root, mode, split, target_type):
    a = D.Cityscapes(cityscapes_root, split=split, mode=mode, target_type=target_type)
    b = TD.Cityscapes(cityscapes_root, split=split, mode=mode, target_type=target_type)
    assert_same_dataset(a, b)
    assert (a.images, a.targets, a.mode, a.target_type) == \
        (b.images, b.targets, b.mode, b.target_type)
    assert repr(a) == repr(b)


def test_cityscapes_classes_and_errors(cityscapes_root, tmp_path):
    assert [tuple(c) for c in D.Cityscapes.classes] == [tuple(c) for c in TD.Cityscapes.classes]
    assert D.Cityscapes.CityscapesClass._fields == TD.Cityscapes.CityscapesClass._fields
    for kw in (dict(mode="medium"), dict(split="train_extra"), dict(mode="coarse", split="test"),
               dict(target_type="depth"), dict(target_type=["color", 3])):
        raises_alike(lambda: D.Cityscapes(cityscapes_root, **kw),
                     lambda: TD.Cityscapes(cityscapes_root, **kw))
    raises_alike(lambda: D.Cityscapes(tmp_path), lambda: TD.Cityscapes(tmp_path))


def test_cityscapes_unpacks_the_zips(cityscapes_root, tmp_path):
    import shutil

    for lib, sub in ((D, "nt"), (TD, "tv")):
        root = tmp_path / sub
        root.mkdir()
        shutil.make_archive(str(root / "leftImg8bit_trainvaltest"), "zip", cityscapes_root,
                            "leftImg8bit")
        shutil.make_archive(str(root / "gtFine_trainvaltest"), "zip", cityscapes_root, "gtFine")
        ds = lib.Cityscapes(root, split="val", target_type="semantic")
        assert len(ds) == 4 and os.path.isdir(root / "gtFine" / "val")
    assert_same_dataset(D.Cityscapes(tmp_path / "nt", split="val", target_type="semantic"),
                        TD.Cityscapes(tmp_path / "tv", split="val", target_type="semantic"))


def test_widerface(tmp_path):
    fab.widerface_tree(str(tmp_path))
    for split in ("train", "val", "test"):
        a, b = D.WIDERFace(tmp_path, split=split), TD.WIDERFace(tmp_path, split=split)
        assert_same_dataset(a, b)
        assert repr(a) == repr(b) and a.root == b.root
    a = D.WIDERFace(tmp_path, transform=lambda i: i.mode, target_transform=lambda t: len(t["bbox"]))
    b = TD.WIDERFace(tmp_path, transform=lambda i: i.mode, target_transform=lambda t: len(t["bbox"]))
    assert_same_dataset(a, b)
    raises_alike(lambda: D.WIDERFace(tmp_path, split="dev"), lambda: TD.WIDERFace(tmp_path, split="dev"))
    raises_alike(lambda: D.WIDERFace(tmp_path / "x"), lambda: TD.WIDERFace(tmp_path / "x"))


def test_kitti(tmp_path):
    fab.kitti_tree(str(tmp_path))
    for train in (True, False):
        a, b = D.Kitti(tmp_path, train=train), TD.Kitti(tmp_path, train=train)
        assert_same_dataset(a, b)
        assert (a.images, a.targets, a._location) == (b.images, b.targets, b._location)
    t = lambda i, t: (i.size, t)
    assert_same_dataset(D.Kitti(tmp_path, transforms=t), TD.Kitti(tmp_path, transforms=t))
    raises_alike(lambda: D.Kitti(tmp_path / "x"), lambda: TD.Kitti(tmp_path / "x"))


def test_video_io_without_pyav_says_how_to_install(tmp_path):
    import importlib.util

    if importlib.util.find_spec("av") is not None:
        pytest.skip("PyAV is installed (tests/vision/test_datasets_b_video.py covers it)")
    import numtorchvision.io as nio

    path = fab.text(str(tmp_path / "x.mp4"), "not a video")
    for call in (lambda: nio.read_video(path), lambda: nio.read_video_timestamps(path),
                 lambda: nio.write_video(str(tmp_path / "y.mp4"), numtorch.zeros(1, 2, 2, 3), 1)):
        with pytest.raises(ImportError, match="PyAV is not installed"):
            call()
