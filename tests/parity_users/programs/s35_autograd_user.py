import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% grad options
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3.], requires_grad=True)
z = (x ** 2).sum()
print(torch.autograd.grad(z, [x, y], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(z, [x, y], allow_unused=True, materialize_grads=True, retain_graph=True))
show(lambda: torch.autograd.grad(z, [x, y], retain_graph=True))
show(lambda: torch.autograd.grad(z, [x, y], materialize_grads=True, allow_unused=False))
show(lambda: torch.autograd.grad(x * 2, x))
print(torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(2)))
show(lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3)))
show(lambda: torch.autograd.grad(x.sum(), torch.tensor([1.])))
v = torch.eye(2)
print(torch.autograd.grad(x * torch.tensor([3., 4.]), x, v, is_grads_batched=True))
#%% retain graph and double backward
x = torch.tensor([1., 2.], requires_grad=True)
y = (x.exp() * x).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
show(lambda: y.backward())
x.grad = None
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()
print(x.grad, g.requires_grad, g.grad_fn is not None)
x.grad = None
z = x.sigmoid().sum()
gg, = torch.autograd.grad(z, x, create_graph=True)
h, = torch.autograd.grad(gg.sum(), x)
print(r(h))
#%% backward errors
x = torch.tensor([1., 2.], requires_grad=True)
show(lambda: (x * 2).backward())
show(lambda: torch.tensor([1., 2.]).sum().backward())
show(lambda: torch.tensor([1, 2], requires_grad=True))
show(lambda: torch.tensor([1, 2]).requires_grad_())
show(lambda: x.add_(1))
show(lambda: x.detach().requires_grad_().view(2)[0].mul_(2) and 'ok')
a = torch.tensor([1., 2.], requires_grad=True)
b = a * 2
c = b.sigmoid()
b.add_(1)
show(lambda: c.sum().backward())
a2 = torch.tensor([1., 2.], requires_grad=True)
b2 = a2.exp()
b2.mul_(2)
b2.sum().backward()
print(a2.grad)
show(lambda: x.numpy())
show(lambda: x.detach().resize_(3) and 'ok')
show(lambda: (x * 2).backward(torch.ones(2, 2)))
#%% hooks on tensors and retain_grad
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
y.retain_grad()
h = y.register_hook(lambda g: g * 10)
z = (y ** 2).sum()
z.backward()
print(x.grad, y.grad)
h.remove()
x.register_post_accumulate_grad_hook(lambda p: print('acc', p.grad))
(x * 1).sum().backward()
show(lambda: torch.tensor([1.]).register_hook(lambda g: g))
w = torch.tensor([1., 2.], requires_grad=True)
w.register_hook(lambda g: None)
(w * 2).sum().backward()
print(w.grad)
u = torch.tensor(2., requires_grad=True)
m = u * 1
m.register_hook(lambda g: print('first'))
m.register_hook(lambda g: print('second'))
(m * 3).backward()
print(u.grad)
#%% custom function
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None
x = torch.tensor([1., 2.], requires_grad=True)
y = Cube.apply(x, 2.0)
y.sum().backward()
print(y, x.grad, type(y.grad_fn).__name__)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
show(lambda: Bad.apply(x).sum().backward())
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g[:1]
show(lambda: Wrong.apply(x).sum().backward())
class Mark(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable(x)
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return g
show(lambda: Mark.apply(x).sum().backward())
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.clone()
        return out, out * 2
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + 2 * g2
x.grad = None
a, b = Twice.apply(x)
a.sum().backward()
print(x.grad)
#%% autograd functional
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
f = lambda x: torch.stack([x[0] * x[1], x[0].sin(), x[1] ** 3])
x = torch.tensor([1., 2.])
print(r(jacobian(f, x)), r(jacobian(f, x, vectorize=True, strategy='forward-mode')))
g = lambda a, b: (a * b.exp()).sum()
print(r(hessian(g, (x, x))[0][1]))
print(vjp(f, x, torch.ones(3))[1], jvp(f, x, torch.ones(2))[1], r(hvp(lambda t: (t ** 3).sum(), x, torch.ones(2))[1]), r(vhp(lambda t: (t ** 3).sum(), x, torch.ones(2))[1]))
print(jacobian(lambda t: t.sum(), x, create_graph=True).requires_grad)
show(lambda: vjp(f, x))
show(lambda: jacobian(lambda t: t.detach(), x, strict=True))
print(jacobian(lambda t: torch.zeros(2), x))
#%% no_grad inference mode and set_grad_enabled
x = torch.tensor([1.], requires_grad=True)
with torch.no_grad():
    y = x * 2
print(y.requires_grad, y.grad_fn)
with torch.inference_mode():
    z = x * 2
print(z.requires_grad, z.is_inference(), torch.is_inference_mode_enabled())
show(lambda: z.add_(1) if False else (z * x).sum().backward())
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
torch.set_grad_enabled(True)
@torch.no_grad()
def f(t):
    return t * 2
print(f(x).requires_grad, torch.is_grad_enabled())
with torch.enable_grad():
    with torch.no_grad():
        with torch.enable_grad():
            print((x * 2).requires_grad)
show(lambda: torch.ones(2, requires_grad=True).add_(1))
with torch.no_grad():
    leaf = torch.ones(2, requires_grad=True)
    leaf.add_(1)
print(leaf)
#%% anomaly and checkpoint
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
lin = torch.nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
y.sum().backward()
print(r(x.grad), r(lin.weight.grad[0]))
x.grad = None
y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=True)
y.sum().backward()
print(r(x.grad))
show(lambda: checkpoint(lambda t: t * 2, x))
with torch.autograd.detect_anomaly():
    a = torch.tensor([0.], requires_grad=True)
    show(lambda: (a.sqrt() * 0).sum().backward() or a.grad)
