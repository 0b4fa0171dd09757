import math
import torch
import torch.nn as nn
import torch.nn.functional as F
#%% manual softmax regression with range indexing
torch.manual_seed(0)
feats = torch.rand(48, 20)
labels = torch.randint(0, 4, (48,))
W = (torch.randn(20, 4) * 0.3).requires_grad_()
b = torch.zeros(4, requires_grad=True)
def scores(x):
    z = x @ W + b
    return z - z.logsumexp(dim=1, keepdim=True)
step = 0.8
for epoch in range(3):
    for start in range(0, 48, 12):
        xb, yb = feats[start:start + 12], labels[start:start + 12]
        loss = -scores(xb)[range(len(yb)), yb].mean()
        loss.backward()
        with torch.no_grad():
            W -= step * W.grad
            b -= step * b.grad
        W.grad = None
        b.grad.zero_()
    print(epoch, round(loss.item(), 2))
print((scores(feats).argmax(1) == labels).float().mean(), W.grad, b.grad)
#%% custom cubic function with hand-written backward
class Cubic(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t * t - 2 * t
    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * (3 * t * t - 2)
grid = torch.linspace(-1.5, 1.5, 120)
target = torch.tanh(2 * grid)
p = torch.tensor([0.1, 0.9, 0.05, 0.5], requires_grad=True)
for it in range(250):
    pred = p[0] + p[1] * Cubic.apply(p[2] + p[3] * grid)
    err = (pred - target).square().sum()
    if it % 125 == 124:
        print(it, f"{err.item():.3f}")
    err.backward()
    with torch.no_grad():
        p -= 1e-4 * p.grad
    p.grad = None
print([f"{v:.4f}" for v in p.tolist()])
print(torch.autograd.gradcheck(Cubic.apply, (torch.randn(5, dtype=torch.double, requires_grad=True),)))
#%% features as powers and Adagrad
grid = torch.linspace(-2, 2, 80)
goal = torch.exp(-grid ** 2)
powers = grid.unsqueeze(1) ** torch.arange(1, 5)
net = nn.Sequential(nn.Linear(4, 1), nn.Flatten(0))
opt = torch.optim.Adagrad(net.parameters(), lr=0.05)
crit = nn.MSELoss(reduction="sum")
for it in range(120):
    opt.zero_grad()
    e = crit(net(powers), goal)
    e.backward()
    opt.step()
    if it % 40 == 39:
        print(it, f"{e.item():.2f}")
print(net, net[0].weight.shape, f"{net[0].bias.item():.3f}")
#%% module with data-dependent depth
import random
random.seed(3)
class Variable_depth(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(3, 8)
        self.mid = nn.Linear(8, 8)
        self.out = nn.Linear(8, 1)
    def forward(self, x):
        h = torch.relu(self.inp(x))
        for _ in range(random.randint(0, 3)):
            h = torch.relu(self.mid(h))  # the same weights reused a random number of times
        return self.out(h)
torch.manual_seed(0)
m = Variable_depth()
opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.8, nesterov=True)
data = torch.randn(32, 3)
y = data.sum(1, keepdim=True)
for it in range(30):
    opt.zero_grad()
    e = F.mse_loss(m(data), y)
    e.backward()
    opt.step()
print(f"{e.item():.2f}", [n for n, _ in m.named_parameters()])
#%% tensor basics a newcomer prints
import numpy as np
nested = [[5, 6, 7], [8, 9, 10]]
t = torch.tensor(nested)
arr = np.array(nested, dtype=np.float32)
shared = torch.from_numpy(arr)
print(t, t.dtype, shared.dtype, torch.zeros_like(t), torch.full_like(t, 2.5, dtype=torch.float64))
print(f"shape {t.shape} size {t.size()} dims {t.ndim} numel {t.numel()} device {t.device}")
print(t[1], t[:, -1], t[..., 0], t.T, t.flatten(), t.view(3, 2))
t[0, 1:] = 0
print(t, torch.hstack([t, t]), torch.vstack([t, t]).shape)
f = torch.ones(2, 3)
print(f @ f.T, f.mm(f.t()), f * f, f.mul(2), f.sum(), f.sum().item(), type(f.sum().item()).__name__)
out = torch.empty(2, 2)
torch.matmul(f, f.T, out=out)
print(out)
f.add_(3)
print(f)
g = torch.arange(4.0)
view = g.numpy()
g.mul_(10)
print(g, view)
arr2 = np.zeros(3)
h = torch.from_numpy(arr2)
arr2 += 7
print(h, h.dtype)
#%% classifier network summary
class Classifier(nn.Module):
    def __init__(self, n_in=16, n_hidden=32, n_out=5):
        super().__init__()
        self.flat = nn.Flatten()
        self.body = nn.Sequential(nn.Linear(n_in, n_hidden), nn.Tanh(), nn.Dropout(0.1), nn.Linear(n_hidden, n_out))
    def forward(self, x):
        return self.body(self.flat(x))
torch.manual_seed(1)
clf = Classifier()
print(clf)
img = torch.rand(2, 4, 4)
logits = clf(img)
print(logits.shape, nn.Softmax(dim=1)(logits).sum(1), logits.argmax(1))
for name, prm in clf.named_parameters():
    print(name, tuple(prm.shape), prm.requires_grad)
print(sum(p.numel() for p in clf.parameters()))
clf.eval()
print(torch.equal(clf(img), clf(img)), clf.training, clf.body[2].training)
#%% gradients a newcomer inspects
a = torch.ones(4)
target = torch.tensor([0.0, 1.0, 1.0, 0.0])
w = torch.full((4, 2), 0.5, requires_grad=True)
bias = torch.tensor([0.1, -0.1], requires_grad=True)
z = a @ w + bias
lossv = F.binary_cross_entropy_with_logits(z.sum().expand(4), target)
print(type(z.grad_fn).__name__, type(lossv.grad_fn).__name__, z.requires_grad, z.is_leaf, w.is_leaf)
lossv.backward()
print(w.grad, bias.grad)
with torch.no_grad():
    print((a @ w).requires_grad)
print((a @ w).detach().requires_grad)
m2 = torch.eye(3, 4, requires_grad=True)
o = (m2 * 2 + 1).pow(2).T
o.backward(torch.ones_like(o), retain_graph=True)
first = m2.grad.clone()
o.backward(torch.ones_like(o), retain_graph=True)
print(first, m2.grad)
m2.grad.zero_()
o.backward(torch.ones_like(o))
print(m2.grad)
#%% saving weights and whole models
import io
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 4), nn.LayerNorm(4), nn.Linear(4, 2))
buffer = io.BytesIO()
torch.save({"model": model.state_dict(), "epoch": 3}, buffer)
buffer.seek(0)
ck = torch.load(buffer)
fresh = nn.Sequential(nn.Linear(5, 4), nn.LayerNorm(4), nn.Linear(4, 2))
print(fresh.load_state_dict(ck["model"]), ck["epoch"], sorted(ck["model"].keys()))
x = torch.randn(2, 5)
print(torch.equal(fresh(x), model(x)))
buffer = io.BytesIO()
torch.save(model, buffer)
buffer.seek(0)
try:
    torch.load(buffer)
except Exception as e:
    print(type(e).__name__, str(e)[:200])
buffer.seek(0)
whole = torch.load(buffer, weights_only=False)
print(type(whole).__name__, torch.equal(whole(x), model(x)))
#%% gradient descent by hand without autograd
torch.manual_seed(0)
xs = torch.linspace(0, 3, 500)
ys = 2 * torch.cos(xs) + 0.5
k = torch.randn(3)
rate = 2e-5
for it in range(400):
    guess = k[0] + k[1] * xs + k[2] * xs ** 2
    resid = guess - ys
    if it % 100 == 99:
        print(it, round(resid.square().sum().item(), 1))
    dk = torch.stack([2 * resid.sum(), 2 * (resid * xs).sum(), 2 * (resid * xs ** 2).sum()])
    k -= rate * dk
print([round(v, 3) for v in k.tolist()], k.requires_grad, k.grad)
