import torch
import torch.nn as nn
#%% printing types of modules, optimizers and loaders
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(3) if False else nn.Linear(8, 3))
for m in model.modules():
    print(type(m))
print(torch.optim.SGD, torch.optim.AdamW, torch.optim.lr_scheduler.OneCycleLR, torch.utils.data.DataLoader, torch.utils.data.TensorDataset)
opt = torch.optim.Adam(model.parameters())
print(type(opt), type(torch.optim.lr_scheduler.StepLR(opt, 1)), type(torch.distributions.Categorical(logits=torch.zeros(3))))
#%% isinstance checks and class names
print(isinstance(model[0], nn.Conv2d), isinstance(model, nn.Module), type(model[0]).__name__, type(model).__mro__[1], nn.Linear.__bases__)
print([type(m).__name__ for m in model.children()], str(type(model[2])), f"{type(opt)}")
