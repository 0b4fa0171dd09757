"""wrap_dataset_for_transforms_v2 on numtorchvision's datasets: classification datasets as
torchvision's (unchanged samples), COCO detection targets as a dict of tv_tensors, and
torchvision's errors (compared where torchvision can build the dataset here; its
CocoDetection needs pycocotools, which is not installed, so COCO is checked against the
annotation file itself)."""

import json
import pickle

import numpy as np
import pytest
import torchvision

import numtorch
import numtorchvision
from numtorchvision import tv_tensors
from numtorchvision.transforms import v2

from . import _fabricate as fab


def _errors(fn):
    out = []
    for lib in (numtorchvision, torchvision):
        try:
            fn(lib)
        except Exception as e:
            out.append(e)
        else:
            out.append(None)
    return out


@pytest.mark.parametrize("call", [
    lambda tv: tv.datasets.wrap_dataset_for_transforms_v2([1, 2]),
    lambda tv: tv.datasets.wrap_dataset_for_transforms_v2(tv.datasets.FakeData(size=2)),
    lambda tv: tv.datasets.wrap_dataset_for_transforms_v2(tv.datasets.FakeData(size=2),
                                                          target_keys=3),
])
def test_errors_as_torchvision(call):
    a, b = _errors(call)
    assert b is not None and type(a) is type(b) and str(a) == str(b), (a, b)


def test_image_folder_unchanged_and_transforms_after(tmp_path):
    fab.image_folder(str(tmp_path))
    outs = []
    for tv, T in ((numtorchvision, numtorchvision.transforms.v2),
                  (torchvision, torchvision.transforms.v2)):
        ds = tv.datasets.ImageFolder(str(tmp_path), transform=T.Compose([T.ToImage(),
                                                                         T.CenterCrop(6)]))
        wrapped = tv.datasets.wrap_dataset_for_transforms_v2(ds)
        outs.append([(type(img).__name__, img.numpy().tolist(), label) for img, label in wrapped]
                    + [type(wrapped).__name__, len(wrapped), wrapped.classes])
        with pytest.raises(ValueError, match="only supported for `CocoDetection`"):
            tv.datasets.wrap_dataset_for_transforms_v2(ds, target_keys=["boxes"])
    assert outs[0] == outs[1]


def test_coco_detection_targets(tmp_path):
    ann = fab.coco(str(tmp_path))
    with open(ann) as f:
        data = json.load(f)
    ds = numtorchvision.datasets.CocoDetection(str(tmp_path), ann)
    wrapped = numtorchvision.datasets.wrap_dataset_for_transforms_v2(ds)
    for idx in range(len(ds)):
        image, target = wrapped[idx]
        image_id = ds.ids[idx]
        anns = [a for a in data["annotations"] if a["image_id"] == image_id]
        if not anns:
            assert target == {"image_id": image_id}
            continue
        assert sorted(target) == ["boxes", "image_id", "labels"]
        boxes = target["boxes"]
        assert isinstance(boxes, tv_tensors.BoundingBoxes)
        assert boxes.format is tv_tensors.BoundingBoxFormat.XYXY
        assert boxes.canvas_size == (image.height, image.width)
        want = [[x, y, x + w, y + h] for x, y, w, h in (a["bbox"] for a in anns)]
        np.testing.assert_array_equal(boxes.numpy(), np.array(want, np.float32))
        assert target["labels"].tolist() == [a["category_id"] for a in anns]

    every = numtorchvision.datasets.wrap_dataset_for_transforms_v2(
        ds, target_keys={"bbox", "iscrowd", "area", "labels"})
    _, target = every[ds.ids.index(100)]  # the first image of the file: two annotations
    assert sorted(target) == ["area", "bbox", "iscrowd", "labels"]
    assert target["iscrowd"] == [0, 0] and target["bbox"][1] == [1.0, 2.0, 4.0, 4.0]
    with pytest.raises(ValueError, match=r"Target keys \['nope'\] are not available"):
        numtorchvision.datasets.wrap_dataset_for_transforms_v2(ds, target_keys=["nope"])


def test_coco_pipeline_with_dataloader_and_pickling(tmp_path):
    ann = fab.coco(str(tmp_path), n_images=4)
    transforms = v2.Compose([v2.ToImage(), v2.RandomHorizontalFlip(p=1.0), v2.Resize(16),
                             v2.ToDtype(numtorch.float32, scale=True)])
    ds = numtorchvision.datasets.CocoDetection(str(tmp_path), ann, transforms=transforms)
    wrapped = numtorchvision.datasets.wrap_dataset_for_transforms_v2(ds)
    clone = pickle.loads(pickle.dumps(wrapped))
    loader = numtorch.utils.data.DataLoader(clone, batch_size=2,
                                            collate_fn=lambda b: tuple(zip(*b)))
    batches = list(loader)
    # ids sorted: 79 (11x10, no annotation), 86 (10x10), 93 (9x10), 100 (8x10)
    assert [tuple(i.shape)[1:] for b in batches for i in b[0]] == [(17, 16), (16, 16),
                                                                 (16, 17), (16, 20)]
    assert batches[0][1][0] == {"image_id": 79}
    boxes = batches[1][1][1]["boxes"]
    assert boxes.canvas_size == (16, 20)
    # flipped in the 10-wide image (x -> 10 - x), then scaled by 2
    np.testing.assert_allclose(boxes.numpy(), [[12, 4, 18, 12], [10, 4, 18, 12]])
