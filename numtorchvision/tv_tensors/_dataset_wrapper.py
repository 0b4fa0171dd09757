"""``wrap_dataset_for_transforms_v2``: numtorchvision's datasets with their samples in the
tv_tensors the v2 transforms recognise (COCO detection targets as a dict with XYXY
BoundingBoxes and labels), as torchvision's wrapper does for the same datasets."""

import collections.abc
import contextlib
from collections import defaultdict
from copy import copy

import numtorch as torch

__all__ = ["wrap_dataset_for_transforms_v2"]


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
    if not (target_keys is None or target_keys == "all" or (
            isinstance(target_keys, collections.abc.Collection)
            and all(isinstance(key, str) for key in target_keys))):
        raise ValueError("`target_keys` can be None, 'all', or a collection of strings denoting "
                         f"the keys to be returned, but got {target_keys}")
    wrapped_cls = type(f"Wrapped{type(dataset).__name__}",
                       (VisionDatasetTVTensorWrapper, type(dataset)), {})
    return wrapped_cls(dataset, target_keys)


def _factories():
    from .. import datasets

    classification = [datasets.CIFAR10, datasets.CIFAR100, datasets.MNIST,
                      datasets.FashionMNIST, datasets.DatasetFolder, datasets.ImageFolder]
    table = {cls: _identity_factory for cls in classification}
    table[datasets.CocoDetection] = _coco_detection_factory
    table[datasets.CocoCaptions] = _identity_factory
    return table


class VisionDatasetTVTensorWrapper:
    def __init__(self, dataset, target_keys):
        from .. import datasets

        dataset_cls = type(dataset)
        if not isinstance(dataset, datasets.VisionDataset):
            raise TypeError(
                "This wrapper is meant for subclasses of `torchvision.datasets.VisionDataset`, "
                f"but got a '{dataset_cls.__name__}' instead.\nFor an example of how to perform "
                "the wrapping for custom datasets, see\n\nhttps://pytorch.org/vision/main/"
                "auto_examples/plot_tv_tensors.html#do-i-have-to-wrap-the-output-of-the-"
                "datasets-myself")
        factories = _factories()
        for cls in dataset_cls.mro():
            if cls in factories:
                factory = factories[cls]
                if target_keys is not None and cls is not datasets.CocoDetection:
                    raise ValueError("`target_keys` is currently only supported for "
                                     "`CocoDetection`, `VOCDetection`, `Kitti`, and "
                                     f"`WIDERFace`, but got {cls.__name__}.")
                break
            if cls is datasets.VisionDataset:
                msg = (f"No wrapper exists for dataset class {dataset_cls.__name__}. Please wrap "
                       "the output yourself.")
                if dataset_cls in datasets.__dict__.values():
                    msg = (f"{msg} If an automated wrapper for this dataset would be useful for "
                           "you, please open an issue at https://github.com/pytorch/vision/issues.")
                raise TypeError(msg)
        self._dataset = dataset
        self._target_keys = target_keys
        self._wrapper = factory(dataset, target_keys)
        # the transforms run on the wrapped samples, not inside the dataset
        self.transform, dataset.transform = dataset.transform, None
        self.target_transform, dataset.target_transform = dataset.target_transform, None
        self.transforms, dataset.transforms = dataset.transforms, None

    def __getattr__(self, item):
        with contextlib.suppress(AttributeError):
            return object.__getattribute__(self, item)
        return getattr(self._dataset, item)

    def __getitem__(self, idx):
        sample = self._wrapper(idx, self._dataset[idx])
        if self.transforms is not None:
            sample = self.transforms(*sample)
        return sample

    def __len__(self):
        return len(self._dataset)

    def __reduce__(self):
        dataset = copy(self._dataset)
        dataset.transform = self.transform
        dataset.transforms = self.transforms
        dataset.target_transform = self.target_transform
        return wrap_dataset_for_transforms_v2, (dataset, self._target_keys)


def _identity_factory(dataset, target_keys):
    return lambda idx, sample: sample


def _parse_target_keys(target_keys, *, available, default):
    if target_keys is None:
        target_keys = default
    if target_keys == "all":
        return available
    target_keys = set(target_keys)
    extra = target_keys - available
    if extra:
        raise ValueError(f"Target keys {sorted(extra)} are not available")
    return target_keys


def _dict_of_lists(list_of_dicts):
    out = defaultdict(list)
    for dct in list_of_dicts:
        for key, value in dct.items():
            out[key].append(value)
    return dict(out)


def _coco_detection_factory(dataset, target_keys):
    from ..transforms.v2 import functional as F
    from . import BoundingBoxes, BoundingBoxFormat, Mask

    target_keys = _parse_target_keys(
        target_keys,
        available={"segmentation", "area", "iscrowd", "image_id", "bbox", "category_id",
                   "boxes", "masks", "labels"},
        default={"image_id", "boxes", "labels"})

    def segmentation_to_mask(segmentation, *, canvas_size):
        from pycocotools import mask  # as torchvision: masks need pycocotools

        if isinstance(segmentation, dict):
            if not isinstance(segmentation["counts"], str):
                segmentation = mask.frPyObjects(segmentation, *canvas_size)
        elif isinstance(segmentation, list):
            segmentation = mask.merge(mask.frPyObjects(segmentation, *canvas_size))
        else:
            raise ValueError("COCO segmentation expected to be a dict or a list, got "
                             f"{type(segmentation)}")
        return torch.from_numpy(mask.decode(segmentation))

    def wrapper(idx, sample):
        image_id = dataset.ids[idx]
        image, target = sample
        if not target:
            return image, {"image_id": image_id}
        canvas_size = tuple(F.get_size(image))
        batched = _dict_of_lists(target)
        out = {}
        if "image_id" in target_keys:
            out["image_id"] = image_id
        if "boxes" in target_keys:
            out["boxes"] = F.convert_bounding_box_format(
                BoundingBoxes(batched["bbox"], format=BoundingBoxFormat.XYWH,
                              canvas_size=canvas_size),
                new_format=BoundingBoxFormat.XYXY)
        if "masks" in target_keys:
            out["masks"] = Mask(torch.stack([
                segmentation_to_mask(s, canvas_size=canvas_size)
                for s in batched["segmentation"]]))
        if "labels" in target_keys:
            out["labels"] = torch.tensor(batched["category_id"])
        for key in target_keys - {"image_id", "boxes", "masks", "labels"}:
            out[key] = batched[key]
        return image, out

    return wrapper
