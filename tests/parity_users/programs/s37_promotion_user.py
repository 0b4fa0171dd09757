import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% scalars and 0-d tensors
i32 = torch.tensor([1, 2], dtype=torch.int32)
u8 = torch.tensor([200, 100], dtype=torch.uint8)
i8 = torch.tensor([-5, 5], dtype=torch.int8)
f16 = torch.tensor([1., 2.], dtype=torch.float16)
for name, v in [('i32+1', i32 + 1), ('i32+1.5', i32 + 1.5), ('i32*True', i32 * True), ('u8+i8', u8 + i8), ('u8+300', u8 + 300 if False else u8 + 55),
                ('f16+1.0', f16 + 1.0), ('f16+t(1.)', f16 + torch.tensor(1.)), ('f16+t([1.])', f16 + torch.tensor([1.])), ('i32+t(1.)', i32 + torch.tensor(1.)),
                ('i32+t(1,i64)', i32 + torch.tensor(1)), ('u8-1', u8 - 1), ('i8*t(2.5,f64)', i8 * torch.tensor(2.5, dtype=torch.float64)),
                ('bool+bool', torch.tensor([True]) + torch.tensor([True])), ('bool+1', torch.tensor([True]) + 1), ('i32/2', i32 / 2), ('i32//2', i32 // 2),
                ('i32**2', i32 ** 2), ('2**i32', 2 ** i32), ('i32**0.5', i32 ** 0.5), ('f16*1e5', f16 * 1e5), ('c+i', torch.tensor([1j]) + i32),
                ('f32+c', torch.tensor([1.]) + 1j), ('f64_0d+f32', torch.tensor(1., dtype=torch.float64) + torch.ones(1)), ('i64_0d+u8', torch.tensor(300) + u8),
                ('u8 % -3', u8 % -3 if False else u8 % 3), ('i8 >> 1', i8 >> 1), ('i32 & True', i32 & True), ('max(u8,i8)', torch.maximum(u8, i8)),
                ('where', torch.where(torch.tensor([True, False]), i32, 2.5)), ('where2', torch.where(torch.tensor([True, False]), u8, torch.tensor(-1)))]:
    print(name, v, v.dtype)
print(torch.result_type(i32, 1.0), torch.result_type(u8, -1), torch.result_type(torch.tensor(1.), torch.tensor([1], dtype=torch.int8)), torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32))
#%% in-place promotion and out=
x = torch.tensor([1, 2], dtype=torch.int32)
show(lambda: x.add_(1.5))
show(lambda: x.mul_(torch.tensor(2.)))
x.add_(torch.tensor(3, dtype=torch.int64)); print(x, x.dtype)
f = torch.ones(2)
f.add_(torch.tensor([1, 2], dtype=torch.int64)); print(f, f.dtype)
f.mul_(torch.tensor(2., dtype=torch.float64)); print(f, f.dtype)
show(lambda: f.add_(torch.tensor([1j])))
out = torch.empty(2, dtype=torch.float64)
torch.add(torch.ones(2), torch.ones(2), out=out); print(out)
show(lambda: torch.add(torch.ones(2), torch.ones(2), out=torch.empty(2, dtype=torch.int32)))
show(lambda: torch.add(torch.ones(2, dtype=torch.int32), 1, out=torch.empty(2, dtype=torch.float32)))
show(lambda: torch.sum(torch.ones(2, dtype=torch.int32), dtype=torch.float64))
print(torch.ones(3, dtype=torch.int8).sum().dtype, torch.ones(3, dtype=torch.bool).sum(), torch.ones(3, dtype=torch.uint8).prod().dtype, torch.ones(3, dtype=torch.float16).sum().dtype)
print(torch.ones(3, dtype=torch.int32).cumsum(0).dtype, torch.ones(3, dtype=torch.int32).mean(dtype=torch.float32), torch.tensor([1, 2]).float().mean())
print(torch.tensor([3, 4]).norm() if False else torch.tensor([3., 4.]).norm(), torch.tensor([1, 2, 3]).div(2, rounding_mode='floor').dtype, torch.tensor([-7]).div(2, rounding_mode='trunc'))
#%% numeric corner values
print(torch.tensor([127], dtype=torch.int8) + 1, torch.tensor([0], dtype=torch.uint8) - 1, torch.tensor([2 ** 31 - 1], dtype=torch.int32) + 1)
print(torch.tensor([65504.], dtype=torch.float16) * 2, torch.tensor([1e-8], dtype=torch.float16), torch.tensor([1/3], dtype=torch.bfloat16).item())
print(torch.tensor([-7, 7]) // 2, torch.tensor([-7, 7]) % 3, torch.tensor([-7., 7.]) % -3, torch.fmod(torch.tensor([-7., 7.]), 3), torch.remainder(torch.tensor([-7]), 3))
print(torch.tensor([2.5, 3.5, -2.5]).round(), torch.tensor([1.25, 1.35]).round(decimals=1), torch.tensor([0.5]).to(torch.int64), torch.tensor([-1.7]).int())
print(torch.tensor([300.]).to(torch.uint8) if False else torch.tensor([255.9]).to(torch.uint8), torch.tensor([float('nan')]).long().dtype, torch.tensor([1e10]).float().int().dtype)
print(torch.tensor(5) / torch.tensor(2), torch.tensor(5) // torch.tensor(-2), torch.tensor(0.) / 0, torch.tensor(1) / 0)
print(torch.tensor([1, 2, 3]).float().std(), torch.tensor([1., 2., 3.]).var(unbiased=False), torch.tensor([5.]).std())
