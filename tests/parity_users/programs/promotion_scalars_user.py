import torch
#%% int tensor with python float and complex
x = torch.tensor([1, 2, 3])
print(x + 1.5, (x * 2.0).dtype, (x + 1j).dtype, (x / 2).dtype, (x // 2).dtype, (x ** 2).dtype, (x ** 0.5).dtype)
print(x + True, (x + True).dtype, (torch.tensor([True, False]) + 1).dtype, (torch.tensor([True]) + 1.5).dtype)
#%% uint8 and int8 overflow with scalars
u = torch.tensor([250, 5], dtype=torch.uint8)
print(u + 10, (u + 10).dtype, u - 10, u * 2, u + 300 if False else None, (u + 1000.0).dtype)
i8 = torch.tensor([127, -128], dtype=torch.int8)
print(i8 + 1, -i8, i8.abs(), i8 * -1, i8 // -1 if False else None)
#%% 0-d tensors do not promote dimensioned tensors
f32 = torch.ones(2)
print((f32 + torch.tensor(1.0, dtype=torch.float64)).dtype, (f32 + torch.tensor([1.0], dtype=torch.float64)).dtype)
print((torch.ones(2, dtype=torch.int32) + torch.tensor(5)).dtype, (torch.ones(2, dtype=torch.int32) + torch.tensor(5.0)).dtype)
print((torch.ones(2, dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float64)).dtype, (torch.ones(2, dtype=torch.uint8) + torch.tensor(-1)).dtype)
print((torch.tensor(1, dtype=torch.int8) + torch.tensor(1, dtype=torch.int16)).dtype, (torch.tensor(1.0) + torch.tensor(1, dtype=torch.int64)).dtype)
#%% result_type promote_types can_cast
print(torch.result_type(torch.tensor([1]), 1.0), torch.result_type(torch.tensor(1, dtype=torch.uint8), torch.tensor([1], dtype=torch.int8)))
print(torch.promote_types(torch.uint8, torch.int8), torch.promote_types(torch.bool, torch.float16), torch.promote_types(torch.bfloat16, torch.float16))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16), torch.can_cast(torch.complex64, torch.float64), torch.can_cast(torch.bool, torch.uint8))
print(torch.result_type(2, 3.0), torch.result_type(True, 2), torch.result_type(1j, torch.tensor([1.0], dtype=torch.float64)))
#%% division and modulo of negatives
a = torch.tensor([-7, 7, -7, 7])
b = torch.tensor([2, -2, -2, 2])
print(a // b, a % b, torch.fmod(a, b), torch.remainder(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"), a / b)
fa = a.float()
print(fa // b, fa % b, torch.fmod(fa, 2.5), torch.remainder(fa, -2.5), -7 % torch.tensor(3), 7 // torch.tensor(-2))
#%% integer pow and negative exponents
x = torch.tensor([2, 3, 0])
print(x ** 2, 2 ** x, x.pow(0), torch.pow(2, torch.tensor([0.5, 1.0])), x ** torch.tensor([1, 2, 3]))
try:
    print(x ** -1)
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.tensor([2.0]) ** -1, x.float() ** -1)
#%% in-place promotion errors
x = torch.tensor([1, 2])
for f in (lambda: x.add_(1.5), lambda: x.mul_(torch.tensor([1.5, 2.0])), lambda: x.div_(2), lambda: torch.tensor([True]).add_(1)):
    try:
        print(f())
    except RuntimeError as e:
        print(type(e).__name__, e)
y = torch.ones(2)
y += torch.tensor([1, 2])
y *= torch.tensor(2, dtype=torch.float64)
print(y, y.dtype)
#%% comparisons between dtypes
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.5]), torch.tensor([1.5]) > 1, torch.tensor([True]) == 1, torch.tensor([0.1], dtype=torch.float32) == 0.1)
print(torch.tensor([3]) < torch.tensor([3.5], dtype=torch.float16), torch.tensor([1 + 1j]) == 1 + 1j, torch.eq(torch.tensor([2]), 2.0).dtype)
#%% bool arithmetic
b = torch.tensor([True, False, True])
print(b + b, b * b, b & b, b | ~b, b ^ b, b.sum(), b.sum().dtype, b.float().mean(), b.int().cumsum(0), b.any(), b.all())
for f in (lambda: b - b, lambda: -b, lambda: b / b):
    try:
        print(f())
    except RuntimeError as e:
        print(type(e).__name__, e)
#%% reductions of small ints
x = torch.tensor([100, 100, 100], dtype=torch.uint8)
print(x.sum(), x.sum().dtype, x.prod(), x.cumsum(0), x.cumsum(0).dtype, x.cumprod(0).dtype, x.sum(dtype=torch.uint8), x.max(), x.float().mean())
i32 = torch.tensor([2**30, 2**30], dtype=torch.int32)
print(i32.sum(), i32.sum().dtype, i32 + i32, (i32 * 4).dtype)
try:
    x.mean()
except RuntimeError as e:
    print(type(e).__name__, e)
