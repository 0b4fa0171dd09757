import io
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
#%% train, keep best checkpoint, resume and continue identically
def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    return m, torch.optim.Adam(m.parameters(), lr=0.01)
torch.manual_seed(1)
X = torch.randn(40, 2)
Y = (X[:, :1] * 2 - X[:, 1:]).clone()
dl = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=False)
def epoch(m, o):
    total = 0.0
    for xb, yb in dl:
        o.zero_grad()
        loss = nn.functional.mse_loss(m(xb), yb)
        loss.backward()
        o.step()
        total += loss.item() * len(xb)
    return total / len(dl.dataset)
m, o = make()
best, buf = float("inf"), io.BytesIO()
for e in range(3):
    l = epoch(m, o)
    if l < best:
        best = l
        buf.seek(0); buf.truncate()
        torch.save({"m": m.state_dict(), "o": o.state_dict(), "e": e}, buf)
after = epoch(m, o)
m2, o2 = make()
buf.seek(0)
ck = torch.load(buf, weights_only=True)
m2.load_state_dict(ck["m"]); o2.load_state_dict(ck["o"])
print(ck["e"], f"{best:.5f}", epoch(m2, o2) == after)
#%% autocast on CPU with bfloat16
lin = nn.Linear(4, 4)
x = torch.randn(2, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = lin(x)
    z = y.float().softmax(-1)
    s = torch.mm(x, x.T)
print(y.dtype, z.dtype, s.dtype, lin.weight.dtype, torch.is_autocast_enabled("cpu") if hasattr(torch, "is_autocast_enabled") else None)
with torch.autocast("cpu", enabled=False):
    print(lin(x).dtype)
scaler = torch.amp.GradScaler("cpu", enabled=False)
loss = lin(x).sum()
scaler.scale(loss).backward()
print(scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else "disabled")
