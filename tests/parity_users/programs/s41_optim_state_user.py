import torch
#%% state_dict round trip across optimizers
torch.manual_seed(0)
for cls, kw in ((torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)), (torch.optim.Adam, dict(lr=1e-2, amsgrad=True)),
                (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.1)), (torch.optim.RMSprop, dict(lr=1e-2, centered=True)),
                (torch.optim.Adagrad, dict(lr=0.1))):
    model = torch.nn.Linear(3, 2)
    opt = cls(model.parameters(), **kw)
    for _ in range(2):
        opt.zero_grad()
        model(torch.ones(4, 3)).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    print(cls.__name__, sorted(sd["state"][0].keys()), sd["param_groups"][0]["params"], {k: v for k, v in sd["param_groups"][0].items() if k != "params"})
    opt2 = cls(model.parameters(), **kw)
    opt2.load_state_dict(sd)
    print(all(torch.equal(opt2.state_dict()["state"][0][k], v) if torch.is_tensor(v) else opt2.state_dict()["state"][0][k] == v for k, v in sd["state"][0].items()))
#%% param groups with different lrs and add_param_group
a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
opt = torch.optim.SGD([{"params": a.parameters()}, {"params": b.parameters(), "lr": 0.5}], lr=0.01, momentum=0.9)
print([g["lr"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])
c = torch.nn.Linear(1, 1)
opt.add_param_group({"params": c.parameters(), "weight_decay": 1e-4})
print(len(opt.param_groups), opt.param_groups[2]["lr"], opt.param_groups[2]["weight_decay"], opt.param_groups[2]["momentum"])
print(opt)
try:
    opt.add_param_group({"params": a.parameters()})
except ValueError as e:
    print(e)
#%% optimizer errors
try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print(e)
try:
    torch.optim.Adam(torch.nn.Linear(1, 1).parameters(), lr=-1)
except ValueError as e:
    print(e)
try:
    torch.optim.Adam(torch.nn.Linear(1, 1).parameters(), betas=(1.0, 0.9))
except ValueError as e:
    print(e)
try:
    torch.optim.SGD(torch.ones(2, requires_grad=True), lr=0.1)
except TypeError as e:
    print(e)
opt = torch.optim.Adam(torch.nn.Linear(1, 1).parameters())
try:
    opt.load_state_dict({"state": {}, "param_groups": []})
except ValueError as e:
    print(e)
