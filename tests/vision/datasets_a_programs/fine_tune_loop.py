"""A user's small training loop over torchvision datasets: Flowers102 and OxfordIIITPet
read from files made here in their real layouts, transforms, a DataLoader, a few SGD steps
of a tiny classifier, and the datasets' reprs and errors printed along the way."""

import os
import sys
import tempfile

import numpy as np
import scipy.io
import torch
import torchvision
from PIL import Image
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader
from torchvision import transforms

root = tempfile.mkdtemp()
rng = np.random.default_rng(0)


def save_image(path, size):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(rng.integers(0, 256, (*size, 3)).astype(np.uint8)).save(path)


flowers = os.path.join(root, "flowers-102")
for i in range(1, 9):
    save_image(os.path.join(flowers, "jpg", f"image_{i:05d}.jpg"), (20 + i, 24))
scipy.io.savemat(os.path.join(flowers, "imagelabels.mat"),
                 {"labels": np.array([[1, 2, 3, 1, 2, 3, 1, 2]], np.uint8)})
scipy.io.savemat(os.path.join(flowers, "setid.mat"),
                 {"trnid": np.array([[1, 2, 3, 4, 5, 6]]), "valid": np.array([[7, 8]]),
                  "tstid": np.array([[7, 8]])})
pets = os.path.join(root, "oxford-iiit-pet")
os.makedirs(os.path.join(pets, "annotations"))
with open(os.path.join(pets, "annotations", "trainval.txt"), "w") as f:
    for k, (name, label) in enumerate([("Bengal_3", 1), ("pug_1", 3), ("Bengal_4", 1),
                                       ("beagle_2", 2)]):
        f.write(f"{name} {label} {1 + k % 2} 1\n")
        save_image(os.path.join(pets, "images", f"{name}.jpg"), (30, 18 + k))

# the MD5s of the two .mat files are the real ones; these files are ours
torchvision.datasets.Flowers102._file_dict = {
    key: (name, torchvision.datasets.utils.calculate_md5(os.path.join(flowers, name))
          if key != "image" else md5)
    for key, (name, md5) in torchvision.datasets.Flowers102._file_dict.items()}

tf = transforms.Compose([transforms.Resize((16, 16)), transforms.ToTensor(),
                         transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
train = torchvision.datasets.Flowers102(root, "train", transform=tf)
val = torchvision.datasets.Flowers102(root, split="val", transform=tf)
pet = torchvision.datasets.OxfordIIITPet(root, target_types="category", transform=tf)
print(train)
print(pet)
print(len(train), len(val), len(pet), train.classes[:3], pet.classes, pet.class_to_idx)
for bad in (dict(split="training"), dict(download=False, split="test")):
    try:
        torchvision.datasets.Food101(root, **bad)
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, str(e).split(" (")[0])

torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loader = DataLoader(ConcatDataset([train, pet]), batch_size=4, shuffle=True)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, tuple(x.shape), y.tolist(), f"{x.sum().item():.3f}", f"{loss.item():.4f}")
with torch.no_grad():
    x, y = next(iter(DataLoader(val, batch_size=2)))
    print("val", model(x).argmax(1).tolist(), y.tolist())
sys.stdout.flush()
