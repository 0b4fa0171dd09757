import torch
import torch.nn as nn


def net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
#%% forward pre hooks and forward hooks (kwargs, changing input/output)
m = net()
m[0].register_forward_pre_hook(lambda mod, args: (args[0] * 0 + 1,))
m[2].register_forward_hook(lambda mod, args, out: out * 10)
print(m(torch.randn(2, 2)))
m = net()
def pre_kw(mod, args, kwargs):
    print("pre kw", [a.shape for a in args], sorted(kwargs))
    return args, kwargs
def post_kw(mod, args, kwargs, out):
    print("post kw", type(out).__name__, out.shape)
m[0].register_forward_pre_hook(pre_kw, with_kwargs=True)
m[0].register_forward_hook(post_kw, with_kwargs=True)
m(torch.ones(1, 2))
h = m.register_forward_hook(lambda mod, a, o: print("prepend", type(mod).__name__), prepend=True)
m(torch.ones(1, 2))
h.remove()
m(torch.ones(1, 2))
print(len(m._forward_hooks), len(m[0]._forward_hooks), len(m[0]._forward_pre_hooks))
#%% always_call hooks run when forward raises
class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom")
b = Boom()
b.register_forward_hook(lambda mod, a, o: print("always", o), always_call=True)
b.register_forward_hook(lambda mod, a, o: print("never"))
try:
    b(torch.ones(1))
except ValueError as e:
    print("caught", e)
#%% full backward hooks and pre hooks
m = net()
def bwd(mod, grad_in, grad_out):
    print(type(mod).__name__, [None if g is None else tuple(g.shape) for g in grad_in], [tuple(g.shape) for g in grad_out])
for layer in m:
    layer.register_full_backward_hook(bwd)
m[2].register_full_backward_pre_hook(lambda mod, go: print("pre", go[0].shape))
x = torch.ones(4, 2, requires_grad=True)
m(x).sum().backward()
m2 = net()
m2[0].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,))
x = torch.ones(1, 2, requires_grad=True)
m2(x).sum().backward()
print(x.grad)
#%% tensor hooks, retain_grad, post accumulate hooks
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 3
b.retain_grad()
hb = b.register_hook(lambda g: g * 2)
a.register_hook(lambda g: print("a grad", g))
c = (b ** 2).sum()
c.backward()
print(a.grad, b.grad, b.is_leaf, b.retains_grad)
p = nn.Parameter(torch.ones(2))
p.register_post_accumulate_grad_hook(lambda t: print("accumulated", t.grad))
(p * 2).sum().backward()
(p * 2).sum().backward()
try:
    torch.ones(2).register_hook(lambda g: g)
except Exception as e:
    print(type(e).__name__, e)
try:
    a.register_post_accumulate_grad_hook(lambda t: None) ; b.register_post_accumulate_grad_hook(lambda t: None)
except Exception as e:
    print(type(e).__name__, e)
#%% global module hooks and state of hooks in repr/state_dict
from torch.nn.modules.module import register_module_forward_hook
seen = []
h = register_module_forward_hook(lambda mod, i, o: seen.append(type(mod).__name__))
net()(torch.ones(1, 2))
h.remove()
net()(torch.ones(1, 2))
print(seen)
m = net()
m.register_forward_hook(lambda *a: None)
print(m, list(m.state_dict().keys()))
#%% hooks on intermediate activations (feature extraction)
m = net()
feats = {}
def save(name):
    def hook(mod, inp, out):
        feats[name] = out.detach()
    return hook
for name, mod in m.named_modules():
    if isinstance(mod, nn.Linear):
        mod.register_forward_hook(save(name))
m(torch.ones(2, 2))
print({k: v.shape for k, v in feats.items()}, feats["2"])
#%% objects a notebook prints by accident
import torch.nn.utils.prune as prune
m = net()
x = torch.ones(1, requires_grad=True)
for o in [m.register_forward_hook(lambda *a: None), x.register_hook(lambda g: g), torch.Generator(), torch.no_grad(),
          torch.enable_grad(), torch.inference_mode(), torch.set_grad_enabled(True), torch.autograd.set_detect_anomaly(False),
          prune.L1Unstructured(0.5), torch.autocast("cpu"), torch.amp.GradScaler("cpu"),
          torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)]:
    print(repr(o).split(" at 0x")[0])
