import torch
from torch import nn
import torch.nn.functional as F
from collections import OrderedDict
#%% reprs of many modules
mods = [nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False, padding_mode="reflect"), nn.Conv1d(2, 4, 5, dilation=2, groups=2),
        nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1), nn.Linear(3, 4, bias=False), nn.Bilinear(2, 3, 4), nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
        nn.EmbeddingBag(10, 3, mode="max"), nn.LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1), nn.GRU(3, 5), nn.RNN(3, 5, nonlinearity="relu"),
        nn.BatchNorm1d(4, momentum=None), nn.LayerNorm([4, 5], elementwise_affine=False), nn.GroupNorm(2, 4), nn.InstanceNorm2d(3, affine=True), nn.Dropout(0.3), nn.Dropout2d(),
        nn.MaxPool2d(2, ceil_mode=True), nn.AvgPool1d(3, count_include_pad=False), nn.AdaptiveAvgPool2d((None, 3)), nn.LeakyReLU(0.2, inplace=True), nn.PReLU(3), nn.Softmax(dim=-1),
        nn.GELU(approximate="tanh"), nn.Hardtanh(-2, 2), nn.Upsample(scale_factor=2, mode="bilinear"), nn.Flatten(0, -1), nn.Unflatten(1, (2, 3)), nn.Identity(3, x=1),
        nn.MultiheadAttention(8, 2, batch_first=True), nn.TransformerEncoderLayer(8, 2, 16), nn.PixelShuffle(2), nn.ZeroPad2d((1, 2, 0, 1)), nn.ReflectionPad1d(2), nn.CosineSimilarity(dim=0),
        nn.LPPool2d(2, 3), nn.Fold((4, 4), 2), nn.Unfold(2, stride=2), nn.ChannelShuffle(2), nn.Softplus(beta=2, threshold=10), nn.CELU(), nn.Threshold(0.1, 20), nn.RReLU(), nn.LocalResponseNorm(2)]
for m in mods:
    print(repr(m))
#%% nested containers repr
m = nn.Sequential(OrderedDict(enc=nn.Sequential(nn.Linear(2, 3), nn.ReLU()), heads=nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.ModuleList([nn.Tanh(), nn.Linear(3, 2)])})))
m.extra = nn.ParameterDict({"p": nn.Parameter(torch.zeros(2)), "q": nn.Parameter(torch.ones(1, 3))})
m.plist = nn.ParameterList([nn.Parameter(torch.zeros(2, 2)), nn.Parameter(torch.ones(3), requires_grad=False)])
print(m)
print([n for n, _ in m.named_parameters()])
print([n for n, _ in m.named_modules()])
#%% state dict order with buffers and persistence
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", torch.zeros(1))
        self.fc = nn.Linear(2, 2)
        self.register_buffer("tmp", torch.ones(1), persistent=False)
        self.bn = nn.BatchNorm1d(2)
        self.w = nn.Parameter(torch.ones(1))
        self.register_parameter("none_param", None)
        self.register_buffer("none_buf", None)
net = Net()
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()])
print(net.state_dict()["bn.num_batches_tracked"], net.none_param, "none_buf" in dict(net.named_buffers()))
#%% load_state_dict results
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
sd = net.state_dict()
sd["extra"] = torch.zeros(1)
del sd["1.running_var"]
r = net.load_state_dict(sd, strict=False)
print(r, r.missing_keys, r.unexpected_keys)
try:
    net.load_state_dict(sd)
except RuntimeError as e:
    print(type(e).__name__, e)
sd2 = net.state_dict()
sd2["0.weight"] = torch.zeros(3, 2)
try:
    net.load_state_dict(sd2)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% assigning wrong types to module attributes
lin = nn.Linear(2, 2)
for f in (lambda: setattr(lin, "weight", torch.zeros(2, 2)), lambda: setattr(lin, "bias", 3), lambda: lin.register_buffer("weight", torch.zeros(1)),
          lambda: lin.register_parameter("x.y", nn.Parameter(torch.zeros(1))), lambda: lin.add_module("", nn.ReLU()), lambda: lin.register_buffer("buf", [1, 2])):
    try:
        f()
        print("ok")
    except (TypeError, KeyError) as e:
        print(type(e).__name__, e)
lin.weight = None
print(lin.weight, [n for n, _ in lin.named_parameters()])
#%% parameters are shared and deduplicated
shared = nn.Linear(2, 2)
m = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(m.parameters())), len(list(m.named_parameters(remove_duplicate=False))), len(m.state_dict()), list(m.state_dict()))
m2 = nn.Module()
m2.a = nn.Linear(2, 2)
m2.b = nn.Linear(2, 2)
m2.b.weight = m2.a.weight
print([n for n, _ in m2.named_parameters()], sum(p.numel() for p in m2.parameters()))
#%% module to dtype and half
m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
m.double()
print(m[0].weight.dtype, m[1].running_mean.dtype, m[1].num_batches_tracked.dtype)
m.half()
print(m[0].weight.dtype, m[1].running_var.dtype)
m.to(torch.float32)
print(m[0].bias.dtype, m(torch.ones(3, 2)).dtype)
m.to(dtype=torch.int32) if False else None
try:
    m.to(torch.int64)
