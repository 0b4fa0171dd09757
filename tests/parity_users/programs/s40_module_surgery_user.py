import torch
import torch.nn as nn
#%% replace a layer, freeze a backbone, count trainable parameters
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
net[4] = nn.Linear(8, 2)
for name, p in net.named_parameters():
    if name.startswith("0."):
        p.requires_grad_(False)
print(sum(p.numel() for p in net.parameters() if p.requires_grad), sum(p.numel() for p in net.parameters()))
print([n for n, p in net.named_parameters() if p.requires_grad])
print(net(torch.randn(2, 3, 8, 8)).shape)
#%% named_modules, get_submodule, set via setattr, delete
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.GELU()
        self.register_buffer("scale", torch.ones(1))
    def forward(self, x):
        return self.act(self.fc(x)) * self.scale
m = nn.Sequential(Block(), Block())
print([n for n, _ in m.named_modules()])
print(m.get_submodule("1.fc"), m.get_parameter("0.fc.bias").shape, m.get_buffer("1.scale"))
setattr(m[0], "act", nn.Identity())
del m[1].act
print(m)
try:
    m(torch.ones(1, 4))
except AttributeError as e:
    print(str(e))
#%% add_module, apply an init, children vs modules, named_buffers
m = nn.Sequential()
m.add_module("a", nn.Linear(2, 2))
m.add_module("b", nn.BatchNorm1d(2))
m.apply(lambda mod: nn.init.constant_(mod.weight, 0.5) if isinstance(mod, nn.Linear) else None)
print(m.a.weight, len(list(m.children())), len(list(m.modules())), [n for n, _ in m.named_buffers()])
try:
    m.add_module("a.b", nn.ReLU())
except KeyError as e:
    print("KeyError", e)
try:
    m.add_module("c", "not a module")
except TypeError as e:
    print("TypeError", e)
#%% swap a parameter for a buffer, to(dtype), half and train/eval flags
lin = nn.Linear(2, 2)
w = lin.weight
del lin.weight
lin.register_buffer("weight", w.detach().clone())
print([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5)).double()
print(m[0].weight.dtype, m.training, m.eval().training, m[1].training, m.train(True)[1].training)
print(m.to(torch.float16)[0].bias.dtype, m.requires_grad_(False)[0].weight.requires_grad)
