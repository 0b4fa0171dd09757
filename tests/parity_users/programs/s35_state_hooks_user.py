import torch
from torch import nn


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e)[:400])
#%% load_state_dict strict false
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))
sd = m.state_dict()
print(list(sd.keys()))
sd2 = dict(sd)
del sd2['0.bias']
sd2['extra.weight'] = torch.zeros(1)
res = m.load_state_dict(sd2, strict=False)
print(res, res.missing_keys, res.unexpected_keys, type(res).__name__)
show(lambda: m.load_state_dict(sd2))
sd3 = dict(sd)
sd3['0.weight'] = torch.zeros(3, 3)
show(lambda: m.load_state_dict(sd3, strict=False))
sd4 = dict(sd)
sd4['1.num_batches_tracked'] = torch.tensor(5)
sd4['2.weight'] = [[1., 2., 3.]]
show(lambda: m.load_state_dict(sd4))
print(m.load_state_dict(sd))
#%% state_dict prefix keep_vars buffers
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer('running', torch.ones(2))
        self.register_buffer('tmp', torch.zeros(1), persistent=False)
        self.p = nn.Parameter(torch.tensor(1.))
        self.none_buf = None
        self.register_buffer('nb', None)
m = M()
print(list(m.state_dict().keys()), list(m.state_dict(prefix='x.').keys()))
print(type(m.state_dict(keep_vars=True)['p']).__name__, m.state_dict()['p'].requires_grad, type(m.state_dict()).__name__)
print([n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()])
print(m.load_state_dict({'lin.weight': torch.zeros(2, 2), 'lin.bias': torch.zeros(2), 'running': torch.zeros(2), 'p': torch.tensor(2.), 'tmp': torch.ones(1)}, strict=False))
print(m.p, m.running)
show(lambda: m.load_state_dict({'p': torch.tensor([1., 2.])}, strict=False))
show(lambda: m.register_buffer('lin', torch.zeros(1)))
show(lambda: m.register_parameter('running', nn.Parameter(torch.zeros(1))))
show(lambda: m.register_buffer('a.b', torch.zeros(1)))
show(lambda: m.register_parameter('q', torch.zeros(1)))
show(lambda: setattr(m, 'p', torch.zeros(1)))
#%% forward pre hooks and kwargs
lin = nn.Linear(2, 2)
def pre(mod, args):
    print('pre', len(args), type(args).__name__)
    return (args[0] * 2,)
def pre_kw(mod, args, kwargs):
    print('prekw', sorted(kwargs))
    return args, kwargs
def post(mod, args, out):
    print('post', out.shape)
    return out + 1
h1 = lin.register_forward_pre_hook(pre)
h2 = lin.register_forward_pre_hook(pre_kw, with_kwargs=True, prepend=True)
h3 = lin.register_forward_hook(post)
with torch.no_grad():
    lin.weight.fill_(1.)
    lin.bias.zero_()
    print(lin(torch.ones(1, 2)))
h1.remove(); h2.remove(); h3.remove()
print(lin(torch.ones(1, 2)).detach(), len(lin._forward_pre_hooks), len(lin._forward_hooks))
def single(mod, args):
    return args[0] + 1
lin.register_forward_pre_hook(single)
print(lin(torch.ones(1, 2)).detach())
h = lin.register_forward_hook(lambda m, a, k, o: print('kw', k), with_kwargs=True, always_call=True)
show(lambda: lin(torch.ones(1, 3)))
#%% full backward hooks
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
def bh(mod, gin, gout):
    print(type(mod).__name__, [None if g is None else tuple(g.shape) for g in gin], [tuple(g.shape) for g in gout])
def bph(mod, gout):
    print('pre', type(mod).__name__, [tuple(g.shape) for g in gout])
for m in net:
    m.register_full_backward_hook(bh)
    m.register_full_backward_pre_hook(bph)
x = torch.randn(4, 3)
net(x).sum().backward()
x = torch.randn(4, 3, requires_grad=True)
net(x).sum().backward()
relu = nn.ReLU()
relu.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
y = torch.tensor([1., -1., 2.], requires_grad=True)
relu(y).sum().backward()
print(y.grad)
#%% backward hook errors
lin = nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: (torch.zeros(3),))
x = torch.ones(1, 2, requires_grad=True)
show(lambda: lin(x).sum().backward())
lin2 = nn.Linear(2, 2)
lin2.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
show(lambda: lin2(torch.ones(1, 2, requires_grad=True)).sum().backward())
lin3 = nn.Linear(2, 2)
lin3.register_backward_hook(lambda m, gi, go: None)
lin3.register_full_backward_hook(lambda m, gi, go: None)
show(lambda: lin3(torch.ones(1, 2, requires_grad=True)).sum().backward())
#%% state dict hooks and extra state
class E(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))
        self.v = 3
    def get_extra_state(self):
        return {'v': self.v}
    def set_extra_state(self, s):
        self.v = s['v']
e = E()
print(list(e.state_dict().keys()), e.state_dict()['_extra_state'])
e2 = E()
e2.v = 9
e.load_state_dict(e2.state_dict())
print(e.v)
print(e.load_state_dict({'w': torch.ones(1)}, strict=False))
def post_hook(mod, incompatible):
    print('post load', incompatible.missing_keys)
    incompatible.missing_keys.clear()
e.register_load_state_dict_post_hook(post_hook)
print(e.load_state_dict({'w': torch.ones(1)}))
sd_pre = e.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: print('sd pre', repr(prefix), keep_vars))
print(list(e.state_dict(prefix='z.').keys()))
#%% module apply named_modules parameters sharing
shared = nn.Linear(2, 2)
m = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(m.parameters())), len(list(m.named_parameters(remove_duplicate=False))), [n for n, _ in m.named_modules()], len(list(m.modules())))
print(list(m.state_dict().keys()))
print([n for n, _ in m.named_modules(remove_duplicate=False)])
show(lambda: m.get_submodule('0.weight'))
show(lambda: m.get_submodule('5'))
print(m.get_parameter('2.bias').shape)
show(lambda: m.get_parameter('1.weight'))
show(lambda: m.get_buffer('0.weight'))
#%% full backward hook results checked
def trial(hook, pre=False):
    lin = nn.Linear(2, 2)
    (lin.register_full_backward_pre_hook if pre else lin.register_full_backward_hook)(hook)
    x = torch.ones(1, 2, requires_grad=True)
    show(lambda: (lin(x).sum().backward(), x.grad)[1])
trial(lambda m, gi, go: (torch.zeros(1, 2, dtype=torch.float64),))
trial(lambda m, gi, go: (torch.zeros(1, 2, dtype=torch.int64),))
trial(lambda m, gi, go: torch.zeros(1, 2))
trial(lambda m, gi, go: [torch.zeros(1, 2)])
trial(lambda m, gi, go: (3,))
trial(lambda m, gi, go: 3)
trial(lambda m, gi, go: torch.zeros(2))
trial(lambda m, go: (torch.zeros(3),), pre=True)
trial(lambda m, go: (torch.zeros(1, 2, dtype=torch.float64),), pre=True)
trial(lambda m, go: (torch.zeros(1, 2), 1), pre=True)
trial(lambda m, go: torch.zeros(1, 2), pre=True)
trial(lambda m, go: 3, pre=True)
trial(lambda m, go: torch.tensor(1.), pre=True)
trial(lambda m, go: (go[0] * 3,), pre=True)
