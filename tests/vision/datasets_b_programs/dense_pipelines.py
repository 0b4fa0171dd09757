"""A user program over the dense / detection / flow / stereo datasets: a few segmentation
training steps on VOCSegmentation through the v2 wrapper and a DataLoader with workers,
detection samples of VOCDetection and Kitti, flow batches of FlyingChairs and stereo
disparities of CarlaStereo. Usage: dense_pipelines.py DATA_ROOT"""

import sys

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets, tv_tensors
from torchvision.transforms import v2

root = sys.argv[1]
torch.manual_seed(0)

# segmentation: wrapped dataset, v2 transforms on image + mask, 2 worker processes
seg_tf = v2.Compose([v2.RandomHorizontalFlip(p=1.0), v2.Resize((16, 16)), v2.ToImage(),
                     v2.ToDtype({tv_tensors.Image: torch.float32, "others": None}, scale=True)])
seg = datasets.wrap_dataset_for_transforms_v2(
    datasets.VOCSegmentation(root, image_set="trainval", transforms=seg_tf))
loader = DataLoader(seg, batch_size=3, num_workers=2)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 21, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(3):
    for images, masks in loader:
        loss = nn.functional.cross_entropy(model(images), masks.squeeze(1).long(),
                                           ignore_index=255)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f} batch {tuple(images.shape)} {masks.dtype}")

# detection: boxes follow the flip and the resize
det_tf = v2.Compose([v2.RandomHorizontalFlip(p=1.0), v2.Resize((20, 30)), v2.ToImage()])
for name, ds in (("voc", datasets.VOCDetection(root, image_set="val", transforms=det_tf)),
                 ("kitti", datasets.Kitti(root, transforms=det_tf))):
    wrapped = datasets.wrap_dataset_for_transforms_v2(ds)
    image, target = wrapped[0]
    print(name, type(image).__name__, tuple(image.shape), target["boxes"].tolist(),
          target["labels"].tolist(), target["boxes"].canvas_size)

# optical flow: mean end-point error of a zero prediction, per batch
flow = datasets.FlyingChairs(root, split="train", transforms=lambda a, b, f, m: (
    v2.functional.pil_to_tensor(a), v2.functional.pil_to_tensor(b), torch.from_numpy(f), m))
for img1, img2, fl in DataLoader(flow, batch_size=2):
    print("chairs", tuple(img1.shape), img2.float().mean().item(),
          f"{fl.norm(dim=1).mean().item():.4f}")  # float32 sums: 4 places

# stereo: disparity statistics and a ConcatDataset of two stereo sets
stereo = datasets.CarlaStereo(root)
for left, right, disp in stereo:
    print("carla", left.size, right.mode, disp.shape, disp.dtype, f"{disp.mean():.4f}")
both = torch.utils.data.ConcatDataset([stereo, datasets.InStereo2k(root)])
print("concat", len(both), [f"{both[i][2].max():.4f}" for i in range(len(both))])
print(repr(datasets.FlyingChairs(root, split="val")))
print(repr(datasets.VOCSegmentation(root)))
