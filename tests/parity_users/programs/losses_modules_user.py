import torch
import torch.nn as nn
import torch.nn.functional as F
#%% cross_entropy options
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [1.0, -1.0, 0.0], [0.0, 3.0, 1.0]], requires_grad=True)
y = torch.tensor([0, 2, 1, -100])
w = torch.tensor([1.0, 2.0, 0.5])
for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"weight": w}, {"label_smoothing": 0.1}, {"weight": w, "label_smoothing": 0.2}, {"ignore_index": 1}):
    yy = y if "ignore_index" not in kw else torch.tensor([0, 2, 1, 1])
    print(kw, F.cross_entropy(logits, yy.clamp(min=0) if "ignore_index" in kw or True else yy, **kw) if False else F.cross_entropy(logits, yy, **kw))
loss = F.cross_entropy(logits, y, weight=w, label_smoothing=0.1)
loss.backward()
print(loss, logits.grad)
#%% cross_entropy with probabilities and nd
p = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5]])
print(F.cross_entropy(torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), p), F.cross_entropy(torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), p, label_smoothing=0.3, reduction="none"))
x = torch.arange(24.0).view(2, 3, 2, 2) / 10
t = torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, -100]]])
print(F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="none").shape, F.nll_loss(F.log_softmax(x, 1), t, reduction="sum"))
#%% cross_entropy errors
for f in (lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 4])), lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0.0, 1.0, 2.0])),
          lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1])), lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([[0, 1, 2]])),
          lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2], dtype=torch.int32)), lambda: F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, -1])),
          lambda: F.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]), weight=torch.ones(3))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% bce family
p = torch.tensor([0.9, 0.2, 0.0, 1.0])
t = torch.tensor([1.0, 0.0, 0.0, 1.0])
print(F.binary_cross_entropy(p, t), F.binary_cross_entropy(p, t, weight=torch.tensor([1.0, 2.0, 3.0, 4.0]), reduction="none"), F.binary_cross_entropy_with_logits(torch.tensor([2.0, -1.0, 0.0, 50.0]), t, pos_weight=torch.tensor(3.0)))
for f in (lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])), lambda: F.binary_cross_entropy(p, t[:2]), lambda: F.binary_cross_entropy_with_logits(p, t[:3]), lambda: F.binary_cross_entropy(p, torch.tensor([1, 0, 0, 1]))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% regression losses
a = torch.tensor([1.0, 2.0, 3.0, -4.0])
b = torch.tensor([1.5, 2.0, 0.0, -1.0])
print(F.mse_loss(a, b), F.l1_loss(a, b, reduction="sum"), F.smooth_l1_loss(a, b, beta=0.5), F.huber_loss(a, b, delta=2.0, reduction="none"), F.smooth_l1_loss(a, b, beta=0.0))
with __import__("warnings").catch_warnings(record=True) as ws:
    __import__("warnings").simplefilter("always")
    print(F.mse_loss(a, b.view(4, 1)).shape)
    print([str(x.message)[:80] for x in ws])
print(F.poisson_nll_loss(a.abs(), b.abs()), F.gaussian_nll_loss(a, b, torch.ones(4)), F.kl_div(F.log_softmax(a, 0), F.softmax(b, 0), reduction="batchmean"), F.kl_div(a.log_softmax(0), b.log_softmax(0), log_target=True, reduction="sum"))
#%% margin and embedding losses
x1 = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
x2 = torch.tensor([[1.0, 0.1], [1.0, 0.0]])
print(F.cosine_embedding_loss(x1, x2, torch.tensor([1, -1])), F.margin_ranking_loss(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0]), torch.tensor([1.0, 1.0]), margin=0.5), F.hinge_embedding_loss(torch.tensor([0.5, 2.0]), torch.tensor([1, -1])))
print(F.triplet_margin_loss(x1, x2, x2.flip(0)), F.multi_margin_loss(torch.tensor([[0.1, 0.8, 0.3]]), torch.tensor([1])), F.multilabel_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([[3, 0, -1, 1]])), F.soft_margin_loss(a, b.sign()))
#%% loss modules repr and reduction args
for m in (nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(ignore_index=3), nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), nn.MSELoss(reduction="sum"), nn.SmoothL1Loss(beta=2.0), nn.KLDivLoss(reduction="batchmean"), nn.CTCLoss(blank=1)):
    print(repr(m), m.reduction, sorted(k for k, _ in m.named_buffers()))
with __import__("warnings").catch_warnings(record=True) as ws:
    __import__("warnings").simplefilter("always")
    m = nn.MSELoss(size_average=False)
    print(m.reduction, [str(x.message) for x in ws])
