import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% module hooks with kwargs and prepend
torch.manual_seed(0)
m = nn.Linear(3, 2)
log = []
h1 = m.register_forward_pre_hook(lambda mod, args: log.append(('pre', len(args))))
h2 = m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(('prek', sorted(kwargs))) , with_kwargs=True, prepend=True)
h3 = m.register_forward_hook(lambda mod, args, out: log.append(('fwd', tuple(out.shape))))
h4 = m.register_forward_hook(lambda mod, args, kwargs, out: out * 0 + 1, with_kwargs=True)
y = m(torch.ones(1, 3))
print(log, y)
h4.remove()
h5 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
print(r(m(torch.ones(1, 3))), r(m.weight.sum(1) * 2 + m.bias))
for h in (h1, h2, h3, h5):
    h.remove()
print(m._forward_hooks, m._forward_pre_hooks)
#%% backward hooks
torch.manual_seed(0)
seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
seen = []
def bh(mod, gin, gout):
    seen.append((type(mod).__name__, [None if g is None else tuple(g.shape) for g in gin], [tuple(g.shape) for g in gout]))
def bph(mod, gout):
    seen.append(('pre', type(mod).__name__))
    return (gout[0] * 10,)
hs = [seq[0].register_full_backward_hook(bh), seq[1].register_full_backward_hook(bh), seq[2].register_full_backward_pre_hook(bph)]
x = torch.randn(2, 3, requires_grad=True)
seq(x).sum().backward()
print(seen)
print(r(x.grad))
for h in hs:
    h.remove()
x.grad = None
seq(x).sum().backward()
print(r(x.grad))
y = seq[0](torch.randn(2, 3))
hs = seq[0].register_full_backward_hook(bh)
seen.clear()
seq[0](torch.randn(2, 3)).sum().backward()
print(seen)
#%% state dict hooks and persistent buffers
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer('stat', torch.zeros(2))
        self.register_buffer('tmp', torch.ones(2), persistent=False)
        self.register_buffer('none', None)
m = M()
print(list(m.state_dict().keys()), [n for n, _ in m.named_buffers()], m.none)
def post(module, sd, prefix, local_metadata):
    sd[prefix + 'extra'] = torch.tensor(5.)
m.register_state_dict_post_hook(post) if hasattr(m, 'register_state_dict_post_hook') else m._register_state_dict_hook(post)
print(list(m.state_dict().keys()))
def pre(module, sd, prefix, local_metadata, strict, missing, unexpected, errors):
    sd.pop(prefix + 'extra', None)
m._register_load_state_dict_pre_hook(pre, with_module=True) if False else m.register_load_state_dict_pre_hook(lambda mod, sd, *a: sd.pop('extra', None))
res = m.load_state_dict(m.state_dict())
print(res, res.missing_keys)
def lpost(mod, incompatible):
    incompatible.missing_keys.clear()
m.register_load_state_dict_post_hook(lpost)
print(m.load_state_dict({'lin.weight': torch.zeros(2, 2)}, strict=True) if False else m.load_state_dict({'lin.weight': torch.zeros(2, 2)}, strict=False))
show(lambda: m.load_state_dict({'lin.weight': torch.zeros(3, 2)}))
show(lambda: m.load_state_dict({'lin.weight': torch.zeros(2, 2), 'zzz': torch.ones(1)}))
show(lambda: m.register_buffer('lin', torch.ones(1)))
show(lambda: m.register_buffer('a.b', torch.ones(1)))
show(lambda: m.register_buffer('x', [1, 2]))
#%% named_modules, apply, duplicates
shared = nn.Linear(2, 2)
net = nn.Sequential(shared, nn.ReLU(), shared, nn.Sequential(nn.Linear(2, 1)))
print([n for n, _ in net.named_modules()])
print([n for n, _ in net.named_modules(remove_duplicate=False)])
print([n for n, _ in net.named_parameters()], len(list(net.parameters())))
print([n for n, _ in net.named_parameters(remove_duplicate=False)])
print([n for n, _ in net.named_children()], [n for n, _ in net.named_modules(prefix='root')][:3])
names = []
net.apply(lambda mod: names.append(type(mod).__name__))
print(names)
def init(mod):
    if isinstance(mod, nn.Linear):
        nn.init.constant_(mod.weight, 0.5)
        nn.init.zeros_(mod.bias)
print(net.apply(init) is net, net(torch.ones(1, 2)))
print(list(net.state_dict().keys()))
print(net.get_submodule('3.0'), net.get_parameter('3.0.bias').shape)
show(lambda: net.get_submodule('3.1'))
show(lambda: net.get_parameter('3.0.nope'))
