import torch

#%% finfo iinfo
for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
    f = torch.finfo(dt)
    print(dt, f.eps, f.max, f.min, f.tiny, f.resolution, f.bits, f.smallest_normal, f.dtype)
for dt in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
    i = torch.iinfo(dt)
    print(dt, i.min, i.max, i.bits, i.dtype)
print(torch.finfo(), torch.iinfo(torch.int32))
try:
    torch.iinfo(torch.float32)
except Exception as e:
    print(type(e).__name__, e)
#%% return types repr
x = torch.tensor([[3., 1.], [2., 5.]])
print(x.max(1))
print(torch.sort(x))
print(torch.linalg.slogdet(x))
print(torch.aminmax(x))
print(torch.topk(x, 1))
v, i = x.min(0)
print(v, i, type(x.max(0)).__name__, x.max(0).values)
print(torch.histogram(torch.tensor([1., 2.]), bins=2))
#%% Size ops
s = torch.Size([2, 3, 4])
print(s, s.numel(), s[1:], s + (5,), len(s), s == (2, 3, 4), s.index(3), s.count(2), tuple(s), list(s), torch.Size(), torch.Size([]).numel())
print(type(s[1:]).__name__, type(s + (5,)).__name__, isinstance(s, tuple), hash(s) == hash((2, 3, 4)))
try:
    torch.Size([1.5])
except Exception as e:
    print(type(e).__name__, e)
#%% dtype properties
for dt in (torch.float32, torch.int64, torch.bool, torch.complex64, torch.bfloat16, torch.uint8, torch.float8_e4m3fn if hasattr(torch, 'float8_e4m3fn') else torch.half):
    print(dt, dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize, dt.to_real() if dt.is_complex else dt.to_complex() if dt.is_floating_point and dt.itemsize >= 2 and dt != torch.bfloat16 else None)
print(torch.float32 == torch.float, torch.long, torch.double is torch.float64, torch.get_default_dtype(), torch.cfloat)
#%% tensor attributes misc
x = torch.arange(6.).reshape(2, 3)
print(x.is_leaf, x.requires_grad, x.grad, x.is_contiguous(), x.t().is_contiguous(), x.data_ptr() == x.view(6).data_ptr(), x.element_size(), x.nbytes, x.itemsize, x.ndim, x.dim(), x.storage_offset(), x[1].storage_offset(), x.untyped_storage().nbytes(), x.is_floating_point(), x.is_signed())
print(x.H.shape if x.dim() == 2 else '', x.device, x.is_cpu, x.is_cuda, x.is_sparse, x.is_quantized, x.is_meta, x.layout, x.type(), x.int().type(), x.names if hasattr(x, 'names') else '')
#%% python number interplay
x = torch.tensor([1, 2, 3])
print(x + True, x * 1.0, x / 2, 2 ** x, x ** 0.5, -x, abs(-x), x // 2.0, divmod(7, 2), 3 - x, 1 / x.float(), x % 2.5, round(torch.tensor(2.567).item(), 2))
print(torch.tensor(3) + 4, (torch.tensor(3) + 4.5).dtype, torch.tensor(3, dtype=torch.uint8) - 5, max(torch.tensor([1, 5, 2])), sum(torch.tensor([1, 2, 3])), sorted(torch.tensor([3, 1, 2])))
#%% in-place ops on views
x = torch.zeros(3, 4)
x[0].fill_(1)
x[:, 1].add_(2)
x.t()[2].mul_(0).add_(7)
x.diagonal().copy_(torch.tensor([9., 9., 9.]))
x.view(-1)[-1] = 5
print(x)
y = x.narrow(1, 1, 2)
y.zero_()
print(x, y.is_contiguous(), y.stride())
#%% clone detach version counter
a = torch.ones(2, requires_grad=True)
b = a * 2
c = b.detach()
c.add_(1)
print(b, b._version, c._version)
try:
    b.sum().backward()
    print(a.grad)
except Exception as e:
    print(type(e).__name__, str(e)[:150])
