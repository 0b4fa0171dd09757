"""Kinetics-400/600/700 action recognition: ``root/<split>/<class>/<video>``, with the
download of the official video archives and their sorting into class folders."""

import csv
import os
import urllib.parse
from functools import partial
from multiprocessing import Pool

from ._video_datasets import _ClipDataset
from .utils import check_integrity, download_and_extract_archive, download_url, verify_str_arg


def _dl_wrap(tarpath, videopath, line):
    download_and_extract_archive(line, tarpath, videopath)


class Kinetics(_ClipDataset):
    """Kinetics: every clip of ``frames_per_clip`` frames of ``root/<split>/<class>/*``;
    items ``(video, audio, label)``.

    Args:
        root (str or os.PathLike): the folder holding the split folders.
        frames_per_clip (int), step_between_clips (int), frame_rate (float, optional): the
            clips (see :class:`~numtorchvision.datasets.video_utils.VideoClips`).
        num_classes (str): ``"400"``, ``"600"`` or ``"700"``.
        split (str): ``"train"``, ``"val"`` or ``"test"``.
        transform (callable, optional): applied to the video tensor.
        extensions (tuple of str): the video file endings.
        download (bool): fetch the split's archives and sort the videos into class folders.
        num_download_workers (int): processes downloading archives.
        num_workers (int): processes reading the videos' timestamps.
        output_format (str): ``"TCHW"`` (default) or ``"THWC"``.
    """

    _TAR_URLS = {
        "400": "https://s3.amazonaws.com/kinetics/400/{split}/k400_{split}_path.txt",
        "600": "https://s3.amazonaws.com/kinetics/600/{split}/k600_{split}_path.txt",
        "700": "https://s3.amazonaws.com/kinetics/700_2020/{split}/k700_2020_{split}_path.txt",
    }
    _ANNOTATION_URLS = {
        "400": "https://s3.amazonaws.com/kinetics/400/annotations/{split}.csv",
        "600": "https://s3.amazonaws.com/kinetics/600/annotations/{split}.csv",
        "700": "https://s3.amazonaws.com/kinetics/700_2020/annotations/{split}.csv",
    }

    def __init__(self, root, frames_per_clip, num_classes="400", split="train",
                 frame_rate=None, step_between_clips=1, transform=None,
                 extensions=("avi", "mp4"), download=False, num_download_workers=1,
                 num_workers=1, _precomputed_metadata=None, _video_width=0, _video_height=0,
                 _video_min_dimension=0, _audio_samples=0, _audio_channels=0, _legacy=False,
                 output_format="TCHW"):
        self.num_classes = verify_str_arg(num_classes, arg="num_classes",
                                          valid_values=["400", "600", "700"])
        self.extensions, self.num_download_workers = extensions, num_download_workers
        self.root, self._legacy = root, _legacy
        if _legacy:
            # the old layout: class folders directly under root, frames THWC
            self.split_folder, self.split, output_format = root, "unknown", "THWC"
            if download:
                raise ValueError("Cannot download the videos using legacy_structure.")
        else:
            self.split_folder = os.path.join(root, split)
            self.split = verify_str_arg(split, arg="split", valid_values=["train", "val", "test"])
        if download:
            self.download_and_process_videos()
        super().__init__(self.root)
        _, self.video_clips = self._scan(
            self.split_folder, extensions, frames_per_clip, step_between_clips, frame_rate,
            _precomputed_metadata, num_workers, output_format,
            (_video_width, _video_height, _video_min_dimension, _audio_samples, _audio_channels))
        self.transform = transform

    @property
    def metadata(self):
        return self.video_clips.metadata

    def _label(self, clip_video):
        return self.samples[clip_video][1]  # every video of the split is a clip source

    def download_and_process_videos(self):
        """Download the split's video archives (unless the split folder exists), then sort
        the videos into class folders."""
        self._download_videos()
        self._make_ds_structure()

    def _download_videos(self):
        if os.path.exists(self.split_folder):
            return  # already downloaded (or laid out by hand)
        tars = os.path.join(self.root, "tars")
        lists = os.path.join(self.root, "files")
        list_url = self._TAR_URLS[self.num_classes].format(split=self.split)
        list_file = os.path.join(lists, os.path.basename(list_url))
        if not check_integrity(list_file):
            download_url(list_url, lists)
        with open(list_file) as f:
            urls = [urllib.parse.quote(line, safe="/,:") for line in f.read().splitlines()]
        fetch = partial(_dl_wrap, tars, self.split_folder)
        if self.num_download_workers == 1:
            for url in urls:
                fetch(url)
        else:
            with Pool(self.num_download_workers) as pool:
                pool.map(fetch, urls)

    def _make_ds_structure(self):
        """Move each ``<youtube_id>_<start>_<end>.mp4`` of the split folder into the folder of
        its label (from the split's annotation CSV)."""
        annotations = os.path.join(self.root, "annotations")
        csv_file = os.path.join(annotations, f"{self.split}.csv")
        if not check_integrity(csv_file):
            download_url(self._ANNOTATION_URLS[self.num_classes].format(split=self.split),
                         annotations)
        with open(csv_file) as f:
            for row in csv.DictReader(f):
                name = (f"{row['youtube_id']}_{int(row['time_start']):06}_"
                        f"{int(row['time_end']):06}.mp4")
                label = row["label"].replace(" ", "_")
                for ch in "'()":
                    label = label.replace(ch, "")
                os.makedirs(os.path.join(self.split_folder, label), exist_ok=True)
                found = os.path.join(self.split_folder, name)
                if os.path.isfile(found):
                    os.replace(found, os.path.join(self.split_folder, label, name))
