import torch
import torch.nn as nn
import torch.nn.functional as F

#%% a small DCGAN-style generator and discriminator trained a few steps
torch.manual_seed(0)
G = nn.Sequential(
    nn.ConvTranspose2d(8, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(True),
    nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
    nn.ConvTranspose2d(8, 1, 4, 2, 1, bias=False), nn.Tanh())
D = nn.Sequential(
    nn.Conv2d(1, 8, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(8, 16, 4, 2, 1, bias=False), nn.BatchNorm2d(16), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(16, 1, 4, 1, 0, bias=False), nn.Flatten())


def init(m):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


G.apply(init)
D.apply(init)
oG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
oD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
crit = nn.BCEWithLogitsLoss()
real = torch.rand(6, 1, 16, 16) * 2 - 1
fixed = torch.randn(2, 8, 1, 1)
for it in range(4):
    z = torch.randn(6, 8, 1, 1)
    fake = G(z)
    oD.zero_grad()
    d_real = D(real)
    d_fake = D(fake.detach())
    lossD = crit(d_real, torch.ones_like(d_real)) + crit(d_fake, torch.zeros_like(d_fake))
    lossD.backward()
    oD.step()
    oG.zero_grad()
    out = D(fake)
    lossG = crit(out, torch.full_like(out, 1.0))
    lossG.backward()
    oG.step()
    print(it, f"{lossD.item():.4f} {lossG.item():.4f} {torch.sigmoid(d_real).mean().item():.4f}")
with torch.no_grad():
    G.eval()
    img = G(fixed)
print(img.shape, f"{img.mean().item():.4f} {img.std().item():.4f}", img.dtype)

#%% WGAN-GP gradient penalty needs a double backward through the critic
torch.manual_seed(1)
critic = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
real, fake = torch.randn(5, 4), torch.randn(5, 4)
alpha = torch.rand(5, 1)
mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
score = critic(mix)
grad, = torch.autograd.grad(score, mix, grad_outputs=torch.ones_like(score), create_graph=True)
gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * gp
loss.backward()
print(f"{gp.item():.5f} {loss.item():.5f}")
print([f"{p.grad.norm().item():.5f}" for p in critic.parameters()])

#%% spectral norm on a discriminator layer: sigma estimate and the state_dict keys
torch.manual_seed(2)
lin = nn.utils.spectral_norm(nn.Linear(6, 5))
x = torch.randn(3, 6)
for _ in range(3):
    y = lin(x)
print(sorted(lin.state_dict().keys()))
w = lin.weight
print(f"{torch.linalg.matrix_norm(w.detach(), 2).item():.4f}", f"{y.sum().item():.4f}")
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 5))
for _ in range(3):
    y2 = sn(x)
print(sorted(sn.state_dict().keys()), f"{torch.linalg.matrix_norm(sn.weight.detach(), 2).item():.4f}")

#%% label smoothing and soft labels with a noisy discriminator target
torch.manual_seed(3)
logits = torch.randn(4, 3, requires_grad=True)
target = torch.tensor([0, 2, 1, 2])
l1 = F.cross_entropy(logits, target, label_smoothing=0.1)
soft = F.one_hot(target, 3).float() * 0.9 + 0.1 / 3
l2 = F.cross_entropy(logits, soft)
print(f"{l1.item():.6f} {l2.item():.6f}", torch.allclose(l1, l2))
(l1 + l2).backward()
print(logits.grad.round(decimals=4))
