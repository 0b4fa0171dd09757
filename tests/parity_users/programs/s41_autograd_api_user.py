import torch
#%% autograd.grad with create_graph and allow_unused
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = (x ** 3).sum()
g, = torch.autograd.grad(z, x, create_graph=True)
print(g, g.grad_fn is not None)
g2, = torch.autograd.grad(g.sum(), x)
print(g2)
try:
    torch.autograd.grad((x * 2).sum(), [x, y])
except RuntimeError as e:
    print(e)
print(torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True), torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True, materialize_grads=True))
#%% backward twice, retain_graph, grad accumulation
w = torch.ones(2, requires_grad=True)
loss = (w * w).sum()
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)
loss2 = (w * 3).sum()
loss2.backward()
try:
    loss2.backward()
except RuntimeError as e:
    print(str(e)[:150])
w.grad = None
(w ** 2).sum().backward()
print(w.grad, w.is_leaf, (w * 2).is_leaf, w.detach().requires_grad)
#%% non-scalar backward needs gradient
v = torch.ones(3, requires_grad=True)
out = v * 2
try:
    out.backward()
except RuntimeError as e:
    print(e)
out.backward(torch.tensor([1.0, 0.5, 0.0]))
print(v.grad)
try:
    out.backward(torch.ones(2))
except RuntimeError as e:
    print(e)
#%% hooks and retain_grad
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
b.retain_grad()
b.register_hook(lambda g: print("hook", g))
(b ** 2).sum().backward()
print(a.grad, b.grad)
c = a * 2
print(c.grad)
