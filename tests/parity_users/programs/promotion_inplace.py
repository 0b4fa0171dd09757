import torch
#%% python scalars with int tensors
i = torch.tensor([1, 2, 3])
print((i + 1).dtype, (i + 1.5).dtype, (i * True).dtype, (i + 1j).dtype, (i / 2).dtype, (i // 2).dtype, (i ** 2).dtype, (i ** -1.0).dtype)
print(i / 2, i // 2, i % 2, -i // 2, i ** 0.5, 2 ** i, 2.0 ** i, i.true_divide(2), i.div(2, rounding_mode="floor"))
#%% 0-d tensors vs dimensioned
a = torch.tensor([1, 2], dtype=torch.int8)
print((a + torch.tensor(1000)).dtype, (a + torch.tensor(1.5)).dtype, (a + torch.tensor([1000])).dtype, a + torch.tensor(200))
f = torch.tensor([1.0], dtype=torch.float16)
print((f + torch.tensor(1.0, dtype=torch.float64)).dtype, (f + torch.tensor([1.0], dtype=torch.float64)).dtype, (f * 1e5).dtype, f * 1e5)
b = torch.tensor([True, False])
print((b + b).dtype, (b + 1).dtype, (b * 1.5).dtype, (b & True).dtype, b.sum().dtype, (b + torch.tensor(1, dtype=torch.uint8)).dtype)
#%% uint8 and int8 mixing
u = torch.tensor([250], dtype=torch.uint8)
s = torch.tensor([-1], dtype=torch.int8)
print((u + s).dtype, u + s, u + 10, (u - 251), u * 2, (u + torch.tensor([10], dtype=torch.int16)))
print(torch.result_type(u, s), torch.result_type(u, 1.0), torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32))
#%% complex promotion
c = torch.tensor([1 + 1j])
print((c + torch.tensor([1.0], dtype=torch.float64)).dtype, (c * 2).dtype, (torch.tensor([1]) * 1j).dtype)
print(torch.tensor([1.0], dtype=torch.float64) * 1j, c.abs().dtype, c.real.dtype, torch.tensor(1j, dtype=torch.complex128).angle())
#%% inplace promotion errors
x = torch.tensor([1, 2])
for f in (lambda: x.add_(1.5), lambda: x.mul_(torch.tensor([0.5, 0.5])), lambda: x.div_(2), lambda: torch.tensor([1.0]).add_(1j)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
y = torch.tensor([1.0, 2.0])
y += torch.tensor([1, 2])
y *= torch.tensor(2, dtype=torch.float64)
print(y, y.dtype)
#%% comparisons and mixed dtypes
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.5]), torch.tensor([1]) < 1.5, torch.tensor([0.1], dtype=torch.float32) == 0.1, torch.tensor([0.5]) == 0.5)
print(torch.eq(torch.tensor([1], dtype=torch.uint8), torch.tensor([-255])), torch.maximum(torch.tensor([1]), torch.tensor([1.5])), torch.tensor([1, 2]).clamp(min=1.5).dtype)
#%% where promotion
print(torch.where(torch.tensor([True, False]), torch.tensor([1, 2]), 0.5).dtype, torch.where(torch.tensor([True, False]), 1, 0).dtype, torch.where(torch.tensor([True, False]), 1.0, 0).dtype)
print(torch.where(torch.tensor([True, False]), torch.tensor([1.0], dtype=torch.float16), torch.tensor([2.0], dtype=torch.float64)))
print(torch.where(torch.tensor([[1, 0], [0, 3]])), torch.where(torch.tensor([True, False]), torch.tensor(1), torch.tensor([5, 6], dtype=torch.int8)))
#%% sum and mean dtypes
print(torch.tensor([1, 2], dtype=torch.int8).sum().dtype, torch.tensor([1, 2], dtype=torch.uint8).cumsum(0).dtype, torch.tensor([True]).prod().dtype, torch.tensor([1.0], dtype=torch.float16).sum().dtype)
try:
    torch.tensor([1, 2]).mean()
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor([1, 2]).float().mean(), torch.tensor([1, 2]).mean(dtype=torch.float64), torch.tensor([1, 2]).sum(dtype=torch.float32))
#%% inplace on views with autograd
w = torch.randn(4, requires_grad=True)
x = w * 1
v = x[1:3]
v.mul_(2)
x.sum().backward()
print(w.grad, x.grad_fn.name(), v.grad_fn.name())
#%% view of leaf inplace error
w = torch.ones(3, requires_grad=True)
try:
    w[0] = 5
except Exception as e:
    print(type(e).__name__, e)
try:
    w.view(3).add_(1)
except Exception as e:
    print(type(e).__name__, e)
with torch.no_grad():
    w[0] = 5
