import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0 if t.is_floating_point() else t


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% cross entropy variants
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-1.0, 3.0, 0.0], [0.0, 0.0, 0.0]], requires_grad=True)
target = torch.tensor([0, 2, -100, 1])
show(lambda: F.cross_entropy(logits, target))
show(lambda: F.cross_entropy(logits, target, reduction='none'))
show(lambda: F.cross_entropy(logits, target, reduction='sum'))
w = torch.tensor([1.0, 2.0, 0.5])
show(lambda: F.cross_entropy(logits, target, weight=w))
show(lambda: F.cross_entropy(logits, target, weight=w, reduction='none'))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 2, 1, 1]), ignore_index=1))
show(lambda: F.cross_entropy(logits, torch.tensor([1, 1, 1, 1]), ignore_index=1))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 2, 1, 1]), label_smoothing=0.1))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 2, -100, 1]), label_smoothing=0.2, weight=w))
probs = torch.softmax(torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0], [1., 1., 1.], [2., 0., 0.]]), 1)
show(lambda: F.cross_entropy(logits, probs))
show(lambda: F.cross_entropy(logits, probs, label_smoothing=0.1, reduction='none'))
show(lambda: F.cross_entropy(logits, target.int()))
show(lambda: F.cross_entropy(logits, target.float()))
show(lambda: F.cross_entropy(logits.double(), torch.tensor([0, 1, 2, 0])))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2])))
show(lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 3])))
show(lambda: F.cross_entropy(logits[0], torch.tensor(1)))
show(lambda: F.cross_entropy(logits.t(), torch.tensor([0, 1, 2, 0])))
l = F.cross_entropy(logits, target, weight=w)
l.backward()
print(r(logits.grad))
#%% nll and seq ce
x = torch.randn(2, 5, 3)  # batch, classes, seq
t = torch.tensor([[1, 4, 0], [2, 2, -100]])
show(lambda: F.cross_entropy(x, t))
show(lambda: F.cross_entropy(x, t, reduction='none'))
show(lambda: F.nll_loss(F.log_softmax(x, 1), t, reduction='sum'))
show(lambda: F.cross_entropy(x.transpose(1, 2), t))
show(lambda: F.nll_loss(torch.randn(3, 4), torch.tensor([1, 2, 3]), weight=torch.ones(3)))
show(lambda: F.nll_loss(torch.randn(3, 4), torch.tensor([[1, 2, 3]])))
#%% bce and others with weights
p = torch.tensor([[0.9, 0.2], [0.4, 0.6], [0.0, 1.0]])
y = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
show(lambda: F.binary_cross_entropy(p, y))
show(lambda: F.binary_cross_entropy(p, y, weight=torch.tensor([1.0, 3.0]), reduction='none'))
show(lambda: F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])))
show(lambda: F.binary_cross_entropy(p, y[:2]))
show(lambda: F.binary_cross_entropy(p * 2, y))
show(lambda: F.binary_cross_entropy(p, y.long()))
show(lambda: F.binary_cross_entropy_with_logits(p, y, pos_weight=torch.tensor([2.0, 0.5])))
show(lambda: F.binary_cross_entropy_with_logits(p, y.long()))
show(lambda: nn.BCEWithLogitsLoss(reduction='none', pos_weight=torch.tensor([3.0]))(p, y))
show(lambda: F.mse_loss(torch.ones(3), torch.ones(3, 1)))
show(lambda: F.l1_loss(torch.ones(2, 3), torch.zeros(3), reduction='none'))
show(lambda: F.smooth_l1_loss(torch.tensor([0.2, 2.0]), torch.zeros(2), beta=0.0))
show(lambda: F.huber_loss(torch.tensor([0.2, 2.0]), torch.zeros(2), reduction='none', delta=0.5))
show(lambda: F.kl_div(torch.log(torch.tensor([0.2, 0.8])), torch.tensor([0.5, 0.5])))
show(lambda: F.kl_div(torch.log(torch.tensor([[0.2, 0.8]])), torch.tensor([[0.5, 0.5]]), reduction='batchmean'))
show(lambda: F.kl_div(torch.tensor([-1.0, -2.]), torch.tensor([-0.5, -0.1]), log_target=True, reduction='sum'))
show(lambda: F.mse_loss(torch.ones(2), torch.ones(2), reduction='avg'))
show(lambda: nn.CrossEntropyLoss(reduction='elementwise_mean')(logits, torch.tensor([0, 1, 2, 0])))
show(lambda: F.margin_ranking_loss(torch.tensor([1., 2.]), torch.tensor([2., 1.]), torch.tensor([1., -1.]), margin=0.5))
show(lambda: F.cosine_embedding_loss(torch.randn(3, 4), torch.randn(3, 4), torch.tensor([1, -1, 1])))
show(lambda: F.triplet_margin_loss(torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)))
show(lambda: F.poisson_nll_loss(torch.tensor([0.5, 1.0]), torch.tensor([1.0, 2.0])))
show(lambda: F.gaussian_nll_loss(torch.tensor([0.5, 1.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5])))
show(lambda: F.gaussian_nll_loss(torch.tensor([0.5, 1.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.5, -0.5])))
show(lambda: F.multi_margin_loss(torch.randn(3, 4), torch.tensor([0, 3, 1])))
show(lambda: F.multilabel_soft_margin_loss(torch.randn(2, 3), torch.tensor([[1., 0., 1.], [0., 0., 1.]])))
show(lambda: F.hinge_embedding_loss(torch.tensor([0.3, 2.0]), torch.tensor([1., -1.])))
show(lambda: F.soft_margin_loss(torch.tensor([0.3, -2.0]), torch.tensor([1., -1.])))
