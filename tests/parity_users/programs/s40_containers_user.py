import torch
import torch.nn as nn
#%% ModuleList, ModuleDict, ParameterDict manipulation
layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
layers.append(nn.ReLU())
layers.insert(0, nn.Identity())
layers.extend([nn.Tanh()])
print(len(layers), type(layers[1:3]).__name__, [type(l).__name__ for l in layers])
del layers[0]
print(len(layers), layers[-1])
md = nn.ModuleDict({"enc": nn.Linear(2, 3)})
md["dec"] = nn.Linear(3, 2)
md.update({"act": nn.ReLU()})
print(list(md.keys()), "enc" in md, md.pop("act"), len(md))
pd = nn.ParameterDict({"a": nn.Parameter(torch.ones(1)), "b": torch.zeros(2)})
print(type(pd["b"]).__name__, pd["b"].requires_grad, sorted(pd.keys()), pd)
#%% Sequential slicing, indexing, append and OrderedDict naming
from collections import OrderedDict
s = nn.Sequential(OrderedDict([("fc1", nn.Linear(2, 4)), ("act", nn.ReLU()), ("fc2", nn.Linear(4, 1))]))
print(s.fc1, s[-1], s[:2], len(s))
s.append(nn.Sigmoid())
print([n for n, _ in s.named_children()], s[1:][0])
try:
    s[10]
except IndexError as e:
    print(str(e))
try:
    nn.ModuleList([1, 2])
except TypeError as e:
    print(str(e))
#%% ParameterList and parameters() counting duplicates
shared = nn.Linear(2, 2)
model = nn.Sequential(shared, nn.ReLU(), shared)
print(len(list(model.parameters())), len(list(model.named_parameters(remove_duplicate=False))), len(list(model.modules())))
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3)])
pl.append(nn.Parameter(torch.eye(2)))
print(len(pl), [p.shape for p in pl], pl)
