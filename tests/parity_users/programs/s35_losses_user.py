import torch
import torch.nn.functional as F
import torch.nn as nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% cross entropy ignore_index weight mean
torch.manual_seed(0)
x = torch.randn(5, 4, requires_grad=True)
y = torch.tensor([0, 3, -100, 2, 3])
w = torch.tensor([1., 2., 0.5, 3.])
l = F.cross_entropy(x, y, weight=w)
l.backward()
print(r(l), r(x.grad))
print(r(F.cross_entropy(x, y, weight=w, reduction='sum')), r(F.cross_entropy(x, y, weight=w, reduction='none')))
#%% cross entropy all ignored
x = torch.randn(3, 4, requires_grad=True)
y = torch.full((3,), -100)
l = F.cross_entropy(x, y)
print(l)
l.backward()
print(x.grad)
print(F.cross_entropy(x, y, reduction='sum'), F.nll_loss(F.log_softmax(x, 1), y))
#%% label smoothing with ignore and weight
torch.manual_seed(1)
x = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([0, 2, 1, 1])
w = torch.tensor([0.2, 1.0, 3.0])
for red in ('mean', 'sum', 'none'):
    print(red, r(F.cross_entropy(x, y, weight=w, label_smoothing=0.2, reduction=red)))
    print(red, r(F.cross_entropy(x, y, weight=w, label_smoothing=0.2, reduction=red, ignore_index=1)))
