import torch


def leaf():
    return torch.ones(2, requires_grad=True) * 1
#%% fill_, zero_, copy_ and clamp_min_/clamp_max_ node names
print(leaf().fill_(2).grad_fn.name(), leaf().fill_(torch.tensor(2.)).grad_fn.name())
print(leaf().zero_(), leaf().copy_(torch.tensor([3., 4.])))
print(leaf().clamp_min_(1).grad_fn.name(), leaf().clamp_max_(1).grad_fn.name())
print(leaf().clamp_min_(torch.tensor(1.)).grad_fn.name(), leaf().clamp_max_(torch.tensor(1.)).grad_fn.name())
x = leaf()
x[0].fill_(1)
print(x.grad_fn.name())
#%% gradients through them
w = torch.ones(2, requires_grad=True)
x = leaf()
x.copy_(w * 3)
(x * torch.tensor([2., 5.])).sum().backward()
print(w.grad)
v = torch.tensor([0.5, 2.], requires_grad=True)
y = v * 1
y.clamp_min_(1).clamp_max_(1.5)
y.sum().backward()
print(v.grad, y)
z = torch.zeros(3)
z.zero_()
z.fill_(2)
print(z, z.grad_fn)
