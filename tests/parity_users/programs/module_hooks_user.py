import torch
import torch.nn as nn
from collections import OrderedDict
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 1)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.ones(2), persistent=False)
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))
#%% forward hooks
torch.manual_seed(0)
m = Net()
seen = []
h1 = m.fc1.register_forward_hook(lambda mod, inp, out: seen.append(("fwd", type(mod).__name__, inp[0].shape, out.shape)))
h2 = m.fc2.register_forward_pre_hook(lambda mod, inp: seen.append(("pre", inp[0].shape)))
m(torch.ones(4, 2))
h1.remove(); h2.remove()
m(torch.ones(4, 2))
print(seen)
#%% forward hook modifies output
m = nn.Linear(2, 2)
m.register_forward_hook(lambda mod, inp, out: out * 0)
print(m(torch.ones(1, 2)))
m2 = nn.Linear(2, 2)
m2.register_forward_pre_hook(lambda mod, inp: (inp[0] * 0,))
print(torch.equal(m2(torch.ones(1, 2)), m2.bias.expand(1, 2)))
#%% hook with kwargs and always_call
m = nn.Linear(2, 1)
def pre(mod, args, kwargs):
    print("pre kwargs", sorted(kwargs))
    return args, kwargs
m.register_forward_pre_hook(pre, with_kwargs=True)
m.register_forward_hook(lambda mod, args, kwargs, out: print("post", out.shape), with_kwargs=True)
m(torch.ones(1, 2))
#%% backward hooks
m = nn.Linear(2, 2)
grads = []
m.register_full_backward_hook(lambda mod, gin, gout: grads.append((len(gin), gin[0] is None, gout[0].shape)))
m.register_full_backward_pre_hook(lambda mod, gout: grads.append(("pre", gout[0].shape)))
x = torch.ones(3, 2, requires_grad=True)
m(x).sum().backward()
print(grads)
#%% tensor hooks
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x.register_hook(lambda g: g * 10)
(x * 3).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x * 3).sum().backward()
print(x.grad)
y = x * 2
y.retain_grad()
y.sum().backward()
print(y.grad, y.is_leaf, y.requires_grad)
#%% post accumulate grad hook
p = nn.Parameter(torch.ones(2))
p.register_post_accumulate_grad_hook(lambda t: print("acc", t.grad))
(p * 2).sum().backward()
#%% state_dict keys and persistent buffers
m = Net()
sd = m.state_dict()
print(list(sd.keys()))
print(type(sd).__name__, sd["steps"].dtype, "cache" in sd)
print([n for n, _ in m.named_buffers()])
#%% load_state_dict strict false
m = Net()
sd = m.state_dict()
del sd["fc2.bias"]
sd["extra.weight"] = torch.zeros(1)
res = m.load_state_dict(sd, strict=False)
print(res)
print(res.missing_keys, res.unexpected_keys, type(res).__name__)
#%% load_state_dict strict errors
m = Net()
sd = m.state_dict()
sd["fc1.weight"] = torch.zeros(5, 5)
del sd["fc2.bias"]
sd["foo"] = torch.zeros(1)
try:
    m.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
