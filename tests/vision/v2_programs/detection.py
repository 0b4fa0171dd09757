"""A detection / instance-segmentation input pipeline in the style of torchvision's
references (SSD-like augmentation, then a Mask R-CNN-like one), on a fabricated dataset of
PIL images with boxes, masks and labels, batched through a DataLoader."""

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import tv_tensors
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as F


class Shapes(Dataset):
    """Images with a few rectangles; each rectangle is a box, a mask and a label."""

    def __init__(self, n, transforms):
        self.n, self.transforms = n, transforms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        h, w = 60 + 4 * i, 80 - 2 * i
        arr = rng.integers(0, 60, (h, w, 3), dtype=np.uint8)
        k = 2 + i % 3
        boxes, masks = [], np.zeros((k, h, w), dtype=np.uint8)
        for j in range(k):
            x1, y1 = int(rng.integers(0, w - 20)), int(rng.integers(0, h - 20))
            x2, y2 = x1 + int(rng.integers(8, 20)), y1 + int(rng.integers(8, 20))
            arr[y1:y2, x1:x2] = rng.integers(100, 255, 3)
            masks[j, y1:y2, x1:x2] = 1
            boxes.append([x1, y1, x2, y2])
        img = Image.fromarray(arr)
        target = {
            "boxes": tv_tensors.BoundingBoxes(boxes, format="XYXY", canvas_size=(h, w)),
            "masks": tv_tensors.Mask(torch.from_numpy(masks)),
            "labels": torch.arange(1, k + 1),
            "image_id": i,
        }
        return self.transforms(img, target)


ssd = v2.Compose([
    v2.ToImage(),
    v2.RandomPhotometricDistort(p=1),
    v2.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}),
    v2.RandomIoUCrop(),
    v2.RandomHorizontalFlip(p=1),
    v2.SanitizeBoundingBoxes(),
    v2.ToDtype(torch.float, scale=True),
])
mask_rcnn = v2.Compose([
    v2.ToImage(),
    v2.RandomShortestSize(min_size=[40, 48, 56], max_size=90),
    v2.RandomHorizontalFlip(0.5),
    v2.RandomAffine(degrees=10, translate=(0.1, 0.1), scale=(0.9, 1.1)),
    v2.ClampBoundingBoxes(),
    v2.SanitizeBoundingBoxes(min_size=2),
    v2.ConvertBoundingBoxFormat("CXCYWH"),
    v2.ToDtype({tv_tensors.Image: torch.float32, tv_tensors.Mask: torch.int64,
                "others": None}, scale=True),
    v2.ToPureTensor(),
])

torch.manual_seed(0)
for name, transforms in (("ssd", ssd), ("mask_rcnn", mask_rcnn)):
    loader = DataLoader(Shapes(6, transforms), batch_size=3, shuffle=True,
                        collate_fn=lambda batch: tuple(zip(*batch)))
    for step, (images, targets) in enumerate(loader):
        for img, t in zip(images, targets):
            print(name, step, t["image_id"], type(img).__name__, tuple(img.shape),
                  f"{img.double().sum().item():.3f}")
            boxes = t["boxes"]
            print("   boxes", type(boxes).__name__,
                  [[round(v, 3) for v in b] for b in boxes.tolist()],
                  getattr(boxes, "canvas_size", None))
            print("   labels", t["labels"].tolist(), "masks", type(t["masks"]).__name__,
                  tuple(t["masks"].shape), int(t["masks"].sum()))

# the functionals on one sample, by hand
img, target = Shapes(1, lambda *s: s)[0]
img = F.to_image(img)
boxes = target["boxes"]
for name, fn in (("rotate", lambda x: F.rotate(x, 30, expand=True)),
                 ("affine", lambda x: F.affine(x, angle=-12, translate=[3, 4], scale=1.2,
                                               shear=[5.0, 0.0])),
                 ("perspective", lambda x: F.perspective(
                     x, [[0, 0], [79, 0], [79, 59], [0, 59]],
                     [[4, 2], [70, 5], [75, 55], [2, 50]])),
                 ("resized_crop", lambda x: F.resized_crop(x, 5, 8, 40, 50, [20, 25])),
                 ("pad", lambda x: F.pad(x, [3, 1, 2, 5], fill=7))):
    out_img, out_boxes, out_mask = fn(img), fn(boxes), fn(target["masks"])
    print(name, tuple(out_img.shape), f"{out_img.double().sum().item():.1f}",
          [[round(v, 3) for v in b] for b in out_boxes.tolist()], out_boxes.canvas_size,
          int(out_mask.sum()))
print(F.convert_bounding_box_format(boxes, new_format="XYWH"))
print(F.sanitize_bounding_boxes(F.clamp_bounding_boxes(F.affine(
    boxes, angle=0, translate=[60, 0], scale=1.0, shear=[0.0, 0.0]))))
