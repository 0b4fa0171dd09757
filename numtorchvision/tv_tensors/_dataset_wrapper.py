"""``wrap_dataset_for_transforms_v2``: numtorchvision's datasets with their samples in the
tv_tensors the v2 transforms recognise (detection targets as dicts with XYXY BoundingBoxes
and labels, segmentation targets as Masks, video clips as Video), as torchvision's wrapper
does for the same datasets."""

import collections.abc
import copy

import numtorch as torch

__all__ = ["wrap_dataset_for_transforms_v2"]

_TRANSFORM_ATTRS = ("transform", "target_transform", "transforms")


def wrap_dataset_for_transforms_v2(dataset, target_keys=None):
    """``dataset`` (a numtorchvision dataset) whose samples come out as v2 transforms want them,
    its ``transform``/``target_transform``/``transforms`` applied after the wrapping.

    Classification datasets (CIFAR, MNIST family, ImageFolder/DatasetFolder) are unchanged.
    VOCDetection and Kitti give ``"boxes"`` (XYXY) and ``"labels"`` (``target_keys`` may add
    ``"annotation"`` / the raw label fields); WIDERFace's ``"bbox"`` becomes XYXY boxes;
    VOCSegmentation, SBDataset (``mode="segmentation"``) and Cityscapes ``"semantic"``
    targets become Masks, Cityscapes ``"instance"`` a dict of per-instance ``"masks"`` and
    ``"labels"``.
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
    table.update({datasets.VOCDetection: _VOCTargets, datasets.Kitti: _KittiTargets,
                  datasets.WIDERFace: _WiderFaceTargets,
                  datasets.VOCSegmentation: _segmentation_masks, datasets.SBDataset: _sbd,
                  datasets.Cityscapes: _cityscapes})
    table.update(dict.fromkeys([datasets.Kinetics, datasets.UCF101, datasets.HMDB51],
                               _video_classification))
    table.update(dict.fromkeys([datasets.Caltech256, datasets.GTSRB, datasets.ImageNet,
                                datasets.Imagenette], _unchanged))
    table.update({datasets.Caltech101: _caltech101, datasets.CelebA: _celeba,
                  datasets.OxfordIIITPet: _oxford_iiit_pet})
    return table


_KEYED = ("CocoDetection", "VOCDetection", "Kitti", "WIDERFace")


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
    if target_keys is not None and known.__name__ not in _KEYED:
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


def _not_supported(what):
    raise RuntimeError(f"{what} is currently not supported by this wrapper. If this would be "
                       "helpful for you, please open an issue at "
                       "https://github.com/pytorch/vision/issues.")


def _mask(image):
    """A PIL segmentation image as a ``(1, H, W)`` Mask."""
    from ..transforms.v2 import functional as F
    from . import Mask

    return Mask(F.pil_to_tensor(image))


def _segmentation_masks(dataset, target_keys):
    return lambda index, sample: (sample[0], _mask(sample[1]))


def _sbd(dataset, target_keys):
    if dataset.mode == "boundaries":
        _not_supported("SBDataset with mode='boundaries'")
    return _segmentation_masks(dataset, target_keys)


def _instances(image):
    """A Cityscapes ``instanceIds`` image as one boolean mask per id and each id's class
    (ids of 1000 and up are ``class * 1000 + instance``)."""
    from . import Mask

    ids_map = _mask(image).as_subclass(torch.Tensor)
    ids = torch.unique(ids_map)
    masks = ids_map.unsqueeze(0) == ids.reshape(-1, 1, 1, 1)
    labels = torch.where(ids >= 1000, torch.div(ids, 1000, rounding_mode="floor"), ids)
    return {"masks": Mask(masks), "labels": labels}


def _video_classification(dataset, target_keys):
    from . import Video

    if dataset.video_clips.output_format == "THWC":
        raise RuntimeError(f"{type(dataset).__name__} with `output_format='THWC'` is not "
                           "supported by this wrapper, since it is not compatible with the "
                           "transformations. Please use `output_format='TCHW'` instead.")
    return lambda index, sample: (Video(sample[0]), *sample[1:])


def _cityscapes(dataset, target_keys):
    readers = {"semantic": _mask, "instance": _instances}
    if any(kind not in readers for kind in dataset.target_type):
        _not_supported("`Cityscapes` dataset with `target_type=['polygon', 'color', ...]`")
    kinds = list(dataset.target_type)

    def convert(index, sample):
        image, target = sample
        parts = target if len(kinds) > 1 else (target,)
        out = tuple(readers[kind](part) for kind, part in zip(kinds, parts))
        return image, out if len(kinds) > 1 else out[0]

    return convert


class _KeyedTargets:
    """A detection target turned into one dict of chosen keys: ``BUILT`` maps the keys this
    wrapper makes to their builders; other available keys pass through unchanged."""

    AVAILABLE = frozenset()
    DEFAULT = frozenset()
    BUILT = {}

    def __init__(self, dataset, target_keys):
        keys = self.DEFAULT if target_keys is None else target_keys
        if keys == "all":
            keys = self.AVAILABLE
        unknown = set(keys) - self.AVAILABLE
        if unknown:
            raise ValueError(f"Target keys {sorted(unknown)} are not available")
        self.dataset = dataset
        self.keys = set(keys)

    def __call__(self, index, sample):
        from ..transforms.v2 import functional as F

        image, target = sample
        if target is None:  # test splits
            return image, None
        columns = self._columns(target)
        canvas = tuple(F.get_size(image))
        out = {}
        for key in self._order(columns):
            if key in self.keys:
                build = self.BUILT.get(key)
                out[key] = columns[key] if build is None else build(self, columns, canvas)
        return image, out

    def _columns(self, target):
        return target

    def _order(self, columns):
        return list(self.BUILT) + [k for k in columns if k not in self.BUILT]


def _boxes(values, canvas, fmt="XYXY"):
    from . import BoundingBoxes, BoundingBoxFormat

    return BoundingBoxes(values, format=getattr(BoundingBoxFormat, fmt), canvas_size=canvas)


VOC_CLASSES = ["__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car",
               "cat", "chair", "cow", "diningtable", "dog", "horse", "motorbike", "person",
               "pottedplant", "sheep", "sofa", "train", "tvmonitor"]
KITTI_CLASSES = ["Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram", "Misc",
                 "DontCare"]


def _batched(records):
    """A list of dicts as a dict of lists (keys in order of first appearance)."""
    keys = list(dict.fromkeys(k for r in records for k in r))
    return {k: [r[k] for r in records if k in r] for k in keys}


class _VOCTargets(_KeyedTargets):
    """VOCDetection's parsed XML: ``boxes`` (XYXY, from each object's ``bndbox``) and
    ``labels`` (indices into the 20 VOC classes, 0 being the background)."""

    AVAILABLE = frozenset({"annotation", "boxes", "labels"})
    DEFAULT = frozenset({"boxes", "labels"})
    BUILT = {
        "boxes": lambda self, c, canvas: _boxes(
            [[int(box[k]) for k in ("xmin", "ymin", "xmax", "ymax")] for box in c["bndbox"]],
            canvas),
        "labels": lambda self, c, canvas: torch.tensor([VOC_CLASSES.index(n) for n in c["name"]]),
    }

    def _columns(self, target):
        columns = _batched(target["annotation"]["object"])
        columns["annotation"] = target["annotation"]
        return columns

    def _order(self, columns):
        return ["annotation", "boxes", "labels"]


class _KittiTargets(_KeyedTargets):
    """Kitti's list of object dicts: ``boxes`` (XYXY from ``bbox``), ``labels`` (indices into
    the KITTI classes) and, on request, the raw fields as lists."""

    AVAILABLE = frozenset({"type", "truncated", "occluded", "alpha", "bbox", "dimensions",
                           "location", "rotation_y", "boxes", "labels"})
    DEFAULT = frozenset({"boxes", "labels"})
    BUILT = {
        "boxes": lambda self, c, canvas: _boxes(c["bbox"], canvas),
        "labels": lambda self, c, canvas: torch.tensor([KITTI_CLASSES.index(t)
                                                        for t in c["type"]]),
    }

    def _columns(self, target):
        return _batched(target)


class _WiderFaceTargets(_KeyedTargets):
    """WIDERFace's dict: ``bbox`` becomes XYXY BoundingBoxes, the attribute tensors stay."""

    AVAILABLE = frozenset({"bbox", "blur", "expression", "illumination", "occlusion", "pose",
                           "invalid"})
    DEFAULT = AVAILABLE
    BUILT = {
        "bbox": lambda self, c, canvas: _xywh_to_xyxy(c["bbox"], canvas),
    }


