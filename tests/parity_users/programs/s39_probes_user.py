import torch
import torch.nn as nn
import collections
import copy
from torch.utils.data import (WeightedRandomSampler, RandomSampler, random_split, DataLoader,
                              ConcatDataset, IterableDataset, default_collate)
#%% strict=False keys, prefixes, get_submodule
m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
r = m.load_state_dict({"0.weight": torch.zeros(3, 2), "extra": torch.ones(1)}, strict=False)
print(sorted(r.missing_keys), r.unexpected_keys)
print(r)
print([n for n, _ in m.named_parameters(prefix="net", recurse=True)])
try:
    m.get_submodule("5")
except Exception as e:
    print(type(e).__name__, e)
#%% samplers with generators
g = torch.Generator().manual_seed(0)
print(list(WeightedRandomSampler([0.1, 0.5, 0.4], 6, generator=g)))
g = torch.Generator().manual_seed(1)
print(list(RandomSampler(range(5), replacement=True, num_samples=7, generator=g)))
a, b = random_split(range(10), [0.3, 0.7], generator=torch.Generator().manual_seed(2))
print(list(a), list(b))
#%% collate namedtuple and dict
P = collections.namedtuple("P", "x y")
print(default_collate([P(torch.tensor([1., 2]), 3), P(torch.tensor([3., 4]), 5)]))
print(default_collate([{"a": "s1", "b": (1, 2.0)}, {"a": "s2", "b": (3, 4.0)}]))
#%% concat of iterable
class It(IterableDataset):
    def __iter__(self):
        return iter(range(3))
try:
    len(ConcatDataset([It()]))
except Exception as e:
    print(type(e).__name__, e)
#%% warm restarts, clip_grad_norm_, autocast
m = nn.Linear(3, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
for i in range(5):
    opt.step()
    s.step()
    print(s.get_last_lr())
m(torch.ones(1, 3)).sum().backward()
print(torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5, foreach=True))
m.weight.grad[0, 0] = float("nan")
try:
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print(m(torch.ones(1, 3)).dtype)
#%% shared submodule, hooks, deepcopy
class B(nn.Module):
    def __init__(s):
        super().__init__()
        s.l = nn.Linear(2, 2)
        s.sh = s.l
    def extra_repr(s):
        return "tag=1"
b = B()
print(b)
print([n for n, _ in b.named_modules()], [n for n, _ in b.named_modules(remove_duplicate=False)])
print([n for n, _ in b.named_parameters(remove_duplicate=False)])
print(list(b.state_dict().keys()))
b.register_load_state_dict_post_hook(lambda mod, inc: print("post", inc))
print(b.load_state_dict(b.state_dict(), strict=False))
c = copy.deepcopy(b)
print(c.sh is c.l, c.training)
b.eval()
print(b.l.training)
b.zero_grad()
print(b.l.weight.grad)
try:
    b.get_parameter("l.nope")
except Exception as e:
    print(type(e).__name__, e)
try:
    b.get_parameter("x.weight")
except Exception as e:
    print(type(e).__name__, e)
try:
    b.get_buffer("l.weight")
except Exception as e:
    print(type(e).__name__, e)
