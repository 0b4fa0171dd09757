import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, jacrev, jacfwd, vmap, hessian, vjp, jvp, stack_module_state


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.fc(x.flatten(1))
#%% per-sample grads of a conv net
torch.manual_seed(0)
net = Net()
params = {k: v.detach() for k, v in net.named_parameters()}
x = torch.randn(4, 1, 4, 4)
y = torch.tensor([0, 2, 1, 0])
def loss(p, xi, yi):
    out = functional_call(net, p, (xi.unsqueeze(0),))
    return F.cross_entropy(out, yi.unsqueeze(0))
g = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
print({k: tuple(v.shape) for k, v in g.items()})
print({k: v.sum().round(decimals=4).item() + 0.0 for k, v in g.items()})
full = torch.autograd.grad(sum(loss(dict(net.named_parameters()), x[i], y[i]) for i in range(4)), list(net.parameters()))
print([torch.allclose(a, b.sum(0), atol=1e-5) for a, b in zip(full, g.values())])
#%% jacobians of a model output wrt input and params
torch.manual_seed(1)
m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
x = torch.randn(3)
Jr = jacrev(m)(x)
Jf = jacfwd(m)(x)
print(Jr.shape, torch.allclose(Jr, Jf, atol=1e-6), Jr.round(decimals=4))
p = dict(m.named_parameters())
Jp = jacrev(lambda p: functional_call(m, p, (x,)))(p)
print({k: tuple(v.shape) for k, v in Jp.items()})
H = hessian(lambda x: m(x).sum())(x)
print(H.shape, torch.allclose(H, H.T, atol=1e-6))
bx = torch.randn(5, 3)
print(vmap(jacrev(m))(bx).shape, vmap(m)(bx).shape, torch.allclose(vmap(m)(bx), m(bx), atol=1e-6))
#%% grad_and_value has_aux vjp jvp on models
torch.manual_seed(2)
lin = nn.Linear(2, 1)
p = {k: v.detach() for k, v in lin.named_parameters()}
def f(p, x):
    out = functional_call(lin, p, (x,))
    return out.pow(2).mean(), out.detach()
gr, (val, out) = grad_and_value(f, has_aux=True)(p, torch.ones(3, 2))
print({k: v.round(decimals=4) for k, v in gr.items()}, val.round(decimals=4), out.shape)
y, fn = vjp(lambda x: lin(x), torch.ones(3, 2))
print(fn(torch.ones(3, 1))[0].round(decimals=4))
pr, tg = jvp(lambda x: lin(x).sum(), (torch.ones(2),), (torch.tensor([1.0, 0.0]),))
print(pr.detach(), tg.detach(), pr.requires_grad, tg.requires_grad)  # (primal node: AliasBackward0 in torch)
pr, tg = jvp(lambda x: (lin(x), x.sum(), x * 2), (torch.ones(2),), (torch.ones(2),))
print([t.requires_grad for t in pr], [t.requires_grad for t in tg], tg[2])
#%% func errors on models
torch.manual_seed(3)
bn = nn.BatchNorm1d(3)
try:
    vmap(bn)(torch.randn(4, 2, 3))
except RuntimeError as e:
    print(str(e)[:150])
bn.eval()
print(vmap(bn)(torch.randn(4, 2, 3)).shape)
try:
    grad(lambda x: x * 2)(torch.ones(2))
except RuntimeError as e:
    print(e)
try:
    vmap(lambda x: x.item())(torch.ones(2))
except RuntimeError as e:
    print(str(e)[:120])
try:
    functional_call(nn.Linear(2, 2), {"weight": torch.ones(2, 2), "bogus": torch.ones(1)}, (torch.ones(2),), strict=True)
except RuntimeError as e:
    print(e)
