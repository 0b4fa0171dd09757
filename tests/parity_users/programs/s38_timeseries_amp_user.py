import torch
import torch.nn as nn


def show(f):
    try:
        out = f()
        if isinstance(out, torch.Tensor) and out.is_floating_point():
            out = out.round(decimals=3) + 0.0
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% sliding windows for time series
series = torch.sin(torch.arange(20.) / 3)
win = series.unfold(0, 5, 1)
X, y = win[:, :-1], win[:, -1]
print(X.shape, y.shape, X.stride(), X.is_contiguous())
print(torch.stack([series[i:i + 4] for i in range(3)]).round(decimals=3))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(50):
    pred = model(X).squeeze(-1)
    loss = nn.functional.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{loss.item():.4f}")
mean, std = series.mean(), series.std()
print(f"{mean:.4f} {std:.4f}", ((series - mean) / std).std(unbiased=False).round(decimals=4))
print(torch.std_mean(series.view(4, 5), dim=1), torch.var_mean(series, correction=0))
print(series.view(4, 5).cumsum(1)[:, -1].round(decimals=3), torch.nn.functional.avg_pool1d(series.view(1, 1, -1), 4).round(decimals=3))
lstm = nn.LSTM(1, 4, batch_first=True)
out, (h, c) = lstm(X.unsqueeze(-1))
print(out.shape, h.shape, out[:, -1].allclose(h[0]))
#%% autocast on cpu
m = nn.Linear(4, 3)
x = torch.randn(2, 4)
with torch.autocast('cpu', dtype=torch.bfloat16):
    y = m(x)
    z = y.float() + 1
    s = torch.softmax(y, 1)
    mm = x @ x.t()
    print(y.dtype, z.dtype, s.dtype, mm.dtype, torch.is_autocast_enabled('cpu'), torch.get_autocast_dtype('cpu'))
print(y.dtype, (y.float() - m(x)).abs().max() < 0.05)
with torch.autocast(device_type='cpu'):
    print(m(x).dtype, torch.mm(x, x.t()).dtype, (x + 1).dtype)
with torch.autocast('cpu', enabled=False):
    print(m(x).dtype)
# (autocast to float16 right after the bfloat16 block above: torch 2.13 reuses its cached
# bfloat16 weight there and fails with "mat1 and mat2 must have the same dtype")
print(torch.is_autocast_enabled('cpu'))
show(lambda: torch.autocast('cuda').__class__.__name__)
scaler = torch.amp.GradScaler('cpu', enabled=False)
loss = m(x).sum()
print(scaler.scale(loss) is loss, scaler.is_enabled(), scaler.get_scale())
#%% half and bfloat16 arithmetic
h = torch.tensor([1000., 0.1, 65504.], dtype=torch.float16)
show(lambda: h * 2)
show(lambda: h + 0.05)
show(lambda: h.sum())
show(lambda: h.mean())
show(lambda: h.float().sum())
b = torch.tensor([1.0, 256.0, 257.0, 0.1], dtype=torch.bfloat16)
show(lambda: b)
show(lambda: b + 1)
show(lambda: b.to(torch.float16))
show(lambda: b.sum())
show(lambda: torch.tensor([3.14159], dtype=torch.bfloat16).item())
show(lambda: torch.finfo(torch.bfloat16))
show(lambda: torch.finfo(torch.float16).eps)
show(lambda: torch.iinfo(torch.int8))
show(lambda: torch.finfo(torch.float32).tiny)
show(lambda: torch.iinfo(torch.float32))
show(lambda: torch.finfo(torch.int32))
