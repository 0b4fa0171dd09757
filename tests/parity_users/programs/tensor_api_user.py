import torch
import numpy as np
#%% new_* factories keep dtype and device
x = torch.tensor([1, 2], dtype=torch.int16)
print(x.new_zeros(3), x.new_ones((2, 1)), x.new_full((2,), 7), x.new_empty(0).dtype, x.new_tensor([1.5]), x.new_tensor([1.5], dtype=torch.float64))
print(torch.zeros_like(x, dtype=torch.float32), torch.full_like(x, 3.7), torch.empty_like(x).shape, torch.ones_like(torch.tensor(1.0)))
#%% type conversions
x = torch.tensor([1.7, -2.3])
print(x.int(), x.long(), x.short(), x.char(), x.byte() if False else x.abs().byte(), x.bool(), x.half(), x.bfloat16(), x.double(), x.cfloat() if hasattr(x, "cfloat") else None)
print(x.type(), x.type(torch.int32), x.type("torch.DoubleTensor").dtype, x.to(torch.int64).dtype, x.to(dtype=torch.float16, copy=True).dtype)
print(x.to(torch.zeros(1, dtype=torch.float64)).dtype, x.type_as(torch.tensor([1])), x.long().float().dtype)
#%% strides contiguity and views
x = torch.arange(12).reshape(3, 4)
t = x.t()
print(x.stride(), t.stride(), t.is_contiguous(), t.contiguous().stride(), x.storage_offset(), x[1:].storage_offset())
print(x.as_strided((2, 2), (1, 4)), x.as_strided((2,), (5,), 1), x.view(4, 3).stride(), x[:, 1].stride())
print(x.untyped_storage().nbytes(), x.element_size(), x.nbytes, x.itemsize, x.dim(), x.ndimension(), x.nelement())
print(t.is_contiguous(memory_format=torch.contiguous_format), torch.ones(1, 2, 3, 3).to(memory_format=torch.channels_last).stride())
try:
    t.view(12)
except Exception as e:
    print(type(e).__name__, e)
print(t.reshape(12), t.flatten().is_contiguous())
#%% views share memory
x = torch.zeros(2, 3)
v = x[0]
v += 1
x.view(6)[5] = 9
x.T[0, 1] = 4
print(x, x.data_ptr() == x.view(6).data_ptr(), x.unsqueeze(0)._base is x, x.clone()._base)
d = x.detach()
d[0, 0] = -1
print(x[0, 0], x.narrow(1, 1, 2).is_contiguous(), x.expand(2, 2, 3).stride())
#%% numpy interop
a = np.array([[1.0, 2.0]], dtype=np.float32)
t = torch.from_numpy(a)
a[0, 0] = 5
print(t, t.dtype, torch.as_tensor(a).data_ptr() == t.data_ptr(), torch.tensor(a).data_ptr() == t.data_ptr())
print(t.numpy() is not None, np.asarray(t).dtype, torch.as_tensor([1, 2], dtype=torch.float64), torch.from_numpy(np.array([1, 2], dtype=np.uint16)).dtype)
print(torch.tensor(np.float64(2.5)), torch.tensor(np.array(3)), torch.as_tensor(np.arange(3)[::2]))
try:
    torch.from_numpy(np.array(["a"]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.from_numpy([1, 2])
except Exception as e:
    print(type(e).__name__, e)
#%% python scalars and conversions
x = torch.tensor([2.5])
print(float(x), int(x), bool(torch.tensor([1])), complex(torch.tensor(1 + 2j)), x.item(), torch.tensor(7).__index__() if hasattr(torch.Tensor, "__index__") else None)
try:
    bool(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.tensor([1, 2]).item()
except Exception as e:
    print(type(e).__name__, e)
try:
    int(torch.tensor([1.0, 2.0]))
except Exception as e:
    print(type(e).__name__, e)
print([1, 2, 3][torch.tensor(1)], range(10)[torch.tensor(2)], len(torch.zeros(4, 2)), hash(torch.zeros(1)) != 0)
try:
    len(torch.tensor(1.0))
except Exception as e:
    print(type(e).__name__, e)
#%% iteration and unpacking
a, b = torch.tensor([[1, 2], [3, 4]])
print(a, b, list(torch.arange(3)), [x.item() for x in torch.tensor([0.5, 1.5])], 2 in torch.tensor([1, 2]), torch.tensor(1.0) in torch.tensor([1.0]))
try:
    iter(torch.tensor(1))
except Exception as e:
    print(type(e).__name__, e)
#%% in-place arithmetic semantics
x = torch.tensor([1, 2, 3])
y = x
x += 1
print(y, x is y)
x = x + 1
print(y, x is y)
z = torch.tensor([1.0, 2.0])
z.mul_(2).add_(1).clamp_(max=4.0).neg_()
print(z)
w = torch.ones(2, dtype=torch.int64)
try:
    w.mul_(1.5)
except Exception as e:
    print(type(e).__name__, e)
w *= 2
print(w, w.dtype)
#%% apply map and fill
x = torch.tensor([1.0, 2.0, 3.0])
x.apply_(lambda v: v * 10)
print(x, x.map_(torch.tensor([1.0, 1.0, 1.0]), lambda a, b: a + b), x.fill_(0.5), x.zero_(), torch.empty(2).fill_(torch.tensor(3.0)))
x = torch.zeros(3, 3)
x.fill_diagonal_(2.0)
print(x, torch.zeros(2, 2).masked_fill_(torch.tensor([[True, False], [False, True]]), -1))
#%% operators with python objects
x = torch.tensor([1.0, 2.0])
print(2 ** x, x ** 2, 1 / x, 3 - x, -x, +x, abs(-x), x @ x, [1, 2] + x if False else x + torch.tensor([1, 2]), x == None if False else x.__eq__(None))
print(x > 1, 1 < x, (x > 1) & (x < 3), ~(x > 1), divmod(7, 2), round(torch.tensor(2.567).item(), 2))
print(torch.tensor([5]) // 2, torch.tensor([5.0]) // 2, -torch.tensor([5]) // 2, torch.tensor([True]) + torch.tensor([True]))
#%% requires_grad flags on views and copies
x = torch.ones(3, requires_grad=True)
print(x[0].requires_grad, x.detach().requires_grad, x.clone().requires_grad, x.data.requires_grad, x.numpy if False else x.detach().numpy().shape)
print(x.is_leaf, x[1:].is_leaf, x.grad_fn, x[1:].grad_fn.name(), x.to(torch.float64).grad_fn.name(), x.sum().grad_fn.name(), x.view(3).grad_fn.name())
#%% device and misc properties
x = torch.ones(2)
print(x.device, x.is_cuda, x.is_cpu, x.is_sparse, x.is_quantized, x.is_meta, x.layout, x.is_floating_point(), x.is_signed(), torch.tensor([1], dtype=torch.uint8).is_signed())
print(x.cpu() is x, x.to("cpu") is x, x.to("cpu", copy=True) is x, x.pin_memory().is_pinned() if False else x.is_pinned(), x.share_memory_().is_shared())
print(x.get_device(), torch.get_default_device(), x.names, x.H if False else x.mT.shape if False else x.T.shape)
