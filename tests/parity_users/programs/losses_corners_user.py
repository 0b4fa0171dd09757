import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
logits = torch.randn(5, 4)
target = torch.tensor([0, 3, -100, 2, 1])
w = torch.tensor([1.0, 2.0, 0.5, 1.5])
#%% cross entropy weight ignore_index label_smoothing combos
for red in ("mean", "sum", "none"):
    for ls in (0.0, 0.2):
        print(red, ls, F.cross_entropy(logits, target, weight=w, ignore_index=-100, reduction=red, label_smoothing=ls))
#%% cross entropy custom ignore index and all ignored
print(F.cross_entropy(logits, torch.tensor([1, 1, 2, 2, 0]), ignore_index=2), F.cross_entropy(logits, torch.full((5,), 3), ignore_index=3), F.cross_entropy(logits, torch.full((5,), 3), ignore_index=3, reduction="sum"))
print(F.cross_entropy(logits, torch.full((5,), 3), ignore_index=3, label_smoothing=0.1, weight=w))
#%% cross entropy probabilities targets with smoothing and weight
p = torch.softmax(torch.randn(5, 4), 1)
print(F.cross_entropy(logits, p), F.cross_entropy(logits, p, label_smoothing=0.3, weight=w), F.cross_entropy(logits, p, reduction="none", weight=w))
#%% cross entropy spatial targets
x = torch.randn(2, 3, 2, 2)
t = torch.tensor([[[0, 1], [2, -100]], [[1, 1], [0, 2]]])
print(F.cross_entropy(x, t), F.cross_entropy(x, t, weight=torch.tensor([1.0, 0.0, 2.0]), reduction="none"), F.cross_entropy(x, t, label_smoothing=0.5))
print(F.cross_entropy(torch.randn(3), torch.tensor(1)), F.cross_entropy(torch.randn(3), torch.tensor([0.2, 0.3, 0.5])))
#%% cross entropy errors
for f in (lambda: F.cross_entropy(logits, torch.tensor([0, 4, 1, 1, 1])), lambda: F.cross_entropy(logits, target.float()), lambda: F.cross_entropy(logits, target[:3]),
          lambda: F.cross_entropy(logits, target.int()), lambda: F.cross_entropy(logits, target, label_smoothing=1.5), lambda: F.cross_entropy(logits, target, weight=torch.ones(3)),
          lambda: F.nll_loss(logits, torch.tensor([0, -1, 1, 1, 1])), lambda: F.cross_entropy(logits, p[:, :3])):
    try:
        print(f())
    except (RuntimeError, IndexError, ValueError) as e:
        print(type(e).__name__, e)
