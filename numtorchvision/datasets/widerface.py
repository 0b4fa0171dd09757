"""WIDER FACE: face detection, with the boxes and attributes of ``wider_face_split/``'s
ground-truth text files."""

import os

import numpy as np

import numtorch as torch

from .._pil import pil
from .utils import (
    download_and_extract_archive,
    download_file_from_google_drive,
    extract_archive,
    verify_str_arg,
)
from .vision import VisionDataset

# the columns of a box line after x, y, w, h, in file order
_ATTRIBUTES = ("blur", "expression", "illumination", "occlusion", "pose", "invalid")


class WIDERFace(VisionDataset):
    """WIDER FACE: each item is a PIL image and, except for the test split, a dict with
    ``"bbox"`` (``(N, 4)`` int64 x, y, w, h) and one ``(N,)`` int64 tensor per attribute
    (``blur``, ``expression``, ``illumination``, ``occlusion``, ``pose``, ``invalid``); test
    targets are ``None``.

    Args:
        root (str or os.PathLike): the folder holding ``widerface/`` (``wider_face_split``,
            ``WIDER_train``, ``WIDER_val``, ``WIDER_test``).
        split (str): ``"train"``, ``"val"`` or ``"test"``.
        transform, target_transform (callable, optional): for the image / the target.
        download (bool): fetch the image zips (Google Drive, needs ``gdown``) and the
            annotation zip first.
    """

    BASE_FOLDER = "widerface"
    FILE_LIST = [
        ("15hGDLhsx8bLgLcIRD5DhYt5iBxnjNF1M", "3fedf70df600953d25982bcd13d91ba2",
         "WIDER_train.zip"),
        ("1GUCogbp16PMGa39thoMMeWxp7Rp5oM8Q", "dfa7d7e790efa35df3788964cf0bbaea",
         "WIDER_val.zip"),
        ("1HIfDbVEWKmsYKJZm4lchTBDLW5N7dY5T", "e5d8f4248ed24c334bbd12f49c29dd40",
         "WIDER_test.zip"),
    ]
    ANNOTATIONS_FILE = (
        "http://shuoyang1213.me/WIDERFACE/support/bbx_annotation/wider_face_split.zip",
        "0e3767bcf0e326556d407bf5bff5d27c", "wider_face_split.zip")

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False):
        super().__init__(root=os.path.join(root, self.BASE_FOLDER), transform=transform,
                         target_transform=target_transform)
        self.split = verify_str_arg(split, "split", ("train", "val", "test"))
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download and prepare it")
        self.img_info = []
        if self.split == "test":
            self.parse_test_annotations_file()
        else:
            self.parse_train_val_annotations_file()

    def __getitem__(self, index):
        info = self.img_info[index]
        image = pil().open(info["img_path"])
        if self.transform is not None:
            image = self.transform(image)
        target = None if self.split == "test" else info["annotations"]
        if self.target_transform is None:
            return image, target
        return image, self.target_transform(target)

    def __len__(self):
        return len(self.img_info)

    def extra_repr(self):
        return f"Split: {self.split}"

    def _image_path(self, name):
        return os.path.join(self.root, f"WIDER_{self.split}", "images", name)

    def parse_train_val_annotations_file(self):
        """Read ``wider_face_<split>_bbx_gt.txt``: per image its path, its box count n, then
        max(n, 1) lines of ten integers (an image without faces has one line of zeros).

        The box lines of all images are parsed by one NumPy call; each image's tensors own a
        copy of its rows, as torchvision's (cloned) ones do."""
        path = os.path.join(self.root, "wider_face_split",
                            f"wider_face_{self.split}_bbx_gt.txt")
        with open(path) as f:
            lines = f.read().splitlines()
        images, box_lines, pos = [], [], 0
        while pos < len(lines) and lines[pos].strip():
            rows = max(int(lines[pos + 1]), 1)
            images.append((lines[pos].rstrip(), len(box_lines), len(box_lines) + rows))
            box_lines += lines[pos + 2:pos + 2 + rows]
            pos += 2 + rows
        table = np.array(" ".join(box_lines).split(), dtype=np.int64).reshape(-1, 10)
        boxes = np.ascontiguousarray(table[:, :4])
        columns = np.ascontiguousarray(table[:, 4:].T)  # one contiguous row per attribute
        for name, lo, hi in images:
            annotations = {"bbox": torch.from_numpy(boxes[lo:hi].copy())}
            annotations.update((key, torch.from_numpy(columns[k, lo:hi].copy()))
                               for k, key in enumerate(_ATTRIBUTES))
            self.img_info.append({"img_path": self._image_path(name),
                                  "annotations": annotations})

    def parse_test_annotations_file(self):
        """Read ``wider_face_test_filelist.txt``: one image path per line."""
        path = os.path.join(self.root, "wider_face_split", "wider_face_test_filelist.txt")
        with open(path) as f:
            self.img_info = [{"img_path": self._image_path(line.rstrip())} for line in f]

    def _check_integrity(self):
        # the unpacked folders are what is read; the zips themselves need not stay
        names = [name for _, _, name in self.FILE_LIST] + [self.ANNOTATIONS_FILE[2]]
        return all(os.path.isdir(os.path.join(self.root, os.path.splitext(n)[0]))
                   for n in names)

    def download(self):
        """Fetch and unpack the three image zips and the annotation zip."""
        if self._check_integrity():
            return
        for file_id, md5, name in self.FILE_LIST:
            download_file_from_google_drive(file_id, self.root, name, md5)
            extract_archive(os.path.join(self.root, name))
        url, md5, _ = self.ANNOTATIONS_FILE
        download_and_extract_archive(url=url, download_root=self.root, md5=md5)
