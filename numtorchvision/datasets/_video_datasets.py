"""The base of the action-recognition video datasets: a VideoClips over the class folders'
videos, items ``(video clip, audio, class index)``."""

from .folder import find_classes, make_dataset
from .video_utils import VideoClips
from .vision import VisionDataset


class _ClipDataset(VisionDataset):
    """Videos under ``folder/<class>/`` with one of ``extensions``; ``self.indices`` (the
    chosen videos, set by the subclass through :meth:`_select`) index ``self.samples``."""

    def _scan(self, folder, extensions, frames_per_clip, step_between_clips, frame_rate,
              precomputed, num_workers, output_format, sizes):
        self.classes, class_to_idx = find_classes(folder)
        self.samples = make_dataset(folder, class_to_idx, extensions, is_valid_file=None)
        video_list = [path for path, _ in self.samples]
        width, height, min_dim, audio_samples, audio_channels = sizes
        clips = VideoClips(video_list, frames_per_clip, step_between_clips, frame_rate,
                           precomputed, num_workers=num_workers, _video_width=width,
                           _video_height=height, _video_min_dimension=min_dim,
                           _audio_samples=audio_samples, _audio_channels=audio_channels,
                           output_format=output_format)
        return video_list, clips

    @staticmethod
    def _check_fold(fold):
        if fold not in (1, 2, 3):
            raise ValueError(f"fold should be between 1 and 3, got {fold}")

    def _select(self, clips, indices):
        self.full_video_clips = clips
        self.indices = indices
        self.video_clips = clips.subset(indices)

    def __len__(self):
        return self.video_clips.num_clips()

    @property
    def metadata(self):
        return self.full_video_clips.metadata

    def _label(self, clip_video):
        """The class index of the video a clip of ``self.video_clips`` comes from."""
        return self.samples[self.indices[clip_video]][1]

    def __getitem__(self, idx):
        video, audio, _, clip_video = self.video_clips.get_clip(idx)
        if self.transform is not None:
            video = self.transform(video)
        return video, audio, self._label(clip_video)
