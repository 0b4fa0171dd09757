import torch
from torch.optim import lr_scheduler as S
def run(make, steps=8, **kw):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
    sch = make(opt)
    out = []
    for _ in range(steps):
        opt.step()
        sch.step(**kw) if kw else sch.step()
        out.append(round(sch.get_last_lr()[0], 8))
    print(type(sch).__name__, out)
#%% common schedulers
run(lambda o: S.StepLR(o, 3, gamma=0.5))
run(lambda o: S.MultiStepLR(o, [2, 5], gamma=0.1))
run(lambda o: S.ExponentialLR(o, 0.9))
run(lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.01))
run(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2))
run(lambda o: S.LinearLR(o, start_factor=0.25, total_iters=4))
run(lambda o: S.ConstantLR(o, factor=0.5, total_iters=3))
run(lambda o: S.PolynomialLR(o, total_iters=5, power=2.0))
#%% one-cycle, cyclic, lambda, chained, sequential
run(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=8))
run(lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2))
run(lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1)))
run(lambda o: S.MultiplicativeLR(o, lambda e: 0.95))
run(lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.5)], milestones=[3]))
run(lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)]))
#%% ReduceLROnPlateau prints
opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
sch = S.ReduceLROnPlateau(opt, patience=1, factor=0.5, threshold=0.1)
for loss in [1.0, 0.99, 0.98, 0.97, 0.5, 0.49, 0.49, 0.49]:
    sch.step(loss)
    print(opt.param_groups[0]["lr"], sch.num_bad_epochs, sch.get_last_lr())
#%% scheduler state_dict and errors
opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
s = S.StepLR(opt, 2)
opt.step(); s.step()
print(s.state_dict(), s.last_epoch)
try:
    S.OneCycleLR(opt, max_lr=0.1)
except ValueError as e:
    print(e)
try:
    S.StepLR(opt, 2, last_epoch=5)
except KeyError as e:
    print("KeyError", e)
