import io
import torch
import torch.nn as nn
from torch.nn.utils import parametrize, parametrizations as P
#%% parametrized module state dict round trip
torch.manual_seed(0)
m = nn.Linear(3, 3)
P.orthogonal(m)
print(sorted(m.state_dict().keys()))
W = m.weight
print(torch.allclose(W @ W.T, torch.eye(3), atol=1e-5), type(m).__name__, m.parametrizations.weight.original.shape)
buf = io.BytesIO()
torch.save(m.state_dict(), buf)
m2 = nn.Linear(3, 3)
P.orthogonal(m2)
buf.seek(0)
print(m2.load_state_dict(torch.load(buf)))
print(torch.allclose(m2.weight, m.weight, atol=1e-6))
parametrize.remove_parametrizations(m2, "weight", leave_parametrized=True)
print(type(m2).__name__, sorted(m2.state_dict().keys()), torch.allclose(m2.weight, m.weight, atol=1e-6))
#%% weight norm new api
torch.manual_seed(1)
m = nn.Conv1d(2, 4, 3)
P.weight_norm(m, dim=0)
print(sorted(k for k, _ in m.named_parameters()), m.parametrizations.weight.original0.shape, m.parametrizations.weight.original1.shape)
x = torch.randn(1, 2, 5)
y = m(x)
y.sum().backward()
print(y.shape, m.parametrizations.weight.original0.grad.shape, m.parametrizations.weight.original0.grad.flatten()[:2].round(decimals=4))
print(m)
m3 = nn.Linear(4, 2)
P.weight_norm(m3, dim=None)
print(m3.parametrizations.weight.original0.shape)
#%% spectral norm new api in train and eval
torch.manual_seed(2)
m = P.spectral_norm(nn.Linear(4, 3), n_power_iterations=3)
for _ in range(3):
    m(torch.randn(2, 4))
s = torch.linalg.matrix_norm(m.weight.detach(), 2)
print(round(s.item(), 3), sorted(m.state_dict().keys()))
m.eval()
w1 = m.weight.detach().clone()
m(torch.randn(2, 4))
print(torch.equal(w1, m.weight.detach()))
#%% custom parametrization right_inverse and caching
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T
    def right_inverse(self, A):
        return A.triu()
m = nn.Linear(3, 3, bias=False)
parametrize.register_parametrization(m, "weight", Sym())
m.weight = torch.arange(9.0).view(3, 3)
print(m.weight, m.parametrizations.weight.original)
with parametrize.cached():
    a = m.weight
    b = m.weight
    print(a is b)
print(m.weight is m.weight, parametrize.is_parametrized(m), parametrize.is_parametrized(m, "bias"))
try:
    parametrize.register_parametrization(m, "nonexistent", Sym())
except (ValueError, AttributeError, KeyError) as e:
    print(type(e).__name__, e)
class Bad(nn.Module):
    def forward(self, X):
        return X[0]
try:
    parametrize.register_parametrization(nn.Linear(2, 2), "weight", Bad())
except ValueError as e:
    print(str(e)[:150])
#%% clip grad api variants
torch.manual_seed(3)
ps = [nn.Parameter(torch.randn(3)) for _ in range(3)]
for p, s in zip(ps, [1.0, 10.0, 0.1]):
    p.grad = torch.full((3,), s)
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_
tn = get_total_norm([p.grad for p in ps], norm_type=2.0)
print(round(tn.item(), 4))
clip_grads_with_norm_(ps, max_norm=1.0, total_norm=tn)
print([p.grad[0].item() for p in ps])
ps[0].grad[0] = float("nan")
try:
    clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(str(e)[:120])
print(clip_grad_norm_(ps, 1.0, norm_type="inf"))
clip_grad_value_(ps, 0.05)
print([p.grad.tolist() for p in ps[1:]])
print(clip_grad_norm_([], 1.0), get_total_norm([]))
#%% fusion and memory format utils
torch.manual_seed(4)
conv = nn.Conv2d(2, 3, 3).eval()
bn = nn.BatchNorm2d(3).eval()
bn.running_mean.uniform_(); bn.running_var.uniform_(0.5, 1.5)
fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
x = torch.randn(1, 2, 5, 5)
print(torch.allclose(fused(x), bn(conv(x)), atol=1e-5), type(fused).__name__)
lin = nn.Linear(3, 2).eval()
bn1 = nn.BatchNorm1d(2).eval()
bn1.running_var.fill_(4.0)
fl = torch.nn.utils.fusion.fuse_linear_bn_eval(lin, bn1)
print(torch.allclose(fl(torch.ones(1, 3)), bn1(lin(torch.ones(1, 3))), atol=1e-6))
cl = torch.nn.utils.convert_conv2d_weight_memory_format(nn.Sequential(nn.Conv2d(2, 2, 1)), torch.channels_last)
print(cl[0].weight.is_contiguous(memory_format=torch.channels_last))
v = torch.nn.utils.parameters_to_vector(lin.parameters())
print(v.shape)
torch.nn.utils.vector_to_parameters(torch.arange(8.0), lin.parameters())
print(lin.weight, lin.bias)
try:
    torch.nn.utils.vector_to_parameters(torch.arange(8.0).view(2, 4), lin.parameters())
except TypeError as e:
    print(e)
#%% printing with printoptions variants
torch.set_printoptions(precision=2, sci_mode=True)
print(torch.tensor([1.5, 2.25, 1000.0]), torch.tensor([1e-8, 1.0]), torch.tensor([[1, 2]]), torch.tensor([0.1], dtype=torch.float64))
torch.set_printoptions(precision=6, sci_mode=False)
print(torch.tensor([1e-8, 1e8]), torch.tensor([1 / 3], dtype=torch.float16), torch.tensor([1 / 3], dtype=torch.bfloat16))
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(10), torch.arange(20.0).view(4, 5))
torch.set_printoptions(linewidth=30)
print(torch.arange(12.0) / 7)
torch.set_printoptions(profile="full")
print(torch.arange(8))
torch.set_printoptions(profile="default")
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0]), torch.tensor([1e20, 1.0]), torch.tensor([123456789.0]))
print(torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64), torch.tensor([True, False]), torch.tensor([], dtype=torch.int8), torch.zeros(2, 0, 3))
print(repr(torch.tensor(3.5, requires_grad=True) * 2), torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([-1], dtype=torch.int16))
print(f"{torch.tensor(2.5):.3f}", "{:>8}".format(str(torch.tensor(1))), format(torch.tensor([1.0]), ""))
#%% module reprs with extra_repr and containers
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        self.heads = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Sequential(nn.Dropout(0.1), nn.Identity())})
        self.p = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(1, 3))])
        self.pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2, 2))})
        self.register_buffer("buf", torch.zeros(1))
    def extra_repr(self):
        return "custom=1"
print(Block())
print(nn.Sequential(nn.Conv2d(3, 8, (3, 5), stride=(2, 1), padding="same" if False else 1, bias=False, padding_mode="reflect"), nn.BatchNorm2d(8, momentum=None), nn.LeakyReLU(0.2, inplace=True),
                    nn.MaxPool2d(2, ceil_mode=True), nn.AdaptiveAvgPool2d((1, None)), nn.Flatten(0), nn.Unflatten(1, (2, 4)), nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
                    nn.LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1), nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)))
