import math
import torch
import torch.nn as nn
#%% initializers with a seed and their statistics
torch.manual_seed(0)
w = torch.empty(256, 128)
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
print(f"{w.abs().max().item():.4f}", nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
nn.init.xavier_normal_(w, gain=2.0)
print(f"{w.std().item():.2f}")
nn.init.orthogonal_(w[:16, :16])
print(torch.allclose(w[:16, :16] @ w[:16, :16].T, torch.eye(16), atol=1e-5))
print(nn.init.trunc_normal_(torch.empty(1000), std=0.02, a=-0.04, b=0.04).abs().max() <= 0.04, nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3))[0])
try:
    nn.init.xavier_uniform_(torch.empty(3))
except ValueError as e:
    print(str(e))
try:
    nn.init.calculate_gain("foo")
except ValueError as e:
    print(str(e))
#%% named_parameters filtering for weight decay groups
model = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4), nn.Linear(4, 2))
decay = [n for n, p in model.named_parameters() if p.ndim >= 2]
no_decay = [n for n, p in model.named_parameters() if p.ndim < 2]
print(decay, no_decay)
opt = torch.optim.AdamW([{"params": [p for n, p in model.named_parameters() if n in decay], "weight_decay": 0.1},
                         {"params": [p for n, p in model.named_parameters() if n in no_decay], "weight_decay": 0.0}], lr=1e-3)
print([len(g["params"]) for g in opt.param_groups], opt.defaults["betas"], opt)
try:
    torch.optim.SGD([{"params": model[0].weight}, {"params": model[0].weight}], lr=0.1)
except ValueError as e:
    print(str(e))
#%% reset_parameters and copying weights between modules
torch.manual_seed(1)
a, b = nn.Linear(3, 3), nn.Linear(3, 3)
with torch.no_grad():
    b.weight.copy_(a.weight)
    b.bias.fill_(0.5)
print(torch.equal(a.weight, b.weight), b.bias)
b.reset_parameters()
print(torch.equal(a.weight, b.weight), b.weight.requires_grad, a.weight.is_leaf)
