import torch
from torch.func import vmap, grad, jacrev, functional_call
#%% per-sample gradients with functional_call + vmap(grad)
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
def loss_fn(p, x, y):
    out = functional_call(model, p, (x.unsqueeze(0),))
    return ((out.squeeze() - y) ** 2)
xs, ys = torch.randn(4, 3), torch.randn(4)
g = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
print({k: v.shape for k, v in g.items()})
full = torch.autograd.grad(sum(loss_fn(params | {k: v.requires_grad_() for k, v in params.items()}, xs[i], ys[i]) for i in range(4)), list(params.values()))
print(torch.allclose(g["weight"].sum(0), full[0], atol=1e-6))
#%% vmap over dims, jacrev, errors
print(vmap(torch.dot)(torch.ones(2, 3), torch.arange(6.).view(2, 3)), vmap(lambda t: t.sum(), in_dims=1)(torch.ones(2, 5)).shape)
print(jacrev(lambda t: t.sin())(torch.zeros(2)), vmap(lambda a, b: a * b, in_dims=(0, None))(torch.arange(3.), torch.tensor(2.0)))
try:
    vmap(lambda t: t)(torch.ones(2), )
    vmap(torch.add)(torch.ones(2), torch.ones(3))
except ValueError as e:
    print(str(e)[:200])
try:
    grad(lambda t: t * 2)(torch.ones(2))
except RuntimeError as e:
    print(str(e)[:200])
