import torch
import torch.nn as nn
import warnings
from torch.optim import lr_scheduler as S


def mk(lr=0.1, momentum=0.9):
    return torch.optim.SGD(nn.Linear(2, 1).parameters(), lr=lr, momentum=momentum)


MAKERS = [
    ("LambdaLR", lambda o: S.LambdaLR(o, lambda e: 0.5 ** e)),
    ("MultiplicativeLR", lambda o: S.MultiplicativeLR(o, lambda e: 0.5)),
    ("StepLR", lambda o: S.StepLR(o, 1, 0.5)),
    ("MultiStepLR", lambda o: S.MultiStepLR(o, [1, 2], 0.5)),
    ("ConstantLR", lambda o: S.ConstantLR(o, 0.5, 2)),
    ("LinearLR", lambda o: S.LinearLR(o, 0.5, 1.0, 2)),
    ("ExponentialLR", lambda o: S.ExponentialLR(o, 0.5)),
    ("PolynomialLR", lambda o: S.PolynomialLR(o, 3, 1.0)),
    ("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, 3)),
    ("CosineAnnealingWarmRestarts", lambda o: S.CosineAnnealingWarmRestarts(o, 2)),
    ("CyclicLR", lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2)),
    ("OneCycleLR", lambda o: S.OneCycleLR(o, 0.1, total_steps=6)),
]
#%% get_lr called by the user (not inside step) after construction and after steps
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for name, f in MAKERS:
        o = mk()
        s = f(o)
        out = [[round(v, 6) for v in s.get_lr()]]
        for _ in range(3):
            o.step()
            s.step()
            out.append([round(v, 6) for v in s.get_lr()])
        print(name, out, [round(v, 6) for v in s.get_last_lr()])
#%% get_lr warning once per call
o = mk()
s = S.StepLR(o, 1, 0.5)
s.get_lr()
s.get_lr()
#%% _get_closed_form_lr and step(epoch)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for name, f in MAKERS[2:9]:
        o = mk()
        s = f(o)
        o.step()
        s.step(2)
        print(name, [round(v, 6) for v in s.get_last_lr()], s.last_epoch)
