"""VideoClips' clip sampling (no decoding: clips from precomputed timestamps) and
numtorchvision.datasets.samplers against torchvision 0.28's: the same clips, resampling
indices, locations, state, indices (same random draws after the same seeds) and errors.
Runs without PyAV; decoding is in test_datasets_b_video.py."""

import pickle
import warnings

import numpy as np
import pytest
import torch
import torchvision.datasets.samplers as TS
from torchvision.datasets import video_utils as tv_vu

import numtorch
import numtorchvision.datasets.samplers as NS
from numtorchvision.datasets import video_utils as nt_vu

from .test_datasets_b_dense import raises_alike

PTS = [list(range(10)), list(range(3)), list(range(25)), list(range(7))]


def _clips(size=3, step=2):
    meta = {"video_paths": ["a", "b", "c", "d"], "video_fps": [1.0] * 4}
    a = nt_vu.VideoClips(meta["video_paths"], size, step, _precomputed_metadata=dict(
        meta, video_pts=[numtorch.tensor(p) for p in PTS]))
    b = tv_vu.VideoClips(meta["video_paths"], size, step, _precomputed_metadata=dict(
        meta, video_pts=[torch.tensor(p) for p in PTS]))
    return a, b


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_clip_samplers(n):
    a, b = _clips()
    sa, sb = NS.UniformClipSampler(a, n), TS.UniformClipSampler(b, n)
    assert list(sa) == list(sb) and len(sa) == len(sb)
    sa, sb = NS.RandomClipSampler(a, n), TS.RandomClipSampler(b, n)
    for seed in range(3):
        numtorch.manual_seed(seed)
        torch.manual_seed(seed)
        assert list(sa) == list(sb) and len(sa) == len(sb)


@pytest.mark.parametrize("replicas,group,shuffle", [(4, 1, False), (4, 2, False), (3, 2, True),
                                                    (2, 7, True), (5, 1, True)])
def test_distributed_sampler(replicas, group, shuffle):
    data = list(range(14))
    for rank in range(replicas):
        sa = NS.DistributedSampler(data, replicas, rank, shuffle, group)
        sb = TS.DistributedSampler(data, replicas, rank, shuffle, group)
        for epoch in (0, 3):
            sa.set_epoch(epoch)
            sb.set_epoch(epoch)
            assert list(sa) == list(sb) and len(sa) == len(sb)
    a, b = _clips()
    inner_a, inner_b = NS.UniformClipSampler(a, 2), TS.UniformClipSampler(b, 2)
    sa = NS.DistributedSampler(inner_a, replicas, replicas - 1, shuffle, 2)
    sb = TS.DistributedSampler(inner_b, replicas, replicas - 1, shuffle, 2)
    assert list(sa) == list(sb)


def test_sampler_errors():
    raises_alike(lambda: NS.DistributedSampler(list(range(7)), 2, 0, group_size=2),
                 lambda: TS.DistributedSampler(list(range(7)), 2, 0, group_size=2))
    raises_alike(lambda: NS.RandomClipSampler([1], 2), lambda: TS.RandomClipSampler([1], 2))
    raises_alike(lambda: NS.UniformClipSampler("x", 2), lambda: TS.UniformClipSampler("x", 2))
    # no process group: the defaults cannot be read
    raises_alike(lambda: NS.DistributedSampler(list(range(4))),
                 lambda: TS.DistributedSampler(list(range(4))))


def _metadata_pair(paths, pts_lists, fps):
    ours = {"video_paths": list(paths), "video_fps": list(fps),
            "video_pts": [numtorch.tensor(p, dtype=numtorch.int64) for p in pts_lists]}
    theirs = {"video_paths": list(paths), "video_fps": list(fps),
              "video_pts": [torch.tensor(p, dtype=torch.int64) for p in pts_lists]}
    return ours, theirs


def _same_clips(a, b):
    assert a.cumulative_sizes == b.cumulative_sizes and a.num_clips() == b.num_clips()
    assert a.num_videos() == b.num_videos() and len(a) == len(b)
    for x, y in zip(a.clips, b.clips):
        assert tuple(x.shape) == tuple(y.shape)
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    for x, y in zip(a.resampling_idxs, b.resampling_idxs):
        if isinstance(y, torch.Tensor):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
        else:
            assert x == y
    for i in range(b.num_clips()):
        assert a.get_clip_location(i) == b.get_clip_location(i)


