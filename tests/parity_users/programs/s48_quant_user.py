import torch
import torch.nn as nn
import torch.ao.quantization as tq
import warnings
#%% quantize per tensor
x = torch.tensor([-1.0, 0.0, 0.5, 1.27, 3.0])
q = torch.quantize_per_tensor(x, scale=0.01, zero_point=10, dtype=torch.quint8)
print(q)
print(q.int_repr(), q.dequantize(), q.q_scale(), q.q_zero_point(), q.qscheme(), q.dtype)
q2 = torch.quantize_per_tensor(x, 0.05, 0, torch.qint8)
print(q2, q2.int_repr())
print(torch.quantize_per_tensor(x, 0.1, 0, torch.qint32).int_repr())
#%% per channel
w = torch.randn(3, 4)
qw = torch.quantize_per_channel(w, torch.tensor([0.01, 0.02, 0.03]), torch.tensor([0, 1, -1]), 0, torch.qint8)
print(qw.int_repr(), qw.q_per_channel_scales(), qw.q_per_channel_zero_points(), qw.q_per_channel_axis(), qw.qscheme())
print((qw.dequantize() - w).abs().max() < 0.02)
#%% dynamic quant linear
warnings.simplefilter("ignore")  # torch warns more often (counts depend on its internals)
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
qm = tq.quantize_dynamic(m, {nn.Linear}, dtype=torch.qint8)
print(qm)
x = torch.randn(5, 8)
print((qm(x) - m(x)).abs().max() < 0.1, qm(x).dtype, qm(x).shape)
print([k for k in qm.state_dict().keys()])
#%% static quant eager
warnings.simplefilter("ignore")
torch.manual_seed(0)
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub(); self.conv = nn.Conv2d(1, 2, 3); self.relu = nn.ReLU(); self.dequant = tq.DeQuantStub()
    def forward(self, x):
        return self.dequant(self.relu(self.conv(self.quant(x))))
m = M().eval()
m.qconfig = tq.get_default_qconfig("fbgemm")
print(m.qconfig)
mf = tq.fuse_modules(m, [["conv", "relu"]])
print(mf)
mp = tq.prepare(mf)
for _ in range(3):
    mp(torch.randn(2, 1, 6, 6))
print(mp.conv.activation_post_process)
mq = tq.convert(mp)
print(mq)
x = torch.randn(2, 1, 6, 6)
print((mq(x) - m(x)).abs().max() < 0.1)
#%% observers
ob = tq.MinMaxObserver()
ob(torch.tensor([-2.0, 3.0, 1.0]))
print(ob, ob.calculate_qparams())
ob2 = tq.HistogramObserver()
ob2(torch.randn(100))
print(type(ob2.calculate_qparams()), len(ob2.calculate_qparams()))
ob3 = tq.PerChannelMinMaxObserver(ch_axis=0, dtype=torch.qint8, qscheme=torch.per_channel_symmetric)
ob3(torch.tensor([[1.0, -2.0], [0.5, 0.25]]))
print(ob3.calculate_qparams())
ob4 = tq.MovingAverageMinMaxObserver(averaging_constant=0.5)
ob4(torch.tensor([0.0, 4.0])); ob4(torch.tensor([-2.0, 2.0]))
print(ob4.min_val, ob4.max_val, ob4.calculate_qparams())
#%% fake quant
fq = tq.FakeQuantize()
y = fq(torch.tensor([0.1, 0.55, -0.3, 2.0]))
print(y, fq.scale, fq.zero_point)
print(torch.fake_quantize_per_tensor_affine(torch.tensor([0.1, 0.26, 1.0]), 0.1, 0, 0, 255))
t = torch.tensor([0.14, 0.26, 1.0], requires_grad=True)
torch.fake_quantize_per_tensor_affine(t, 0.1, 0, 0, 5).sum().backward()
print(t.grad)
#%% quantized ops
a = torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.0]), 0.1, 10, torch.quint8)
b = torch.quantize_per_tensor(torch.tensor([1.5, 0.2, 0.3]), 0.1, 10, torch.quint8)
print(torch.ops.quantized.add(a, b, 0.2, 5))
print(torch.nn.quantized.functional.relu(a) if hasattr(torch.nn.quantized.functional, "relu") else "no relu")
print(torch.relu(a), a.dequantize().relu())
print(torch.cat([a, b]).int_repr())
