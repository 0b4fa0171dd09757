import torch
import torch.nn as nn


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% attribute rules
m = nn.Module()
show(lambda: setattr(m, 'w', nn.Parameter(torch.ones(1))) or sorted(dict(m.named_parameters())))
show(lambda: m.register_parameter('a.b', nn.Parameter(torch.ones(1))))
show(lambda: m.register_parameter('', None))
show(lambda: m.register_buffer('w', torch.ones(1)))
show(lambda: m.register_parameter('x', torch.ones(1)))
show(lambda: m.add_module('x.y', nn.Linear(1, 1)))
show(lambda: m.add_module('w', nn.Linear(1, 1)))
show(lambda: m.add_module(3, nn.Linear(1, 1)))
show(lambda: m.add_module('q', 'notamodule'))
show(lambda: setattr(m, 'w', torch.ones(1)))
m.register_parameter('p', None)
print(m.p, list(m.named_parameters()), 'p' in m._parameters)
m.register_buffer('b', None)
print(m.b, list(m.named_buffers()))
m.b = torch.zeros(2)
print(list(m.named_buffers()))
del m.w
print(hasattr(m, 'w'), list(m.named_parameters()))
show(lambda: m.nope)
show(lambda: delattr(m, 'nope'))
print(m.get_parameter('p') if False else 'skip')
#%% get_submodule and friends
net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
print(net.get_submodule('1.1'), net.get_parameter('1.1.bias').shape)
show(lambda: net.get_submodule('1.5'))
show(lambda: net.get_submodule('0.weight'))
show(lambda: net.get_parameter('0.nope'))
show(lambda: net.get_buffer('0.weight'))
net.set_submodule('1.0', nn.Tanh())
print(net)
show(lambda: net.set_submodule('2.0', nn.Tanh()))
print([n for n, _ in net.named_modules()], [n for n, _ in net.named_children()])
print([n for n, _ in net.named_modules(prefix='model')], len(list(net.modules())))
shared = nn.Linear(1, 1)
tw = nn.Sequential(shared, shared)
print(len(list(tw.parameters())), len(list(tw.named_modules())), len(list(tw.named_modules(remove_duplicate=False))))
print([n for n, _ in tw.named_parameters(remove_duplicate=False)])
#%% apply to zero_grad half
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
def init(mod):
    if isinstance(mod, nn.Linear):
        nn.init.constant_(mod.weight, 0.5)
print(net.apply(init) is net, net[0].weight)
net.double()
print(net[0].weight.dtype, net[1].running_mean.dtype, net[1].num_batches_tracked.dtype)
net.half()
print(net[0].weight.dtype, net[1].num_batches_tracked.dtype)
net.to(torch.float32)
print(net[0].weight.dtype)
net.to(dtype=torch.bfloat16)
print(net[0].bias.dtype)
show(lambda: net.to(torch.int32))
net.float()
net(torch.randn(3, 2)).sum().backward()
net.zero_grad()
print(net[0].weight.grad)
net(torch.randn(3, 2)).sum().backward()
net.zero_grad(set_to_none=False)
print(net[0].weight.grad)
net.type(torch.float64)
print(net[0].weight.dtype)
print(net.training, net.eval().training, net[1].training, net.train(False).training)
show(lambda: net.train('yes'))
#%% repr and extra_repr
class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.lin = nn.Linear(n, n)
    def extra_repr(self):
        return f'n={self.n}'
print(Block(2))
print(nn.Sequential(*[nn.Linear(2, 2) for _ in range(4)], nn.ReLU(), nn.ReLU()))
print(nn.ModuleList([Block(1), Block(1), nn.Identity()]))
print(nn.ModuleDict({'a': nn.ReLU(), 'b': nn.Sequential()}))
print(nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(1, dtype=torch.float64))]))
print(nn.ParameterDict({'x': nn.Parameter(torch.ones(2, 3))}))
print(nn.Sequential())
print(nn.Conv2d(1, 2, 3, stride=2, padding=1, bias=False, padding_mode='reflect'), nn.LSTM(2, 3, num_layers=2, bidirectional=True, batch_first=True))
print(nn.LayerNorm(4, elementwise_affine=False), nn.Dropout(p=0.1, inplace=True), nn.Embedding(3, 2, padding_idx=0, max_norm=1.0))
print(nn.MultiheadAttention(4, 2, batch_first=True))
print(nn.TransformerEncoderLayer(4, 2, dim_feedforward=8))
#%% containers ops
s = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Tanh())
print(s[1:], type(s[1:]).__name__, s[-1], len(s))
s.append(nn.Sigmoid())
s.insert(0, nn.Identity())
print([type(x).__name__ for x in s])
print(type(s.pop(1)).__name__, len(s))
del s[0]
print([type(x).__name__ for x in s])
s.extend([nn.ReLU()])
print(len(s), len(s + nn.Sequential(nn.ReLU())))
show(lambda: s[10])
show(lambda: s.insert(20, nn.ReLU()))
ml = nn.ModuleList([nn.ReLU()])
ml += [nn.Tanh()]
print(len(ml), type(ml[-1]).__name__, len(ml + nn.ModuleList([nn.ReLU()])))
show(lambda: ml.append(3))
md = nn.ModuleDict()
md['x'] = nn.ReLU()
md.update({'y': nn.Tanh()})
print(list(md.keys()), 'x' in md, type(md.pop('x')).__name__, len(md))
show(lambda: md.update([('a',)]))
pl = nn.ParameterList([torch.ones(1)])
pl.append(torch.zeros(2))
print([type(p).__name__ for p in pl], pl[1].requires_grad)
pd = nn.ParameterDict({'a': torch.ones(1)})
pd['b'] = 5
print(type(pd['a']).__name__, pd['b'], list(pd.keys()))
