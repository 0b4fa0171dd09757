import torch
from torchvision import tv_tensors, datasets
from torchvision.transforms import v2
torch.manual_seed(0)
vid = tv_tensors.Video(torch.randint(0, 256, (4, 3, 20, 24), dtype=torch.uint8))
tf = v2.Compose([v2.RandomResizedCrop((16, 16), antialias=True), v2.RandomHorizontalFlip(),
                 v2.ColorJitter(0.3, 0.3), v2.ToDtype(torch.float32, scale=True),
                 v2.Normalize([0.5] * 3, [0.25] * 3)])
for i in range(3):
    o = tf(vid); print(type(o).__name__, o.shape, o.dtype, round(o.sum().item(), 3))
print(v2.UniformTemporalSubsample(2)(vid).shape, v2.functional.uniform_temporal_subsample(vid, 3).shape)
img = tv_tensors.Image(torch.rand(3, 30, 30))
for t in [v2.RandomErasing(p=1.0), v2.GaussianBlur(5, (0.5, 1.0)), v2.RandomPosterize(3, p=1.0),
          v2.RandomInvert(p=1.0), v2.Grayscale(3), v2.RandomChannelPermutation(), v2.RandomPhotometricDistort(p=1.0),
          v2.ElasticTransform(alpha=20.0), v2.JPEG((50, 60)) if False else v2.Identity(), v2.ScaleJitter((30, 30))]:
    torch.manual_seed(3)
    try:
        o = t(img if not isinstance(t, v2.RandomPosterize) else (img * 255).to(torch.uint8).as_subclass(tv_tensors.Image))
        print(repr(t).splitlines()[0][:60], type(o).__name__, o.shape, o.dtype, round(o.float().sum().item(), 2))
    except Exception as e:
        print(type(t).__name__, type(e).__name__, e)
fd = datasets.FakeData(size=10, image_size=(3, 16, 16), num_classes=3,
                       transform=v2.Compose([v2.PILToTensor(), v2.RandomCrop(12), v2.ToDtype(torch.float32, scale=True)]))
torch.manual_seed(5)
dl = torch.utils.data.DataLoader(fd, batch_size=4, shuffle=True, drop_last=False)
for xb, yb in dl:
    print(xb.shape, xb.dtype, yb.tolist(), round(xb.sum().item(), 3))
cm = v2.CutMix(num_classes=3); mu = v2.MixUp(num_classes=3, alpha=0.5)
xb = torch.rand(4, 3, 8, 8); yb = torch.tensor([0, 1, 2, 1])
torch.manual_seed(7)
for t in (cm, mu, v2.RandomChoice([cm, mu])):
    a, b = t(xb, yb); print(type(t).__name__, a.shape, round(a.sum().item(), 3), b.shape, [round(v, 4) for v in b.sum(0).tolist()])
try:
    cm(xb, torch.tensor([0.5, 1.0, 2.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
