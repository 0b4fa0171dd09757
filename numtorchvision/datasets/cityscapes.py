"""Cityscapes: street scenes with fine or coarse instance / semantic / colour masks and
polygon JSON annotations, read from ``leftImg8bit/`` and ``gtFine/`` or ``gtCoarse/``."""

import json
import os
from collections import namedtuple

from .._pil import pil
from ._listed import transformed
from .utils import extract_archive, iterable_to_str, verify_str_arg
from .vision import VisionDataset

CityscapesClass = namedtuple("CityscapesClass", ["name", "id", "train_id", "category",
                                                 "category_id", "has_instances",
                                                 "ignore_in_eval", "color"])

_CATEGORIES = ["void", "flat", "construction", "object", "nature", "sky", "human", "vehicle"]

# name, id, train id (255: not trained on), category index, has instances, ignored in
# evaluation, colour; the label table of the Cityscapes scripts
_LABELS = [
    ("unlabeled", 0, 255, 0, False, True, (0, 0, 0)),
    ("ego vehicle", 1, 255, 0, False, True, (0, 0, 0)),
    ("rectification border", 2, 255, 0, False, True, (0, 0, 0)),
    ("out of roi", 3, 255, 0, False, True, (0, 0, 0)),
    ("static", 4, 255, 0, False, True, (0, 0, 0)),
    ("dynamic", 5, 255, 0, False, True, (111, 74, 0)),
    ("ground", 6, 255, 0, False, True, (81, 0, 81)),
    ("road", 7, 0, 1, False, False, (128, 64, 128)),
    ("sidewalk", 8, 1, 1, False, False, (244, 35, 232)),
    ("parking", 9, 255, 1, False, True, (250, 170, 160)),
    ("rail track", 10, 255, 1, False, True, (230, 150, 140)),
    ("building", 11, 2, 2, False, False, (70, 70, 70)),
    ("wall", 12, 3, 2, False, False, (102, 102, 156)),
    ("fence", 13, 4, 2, False, False, (190, 153, 153)),
    ("guard rail", 14, 255, 2, False, True, (180, 165, 180)),
    ("bridge", 15, 255, 2, False, True, (150, 100, 100)),
    ("tunnel", 16, 255, 2, False, True, (150, 120, 90)),
    ("pole", 17, 5, 3, False, False, (153, 153, 153)),
    ("polegroup", 18, 255, 3, False, True, (153, 153, 153)),
    ("traffic light", 19, 6, 3, False, False, (250, 170, 30)),
    ("traffic sign", 20, 7, 3, False, False, (220, 220, 0)),
    ("vegetation", 21, 8, 4, False, False, (107, 142, 35)),
    ("terrain", 22, 9, 4, False, False, (152, 251, 152)),
    ("sky", 23, 10, 5, False, False, (70, 130, 180)),
    ("person", 24, 11, 6, True, False, (220, 20, 60)),
    ("rider", 25, 12, 6, True, False, (255, 0, 0)),
    ("car", 26, 13, 7, True, False, (0, 0, 142)),
    ("truck", 27, 14, 7, True, False, (0, 0, 70)),
    ("bus", 28, 15, 7, True, False, (0, 60, 100)),
    ("caravan", 29, 255, 7, True, True, (0, 0, 90)),
    ("trailer", 30, 255, 7, True, True, (0, 0, 110)),
    ("train", 31, 16, 7, True, False, (0, 80, 100)),
    ("motorcycle", 32, 17, 7, True, False, (0, 0, 230)),
    ("bicycle", 33, 18, 7, True, False, (119, 11, 32)),
    ("license plate", -1, -1, 7, False, True, (0, 0, 142)),
]

# target type -> the file name ending after "<city>_<seq>_<frame>_<gtFine|gtCoarse>_"
_TARGET_SUFFIX = {"instance": "instanceIds.png", "semantic": "labelIds.png",
                  "color": "color.png", "polygon": "polygons.json"}
_SPLITS = {"fine": ("train", "test", "val"), "coarse": ("train", "train_extra", "val")}