except TypeError as e:
    print(type(e).__name__, e)
#%% train eval modes propagate
m = nn.Sequential(nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(2)))
m.eval()
print([x.training for x in m.modules()])
m[1].train()
print([x.training for x in m.modules()], m.training)
print(m.train(False) is m, m.requires_grad_(False) is m, all(not p.requires_grad for p in m.parameters()))
#%% zero_grad behaviour
lin = nn.Linear(2, 1)
lin(torch.ones(1, 2)).sum().backward()
lin.zero_grad()
print(lin.weight.grad)
lin(torch.ones(1, 2)).sum().backward()
lin.zero_grad(set_to_none=False)
print(lin.weight.grad, lin.bias.grad)
#%% forward with wrong shapes
for m, x in ((nn.Linear(3, 2), torch.ones(2, 4)), (nn.Conv2d(3, 4, 3), torch.ones(1, 2, 5, 5)), (nn.Conv2d(3, 4, 3), torch.ones(3, 2, 2)),
             (nn.BatchNorm1d(3), torch.ones(2, 4)), (nn.LayerNorm(4), torch.ones(2, 3)), (nn.Embedding(5, 2), torch.tensor([5])), (nn.Embedding(5, 2), torch.tensor([1.0])),
             (nn.LSTM(3, 4), torch.ones(2, 5)), (nn.MaxPool2d(3), torch.ones(1, 1, 2, 2)), (nn.Linear(2, 2), torch.ones(2, 2, dtype=torch.float64)), (nn.GroupNorm(2, 4), torch.ones(2, 3, 2))):
    try:
        print(m(x).shape)
    except Exception as e:
        print(type(e).__name__, e)
#%% batchnorm train single sample
bn = nn.BatchNorm1d(3)
try:
    bn(torch.ones(1, 3))
except ValueError as e:
    print(type(e).__name__, e)
bn.eval()
print(bn(torch.ones(1, 3)))
#%% batchnorm running stats values
torch.manual_seed(0)
bn = nn.BatchNorm2d(2, momentum=0.3)
for _ in range(3):
    bn(torch.randn(4, 2, 3, 3) * 2 + 1)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn2 = nn.BatchNorm1d(2, momentum=None)
for i in range(3):
    bn2(torch.arange(6.0).view(3, 2) * (i + 1))
print(bn2.running_mean, bn2.running_var)
#%% hooks registered with prepend and with_kwargs
m = nn.Linear(2, 2)
m.register_forward_pre_hook(lambda mod, args: print("pre A"))
m.register_forward_pre_hook(lambda mod, args: print("pre B"), prepend=True)
m.register_forward_hook(lambda mod, args, out: print("post", out.shape))
m.register_full_backward_hook(lambda mod, gi, go: print("bwd", [g.shape if g is not None else None for g in gi], [g.shape for g in go]))
m(torch.ones(3, 2, requires_grad=True)).sum().backward()
#%% module apply and named_children
def init(mod):
    if isinstance(mod, nn.Linear):
        nn.init.constant_(mod.weight, 0.5)
        nn.init.zeros_(mod.bias)
m = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)).apply(init)
print(m(torch.ones(1, 2)), [n for n, _ in m.named_children()], m[-1], m[0:2], len(m))
#%% sequential operations
s = nn.Sequential(nn.ReLU())
s.append(nn.Tanh())
s.insert(0, nn.Sigmoid())
s.extend([nn.Identity()])
print(s, s[1:], len(s + nn.Sequential(nn.ReLU())))
del s[0]
s[0] = nn.ELU()
print(s, s.pop(0))
#%% module list and dict operations
ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
ml += [nn.Sigmoid()]
ml.insert(1, nn.ELU())
print(ml, ml[-1], ml[1:3], len(ml))
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
md.update({"c": nn.Identity()})
print(list(md.keys()), md.pop("b"), "b" in md, len(md))
#%% parameter repr and properties
p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p, repr(p), p.is_leaf, p.requires_grad, type(p * 2).__name__, type(p.data).__name__, type(p.detach()).__name__, isinstance(p, torch.Tensor))
print(nn.Parameter(torch.zeros(2), requires_grad=False), nn.Parameter())
#%% functional linear conv and pool corners
x = torch.arange(16.0).view(1, 1, 4, 4)
print(F.avg_pool2d(x, 3, stride=2, padding=1), F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), F.max_pool2d(x, 2, return_indices=True))
print(F.adaptive_max_pool2d(x, (3, 3)), F.lp_pool2d(x, 2, 2), F.conv2d(x, torch.ones(1, 1, 2, 2), padding="same"))
#%% weight init determinism
torch.manual_seed(42)
print(nn.Linear(3, 2).weight, nn.Conv1d(1, 2, 2).bias, nn.Embedding(3, 2).weight, nn.LSTM(1, 1).weight_hh_l0)
