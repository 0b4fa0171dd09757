"""Pascal VOC 2007-2012: detection (the per-image XML annotations as nested dicts) and
semantic segmentation (the palette PNG masks), read from the VOCdevkit folder tree."""

import collections
import os
from xml.etree.ElementTree import parse as _parse_xml

from .._pil import pil
from ._listed import transformed
from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

_HOST = "https://thor.robots.ox.ac.uk/pascal/VOC/"

# year key -> (folder under root, archive URL, archive file name, archive MD5); the 2008
# archive is saved under the 2012 name, as torchvision does
DATASET_YEAR_DICT = {
    key: {"url": _HOST + url, "filename": filename, "md5": md5, "base_dir": base_dir}
    for key, (base_dir, url, filename, md5) in {
        "2012": ("VOCdevkit/VOC2012", "voc2012/VOCtrainval_11-May-2012.tar",
                 "VOCtrainval_11-May-2012.tar", "6cd6e144f989b92b3379bac3b3de84fd"),
        "2011": ("TrainVal/VOCdevkit/VOC2011", "voc2011/VOCtrainval_25-May-2011.tar",
                 "VOCtrainval_25-May-2011.tar", "6c3384ef61512963050cb5d687e5bf1e"),
        "2010": ("VOCdevkit/VOC2010", "voc2010/VOCtrainval_03-May-2010.tar",
                 "VOCtrainval_03-May-2010.tar", "da459979d0c395079b5c75ee67908abb"),
        "2009": ("VOCdevkit/VOC2009", "voc2009/VOCtrainval_11-May-2009.tar",
                 "VOCtrainval_11-May-2009.tar", "a3e00b113cfcfebf17e343f59da3caa1"),
        "2008": ("VOCdevkit/VOC2008", "voc2008/VOCtrainval_14-Jul-2008.tar",
                 "VOCtrainval_11-May-2012.tar", "2629fa636546599198acfcfbfcf1904a"),
        "2007": ("VOCdevkit/VOC2007", "voc2007/VOCtrainval_06-Nov-2007.tar",
                 "VOCtrainval_06-Nov-2007.tar", "c52e279531787c972589f7e41ab4ae64"),
        "2007-test": ("VOCdevkit/VOC2007", "voc2007/VOCtest_06-Nov-2007.tar",
                      "VOCtest_06-Nov-2007.tar", "b6e924de25625d8de591ea690078ad9f"),
    }.items()
}


class _VOCBase(VisionDataset):
    """The part both VOC tasks share: the year/image-set checks, the download, and the list
    of image ids in ``ImageSets/<_SPLITS_DIR>/<image_set>.txt``."""

    _SPLITS_DIR = ""
    _TARGET_DIR = ""
    _TARGET_FILE_EXT = ""

    def __init__(self, root, year="2012", image_set="train", download=False, transform=None,
                 target_transform=None, transforms=None):
        super().__init__(root, transforms, transform, target_transform)
        self.year = verify_str_arg(year, "year", [str(y) for y in range(2007, 2013)])
        sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        self.image_set = verify_str_arg(image_set, "image_set", sets)
        entry = DATASET_YEAR_DICT["2007-test" if (year, image_set) == ("2007", "test")
                                  else year]
        self.url, self.filename, self.md5 = entry["url"], entry["filename"], entry["md5"]
        voc_root = os.path.join(self.root, entry["base_dir"])
        if download:
            download_and_extract_archive(self.url, self.root, filename=self.filename,
                                         md5=self.md5)
        if not os.path.isdir(voc_root):
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to "
                               "download it")
        split_file = os.path.join(voc_root, "ImageSets", self._SPLITS_DIR,
                                  image_set.rstrip("\n") + ".txt")
        with open(split_file) as f:
            ids = [line.strip() for line in f]
        self.images = [os.path.join(voc_root, "JPEGImages", i + ".jpg") for i in ids]
        self.targets = [os.path.join(voc_root, self._TARGET_DIR, i + self._TARGET_FILE_EXT)
                        for i in ids]

    def _load_target(self, path):
        raise NotImplementedError

    def __getitem__(self, index):
        image = pil().open(self.images[index]).convert("RGB")
        target = self._load_target(self.targets[index])
        return transformed(self, image, target)

    def __len__(self):
        return len(self.targets)


class VOCSegmentation(_VOCBase):
    """Pascal VOC segmentation: each item is an RGB PIL image and its class mask (a palette
    PIL image from ``SegmentationClass/``).

    Args:
        root (str or os.PathLike): the folder holding ``VOCdevkit/`` (``TrainVal/VOCdevkit``
            for 2011).
        year (str): ``"2007"`` to ``"2012"``.
        image_set (str): ``"train"``, ``"trainval"``, ``"val"`` (and ``"test"`` for 2007).
        download (bool): fetch and unpack the year's archive first.
        transform, target_transform, transforms (callable, optional): as in VisionDataset.
    """

    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    @property
    def masks(self):
        return self.targets

    def _load_target(self, path):
        return pil().open(path)


class VOCDetection(_VOCBase):
    """Pascal VOC detection: each item is an RGB PIL image and its ``Annotations/`` XML as a
    nested dict (``{"annotation": {..., "object": [...]}}``; leaf values are strings).

    Arguments as :class:`VOCSegmentation`.
    """

    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    @property
    def annotations(self):
        return self.targets

    def _load_target(self, path):
        return self.parse_voc_xml(_parse_xml(path).getroot())

    @staticmethod
    def parse_voc_xml(node):
        """``node`` (an ElementTree element) as ``{tag: value}``: a leaf's value is its
        stripped text; an element with children maps each child tag to its value, or to the
        list of values when the tag repeats. ``object`` under ``annotation`` is always a list,
        since an image may hold any number of objects."""
        children = list(node)
        if not children:
            # an empty element (no text at all) leaves no key behind
            return {node.tag: node.text.strip()} if node.text else {}
        grouped = collections.defaultdict(list)
        for child in map(VOCDetection.parse_voc_xml, children):
            for tag, value in child.items():
                grouped[tag].append(value)
        if node.tag == "annotation":
            # one level more, unwrapped below: a list, possibly empty, even for one object
            grouped["object"] = [grouped["object"]]
        return {node.tag: {tag: values[0] if len(values) == 1 else values
                           for tag, values in grouped.items()}}
