import io
import torch
import torch.nn as nn
#%% save/load model and optimizer state together
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for _ in range(2):
    opt.zero_grad(); model(torch.randn(8, 3)).mean().backward(); opt.step()
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 2}, buf)
buf.seek(0)
ck = torch.load(buf)
m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
print(m2.load_state_dict(ck["model"]))
o2 = torch.optim.AdamW(m2.parameters(), lr=1.0)
o2.load_state_dict(ck["opt"])
print(o2.param_groups[0]["lr"], ck["epoch"], list(ck["model"].keys()))
print(ck["model"]["1.num_batches_tracked"], ck["opt"]["state"][0]["step"])
#%% strict=False with missing and unexpected keys
sd = model.state_dict()
sd["extra.weight"] = torch.zeros(1)
del sd["3.bias"]
r = m2.load_state_dict(sd, strict=False)
print(r.missing_keys, r.unexpected_keys)
try:
    m2.load_state_dict(sd)
except RuntimeError as e:
    print(str(e))
#%% size mismatch error
try:
    nn.Linear(3, 5).load_state_dict(nn.Linear(3, 4).state_dict())
except RuntimeError as e:
    print(str(e))
#%% state_dict with prefix and keep_vars, and assigning views
lin = nn.Linear(2, 2)
sd = lin.state_dict(prefix="enc.", keep_vars=True)
print(list(sd), type(sd["enc.weight"]).__name__, sd["enc.weight"].requires_grad)
sd2 = lin.state_dict()
print(sd2["weight"].requires_grad, sd2["weight"].data_ptr() == lin.weight.data_ptr())