print(functional_call(nn.Linear(2, 2), {"weight": torch.eye(2)}, (torch.ones(2),)).shape)
#%% ensembles with stack_module_state
torch.manual_seed(4)
models = [nn.Linear(3, 2) for _ in range(3)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()}, buffers)
base = nn.Linear(3, 2).to("meta")
def call(p, b, x):
    return functional_call(base, (p, b), (x,))
x = torch.randn(5, 3)
out = vmap(call, in_dims=(0, 0, None))(params, buffers, x)
print(out.shape, torch.allclose(out[1], models[1](x), atol=1e-6))
#%% forward hooks with kwargs and always_call
torch.manual_seed(5)
class M(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale
m = M()
log = []
h1 = m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {**kwargs, "scale": kwargs.get("scale", 1.0) * 10}), with_kwargs=True)
h2 = m.register_forward_hook(lambda mod, args, kwargs, out: log.append((args[0].tolist(), kwargs, out.tolist())), with_kwargs=True)
print(m(torch.ones(2), scale=2.0), log)
h1.remove()
print(m(torch.ones(2), scale=3.0), log[-1])
h2.remove()
class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom")
b = Boom()
b.register_forward_hook(lambda mod, args, out: print("always", out), always_call=True)
b.register_forward_hook(lambda mod, args, out: print("never"))
try:
    b(torch.ones(1))
except ValueError as e:
    print(e)
#%% pre hook returning single value and none
m = nn.Linear(2, 2)
with torch.no_grad():
    m.weight.copy_(torch.eye(2)); m.bias.zero_()
m.register_forward_pre_hook(lambda mod, inp: inp[0] * 2)
print(m(torch.ones(2)))
m2 = nn.Linear(2, 2)
m2.register_forward_pre_hook(lambda mod, inp: None)
m2.register_forward_hook(lambda mod, inp, out: None)
print(m2(torch.ones(2)).shape)
h = m2.register_forward_hook(lambda mod, inp, out: out.sum())
print(m2(torch.ones(2)))
with h:
    pass
print(m2(torch.ones(2)).shape)
#%% full backward hooks and pre hooks
torch.manual_seed(6)
m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
log = []
m[0].register_full_backward_pre_hook(lambda mod, gout: log.append(("pre", [g.shape for g in gout])))
m[0].register_full_backward_hook(lambda mod, gin, gout: log.append(("full", [None if g is None else g.shape for g in gin], [g.shape for g in gout])))
m[1].register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 0,))
x = torch.randn(4, 3, requires_grad=True)
m(x).sum().backward()
print(log, x.grad.abs().sum(), m[0].weight.grad.abs().sum())
x2 = torch.randn(4, 3)
log.clear()
m(x2).sum().backward()
print(log)
try:
    m[0].register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
    m(x).sum().backward()
except RuntimeError as e:
    print(e)
#%% global module hooks
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook, register_module_full_backward_hook
seen = []
g1 = register_module_forward_pre_hook(lambda mod, inp: seen.append(("pre", type(mod).__name__)))
g2 = register_module_forward_hook(lambda mod, inp, out: seen.append(("fwd", type(mod).__name__)))
g3 = register_module_full_backward_hook(lambda mod, gi, go: seen.append(("bwd", type(mod).__name__)))
m = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
m(torch.ones(1, 2, requires_grad=True)).sum().backward()
g1.remove(); g2.remove(); g3.remove()
m(torch.ones(1, 2))
print(seen)
#%% tensor hooks and retain_grad
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g * 2)
h = x.register_hook(lambda g: print("x hook", g))
z = (y ** 2).sum()
z.backward(retain_graph=True)
print(x.grad, y.grad, y.is_leaf, y.retains_grad)
h.remove()
x.grad = None
z.backward()
print(x.grad)
try:
    torch.ones(2).register_hook(lambda g: g)
except RuntimeError as e:
    print(e)
w = torch.ones(2, requires_grad=True)
w.register_post_accumulate_grad_hook(lambda p: print("acc", p.grad))
(w * 2).sum().backward()
try:
    (w * 2).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print(e)
