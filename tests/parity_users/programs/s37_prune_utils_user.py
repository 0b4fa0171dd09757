import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
import torch.nn.utils.prune as prune
from torch.nn.utils import parameters_to_vector, vector_to_parameters, clip_grad_norm_, clip_grad_value_
#%% pruning a model
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
prune.l1_unstructured(m[0], 'weight', amount=0.5)
print(sorted(n for n, _ in m[0].named_parameters()), sorted(n for n, _ in m[0].named_buffers()), int(m[0].weight_mask.sum()))
prune.random_unstructured(m[2], 'weight', amount=2)
print(int(m[2].weight_mask.sum()), r(m[2].weight))
prune.ln_structured(m[0], 'weight', amount=1, n=2, dim=0)
print(m[0].weight_mask, type(m[0]._forward_pre_hooks[list(m[0]._forward_pre_hooks)[0]]).__name__)
prune.remove(m[0], 'weight')
print(sorted(n for n, _ in m[0].named_parameters()), r(m[0].weight))
prune.global_unstructured([(m[0], 'weight'), (m[2], 'bias')], pruning_method=prune.L1Unstructured, amount=0.4)
print(int(m[0].weight_mask.sum()), m[2].bias_mask)
show(lambda: prune.l1_unstructured(m[0], 'weight', amount=1.5))
show(lambda: prune.l1_unstructured(m[0], 'nope', amount=0.1))
print(prune.is_pruned(m), prune.is_pruned(nn.Linear(1, 1)))
#%% vectors and clipping in a loop
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
v = parameters_to_vector(net.parameters())
print(v.shape, r(v[:4]))
vector_to_parameters(torch.arange(float(v.numel())) / 100, net.parameters())
print(r(net[2].bias), r(net[0].weight[1]))
show(lambda: vector_to_parameters(torch.ones(3), net.parameters()))
show(lambda: parameters_to_vector(torch.ones(3)))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
norms = []
for i in range(3):
    loss = net(torch.ones(2, 3) * (i + 1)).pow(2).sum()
    opt.zero_grad(); loss.backward()
    norms.append(round(float(clip_grad_norm_(net.parameters(), max_norm=0.5)), 4))
    clip_grad_value_(net.parameters(), 0.05)
    opt.step()
print(norms, r(net[2].weight))
print(r(clip_grad_norm_(net.parameters(), 1.0, foreach=True)), r(clip_grad_norm_([p for p in net.parameters()], 1.0, norm_type=0.5)))