@pytest.mark.parametrize("frame_rate", [None, 7, 5, 30, 12.5])
@pytest.mark.parametrize("size,step", [(4, 3), (1, 1), (5, 2), (40, 1)])
def test_videoclips_sampling_matches_torchvision(frame_rate, size, step):
    pts = [list(range(0, 30, 3)), list(range(25)), list(range(0, 512 * 12, 512)), []]
    ours, theirs = _metadata_pair(["a", "b", "c", "d"], pts, [10.0, 25.0, 12.0, None])
    with warnings.catch_warnings(record=True) as wa:
        warnings.simplefilter("always")
        a = nt_vu.VideoClips(ours["video_paths"], size, step, frame_rate, ours)
    with warnings.catch_warnings(record=True) as wb:
        warnings.simplefilter("always")
        b = tv_vu.VideoClips(theirs["video_paths"], size, step, frame_rate, theirs)
    assert [str(w.message) for w in wa] == [str(w.message) for w in wb]
    _same_clips(a, b)
    assert sorted(vars(a)) == sorted(vars(b))
    _same_clips(a.subset([2, 0]), b.subset([2, 0]))
    _same_clips(pickle.loads(pickle.dumps(a)), b)
    assert sorted(a.__getstate__()) == sorted(b.__getstate__())
    raises_alike(lambda: a.get_clip(10 ** 4), lambda: b.get_clip(10 ** 4))


def test_unfold_matches_torchvision():
    for n, size, step, dil in ((10, 3, 2, 1), (10, 3, 1, 2), (4, 5, 1, 1), (7, 1, 3, 1)):
        a = nt_vu.unfold(numtorch.arange(n), size, step, dil)
        b = tv_vu.unfold(torch.arange(n), size, step, dil)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    raises_alike(lambda: nt_vu.unfold(numtorch.zeros(2, 2), 1, 1),
                 lambda: tv_vu.unfold(torch.zeros(2, 2), 1, 1))
    raises_alike(lambda: nt_vu.VideoClips([], output_format="x", _precomputed_metadata={}),
                 lambda: tv_vu.VideoClips([], output_format="x", _precomputed_metadata={}))


def _empty_videos(root, names):
    import os

    for name in names:
        os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
        open(os.path.join(root, name), "wb").close()
    return sorted(os.path.join(root, n) for n in names)


@pytest.mark.parametrize("name", ["UCF101", "HMDB51"])
@pytest.mark.parametrize("fold,train", [(1, True), (2, False), (3, False)])
def test_fold_selection_from_precomputed_timestamps(tmp_path, name, fold, train):
    import torchvision.datasets as TD

    import numtorchvision.datasets as D

    from . import _fabricate_b as fab

    names = [f"{c}/v_{c}_g0{k}_c01.avi" for c in ("Archery", "Biking", "Diving") for k in (1, 2, 3)]
    paths = _empty_videos(str(tmp_path / "v"), names)
    for f in (1, 2, 3):
        train_set = [n for k, n in enumerate(names) if (k + f) % 3]
        fab.text(str(tmp_path / "ann" / f"trainlist0{f}.txt"), "".join(f"{n} 1\n" for n in train_set))
        fab.text(str(tmp_path / "ann" / f"testlist0{f}.txt"),
                 "".join(f"{n}\n" for n in names if n not in train_set))
        for c in ("Archery", "Biking", "Diving"):
            fab.text(str(tmp_path / "ann" / f"{c}_test_split{f}.txt"), "".join(
                f"{n.split('/')[1]} {1 if n in train_set else 2}\n" for n in names if c in n))
    pts = [list(range(4 + k % 5)) for k in range(len(paths))]
    fps = [float(10 + k) for k in range(len(paths))]
    a = getattr(D, name)(str(tmp_path / "v"), str(tmp_path / "ann"), 3, 2, fold=fold, train=train,
                         _precomputed_metadata={"video_paths": paths, "video_fps": fps,
                                                "video_pts": [numtorch.tensor(p) for p in pts]})
    b = getattr(TD, name)(str(tmp_path / "v"), str(tmp_path / "ann"), 3, 2, fold=fold, train=train,
                          _precomputed_metadata={"video_paths": paths, "video_fps": fps,
                                                 "video_pts": [torch.tensor(p) for p in pts]})
    assert a.indices == b.indices and 0 < len(a.indices) < len(paths)
    assert a.samples == b.samples and a.classes == b.classes and len(a) == len(b)
    assert (a.fold, a.train) == (b.fold, b.train)
    _same_clips(a.video_clips, b.video_clips)
    _same_clips(a.full_video_clips, b.full_video_clips)
    for kw in ({"fold": 0}, {"fold": 4}):
        raises_alike(lambda: getattr(D, name)(str(tmp_path / "v"), str(tmp_path / "ann"), 3, **kw),
                     lambda: getattr(TD, name)(str(tmp_path / "v"), str(tmp_path / "ann"), 3, **kw))
