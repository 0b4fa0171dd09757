import os, shutil, tempfile
import numpy as np
import torch
from PIL import Image
from torchvision import utils
torch.manual_seed(0)
b = torch.rand(5, 3, 8, 10)
g = utils.make_grid(b, nrow=3, padding=1, pad_value=0.5)
print(g.shape, round(g.sum().item(), 3))
print(utils.make_grid(b, normalize=True, value_range=(0.2, 0.8), scale_each=True).shape)
print(utils.make_grid(torch.rand(2, 1, 4, 4)).shape, utils.make_grid([b[0], b[1]]).shape)
d = tempfile.mkdtemp()
p = os.path.join(d, "g.png")
utils.save_image(b, p, nrow=2)
im = Image.open(p); print(im.size, im.mode, int(np.asarray(im, dtype=np.int64).sum()))
img = torch.zeros(3, 40, 50, dtype=torch.uint8)
bx = torch.tensor([[2, 3, 20, 30], [10, 10, 45, 35]])
o = utils.draw_bounding_boxes(img, bx, labels=["cat", "dog"], colors=["red", (0, 255, 0)], width=2)
print(o.shape, o.dtype, int(o.long().sum()))
o = utils.draw_bounding_boxes(img, bx, fill=True, colors="blue")
print(int(o.long().sum()))
m = torch.zeros(2, 40, 50, dtype=torch.bool); m[0, 5:20, 5:20] = True; m[1, 15:35, 10:40] = True
o = utils.draw_segmentation_masks(img, m, alpha=0.5, colors=["red", "yellow"])
print(int(o.long().sum()))
kp = torch.tensor([[[5, 5], [20, 20], [30, 10]]])
o = utils.draw_keypoints(img, kp, colors="white", radius=2, connectivity=[(0, 1), (1, 2)])
print(int(o.long().sum()))
fl = torch.randn(2, 10, 12)
print(utils.flow_to_image(fl).shape, int(utils.flow_to_image(fl).long().sum()))
shutil.rmtree(d)
