import torch
import torch.nn as nn


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% optimizer constructors 0
p = [nn.Parameter(torch.ones(2))]
run([
   lambda: torch.optim.SGD(p, lr=-1), lambda: torch.optim.SGD(p, lr=0.1, momentum=-1), lambda: torch.optim.SGD(p, lr=0.1, nesterov=True), lambda: torch.optim.SGD(p, lr=0.1, weight_decay=-1),
   lambda: torch.optim.SGD(p), lambda: torch.optim.SGD([], lr=0.1), lambda: torch.optim.SGD(torch.ones(2), lr=0.1), lambda: torch.optim.SGD([torch.ones(2) * 2], lr=0.1),
   lambda: torch.optim.Adam(p, lr=-0.1), lambda: torch.optim.Adam(p, betas=(1.0, 0.9)), lambda: torch.optim.Adam(p, betas=(0.9, -0.1)), lambda: torch.optim.Adam(p, eps=-1),
   lambda: torch.optim.Adam(p, weight_decay=-1), lambda: torch.optim.Adam(p, lr=torch.tensor(0.01)).param_groups[0]["lr"], lambda: torch.optim.Adam(p, lr=torch.tensor([0.01, 0.02])),
   lambda: torch.optim.AdamW(p, weight_decay=-1), lambda: torch.optim.RMSprop(p, alpha=-1), lambda: torch.optim.RMSprop(p, momentum=-1), lambda: torch.optim.Adagrad(p, lr_decay=-1),
])
#%% optimizer constructors 1
p = [nn.Parameter(torch.ones(2))]
run([
   lambda: torch.optim.Adagrad(p, initial_accumulator_value=-1), lambda: torch.optim.Adadelta(p, rho=1.5), lambda: torch.optim.Rprop(p, etas=(1.5, 1.2)), lambda: torch.optim.Rprop(p, step_sizes=(1, 0.5)),
   lambda: torch.optim.LBFGS(p, history_size=0).defaults["history_size"], lambda: torch.optim.LBFGS([nn.Parameter(torch.ones(1)), nn.Parameter(torch.ones(1))]).param_groups[0]["lr"],
   lambda: torch.optim.LBFGS([{"params": [nn.Parameter(torch.ones(1))]}, {"params": [nn.Parameter(torch.ones(1))]}]),
   lambda: torch.optim.SparseAdam(p, lr=0.1).param_groups[0]["lr"], lambda: torch.optim.SGD([{"params": p}, {"params": p}], lr=0.1),
   lambda: torch.optim.SGD([{"params": p, "lr": 0.5, "extra": 3}], lr=0.1).param_groups[0]["extra"], lambda: torch.optim.SGD(p, lr=0.1, foo=1),
])
#%% optimizer constructors 2
p = [nn.Parameter(torch.ones(2))]
run([
   lambda: torch.optim.SGD(p, lr=0.1).defaults, lambda: torch.optim.Adam(p).defaults, lambda: torch.optim.NAdam(p, momentum_decay=-1), lambda: torch.optim.RAdam(p, decoupled_weight_decay=True).defaults["decoupled_weight_decay"],
   lambda: torch.optim.ASGD(p, lambd=-1).defaults["lambd"], lambda: torch.optim.Adamax(p, betas=(0.9,)),
   lambda: torch.optim.SGD(p, lr=0.1, maximize=True).step(), lambda: torch.optim.Adam(p, amsgrad=True, foreach=True, fused=True),
   lambda: torch.optim.Adam(p, fused=True), lambda: torch.optim.SGD(p, lr=0.1, differentiable=True).defaults["differentiable"],
   lambda: repr(torch.optim.SGD(p, lr=0.1)), lambda: repr(torch.optim.Adam([{"params": p}, {"params": [nn.Parameter(torch.ones(1))], "lr": 0.5}])),
])
