import io

import torch
from torch import nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% init functions values
torch.manual_seed(0)
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
print(r(w))
nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')
print(r(w))
nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)
print(r(w))
nn.init.orthogonal_(w)
print(r(w @ w.T))
nn.init.sparse_(w, sparsity=0.4)
print((w == 0).sum(0))
#%% init gains and fans
print(nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'), nn.init.calculate_gain('selu'), nn.init.calculate_gain('conv2d'))
try:
    nn.init.calculate_gain('bogus')
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.init.xavier_uniform_(torch.empty(3))
except Exception as e:
    print(type(e).__name__, e)
#%% init eye dirac constant
w = torch.empty(2, 3)
print(nn.init.eye_(w), nn.init.constant_(w, 0.5), nn.init.ones_(w), nn.init.zeros_(w))
c = torch.empty(2, 2, 3)
print(nn.init.dirac_(c))
try:
    nn.init.eye_(torch.empty(2, 2, 2))
except Exception as e:
    print(type(e).__name__, e)
#%% init under no_grad on params
lin = nn.Linear(4, 2)
torch.manual_seed(1)
nn.init.uniform_(lin.weight, -0.1, 0.1)
nn.init.normal_(lin.bias, mean=1.0, std=0.01)
print(r(lin.weight), r(lin.bias), lin.weight.requires_grad, lin.weight.grad_fn)
#%% default linear init reproducible
torch.manual_seed(3)
m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
print(r(m[0].weight), r(m[2].bias))
torch.manual_seed(3)
c = nn.Conv2d(2, 3, 3)
e = nn.Embedding(4, 2)
print(r(c.weight[0, 0]), r(c.bias), r(e.weight))
#%% save load mixed objects
buf = io.BytesIO()
obj = {'t': torch.arange(4.), 'list': [torch.tensor(1), 2, 'x'], 'tup': (torch.ones(2, dtype=torch.int8), None), 'nested': {'a': torch.zeros(1, 2)}, 'f': 1.5, 'dtype': torch.float16, 'size': torch.Size([2, 3])}
torch.save(obj, buf)
buf.seek(0)
o = torch.load(buf)
print(o['t'], o['list'], o['tup'], o['nested'], o['f'], o['dtype'], o['size'], type(o['size']).__name__)
#%% save shared storage views
buf = io.BytesIO()
a = torch.arange(6.)
torch.save({'a': a, 'v': a[2:4], 'w': a.view(2, 3)}, buf)
buf.seek(0)
o = torch.load(buf)
o['a'][2] = 100
print(o['v'], o['w'], o['v'].storage_offset(), o['w'].stride())
#%% save state dict and load into model
m = nn.Linear(2, 2)
buf = io.BytesIO()
torch.save(m.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
print(list(sd.keys()), type(sd).__name__)
m2 = nn.Linear(2, 2)
print(m2.load_state_dict(sd))
print(torch.equal(m2.weight, m.weight))
#%% load_state_dict errors
m = nn.Linear(2, 2)
try:
    m.load_state_dict({'weight': torch.zeros(3, 2), 'bias': torch.zeros(2)})
except Exception as e:
    print(type(e).__name__, e)
print(m.load_state_dict({'weight': torch.zeros(2, 2)}, strict=False))
try:
    m.load_state_dict({'weight': torch.zeros(2, 2), 'extra': torch.ones(1)})
except Exception as e:
    print(type(e).__name__, e)
#%% weights_only refuses custom class
class Foo:
    pass
buf = io.BytesIO()
torch.save({'x': Foo()}, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:80])
#%% save requires_grad and params
p = nn.Parameter(torch.ones(2))
buf = io.BytesIO()
torch.save([p, p * 2 if False else p.detach(), torch.ones(1, requires_grad=True)], buf)
buf.seek(0)
l = torch.load(buf)
print(type(l[0]).__name__, l[0].requires_grad, l[1].requires_grad, l[2].requires_grad, l[0])
#%% save non-leaf error
x = torch.ones(2, requires_grad=True)
buf = io.BytesIO()
try:
    torch.save(x * 2, buf)
    buf.seek(0)
    y = torch.load(buf)
    print(y, y.requires_grad, y.grad_fn)
except Exception as e:
    print(type(e).__name__, e)
#%% save complex bf16 bool
buf = io.BytesIO()
torch.save([torch.tensor([1 + 2j]), torch.tensor([1.5], dtype=torch.bfloat16), torch.tensor([True]), torch.tensor([], dtype=torch.int16), torch.tensor(7)], buf)
buf.seek(0)
print(torch.load(buf))
#%% optimizer state save
m = nn.Linear(2, 1)
opt = torch.optim.Adam(m.parameters(), lr=0.01)
m(torch.ones(1, 2)).sum().backward()
opt.step()
sd = opt.state_dict()
print(sorted(sd.keys()), sd['param_groups'][0]['lr'], sd['param_groups'][0]['params'], sorted(sd['state'][0].keys()), sd['state'][0]['step'])
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
opt2 = torch.optim.Adam(m.parameters())
opt2.load_state_dict(torch.load(buf))
print(opt2.param_groups[0]['lr'], opt2.state[m.weight]['exp_avg'].shape)
