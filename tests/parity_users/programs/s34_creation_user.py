import numpy as np
import torch

#%% arange float steps
x = torch.arange(0, 1, 0.1)
print(x.dtype, x.shape, x)
print(torch.arange(5, dtype=torch.float16), torch.arange(-3, 3, 2))
print(torch.arange(1, 2.5, 0.5).dtype, torch.arange(10, 0, -3))
#%% linspace logspace
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 1), torch.linspace(0, 10, steps=4, dtype=torch.int64))
print(torch.logspace(0, 2, 3), torch.logspace(0, 3, 4, base=2))
print(torch.linspace(3, 3, 0).shape)
#%% full and promotion
print(torch.full((2, 2), 7).dtype, torch.full((2,), 1.5).dtype, torch.full((1,), True).dtype)
print(torch.full((2,), 3, dtype=torch.float16))
print(torch.zeros(2, 3).new_full((2,), 4).dtype, torch.ones(3, dtype=torch.int8).new_zeros(2))
#%% from numpy shares memory
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
a[0, 0] = 100
print(t)
t2 = torch.as_tensor(a)
t2[1, 1] = -1
print(a[1, 1], torch.tensor(a).data_ptr() == t.data_ptr())
print(torch.from_numpy(np.array([1, 2], dtype=np.uint16)).dtype)
#%% tensor from mixed list
print(torch.tensor([1, 2.0, True]).dtype)
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.uint8) + 250)
print(torch.tensor([np.float64(1.5), 2]).dtype)
print(torch.tensor(np.float32(2.5)).dtype)
#%% ragged error
try:
    torch.tensor([[1, 2], [3]])
except Exception as e:
    print(type(e).__name__, e)
#%% eye variations
print(torch.eye(2, 3), torch.eye(3, dtype=torch.bool))
print(torch.eye(0).shape)
#%% empty_like strides preserved
x = torch.randn(3, 4).t()
print(torch.empty_like(x).stride(), torch.zeros_like(x).stride(), torch.ones_like(x, memory_format=torch.contiguous_format).stride())
#%% promotion table ops
a = torch.tensor([1, 2], dtype=torch.int32)
b = torch.tensor([1.5, 2.5], dtype=torch.float16)
c = torch.tensor([True, False])
print((a + b).dtype, (a * 2.5).dtype, (c + c).dtype, (c * 1).dtype, (a / a).dtype, (a // 2).dtype)
print(torch.result_type(a, 1.0), torch.promote_types(torch.int8, torch.uint8), torch.promote_types(torch.bfloat16, torch.float16))
print((torch.tensor(1.5, dtype=torch.float64) + torch.ones(2)).dtype)
print(torch.tensor([1], dtype=torch.uint8) - 2)
#%% int division semantics
a = torch.tensor([-7, 7, -8])
print(a // 2, a % 3, torch.fmod(a, 3), torch.remainder(a, -3), torch.div(a, 2, rounding_mode='trunc'), torch.div(a, 2, rounding_mode='floor'))
try:
    torch.div(a, 2, rounding_mode='round')
except Exception as e:
    print(type(e).__name__, e)
#%% complex creation
z = torch.complex(torch.tensor([1., 2.]), torch.tensor([3., 4.]))
print(z, z.dtype, torch.polar(torch.tensor([2.0]), torch.tensor([0.5])))
print(torch.tensor([1 + 1j], dtype=torch.complex128).abs())
print(torch.view_as_real(z), torch.view_as_complex(torch.tensor([[1., 2.]])))
#%% tril_indices triu_indices
print(torch.tril_indices(3, 3), torch.triu_indices(3, 4, offset=1))
print(torch.tril_indices(2, 3, -1))
#%% meshgrid and cartesian
x, y = torch.meshgrid(torch.arange(3), torch.arange(2), indexing='xy')
print(x, y)
print(torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])))
print(torch.combinations(torch.tensor([1, 2, 3]), r=2, with_replacement=True))
#%% default dtype change
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.arange(0, 1, 0.5).dtype, torch.tensor([1j]).dtype)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1j]).dtype)
#%% uint8 overflow and casts
x = torch.tensor([300.7, -1.2, 2.9])
print(x.to(torch.int32), x.long(), torch.tensor([1.5, -2.5, 0.5]).round())
print(torch.tensor([2**31 + 5]).int() if False else torch.tensor([255, 256]).to(torch.uint8))
#%% scalar tensors
s = torch.tensor(5)
print(s.item(), s.dim(), s.shape, s.numel(), int(s), float(s) / 2, s.tolist())
print(torch.tensor([[1.5]]).item())
try:
    torch.tensor([1, 2]).item()
except Exception as e:
    print(type(e).__name__, e)
