import io
import torch
from torch.optim import lr_scheduler as S


def make(kind, opt):
    if kind == "sequential":
        return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, 1.0, 3), S.ExponentialLR(opt, 0.8)], milestones=[3])
    if kind == "chained":
        return S.ChainedScheduler([S.StepLR(opt, 2, 0.5), S.ExponentialLR(opt, 0.9)])
    if kind == "onecycle":
        return S.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="linear", three_phase=True)
    if kind == "cyclic":
        return S.CyclicLR(opt, 0.1, 1.0, step_size_up=2, mode="exp_range", gamma=0.9)
    if kind == "cosine_wr":
        return S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
    if kind == "lambda":
        return S.LambdaLR(opt, lambda e: 1 / (1 + e))
    if kind == "plateau":
        return S.ReduceLROnPlateau(opt, factor=0.5, patience=1)
#%% scheduler state dict round trips continue identically
for kind in ["sequential", "chained", "onecycle", "cyclic", "cosine_wr", "lambda", "plateau"]:
    w = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
    sched = make(kind, opt)
    lrs = []
    for step in range(4):
        opt.step()
        sched.step(1.0) if kind == "plateau" else sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 8))
    buf = io.BytesIO()
    sd = sched.state_dict()
    try:
        torch.save({"opt": opt.state_dict(), "sched": sd}, buf)
        buf.seek(0)
        ck = torch.load(buf, weights_only=False)
    except Exception as e:
        print(kind, "save failed", type(e).__name__, str(e)[:80])
        continue
    w2 = torch.zeros(1, requires_grad=True)
    opt2 = torch.optim.SGD([w2], lr=0.5, momentum=0.9)
    sched2 = make(kind, opt2)
    opt2.load_state_dict(ck["opt"])
    sched2.load_state_dict(ck["sched"])
    a, b = [], []
    for step in range(4):
        for o, s, out in ((opt, sched, a), (opt2, sched2, b)):
            o.step()
            s.step(2.0) if kind == "plateau" else s.step()
            out.append(round(o.param_groups[0]["lr"], 8))
    print(kind, lrs, a, a == b, sorted(k for k in sd if not k.startswith("_")))
#%% scheduler state dict contents
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.5)
s = S.StepLR(opt, 3, 0.1)
opt.step(); s.step()
print(s.state_dict())
s2 = S.MultiStepLR(opt, [2, 4], 0.5)
print({k: v for k, v in s2.state_dict().items() if k != "_get_lr_called_within_step"})
p = S.ReduceLROnPlateau(opt, mode="max", threshold_mode="abs")
p.step(3.0)
print({k: v for k, v in p.state_dict().items()})
try:
    S.StepLR(opt, 3).load_state_dict({"bogus": 1})
    print("loaded")
except Exception as e:
    print(type(e).__name__, e)
