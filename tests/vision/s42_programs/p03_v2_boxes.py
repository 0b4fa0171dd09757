import torch
from torchvision import tv_tensors
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as F
torch.manual_seed(0)
img = tv_tensors.Image(torch.randint(0, 256, (3, 48, 64), dtype=torch.uint8))
boxes = tv_tensors.BoundingBoxes([[5, 6, 30, 40], [10, 2, 60, 20]], format="XYXY", canvas_size=(48, 64))
mask = tv_tensors.Mask(torch.zeros(2, 48, 64, dtype=torch.uint8)); mask[0, 6:40, 5:30] = 1; mask[1, 2:20, 10:60] = 1
labels = torch.tensor([1, 2])
tf = v2.Compose([v2.RandomZoomOut(fill={tv_tensors.Image: 127, "others": 0}), v2.RandomIoUCrop(),
                 v2.RandomHorizontalFlip(), v2.Resize((40, 40), antialias=True), v2.ClampBoundingBoxes(),
                 v2.SanitizeBoundingBoxes(), v2.ToDtype(torch.float32, scale=True)])
for i in range(4):
    torch.manual_seed(10 + i)
    out = tf({"image": img, "boxes": boxes, "masks": mask, "labels": labels})
    print(i, type(out["image"]).__name__, out["image"].shape, round(out["image"].sum().item(), 2),
          out["boxes"].tolist(), out["boxes"].canvas_size, out["masks"].shape, int(out["masks"].sum()), out["labels"].tolist())
print(F.convert_bounding_box_format(boxes, new_format="CXCYWH"))
print(F.resize(boxes, [24, 32]), F.rotate(boxes, 30, expand=True))
print(F.affine(boxes, angle=10, translate=[2, 3], scale=1.0, shear=[0, 0]))
print(F.pad(boxes, [2, 4]), F.crop(boxes, 3, 3, 30, 30), F.horizontal_flip(boxes))
print(F.resized_crop(mask, 2, 2, 30, 30, [15, 15]).sum(), F.elastic(img.float(), torch.zeros(1, 48, 64, 2)).shape)
torch.manual_seed(5)
out = v2.RandomAffine(20, translate=(0.1, 0.1), scale=(0.8, 1.2))(img, boxes, mask)
print([type(o).__name__ for o in out], out[1], int(out[2].sum()))
torch.manual_seed(6)
out = v2.RandomPerspective(p=1.0)(img, boxes)
print(out[1])
torch.manual_seed(7)
out = v2.RandomRotation(25)(boxes)
print(out)
print(v2.ToImage()(torch.zeros(4, 5, 3, dtype=torch.uint8).numpy()).shape)
print(v2.ToDtype({tv_tensors.Image: torch.float32, "others": None}, scale=True)(img, mask)[1].dtype)
