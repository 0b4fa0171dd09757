"""numtorchvision.datasets.samplers against torchvision 0.28's on VideoClips built from the
same timestamps: the same indices (same random draws after the same seeds), lengths and
errors."""

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
