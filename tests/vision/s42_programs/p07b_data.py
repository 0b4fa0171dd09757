import os, shutil, tempfile
import numpy as np
import torch
from PIL import Image
import torchvision
from torchvision import datasets, transforms, io
torch.manual_seed(0)
fd = datasets.FakeData(size=5, image_size=(3, 12, 10), num_classes=4, transform=transforms.ToTensor(), random_offset=3)
print(len(fd), fd)
for i in range(3):
    x, y = fd[i]; print(i, x.shape, round(x.sum().item(), 3), y)
d = tempfile.mkdtemp()
rng = np.random.RandomState(1)
for cls in ["cat", "dog", "bird"]:
    os.makedirs(os.path.join(d, cls))
    for j in range(2):
        Image.fromarray(rng.randint(0, 256, (9, 11, 3), dtype=np.uint8)).save(os.path.join(d, cls, f"{j}.png"))
open(os.path.join(d, "dog", "notes.txt"), "w").write("x")
ds = datasets.ImageFolder(d, transform=transforms.Compose([transforms.Resize(8), transforms.ToTensor()]))
print(ds.classes, ds.class_to_idx, len(ds), [os.path.relpath(p, d) for p, _ in ds.samples], ds.targets)
x, y = ds[3]; print(x.shape, y, round(x.sum().item(), 4))
dl = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False)
for xb, yb in dl: print(xb.shape, yb.tolist())
print(repr(ds).replace(d, "ROOT").splitlines())
print(torchvision.get_image_backend())
shutil.rmtree(d)
