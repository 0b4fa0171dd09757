"""Optical-flow datasets (FlyingChairs, Sintel, KittiFlow, FlyingThings3D, HD1K) and their
file readers against torchvision 0.28 on fabricated trees."""

import numpy as np
import pytest
import torch
import torchvision.datasets as TD
import torchvision.datasets._optical_flow as tv_flow

import numtorchvision.datasets as D
from numtorchvision.datasets import _dense_io

from . import _fabricate_b as fab
from .test_datasets_b_dense import assert_same_dataset, raises_alike


@pytest.fixture
def tv_png16(monkeypatch):
    """torchvision reads flow PNGs with its compiled decode_png, which the CPU wheel lacks:
    give it the test's own (slow, independent) PNG decoder."""
    monkeypatch.setattr(tv_flow, "read_file", lambda path: path)
    monkeypatch.setattr(tv_flow, "decode_png", lambda path: torch.from_numpy(
        fab.read_png16_rgb(path).transpose(2, 0, 1).astype(np.int32)))


def test_png16_reader_undoes_every_filter(tmp_path):
    arr = fab.rng().integers(0, 65536, size=(11, 9, 3)).astype(np.uint16)
    for filters in ((0,), (1,), (2,), (3,), (4,), (4, 3, 2, 1, 0)):
        path = fab.png16_rgb(str(tmp_path / f"f{filters[0]}.png"), arr, filters)
        np.testing.assert_array_equal(_dense_io._read_png16_rgb(path), arr)
        np.testing.assert_array_equal(fab.read_png16_rgb(path), arr)


def test_flo_and_pfm_readers(tmp_path):
    flow = fab.rng().standard_normal((2, 4, 5)).astype(np.float32)
    path = fab.flo(str(tmp_path / "a.flo"), flow)
    got = _dense_io._read_flo(path)
    np.testing.assert_array_equal(got, flow)
    np.testing.assert_array_equal(got, tv_flow._read_flo(path))
    for little in (True, False):
        for arr in (flow[0], flow.repeat(2, 0)[:3].transpose(1, 2, 0)):
            path = fab.pfm(str(tmp_path / "a.pfm"), arr, little=little)
            for k in (1, 2, 3):
                a, b = _dense_io._read_pfm(path, k), tv_flow._read_pfm(path, k)
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a, b)
    (tmp_path / "bad.flo").write_bytes(b"PIEX" + bytes(8))
    (tmp_path / "bad.pfm").write_bytes(b"P6\n1 1\n-1\n")
    (tmp_path / "bad2.pfm").write_bytes(b"PF\n1 x\n-1\n")
    for fn, name in ((" _read_flo", "bad.flo"), ("_read_pfm", "bad.pfm"), ("_read_pfm", "bad2.pfm")):
        fn = fn.strip()
        raises_alike(lambda: getattr(_dense_io, fn)(str(tmp_path / name)),
                     lambda: getattr(tv_flow, fn)(str(tmp_path / name)))


def test_flyingchairs(tmp_path):
    fab.flyingchairs_tree(str(tmp_path))
    for split in ("train", "val"):
        a, b = D.FlyingChairs(tmp_path, split=split), TD.FlyingChairs(tmp_path, split=split)
        assert_same_dataset(a, b)
        assert repr(a) == repr(b)
        assert a._image_list == b._image_list and a._flow_list == b._flow_list
    raises_alike(lambda: D.FlyingChairs(tmp_path, split="test"),
                 lambda: TD.FlyingChairs(tmp_path, split="test"))
    raises_alike(lambda: D.FlyingChairs(tmp_path / "x"), lambda: TD.FlyingChairs(tmp_path / "x"))


def test_sintel(tmp_path):
    fab.sintel_tree(str(tmp_path))
    for split in ("train", "test"):
        for pass_name in ("clean", "final", "both"):
            a = D.Sintel(tmp_path, split=split, pass_name=pass_name)
            b = TD.Sintel(tmp_path, split=split, pass_name=pass_name)
            assert_same_dataset(a, b)
            assert repr(a) == repr(b)
            assert a._image_list == b._image_list
    for kw in (dict(split="val"), dict(pass_name="albedo")):
        raises_alike(lambda: D.Sintel(tmp_path, **kw), lambda: TD.Sintel(tmp_path, **kw))


def test_sintel_transforms_loader_and_rmul(tmp_path):
    import numtorchvision.io as nio

    fab.sintel_tree(str(tmp_path))

    def masking(i1, i2, flow, mask):
        return i1, i2, flow, flow[0] > 0

    assert_same_dataset(D.Sintel(tmp_path, transforms=masking),
                        TD.Sintel(tmp_path, transforms=masking))
    a = D.Sintel(tmp_path, loader=nio.read_image)[0]
    b = TD.Sintel(tmp_path)[0]
    np.testing.assert_array_equal(a[0].numpy(), np.asarray(b[0]).transpose(2, 0, 1))
    d = D.Sintel(tmp_path)
    assert len(3 * d) == 3 * len(d) == len(3 * TD.Sintel(tmp_path))


def test_kittiflow(tmp_path, tv_png16):
    fab.kittiflow_tree(str(tmp_path))
    for split in ("train", "test"):
        a, b = D.KittiFlow(tmp_path, split=split), TD.KittiFlow(tmp_path, split=split)
        assert_same_dataset(a, b)
        assert repr(a) == repr(b)
        assert len(a[0]) == 4
    raises_alike(lambda: D.KittiFlow(tmp_path / "x"), lambda: TD.KittiFlow(tmp_path / "x"))


def test_flyingthings3d(tmp_path):
    fab.flyingthings_tree(str(tmp_path))
    for split in ("train", "test"):
        for pass_name, camera in (("clean", "left"), ("final", "right"), ("both", "both")):
            a = D.FlyingThings3D(tmp_path, split=split, pass_name=pass_name, camera=camera)
            b = TD.FlyingThings3D(tmp_path, split=split, pass_name=pass_name, camera=camera)
            assert_same_dataset(a, b)
            assert repr(a) == repr(b)
            assert a._image_list == b._image_list and a._flow_list == b._flow_list
    for kw in (dict(camera="middle"), dict(split="val"), dict(pass_name="x")):
        raises_alike(lambda: D.FlyingThings3D(tmp_path, **kw),
                     lambda: TD.FlyingThings3D(tmp_path, **kw))
    raises_alike(lambda: D.FlyingThings3D(tmp_path / "x"), lambda: TD.FlyingThings3D(tmp_path / "x"))


def test_hd1k(tmp_path, tv_png16):
    fab.hd1k_tree(str(tmp_path))
    for split in ("train", "test"):
        a, b = D.HD1K(tmp_path, split=split), TD.HD1K(tmp_path, split=split)
        assert_same_dataset(a, b)
        assert repr(a) == repr(b)
        assert a._image_list == b._image_list and a._flow_list == b._flow_list
    raises_alike(lambda: D.HD1K(tmp_path / "x"), lambda: TD.HD1K(tmp_path / "x"))
