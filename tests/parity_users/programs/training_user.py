import torch
import torch.nn as nn
import torch.nn.functional as F
#%% losses
torch.manual_seed(0)
logits = torch.randn(4, 3, requires_grad=True)
target = torch.tensor([0, 2, 1, -100])
r = lambda t: (t * 1e4).round()
print(r(F.cross_entropy(logits, target)), r(F.cross_entropy(logits, target, reduction="none")), r(F.cross_entropy(logits, target.clamp(min=0), label_smoothing=0.1, weight=torch.tensor([1.0, 2.0, 0.5]))))
print(r(F.cross_entropy(logits, torch.softmax(torch.randn(4, 3), 1))), r(F.nll_loss(logits.log_softmax(1), target, ignore_index=2)), r(F.cross_entropy(logits, target, ignore_index=1, reduction="sum")))
loss = F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5]), label_smoothing=0.2)
loss.backward()
print(r(loss), r(logits.grad))
x, y = torch.randn(5), torch.rand(5)
print(r(F.mse_loss(x, y)), r(F.l1_loss(x, y, reduction="sum")), r(F.smooth_l1_loss(x, y, beta=0.5)), r(F.huber_loss(x, y, delta=0.3)), r(F.binary_cross_entropy(y, (y > 0.5).float())), r(F.binary_cross_entropy_with_logits(x, y, pos_weight=torch.tensor(2.0))))
print(r(F.kl_div(x.log_softmax(0), y.softmax(0), reduction="batchmean")), r(F.soft_margin_loss(x, y.sign())), r(F.poisson_nll_loss(x, y)), r(F.gaussian_nll_loss(x, y, torch.ones(5))), r(F.margin_ranking_loss(x, y, torch.ones(5))), r(F.hinge_embedding_loss(x, y.sign())))
print(r(F.multi_margin_loss(torch.randn(3, 4), torch.tensor([1, 0, 3]))), r(F.multilabel_margin_loss(torch.randn(2, 3), torch.tensor([[0, 2, -1], [1, -1, 0]]))), r(F.triplet_margin_loss(torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3))), r(F.cosine_embedding_loss(torch.randn(2, 3), torch.randn(2, 3), torch.tensor([1, -1]))))
print(r(F.ctc_loss(torch.randn(6, 2, 4).log_softmax(2), torch.tensor([[1, 2], [3, 3]]), torch.tensor([6, 5]), torch.tensor([2, 2]))))
print(nn.CrossEntropyLoss(reduction="mean", label_smoothing=0.1), nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), nn.NLLLoss(ignore_index=3))
#%% loss errors
F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
#%% loss error shape
F.mse_loss(torch.randn(2, 3), torch.randn(3, 2))
#%% loss warn broadcast
print(F.mse_loss(torch.ones(2, 3), torch.zeros(3)))
#%% bce out of range
F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
#%% ce target dtype
F.cross_entropy(torch.randn(2, 3), torch.tensor([0.0, 1.0]))
#%% ce all ignored
print(F.cross_entropy(torch.randn(2, 3), torch.tensor([-100, -100])))
#%% optim
torch.manual_seed(0)
m = nn.Linear(3, 2)
opt = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1, amsgrad=True)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
for i in range(4):
    opt.zero_grad()
    m(torch.ones(2, 3)).pow(2).mean().backward()
    opt.step()
    sched.step()
    print(sched.get_last_lr(), opt.param_groups[0]["lr"], opt.param_groups[0]["betas"])
sd = opt.state_dict()
print(sd["param_groups"], list(sd["state"].keys()), sorted(sd["state"][0].keys()), sd["state"][0]["step"])
print((m.weight * 1e4).round())
opt2 = torch.optim.AdamW(m.parameters(), lr=1)
opt2.load_state_dict(sd)
print(opt2.param_groups[0]["lr"], opt2)
print(sched.state_dict()["_step_count"], sched.state_dict()["last_epoch"])
#%% schedulers
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9, nesterov=True)
s1 = torch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
lrs = []
for _ in range(5):
    opt.step(); s1.step(); lrs.append(round(s1.get_last_lr()[0], 8))
print(lrs)
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s2 = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
s3 = torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0), patience=1, factor=0.5)
out = []
for i in range(8):
    opt.step(); s2.step(); s3.step(1.0); out.append(round(opt.param_groups[0]["lr"], 8))
print(out, s3.optimizer.param_groups[0]["lr"], s3.get_last_lr())
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s4 = torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2), torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)], milestones=[2])
out = []
for i in range(5):
    opt.step(); s4.step(); out.append(round(s4.get_last_lr()[0], 8))
print(out)
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s5 = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))
opt.step(); s5.step()
print(s5.get_last_lr(), s5.state_dict().keys())
#%% scheduler before step warning
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
s = torch.optim.lr_scheduler.StepLR(opt, 1)
s.step()
print(s.get_last_lr())
#%% optim errors
torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=-1)
#%% optim empty
torch.optim.Adam([])
#%% optim param tensor
torch.optim.Adam(torch.zeros(2, requires_grad=True))
#%% other optimizers
torch.manual_seed(0)
for cls, kw in [(torch.optim.RMSprop, dict(lr=0.01, momentum=0.5, centered=True)), (torch.optim.Adagrad, dict(lr=0.1)), (torch.optim.Adadelta, dict()), (torch.optim.Adamax, dict()), (torch.optim.NAdam, dict(lr=0.01)), (torch.optim.RAdam, dict(lr=0.01)), (torch.optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01))]:
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    o = cls([p], **kw)
    for _ in range(3):
        o.zero_grad()
        (p ** 2).sum().backward()
        o.step()
    print(cls.__name__, (p * 1e5).round().tolist())