print(w, w.requires_grad, w.grad_fn)
#%% modified saved tensor
a = torch.ones(3, requires_grad=True)
b = a.exp()
c = b * 2
b.add_(1)
try:
    b.sum().backward()
    print(a.grad)
except Exception as e:
    print(type(e).__name__, e)
a2 = torch.ones(3, requires_grad=True)
y = a2 * 2
z = y.sigmoid()
z.mul_(2)
try:
    z.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:160])
#%% detach inplace shares
x = torch.ones(3, requires_grad=True)
y = x * 2
d = y.detach()
d.zero_()
print(y, d)
try:
    y.sum().backward()
    print(x.grad)
except Exception as e:
    print(type(e).__name__, e)
#%% unbind split view inplace
x = torch.randn(2, 3, requires_grad=True)
y = x * 1
a, b = y.unbind(0)
try:
    a.add_(1)
except Exception as e:
    print(type(e).__name__, e)
p, q = y.split(1, dim=1)[:2]
try:
    p.mul_(2)
except Exception as e:
    print(type(e).__name__, e)
c1, c2 = y.chunk(2, dim=1)
try:
    c1.zero_()
except Exception as e:
    print(type(e).__name__, e)
#%% no_grad views of leaf
w = torch.randn(2, 3, requires_grad=True)
with torch.no_grad():
    r = w[0]
    u = w.unbind(0)
    s = w.split(1)
    v = w.view(6)
    t = w.t()
    d = w.diagonal()
    k = w.chunk(3, 1)
print(r.requires_grad, u[0].requires_grad, s[0].requires_grad, v.requires_grad, t.requires_grad, d.requires_grad, k[0].requires_grad)
print(r.grad_fn, u[0].grad_fn, r.is_leaf, (w + 0).requires_grad)
#%% inplace ops and version counter
x = torch.zeros(3)
v0 = x._version
x.add_(1)
x[0] = 2
x.clamp_(max=1.5)
print(x._version - v0, x)
y = x.view(3)
y.mul_(3)
print(x._version - v0, x, y._version == x._version)
#%% inplace result grad chain
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.clone()
y.pow_(2).mul_(x).add_(1)
y.sum().backward()
print(x.grad, y.grad_fn.name())
x2 = torch.tensor([0.5, -0.5], requires_grad=True)
z = x2.clone()
z.relu_()
z.sigmoid_()
z.tanh_()
z.sum().backward()
print(x2.grad)
#%% transpose inplace and out of place
x = torch.arange(6.0).view(2, 3)
x.t_()
print(x.shape, x.is_contiguous(), x)
x.unsqueeze_(0).squeeze_(0)
print(x.shape)
y = torch.zeros(2, 3)
y.transpose_(0, 1).fill_(1)
print(y.stride(), y.sum())
#%% inplace after output-saving ops
for first, second in (("sigmoid_", "tanh_"), ("exp_", "mul_"), ("relu_", "add_"), ("sqrt_", "div_"), ("div_", "add_"), ("abs_", "mul_")):
    x = torch.tensor([0.5, 0.7], requires_grad=True)
    z = x.clone()
    getattr(z, first)(*([2.0] if first == "div_" else []))
    getattr(z, second)(*([] if second == "tanh_" else [2.0]))
    try:
        z.sum().backward()
        print(first, second, x.grad)
    except RuntimeError as e:
        print(first, second, e)
#%% resize requires grad
x = torch.ones(2, requires_grad=True)
for f in (lambda: x.resize_(3), lambda: (x * 1).resize_(2), lambda: x.detach().resize_(4).shape):
    try:
        print(f())
    except RuntimeError as e:
        print(e)
#%% no_grad view then inplace with grad
w = torch.ones(2, 3, requires_grad=True)
with torch.no_grad():
    r = w[0]
    q = (w * 1).view(6)
for t in (r, q):
    try:
        t.add_(1)
    except RuntimeError as e:
        print(e)
with torch.no_grad():
    r.add_(1)
print(w)
#%% multi-output views inplace messages
x = torch.randn(2, 3, requires_grad=True)
y = x * 1
for name, parts in (("unbind", y.unbind(1)), ("split", y.split([1, 2], 1)), ("chunk", y.chunk(2)), ("tensor_split", y.tensor_split(2, 1)), ("leaf", x.unbind(0)), ("leafsplit", x.split(1))):
    try:
        parts[-1].add_(1)
    except RuntimeError as e:
        print(name, e)
with torch.no_grad():
    a = y.unbind(0)
try:
    a[0].mul_(2)
except RuntimeError as e:
    print(e)
p = y.unsafe_split(1)
p[0].mul_(2)
q = torch.unsafe_chunk(y, 3, 1)
q[1].add_(1)
(p[0] * p[1]).sum().backward()
print(x.grad, p[0].grad_fn.name(), q[1].grad_fn.name(), y._version, p[0]._version)
