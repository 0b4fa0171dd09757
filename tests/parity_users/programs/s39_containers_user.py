import torch
import torch.nn as nn
from collections import OrderedDict
#%% Sequential slicing, insert, append, pop, del
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 4), nn.Sigmoid())
print(s[1:3], s[-1], len(s), s[::2])
s.append(nn.Dropout(0.1))
s.insert(1, nn.BatchNorm1d(3))
print(s)
print(s.pop(1), len(s))
del s[0]
print(s, list(s.state_dict().keys()))
try:
    s[10]
except Exception as e:
    print(type(e).__name__, e)
try:
    s["a"]
except Exception as e:
    print(type(e).__name__, e)
s2 = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 1)), ("act", nn.Tanh())]))
print(s2.fc, s2[0] is s2.fc, list(s2.state_dict().keys()), s2 + nn.Sequential(nn.ReLU()))
s2.extend([nn.ReLU(), nn.ReLU()])
print(len(s2), [n for n, _ in s2.named_children()])
try:
    nn.Sequential(nn.Linear(1, 1), "relu")
except Exception as e:
    print(type(e).__name__, e)
#%% ModuleList / ModuleDict / ParameterList / ParameterDict
ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
print(ml[1:], ml[-1], len(ml))
ml.extend([nn.ReLU()])
ml.insert(0, nn.Tanh())
print(ml)
try:
    ml.append(3)
except Exception as e:
    print(type(e).__name__, e)
try:
    ml(torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(2, 2)})
print(md, list(md.keys()), "a" in md, md.pop("b"), len(md))
md.update([("z", nn.Tanh())])
print(list(md.keys()))
try:
    md["nope"]
except Exception as e:
    print(type(e).__name__, e)
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(3, dtype=torch.float64))])
print(pl)
pl.append(torch.ones(1))
print(type(pl[2]).__name__, pl[2].requires_grad, len(list(pl.parameters())))
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2, 2)), "s": torch.zeros(1)})
print(pd, sorted(pd.keys()))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
        self.heads = nn.ModuleDict({"x": nn.Linear(2, 1)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1))])
print(list(Net().state_dict().keys()))
print(Net())
#%% parameters_to_vector, clip_grad_value_, vector_to_parameters
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
v = nn.utils.parameters_to_vector(m.parameters())
print(v.shape, v.requires_grad, v.grad_fn is not None)
nn.utils.vector_to_parameters(torch.arange(9.), m.parameters())
print(m[0].weight, m[1].bias)
m(torch.ones(3, 2)).sum().backward()
nn.utils.clip_grad_value_(m.parameters(), 1.0)
print(m[0].weight.grad, m[1].weight.grad)
print(nn.utils.clip_grad_norm_(m.parameters(), 0.1, norm_type="inf"), nn.utils.get_total_norm([p.grad for p in m.parameters()]))
try:
    nn.utils.vector_to_parameters(torch.ones(3), m.parameters())
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.utils.parameters_to_vector(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
