import torch
import torch.nn as nn
from torch.autograd import Function
from torch.autograd.function import once_differentiable
#%% save_for_backward and needs_input_grad
class MulAdd(Function):
    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y + k
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return g * y, g * x, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0])
out = MulAdd.apply(x, y, 5)
print(out, out.grad_fn.name(), type(out.grad_fn).__name__)
out.sum().backward()
print(x.grad)
#%% setup_context style and vmap-able
class Cube(Function):
    @staticmethod
    def forward(x):
        return x ** 3
    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
Cube.apply(x).sum().backward()
print(x.grad)
print(torch.func.grad(lambda t: Cube.apply(t).sum())(torch.tensor([2.0])))
#%% mark_dirty in place function
class AddOne_(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
v0 = b._version
c = AddOne_.apply(b)
print(c is b, b, b._version - v0, c.grad_fn.name())
(c * 2).sum().backward()
print(a.grad)
try:
    AddOne_.apply(a)
except RuntimeError as e:
    print(e)
#%% forgetting mark_dirty
class Sneaky(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0], requires_grad=True)
b = a * 1
try:
    r = Sneaky.apply(b)
    print(r, r.grad_fn.name())
except RuntimeError as e:
    print(e)
#%% once_differentiable double backward error
class Sq(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor(3.0, requires_grad=True)
y = Sq.apply(x)
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad, g.grad_fn)
try:
    g.backward()
except RuntimeError as e:
    print(e)
#%% non-differentiable outputs and materialize_grads
class TopIdx(Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.max(0)
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        ctx.n = x.shape[0]
        return v, i
    @staticmethod
    def backward(ctx, gv, gi):
        (i,) = ctx.saved_tensors
        print("gi", gi)
        out = torch.zeros(ctx.n)
        out[i] = gv
        return out
x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
v, i = TopIdx.apply(x)
print(v.requires_grad, i.requires_grad, i.grad_fn)
v.backward()
print(x.grad)
class Two(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("g2 is None:", g2 is None)
        return g1 * 2
x = torch.tensor(1.0, requires_grad=True)
a, b = Two.apply(x)
a.backward()
print(x.grad)
#%% wrong number of gradients returned
class Bad(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(2, requires_grad=True)
try:
    Bad.apply(x, x).sum().backward()
except RuntimeError as e:
    print(e)
class BadShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)
try:
    BadShape.apply(torch.ones(2, requires_grad=True)).backward()
except RuntimeError as e:
    print(e)
#%% function returning input and view
class Ident(Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 10
x = torch.ones(2, requires_grad=True)
y = Ident.apply(x)
print(y is x, y.grad_fn.name())
y.sum().backward()
print(x.grad)
class ViewOut(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)
    @staticmethod
    def backward(ctx, g):
        return g.view(2, 2)
x = torch.ones(2, 2, requires_grad=True)
z = ViewOut.apply(x * 1)
print(z.grad_fn.name())  # torch keeps z a view of the input (report)
#%% ctx attributes and saved_tensors twice
class Keep(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        (x2,) = ctx.saved_tensors
        return g * x.exp()
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = Keep.apply(x)
y.sum().backward(retain_graph=True)
y.sum().backward()
print(x.grad)
y2 = Keep.apply(x)
y2.sum().backward()
try:
    y2.sum().backward()
except RuntimeError as e:
    print(str(e)[:120])
#%% module forward pre hooks with kwargs and return values
torch.manual_seed(0)
lin = nn.Linear(2, 2)
def pre(mod, args):
    print("pre", type(mod).__name__, [a.shape for a in args])
    return (args[0] * 0,)
def post(mod, args, out):
    print("post", out.shape)
    return out + 1
h1 = lin.register_forward_pre_hook(pre)
h2 = lin.register_forward_hook(post)
print(lin(torch.ones(1, 2)) - lin.bias)
h1.remove(); h2.remove()
def pre_kw(mod, args, kwargs):
    print("kwargs", sorted(kwargs))
    return args, kwargs
lin.register_forward_pre_hook(pre_kw, with_kwargs=True)
lin(input=torch.ones(1, 2))
#%% full backward hooks order and grad_input shapes
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
log = []
for i, m in enumerate(net):
    m.register_full_backward_pre_hook(lambda mod, go, i=i: log.append(("pre", i, [tuple(g.shape) for g in go])))
    m.register_full_backward_hook(lambda mod, gi, go, i=i: log.append(("post", i, [None if g is None else tuple(g.shape) for g in gi])))
net(torch.randn(4, 3)).sum().backward()
for entry in log:
    print(entry)
#%% backward hook replaces grad_input
lin = nn.Linear(2, 2)
lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 7,))
x = torch.ones(1, 2, requires_grad=True)
lin(x).sum().backward()
print(x.grad)
try:
    lin2 = nn.Linear(2, 2)
    lin2.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    lin2(torch.ones(1, 2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print(e)
#%% global module hooks
from torch.nn.modules.module import register_module_forward_hook
seen = []
h = register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
nn.Sequential(nn.ReLU(), nn.Sigmoid())(torch.ones(1))
h.remove()
nn.ReLU()(torch.ones(1))
print(seen)
#%% tensor hooks on leaves and post accumulate
w = torch.tensor([1.0, 2.0], requires_grad=True)
w.register_hook(lambda g: g * 2)
w.register_post_accumulate_grad_hook(lambda p: print("acc", p.grad))
(w * 3).sum().backward()
(w * 3).sum().backward()
print(w.grad)
try:
    (w * 1).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print(e)
nl = torch.ones(1)
try:
    nl.register_hook(lambda g: g)
except RuntimeError as e:
    print(e)
#%% hook removal handle and ordering with prepend
lin = nn.Linear(1, 1)
order = []
lin.register_forward_hook(lambda *a: order.append("a"))
lin.register_forward_hook(lambda *a: order.append("b"), prepend=True)
hb = lin.register_forward_hook(lambda *a: order.append("c"))
hb.remove()
hb.remove()
lin(torch.ones(1, 1))
print(order, len(lin._forward_hooks))
#%% state_dict and load_state_dict hooks
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(1, 1)
m = M()
m.register_state_dict_post_hook(lambda mod, sd, prefix, local_metadata: sd.__setitem__(prefix + "extra", torch.tensor(1.0)))
print(sorted(m.state_dict().keys()))
def pre_load(mod, sd, prefix, local_metadata, strict, missing, unexpected, errors):
    sd.pop(prefix + "extra", None)
m.register_load_state_dict_pre_hook(pre_load)
def post_load(mod, keys):
    print("missing", keys.missing_keys, "unexpected", keys.unexpected_keys)
m.register_load_state_dict_post_hook(post_load)
print(m.load_state_dict(m.state_dict()))
sd = m.state_dict()
sd.pop("lin.bias")
print(m.load_state_dict(sd, strict=False))
#%% hooks with module in eval and no_grad and retain_graph
lin = nn.Linear(2, 1)
calls = []
lin.register_full_backward_hook(lambda *a: calls.append("b"))
with torch.no_grad():
    out = lin(torch.ones(1, 2))
print(out.requires_grad, calls)
x = torch.ones(1, 2, requires_grad=True)
y = lin(x)
y.backward(retain_graph=True)
y.backward()
print(calls)
