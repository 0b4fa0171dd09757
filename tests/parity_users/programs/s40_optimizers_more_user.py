import torch
import torch.nn as nn
def run(make, steps=3):
    torch.manual_seed(0)
    p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    o = make([p])
    for _ in range(steps):
        o.zero_grad()
        ((p - 0.5) ** 2).sum().backward()
        o.step()
    return p.detach()
#%% several optimizers for a few steps
for name, make in [("Adagrad", lambda ps: torch.optim.Adagrad(ps, lr=0.1)),
                   ("RMSprop", lambda ps: torch.optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True)),
                   ("Adamax", lambda ps: torch.optim.Adamax(ps, lr=0.1)),
                   ("NAdam", lambda ps: torch.optim.NAdam(ps, lr=0.1)),
                   ("RAdam", lambda ps: torch.optim.RAdam(ps, lr=0.1)),
                   ("Adadelta", lambda ps: torch.optim.Adadelta(ps, lr=1.0)),
                   ("Adam amsgrad", lambda ps: torch.optim.Adam(ps, lr=0.1, amsgrad=True, weight_decay=0.01)),
                   ("SGD maximize", lambda ps: torch.optim.SGD(ps, lr=0.1, maximize=True)),
                   ("Rprop", lambda ps: torch.optim.Rprop(ps, lr=0.1))]:
    print(name, run(make))
#%% LBFGS with closure
torch.manual_seed(0)
p = nn.Parameter(torch.tensor([1.5, -0.5]))
o = torch.optim.LBFGS([p], lr=1, max_iter=20)
def closure():
    o.zero_grad()
    loss = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2
    loss.backward()
    return loss
for _ in range(3):
    loss = o.step(closure)
print(p.detach().round(decimals=3), f"{loss.item():.4f}")
#%% optimizer argument errors and zero_grad(set_to_none)
for bad in [lambda: torch.optim.Adam([nn.Parameter(torch.ones(1))], lr=-1),
            lambda: torch.optim.Adam([nn.Parameter(torch.ones(1))], betas=(1.5, 0.9)),
            lambda: torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1, nesterov=True),
            lambda: torch.optim.SGD([], lr=0.1),
            lambda: torch.optim.SGD(nn.Parameter(torch.ones(1)), lr=0.1)]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e))
q = nn.Parameter(torch.ones(2))
o = torch.optim.SGD([q], lr=0.1)
(q * 2).sum().backward()
o.zero_grad(set_to_none=False)
print(q.grad)
o.zero_grad()
print(q.grad)
o.add_param_group({"params": [nn.Parameter(torch.zeros(1))], "lr": 0.5})
print(len(o.param_groups), o.param_groups[1]["momentum"], o.param_groups[1]["lr"])
