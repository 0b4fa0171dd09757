import io

import torch
import torch.ao.quantization as tq
import torch.nn as nn


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(4 * 4 * 4, 5)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.bn(self.conv(self.quant(x))))
        return self.dequant(self.fc(x.flatten(1)))

#%% dynamic quantization of a model's Linear and LSTM layers: outputs close to float, smaller file
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
qmodel = tq.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
x = torch.randn(3, 8)
print(type(qmodel[0]).__name__, r(model(x), 2), bool((model(x) - qmodel(x)).abs().max() < 0.05))
print(qmodel[0].weight().dtype, qmodel[0].weight().q_scale() > 0, qmodel)
b1, b2 = io.BytesIO(), io.BytesIO()
torch.save(model.state_dict(), b1)
torch.save(qmodel.state_dict(), b2)
print(b2.getbuffer().nbytes < b1.getbuffer().nbytes, sorted(qmodel.state_dict())[:3])

#%% eager static quantization: fuse, prepare, calibrate, convert
torch.manual_seed(1)
m = Net().eval()
m.qconfig = tq.get_default_qconfig("x86")
fused = tq.fuse_modules(m, [["conv", "bn", "relu"]])
print(type(fused.conv).__name__, type(fused.bn).__name__)
prepared = tq.prepare(fused)
for _ in range(4):
    prepared(torch.randn(2, 1, 6, 6))
conv_obs = prepared.conv.activation_post_process
print(type(conv_obs).__name__, bool((conv_obs.min_val <= conv_obs.max_val).all()))
q = tq.convert(prepared)
xin = torch.randn(2, 1, 6, 6)
out = q(xin)
print(type(q.conv).__name__, type(q.fc).__name__, out.dtype, out.shape)
print(bool((out - fused(xin)).abs().max() < 0.5))

#%% quantized tensors by hand: per-tensor and per-channel, int_repr and arithmetic
t = torch.tensor([-1.0, 0.0, 0.3, 2.5])
qt = torch.quantize_per_tensor(t, scale=0.1, zero_point=10, dtype=torch.quint8)
print(qt.int_repr().tolist(), r(qt.dequantize()), qt.q_scale(), qt.q_zero_point(), qt.qscheme())
w = torch.tensor([[0.5, -0.25], [1.0, 2.0]])
qw = torch.quantize_per_channel(w, torch.tensor([0.01, 0.02]), torch.tensor([0, 1]), 0, torch.qint8)
print(qw.int_repr().tolist(), r(qw.dequantize()), qw.q_per_channel_scales().tolist())
print(torch.fake_quantize_per_tensor_affine(t, 0.1, 10, 0, 255).tolist())
try:
    qt + qt
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__, str(e).split("\n")[0][:90])

#%% quantization-aware training steps with fake quantization
torch.manual_seed(2)
m = Net().train()
m.qconfig = tq.get_default_qat_qconfig("x86")
fused = tq.fuse_modules_qat(m, [["conv", "bn", "relu"]])
qat = tq.prepare_qat(fused)
opt = torch.optim.SGD(qat.parameters(), lr=0.05)
for step in range(3):
    x = torch.randn(4, 1, 6, 6)
    loss = qat(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, r(loss, 3))
print(type(qat.conv).__name__)
qat.eval()
final = tq.convert(qat)
print(type(final.conv).__name__, final(torch.randn(1, 1, 6, 6)).shape)
