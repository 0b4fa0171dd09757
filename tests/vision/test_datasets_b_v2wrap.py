"""wrap_dataset_for_transforms_v2 on VOC, SBD, Cityscapes, WIDERFace and Kitti against
torchvision 0.28: the converted targets (BoundingBoxes, Masks, labels), target_keys and the
unsupported-mode errors."""

import glob
import os

import numpy as np
import pytest
import torch
import torchvision.datasets as TD
from PIL import Image
from torchvision import tv_tensors as tvt

import numtorch
import numtorchvision.datasets as D
from numtorchvision import tv_tensors as ntvt

from . import _fabricate_b as fab
from ._helpers import assert_same_image
from .test_datasets_b_dense import raises_alike


def assert_same_v2(a, b):
    """Equal wrapped samples; TVTensor subclasses and their metadata must correspond.
    Dict keys are compared as sets: torchvision's key order comes from set iteration."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor), type(a)
        assert type(a).__name__ == type(b).__name__, (type(a), type(b))
        if isinstance(b, tvt.BoundingBoxes):
            assert a.format.name == b.format.name and tuple(a.canvas_size) == tuple(b.canvas_size)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), (a, b)
        np.testing.assert_array_equal(a.as_subclass(numtorch.Tensor).numpy(),
                                      b.as_subclass(torch.Tensor).numpy())
    elif isinstance(b, Image.Image):
        assert_same_image(a, b)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), (set(a), set(b))
        for key in b:
            assert_same_v2(a[key], b[key])
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same_v2(x, y)
    else:
        assert a == b, (a, b)


def check(make_a, make_b, indices=None, **kw):
    a = D.wrap_dataset_for_transforms_v2(make_a(D), **kw)
    b = TD.wrap_dataset_for_transforms_v2(make_b(TD), **kw)
    assert type(a).__name__ == type(b).__name__ and len(a) == len(b)
    for i in indices if indices is not None else range(len(b)):
        assert_same_v2(a[i], b[i])
    return a


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("v2wrap"))
    fab.voc_tree(root)
    fab.cityscapes_tree(root)
    fab.widerface_tree(root)
    fab.kitti_tree(root)
    # a label file with every KITTI class
    fab.text(os.path.join(root, "Kitti", "raw", "training", "label_2", "000002.txt"), "".join(
        f"{t} 0.00 0 -1.0 {k}.0 1.0 {k + 3}.5 9.0 1.5 1.6 3.7 -2.1 1.5 8.4 0.1\n"
        for k, t in enumerate(["Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist",
                               "Tram", "Misc", "DontCare"])))
    # instance ids >= 1000 (class * 1000 + instance) need more than 8 bits: a 32-bit image
    # (TIFF content under the .png name; Pillow goes by content), as torch has no uint16 ops
    for k, path in enumerate(sorted(glob.glob(os.path.join(root, "gtFine", "*", "*",
                                                           "*instanceIds.png")))):
        ids = np.array([0, 7, 26001, 26002, 24000, 1000, 3, 24, 999, 33000 + k])
        arr = fab.rng().choice(ids, size=(8, 10)).astype(np.int32)
        Image.fromarray(arr, "I").save(path, format="TIFF")
    return root


@pytest.mark.parametrize("target_keys", [None, "all", {"labels"}, ["annotation", "boxes"]])
def test_voc_detection(root, target_keys):
    check(lambda L: L.VOCDetection(root, image_set="trainval"),
          lambda L: L.VOCDetection(root, image_set="trainval"), indices=[0, 2],
          target_keys=target_keys)


def test_voc_without_objects_and_bad_keys(root):
    a = D.wrap_dataset_for_transforms_v2(D.VOCDetection(root))
    b = TD.wrap_dataset_for_transforms_v2(TD.VOCDetection(root))
    raises_alike(lambda: a[1], lambda: b[1])  # no object: no bndbox column
    check(lambda L: L.VOCDetection(root), lambda L: L.VOCDetection(root), indices=[1],
          target_keys={"annotation"})
    for keys in ({"x", "boxes"}, 3, [1]):
        raises_alike(lambda: D.wrap_dataset_for_transforms_v2(D.VOCDetection(root), keys),
                     lambda: TD.wrap_dataset_for_transforms_v2(TD.VOCDetection(root), keys))
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(D.VOCSegmentation(root), {"boxes"}),
                 lambda: TD.wrap_dataset_for_transforms_v2(TD.VOCSegmentation(root), {"boxes"}))


def test_segmentation_masks(root, tmp_path):
    check(lambda L: L.VOCSegmentation(root, image_set="trainval"),
          lambda L: L.VOCSegmentation(root, image_set="trainval"))
    fab.sbd_tree(str(tmp_path))
    check(lambda L: L.SBDataset(tmp_path, mode="segmentation"),
          lambda L: L.SBDataset(tmp_path, mode="segmentation"))
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(D.SBDataset(tmp_path)),
                 lambda: TD.wrap_dataset_for_transforms_v2(TD.SBDataset(tmp_path)))


@pytest.mark.parametrize("target_type", ["semantic", "instance", ["instance", "semantic"],
                                         ["semantic", "instance"]])
def test_cityscapes(root, target_type):
    check(lambda L: L.Cityscapes(root, target_type=target_type),
          lambda L: L.Cityscapes(root, target_type=target_type))


@pytest.mark.parametrize("target_type", ["color", "polygon", ["semantic", "color"]])
def test_cityscapes_unsupported(root, target_type):
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(D.Cityscapes(root, target_type=target_type)),
                 lambda: TD.wrap_dataset_for_transforms_v2(TD.Cityscapes(root, target_type=target_type)))


@pytest.mark.parametrize("target_keys", [None, "all", {"bbox", "pose"}])
def test_widerface(root, target_keys):
    for split in ("train", "val", "test"):
        check(lambda L: L.WIDERFace(root, split=split), lambda L: L.WIDERFace(root, split=split),
              target_keys=target_keys)
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(D.WIDERFace(root), {"boxes"}),
                 lambda: TD.wrap_dataset_for_transforms_v2(TD.WIDERFace(root), {"boxes"}))


@pytest.mark.parametrize("target_keys", [None, "all", ["labels", "location", "type"]])
def test_kitti(root, target_keys):
    for train in (True, False):
        check(lambda L: L.Kitti(root, train=train), lambda L: L.Kitti(root, train=train),
              target_keys=target_keys)


def test_wrapped_transforms_run_on_converted_samples(root):
    from torchvision.transforms import v2 as tv2

    from numtorchvision.transforms import v2 as nv2

    a = D.wrap_dataset_for_transforms_v2(D.Kitti(root, transforms=nv2.Compose(
        [nv2.PILToTensor(), nv2.RandomHorizontalFlip(p=1.0)])))
    b = TD.wrap_dataset_for_transforms_v2(TD.Kitti(root, transforms=tv2.Compose(
        [tv2.PILToTensor(), tv2.RandomHorizontalFlip(p=1.0)])))
    for i in range(len(b)):
        assert_same_v2(a[i], b[i])
    assert isinstance(a[0][1]["boxes"], ntvt.BoundingBoxes)


@pytest.mark.parametrize("name", ["UCF101", "HMDB51"])
def test_video_datasets(tmp_path, name):
    # no decoding: both libraries get the same timestamps and a stand-in clip reader
    for c in ("A", "B"):
        os.makedirs(tmp_path / "v" / c)
        (tmp_path / "v" / c / f"x{c}.avi").write_bytes(b"")
    fab.text(str(tmp_path / "ann" / "trainlist01.txt"), "A/xA.avi\nB/xB.avi\n")
    fab.text(str(tmp_path / "ann" / "A_test_split1.txt"), "xA.avi 1\nxB.avi 1\n")
    paths = [str(tmp_path / "v" / "A" / "xA.avi"), str(tmp_path / "v" / "B" / "xB.avi")]
    pts = [list(range(5)), list(range(6))]
    frames = fab.rng().integers(0, 256, (2, 3, 4, 5)).astype(np.uint8)
    built = {}
    for lib, tensor_lib in ((D, numtorch), (TD, torch)):
        meta = {"video_paths": paths, "video_fps": [5.0, 5.0],
                "video_pts": [tensor_lib.tensor(p) for p in pts]}
        for fmt in ("THWC", "TCHW"):
            ds = getattr(lib, name)(str(tmp_path / "v"), str(tmp_path / "ann"), 2,
                                    _precomputed_metadata=meta, output_format=fmt)
            ds.video_clips.get_clip = lambda i, t=tensor_lib: (
                t.from_numpy(frames.copy()), t.ones(1, 3), {}, i % 2)
            built[lib, fmt] = ds
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(built[D, "THWC"]),
                 lambda: TD.wrap_dataset_for_transforms_v2(built[TD, "THWC"]))
    raises_alike(lambda: D.wrap_dataset_for_transforms_v2(built[D, "TCHW"], {"x"}),
                 lambda: TD.wrap_dataset_for_transforms_v2(built[TD, "TCHW"], {"x"}))
    a = D.wrap_dataset_for_transforms_v2(built[D, "TCHW"])
    b = TD.wrap_dataset_for_transforms_v2(built[TD, "TCHW"])
    assert len(a) == len(b) == 9  # 4 + 5 two-frame clips
    for i in (0, 5):
        assert_same_v2(a[i], b[i])
