import torch
#%% sizes and storage facts
x = torch.ones(3, 4, dtype=torch.float16)
print(x.element_size(), x.nbytes, x.itemsize, x.numel(), x.nelement(), x.dim(), x.ndimension(), x.ndim)
print(x.size(), x.size(1), x.size(-1), x.shape[0], len(x), x.stride(), x.stride(0), x.storage_offset())
s = x.untyped_storage()
print(s.nbytes(), type(s).__name__, len(s), x[1:].untyped_storage().nbytes())
print(x.is_floating_point(), x.is_complex(), x.is_signed(), torch.tensor([1], dtype=torch.uint8).is_signed(), x.is_leaf, x.is_cuda, x.is_sparse, x.is_meta, x.is_quantized)
print(x.device, x.layout, x.dtype.itemsize, x.dtype.is_floating_point, x.dtype.is_signed, torch.int8.is_complex, torch.finfo(x.dtype), torch.iinfo(torch.int16))
print(torch.finfo(torch.bfloat16).eps, torch.finfo().tiny, torch.finfo(torch.float64).max, torch.iinfo(torch.uint8).max)
try:
    torch.finfo(torch.int32)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.iinfo(torch.float32)
except Exception as e:
    print(type(e).__name__, e)
try:
    x.size(2)
except Exception as e:
    print(type(e).__name__, e)
#%% apply_ / map_ / tolist / item
t = torch.tensor([1., 2., 3.])
t.apply_(lambda v: v * 10)
print(t)
t.map_(torch.tensor([1., 1., 1.]), lambda a, b: a + b)
print(t, t.tolist(), t[0].item(), type(t[0].item()).__name__, torch.tensor([1]).tolist(), torch.tensor(5).tolist())
print(torch.tensor([True]).item(), type(torch.tensor([3], dtype=torch.int8).item()).__name__, torch.tensor(1 + 2j).item())
print(torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor([1.5], dtype=torch.float16).tolist(), torch.empty(0).tolist())
try:
    torch.tensor([1, 2]).item()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.ones(2, requires_grad=True).apply_(lambda v: v)
except Exception as e:
    print(type(e).__name__, e)
#%% clone/detach/contiguous/new_* family
a = torch.arange(6.).reshape(2, 3).t()
c = a.clone()
print(c.is_contiguous(), c.stride(), a.clone(memory_format=torch.contiguous_format).stride(), a.contiguous().stride())
print(a.new_zeros(2), a.new_ones((1, 2), dtype=torch.int32), a.new_full((2,), 7), a.new_empty(0).shape, a.new_tensor([1, 2]))
print(torch.zeros_like(a).stride(), torch.empty_like(a).stride(), torch.ones_like(a, dtype=torch.int64), torch.full_like(a, 2.5).dtype)
print(torch.rand_like(a).shape, torch.randint_like(a, 5).dtype, torch.randn_like(a, dtype=torch.float64).dtype)
try:
    torch.randint_like(torch.ones(2, dtype=torch.int64), 0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.rand_like(torch.ones(2, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)
#%% creation with odd arguments
print(torch.full((2,), True), torch.full((2,), 3), torch.full((1,), 2.5), torch.full((1,), 1j).dtype)
print(torch.arange(0, 1, 0.25), torch.arange(5, dtype=torch.float32), torch.arange(1, 2.5), torch.arange(-3, 3, 2))
print(torch.linspace(0, 10, 5, dtype=torch.int64), torch.linspace(1, 0, 3), torch.logspace(0, 2, 3, base=2))
print(torch.eye(2, 3), torch.eye(1, dtype=torch.bool), torch.tril_indices(3, 3), torch.triu_indices(2, 3, 1))
print(torch.zeros((2, 1)), torch.zeros([3]), torch.zeros(torch.Size([1, 2])), torch.ones(()), torch.empty(2, 0, 3).shape)
for f in [lambda: torch.zeros(-1), lambda: torch.zeros(2.5), lambda: torch.arange(0, 10, -1), lambda: torch.arange(float("inf")),
          lambda: torch.linspace(0, 1, -1), lambda: torch.eye(-1), lambda: torch.full((2,), "a"), lambda: torch.zeros((2, "a"))]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