class Cityscapes(VisionDataset):
    """Cityscapes: each item is an RGB PIL image and its target(s).

    Args:
        root (str or os.PathLike): the folder holding ``leftImg8bit/`` and ``gtFine/`` or
            ``gtCoarse/`` (or their zip files, unpacked on first use).
        split (str): ``"train"``, ``"val"``, ``"test"`` (fine) or ``"train"``,
            ``"train_extra"``, ``"val"`` (coarse).
        mode (str): ``"fine"`` or ``"coarse"``.
        target_type (str or list of str): ``"instance"``, ``"semantic"``, ``"color"`` (PIL
            images) or ``"polygon"`` (the parsed JSON); a list gives a tuple of targets.
        transform, target_transform, transforms (callable, optional): as in VisionDataset.
    """

    CityscapesClass = CityscapesClass
    classes = [CityscapesClass(name, id_, train_id, _CATEGORIES[cat], cat, inst, ignore, color)
               for name, id_, train_id, cat, inst, ignore, color in _LABELS]

    def __init__(self, root, split="train", mode="fine", target_type="instance",
                 transform=None, target_transform=None, transforms=None):
        super().__init__(root, transforms, transform, target_transform)
        self.mode = {"fine": "gtFine"}.get(mode, "gtCoarse")
        self.images_dir, self.targets_dir = (os.path.join(self.root, top, split)
                                             for top in ("leftImg8bit", self.mode))
        self.split = split
        self.images, self.targets = [], []
        verify_str_arg(mode, "mode", ("fine", "coarse"))
        valid = _SPLITS[mode]
        verify_str_arg(split, "split", valid,
                       f"Unknown value '{split}' for argument split if mode is '{mode}'. "
                       f"Valid values are {{{iterable_to_str(valid)}}}.")
        self.target_type = target_type if isinstance(target_type, list) else [target_type]
        for kind in self.target_type:
            verify_str_arg(kind, "target_type", ("instance", "semantic", "polygon", "color"))
        if not (os.path.isdir(self.images_dir) and os.path.isdir(self.targets_dir)):
            self._unpack_zips()
        for city in os.listdir(self.images_dir):
            image_dir = os.path.join(self.images_dir, city)
            target_dir = os.path.join(self.targets_dir, city)
            for name in os.listdir(image_dir):
                stem = name.split("_leftImg8bit")[0]
                self.images.append(os.path.join(image_dir, name))
                self.targets.append([
                    os.path.join(target_dir, f"{stem}_{self._get_target_suffix(self.mode, t)}")
                    for t in self.target_type])

    def _unpack_zips(self):
        images_zip = os.path.join(self.root, "leftImg8bit_trainextra.zip"
                                  if self.split == "train_extra" else
                                  "leftImg8bit_trainvaltest.zip")
        targets_zip = os.path.join(self.root, f"{self.mode}_trainvaltest.zip"
                                   if self.mode == "gtFine" else f"{self.mode}.zip")
        if not (os.path.isfile(images_zip) and os.path.isfile(targets_zip)):
            raise RuntimeError("Dataset not found or incomplete. Please make sure all required "
                               "folders for the specified \"split\" and \"mode\" are inside the "
                               "\"root\" directory")
        extract_archive(from_path=images_zip, to_path=self.root)
        extract_archive(from_path=targets_zip, to_path=self.root)

    def __getitem__(self, index):
        image = pil().open(self.images[index]).convert("RGB")
        targets = [self._load_json(path) if kind == "polygon" else pil().open(path)
                   for kind, path in zip(self.target_type, self.targets[index])]
        target = tuple(targets) if len(targets) > 1 else targets[0]
        return transformed(self, image, target)

    def __len__(self):
        return len(self.images)

    def extra_repr(self):
        return f"Split: {self.split}\nMode: {self.mode}\nType: {self.target_type}"

    @staticmethod
    def _load_json(path):
        with open(path) as f:
            return json.load(f)

    @staticmethod
    def _get_target_suffix(mode, target_type):
        return f"{mode}_{_TARGET_SUFFIX[target_type]}"
