import torch
import torch.nn as nn
#%% train/eval, requires_grad_, zero_grad, apply
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 1))
print(net.training, net.eval().training, net[1].training, net.train().training)
net.requires_grad_(False)
print([p.requires_grad for p in net.parameters()])
net.requires_grad_(True)
def init(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.5)
        nn.init.zeros_(m.bias)
net.apply(init)
print(net(torch.ones(2, 3)), net[0].weight)
#%% register_buffer, parameters counting, get_submodule
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("tmp", torch.ones(1), persistent=False)
        self.inner = nn.Sequential(nn.Linear(2, 2))
m = M()
print(list(m.state_dict().keys()), [n for n, _ in m.named_buffers()], m.get_submodule("inner.0"), m.get_parameter("inner.0.bias").shape)
try:
    m.get_submodule("nope")
except AttributeError as e:
    print(e)
try:
    m.register_buffer("inner", torch.ones(1))
except KeyError as e:
    print("KeyError", e)
try:
    m.undefined_attribute
except AttributeError as e:
    print(e)
#%% to(dtype), half, double and parameter dtypes
lin = nn.Linear(2, 2).double()
print(lin.weight.dtype, lin.to(torch.float16).bias.dtype, lin.float().weight.dtype, next(lin.parameters()).device)
