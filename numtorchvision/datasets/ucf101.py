"""UCF101 action recognition: ``root/<class>/*.avi`` with the official train/test lists."""

import os

from ._video_datasets import _ClipDataset


class UCF101(_ClipDataset):
    """UCF101: every clip of ``frames_per_clip`` frames of the videos in the fold's
    ``trainlistNN.txt`` / ``testlistNN.txt``; items ``(video, audio, label)``.

    Args:
        root (str or os.PathLike): the folder of class folders of ``.avi`` files.
        annotation_path (str): the folder holding the split lists.
        frames_per_clip (int), step_between_clips (int), frame_rate (float, optional): the
            clips (see :class:`~numtorchvision.datasets.video_utils.VideoClips`).
        fold (int): 1, 2 or 3.
        train (bool): the train or the test list.
        transform (callable, optional): applied to the video tensor.
        num_workers (int): processes reading the videos' timestamps.
        output_format (str): ``"THWC"`` (default) or ``"TCHW"``.
    """

    def __init__(self, root, annotation_path, frames_per_clip, step_between_clips=1,
                 frame_rate=None, fold=1, train=True, transform=None, _precomputed_metadata=None,
                 num_workers=1, _video_width=0, _video_height=0, _video_min_dimension=0,
                 _audio_samples=0, output_format="THWC"):
        super().__init__(root)
        self._check_fold(fold)
        self.fold, self.train = fold, train
        video_list, clips = self._scan(self.root, ("avi",), frames_per_clip, step_between_clips,
                                       frame_rate, _precomputed_metadata, num_workers,
                                       output_format, (_video_width, _video_height,
                                                       _video_min_dimension, _audio_samples, 0))
        self._select(clips, self._select_fold(video_list, annotation_path, fold, train))
        self.transform = transform

    def _select_fold(self, video_list, annotation_path, fold, train):
        name = f"{'train' if train else 'test'}list{fold:02d}.txt"
        with open(os.path.join(annotation_path, name)) as f:
            # "Class/v_Class_g01_c01.avi 1": the path relative to root, then the label
            chosen = {os.path.join(self.root, *line.strip().split(" ")[0].split("/"))
                      for line in f}
        return [i for i, path in enumerate(video_list) if path in chosen]
