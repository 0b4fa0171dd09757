import torch
#%% views
x = torch.arange(12)
v = x.view(3, 4)
v[0, 0] = 100
t = v.t()
print(x[0], t.is_contiguous(), t.stride(), v.storage_offset(), x.view(2, -1).shape, t.contiguous().stride(), v[:, 1].stride(), x.unflatten(0, (3, 4)).shape)
print(v.reshape(-1)._base is x if hasattr(v, "_base") else None, v._base is x, x.untyped_storage().nbytes(), x.data_ptr() == v.data_ptr())
#%% view error
torch.arange(12).view(3, 4).t().view(12)
#%% view bad size
torch.arange(12).view(5, -1)
#%% reshape bad
torch.arange(12).reshape(-1, -1)
#%% expand errors
torch.ones(2, 3).expand(4, 3)
#%% expand inplace
x = torch.zeros(1, 3).expand(2, 3)
x.add_(1)
#%% inplace view grad
a = torch.ones(4, requires_grad=True)
b = a.clone()
c = b[1:3]
c.mul_(5)
b.sum().backward()
print(a.grad, b.grad_fn.name(), c.grad_fn.name())
#%% inplace on view of leaf
a = torch.ones(4, requires_grad=True)
v = a[:2]
v.mul_(2)
#%% method spellings
x = torch.arange(6.0).view(2, 3)
print(x.transpose(0, 1).shape, x.permute(1, 0).shape, x.permute((1, 0)).shape, x.reshape((3, 2)).shape, x.view((3, 2)).shape, x.repeat(2, 1).shape, x.repeat((1, 2)).shape, x.expand(2, 2, 3).shape, x.flatten().shape, x.squeeze().shape, x.unsqueeze(-1).shape)
print(x.split(2, dim=1), x.chunk(2), x.tensor_split(3, dim=1), torch.split(x, [1, 2], 1), x.unbind(1), x.movedim(0, 1).shape, x.swapaxes(0, 1).shape, x.narrow(1, 1, 2), x.new_zeros(2), x.new_tensor([1]), x.new_full((1,), 7), x.new_empty(0).dtype)
out = torch.empty(2, 3)
torch.add(x, 1, alpha=2, out=out)
print(out, torch.clamp(x, min=1.0), x.clamp(max=torch.tensor(2.0)), x.clip(1, 2), torch.max(x, torch.ones(2, 3)), torch.maximum(x, torch.tensor(2.5)), x.addmm(torch.ones(2, 2), torch.ones(2, 3), beta=0.5, alpha=2))
#%% out wrong dtype
out = torch.empty(2, dtype=torch.int64)
torch.add(torch.ones(2), 1.5, out=out)
#%% out resize warn
out = torch.empty(5)
torch.add(torch.ones(2), 1, out=out)
print(out)
#%% cat errors
torch.cat([torch.ones(2, 3), torch.ones(3, 2)])
#%% cat dtype
print(torch.cat([torch.ones(2), torch.ones(2, dtype=torch.int64)]).dtype, torch.cat([torch.ones(0), torch.ones(2, 3)]).shape, torch.stack([torch.ones(2), torch.zeros(2)], 1))
#%% stack error
torch.stack([torch.ones(2), torch.ones(3)])
#%% item errors
torch.ones(2).item()
#%% bool ambiguous
bool(torch.ones(2))
#%% len 0d
len(torch.tensor(1))
#%% iter 0d
list(torch.tensor(1))
#%% numpy interop
import numpy as np
a = np.arange(3, dtype=np.float32)
t = torch.from_numpy(a)
t[0] = 5
print(a, torch.tensor(a).dtype, torch.as_tensor(np.int32(3)), torch.tensor(np.float64(2.5)).dtype, (torch.ones(2) + np.float64(1)).dtype, t.numpy().dtype, torch.ones(2) * np.array(2.0))
print(np.asarray(torch.ones(2)), torch.tensor([np.int64(1), 2]).dtype, torch.ones(2).tolist(), torch.tensor(np.array([True])).dtype, float(torch.tensor([2.5])), int(torch.tensor(3.9)))
#%% requires grad numpy
torch.ones(2, requires_grad=True).numpy()
#%% comparisons
x = torch.tensor([1, 2, 3])
print(x == 2, x != torch.tensor([1, 0, 3]), x < 2.5, torch.eq(x, x).all(), torch.equal(x, x.float()), torch.allclose(torch.ones(2), torch.ones(2) + 1e-9), torch.isclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True), x.ne(2).sum())
print(torch.maximum(torch.tensor([1, 5]), torch.tensor([3.5, 2])), torch.minimum(torch.tensor([float("nan")]), torch.tensor([1.0])), torch.fmax(torch.tensor([float("nan")]), torch.tensor([1.0])), x.eq(None) if False else "")
#%% where scalar types
print(torch.where(torch.tensor([True, False]), 1, 0.5).dtype, torch.where(torch.tensor([True, False]), torch.tensor([1]), 2.5).dtype, torch.where(torch.tensor([True]), torch.ones(1, dtype=torch.float16), 2.0).dtype)
#%% bitwise shift
x = torch.tensor([1, 2, -8], dtype=torch.int32)
print(x << 2, x >> 1, x & 3, x | 4, x ^ 5, ~x, torch.bitwise_left_shift(x, 1), x.bitwise_and(torch.tensor(1)), (x << 31))
print(torch.tensor([200], dtype=torch.uint8) + torch.tensor([100], dtype=torch.uint8), torch.tensor([127], dtype=torch.int8) + 1, torch.tensor([5]) ** -1 if False else "")
#%% int pow neg
torch.tensor([5]) ** -1
