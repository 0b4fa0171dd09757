import torch
import torch.nn as nn
import torch.nn.functional as F
#%% repr and params
m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.1), nn.Linear(8 * 4 * 4, 10))
print(m)
print([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], list(m.state_dict().keys()))
print(sum(p.numel() for p in m.parameters()), m[1].num_batches_tracked, m[-1])
#%% more reprs
print(nn.LSTM(4, 8, num_layers=2, batch_first=True, dropout=0.1), nn.Embedding(10, 3, padding_idx=0), nn.LayerNorm([4, 5], eps=1e-6))
print(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True))
print(nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.Identity()}), nn.ModuleList([nn.Tanh(), nn.GELU(approximate="tanh")]))
print(nn.Conv1d(2, 4, 3, stride=2, dilation=2, groups=2, padding_mode="reflect", padding=2), nn.Upsample(scale_factor=2, mode="bilinear"), nn.AvgPool2d(3, stride=1, ceil_mode=True))
print(nn.ParameterList([nn.Parameter(torch.ones(2))]), nn.Parameter(torch.ones(2)), nn.Bilinear(2, 3, 4), nn.GRUCell(3, 4), nn.Softmax(dim=1), nn.LeakyReLU(0.2), nn.PReLU())
#%% state dict load strict
m = nn.Linear(2, 3)
sd = m.state_dict()
sd["extra"] = torch.ones(1)
print(m.load_state_dict(sd, strict=False))
m.load_state_dict({"weight": torch.ones(3, 2)})
#%% state dict shape mismatch
m = nn.Linear(2, 3)
m.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.ones(3)})
#%% module attrs
m = nn.Linear(2, 3)
m.foo = nn.ReLU()
m.register_buffer("buf", torch.zeros(1), persistent=False)
print(list(m.state_dict()), [n for n, _ in m.named_modules()], m.training, m.eval().training, m.extra_repr())
print(m.weight.dtype, m.double().weight.dtype, m.half().bias.dtype, m.to(torch.float32).weight.dtype)
m.zero_grad()
print(m.weight.grad)
#%% module call errors
m = nn.Linear(2, 3)
m(torch.ones(4, 3))
#%% conv error
nn.Conv2d(3, 4, 3)(torch.ones(1, 2, 5, 5))
#%% functional
x = torch.linspace(-2, 2, 7)
# GELU to 3 decimals: torch's oneDNN erf is up to 4 ulps of 1 off, which shows at the
# 5th digit of gelu(-4/3) (numtorch follows torch's formula; 95-99% of printed values agree)
print(F.relu(x), F.gelu(x).round(decimals=3), F.silu(x), F.softplus(x, beta=2), F.elu(x), F.hardtanh(x), F.leaky_relu(x, 0.1), F.mish(x), F.hardswish(x), F.logsigmoid(x))
print(F.softmax(x.view(1, -1), dim=1), F.normalize(x.view(1, -1)), F.one_hot(torch.tensor([0, 2]), 3), F.pad(x.view(1, 1, -1), (1, 2), mode="replicate"))
print(F.cosine_similarity(torch.ones(2, 3), torch.arange(6.0).view(2, 3)), F.pairwise_distance(torch.ones(2, 3), torch.zeros(2, 3)), F.embedding(torch.tensor([1]), torch.eye(3)))
#%% softmax implicit dim
print(F.softmax(torch.ones(2, 3)))
#%% interpolate
x = torch.arange(16.0).view(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False))
print(F.interpolate(x, size=(3, 5), mode="bicubic", align_corners=True), F.interpolate(x, scale_factor=0.5, mode="area"), F.interpolate(x, size=3, mode="nearest-exact"))
print(F.interpolate(torch.arange(5.0).view(1, 1, 5), scale_factor=1.7, mode="linear"))
#%% interpolate random (4 decimals: float32 results may differ from torch's in the last bit)
g = torch.Generator().manual_seed(3)
x = torch.rand(1, 2, 5, 7, generator=g)
r = lambda t: (t * 1e4).round().flatten().tolist()
for mode in ["bilinear", "bicubic"]:
    for ac in [False, True]:
        print(mode, ac, r(F.interpolate(x, size=(9, 4), mode=mode, align_corners=ac)))
        print(r(F.interpolate(x, scale_factor=(1.3, 0.6), mode=mode, align_corners=ac)))
for mode in ["nearest", "nearest-exact", "area"]:
    print(mode, r(F.interpolate(x, size=(9, 4), mode=mode)), r(F.interpolate(x, scale_factor=1.7, mode=mode)))
x3 = torch.rand(1, 1, 3, 4, 5, generator=g)
print(r(F.interpolate(x3, size=(5, 3, 7), mode="trilinear")))
print(r(F.interpolate(x3, scale_factor=1.5, mode="trilinear", align_corners=True)))
print(r(F.interpolate(torch.rand(2, 3, 9, generator=g), scale_factor=0.7, mode="linear")))
#%% init
torch.manual_seed(0)
w = torch.empty(3, 5)
print(nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu")), nn.init.kaiming_normal_(torch.empty(2, 4), mode="fan_out", nonlinearity="relu"))
print(nn.init.orthogonal_(torch.empty(3, 3)), nn.init.trunc_normal_(torch.empty(4), std=0.02), nn.init.constant_(torch.empty(2), 0.5), nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3)))
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("selu"), nn.init.sparse_(torch.empty(4, 3), 0.5))
#%% init errors
nn.init.xavier_uniform_(torch.empty(3))
#%% init gain error
nn.init.calculate_gain("foo")
#%% linear default init
torch.manual_seed(42)
print(nn.Linear(3, 2).weight, nn.Conv2d(1, 1, 2).bias, nn.Embedding(2, 3).weight, nn.LSTM(2, 2).weight_hh_l0[0])
#%% hooks on modules
m = nn.Linear(2, 2)
h1 = m.register_forward_hook(lambda mod, inp, out: print("fwd", type(inp), out.shape))
h2 = m.register_forward_pre_hook(lambda mod, inp: print("pre", len(inp)))
h3 = m.register_full_backward_hook(lambda mod, gi, go: print("bwd", [g.shape if g is not None else None for g in gi], go[0].shape))
m(torch.ones(1, 2, requires_grad=True)).sum().backward()
h1.remove(); h2.remove(); h3.remove()
m(torch.ones(1, 2))
print("done")
#%% clip grad
m = nn.Linear(3, 3)
m(torch.ones(2, 3)).pow(2).sum().backward()
print(nn.utils.clip_grad_norm_(m.parameters(), 0.5), nn.utils.clip_grad_value_(m.parameters(), 0.1), m.weight.grad.abs().max())
print(nn.utils.parameters_to_vector(m.parameters()).shape)
#%% interpolate unchanged dims
torch.manual_seed(0)
x1, x2, x3 = torch.rand(1, 1, 2), torch.rand(1, 2, 2, 3), torch.rand(1, 1, 2, 3, 2)
for mode, x in [("linear", x1), ("bilinear", x2), ("bicubic", x2), ("trilinear", x3)]:
    for ac in [False, True]:
        for aa in [False, True] if mode in ("bilinear", "bicubic") else [False]:
            y = F.interpolate(x, scale_factor=1.4, mode=mode, align_corners=ac, antialias=aa)
            print(mode, ac, aa, y.shape, (y * 1e4).round().flatten().tolist())
x = torch.rand(1, 1, 3, 2, requires_grad=True)
y = F.interpolate(x, scale_factor=(1.2, 1.3), mode="bilinear")
y.pow(2).sum().backward()
print(y.shape, y is x, (x.grad * 1e4).round())
