import numpy as np, torch
from PIL import Image
import torchvision.transforms as T
import torchvision.transforms.functional as F
rng = np.random.RandomState(0)
img = Image.fromarray(rng.randint(0, 256, (60, 80, 3), dtype=np.uint8))
torch.manual_seed(0)
tf = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(), T.ToTensor(),
                T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
for i in range(3):
    x = tf(img)
    print(i, x.shape, x.dtype, round(x.sum().item(), 3), [round(v, 4) for v in x.flatten()[:5].tolist()])
print(tf)
cj = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
torch.manual_seed(1)
y = cj(img)
print(type(y).__name__, y.size, int(np.asarray(y, dtype=np.int64).sum()))
ra = T.RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)
torch.manual_seed(2)
y = ra(img)
print(y.size, int(np.asarray(y, dtype=np.int64).sum()))
print(F.resize(img, 30).size, F.resize(img, [20, 25]).size)
print(int(np.asarray(F.rotate(img, 30), dtype=np.int64).sum()))
print(F.pad(img, [2, 3]).size, F.crop(img, 5, 6, 10, 12).size, F.center_crop(img, 20).size)
t = F.pil_to_tensor(img)
print(t.dtype, t.shape, F.to_pil_image(t).mode)
print(F.to_tensor(img).sum().item())
g = T.Grayscale(3)(img); print(g.mode, int(np.asarray(g, dtype=np.int64).sum()))
print(T.RandomCrop(24, padding=4)(img).size)
print(repr(T.RandomResizedCrop(32)), repr(T.ColorJitter(0.4)))
