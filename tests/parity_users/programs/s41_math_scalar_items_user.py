import torch
#%% scalar math printed at full precision
x = torch.tensor(2.0)
print(x.exp().item(), x.log().item(), x.sqrt().item(), torch.tanh(x).item(), torch.sigmoid(x).item(), (x ** 0.5).item(), (1 / x).item(), x.rsqrt().item())
v = torch.tensor([0.1, 0.2, 0.3])
print(v.sum().item(), v.mean().item(), (v * 3).tolist(), v.softmax(0).tolist(), v.exp().tolist(), torch.log1p(v).tolist())
#%% pi, angles and rounding
print(torch.pi if hasattr(torch, "pi") else 3.14, torch.deg2rad(torch.tensor(180.0)).item(), torch.tensor(2.5).round().item(), torch.tensor(-2.5).round().item(), torch.tensor(1.2345).round(decimals=2).item())
print(torch.atan2(torch.tensor(1.0), torch.tensor(-1.0)).item(), torch.hypot(torch.tensor(3.0), torch.tensor(4.0)).item(), torch.tensor(10.0).log10().item(), torch.tensor(8.0).log2().item())
