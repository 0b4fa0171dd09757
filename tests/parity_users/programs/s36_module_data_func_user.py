import collections
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, TensorDataset


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e)[:400])
#%% load_state_dict strictness
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))
sd = m.state_dict()
print(list(sd.keys()))
bad = dict(sd)
bad.pop('1.running_mean')
bad['extra.weight'] = torch.zeros(1)
show(lambda: m.load_state_dict(bad))
res = m.load_state_dict(bad, strict=False)
print(res, res.missing_keys, res.unexpected_keys)
wrong = dict(sd)
wrong['0.weight'] = torch.zeros(3, 3)
show(lambda: m.load_state_dict(wrong))
show(lambda: m.load_state_dict(wrong, strict=False))
wrong2 = dict(sd)
wrong2['2.bias'] = torch.zeros(1, dtype=torch.float64)
print(m.load_state_dict(wrong2), m[2].bias.dtype)
show(lambda: m.load_state_dict({'0.weight': 'nope'}, strict=False))
show(lambda: m.load_state_dict([1, 2]))
print(m.load_state_dict(sd, assign=True))
print(m[0].weight is sd['0.weight'], m[0].weight.requires_grad, type(m[0].weight).__name__)
#%% state dict hooks and prefixes
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)
        self.register_buffer('step', torch.tensor(0))
        self.register_buffer('tmp', torch.ones(1), persistent=False)
n = Net()
print(list(n.state_dict().keys()), list(n.state_dict(prefix='net.').keys()))
sd = n.state_dict(keep_vars=True)
print(type(sd['fc.weight']).__name__, sd['fc.weight'].requires_grad)
n.register_state_dict_post_hook(lambda mod, sd, prefix, local: sd.__setitem__(prefix + 'extra', 1))
print(list(n.state_dict().keys()))
n.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: sd.pop(prefix + 'extra', None))
print(n.load_state_dict(n.state_dict()))
old = {'fc.weight': torch.ones(1, 1), 'fc.bias': torch.zeros(1), 'step': torch.tensor(5)}
print(n.load_state_dict(old), n.step)
show(lambda: n.load_state_dict({'fc.weight': torch.ones(1, 1)}))
show(lambda: nn.Linear(2, 2).load_state_dict({'weight': torch.ones(2, 2), 'bias': torch.ones(3), 'x': 1}))
#%% dataloader with dict and namedtuple batches
Point = collections.namedtuple('Point', ['x', 'y'])
class DS(Dataset):
    def __len__(self):
        return 5
    def __getitem__(self, i):
        return {'a': torch.tensor([i, i + 1]), 'b': float(i), 'p': Point(i, torch.tensor(i * 2.)), 's': f'item{i}'}
dl = DataLoader(DS(), batch_size=2)
for batch in dl:
    print(sorted(batch.keys()), batch['a'], batch['b'], batch['b'].dtype, type(batch['p']).__name__, batch['p'].x, batch['p'].y, batch['s'])
print(len(dl), len(DataLoader(DS(), batch_size=2, drop_last=True)))
dl2 = DataLoader(DS(), batch_size=None)
print(next(iter(dl2))['a'])
#%% samplers
from torch.utils.data import (RandomSampler, SequentialSampler, SubsetRandomSampler,
                              WeightedRandomSampler, BatchSampler)
