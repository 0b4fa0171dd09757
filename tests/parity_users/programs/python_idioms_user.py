import torch
import math
import copy
import pickle
import numpy as np
#%% format specs on tensors
t = torch.tensor(3.14159)
print(f"{t:.3f}", f"{t.item():.2e}", "%.2f" % t, "{:>8.2f}|".format(t), f"{torch.tensor(7):d}" if False else f"{torch.tensor(7)}", f"{torch.tensor([1.5])}", str(t), f"{t!r}")
for spec in (".2f", "d", "", ">10"):
    try:
        print(spec, format(torch.tensor([1.0, 2.0]), spec))
    except (TypeError, ValueError, RuntimeError) as e:
        print(spec, type(e).__name__, e)
print(format(torch.tensor(5), "03d"), format(torch.tensor(2.5), "") , format(torch.tensor(True), ""))
#%% math and numpy functions on tensors
t = torch.tensor(4.0)
print(math.sqrt(t), math.floor(torch.tensor(2.7)), math.isclose(t, 4.0), round(torch.tensor(2.567), 2), np.mean(torch.tensor([1.0, 2.0]).numpy()), np.asarray(torch.tensor([1, 2])).dtype, float(np.float32(1.5) * torch.tensor(2.0)))
print(type(np.sum(torch.tensor([1.0, 2.0]).numpy())).__name__, np.array([torch.tensor(1.0), torch.tensor(2.0)]).dtype, np.exp(torch.tensor([0.0, 1.0])))
#%% hashing and identity
a = torch.tensor([1.0])
b = torch.tensor([1.0])
s = {a, b, a}
d = {a: "a"}
print(len(s), d[a], a in [b], a is a.data, id(a) == id(a.view(1)))
try:
    print(b in d)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% sorted and max of python lists of tensors
ts = [torch.tensor(3.0), torch.tensor(1.0), torch.tensor(2.0)]
print(sorted(ts), max(ts), min(ts), sum(ts), sum(ts) / len(ts), sorted(ts, key=lambda x: -x.item()))
#%% pickle and deepcopy
x = torch.arange(4.0).requires_grad_()
y = pickle.loads(pickle.dumps(x))
print(y, y.requires_grad, y.is_leaf)
m = torch.nn.Linear(2, 2)
m.register_forward_hook(lambda *a: print("hook"))
m2 = copy.deepcopy(m)
m2(torch.ones(1, 2))
print(torch.equal(m.weight, m2.weight), m.weight is m2.weight, len(m2._forward_hooks))
z = copy.copy(torch.ones(2))
print(z)
try:
    copy.deepcopy(x * 2)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:80])
#%% no_grad decorator on generator and class
@torch.no_grad()
def gen(w):
    for i in range(2):
        yield (w * i).requires_grad
w = torch.ones(1, requires_grad=True)
print(list(gen(w)), torch.is_grad_enabled())
class M(torch.nn.Module):
    @torch.inference_mode()
    def forward(self, x):
        return x * 2
print(M()(w).requires_grad, M()(w).is_inference())
@torch.enable_grad()
def f(w):
    return (w * 2).requires_grad
with torch.no_grad():
    print(f(w))
#%% isinstance and type checks
p = torch.nn.Parameter(torch.ones(1))
print(isinstance(p, torch.Tensor), isinstance(torch.ones(1), torch.nn.Parameter), type(p).__name__, torch.is_tensor(p), torch.is_tensor([1]), torch.is_floating_point(p), torch.is_complex(torch.ones(1)), torch.numel(torch.ones(2, 3)), isinstance(torch.float32, torch.dtype), isinstance(torch.Size([1]), tuple))
print(torch.is_storage(torch.ones(1).untyped_storage()), torch.is_nonzero(torch.tensor([1.5])), type(torch.ones(1).shape).__name__, torch.Size([2, 3]).numel(), torch.Size([2]) + (3,), torch.Size([2, 3])[1:])
try:
    torch.is_nonzero(torch.tensor([1, 2]))
except RuntimeError as e:
    print(type(e).__name__, e)
#%% unpacking and starred
t = torch.arange(6).view(3, 2)
a, b, c = t
(x0, y0), *rest = t
print(a, b, c, x0, y0, rest, [*torch.tensor([1, 2])], dict(zip("ab", torch.tensor([5, 6]))))
h, w_ = torch.ones(4, 5).shape
print(h, w_, type(h).__name__, torch.ones(2, 3).size(1) * 2, torch.ones(2).shape[0] == 2)
#%% comparisons chaining and truthiness
t = torch.tensor(2.0)
print(1 < t < 3, t == 2, bool(t), not torch.tensor(0), t if t else None, (t > 1) & (t < 3), torch.tensor([True]) and True, any(torch.tensor([0, 1])), all(torch.tensor([1, 1])))
try:
    print(torch.tensor([1, 2]) == torch.tensor([1, 2]) and True)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% augmented assignment rebinding vs inplace
a = torch.ones(2)
b = a
a += 1
print(b)
a = a + 1
print(b, a)
c = torch.ones(2, dtype=torch.int64)
c = c / 2
print(c)
d = torch.ones(2, dtype=torch.int64)
try:
    d /= 2
except RuntimeError as e:
    print(type(e).__name__, e)
d //= 2
print(d)
#%% enumerate range and tensor loop
total = torch.zeros(())
for i, row in enumerate(torch.arange(6.0).view(3, 2)):
    total += row.sum() * i
print(total, [int(v) for v in torch.arange(3)], {int(k): v.item() for k, v in zip(torch.tensor([1, 2]), torch.tensor([0.5, 1.5]))})
