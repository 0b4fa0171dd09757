"""``wrap_dataset_for_transforms_v2``: numtorchvision's datasets with their samples in the
tv_tensors the v2 transforms recognise (COCO detection targets as a dict with XYXY
BoundingBoxes and labels), as torchvision's wrapper does for the same datasets."""

import collections.abc
import copy

import numtorch as torch

__all__ = ["wrap_dataset_for_transforms_v2"]

_TRANSFORM_ATTRS = ("transform", "target_transform", "transforms")


def wrap_dataset_for_transforms_v2(dataset, target_keys=None):
    """``dataset`` (a numtorchvision dataset) whose samples come out as v2 transforms want them,
    its ``transform``/``target_transform``/``transforms`` applied after the wrapping.

    Classification datasets (CIFAR, MNIST family, ImageFolder/DatasetFolder) are unchanged.
    :class:`~numtorchvision.datasets.CocoDetection`: the list of annotation dicts becomes one
    dict: ``"image_id"``, ``"boxes"`` (BoundingBoxes, XYXY) and ``"labels"`` by default;
    ``target_keys`` picks others (``"bbox"``, ``"category_id"``, ``"area"``, ``"iscrowd"``,
    ``"segmentation"``, ``"masks"`` - the last needs pycocotools, as in torchvision) or
    ``"all"``. CocoCaptions is unchanged.
    """
    keys_ok = target_keys is None or target_keys == "all" or (
        isinstance(target_keys, collections.abc.Collection)
        and all(isinstance(key, str) for key in target_keys))
    if not keys_ok:
        raise ValueError("`target_keys` can be None, 'all', or a collection of strings denoting "
                         f"the keys to be returned, but got {target_keys}")
    # a subclass of the dataset's own class, so isinstance checks keep working
    cls = type(f"Wrapped{type(dataset).__name__}", (_TVTensorDataset, type(dataset)), {})
    return cls(dataset, target_keys)


def _unchanged(dataset, target_keys):
    return lambda index, sample: sample


def _converters():
    """Dataset class -> function(dataset, target_keys) giving the sample converter."""
    from .. import datasets

    table = dict.fromkeys([datasets.CIFAR10, datasets.CIFAR100, datasets.MNIST,
                           datasets.FashionMNIST, datasets.DatasetFolder, datasets.ImageFolder,
                           datasets.CocoCaptions], _unchanged)
    table[datasets.CocoDetection] = _CocoTargets
    return table


def _converter_for(dataset, target_keys):
    from .. import datasets

    kind = type(dataset)
    if not isinstance(dataset, datasets.VisionDataset):
        raise TypeError(
            "This wrapper is meant for subclasses of `torchvision.datasets.VisionDataset`, "
            f"but got a '{kind.__name__}' instead.\nFor an example of how to perform "
            "the wrapping for custom datasets, see\n\nhttps://pytorch.org/vision/main/"
            "auto_examples/plot_tv_tensors.html#do-i-have-to-wrap-the-output-of-the-"
            "datasets-myself")
    table = _converters()
    # the nearest class in the dataset's ancestry that has a converter, if it comes before
    # VisionDataset itself
    ancestry = kind.mro()
    known = next((c for c in ancestry[:ancestry.index(datasets.VisionDataset)] if c in table),
                 None)
    if known is None:
        message = (f"No wrapper exists for dataset class {kind.__name__}. Please wrap the "
                   "output yourself.")
        if kind in datasets.__dict__.values():
            message += (" If an automated wrapper for this dataset would be useful for you, "
                        "please open an issue at https://github.com/pytorch/vision/issues.")
        raise TypeError(message)
    if target_keys is not None and known is not datasets.CocoDetection:
        raise ValueError("`target_keys` is currently only supported for `CocoDetection`, "
                         f"`VOCDetection`, `Kitti`, and `WIDERFace`, but got {known.__name__}.")
    return table[known](dataset, target_keys)


class _TVTensorDataset:
    """Wraps a dataset: converted samples, with the dataset's transforms moved out so that
    they run on the converted sample; other attributes are the dataset's."""

    def __init__(self, dataset, target_keys):
        convert = _converter_for(dataset, target_keys)
        self._dataset = dataset
        self._target_keys = target_keys
        self._convert = convert
        for name in _TRANSFORM_ATTRS:
            setattr(self, name, getattr(dataset, name))
            setattr(dataset, name, None)

    def __getattr__(self, name):
        # only reached for names the wrapper itself lacks
        if name == "_dataset":
            raise AttributeError(name)
        return getattr(self._dataset, name)

    def __getitem__(self, index):
        sample = self._convert(index, self._dataset[index])
        return sample if self.transforms is None else self.transforms(*sample)

    def __len__(self):
        return len(self._dataset)

    def __reduce__(self):
        # pickled as the dataset with its transforms back in place, wrapped again on load
        inner = copy.copy(self._dataset)
        for name in _TRANSFORM_ATTRS:
            setattr(inner, name, getattr(self, name))
        return wrap_dataset_for_transforms_v2, (inner, self._target_keys)


_COCO_KEYS = frozenset({"segmentation", "area", "iscrowd", "image_id", "bbox", "category_id",
                        "boxes", "masks", "labels"})
_COCO_DEFAULT = frozenset({"image_id", "boxes", "labels"})
_COCO_BUILT = frozenset({"image_id", "boxes", "masks", "labels"})


def _coco_mask(segmentation, canvas_size):
    from pycocotools import mask as coco_mask  # as torchvision: masks need pycocotools

    if isinstance(segmentation, list):
        rle = coco_mask.merge(coco_mask.frPyObjects(segmentation, *canvas_size))
    elif isinstance(segmentation, dict):
        rle = segmentation if isinstance(segmentation["counts"], str) else \
            coco_mask.frPyObjects(segmentation, *canvas_size)
    else:
        raise ValueError("COCO segmentation expected to be a dict or a list, got "
                         f"{type(segmentation)}")
    return torch.from_numpy(coco_mask.decode(rle))


class _CocoTargets:
    """CocoDetection's list of annotation dicts as one dict of the chosen keys."""

    def __init__(self, dataset, target_keys):
        keys = _COCO_DEFAULT if target_keys is None else target_keys
        if keys == "all":
            keys = _COCO_KEYS
        unknown = set(keys) - _COCO_KEYS
        if unknown:
            raise ValueError(f"Target keys {sorted(unknown)} are not available")
        self.dataset = dataset
        self.keys = set(keys)

    def __call__(self, index, sample):
        from ..transforms.v2 import functional as F
        from . import BoundingBoxes, BoundingBoxFormat, Mask

        image, annotations = sample
        image_id = self.dataset.ids[index]
        if not annotations:
            return image, {"image_id": image_id}
        canvas = tuple(F.get_size(image))
        column = {key: [a[key] for a in annotations if key in a]
                  for key in {k for a in annotations for k in a}}
        target = {}
        if "image_id" in self.keys:
            target["image_id"] = image_id
        if "boxes" in self.keys:
            xywh = BoundingBoxes(column["bbox"], format=BoundingBoxFormat.XYWH,
                                 canvas_size=canvas)
            target["boxes"] = F.convert_bounding_box_format(xywh,
                                                            new_format=BoundingBoxFormat.XYXY)
        if "masks" in self.keys:
            target["masks"] = Mask(torch.stack([_coco_mask(s, canvas)
                                                for s in column["segmentation"]]))
        if "labels" in self.keys:
            target["labels"] = torch.tensor(column["category_id"])
        for key in self.keys - _COCO_BUILT:
            target[key] = column[key]
        return image, target
