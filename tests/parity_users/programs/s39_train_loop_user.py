import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader, random_split


def data(n=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    y = (x[:, 0] + x[:, 1] * 0.5 > 0).long()
    return TensorDataset(x, y)
#%% classifier with accuracy, early stopping and best checkpoint
torch.manual_seed(0)
ds = data()
train, val = random_split(ds, [48, 16], generator=torch.Generator().manual_seed(1))
tl = DataLoader(train, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(2))
vl = DataLoader(val, batch_size=8)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
best, best_state, bad = float("inf"), None, 0
for epoch in range(6):
    model.train()
    total = 0.0
    for xb, yb in tl:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    model.eval()
    correct, vloss = 0, 0.0
    with torch.no_grad():
        for xb, yb in vl:
            out = model(xb)
            vloss += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
    vloss /= len(val)
    sched.step(vloss)
    print(epoch, f"{total / len(train):.3f}", f"{vloss:.3f}", f"{correct / len(val):.2%}", opt.param_groups[0]["lr"])
    if vloss < best - 1e-3:
        best, bad = vloss, 0
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
    else:
        bad += 1
        if bad >= 3:
            print("early stop")
            break
model.load_state_dict(best_state)
print(type(correct).__name__, type(total).__name__, sorted(best_state.keys()))
#%% confusion matrix and metrics
pred = torch.tensor([0, 1, 1, 2, 2, 2, 0, 1])
true = torch.tensor([0, 1, 2, 2, 1, 2, 0, 0])
cm = torch.bincount(true * 3 + pred, minlength=9).reshape(3, 3)
print(cm, cm.diag() / cm.sum(1), cm.diag().sum() / cm.sum())
prec = cm.diag() / cm.sum(0).clamp(min=1)
print(prec, (2 * prec * 0.5 / (prec + 0.5)).round(decimals=3))
print(F.one_hot(pred, 3).sum(0), torch.unique(pred, return_counts=True))
probs = F.softmax(torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.2]]), dim=1)
print(probs, probs.max(1), probs.topk(2, dim=1).indices)
#%% regression with MSE and gradient accumulation
torch.manual_seed(0)
x = torch.linspace(-1, 1, 32).unsqueeze(1)
y = 3 * x + 0.5
m = nn.Linear(1, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
for step in range(40):
    for chunk in range(4):
        xb, yb = x[chunk::4], y[chunk::4]
        (F.mse_loss(m(xb), yb) / 4).backward()
    opt.step()
    opt.zero_grad()
print(round(m.weight.item(), 3), round(m.bias.item(), 3))
print(m.weight.grad, F.mse_loss(m(x), y).item() < 1e-2)
#%% AMP on CPU with GradScaler and autocast
torch.manual_seed(0)
m = nn.Linear(4, 2)
scaler = torch.amp.GradScaler("cpu")
opt = torch.optim.SGD(m.parameters(), lr=0.1)
x = torch.randn(8, 4)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    out = m(x)
    loss = out.float().pow(2).mean()
print(out.dtype, loss.dtype)
scaler.scale(loss).backward()
print(m.weight.grad.dtype, scaler.get_scale())
scaler.step(opt)
scaler.update()
print(scaler.get_scale(), scaler.state_dict())
print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
