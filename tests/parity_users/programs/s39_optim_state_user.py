import torch
import torch.nn as nn
import copy


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))


def train(m, o, n, seed=1):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        x = torch.randn(5, 3, generator=g)
        o.zero_grad()
        loss = m(x).pow(2).mean()
        loss.backward()
        o.step()
    return loss.item()
#%% add_param_group mid training
m = model()
extra = nn.Linear(1, 1)
o = torch.optim.Adam(m[0].parameters(), lr=0.01)
train(m, o, 2)
o.add_param_group({"params": m[2].parameters(), "lr": 0.1})
print(len(o.param_groups), [g["lr"] for g in o.param_groups], o.param_groups[1]["betas"])
print(round(train(m, o, 3), 6))
try:
    o.add_param_group({"params": m[2].parameters()})
except Exception as e:
    print(type(e).__name__, e)
try:
    o.add_param_group({"params": extra.weight, "betas": (0.9,)}) ; print("ok")
except Exception as e:
    print(type(e).__name__, e)
try:
    o.add_param_group({"params": [torch.ones(2)]})
except Exception as e:
    print(type(e).__name__, e)
try:
    o.add_param_group([extra.bias])
except Exception as e:
    print(type(e).__name__, e)
try:
    o.add_param_group({"params": {extra.bias}})
except Exception as e:
    print(type(e).__name__, e)
#%% state_dict round trip in the middle of training continues identically
for cls, kw in [(torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)), (torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
                (torch.optim.AdamW, dict(lr=0.01)), (torch.optim.RMSprop, dict(lr=0.01, centered=True, momentum=0.5)),
                (torch.optim.Adagrad, dict(lr=0.1)), (torch.optim.NAdam, dict(lr=0.01)), (torch.optim.RAdam, dict(lr=0.01)),
                (torch.optim.Adamax, dict(lr=0.01)), (torch.optim.Adadelta, dict()), (torch.optim.ASGD, dict(lr=0.01)),
                (torch.optim.Rprop, dict())]:
    m = model()
    o = cls(m.parameters(), **kw)
    train(m, o, 3)
    sd = copy.deepcopy(o.state_dict())
    msd = copy.deepcopy(m.state_dict())
    a = train(m, o, 3, seed=5)
    m2 = model()
    m2.load_state_dict(msd)
    o2 = cls(m2.parameters(), **kw)
    o2.load_state_dict(sd)
    b = train(m2, o2, 3, seed=5)
    print(cls.__name__, a == b, sorted(sd["state"][0].keys()), sd["param_groups"][0]["params"])
#%% loading into an optimizer with different groups
m = model()
o = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
train(m, o, 1)
sd = o.state_dict()
o2 = torch.optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters()}], lr=0.1)
try:
    o2.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
o3 = torch.optim.SGD(m[0].parameters(), lr=0.1)
try:
    o3.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
o4 = torch.optim.SGD([{"params": [m[0].weight]}, {"params": [m[0].bias, m[2].weight, m[2].bias]}], lr=0.1)
try:
    o4.load_state_dict(torch.optim.SGD([{"params": [m[0].weight, m[0].bias]}, {"params": [m[2].weight, m[2].bias]}], lr=0.1).state_dict())
except Exception as e:
    print(type(e).__name__, e)
o5 = torch.optim.SGD(m.parameters(), lr=0.5, nesterov=True, momentum=0.5)
o5.load_state_dict(sd)
print(sorted(o5.param_groups[0].keys()), o5.param_groups[0]["nesterov"])
print(o5.state[m[0].weight].keys())
#%% state_dict values and loaded lr overrides
m = model()
o = torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.1)
train(m, o, 2)
sd = o.state_dict()
print(sd["state"][0]["step"], sd["state"][0]["exp_avg"].dtype, sd["param_groups"])
o2 = torch.optim.Adam(m.parameters(), lr=0.5)
o2.load_state_dict(sd)
print(o2.param_groups[0]["lr"], o2.param_groups[0]["weight_decay"])
print(o2.state_dict()["state"][1]["step"])
#%% deepcopy of optimizer and model together
m = model()
o = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
train(m, o, 2)
o_copy = copy.deepcopy(o)
print(o_copy.param_groups[0]["params"][0] is m[0].weight, torch.equal(o_copy.param_groups[0]["params"][0], m[0].weight))
print(repr(o_copy))
print(list(o_copy.state.values())[0]["momentum_buffer"].shape)
#%% optimizer hooks
m = model()
o = torch.optim.SGD(m.parameters(), lr=0.1)
h1 = o.register_step_pre_hook(lambda opt, a, k: print("pre", type(opt).__name__, a, k))
h2 = o.register_step_post_hook(lambda opt, a, k: print("post"))
train(m, o, 1)
h1.remove(); h2.remove()
train(m, o, 1)
o.register_state_dict_pre_hook(lambda opt: print("sd pre"))
o.register_state_dict_post_hook(lambda opt, sd: sd.update(extra=1) or None)
print(sorted(o.state_dict().keys()))
o.register_load_state_dict_pre_hook(lambda opt, sd: print("load pre", sorted(sd.keys())))
o.register_load_state_dict_post_hook(lambda opt: print("load post"))
o.load_state_dict(o.state_dict())
#%% zero_grad set_to_none False and params without grad
m = model()
o = torch.optim.SGD(m.parameters(), lr=0.1)
train(m, o, 1)
o.zero_grad(set_to_none=False)
print(m[0].weight.grad.abs().sum().item(), m[0].bias.grad)
o.zero_grad()
print(m[0].weight.grad)
o.step()
print("stepped without grads")
