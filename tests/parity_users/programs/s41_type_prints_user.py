import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
opt = torch.optim.Adam(model.parameters())
#%% a library's own metaclass on Module, Dataset and Distribution subclasses (pyro's pattern)
import abc
class Meta(type):
    def __call__(cls, *args, **kwargs):
        obj = super().__call__(*args, **kwargs)
        obj.made_by_meta = True
        return obj
class PM(nn.Module, metaclass=Meta):
    def forward(self, x):
        return x * 2
class DS(torch.utils.data.Dataset, metaclass=Meta):
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return i
class AbcMeta(abc.ABCMeta):
    pass
class Dist(torch.distributions.Normal, metaclass=AbcMeta):
    pass
print(PM()(torch.ones(2)), PM().made_by_meta, len(DS()), DS().made_by_meta, type(PM).__name__)
print(Dist(0., 1.).log_prob(torch.tensor(0.5)), type(Dist).__name__)
#%% isinstance checks and class names
print(isinstance(model[0], nn.Conv2d), isinstance(model, nn.Module), type(model[0]).__name__, type(model).__mro__[1].__name__, [b.__name__ for b in nn.Linear.__bases__])
print([type(m).__name__ for m in model.children()], type(model[2]).__qualname__, f"{type(opt).__name__}")
