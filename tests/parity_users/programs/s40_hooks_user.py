import torch
import torch.nn as nn
#%% forward pre-hook that edits input, forward hook that edits output
torch.manual_seed(0)
lin = nn.Linear(2, 2)
h1 = lin.register_forward_pre_hook(lambda m, inp: (inp[0] * 0,))
h2 = lin.register_forward_hook(lambda m, inp, out: out + 1)
print(lin(torch.ones(1, 2)) - lin.bias - 1)
h1.remove(); h2.remove()
print(len(lin._forward_pre_hooks), len(lin._forward_hooks))
#%% tensor hooks modifying grads and retain_grad
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g * 10)
z = (y ** 2).sum()
z.backward()
print(x.grad, y.grad)
#%% full backward hook on a module
torch.manual_seed(0)
seen = []
m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
m[0].register_full_backward_hook(lambda mod, gin, gout: seen.append((tuple(g.shape if g is not None else None for g in gin), tuple(g.shape for g in gout))))
m(torch.randn(4, 3, requires_grad=True)).sum().backward()
print(seen)
#%% hook with kwargs and always_call, prepend
calls = []
lin = nn.Linear(2, 2)
lin.register_forward_hook(lambda m, a, kw, out: calls.append(("kw", sorted(kw))), with_kwargs=True)
lin.register_forward_hook(lambda m, a, out: calls.append("first"), prepend=True)
lin(torch.ones(1, 2))
print(calls)
#%% accumulate-grad hook on a parameter
p = nn.Parameter(torch.ones(2))
got = []
p.register_post_accumulate_grad_hook(lambda t: got.append(t.grad.clone()))
(p * 2).sum().backward()
(p * 3).sum().backward()
print(got, p.grad)
