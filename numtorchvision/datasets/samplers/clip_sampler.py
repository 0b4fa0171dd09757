"""Clip samplers over a :class:`~numtorchvision.datasets.video_utils.VideoClips`."""

import math

import numtorch as torch
import numtorch.distributed as dist
from numtorch.utils.data import Sampler

from ..video_utils import VideoClips


class DistributedSampler(Sampler):
    """Shard a dataset over ``num_replicas`` processes in groups of ``group_size``
    consecutive samples (the clips of one video stay on one rank), padding with the first
    samples so that every rank gets as many.

    Args:
        dataset (Sized): the dataset, or a sampler whose indices are sharded.
        num_replicas (int, optional), rank (int, optional): default from the process group.
        shuffle (bool): permute (seeded with the epoch, see :meth:`set_epoch`) first.
        group_size (int): samples kept together; must divide ``len(dataset)``.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=False, group_size=1):
        if num_replicas is None or rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if len(dataset) % group_size != 0:
            raise ValueError(f"dataset length must be a multiplier of group size dataset "
                             f"length: {len(dataset)}, group size: {group_size}")
        self.dataset, self.group_size = dataset, group_size
        self.num_replicas, self.rank, self.epoch = num_replicas, rank, 0
        groups_per_rank = math.ceil(len(dataset) // group_size / num_replicas)
        self.num_group_samples = groups_per_rank
        self.num_samples = groups_per_rank * group_size
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            gen = torch.Generator()
            gen.manual_seed(self.epoch)
            order = torch.randperm(n, generator=gen).tolist()
        else:
            order = list(range(n))
        order += order[:self.total_size - len(order)]  # pad to a whole number of rounds
        if len(order) != self.total_size:
            raise AssertionError(f"{len(order)} indices for a total size of {self.total_size}")
        groups = torch.tensor(order, dtype=torch.int64).reshape(-1, self.group_size)
        mine = groups[self.rank::self.num_replicas].reshape(-1).tolist()
        if len(mine) != self.num_samples:
            raise AssertionError(f"{len(mine)} indices for {self.num_samples} samples")
        if isinstance(self.dataset, Sampler):
            inner = list(iter(self.dataset))
            mine = [inner[i] for i in mine]
        return iter(mine)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch


def _clip_ranges(video_clips):
    """(first overall clip index, clip count) of each video."""
    starts, first = [], 0
    for clips in video_clips.clips:
        starts.append((first, len(clips)))
        first += len(clips)
    return starts


def _check(video_clips):
    if not isinstance(video_clips, VideoClips):
        raise TypeError(f"Expected video_clips to be an instance of VideoClips, got "
                        f"{type(video_clips)}")


class UniformClipSampler(Sampler):
    """``num_clips_per_video`` evenly spaced clips of each video (repeating clips of videos
    that have fewer); videos without clips are skipped.

    Args:
        video_clips (VideoClips): the clips.
        num_clips_per_video (int): clips per video.
    """

    def __init__(self, video_clips, num_clips_per_video):
        _check(video_clips)
        self.video_clips = video_clips
        self.num_clips_per_video = num_clips_per_video

    def __iter__(self):
        picks = [torch.linspace(first, first + count - 1, steps=self.num_clips_per_video)
                 .floor().to(torch.int64)
                 for first, count in _clip_ranges(self.video_clips) if count]
        return iter(torch.cat(picks).tolist() if picks else [])

    def __len__(self):
        return sum(self.num_clips_per_video for c in self.video_clips.clips if len(c))


class RandomClipSampler(Sampler):
    """At most ``max_clips_per_video`` random clips of each video, all in random order.

    Args:
        video_clips (VideoClips): the clips.
        max_clips_per_video (int): the most clips taken from one video.
    """

    def __init__(self, video_clips, max_clips_per_video):
        _check(video_clips)
        self.video_clips = video_clips
        self.max_clips_per_video = max_clips_per_video

    def __iter__(self):
        picks = [torch.randperm(count)[:min(count, self.max_clips_per_video)] + first
                 for first, count in _clip_ranges(self.video_clips)]
        chosen = torch.cat(picks) if picks else torch.tensor([], dtype=torch.int64)
        return iter(chosen[torch.randperm(len(chosen))].tolist())

    def __len__(self):
        return sum(min(len(c), self.max_clips_per_video) for c in self.video_clips.clips)