l = F.cross_entropy(x, y, weight=w, label_smoothing=0.3, ignore_index=2)
l.backward()
print(r(x.grad))
#%% cross entropy probabilities target
torch.manual_seed(2)
x = torch.randn(3, 4, requires_grad=True)
p = torch.softmax(torch.randn(3, 4), 1)
w = torch.tensor([1., 2., 3., 4.])
print(r(F.cross_entropy(x, p)), r(F.cross_entropy(x, p, weight=w)), r(F.cross_entropy(x, p, label_smoothing=0.1, reduction='none')))
print(r(F.cross_entropy(x, p, weight=w, label_smoothing=0.1)))
show(lambda: F.cross_entropy(x, p, ignore_index=1))
show(lambda: F.cross_entropy(x, p.double()))
#%% cross entropy K-dim
torch.manual_seed(3)
x = torch.randn(2, 3, 4, 5)
y = torch.randint(0, 3, (2, 4, 5))
y[0, 0, 0] = -100
print(r(F.cross_entropy(x, y)), r(F.cross_entropy(x, y, label_smoothing=0.1)), F.cross_entropy(x, y, reduction='none').shape)
show(lambda: F.cross_entropy(x, y[:, :3]))
show(lambda: F.cross_entropy(x, torch.tensor([5, 0]).view(2, 1, 1).expand(2, 4, 5)))
#%% nll errors
x = torch.randn(3, 4)
show(lambda: F.nll_loss(x, torch.tensor([0, 1, 4])))
show(lambda: F.nll_loss(x, torch.tensor([0., 1., 2.])))
show(lambda: F.nll_loss(x, torch.tensor([0, 1])))
show(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), weight=torch.ones(3)))
show(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), label_smoothing=1.5))
show(lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), reduction='avg'))
#%% bce weight pos_weight
torch.manual_seed(4)
x = torch.randn(3, 2, requires_grad=True)
t = torch.rand(3, 2)
print(r(F.binary_cross_entropy_with_logits(x, t, weight=torch.tensor([1., 2.]), pos_weight=torch.tensor([3., 0.5]))))
print(r(F.binary_cross_entropy(torch.sigmoid(x), t, weight=torch.tensor([[1.], [2.], [0.]]), reduction='none')))
show(lambda: F.binary_cross_entropy(torch.sigmoid(x), t[:2]))
show(lambda: F.binary_cross_entropy_with_logits(x, t[:2]))
show(lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.])))
print(r(F.binary_cross_entropy(torch.tensor([0., 1.]), torch.tensor([1., 0.]))))
#%% smooth l1 huber beta 0
a = torch.tensor([0.1, -2., 3.], requires_grad=True)
b = torch.tensor([0., 0., 2.5])
print(r(F.smooth_l1_loss(a, b, beta=0.)), r(F.huber_loss(a, b, delta=0.5)), r(F.smooth_l1_loss(a, b, beta=2.0, reduction='none')))
F.smooth_l1_loss(a, b, beta=0.).backward()
print(a.grad)
show(lambda: F.smooth_l1_loss(a, b, beta=-1.))
show(lambda: F.mse_loss(a, torch.zeros(2, 3)))
#%% kl div log_target batchmean
torch.manual_seed(5)
i = F.log_softmax(torch.randn(2, 3), 1)
t = F.softmax(torch.randn(2, 3), 1)
print(r(F.kl_div(i, t, reduction='batchmean')), r(F.kl_div(i, t.log(), reduction='sum', log_target=True)), r(F.kl_div(i, t)))
print(r(F.kl_div(i, torch.tensor([[0., 1., 0.], [0.5, 0.5, 0.]]), reduction='none')))
#%% margin ranking hinge cosine embedding
torch.manual_seed(6)
a, b = torch.randn(4), torch.randn(4)
y = torch.tensor([1., -1., 1., -1.])
print(r(F.margin_ranking_loss(a, b, y, margin=0.5)), r(F.hinge_embedding_loss(a, y, margin=0.3)), r(F.soft_margin_loss(a, y)))
x1, x2 = torch.randn(4, 3), torch.randn(4, 3)
print(r(F.cosine_embedding_loss(x1, x2, y, margin=0.2, reduction='none')))
print(r(F.multi_margin_loss(x1, torch.tensor([0, 2, 1, 0]), p=2, margin=0.7, weight=torch.tensor([1., 2., 3.]))))
print(r(F.multilabel_margin_loss(x1, torch.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0], [-1, 0, 1]]))))
print(r(F.multilabel_soft_margin_loss(x1, torch.tensor([[0., 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 1]]), weight=torch.tensor([1., 2., 1.]))))
print(r(F.triplet_margin_loss(x1, x2, x1.flip(0), margin=0.5, p=1, swap=True)))
print(r(F.triplet_margin_with_distance_loss(x1, x2, x1.flip(0), distance_function=lambda u, v: (u - v).abs().sum(-1), margin=2.0)))
#%% poisson gaussian nll
torch.manual_seed(7)
inp = torch.randn(3, 2)
tgt = torch.rand(3, 2) * 3
print(r(F.poisson_nll_loss(inp, tgt)), r(F.poisson_nll_loss(inp.exp(), tgt, log_input=False, full=True)), r(F.poisson_nll_loss(inp, tgt, full=True, reduction='none')))
var = torch.rand(3, 2) + 0.1
print(r(F.gaussian_nll_loss(inp, tgt, var)), r(F.gaussian_nll_loss(inp, tgt, var[:, :1], full=True)), r(F.gaussian_nll_loss(inp, tgt, var[:, 0], reduction='sum')))
show(lambda: F.gaussian_nll_loss(inp, tgt, -var))
show(lambda: F.gaussian_nll_loss(inp, tgt, var[:2]))
#%% ctc loss
torch.manual_seed(8)
T, N, C = 6, 2, 4
lp = torch.randn(T, N, C).log_softmax(2).requires_grad_()
tg = torch.tensor([[1, 2, 2], [3, 1, 0]])
il = torch.tensor([6, 5])
tl = torch.tensor([3, 2])
for red in ('mean', 'sum', 'none'):
    print(red, r(F.ctc_loss(lp, tg, il, tl, reduction=red)))
l = F.ctc_loss(lp, tg, il, tl)
l.backward()
print(r(lp.grad[:, 1]))
print(r(F.ctc_loss(lp, torch.tensor([1, 2, 2, 3, 1]), il, tl, blank=0)))
print(r(F.ctc_loss(lp, tg, il, torch.tensor([3, 0]), reduction='none')))
print(F.ctc_loss(lp[:2], tg, torch.tensor([2, 2]), tl, reduction='none'), F.ctc_loss(lp[:2], tg, torch.tensor([2, 2]), tl, reduction='none', zero_infinity=True))
#%% loss modules with reduction args
torch.manual_seed(9)
x = torch.randn(4, 3)
y = torch.tensor([0, 1, 2, 1])
print(r(nn.CrossEntropyLoss(reduction='sum', label_smoothing=0.05)(x, y)), r(nn.NLLLoss(ignore_index=1)(x.log_softmax(1), y)))
print(nn.CrossEntropyLoss(weight=torch.ones(3)).weight, nn.CrossEntropyLoss().ignore_index, nn.CrossEntropyLoss(label_smoothing=0.1))
print(nn.MSELoss(size_average=False), nn.L1Loss(reduce=False).reduction)
