"""The torchvision v2 "getting started" tutorial, condensed: classification and detection
pipelines, arbitrary sample structures, what operations on TVTensors return, and
CutMix/MixUp on batches. Prints what it sees; run it with torch or with numtorch.run."""

import numpy as np
import torch
from PIL import Image
from torchvision import tv_tensors
from torchvision.transforms import v2


def show(name, x):
    if isinstance(x, torch.Tensor):
        flat = x.detach().double().flatten()
        print(f"{name}: {type(x).__name__} {tuple(x.shape)} {x.dtype} "
              f"sum={flat.sum().item():.3f} first={[round(v, 3) for v in flat[:4].tolist()]}")
    elif isinstance(x, Image.Image):
        print(f"{name}: PIL {x.mode} {x.size} sum={int(np.asarray(x, dtype=np.int64).sum())}")
    else:
        print(f"{name}: {x!r}")


torch.manual_seed(17)
H, W = 64, 80
img = torch.randint(0, 256, size=(3, H, W), dtype=torch.uint8)

# classification: a plain uint8 tensor through the usual pipeline
transforms = v2.Compose([
    v2.RandomResizedCrop(size=(32, 32), antialias=True),
    v2.RandomHorizontalFlip(p=0.5),
    v2.ToDtype(torch.float32, scale=True),
    v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
for i in range(3):
    show(f"classification[{i}]", transforms(img))

# the same from a PIL image, starting with ToImage
pil = Image.fromarray(img.permute(1, 2, 0).numpy())
pipeline = v2.Compose([v2.ToImage(), v2.RandomResizedCrop(24, antialias=True),
                       v2.TrivialAugmentWide(), v2.ToDtype(torch.float32, scale=True)])
for i in range(3):
    show(f"pil_pipeline[{i}]", pipeline(pil))
show("pil_kept_pil", v2.Compose([v2.RandomRotation(20), v2.CenterCrop(40)])(pil))

# detection: boxes move with the image
boxes = tv_tensors.BoundingBoxes([[15, 10, 37, 50], [2, 3, 20, 22]], format="XYXY",
                                 canvas_size=img.shape[-2:])
det = v2.Compose([v2.RandomResizedCrop(size=(48, 48), antialias=True),
                  v2.RandomPhotometricDistort(p=1), v2.RandomHorizontalFlip(p=1)])
out_img, out_boxes = det(img, boxes)
show("det_img", out_img)
print("det_boxes", out_boxes)

# arbitrary structures: other values pass through
target = {"boxes": boxes, "labels": torch.arange(boxes.shape[0]),
          "this_is_ignored": ("arbitrary", {"structure": "!"})}
out_img, out_target = det(img, target)
show("struct_img", out_img)
print("struct_target", out_target)

# TVTensors: ops give plain tensors unless asked otherwise
print(type(out_boxes + 3).__name__, type(out_boxes.clone()).__name__,
      type(out_boxes.to(torch.float64)).__name__)
with tv_tensors.set_return_type("TVTensor"):
    moved = out_boxes + 3
print(type(moved).__name__, moved.format, moved.canvas_size)
print(tv_tensors.wrap(torch.zeros(1, 4), like=out_boxes))
print(repr(tv_tensors.Image(torch.arange(4, dtype=torch.uint8).reshape(1, 2, 2))))

# a dataset returning (image, label) pairs; CutMix or MixUp on each batch
images = torch.rand(8, 3, 16, 16)
labels = torch.tensor([0, 1, 2, 3, 4, 0, 1, 2])
cutmix_or_mixup = v2.RandomChoice([v2.CutMix(num_classes=5), v2.MixUp(num_classes=5)])
for step in range(3):
    idx = torch.randperm(8)[:4]
    batch_images, batch_labels = cutmix_or_mixup(images[idx], labels[idx])
    show(f"mix_images[{step}]", batch_images)
    show(f"mix_labels[{step}]", batch_labels)

# errors users meet
for bad in (lambda: v2.Normalize([0.5], [0.5])(pil),
            lambda: v2.Resize([1, 2, 3]),
            lambda: v2.RandomCrop(100)(img),
            lambda: v2.CutMix(num_classes=None)(images, labels)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
