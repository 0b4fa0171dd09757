import torch
#%% hooks that modify gradients and their order
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
h1 = y.register_hook(lambda g: g * 10)
h2 = y.register_hook(lambda g: print("second sees", g))
x.register_hook(lambda g: print("leaf hook", g))
y.sum().backward()
print(x.grad)
h1.remove()
x.grad = None
(x * 2).sum().backward()
print(x.grad)
#%% retain_grad on non-leaf used twice
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x ** 2
y.retain_grad()
z = (y * y).sum() + y.sum()
z.backward()
print(y.grad, x.grad, y.is_leaf, y.retains_grad, x.retains_grad)
#%% grad of non-leaf warns
x = torch.tensor([1.0], requires_grad=True)
y = x * 3
y.backward()
print(y.grad)
#%% create_graph higher order
x = torch.tensor(2.0, requires_grad=True)
y = x ** 4
(g,) = torch.autograd.grad(y, x, create_graph=True)
(g2,) = torch.autograd.grad(g, x, create_graph=True)
(g3,) = torch.autograd.grad(g2, x)
print(g, g2, g3, g.grad_fn is not None, g3.requires_grad)
#%% backward with create_graph accumulates graph grads
x = torch.tensor([1.0, 3.0], requires_grad=True)
(x ** 3).sum().backward(create_graph=True)
print(x.grad, x.grad.requires_grad)
x.grad.sum().backward()
print(x.grad)
#%% grad with allow_unused and materialize_grads
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
out = a * 3
print(torch.autograd.grad(out, (a, b), allow_unused=True, retain_graph=True))
print(torch.autograd.grad(out, (a, b), materialize_grads=True, retain_graph=True))
try:
    torch.autograd.grad(out, (a, b))
except RuntimeError as e:
    print(type(e).__name__, e)
#%% grad_outputs and non scalar
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
print(torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.1, 0.01])))
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    y.backward(torch.ones(2))
except RuntimeError as e:
    print(type(e).__name__, e)
#%% backward inputs argument
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
(a * b).backward(inputs=[a])
print(a.grad, b.grad)
torch.autograd.backward([(a * b), (a + b)], grad_tensors=[torch.tensor(2.0), torch.tensor(1.0)], inputs=[b])
print(a.grad, b.grad)
#%% custom function save_for_backward and needs_input_grad
class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return x * w * scale

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return g * w * ctx.scale if ctx.needs_input_grad[0] else None, g * x * ctx.scale, None

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0])
w.requires_grad_()
y = MulAdd.apply(x, w, 0.5)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad, w.grad)
y2 = MulAdd.apply(x.detach(), w, 2.0)
y2.sum().backward()
print(w.grad)
#%% custom function mark_dirty
class AddOneInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
c = AddOneInplace.apply(b)
print(c is b, c, c.grad_fn.__class__.__name__, b._version)
c.sum().backward()
print(a.grad)
#%% custom function inplace without mark_dirty on leaf
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.mul_(2)

    @staticmethod
    def backward(ctx, g):
        return g

a = torch.tensor([1.0], requires_grad=True)
try:
    Bad.apply(a)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% custom function returning input and non differentiable
class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return x.max(), idx

    @staticmethod
    def backward(ctx, g, gi):
        (idx,) = ctx.saved_tensors
        out = torch.zeros(3)
        out[idx] = g
        print("gi", gi)
        return out

x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
m, i = Split.apply(x)
print(m, i, i.requires_grad)
m.backward()
print(x.grad)
#%% set_materialize_grads false
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return (g1 if g1 is not None else 0) + (g2 if g2 is not None else 0)

x = torch.tensor([1.0], requires_grad=True)
a, b = Two.apply(x)
a.sum().backward()
print(x.grad)
#%% function with wrong grad shape
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)

x = torch.ones(3, requires_grad=True)
try:
    Wrong.apply(x).backward()
except RuntimeError as e:
    print(type(e).__name__, e)
#%% no_grad inference_mode and decorators
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn)
@torch.no_grad()
def f(t):
    return t * 2
