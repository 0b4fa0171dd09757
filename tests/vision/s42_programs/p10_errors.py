import numpy as np, torch
from PIL import Image
import torchvision.transforms as T
import torchvision.transforms.functional as F
from torchvision.transforms import v2
from torchvision import models, utils, ops
img = Image.fromarray(np.zeros((10, 12, 3), dtype=np.uint8))
cases = [
    lambda: T.Normalize([0.5], [0.5])(img),
    lambda: T.ToTensor()(torch.zeros(3, 4, 4)),
    lambda: F.resize(torch.zeros(3, 8, 8), [2, 3, 4]),
    lambda: T.Resize(-1),
    lambda: T.Normalize([0.5, 0.5], [0.5, 0.0])(torch.zeros(2, 3, 3)),
    lambda: T.RandomCrop(20)(img),
    lambda: F.to_pil_image(torch.zeros(5, 4, 4)),
    lambda: T.Compose([T.ToTensor()])(np.zeros((4, 4), dtype=np.float64)).dtype,
    lambda: F.crop(torch.zeros(3, 4, 4), -2, -2, 3, 3).sum(),
    lambda: F.adjust_hue(torch.zeros(3, 4, 4), 0.7),
    lambda: v2.Resize(5)(torch.zeros(2, 3, 4, 4)).shape,
    lambda: v2.RandomCrop(10)(torch.zeros(3, 4, 4)),
    lambda: utils.make_grid(torch.zeros(2, 3)),
    lambda: models.resnet18(num_classes=3)(torch.zeros(3, 8, 8)),
    lambda: models.get_model("resnet18", weights=None, num_classes=4).fc,
    lambda: models.list_models()[:5],
    lambda: ops.box_convert(torch.zeros(1, 4), "xyxy", "abc"),
    lambda: ops.masks_to_boxes(torch.zeros(0, 4, 4)).shape,
    lambda: T.functional.normalize(torch.zeros(3, 4, 4, dtype=torch.uint8), [0.5] * 3, [0.5] * 3),
    lambda: F.rgb_to_grayscale(torch.zeros(2, 4, 4)),
]
for i, c in enumerate(cases):
    try:
        print(i, c())
    except Exception as e:
        print(i, type(e).__name__, str(e)[:200])