#%% load_state_dict assign
m = nn.Linear(2, 2)
w = torch.ones(2, 2)
m.load_state_dict({"weight": w, "bias": torch.zeros(2)}, assign=True)
print(m.weight.data_ptr() == w.data_ptr(), type(m.weight).__name__, m.weight.requires_grad)
#%% state_dict hooks
m = nn.Linear(2, 1)
def post_sd(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "note"] = torch.tensor(1)
m.register_state_dict_post_hook(post_sd)
print(list(m.state_dict().keys()))
def pre_load(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
    state_dict.pop(prefix + "note", None)
m._register_load_state_dict_pre_hook(pre_load, with_module=False) if False else m.register_load_state_dict_pre_hook(pre_load)
print(m.load_state_dict(m.state_dict()))
m.register_load_state_dict_post_hook(lambda mod, keys: print("post load", keys.missing_keys))
m.load_state_dict({"weight": torch.zeros(1, 2), "bias": torch.zeros(1)})
#%% state_dict prefix and keep_vars
m = nn.Sequential(nn.Linear(1, 1))
sd = m.state_dict(prefix="model.", keep_vars=True)
print(list(sd), type(sd["model.0.weight"]).__name__)
print(sd._metadata if hasattr(sd, "_metadata") else None)
#%% named_modules children apply
m = nn.Sequential(OrderedDict(enc=nn.Sequential(nn.Linear(2, 2), nn.ReLU()), dec=nn.Linear(2, 1)))
print([n for n, _ in m.named_modules()])
print([n for n, _ in m.named_children()], len(list(m.modules())))
print([n for n, _ in m.named_modules(prefix="root")])
print([n for n, _ in m.named_parameters(recurse=False)], [n for n, _ in m.enc.named_parameters(prefix="e")])
def init(mod):
    if isinstance(mod, nn.Linear):
        nn.init.constant_(mod.weight, 0.5)
        nn.init.zeros_(mod.bias)
m.apply(init)
print(m(torch.ones(1, 2)))
#%% shared submodule appears once
lin = nn.Linear(2, 2)
m = nn.Sequential(lin, lin)
print(len(list(m.parameters())), [n for n, _ in m.named_modules()], [n for n, _ in m.named_modules(remove_duplicate=False)])
print(list(m.state_dict().keys()))
#%% get_submodule get_parameter
m = nn.Sequential(nn.Sequential(nn.Linear(1, 2)))
print(m.get_submodule("0.0"), m.get_parameter("0.0.bias").shape)
try:
    m.get_submodule("0.1")
except Exception as e:
    print(type(e).__name__, e)
try:
    m.get_parameter("0.0.nope")
except Exception as e:
    print(type(e).__name__, e)
#%% setattr errors
m = nn.Linear(1, 1)
try:
    m.weight = torch.zeros(1, 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    m.register_buffer("weight", torch.zeros(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    m.register_parameter("a.b", nn.Parameter(torch.zeros(1)))
except Exception as e:
    print(type(e).__name__, e)
try:
    m.add_module("", nn.ReLU())
except Exception as e:
    print(type(e).__name__, e)
#%% train eval requires_grad_ zero_grad
m = nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(2))
m.eval()
print(m.training, m[0].training, m[1].training)
m.train()
print(m[1].training)
m.requires_grad_(False)
print([p.requires_grad for p in m.parameters()])
lin = nn.Linear(1, 1)
lin(torch.ones(1, 1)).sum().backward()
lin.zero_grad()
print(lin.weight.grad)
lin(torch.ones(1, 1)).sum().backward()
lin.zero_grad(set_to_none=False)
print(lin.weight.grad)
#%% module repr extra_repr
class Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 3
        self.inner = nn.Linear(2, 2, bias=False)
    def extra_repr(self):
        return f"scale={self.scale}"
print(Custom())
print(nn.ModuleList([nn.ReLU(), nn.Tanh()]))
print(nn.ModuleDict({"a": nn.ReLU()}), nn.ParameterList([nn.Parameter(torch.ones(2))]))
print(nn.ParameterDict({"p": nn.Parameter(torch.ones(1, 2))}))
#%% modulelist ops
ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
ml.append(nn.ReLU()); ml.extend([nn.Tanh()]); ml.insert(0, nn.Sigmoid())
print([type(x).__name__ for x in ml], len(ml), type(ml[1:3]).__name__)
del ml[0]
print(type(ml[0]).__name__, type(ml[-1]).__name__)
try:
    ml[10]
except Exception as e:
    print(type(e).__name__, e)
#%% sequential slicing and indexing
s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
print(s[0:2], s[-1])
s.append(nn.Sigmoid())
print(len(s), type(s[3]).__name__)
s2 = nn.Sequential(OrderedDict(a=nn.ReLU()))
print(s2.a)
#%% buffers to dtype and device
m = Net()
m.double()
print(m.fc1.weight.dtype, m.steps.dtype, m.cache.dtype)
m.half()
print(m.fc1.weight.dtype, m.steps.dtype)
m.to(torch.float32)
print(m.fc1.weight.dtype)
#%% deepcopy and pickle module
import copy, io
m = Net()
m2 = copy.deepcopy(m)
print(torch.equal(m.fc1.weight, m2.fc1.weight), m.fc1.weight is m2.fc1.weight)
buf = io.BytesIO()
torch.save(m.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf)
print(list(sd.keys()))
