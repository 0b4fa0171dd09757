import torch
import torchvision
from torchvision.models import segmentation as S
from torchvision.models import optical_flow as OF
from torchvision.utils import flow_to_image
def det_init(m):
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.05, 0.05, p.numel()).reshape(p.shape) * ((-1) ** i))
    return m
torch.manual_seed(0)
x = torch.rand(1, 3, 64, 64)
for name in ["lraspp_mobilenet_v3_large", "fcn_resnet50", "deeplabv3_mobilenet_v3_large"]:
    m = getattr(S, name)(weights=None, weights_backbone=None, num_classes=5, aux_loss=None if name.startswith("lraspp") else True)
    det_init(m).eval()
    with torch.no_grad():
        out = m(x)
    print(name, sorted(out), {k: tuple(v.shape) for k, v in out.items()}, round(out["out"].sum().item(), 3), out["out"].argmax(1).unique().tolist())
    print(len(m.state_dict()), sum(p.numel() for p in m.parameters()))
r = OF.raft_small(weights=None)
det_init(r).eval()
a = torch.rand(1, 3, 128, 128) * 2 - 1; b = torch.roll(a, 2, dims=3)
with torch.no_grad():
    flows = r(a, b, num_flow_updates=3)
print(len(flows), flows[-1].shape, round(flows[-1].abs().mean().item(), 4))
img = flow_to_image(flows[-1])
print(img.shape, img.dtype, int(img.long().sum()))
print(type(r).__name__, len(r.state_dict()))
