import io

import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().float().round(decimals=n).tolist()
    return round(float(t), n)


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.GELU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
                                 nn.ReLU(), nn.Upsample(scale_factor=2, mode="nearest"),
                                 nn.Conv2d(4, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))

#%% shapes through the encoder/decoder and a first loss
torch.manual_seed(0)
ae = AE()
x = torch.rand(3, 1, 12, 12)
z = ae.enc(x)
y = ae(x)
print(z.shape, y.shape, r(F.binary_cross_entropy(y, x)), r(F.mse_loss(y, x, reduction="sum")))

#%% train with gradient accumulation and a step scheduler, checkpoint to memory and back
torch.manual_seed(1)
ae = AE()
opt = torch.optim.SGD(ae.parameters(), lr=0.5, momentum=0.9, nesterov=True)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
data = torch.rand(8, 1, 12, 12)
for step in range(8):
    for chunk in data.split(4):
        loss = F.binary_cross_entropy(ae(chunk), chunk) / 2
        loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    sched.step()
    if step % 2 == 1:
        print(step, r(loss * 2), sched.get_last_lr())
buf = io.BytesIO()
torch.save({"model": ae.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf)
ae2 = AE()
ae2.load_state_dict(ck["model"])
opt2 = torch.optim.SGD(ae2.parameters(), lr=0.5, momentum=0.9, nesterov=True)
opt2.load_state_dict(ck["opt"])
print(ck["sched"]["last_epoch"], opt2.param_groups[0]["lr"], r(ae2(data[:1]).mean()), r(ae(data[:1]).mean()))
print(sorted(ck["opt"]["state"])[:3], r(ck["opt"]["state"][0]["momentum_buffer"].abs().sum()))

#%% image ops: pixel shuffle, unfold patches, interpolate, pad modes
torch.manual_seed(2)
img = torch.arange(2 * 4 * 3 * 3, dtype=torch.float32).reshape(2, 4, 3, 3)
ps = F.pixel_shuffle(img, 2)
print(ps.shape, ps[0, 0, :2, :4].tolist(), torch.equal(F.pixel_unshuffle(ps, 2), img))
patches = F.unfold(img, kernel_size=2, stride=1)
print(patches.shape, r(F.fold(patches, (3, 3), kernel_size=2)[0, 0]))
print(r(F.interpolate(img[:, :1], size=(5, 4), mode="bilinear", align_corners=True)[0, 0, 1]))
print(r(F.interpolate(img[:, :1], scale_factor=1.5, mode="bicubic")[0, 0, 0]))
for mode in ["constant", "reflect", "replicate", "circular"]:
    print(mode, F.pad(img[:1, :1], (1, 2, 0, 1), mode=mode)[0, 0, -1].tolist())

#%% inference helpers: inference_mode, no_grad on a method, eval vs train outputs
torch.manual_seed(3)
ae = AE()
x = torch.rand(1, 1, 12, 12)
with torch.inference_mode():
    out = ae(x)
print(out.requires_grad, out.is_inference(), r(out.sum()))
try:
    out.add_(1) if False else (out * 2).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
drop = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
v = torch.ones(2, 4)
drop.eval()
a = drop(v)
drop.train()
torch.manual_seed(4)
b = drop(v)
print(r(a), r(b), drop.training, [m.training for m in drop])