print(f(x).requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    z = x * 2
print(z.requires_grad, z.is_inference(), torch.is_inference_mode_enabled())
try:
    (z * x).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
torch.set_grad_enabled(True)
print((x * 2).requires_grad)
#%% inference tensor inplace outside
with torch.inference_mode():
    t = torch.ones(2)
try:
    t.add_(1)
except RuntimeError as e:
    print(type(e).__name__, e)
print(t.clone().add_(1), t.is_inference())
#%% detach and detach_
x = torch.ones(3, requires_grad=True)
y = x * 2
d = y.detach()
d[0] = 10
print(y, d.requires_grad, d._version == y._version)
v = y[:2]
try:
    v.detach_()
except RuntimeError as e:
    print(type(e).__name__, e)
y.detach_()
print(y.requires_grad, y.grad_fn, y.is_leaf)
#%% inplace on leaf that requires grad
w = torch.ones(2, requires_grad=True)
for f in (lambda: w.add_(1), lambda: w.zero_(), lambda: w.__setitem__(0, 5.0), lambda: w.resize_(3)):
    try:
        f()
    except RuntimeError as e:
        print(type(e).__name__, e)
with torch.no_grad():
    w.add_(1)
print(w, w.requires_grad, w.is_leaf)
#%% backward twice
x = torch.tensor([2.0], requires_grad=True)
y = (x.exp() * x).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
#%% modify saved tensor error
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.sigmoid()
z = y * 2
y.mul_(2)
try:
    z.sum().backward()
    print("ok", x.grad)
except RuntimeError as e:
    print(type(e).__name__, e)
x.grad = None
a = x.exp()
a.add_(1)
try:
    a.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
#%% requires_grad on non-leaf and int tensors
x = torch.ones(2, requires_grad=True)
y = x * 2
try:
    y.requires_grad_(False)
except RuntimeError as e:
    print(type(e).__name__, e)
for f in (lambda: torch.tensor([1, 2], requires_grad=True), lambda: torch.ones(2, dtype=torch.long).requires_grad_()):
    try:
        f()
    except RuntimeError as e:
        print(type(e).__name__, e)
print(torch.ones(2, dtype=torch.complex64, requires_grad=True).requires_grad)
#%% backward on tensor without grad
x = torch.ones(2)
try:
    x.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(x.sum(), x)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% grad accumulation and zeroing
w = torch.tensor([1.0, 2.0], requires_grad=True)
for _ in range(3):
    (w * w).sum().backward()
print(w.grad)
w.grad.zero_()
(w * 3).sum().backward()
print(w.grad)
w.grad = None
print(w.grad)
#%% grad_fn next_functions and names
x = torch.ones(2, requires_grad=True)
y = (x * 2 + 1).relu().sum()
fn = y.grad_fn
names = []
while fn is not None:
    names.append(type(fn).__name__)
    fn = fn.next_functions[0][0] if fn.next_functions else None
print(names)
print(((x @ x) / 2).grad_fn.name(), x.view(2, 1).grad_fn.name(), x[0].grad_fn.name(), x.t().grad_fn if x.dim() < 2 else None)
#%% grad_fn hooks
x = torch.ones(2, requires_grad=True)
y = x * 3
y.grad_fn.register_hook(lambda gi, go: print("fn hook", gi, go))
y.grad_fn.register_prehook(lambda go: print("pre hook", go))
y.sum().backward()
#%% post accumulate grad hook
w = torch.ones(2, requires_grad=True)
w.register_post_accumulate_grad_hook(lambda p: print("acc", p.grad))
(w * 5).sum().backward()
(w * 5).sum().backward()
#%% jacobian hessian functional
f = lambda x: (x ** 3).sum()
x = torch.tensor([1.0, 2.0])
print(torch.autograd.functional.jacobian(lambda x: x ** 2, x), torch.autograd.functional.hessian(f, x))
print(torch.autograd.functional.vjp(lambda x: x ** 2, x, torch.ones(2)), torch.autograd.functional.jvp(lambda x: x ** 2, x, torch.ones(2)))
#%% gradient through views and inplace
x = torch.ones(4, requires_grad=True)
y = x.clone()
v = y.view(2, 2)
v[0].mul_(3)
v[:, 1].add_(torch.tensor([1.0, 2.0]))
y.sum().backward()
print(y, x.grad, v.grad_fn.name())
#%% nan in gradients and anomaly mode
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.sqrt().sum()
y.backward()
print(x.grad)
x.grad = None
(x * 0).pow(0).sum().backward()
print(x.grad)
x.grad = None
torch.abs(x - 1).sum().backward()
print(x.grad, torch.autograd.grad(torch.tensor([0.0, 1.0], requires_grad=True).norm(), torch.tensor([0.0], requires_grad=True), allow_unused=True))
#%% checkpoint preserves rng and grads
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
lin = torch.nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
def block(t):
    return torch.nn.functional.dropout(lin(t).relu(), 0.5, training=True)
torch.manual_seed(1)
out = checkpoint(block, x, use_reentrant=False)
out.sum().backward()
g1 = x.grad.clone()
x.grad = None
torch.manual_seed(1)
block(x).sum().backward()
print(torch.equal(g1, x.grad), out.shape)