#%% float16 and bfloat16 arithmetic precision
h = torch.tensor([1000.0, 0.1, 65504.0], dtype=torch.float16)
print(h + 1, h * 2, h.sum(), h.mean(), (h + 0.0001), h.to(torch.float32))
bf = torch.tensor([1.0, 3.14159, 256.5], dtype=torch.bfloat16)
print(bf, bf * 3, bf + torch.tensor([1.0]), (bf + torch.tensor([1.0])).dtype, bf.sum(), bf.float())
#%% mixed float16 bfloat16
print((torch.ones(1, dtype=torch.float16) + torch.ones(1, dtype=torch.bfloat16)).dtype, (torch.ones(1, dtype=torch.bfloat16) * 2.5).dtype)
print(torch.ones(2, dtype=torch.float16).sum(dtype=torch.float32).dtype, torch.tensor([65504.0], dtype=torch.float16) * 2)
#%% where with scalars promotes
c = torch.tensor([True, False])
print(torch.where(c, 1, 0).dtype, torch.where(c, 1.0, 0).dtype, torch.where(c, torch.tensor([1, 2], dtype=torch.int32), 2.5).dtype)
print(torch.where(c, torch.tensor(1.0, dtype=torch.float64), torch.ones(2)).dtype, torch.where(c, torch.tensor([1], dtype=torch.uint8), -1).dtype)
#%% clamp with mixed types
x = torch.tensor([1, 5, 10])
print(x.clamp(2, 8), x.clamp(2.5, 7.5), x.clamp(min=torch.tensor(3)), x.clamp(max=torch.tensor([2.5, 2.5, 2.5])), torch.clamp(x.float(), 3, 2))
#%% python scalar ops on 0-d tensors
t = torch.tensor(3)
print(t + 2, 2 - t, t * 1.5, 10 / t, 10 // t, 10 % t, t ** 2, 2 ** t, float(t) / 2, int(torch.tensor(3.9)), int(torch.tensor(-3.9)), round(torch.tensor(2.5).item()))
print(abs(torch.tensor(-2)), -t, +t, ~torch.tensor(5), torch.tensor(5) >> 1, torch.tensor(5) << 2, 3 & torch.tensor(6))
#%% bitwise on types
print(torch.tensor([5], dtype=torch.uint8) >> 1, torch.tensor([-8]) >> 1, torch.tensor([1], dtype=torch.int8) << 7, torch.tensor([True]) ^ torch.tensor([False]))
try:
    torch.tensor([1.5]) & 1
except RuntimeError as e:
    print(type(e).__name__, e)
#%% torch.tensor inference from python data
print(torch.tensor([1, 2.0]).dtype, torch.tensor([True, 1]).dtype, torch.tensor([1, 2j]).dtype, torch.tensor(3).dtype, torch.tensor([[]]).shape, torch.tensor([]).dtype)
print(torch.tensor([1, 2], dtype=torch.float16), torch.tensor(2**40).dtype, torch.as_tensor([1.5, 2]).dtype, torch.tensor([torch.tensor(1.5), 2]).dtype)
try:
    torch.tensor([2**64])
except RuntimeError as e:
    print(type(e).__name__, e)
#%% tensor from numpy keeps dtype
import numpy as np
print(torch.from_numpy(np.array([1, 2], dtype=np.int32)).dtype, torch.tensor(np.float32(1.5)).dtype, torch.tensor(np.array(2.0)).dtype, torch.as_tensor(np.arange(3, dtype=np.uint16)).dtype)
print(torch.ones(2) + np.float64(1.5), (torch.ones(2) * np.int64(2)).dtype, (torch.ones(2, dtype=torch.int32) + np.float32(1)).dtype)
#%% sum of int and float lists and builtins
x = torch.arange(5)
print(sum(x), sum(x.float()), max(x), min(torch.tensor([3.0, -1.0])), sorted(torch.tensor([3, 1, 2])), list(x[:2]), x.tolist())
#%% true division and floor of int by zero
x = torch.tensor([1, 0, -1])
print(x / 0, x.float() // 0, torch.tensor([1.0, -1.0, 0.0]) % 0)
try:
    print(x // 0)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% rounding functions
x = torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.675])
print(x.round(), x.round(decimals=1), x.floor(), x.ceil(), x.trunc(), x.frac(), torch.round(torch.tensor([1234.5678]), decimals=-2))
print(torch.tensor([3, -3]).round(), torch.tensor([7]).floor().dtype, torch.tensor([1.25], dtype=torch.float16).round(decimals=1))
#%% sign and copysign and nan handling
x = torch.tensor([-2.0, -0.0, 0.0, 3.0, float("nan"), float("inf")])
print(x.sign(), x.sgn(), torch.copysign(torch.ones(6), x), x.signbit(), torch.nan_to_num(x), torch.nan_to_num(x, nan=1.0, posinf=9.0), x.isfinite(), x.isnan().sum())
#%% min max with nan
x = torch.tensor([1.0, float("nan"), 3.0])
print(x.max(), x.min(), x.argmax(), torch.maximum(x, torch.tensor(2.0)), torch.fmax(x, torch.tensor(2.0)), x.amax(), x.nanmean(), x.nansum(), torch.max(x, 0))
