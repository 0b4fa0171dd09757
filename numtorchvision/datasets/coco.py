"""MS COCO captions and detection, reading the annotation JSON directly (no pycocotools)."""

import itertools
import json
import os
from collections import defaultdict

from .._pil import pil
from .vision import VisionDataset


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


class COCO:
    """An index over a COCO annotation file, with the lookups of pycocotools' ``COCO`` that
    the datasets and training scripts use.

    Attributes:
        dataset (dict): the parsed JSON.
        imgs, anns, cats (dict): images, annotations and categories by id.
        imgToAnns (dict): image id -> its annotations, in file order.
        catToImgs (dict): category id -> ids of the images with such an annotation.
    """

    def __init__(self, annotation_file=None):
        self.dataset = {}
        self.anns, self.cats, self.imgs = {}, {}, {}
        self.imgToAnns, self.catToImgs = defaultdict(list), defaultdict(list)
        if annotation_file is not None:
            with open(annotation_file) as f:
                dataset = json.load(f)
            if not isinstance(dataset, dict):
                raise RuntimeError(f"{annotation_file}: a COCO annotation file holds a JSON "
                                   f"object, got {type(dataset).__name__}")
            self.dataset = dataset
            self.createIndex()

    def createIndex(self):
        """Build the lookup tables from :attr:`dataset`."""
        for ann in self.dataset.get("annotations", []):
            self.imgToAnns[ann["image_id"]].append(ann)
            self.anns[ann["id"]] = ann
        for img in self.dataset.get("images", []):
            self.imgs[img["id"]] = img
        for cat in self.dataset.get("categories", []):
            self.cats[cat["id"]] = cat
        if "categories" in self.dataset:
            for ann in self.dataset.get("annotations", []):
                self.catToImgs[ann["category_id"]].append(ann["image_id"])

    def getAnnIds(self, imgIds=(), catIds=(), areaRng=(), iscrowd=None):
        """Ids of the annotations of the given images (all when empty), restricted to the
        given categories, area range (exclusive) and crowd flag."""
        img_ids, cat_ids, area = _as_list(imgIds), _as_list(catIds), list(areaRng)
        if img_ids:
            anns = list(itertools.chain.from_iterable(
                self.imgToAnns[i] for i in img_ids if i in self.imgToAnns))
        else:
            anns = self.dataset.get("annotations", [])
        if cat_ids:
            anns = [a for a in anns if a["category_id"] in cat_ids]
        if area:
            anns = [a for a in anns if area[0] < a["area"] < area[1]]
        if iscrowd is not None:
            return [a["id"] for a in anns if a["iscrowd"] == iscrowd]
        return [a["id"] for a in anns]

    def getCatIds(self, catNms=(), supNms=(), catIds=()):
        """Ids of the categories with the given names, super-category names and ids."""
        names, sups, ids = _as_list(catNms), _as_list(supNms), _as_list(catIds)
        cats = self.dataset.get("categories", [])
        if names:
            cats = [c for c in cats if c["name"] in names]
        if sups:
            cats = [c for c in cats if c["supercategory"] in sups]
        if ids:
            cats = [c for c in cats if c["id"] in ids]
        return [c["id"] for c in cats]

    def getImgIds(self, imgIds=(), catIds=()):
        """Ids of the given images (all when empty) that have every given category."""
        img_ids, cat_ids = _as_list(imgIds), _as_list(catIds)
        if not img_ids and not cat_ids:
            return list(self.imgs.keys())
        ids = set(img_ids)
        for i, cat in enumerate(cat_ids):
            with_cat = set(self.catToImgs[cat])
            ids = with_cat if i == 0 and not ids else ids & with_cat
        return list(ids)

    def loadAnns(self, ids=()):
        """The annotations with the given ids."""
        return [self.anns[i] for i in _as_list(ids)]

    def loadCats(self, ids=()):
        """The categories with the given ids."""
        return [self.cats[i] for i in _as_list(ids)]

    def loadImgs(self, ids=()):
        """The image records with the given ids."""
        return [self.imgs[i] for i in _as_list(ids)]


class CocoDetection(VisionDataset):
    """COCO detection: each item is an RGB PIL image and the list of its annotation dicts.

    Args:
        root (str or os.PathLike): folder of the images (``file_name`` is relative to it).
        annFile (str): the annotation JSON file.
        transform, target_transform (callable, optional): for the image / the annotations.
        transforms (callable, optional): takes and returns (image, target).

    Attributes:
        coco (COCO): the annotation index.
        ids (list of int): the image ids, sorted.
    """

    def __init__(self, root, annFile, transform=None, target_transform=None, transforms=None):
        super().__init__(root, transforms, transform, target_transform)
        self.coco = COCO(annFile)
        self.ids = sorted(self.coco.imgs.keys())

    def _load_image(self, id):
        path = self.coco.loadImgs(id)[0]["file_name"]
        return pil().open(os.path.join(self.root, path)).convert("RGB")

    def _load_target(self, id):
        return self.coco.loadAnns(self.coco.getAnnIds(id))

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise ValueError(f"Index must be of type integer, got {type(index)} instead.")
        id = self.ids[index]
        image, target = self._load_image(id), self._load_target(id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self):
        return len(self.ids)


class CocoCaptions(CocoDetection):
    """COCO captions: each item is an RGB PIL image and the list of its caption strings."""

    def _load_target(self, id):
        return [ann["caption"] for ann in super()._load_target(id)]
