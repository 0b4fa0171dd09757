"""Stereo-matching datasets against torchvision 0.28 on fabricated trees: every sample
(images, disparities, valid masks), the pair lists and the error messages."""

import random

import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate_b as fab
from .test_datasets_b_dense import assert_same_dataset, raises_alike

CASES = [
    ("CarlaStereo", fab.carla_tree, [{}]),
    ("Kitti2012Stereo", fab.kitti_stereo_tree, [{}, {"split": "test"}]),
    ("Kitti2015Stereo", fab.kitti_stereo_tree, [{}, {"split": "test"}]),
    ("Middlebury2014Stereo", fab.middlebury_tree,
     [{}, {"calibration": "imperfect"}, {"calibration": "both"},
      {"split": "additional", "calibration": "both"}, {"split": "test", "calibration": None}]),
    ("ETH3DStereo", fab.eth3d_tree, [{}, {"split": "test"}]),
    ("CREStereo", fab.crestereo_tree, [{}]),
    ("FallingThingsStereo", fab.fallingthings_tree,
     [{}, {"variant": "mixed"}, {"variant": "both"}]),
    ("SceneFlowStereo", fab.sceneflow_tree,
     [{}, {"variant": "Driving", "pass_name": "final"}, {"variant": "Monkaa", "pass_name": "both"}]),
    ("SintelStereo", fab.sintel_stereo_tree, [{}, {"pass_name": "clean"}, {"pass_name": "both"}]),
    ("InStereo2k", fab.instereo2k_tree, [{}, {"split": "test"}]),
]


@pytest.mark.parametrize("name,make,variants", CASES, ids=[c[0] for c in CASES])
def test_stereo_samples(tmp_path, name, make, variants):
    make(str(tmp_path))
    for kw in variants:
        a, b = getattr(D, name)(tmp_path, **kw), getattr(TD, name)(tmp_path, **kw)
        assert a._images == b._images and a._disparities == b._disparities
        assert_same_dataset(a, b)
        assert repr(a) == repr(b)
    # an empty root: the first pattern that found nothing
    raises_alike(lambda: getattr(D, name)(tmp_path / "none"),
                 lambda: getattr(TD, name)(tmp_path / "none"))


@pytest.mark.parametrize("name,kw", [("Kitti2012Stereo", {"split": "val"}),
                                     ("InStereo2k", {"split": 1}),
                                     ("SceneFlowStereo", {"variant": "x"}),
                                     ("SceneFlowStereo", {"pass_name": "x"}),
                                     ("SintelStereo", {"pass_name": "x"}),
                                     ("FallingThingsStereo", {"variant": "x"}),
                                     ("ETH3DStereo", {"split": "val"}),
                                     ("Middlebury2014Stereo", {"split": "x"}),
                                     ("Middlebury2014Stereo", {"split": "test"}),
                                     ("Middlebury2014Stereo", {"calibration": None}),
                                     ("Middlebury2014Stereo", {"calibration": "x"}),
                                     ("Middlebury2014Stereo", {"split": "additional"})])
def test_stereo_argument_errors(tmp_path, name, kw):
    raises_alike(lambda: getattr(D, name)(tmp_path, **kw), lambda: getattr(TD, name)(tmp_path, **kw))


def test_scan_pairs_mismatch_and_missing_masks(tmp_path):
    fab.carla_tree(str(tmp_path))
    (tmp_path / "carla-highres" / "trainingF" / "scene1" / "im1.png").unlink()
    raises_alike(lambda: D.CarlaStereo(tmp_path), lambda: TD.CarlaStereo(tmp_path))
    fab.sintel_stereo_tree(str(tmp_path))
    (tmp_path / "Sintel" / "training" / "outofframe" / "cave_2" / "frame_0002.png").unlink()
    a, b = D.SintelStereo(tmp_path), TD.SintelStereo(tmp_path)
    raises_alike(lambda: a[3], lambda: b[3])
    (tmp_path / "Sintel" / "training" / "occlusions" / "cave_2" / "frame_0002.png").unlink()
    raises_alike(lambda: a[3], lambda: b[3])


def test_stereo_transforms_and_ambient_views(tmp_path):
    fab.middlebury_tree(str(tmp_path))

    def flip(images, disparities, masks):
        return images[::-1], (disparities[1], disparities[0]), (masks[1], masks[0])

    assert_same_dataset(D.Middlebury2014Stereo(tmp_path, transforms=flip),
                        TD.Middlebury2014Stereo(tmp_path, transforms=flip))
    a = D.Middlebury2014Stereo(tmp_path, use_ambient_views=True, calibration="both")
    b = TD.Middlebury2014Stereo(tmp_path, use_ambient_views=True, calibration="both")
    for seed in range(4):
        random.seed(seed)
        xs = [a[i] for i in range(len(a))]
        random.seed(seed)
        ys = [b[i] for i in range(len(b))]
        from .test_datasets_b_dense import assert_same
        assert_same(xs, ys)
    fab.carla_tree(str(tmp_path))

    def with_mask(images, disparities, masks):
        return images, disparities, (disparities[0][0] > 10, None)

    assert_same_dataset(D.CarlaStereo(tmp_path, transforms=with_mask),
                        TD.CarlaStereo(tmp_path, transforms=with_mask))
    assert len(D.CarlaStereo(tmp_path)[0]) == 3