g = torch.Generator().manual_seed(3)
print(list(RandomSampler(range(6), generator=g)))
g = torch.Generator().manual_seed(3)
print(list(RandomSampler(range(6), replacement=True, num_samples=4, generator=g)))
g = torch.Generator().manual_seed(4)
print(list(WeightedRandomSampler([0.1, 0.9, 0.0, 2.0], 6, generator=g)))
g = torch.Generator().manual_seed(4)
print(list(WeightedRandomSampler([0.1, 0.9, 0.0, 2.0], 3, replacement=False, generator=g)))
g = torch.Generator().manual_seed(5)
print(list(SubsetRandomSampler([10, 20, 30], generator=g)))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), len(BatchSampler(range(7), 3, True)))
show(lambda: RandomSampler(range(3), num_samples=0))
show(lambda: list(WeightedRandomSampler([1., -1.], 2)))
show(lambda: BatchSampler(range(3), 0, False))
show(lambda: DataLoader(range(3), batch_size=2, shuffle=True, sampler=SequentialSampler(range(3))))
show(lambda: DataLoader(range(3), batch_sampler=BatchSampler(range(3), 2, False), batch_size=2))
torch.manual_seed(6)
print([b.tolist() for b in DataLoader(torch.arange(6), batch_size=4, shuffle=True)])
gen = torch.Generator().manual_seed(7)
print([b.tolist() for b in DataLoader(torch.arange(6), batch_size=4, shuffle=True, generator=gen)])
#%% collate edge cases
from torch.utils.data import default_collate, default_convert
print(default_collate([1, 2, 3]), default_collate([1.5, 2.5]).dtype, default_collate([True, False]))
print(default_collate([(1, 'a'), (2, 'b')]))
print(default_collate([[1, 2], [3, 4]]))
show(lambda: default_collate([[1, 2], [3]]))
show(lambda: default_collate([torch.ones(2), torch.ones(3)]))
show(lambda: default_collate([object(), object()]) and 'x')
import numpy as np
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([np.float64(1.5), np.float64(2.)]))
print(default_convert(np.array([1., 2.])), default_convert({'k': np.int32(3)}))
print(default_collate([{'a': 1}, {'a': 2}]))
show(lambda: default_collate([{'a': 1}, {'b': 2}]))
ds = TensorDataset(torch.arange(4), torch.arange(4) * 10)
print(ds[1], len(ds))
show(lambda: TensorDataset(torch.arange(4), torch.arange(3)))
from torch.utils.data import random_split, Subset, ConcatDataset
a, b = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(1))
print(list(a), list(b))
show(lambda: random_split(range(10), [3, 3]))
c = ConcatDataset([range(3), range(10, 12)])
print(len(c), c[3], c[-1], Subset(range(10), [2, 5])[1])
#%% torch.func over modules
from torch.func import functional_call, grad, vmap, jacrev, jacfwd, hessian
torch.manual_seed(8)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(5, 3)
y = torch.randn(5, 1)
def loss(p, xb, yb):
    return ((functional_call(model, p, (xb,)) - yb) ** 2).mean()
g = grad(loss)(params, x, y)
print(sorted(g.keys()), r(g['2.bias']))
per = vmap(grad(loss), in_dims=(None, 0, 0))(params, x.unsqueeze(1), y.unsqueeze(1))
print(per['0.weight'].shape, r(per['2.bias'].mean(0) - g['2.bias'], 5))
J = jacrev(lambda xx: functional_call(model, params, (xx,)))(x[0])
print(J.shape, r(J))
Jf = jacfwd(lambda xx: functional_call(model, params, (xx,)))(x[0])
print(r(Jf - J, 5))
H = hessian(lambda xx: functional_call(model, params, (xx,)).sum())(x[0])
print(H.shape, r(H - H.T, 5))
out = functional_call(model, (params, {}), (x,), strict=True)
print(out.shape)
show(lambda: functional_call(model, {'0.weight': torch.zeros(4, 3), 'bad': torch.zeros(1)}, (x,), strict=True))
#%% func transforms misc
from torch.func import vmap, grad_and_value, vjp, jvp, stack_module_state
f = lambda t: (t ** 3).sum()
gv = grad_and_value(f)(torch.tensor([1., 2.]))
print(gv)
out, fn = vjp(lambda t: t.sin(), torch.tensor([0., 1.]))
print(r(out), r(fn(torch.ones(2))[0]))
print(jvp(lambda t: t * 2, (torch.tensor([1., 2.]),), (torch.tensor([1., 0.]),)))
print(vmap(torch.dot)(torch.ones(3, 2), torch.arange(6.).reshape(3, 2)))
print(vmap(lambda a, b: a * b, in_dims=(0, None))(torch.arange(3.), torch.tensor(2.)))
print(vmap(lambda t: t.sum(0), in_dims=1, out_dims=0)(torch.arange(6.).reshape(2, 3)))
show(lambda: vmap(lambda t: t, in_dims=0)(torch.tensor(1.)))
show(lambda: vmap(lambda a, b: a + b)(torch.ones(2), torch.ones(3)))
show(lambda: vmap(lambda t: t.item())(torch.ones(2)))
show(lambda: grad(lambda t: t * 2)(torch.ones(2)))
print(vmap(lambda t: torch.where(t > 0, t, 0.))(torch.tensor([[-1., 2.], [3., -4.]])))
models = [nn.Linear(2, 1) for _ in range(3)]
p, b = stack_module_state(models)
print(sorted(p), p['weight'].shape)
print(vmap(lambda t: t.new_zeros(2))(torch.ones(3, 1)).shape, vmap(torch.randn_like, randomness='different')(torch.ones(3, 2)).shape)
show(lambda: vmap(lambda t: torch.randn(2))(torch.ones(3)))
m3 = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1), nn.BatchNorm1d(1))
show(lambda: functional_call(m3, {'3.weight': torch.zeros(1), 'zz': 1, 'aa': 2, '0.weight': torch.zeros(4, 3)}, (torch.ones(2, 3),), strict=True))
