import torch
import torch.nn as nn
import pickle
import copy
import io
#%% pickle tensors
for t in [torch.arange(4.), torch.tensor([1, 2], dtype=torch.int8), torch.ones(2, 2).t(), torch.arange(6)[1::2],
          torch.tensor(3.5), torch.empty(0, 2), torch.tensor([True]), torch.ones(2, dtype=torch.bfloat16)]:
    u = pickle.loads(pickle.dumps(t))
    print(u, u.dtype, u.shape)  # (torch keeps a view's strides and offset: numtorch compacts)
p = nn.Parameter(torch.ones(2))
q = pickle.loads(pickle.dumps(p))
print(type(q).__name__, q.requires_grad, q)
r = torch.ones(2, requires_grad=True)
print(pickle.loads(pickle.dumps(r)).requires_grad)
try:
    pickle.dumps(r * 2)
except Exception as e:
    print(type(e).__name__, str(e)[:200])
s = pickle.loads(pickle.dumps(torch.Size([2, 3])))
print(s, type(s).__name__, pickle.loads(pickle.dumps(torch.float16)), pickle.loads(pickle.dumps(torch.device("cpu"))))
#%% shared storage survives pickling a list
base = torch.arange(5.)
view = base[1:3]
a, b = pickle.loads(pickle.dumps([base, view]))
b.fill_(-1)
print(a, b)
#%% pickle and deepcopy modules
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU())
m2 = pickle.loads(pickle.dumps(m))
print(m2)
print(all(torch.equal(a, b) for a, b in zip(m.state_dict().values(), m2.state_dict().values())))
m3 = copy.deepcopy(m)
m3[0].weight.data.zero_()
print(m[0].weight.abs().sum() > 0, m3[0].weight.abs().sum())
m.register_forward_hook(lambda mod, i, o: None)
m4 = copy.deepcopy(m)
print(len(m4._forward_hooks))
x = torch.ones(1, 2, requires_grad=True)
m[0](x).sum().backward()
m5 = copy.deepcopy(m)
print(m5[0].weight.grad is not None, m[0].weight.grad is not None)
#%% deepcopy of tensors and graph
a = torch.ones(2, requires_grad=True)
b = a * 2
try:
    copy.deepcopy(b)
except Exception as e:
    print(type(e).__name__, str(e)[:200])
c = copy.deepcopy(a)
print(c.requires_grad, c.is_leaf, c is a)
d = copy.copy(torch.arange(3))
print(d)
t = torch.arange(4.)
v = t[1:]
dv, dt = copy.deepcopy((v, t))
dt[1] = 100
print(dv, dt)
#%% deepcopy of optimizers and schedulers
m = nn.Linear(2, 1)
o = torch.optim.Adam(m.parameters(), lr=0.1)
m(torch.ones(1, 2)).sum().backward()
o.step()
s = torch.optim.lr_scheduler.StepLR(o, 1, 0.5)
o.step()
s.step()
both = copy.deepcopy({"m": m, "o": o, "s": s})
print(both["o"].param_groups[0]["params"][0] is both["m"].weight, both["s"].optimizer is both["o"])
print(both["o"].param_groups[0]["lr"], both["s"].get_last_lr(), both["o"].state[both["m"].weight]["step"])
oc = copy.deepcopy(o)
print(oc.param_groups[0]["params"][0] is m.weight)
#%% torch.save/load round trip in memory
buf = io.BytesIO()
torch.save({"w": torch.arange(3.), "n": 5, "s": "x", "t": (torch.ones(1), [torch.zeros(1)])}, buf)
buf.seek(0)
obj = torch.load(buf)
print(obj)
m = nn.Linear(2, 1)
buf = io.BytesIO()
torch.save(m, buf)
buf.seek(0)
try:
    torch.load(buf)
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
buf.seek(0)
print(torch.load(buf, weights_only=False))
