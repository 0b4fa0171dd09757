import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap


def r(t, n=4):
    if isinstance(t, torch.Tensor):
        return t.detach().round(decimals=n).tolist()
    return round(float(t), n)


def sine_task(seed, n=10):
    g = torch.Generator().manual_seed(seed)
    amp = torch.rand(1, generator=g) * 4 + 0.1
    phase = torch.rand(1, generator=g) * 3.14
    x = torch.rand(n, 1, generator=g) * 10 - 5
    return x, amp * torch.sin(x + phase)

#%% MAML with create_graph: inner SGD steps on a support set, outer loss on a query set
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 1))
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for it in range(4):
    meta_opt.zero_grad()
    total = 0.0
    for task in range(3):
        xs, ys = sine_task(10 * it + task)
        xq, yq = sine_task(100 + 10 * it + task)
        params = dict(net.named_parameters())
        for _ in range(2):
            loss = F.mse_loss(functional_call(net, params, (xs,)), ys)
            grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
            params = {k: v - 0.01 * g for (k, v), g in zip(params.items(), grads)}
        q = F.mse_loss(functional_call(net, params, (xq,)), yq)
        q.backward()
        total += q.item()
    meta_opt.step()
    print(it, r(total / 3))
print(r(net[0].weight.grad[:3, 0]))

#%% per-example gradients with vmap(grad(...)) and their norms (DP-SGD style clipping)
torch.manual_seed(1)
model = nn.Linear(3, 2)
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(5, 3)
y = torch.tensor([0, 1, 1, 0, 1])


def loss_one(p, xi, yi):
    out = functional_call(model, p, (xi[None],))
    return F.cross_entropy(out, yi[None])


per = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, x, y)
norms = torch.sqrt(sum(g.flatten(1).pow(2).sum(1) for g in per.values()))
scale = (1.0 / norms).clamp(max=1.0)
clipped = {k: (g * scale.view(-1, *[1] * (g.dim() - 1))).mean(0) for k, g in per.items()}
full = torch.autograd.grad(F.cross_entropy(model(x), y), list(model.parameters()))
print({k: tuple(v.shape) for k, v in per.items()}, r(norms))
print(r(clipped["weight"]), r(per["bias"].mean(0) - full[1]))

#%% an ensemble of models evaluated at once with stack_module_state
from torch.func import stack_module_state

torch.manual_seed(2)
models = [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)) for _ in range(3)]
params, buffers = stack_module_state(models)
base = models[0]
x = torch.randn(6, 4)


def f(p, b, xx):
    return functional_call(base, (p, b), (xx,))


out = vmap(f, in_dims=(0, 0, None))(params, buffers, x)
loop = torch.stack([m(x) for m in models])
print(out.shape, r((out - loop).abs().max(), 6), sorted(params)[:2], params["0.weight"].requires_grad)

#%% hessian-vector products and jacobians of a small network
from torch.func import hessian, jacrev, jvp, vjp

torch.manual_seed(3)
w = torch.randn(3)


def f(v):
    return (torch.tanh(v * w).sum() ** 2)


v = torch.randn(3)
print(r(hessian(f)(v)), r(jacrev(f)(v)))
_, hvp = jvp(grad(f), (v,), (torch.ones(3),))
_, back = vjp(lambda z: torch.sin(z) * w, v)
print(r(hvp), r(back(torch.ones(3))[0]))
