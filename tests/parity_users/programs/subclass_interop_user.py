import torch
import numpy as np
#%% subclass torch_function
class Logged(torch.Tensor):
    calls = []
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})
t = torch.ones(3).as_subclass(Logged)
u = (t + 1) * 2
print(type(u).__name__, u.sum().item(), type(u.sum()).__name__)
print(Logged.calls[:6])
#%% subclass plain
class My(torch.Tensor):
    pass
m = torch.zeros(2).as_subclass(My)
print(type(m * 2).__name__, type(m[0]).__name__, type(torch.add(m, 1)).__name__, isinstance(m, torch.Tensor))
print(repr(m))
#%% parameter subclass
p = torch.nn.Parameter(torch.ones(2))
print(type(p * 2).__name__, type(p.data).__name__, type(p.detach()).__name__, p.requires_grad, repr(p))
q = torch.nn.Parameter(torch.ones(2), requires_grad=False); print(repr(q))
print(isinstance(torch.nn.Buffer(torch.ones(1)), torch.Tensor) if hasattr(torch.nn, "Buffer") else None)
#%% memory format
x = torch.randn(2, 3, 4, 5)
c = x.to(memory_format=torch.channels_last)
print(c.stride(), c.is_contiguous(), c.is_contiguous(memory_format=torch.channels_last), (c + 1).stride(), c.clone().stride(), torch.empty_like(c).stride())
print(c.contiguous().stride(), x.clone(memory_format=torch.channels_last).stride(), torch.nn.functional.relu(c).stride())
#%% strides after ops
x = torch.arange(12.).reshape(3, 4)
print(x.t().stride(), x.t().contiguous().stride(), (x.t() * 2).stride(), x[:, ::2].stride(), x.t().clone().stride(), x.expand(2, 3, 4).stride(), x.unsqueeze(1).stride())
print(x.t().is_contiguous(), x[::2].is_contiguous(), x.reshape(4, 3)._base is x, x.t().reshape(12)._base is None)
#%% numpy interop
a = np.arange(6, dtype=np.float32)[::-1]
try:
    t = torch.from_numpy(a)
except Exception as e:
    print(type(e).__name__, e)
t = torch.as_tensor(a); print(t, t.dtype)
b = np.arange(3); tb = torch.from_numpy(b); tb[0] = 10; print(b, tb.dtype)
print(np.asarray(torch.ones(2, dtype=torch.bfloat16).float()), torch.ones(2).numpy().dtype)
try:
    torch.ones(2, requires_grad=True).numpy()
except Exception as e:
    print(type(e).__name__, e)
print(torch.ones(2, requires_grad=True).numpy(force=True))
c = np.ones(2); c.flags.writeable = False
t = torch.from_numpy(c); print(t)
#%% asarray
a = np.ones(3)
t1 = torch.asarray(a); t2 = torch.asarray(a, copy=True); t3 = torch.asarray([1, 2.5]); t4 = torch.asarray(torch.ones(2), dtype=torch.int64)
a[0] = 5
print(t1, t2, t3, t4)
#%% tensor from lists
print(torch.tensor([[1, 2], [3, 4.5]]), torch.tensor([True, 1]), torch.tensor([1, 2**40]).dtype, torch.tensor(np.float32(2)).dtype, torch.tensor([np.int8(1)]).dtype)
for bad in [[[1, 2], [3]], ["a"], [1, None], [[1], 2]]:
    try:
        torch.tensor(bad)
    except Exception as e:
        print(type(e).__name__, e)
#%% tensor of tensors
print(torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
try:
    torch.tensor([torch.ones(2), torch.ones(2)])
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor(torch.ones(2)))
#%% item tolist errors
print(torch.tensor([[1.5]]).item(), torch.tensor([1, 2]).tolist(), torch.tensor(3).tolist(), torch.tensor([True]).item())
try:
    torch.ones(2).item()
except Exception as e:
    print(type(e).__name__, e)
try:
    float(torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    bool(torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
print(int(torch.tensor([3.7])), bool(torch.tensor([0])), "%.2f" % torch.tensor(1.234), f"{torch.tensor(2.5):.1f}", format(torch.tensor(3), "03d"))
#%% storage and data_ptr
x = torch.arange(6.)
y = x[2:]
print(y.storage_offset(), y.untyped_storage().nbytes(), y.data_ptr() - x.data_ptr(), x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr())
print(x.is_shared(), x.share_memory_().is_shared(), x.is_pinned())
#%% pin memory cpu
try:
    print(torch.ones(2).pin_memory().is_pinned())
except Exception as e:
    print(type(e).__name__, str(e)[:120])
#%% dlpack
t = torch.arange(4)
u = torch.from_dlpack(t)
u[0] = 9
print(t, np.from_dlpack(t))