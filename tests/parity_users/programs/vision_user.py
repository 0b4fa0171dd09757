import torch
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
try:
    import torchvision
finally:
    torch.library.register_fake = _register_fake
import torchvision.transforms as T
import torchvision.transforms.functional as TF
from torchvision import ops, models, utils
from PIL import Image
import numpy as np
def img(w=8, h=6):
    a = (np.arange(h * w * 3).reshape(h, w, 3) * 7 % 256).astype(np.uint8)
    return Image.fromarray(a)
#%% to_tensor and pil_to_tensor
im = img()
t = TF.to_tensor(im)
print(t.shape, t.dtype, t[:, 0, :3])
p = TF.pil_to_tensor(im)
print(p.shape, p.dtype, p[0, 1])
print(T.ToTensor()(im.convert("L")).shape)
#%% to_pil_image roundtrip
t = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(3, 2, 4) / 24
pi = TF.to_pil_image(t)
print(pi.mode, pi.size, np.asarray(pi)[0, :2].tolist())
print(TF.to_pil_image(torch.zeros(1, 3, 3, dtype=torch.uint8)).mode)
#%% normalize and compose
tr = T.Compose([T.ToTensor(), T.Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25])])
x = tr(img())
print(x.shape, x.mean().item().__round__(4), x[0, 0, :3])
print(tr)
#%% resize center crop pil
im = img(16, 12)
r = T.Resize(6)(im)
print(r.size, T.CenterCrop(4)(r).size, T.Resize((5, 7))(im).size)
print(np.asarray(T.Resize(6, interpolation=T.InterpolationMode.NEAREST)(im))[0, :3].tolist())
#%% resize tensor
t = torch.arange(2 * 4 * 4, dtype=torch.float32).reshape(2, 4, 4)
print(TF.resize(t, [2, 2], antialias=True))
print(TF.resize(t, [6, 6], interpolation=T.InterpolationMode.NEAREST)[0, :2])
print(TF.resize(t.unsqueeze(0).to(torch.uint8), [3, 3], antialias=False).dtype)
#%% crop pad flip tensor
t = torch.arange(16.0).reshape(1, 4, 4)
print(TF.crop(t, 1, 1, 2, 2), TF.hflip(t)[0, 0], TF.vflip(t)[0, :, 0])
print(TF.pad(t, [1, 2], fill=-1).shape, TF.pad(t, 1, padding_mode="reflect")[0, 0])
print(TF.center_crop(t, [2, 2]), TF.five_crop(t, [2, 2])[4])
#%% rotate affine tensor
t = torch.arange(16.0).reshape(1, 4, 4)
print(TF.rotate(t, 90))
print(TF.affine(t, angle=0.0, translate=[1, 0], scale=1.0, shear=[0.0]))
print(TF.rotate(t, 45, expand=True).shape)
#%% color transforms tensor
torch.manual_seed(0)
t = torch.rand(3, 4, 4)
print(TF.adjust_brightness(t, 1.5)[0, 0].round(decimals=4))
print(TF.adjust_contrast(t, 0.5)[1, 1].round(decimals=4))
print(TF.adjust_saturation(t, 2.0)[2, 2].round(decimals=4))
print(TF.rgb_to_grayscale(t).shape, TF.rgb_to_grayscale(t, 3).shape)
print(TF.adjust_hue(t, 0.1)[0, 0].round(decimals=4))
print(TF.adjust_gamma(t, 2.0)[0, 0].round(decimals=4), TF.invert(t)[0, 0, 0].round(decimals=4))
#%% random transforms with seed
torch.manual_seed(0)
t = torch.arange(3 * 8 * 8, dtype=torch.float32).reshape(3, 8, 8)
out = T.RandomCrop(4)(t)
print(out.shape, out[0, 0])
torch.manual_seed(1)
print(T.RandomHorizontalFlip(p=0.5)(t)[0, 0, :3])
torch.manual_seed(2)
print(T.RandomResizedCrop(4, antialias=True)(t).shape)
print(T.RandomCrop(4).get_params(t, (4, 4)) if False else T.RandomErasing(p=0.0)(t).shape)
#%% gaussian blur and to dtype
t = torch.arange(25.0).reshape(1, 5, 5)
print(TF.gaussian_blur(t, [3, 3], [1.0, 1.0]).round(decimals=3))
print(TF.convert_image_dtype(torch.tensor([[[0, 128, 255]]], dtype=torch.uint8), torch.float32))
print(TF.convert_image_dtype(torch.tensor([[[0.0, 0.5, 1.0]]]), torch.uint8))
#%% transform errors
try:
    TF.normalize(torch.zeros(3, 2, 2, dtype=torch.uint8), [0.5] * 3, [0.5] * 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    TF.normalize(torch.zeros(3, 2, 2), [0.5] * 3, [0.0, 1.0, 1.0])
except Exception as e:
    print(type(e).__name__, e)
try:
    TF.to_pil_image(torch.zeros(5, 2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    T.Resize([1, 2, 3])
except Exception as e:
    print(type(e).__name__, e)
#%% box ops
b = torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 15.0, 15.0], [20.0, 20.0, 25.0, 30.0]])
print(ops.box_area(b), ops.box_iou(b, b[:2]))
print(ops.generalized_box_iou(b, b).round(decimals=4))
print(ops.box_convert(b, "xyxy", "cxcywh"), ops.box_convert(b, "xyxy", "xywh"))
print(ops.clip_boxes_to_image(b, (12, 12)), ops.remove_small_boxes(b, 6.0))
print(ops.distance_box_iou(b, b).round(decimals=4), ops.complete_box_iou(b[:2], b[:2]).round(decimals=4))
#%% box losses
b1 = torch.tensor([[0.0, 0.0, 10.0, 10.0]], requires_grad=True)
b2 = torch.tensor([[2.0, 2.0, 12.0, 12.0]])
l = ops.generalized_box_iou_loss(b1, b2, reduction="sum")
l.backward()
print(l.detach().round(decimals=4), b1.grad.round(decimals=4))
print(ops.sigmoid_focal_loss(torch.tensor([0.5, -1.0]), torch.tensor([1.0, 0.0]), reduction="mean").round(decimals=4))
#%% misc ops modules
torch.manual_seed(0)
print(ops.Conv2dNormActivation(3, 4, 3))
print(ops.MLP(4, [8, 2]))
print(ops.FrozenBatchNorm2d(3), ops.SqueezeExcitation(8, 2))
sd = ops.StochasticDepth(0.5, "row")
sd.eval()
print(torch.equal(sd(torch.ones(2, 3)), torch.ones(2, 3)))
#%% make_grid
t = torch.arange(4 * 3 * 2 * 2, dtype=torch.float32).reshape(4, 3, 2, 2)
g = utils.make_grid(t, nrow=2, padding=1)
print(g.shape, g[0, :, 0])
print(utils.make_grid(t, nrow=3, normalize=True, pad_value=0.5)[1, 1])
print(utils.make_grid([t[0], t[1]]).shape, utils.make_grid(t[:, :1], padding=0).shape)
#%% save_image roundtrip
import io
buf = io.BytesIO()
utils.save_image(torch.linspace(0, 1, 3 * 4 * 4).reshape(3, 4, 4), buf, format="png")
buf.seek(0)
print(np.asarray(Image.open(buf))[0, :2].tolist())
#%% draw bounding boxes
im = torch.zeros(3, 8, 8, dtype=torch.uint8)
out = utils.draw_bounding_boxes(im, torch.tensor([[1, 1, 5, 5]]), colors="red")
print(out.shape, out.dtype, int(out[0].sum()), int(out[1].sum()))
m = utils.draw_segmentation_masks(im, torch.zeros(8, 8, dtype=torch.bool).fill_(True), alpha=0.5, colors="blue")
print(int(m[2, 0, 0]), int(m[0, 0, 0]))
#%% model resnet18 eval
torch.manual_seed(0)
net = models.resnet18(num_classes=5).eval()
x = torch.randn(1, 3, 32, 32)
with torch.no_grad():
    y = net(x)
print(y.shape, y.round(decimals=3))
print(sum(p.numel() for p in net.parameters()), type(net.layer1[0]).__name__)
#%% model constructors and weights enums
print(models.list_models()[:3] if hasattr(models, "list_models") else None)
print(models.ResNet18_Weights.DEFAULT, models.ResNet18_Weights.IMAGENET1K_V1.meta["num_params"])
torch.manual_seed(0)
m = models.mobilenet_v2(num_classes=3).eval()
with torch.no_grad():
    print(m(torch.randn(1, 3, 32, 32)).shape)
print(sum(p.numel() for p in models.alexnet(num_classes=2).features.parameters()))
#%% small models forward
torch.manual_seed(0)
for name in ["squeezenet1_0", "shufflenet_v2_x0_5", "mnasnet0_5"]:
    m = getattr(models, name)(num_classes=4).eval()
    with torch.no_grad():
        out = m(torch.randn(1, 3, 64, 64))
    print(name, out.shape, sum(p.numel() for p in m.parameters()))
#%% presets
tr = models.ResNet18_Weights.DEFAULT.transforms()
print(tr)
out = tr(img(40, 30))
print(out.shape, out.dtype)
