import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms, models
from torchvision.transforms import v2

#%% FakeData through a loader and a short training run
ds = datasets.FakeData(size=12, image_size=(3, 16, 16), num_classes=4, transform=transforms.ToTensor(),
                       random_offset=5)
print(len(ds), ds[0][0].shape, ds[0][1], ds[0][0][0, 0, :3])
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(8, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(1))
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 3), yb.tolist())

#%% MixUp and CutMix on a batch under a seed
imgs = torch.rand(4, 3, 8, 8)
labels = torch.tensor([0, 1, 2, 1])
torch.manual_seed(7)
mx, my = v2.MixUp(num_classes=3)(imgs, labels)
print(mx.shape, my.round(decimals=4))
torch.manual_seed(8)
cx, cy = v2.CutMix(num_classes=3, alpha=1.0)(imgs, labels)
print(cy.round(decimals=4), (cx != imgs).float().mean().round(decimals=4))
choice = v2.RandomChoice([v2.MixUp(num_classes=3), v2.CutMix(num_classes=3)])
torch.manual_seed(9)
print(choice(imgs, labels)[1].round(decimals=4))

#%% auto augmentation policies under a seed
img = (torch.arange(3 * 12 * 12) % 251).to(torch.uint8).view(3, 12, 12)
for t in (transforms.AutoAugment(), transforms.RandAugment(num_ops=2, magnitude=7),
          transforms.TrivialAugmentWide(), transforms.AugMix(severity=2)):
    torch.manual_seed(13)
    out = t(img)
    print(type(t).__name__, out.dtype, out.float().mean().round(decimals=3), out[0, 0, :5])

#%% random erasing, grayscale, gaussian blur, normalize inverse
torch.manual_seed(17)
x = torch.rand(3, 10, 10)
print(transforms.RandomErasing(p=1.0, value="random")(x).sum().round(decimals=3))
print(transforms.Grayscale(3)(x)[:, 0, 0].round(decimals=4), transforms.GaussianBlur(3, sigma=(0.5, 1.5))(x)[0, 1, :3].round(decimals=4))
norm = transforms.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])
inv = transforms.Normalize([-0.5 / 0.2, -0.4 / 0.25, -1.0], [1 / 0.2, 1 / 0.25, 1 / 0.3])
print((inv(norm(x)) - x).abs().max() < 1e-6)

#%% pretrained-style model surgery: freeze, feature extractor, new classifier
torch.manual_seed(2)
m = models.resnet18(weights=None)
for p in m.parameters():
    p.requires_grad_(False)
m.fc = nn.Linear(512, 2)
print(sum(p.numel() for p in m.parameters() if p.requires_grad))
from torchvision.models.feature_extraction import create_feature_extractor, get_graph_node_names
fe = create_feature_extractor(m.eval(), return_nodes={"layer2": "mid", "avgpool": "pooled"})
feats = fe(torch.randn(1, 3, 32, 32))
print({k: tuple(v.shape) for k, v in feats.items()})
print(get_graph_node_names(models.resnet18())[0][:6])
print(models.list_models(module=models)[:5], len(models.list_models()) > 50)
print(models.get_model("vgg11", weights=None, num_classes=3).classifier[-1])