#%% nll loss weights and 1d
lp = F.log_softmax(logits, 1)
print(F.nll_loss(lp, target, weight=w), F.nll_loss(lp, target, weight=w, reduction="sum"), F.nll_loss(lp[0], target[0]), F.nll_loss(lp, target, reduction="none"))
#%% bce and bce with logits options
z = torch.randn(4, 3)
y = torch.rand(4, 3)
print(F.binary_cross_entropy_with_logits(z, y, pos_weight=torch.tensor([1.0, 2.0, 3.0])), F.binary_cross_entropy_with_logits(z, y, weight=torch.tensor([0.5, 1.0, 2.0]), reduction="sum"))
print(F.binary_cross_entropy(torch.sigmoid(z), y, weight=torch.ones(4, 1) * 2), F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([0.0, 0.0])), F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])))
for f in (lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])), lambda: F.binary_cross_entropy(torch.sigmoid(z), y[:2]), lambda: F.binary_cross_entropy_with_logits(z, y[:, :1])):
    try:
        print(f())
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
#%% kl div modes
a = F.log_softmax(torch.randn(3, 4), 1)
b = F.softmax(torch.randn(3, 4), 1)
print(F.kl_div(a, b, reduction="batchmean"), F.kl_div(a, b.log(), reduction="sum", log_target=True), F.kl_div(a, b, reduction="none").shape, F.kl_div(a, torch.zeros(3, 4), reduction="sum"))
print(F.kl_div(a, b))
#%% regression losses options
p_ = torch.tensor([0.0, 1.0, 2.0, 5.0])
t_ = torch.tensor([0.5, 1.0, 4.0, -1.0])
print(F.smooth_l1_loss(p_, t_, beta=2.0), F.smooth_l1_loss(p_, t_, beta=0.0), F.huber_loss(p_, t_, delta=0.5, reduction="none"), F.l1_loss(p_, t_, reduction="sum"), F.mse_loss(p_, t_, reduction="none"))
print(F.poisson_nll_loss(p_, t_.abs()), F.poisson_nll_loss(p_.abs() + 0.1, t_.abs(), log_input=False, full=True), F.gaussian_nll_loss(p_, t_, torch.ones(4) * 0.5), F.gaussian_nll_loss(p_, t_, torch.tensor([0.1, 1.0, 2.0, 0.0]), full=True, eps=1e-3))
#%% margin and embedding losses
x1, x2 = torch.randn(3, 5), torch.randn(3, 5)
yy = torch.tensor([1.0, -1.0, 1.0])
print(F.margin_ranking_loss(x1[:, 0], x2[:, 0], yy, margin=0.5), F.cosine_embedding_loss(x1, x2, yy, margin=0.2, reduction="none"), F.hinge_embedding_loss(x1, torch.sign(x2), margin=0.5))
print(F.triplet_margin_loss(x1, x2, torch.randn(3, 5), swap=True, p=1), F.triplet_margin_with_distance_loss(x1, x2, x2.flip(0), distance_function=nn.PairwiseDistance(), margin=2.0))
print(F.soft_margin_loss(x1, torch.sign(x2)), F.multilabel_soft_margin_loss(x1, (x2 > 0).float(), weight=torch.ones(5)), F.multi_margin_loss(x1, torch.tensor([0, 4, 2]), p=2, margin=0.5, weight=torch.arange(1.0, 6.0)))
print(F.multilabel_margin_loss(x1, torch.tensor([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0]])))
#%% loss modules reprs and gradients
crit = nn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.1)
print(crit, nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), nn.HuberLoss(delta=2.0), nn.KLDivLoss(reduction="batchmean", log_target=True), nn.CTCLoss(blank=1, zero_infinity=True), nn.TripletMarginLoss(margin=0.5, p=3))
lg = logits.clone().requires_grad_()
crit(lg, target.clamp(min=0)).backward()
print(lg.grad)
#%% ctc loss variants
torch.manual_seed(1)
lp = torch.randn(6, 2, 4).log_softmax(2).requires_grad_()
targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
for red in ("mean", "sum", "none"):
    print(red, F.ctc_loss(lp, targets, torch.tensor([6, 5]), torch.tensor([3, 2]), reduction=red))
loss = F.ctc_loss(lp, torch.tensor([1, 2, 2, 3, 1]), torch.tensor([6, 5]), torch.tensor([3, 2]))
loss.backward()
print(loss, lp.grad[0])
print(F.ctc_loss(lp, torch.tensor([[1, 1, 1, 1, 1, 1, 1]] * 2), torch.tensor([6, 6]), torch.tensor([7, 7]), zero_infinity=True), F.ctc_loss(lp, torch.tensor([[1, 1, 1, 1, 1, 1, 1]] * 2), torch.tensor([6, 6]), torch.tensor([7, 7])))
#%% losses on integer and mismatched dtype inputs
for f in (lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3])), lambda: F.mse_loss(torch.ones(2), torch.ones(2, dtype=torch.float64)), lambda: F.l1_loss(torch.ones(2), torch.ones(2, dtype=torch.int64)),
          lambda: F.cross_entropy(torch.ones(2, 3, dtype=torch.float64), torch.tensor([0, 1])), lambda: F.binary_cross_entropy(torch.ones(2) * 0.5, torch.ones(2, dtype=torch.float64))):
    try:
        r = f()
        print(r, r.dtype)
    except RuntimeError as e:
        print(type(e).__name__, e)
