import os
import tempfile
import numpy as np
import torch
import torchvision
from torchvision import transforms, datasets, models, utils
from torchvision.transforms import v2
from torchvision import tv_tensors
from PIL import Image


def picture(seed, size=(20, 16)):
    rng = np.random.default_rng(seed)
    return Image.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8))

#%% classic transform pipeline on a PIL image
tf = transforms.Compose([
    transforms.Resize(12),
    transforms.CenterCrop(10),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
x = tf(picture(0))
print(x.shape, x.dtype, x.mean().round(decimals=4), x[0, 0, :4].round(decimals=4))
print(transforms.ToTensor()(picture(1)).sum().round(decimals=2), transforms.PILToTensor()(picture(1)).dtype)
print(tf)

#%% random augmentation reproducible under a seed
aug = transforms.Compose([transforms.RandomResizedCrop(8, scale=(0.5, 1.0)), transforms.RandomHorizontalFlip(),
                          transforms.ColorJitter(0.2, 0.2, 0.2, 0.05), transforms.PILToTensor()])
torch.manual_seed(3)
a = aug(picture(2))
torch.manual_seed(3)
b = aug(picture(2))
print(torch.equal(a, b), a.shape, a.dtype)
torch.manual_seed(4)
print(transforms.RandomCrop(6, padding=2)(torch.arange(64.).view(1, 8, 8))[0, 0])
print(transforms.RandomRotation(30)(torch.ones(1, 5, 5))[0].round(decimals=3))

#%% ImageFolder over a temporary directory with a DataLoader
root = tempfile.mkdtemp()
for ci, cls in enumerate(["cat", "dog"]):
    os.makedirs(os.path.join(root, cls))
    for j in range(3):
        picture(10 * ci + j).save(os.path.join(root, cls, f"{j}.png"))
ds = datasets.ImageFolder(root, transform=transforms.Compose([transforms.Resize((8, 8)), transforms.ToTensor()]))
print(len(ds), ds.classes, ds.class_to_idx, [os.path.basename(p) for p, _ in ds.samples][:3], ds.targets)
loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False)
for xb, yb in loader:
    print(xb.shape, yb, xb.sum().round(decimals=2))
img, lab = ds[4]
print(img.shape, lab)

#%% a torchvision model forward in eval mode with replaced head
torch.manual_seed(0)
m = models.resnet18(weights=None, num_classes=5)
m.fc = torch.nn.Linear(m.fc.in_features, 3)
m.eval()
with torch.no_grad():
    out = m(torch.randn(2, 3, 32, 32))
print(out.shape, out.round(decimals=4))
print(sum(p.numel() for p in m.parameters()), type(m.layer1[0]).__name__)
torch.manual_seed(0)
mb = models.mobilenet_v2(weights=None, num_classes=4).eval()
with torch.no_grad():
    print(mb(torch.randn(1, 3, 32, 32)).round(decimals=4))

#%% make_grid and save_image of a batch
batch = torch.linspace(0, 1, 4 * 3 * 5 * 5).view(4, 3, 5, 5)
grid = utils.make_grid(batch, nrow=2, padding=1, normalize=True)
print(grid.shape, grid[:, 0, :8].round(decimals=3))
path = os.path.join(tempfile.mkdtemp(), "g.png")
utils.save_image(batch, path, nrow=2)
print(np.asarray(Image.open(path)).shape, np.asarray(Image.open(path))[1, 1:6, 0])

#%% transforms v2 with bounding boxes
img = tv_tensors.Image(torch.arange(3 * 10 * 12, dtype=torch.uint8).view(3, 10, 12))
boxes = tv_tensors.BoundingBoxes([[1, 1, 5, 6], [4, 2, 11, 9]], format="XYXY", canvas_size=(10, 12))
t = v2.Compose([v2.RandomHorizontalFlip(p=1.0), v2.Resize((5, 6)), v2.ToDtype(torch.float32, scale=True)])
oi, ob = t(img, boxes)
print(type(oi).__name__, oi.shape, oi.dtype, oi[0, 0].round(decimals=4))
print(type(ob).__name__, ob, ob.canvas_size)

#%% box ops (pure tensor code in torchvision, so its C++ kernels are not needed)
boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 9, 9]], dtype=torch.float32)
print(torchvision.ops.box_iou(boxes[:2], boxes).round(decimals=4))
print(torchvision.ops.generalized_box_iou(boxes[:2], boxes).round(decimals=4))
print(torchvision.ops.box_convert(boxes[:2], "xyxy", "cxcywh"), torchvision.ops.box_area(boxes))
print(torchvision.ops.clip_boxes_to_image(boxes - 3, (8, 25)), torchvision.ops.remove_small_boxes(boxes, 9.5))