#%% functional strict mode
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
x = torch.tensor([1., 2.])
det = lambda t: t.detach() * 2
sc = lambda t: t.detach().sum()
cst = lambda t: torch.tensor(3.)
for name, f in (('jac', lambda: jacobian(det, x, strict=True)), ('jac_tuple', lambda: jacobian(lambda a, b: (a * 2, b.detach()), (x, x), strict=True)),
                ('jac_vec', lambda: jacobian(det, x, strict=True, vectorize=True)),
                ('vjp', lambda: vjp(det, x, torch.ones(2), strict=True)), ('jvp', lambda: jvp(det, x, torch.ones(2), strict=True)),
                ('hess', lambda: hessian(sc, x, strict=True)), ('hess2', lambda: hessian(lambda t: (t * 2).sum(), x, strict=True)),
                ('hvp', lambda: hvp(sc, x, torch.ones(2), strict=True)), ('vhp', lambda: vhp(sc, x, torch.ones(2), strict=True)),
                ('hvp2', lambda: hvp(lambda t: (t * 2).sum(), x, torch.ones(2), strict=True)), ('vhp2', lambda: vhp(lambda t: (t * 2).sum(), x, torch.ones(2), strict=True)),
                ('jac_indep', lambda: jacobian(lambda a, b: a * 2, (x, x), strict=True)), ('vjp_indep', lambda: vjp(lambda a, b: a * 2, (x, x), torch.ones(2), strict=True)),
                ('jvp_indep', lambda: jvp(lambda a, b: (a * 2, b * 0 + 1), (x, x), (torch.ones(2), torch.ones(2)), strict=True)),
                ('jac_cst', lambda: jacobian(cst, x, strict=True)), ('vjp_ns', lambda: vjp(det, x, torch.ones(2))), ('jvp_lin', lambda: jvp(lambda t: t * 2, x, torch.ones(2), strict=True))):
    try:
        print(name, f())
    except Exception as e:
        print(name, type(e).__name__, e)
for name, f in (('hess_indep', lambda: hessian(lambda a, b: (a ** 3).sum(), (x, x), strict=True)),
                ('vhp_indep', lambda: vhp(lambda a, b: (a ** 3).sum(), (x, x), (x, x), strict=True)),
                ('hvp_indep', lambda: hvp(lambda a, b: (a ** 3).sum(), (x, x), (x, x), strict=True)),
                ('hess_lin2', lambda: hessian(lambda a, b: (a ** 3).sum() + b.sum(), (x, x), strict=True)),
                ('vhp_lin2', lambda: vhp(lambda a, b: (a ** 3).sum() + b.sum(), (x, x), (x, x), strict=True)),
                ('hvp_lin2', lambda: hvp(lambda a, b: (a ** 3).sum() + b.sum(), (x, x), (x, x), strict=True)),
                ('hvp_ok', lambda: hvp(lambda a: (a ** 3).sum(), x, x, strict=True)),
                ('hess_cross', lambda: hessian(lambda a, b: (a * b).sum(), (x, x), strict=True)),
                ('hvp_cross', lambda: hvp(lambda a, b: (a * b).sum() + (a**3).sum(), (x, x), (x, x), strict=True)),
                ('jvp_cst_grad', lambda: jvp(lambda a: a * 0 + 1, x, x, strict=True)),
                ('hess_cg', lambda: hessian(lambda a: (a*2).sum(), x, strict=True, create_graph=True)),
                ('vjp_cg', lambda: vjp(lambda a: a.detach(), x, x, strict=True, create_graph=True)),
                ('jac_cg', lambda: jacobian(lambda a: a * 2, x, strict=True, create_graph=True)),
                ):
    try:
        print(name, f())
    except Exception as e:
        print(name, type(e).__name__, e)
