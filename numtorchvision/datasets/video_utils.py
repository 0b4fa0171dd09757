"""VideoClips: every window of ``clip_length_in_frames`` frames (``frames_between_clips``
apart, optionally at a resampled frame rate) over a list of video files, read through
:func:`numtorchvision.io.read_video`."""

import bisect
import itertools
import math
import warnings

import numpy as np

import numtorch as torch
from numtorch.utils.data import DataLoader, Dataset

__all__ = ["VideoClips", "unfold"]


def unfold(tensor, size, step, dilation=1):
    """The windows of a 1-D tensor as rows of a ``(num_windows, size)`` strided view: window
    ``i`` holds elements ``i * step + j * dilation``; no window when the tensor is too short."""
    if tensor.dim() != 1:
        raise ValueError(f"tensor should have 1 dimension instead of {tensor.dim()}")
    stride = tensor.stride(0)
    span = dilation * (size - 1) + 1
    count = max((tensor.numel() - span) // step + 1, 0)
    return torch.as_strided(tensor, (count, size), (step * stride, dilation * stride))


def _windows(arr, size, step):
    """``unfold`` on a 1-D NumPy array: a writable strided view, no copy."""
    count = max((arr.shape[0] - size) // step + 1, 0)
    stride = arr.strides[0]
    return np.lib.stride_tricks.as_strided(arr, (count, size), (step * stride, stride),
                                           writeable=True)


def _resampled(num_frames, original_fps, new_fps):
    """Frame picks for a new rate: a slice for whole-number ratios, else int64 indices
    floor(i * ratio) computed in float32 (as torch does for a float32 arange)."""
    ratio = original_fps / new_fps
    if float(ratio).is_integer():
        return slice(None, None, int(ratio))
    return np.floor(np.arange(num_frames, dtype=np.float32) * np.float32(ratio)).astype(np.int64)


class _VideoTimestampsDataset(Dataset):
    """The timestamps of each video, so that a DataLoader can read them in worker processes."""

    def __init__(self, video_paths):
        self.video_paths = video_paths

    def __getitem__(self, idx):
        from ..io.video import read_video_timestamps

        return read_video_timestamps(self.video_paths[idx])

    def __len__(self):
        return len(self.video_paths)


def _collate_fn(x):
    return x


class VideoClips:
    """All clips of ``clip_length_in_frames`` consecutive frames, ``frames_between_clips``
    apart, of the given videos; with ``frame_rate`` the videos are first resampled (frames
    repeated or dropped) to that rate.

    Building it reads every video's timestamps (``num_workers`` processes); pass the
    ``metadata`` of an earlier instance as ``_precomputed_metadata`` to skip that.

    Args:
        video_paths (list of str): the video files.
        clip_length_in_frames (int): frames per clip.
        frames_between_clips (int): the step between clip starts.
        frame_rate (float, optional): the rate to resample to.
        num_workers (int): worker processes for reading timestamps (0: this process).
        output_format (str): ``"THWC"`` (default) or ``"TCHW"`` for :meth:`get_clip`.
    """

    def __init__(self, video_paths, clip_length_in_frames=16, frames_between_clips=1,
                 frame_rate=None, _precomputed_metadata=None, num_workers=0, _video_width=0,
                 _video_height=0, _video_min_dimension=0, _video_max_dimension=0,
                 _audio_samples=0, _audio_channels=0, output_format="THWC"):
        self.video_paths = video_paths
        self.num_workers = num_workers
        # decoder hints, kept (and passed on by subset) for the API: PyAV decodes at the
        # file's own size and sample rate
        vars(self).update(_video_width=_video_width, _video_height=_video_height,
                          _video_min_dimension=_video_min_dimension,
                          _video_max_dimension=_video_max_dimension,
                          _audio_samples=_audio_samples, _audio_channels=_audio_channels)
        self.output_format = output_format.upper()
        if self.output_format not in ("THWC", "TCHW"):
            raise ValueError(f"output_format should be either 'THWC' or 'TCHW', got "
                             f"{output_format}.")
        if _precomputed_metadata is not None:
            self._init_from_metadata(_precomputed_metadata)
        else:
            self._compute_frame_pts()
        self.compute_clips(clip_length_in_frames, frames_between_clips, frame_rate)

    def _compute_frame_pts(self):
        self.video_pts, self.video_fps = [], []
        loader = DataLoader(_VideoTimestampsDataset(self.video_paths), batch_size=16,
                            num_workers=self.num_workers, collate_fn=_collate_fn)
        for batch in loader:
            for pts, fps in batch:
                self.video_pts.append(torch.as_tensor(pts, dtype=torch.long))
                self.video_fps.append(fps)

    def _init_from_metadata(self, metadata):
        self.video_paths = metadata["video_paths"]
        if not len(self.video_paths) == len(metadata["video_pts"]) == len(metadata["video_fps"]):
            raise AssertionError("the metadata's video_paths, video_pts and video_fps differ "
                                 "in length")
        self.video_pts = metadata["video_pts"]
        self.video_fps = metadata["video_fps"]

    @property
    def metadata(self):
        return {"video_paths": self.video_paths, "video_pts": self.video_pts,
                "video_fps": self.video_fps}

    def subset(self, indices):
        """A VideoClips over the videos at ``indices`` (no timestamps are read again)."""
        metadata = {key: [values[i] for i in indices] for key, values in self.metadata.items()}
        hints = {name: getattr(self, name) for name in (
            "_video_width", "_video_height", "_video_min_dimension", "_video_max_dimension",
            "_audio_samples", "_audio_channels")}
        return type(self)(metadata["video_paths"], clip_length_in_frames=self.num_frames,
                          frames_between_clips=self.step, frame_rate=self.frame_rate,
                          _precomputed_metadata=metadata, num_workers=self.num_workers,
                          output_format=self.output_format, **hints)

    @staticmethod
    def _resample_video_idx(num_frames, original_fps, new_fps):
        """Which original frame each of ``num_frames`` resampled frames shows: a slice when
        the rates divide evenly, else an int64 index tensor."""
        picks = _resampled(num_frames, original_fps, new_fps)
        return picks if isinstance(picks, slice) else torch.from_numpy(picks)

    @staticmethod
    def compute_clips_for_video(video_pts, num_frames, step, fps, frame_rate=None):
        """The clips of one video as a ``(num_clips, num_frames)`` tensor of timestamps, and
        per clip the resampling indices (or one slice per clip)."""
        # NumPy views throughout: this runs once per video of datasets with 10^5 videos
        fps = 1 if fps is None else fps  # audio-only files
        frame_rate = fps if frame_rate is None else frame_rate
        pts = video_pts.numpy() if isinstance(video_pts, torch.Tensor) else np.asarray(video_pts)
        idxs = _resampled(int(math.floor(len(pts) * frame_rate / fps)), fps, frame_rate)
        clips = _windows(pts[idxs], num_frames, step)
        if not clips.size:
            warnings.warn("There aren't enough frames in the current video to get a clip for "
                          "the given clip length and frames between clips. The video (and "
                          "potentially others) will be skipped.")
        if isinstance(idxs, slice):
            return torch.from_numpy(clips), [idxs] * len(clips)
        return torch.from_numpy(clips), torch.from_numpy(_windows(idxs, num_frames, step))

    def compute_clips(self, num_frames, step, frame_rate=None):
        """(Re)build the clips for a clip length, step and frame rate (timestamps reused)."""
        self.num_frames, self.step, self.frame_rate = num_frames, step, frame_rate
        self.clips, self.resampling_idxs = [], []
        for pts, fps in zip(self.video_pts, self.video_fps):
            clips, idxs = self.compute_clips_for_video(pts, num_frames, step, fps, frame_rate)
            self.clips.append(clips)
            self.resampling_idxs.append(idxs)
        self.cumulative_sizes = list(itertools.accumulate(len(c) for c in self.clips))

    def __len__(self):
        return self.num_clips()

    def num_videos(self):
        return len(self.video_paths)

    def num_clips(self):
        return self.cumulative_sizes[-1]

    def get_clip_location(self, idx):
        """(video index, clip index within that video) of overall clip ``idx``."""
        video = bisect.bisect_right(self.cumulative_sizes, idx)
        return video, idx - (self.cumulative_sizes[video - 1] if video else 0)

    def get_clip(self, idx):
        """Clip ``idx``: (video frames, audio, info, video index).

        Raises:
            IndexError: ``idx`` is past the last clip.
        """
        if idx >= self.num_clips():
            raise IndexError(f"Index {idx} out of range ({self.num_clips()} number of clips)")
        from ..io.video import read_video  # only once a clip is really read

        video_idx, clip_idx = self.get_clip_location(idx)
        first, last = self.clips[video_idx][clip_idx][[0, -1]].tolist()
        video, audio, info = read_video(self.video_paths[video_idx], first, last)
        if self.frame_rate is not None:
            picks = self.resampling_idxs[video_idx][clip_idx]
            if isinstance(picks, torch.Tensor):
                picks = picks - picks[0]  # relative to the clip's first frame
            video = video[picks]
            info["video_fps"] = self.frame_rate
        if len(video) != self.num_frames:
            # torchvision asserts this too: the file decoded to other frames than indexed
            raise AssertionError(f"{video.shape} x {self.num_frames}")
        if self.output_format == "TCHW":
            video = video.permute(0, 3, 1, 2)
        return video, audio, info, video_idx

    def __getstate__(self):
        # the timestamps as one tensor plus the lengths; clips are rebuilt on load
        state = self.__dict__.copy()
        state["video_pts_sizes"] = [len(v) for v in self.video_pts]
        pts = [torch.as_tensor(v).to(torch.int64) for v in self.video_pts]
        state["video_pts"] = torch.cat(pts) if pts else torch.tensor([], dtype=torch.int64)
        for key in ("clips", "resampling_idxs", "cumulative_sizes"):
            state.pop(key, None)
        state["_version"] = 2
        return state

    def __setstate__(self, state):
        if "_version" not in state:
            self.__dict__ = state
            return
        state = dict(state)
        sizes = state.pop("video_pts_sizes")
        state["video_pts"] = list(torch.split(state["video_pts"], sizes, dim=0))
        self.__dict__ = state
        self.compute_clips(self.num_frames, self.step, self.frame_rate)
