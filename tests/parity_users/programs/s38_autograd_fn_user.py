import torch


def show(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% custom Function mistakes
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


class WrongCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)


class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()


class Returns(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable(x)
        return x.clone(), x * 2

    @staticmethod
    def backward(ctx, g1, g2):
        return g2 * 2


x = torch.tensor([1., 2.], requires_grad=True)
y = Square.apply(x)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad)
show(lambda: torch.autograd.gradcheck(Square.apply, (torch.randn(3, dtype=torch.float64, requires_grad=True),)))
show(lambda: WrongCount.apply(x, 3).sum().backward())
show(lambda: WrongShape.apply(torch.ones(2, requires_grad=True)).backward())
show(lambda: NoBackward.apply(torch.ones(2, requires_grad=True)).sum().backward())
show(lambda: Square(x))
show(lambda: Square.forward(None, torch.ones(1)))
a, b = Returns.apply(x)
print(a.requires_grad, b.requires_grad)
show(lambda: Square.apply(torch.ones(2)).requires_grad)
#%% hooks on tensors
x = torch.tensor([1., 2., 3.], requires_grad=True)
h = x.register_hook(lambda g: g * 10)
(x * 2).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x * 2).sum().backward()
print(x.grad)
y = x * 3
y.register_hook(lambda g: print("hook saw", g))
y.sum().backward()
show(lambda: torch.ones(2).register_hook(lambda g: g))
x.grad = None
x.register_post_accumulate_grad_hook(lambda p: print("acc", p.grad))
(x ** 2).sum().backward()
#%% grad accumulation and zero_grad
m = torch.nn.Linear(2, 1)
with torch.no_grad():
    m.weight.fill_(1.0)
    m.bias.fill_(0.0)
for _ in range(3):
    m(torch.ones(1, 2)).sum().backward()
print(m.weight.grad, m.bias.grad)
m.zero_grad()
print(m.weight.grad)
m(torch.ones(1, 2)).sum().backward()
m.zero_grad(set_to_none=False)
print(m.weight.grad)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
opt.zero_grad()
print(m.bias.grad)
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g, x)
print(g, g2)
show(lambda: torch.autograd.grad(g, x))
print(torch.autograd.grad([x * 2, x * 3], [x]))
print(torch.autograd.grad(x * 2, x, grad_outputs=torch.tensor(5.)))
show(lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(2)))
show(lambda: torch.autograd.grad(torch.ones(2, requires_grad=True) * 2, x))
