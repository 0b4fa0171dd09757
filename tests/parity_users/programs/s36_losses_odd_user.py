import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% cross entropy combos
torch.manual_seed(0)
logits = torch.randn(4, 3, requires_grad=True)
t = torch.tensor([0, 2, -100, 1])
w = torch.tensor([1., 2., 0.5])
for red in ['mean', 'sum', 'none']:
    print(red, r(F.cross_entropy(logits, t, weight=w, label_smoothing=0.2, reduction=red)))
loss = F.cross_entropy(logits, t, weight=w, label_smoothing=0.1)
loss.backward()
print(r(logits.grad))
probs = torch.tensor([[0.2, 0.3, 0.5], [1., 0., 0.], [0., 0., 1.], [0.3, 0.3, 0.4]])
print(r(F.cross_entropy(logits, probs, weight=w, label_smoothing=0.3)))
print(r(F.cross_entropy(logits, torch.full((4,), -100))), r(F.cross_entropy(logits, torch.full((4,), -100), reduction='sum')))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 3, 1, 1])))
show(lambda: F.cross_entropy(logits, probs[:, :2]))
show(lambda: F.cross_entropy(logits, t.float()))
show(lambda: F.cross_entropy(logits, probs, ignore_index=1))
show(lambda: F.cross_entropy(logits, t, label_smoothing=1.5))
img = torch.randn(2, 3, 2, 2)
tgt = torch.tensor([[[0, 1], [2, -100]], [[1, 1], [0, 2]]])
print(r(F.cross_entropy(img, tgt, weight=w)), r(F.nll_loss(F.log_softmax(img, 1), tgt, reduction='none')))
show(lambda: F.nll_loss(img, tgt[:, :1]))
#%% bce kl and friends
x = torch.tensor([[0.5, -1.0, 2.0], [0.0, 3.0, -2.0]], requires_grad=True)
y = torch.tensor([[1., 0., 1.], [0.5, 1., 0.]])
pw = torch.tensor([2., 1., 0.5])
print(r(F.binary_cross_entropy_with_logits(x, y, pos_weight=pw)), r(F.binary_cross_entropy_with_logits(x, y, weight=torch.tensor([1., 2.]).unsqueeze(1), reduction='none')))
show(lambda: F.binary_cross_entropy(x.sigmoid(), y * 2))
show(lambda: F.binary_cross_entropy(x, y))
show(lambda: F.binary_cross_entropy_with_logits(x, y[:1, :2]))
print(r(F.binary_cross_entropy(torch.tensor([0., 1.]), torch.tensor([0., 0.]))))
lp = F.log_softmax(x, 1)
print(r(F.kl_div(lp, F.softmax(y, 1), reduction='batchmean')), r(F.kl_div(lp, F.log_softmax(y, 1), log_target=True, reduction='sum')))
show(lambda: F.kl_div(lp, y) and 'warned')
print(r(F.poisson_nll_loss(x, y, log_input=True, full=True)), r(F.poisson_nll_loss(x.exp(), y, log_input=False)))
print(r(F.gaussian_nll_loss(x, y, torch.ones(2, 1), full=True)), r(F.gaussian_nll_loss(x, y, torch.full((2, 3), 0.5), eps=1e-2, reduction='none')))
show(lambda: F.gaussian_nll_loss(x, y, -torch.ones(2, 3)))
show(lambda: F.gaussian_nll_loss(x, y, torch.ones(2, 2)))
print(r(F.huber_loss(x, y, delta=0.5)), r(F.smooth_l1_loss(x, y, beta=0.0)), r(F.l1_loss(x, y, reduction='sum')))
show(lambda: F.mse_loss(x, y[0]) and 'broadcast')
show(lambda: F.mse_loss(x, torch.ones(3, 3)))
#%% margin and embedding losses
torch.manual_seed(1)
a, p, n = torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4)
print(r(F.triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True)), r(F.triplet_margin_with_distance_loss(a, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v))))
print(r(F.cosine_embedding_loss(a, p, torch.tensor([1, -1, 1]), margin=0.2, reduction='none')))
show(lambda: F.cosine_embedding_loss(a, p, torch.tensor([1, 0, 1])))
print(r(F.margin_ranking_loss(a[:, 0], p[:, 0], torch.tensor([1., -1., 1.]), margin=0.1)))
print(r(F.hinge_embedding_loss(a, torch.sign(p), margin=0.5)), r(F.soft_margin_loss(a, torch.sign(p))))
print(r(F.multi_margin_loss(a, torch.tensor([0, 3, 2]), p=2, margin=0.5, weight=torch.tensor([1., 2., 3., 4.]))))
print(r(F.multilabel_margin_loss(a, torch.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, 0]]))), r(F.multilabel_soft_margin_loss(a, (p > 0).float())))
show(lambda: F.multi_margin_loss(a, torch.tensor([0, 4, 2])))
show(lambda: F.multi_margin_loss(a, torch.tensor([0, 1, 2]), p=3))
print(nn.TripletMarginLoss(margin=2.0), nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=3))
