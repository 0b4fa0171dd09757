import torch

y = torch.arange(1., 4.).requires_grad_() * 1
#%% node names of the scalar overloads and angle conversions
for f in [lambda: y.copysign(-1), lambda: y.copysign(torch.tensor(-1.)), lambda: torch.xlogy(y, 2),
          lambda: torch.xlogy(2, y), lambda: torch.xlogy(y, y), lambda: y.deg2rad(), lambda: y.rad2deg(),
          lambda: (y * 1).deg2rad_(), lambda: (y * 1).rad2deg_(), lambda: (y * 1).copysign_(-1),
          lambda: (y * 1).xlogy_(2)]:
    r = f()
    print(r, r.grad_fn.name())
#%% their gradients
x = torch.tensor([0.5, -2., 3.], requires_grad=True)
(x.copysign(-1) * 2 + torch.xlogy(x.abs(), 2) + torch.xlogy(2, x.abs()) + x.deg2rad()).sum().backward()
print(x.grad)
#%% in-place random fills: node names per overload
y = torch.full((3,), 0.5).requires_grad_() * 1
for f in [lambda: torch.bernoulli(y), lambda: (y * 1).bernoulli_(0.5), lambda: (y * 1).bernoulli_(torch.full((3,), 0.5)),
          lambda: y.bernoulli(), lambda: (y * 1).random_(), lambda: (y * 1).random_(5), lambda: (y * 1).random_(0, 5),
          lambda: (y * 1).random_(to=5), lambda: (y * 1).random_(2, None)]:
    r = f()
    print(r.grad_fn.name(), r.shape)
torch.manual_seed(0)
print(torch.zeros(6).random_(5), torch.zeros(4).random_(3, 9), torch.zeros(5).bernoulli_(0.3))