try:
    nn.MSELoss(reduction="avg")(a, b)
except Exception as e:
    print(type(e).__name__, e)
#%% nn.init
torch.manual_seed(0)
w = torch.empty(3, 5)
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("selu"))
print(nn.init.xavier_uniform_(w, gain=2.0).std() > 0, nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu").shape, nn.init.orthogonal_(torch.empty(3, 3)) @ nn.init.orthogonal_(torch.empty(3, 3)).T is not None)
print(nn.init.constant_(w, 0.5).sum(), nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3)), nn.init.zeros_(w).sum(), nn.init.ones_(torch.empty(2)))
torch.manual_seed(1)
print(nn.init.uniform_(torch.empty(4), -1, 1), nn.init.normal_(torch.empty(3), 0, 0.1), nn.init.trunc_normal_(torch.empty(4), std=2.0, a=-1.0, b=1.0).abs().max() <= 1, nn.init.sparse_(torch.empty(4, 2), 0.5).eq(0).sum())
for f in (lambda: nn.init.xavier_uniform_(torch.empty(3)), lambda: nn.init.calculate_gain("nope"), lambda: nn.init.eye_(torch.empty(2, 2, 2)), lambda: nn.init.kaiming_uniform_(torch.empty(0, 3))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% module apis
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("cache", torch.ones(2), persistent=False)
        self.register_parameter("extra", None)
        self.scale = nn.Parameter(torch.tensor(2.0))
    def forward(self, x):
        return self.body(x) * self.scale
net = Net()
print([n for n, _ in net.named_modules()], [n for n, _ in net.named_parameters()], [n for n, _ in net.named_buffers()], list(net.state_dict()))
print([n for n, _ in net.named_modules(prefix="root")], [type(m).__name__ for m in net.children()], len(list(net.modules())), net.extra)
print(net)
net.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
print(net.body[0].bias, net.get_submodule("body.2.0"), net.get_parameter("body.2.0.weight").shape, net.get_buffer("steps"))
for f in (lambda: net.get_submodule("body.5"), lambda: net.register_buffer("scale", torch.ones(1)), lambda: net.register_buffer("a.b", torch.ones(1)), lambda: setattr(net, "scale", torch.ones(1)), lambda: net.add_module("body", nn.ReLU())):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% state_dict load strict and hooks
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
sd = net.state_dict()
print(list(sd), sd["1.num_batches_tracked"])
sd2 = {k: v for k, v in sd.items() if "bias" not in k}
sd2["extra.weight"] = torch.ones(1)
r = net.load_state_dict(sd2, strict=False)
print(r, r.missing_keys, r.unexpected_keys)
try:
    net.load_state_dict(sd2)
except Exception as e:
    print(type(e).__name__, e)
bad = dict(sd)
bad["0.weight"] = torch.ones(3, 2)
try:
    net.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, e)
calls = []
h = net.register_forward_pre_hook(lambda m, i: calls.append("pre"))
h2 = net.register_forward_hook(lambda m, i, o: calls.append(tuple(o.shape)))
h3 = net[0].register_full_backward_hook(lambda m, gi, go: calls.append(("bw", len(gi), len(go))))
net(torch.randn(3, 2)).sum().backward()
h.remove(); h2.remove(); h3.remove()
net(torch.randn(3, 2))
print(calls)
#%% train eval requires_grad zero_grad
m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
print(m.training, m.eval().training, m[1].training, m.train().training, m.requires_grad_(False).__class__.__name__, [p.requires_grad for p in m.parameters()])
m.requires_grad_(True)
m(torch.ones(1, 2)).sum().backward()
m.zero_grad()
print([p.grad for p in m.parameters()])
m(torch.ones(1, 2)).sum().backward()
m.zero_grad(set_to_none=False)
print([p.grad for p in m.parameters()])
print(sum(p.numel() for p in m.parameters()), m.to(torch.float64)[0].weight.dtype, m.half()[0].bias.dtype, m.float()[0].weight.dtype)
#%% parametrizations
from torch.nn.utils import parametrize
class Sym(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T
lin = nn.Linear(3, 3)
parametrize.register_parametrization(lin, "weight", Sym())
print(torch.allclose(lin.weight, lin.weight.T), parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias"), type(lin).__name__, list(dict(lin.named_parameters())))
parametrize.remove_parametrizations(lin, "weight")
print(type(lin).__name__, list(dict(lin.named_parameters())))
wn = nn.utils.parametrizations.weight_norm(nn.Linear(2, 3))
print(sorted(dict(wn.named_parameters())), wn.weight.shape)
