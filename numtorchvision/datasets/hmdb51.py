"""HMDB51 action recognition: ``root/<class>/*.avi`` with the per-class split files."""

import glob
import os

from ._video_datasets import _ClipDataset


class HMDB51(_ClipDataset):
    """HMDB51: every clip of ``frames_per_clip`` frames of the videos the fold's
    ``*test_split<fold>.txt`` files tag 1 (train) or 2 (test); items ``(video, audio,
    label)``.

    Arguments as :class:`~numtorchvision.datasets.UCF101`.
    """

    data_url = "https://serre-lab.clps.brown.edu/wp-content/uploads/2013/10/hmdb51_org.rar"
    splits = {
        "url": "https://serre-lab.clps.brown.edu/wp-content/uploads/2013/10/test_train_splits.rar",
        "md5": "15e67781e70dcfbdce2d7dbb9b3344b5",
    }
    TRAIN_TAG = 1
    TEST_TAG = 2

    def __init__(self, root, annotation_path, frames_per_clip, step_between_clips=1,
                 frame_rate=None, fold=1, train=True, transform=None, _precomputed_metadata=None,
                 num_workers=1, _video_width=0, _video_height=0, _video_min_dimension=0,
                 _audio_samples=0, output_format="THWC"):
        super().__init__(root)
        self._check_fold(fold)
        video_list, clips = self._scan(self.root, ("avi",), frames_per_clip, step_between_clips,
                                       frame_rate, _precomputed_metadata, num_workers,
                                       output_format, (_video_width, _video_height,
                                                       _video_min_dimension, _audio_samples, 0))
        self.fold, self.train = fold, train
        self._select(clips, self._select_fold(video_list, annotation_path, fold, train))
        self.transform = transform

    def _select_fold(self, video_list, annotation_path, fold, train):
        wanted = self.TRAIN_TAG if train else self.TEST_TAG
        chosen = set()
        for split_file in glob.glob(os.path.join(annotation_path, f"*test_split{fold}.txt")):
            with open(split_file) as f:
                # "<video file name> <tag>" per line, tag 0 meaning unused
                for name, tag in (line.split() for line in f if line.strip()):
                    if int(tag) == wanted:
                        chosen.add(name)
        return [i for i, path in enumerate(video_list) if os.path.basename(path) in chosen]
