import torch
#%% scalars
a = torch.tensor([1, 2, 3])
print((a + 2.5).dtype, (a * True).dtype, (a / 2).dtype, (a // 2).dtype, (a ** 2).dtype)
print(torch.tensor([True, False]) + 1, (torch.tensor([True]) + True).dtype)
print((torch.tensor([1.0], dtype=torch.float16) + 1.0).dtype, (torch.tensor([1], dtype=torch.uint8) + 300).dtype)
print((torch.tensor([1], dtype=torch.int8) + torch.tensor(1000)).dtype)
print((torch.tensor([1.5], dtype=torch.bfloat16) * torch.tensor([2.0], dtype=torch.float16)).dtype)
print((torch.tensor([1 + 2j]) * 2).dtype, (torch.tensor([1.0], dtype=torch.float64) * 1j).dtype)
print((torch.tensor([1]) + 1j).dtype, torch.tensor([1, 2.0]).dtype, torch.tensor([1, 2j]).dtype)
#%% creation
print(torch.arange(5), torch.arange(0, 1, 0.25), torch.arange(1, 4, dtype=torch.float16))
print(torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.linspace(0, 10, 5, dtype=torch.int64))
print(torch.full((2, 2), 7), torch.full((2,), 1.5).dtype, torch.full((2,), True).dtype)
print(torch.zeros(2, 3, dtype=torch.int32), torch.ones((2,)), torch.empty(0, 3).shape)
print(torch.eye(2, 3), torch.tril(torch.ones(3, 3), diagonal=-1))
print(torch.tensor(3.5).item(), torch.tensor([[1, 2], [3, 4]]).tolist())
print(torch.zeros_like(torch.tensor([1, 2]), dtype=torch.float32), torch.full_like(torch.ones(2), 3))
print(torch.as_tensor([1, 2], dtype=torch.float64), torch.tensor([]).dtype, torch.tensor([[]]).shape)
#%% creation errors
torch.tensor([[1, 2], [3]])
#%% arange error
torch.arange(0, 10, 0)
#%% arange neg
print(torch.arange(10, 0, -3), torch.arange(-1.5, 1.5, 0.5))
#%% bad dtype op
torch.tensor([1.5]) & torch.tensor([1])
#%% int div
a = torch.tensor([-7, 7])
print(a // 2, a % 3, torch.div(a, 2, rounding_mode="floor"), torch.div(a, 2, rounding_mode="trunc"), torch.fmod(a, 3), torch.remainder(a, -3))
print(torch.tensor([5]) // 0)
#%% int zero div
print(torch.tensor([5]) % 0)
#%% float special
x = torch.tensor([0.0, -0.0, float("inf"), float("nan")])
print(1 / x, torch.sign(x), torch.sqrt(torch.tensor([-1.0])), torch.log(x))
print(torch.nan_to_num(x), torch.clamp(x, 0, 1), torch.isfinite(x), torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])))
#%% type conversion
x = torch.tensor([1.7, -1.7, 300.0])
print(x.int(), x.long(), x.to(torch.uint8), x.bool(), x.half(), x.to(torch.bfloat16), x.double())
print(torch.tensor([1, 0]).float().requires_grad, x.type(torch.int16), x.type())
#%% complex
z = torch.tensor([1 + 1j, -2 + 0.5j])
print(z, z.abs(), z.angle(), z.real, z.imag, z.conj(), torch.view_as_real(z), z.dtype)
print(torch.complex(torch.tensor([1.0]), torch.tensor([2.0])), torch.polar(torch.tensor([2.0]), torch.tensor([0.5])))
print(z * z, z / z, torch.exp(z), z.sum(), z.mean())
#%% bfloat16 arith
x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
print(x / 3, x.sum(), x.mean(), x.exp(), (x * 1.1).dtype, x.float() / 3)
#%% float16 arith
x = torch.tensor([1.0, 2.0, 3.0, 60000.0], dtype=torch.float16)
print(x / 3, x * 2, x.sum(), x.mean(), x.softmax(0), x.cumsum(0))
#%% bool ops
a = torch.tensor([True, False, True])
print(a.sum(), a.sum().dtype, a.any(), a.all(), ~a, a & torch.tensor([False, False, True]), a.int().cumsum(0))
print(a.float().mean(), torch.tensor([1, 2]).float().mean())
#%% mean int error
torch.tensor([1, 2]).mean()
#%% neg bool
-torch.tensor([True])
#%% sub bool
torch.tensor([True]) - torch.tensor([False])
