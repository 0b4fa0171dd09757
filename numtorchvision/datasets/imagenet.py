"""ImageNet 2012 (ILSVRC2012) classification from the official archives, which must be
downloaded by hand into ``root``: the devkit (class names and validation labels, parsed once
into ``root/meta.bin``) and the train / val image archives (unpacked once into
``root/train/<wnid>/`` and ``root/val/<wnid>/``)."""

import os
import shutil
import tempfile

from ._listed import check_split, load_mat
from .folder import ImageFolder
from .utils import check_integrity, extract_archive

ARCHIVE_META = {
    "train": ("ILSVRC2012_img_train.tar", "1d675b47d978889d74fa0da5fadfb00e"),
    "val": ("ILSVRC2012_img_val.tar", "29b22e2961454d5413ddabcf34fc5622"),
    "devkit": ("ILSVRC2012_devkit_t12.tar.gz", "fa75699e90414af021442c21a62c3abf"),
}
META_FILE = "meta.bin"


class ImageNet(ImageFolder):
    """ImageNet 2012 classification (1000 classes).

    Place ``ILSVRC2012_devkit_t12.tar.gz`` and ``ILSVRC2012_img_train.tar`` or
    ``ILSVRC2012_img_val.tar`` in ``root``; they are unpacked on first use.

    Args:
        root (str or pathlib.Path): the folder with the archives (or the unpacked folders).
        split (str): ``"train"`` (default) or ``"val"``.
        transform, target_transform, loader: as :class:`ImageFolder`.

    Attributes:
        classes (list of tuples of str): the names of each class; class_to_idx maps every
        name to its index; wnids (list of str), wnid_to_idx (dict): the WordNet ids.
    """

    def __init__(self, root, split="train", **kwargs):
        root = self.root = os.path.expanduser(root)
        self.split = check_split(split, ("train", "val"))
        self.parse_archives()
        super().__init__(self.split_folder, **kwargs)
        # ImageFolder found the wnid folders under the split folder and took it as its root
        self.root, self.wnids, self.wnid_to_idx = root, self.classes, self.class_to_idx
        wnid_to_classes = load_meta_file(root)[0]
        self.classes = [wnid_to_classes[wnid] for wnid in self.wnids]
        self.class_to_idx = {name: i for i, names in enumerate(self.classes) for name in names}

    def parse_archives(self):
        """Unpack the devkit and this split's archive unless that was done before."""
        if not check_integrity(os.path.join(self.root, META_FILE)):
            parse_devkit_archive(self.root)
        unpack = parse_train_archive if self.split == "train" else parse_val_archive
        if not os.path.isdir(self.split_folder):
            unpack(self.root)

    @property
    def split_folder(self):
        return os.path.join(self.root, self.split)

    def extra_repr(self):
        return f"Split: {self.split}"


def load_meta_file(root, file=None):
    """``(wnid_to_classes, val_wnids)`` from the meta file written by the devkit parser."""
    from numtorch import load

    path = os.path.join(root, file or META_FILE)
    if not check_integrity(path):
        raise RuntimeError(f"The meta file {path} is not present in the root "
                           f"directory or is corrupted. This file is automatically created "
                           f"by the ImageNet dataset.")
    return load(path, weights_only=True)


def _verified(root, kind, file):
    name, md5 = ARCHIVE_META[kind]
    name = file or name
    if not check_integrity(os.path.join(root, name), md5):
        raise RuntimeError(f"The archive {name} is not present in the root directory or is "
                           f"corrupted. You need to download it externally and place it in "
                           f"{root}.")
    return os.path.join(root, name)


def parse_devkit_archive(root, file=None):
    """Read the class names and validation labels from the devkit archive into
    ``root/meta.bin``."""
    from numtorch import save

    archive = _verified(root, "devkit", file)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        extract_archive(archive, tmp)
        data = os.path.join(tmp, "ILSVRC2012_devkit_t12", "data")
        synsets = load_mat(os.path.join(data, "meta.mat"), squeeze_me=True)["synsets"]
        leaves = [s for s in synsets if int(s["num_children"]) == 0]  # the 1000 classes
        wnid_of = {int(s["ILSVRC2012_ID"]): str(s["WNID"]) for s in leaves}
        wnid_to_classes = {str(s["WNID"]): tuple(str(s["words"]).split(", ")) for s in leaves}
        with open(os.path.join(data, "ILSVRC2012_validation_ground_truth.txt")) as f:
            val_wnids = [wnid_of[int(line)] for line in f if line.strip()]
    save((wnid_to_classes, val_wnids), os.path.join(root, META_FILE))


def parse_train_archive(root, file=None, folder="train"):
    """Unpack the train archive (one ``<wnid>.tar`` per class) into ``root/<folder>/<wnid>``."""
    archive = _verified(root, "train", file)
    train = os.path.join(root, folder)
    extract_archive(archive, train)
    for name in sorted(os.listdir(train)):
        inner = os.path.join(train, name)
        if name.endswith(".tar") and os.path.isfile(inner):
            extract_archive(inner, os.path.splitext(inner)[0], remove_finished=True)


def parse_val_archive(root, file=None, wnids=None, folder="val"):
    """Unpack the flat val archive into ``root/<folder>`` and sort its images, in file-name
    order, into one folder per WordNet id (``wnids``, default from the meta file)."""
    archive = _verified(root, "val", file)
    if wnids is None:
        wnids = load_meta_file(root)[1]
    val = os.path.join(root, folder)
    extract_archive(archive, val)
    images = sorted(os.path.join(val, name) for name in os.listdir(val))
    for wnid in set(wnids):
        os.mkdir(os.path.join(val, wnid))
    for wnid, path in zip(wnids, images):
        shutil.move(path, os.path.join(val, wnid, os.path.basename(path)))