def _xywh_to_xyxy(xywh, canvas):
    from ..transforms.v2 import functional as F
    from . import BoundingBoxFormat

    return F.convert_bounding_box_format(_boxes(xywh, canvas, "XYWH"),
                                         new_format=BoundingBoxFormat.XYXY)


def _per_kind(kinds, converters):
    """A converter for datasets whose target is one value per requested kind (a single
    value for one kind): ``converters[kind](value, image)`` replaces the kinds it names."""
    def convert(index, sample):
        image, target = sample
        values = [target] if len(kinds) == 1 else list(target or ())
        values = [converters.get(kind, lambda v, im: v)(v, image)
                  for kind, v in zip(kinds, values)]
        return image, values[0] if len(values) == 1 else tuple(values)
    return convert


def _caltech101(dataset, target_keys):
    if "annotation" in dataset.target_type:
        _not_supported("Caltech101 dataset with `target_type=['annotation', ...]`")
    return _unchanged(dataset, target_keys)


def _celeba(dataset, target_keys):
    from ..transforms.v2 import functional as F

    if any(kind in ("attr", "landmarks") for kind in dataset.target_type):
        _not_supported("`CelebA` dataset with `target_type=['attr', 'landmarks', ...]`")
    # CelebA's boxes are (x, y, width, height) on the image
    return _per_kind(dataset.target_type, {
        "bbox": lambda v, image: _xywh_to_xyxy(v, tuple(F.get_size(image)))})


def _oxford_iiit_pet(dataset, target_keys):
    if not dataset._target_types:  # the target is None, and stays None
        return _unchanged(dataset, target_keys)
    return _per_kind(dataset._target_types, {"segmentation": lambda v, image: _mask(v)})
