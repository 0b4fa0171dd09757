import torch
#%% division and modulo with negatives
a = torch.tensor([7, -7, 7, -7])
b = torch.tensor([2, 2, -2, -2])
print(a / b, a // b, a % b, torch.fmod(a, b), torch.remainder(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
print(torch.tensor([7.5, -7.5]) // 2, torch.tensor([7.5, -7.5]) % 2, 7 // torch.tensor([2, -2]), -7 % torch.tensor([3]))
try:
    torch.tensor([1]) // torch.tensor([0])
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor([1.0]) / 0, torch.tensor([-1.0]) // 0, torch.tensor([0.0]) / 0)
try:
    torch.div(a, b, rounding_mode="round")
except Exception as e:
    print(type(e).__name__, e)
#%% powers
print(torch.tensor([2, 3]) ** 2, torch.tensor([2, 3]) ** 0.5, 2 ** torch.tensor([1, 2]), torch.tensor([4]) ** torch.tensor([0.5]))
for f in [lambda: torch.tensor([2]) ** -1, lambda: torch.tensor([2]) ** torch.tensor([-1]), lambda: torch.pow(2, torch.tensor([-1])),
          lambda: torch.tensor([-8.0]) ** (1 / 3), lambda: torch.tensor([0.0]) ** -1, lambda: torch.tensor([2], dtype=torch.int8) ** 10,
          lambda: torch.tensor([True]) ** 2, lambda: torch.tensor([2.]) ** torch.tensor([1, 2]), lambda: torch.tensor(2) ** -2.0]:
    try:
        r = f()
        print(r, r.dtype)
    except Exception as e:
        print(type(e).__name__, e)
#%% rounding and casting
print(torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5])), torch.round(torch.tensor([1.2345, 9.8765]), decimals=2))
print(torch.tensor([2.7, -2.7]).int(), torch.tensor([2.7, -2.7]).long(), torch.tensor([300, -1]).to(torch.uint8), torch.tensor([1e10]).int().dtype)
print(torch.tensor([0.1, 0.2]).sum() == 0.3, (torch.tensor(0.1) + torch.tensor(0.2)).item(), torch.tensor(0.1, dtype=torch.float64) * 3)
print(torch.tensor([70000.]).half(), torch.tensor([1e-8]).half(), torch.tensor([1.00390625]).bfloat16())
print(torch.trunc(torch.tensor([-1.7])), torch.ceil(torch.tensor([-1.2])), torch.floor(torch.tensor([1.9], dtype=torch.float16)), torch.frac(torch.tensor([-1.25])))
#%% promotion between tensors and scalars
i8 = torch.tensor([1], dtype=torch.int8)
u8 = torch.tensor([1], dtype=torch.uint8)
f16 = torch.tensor([1.], dtype=torch.float16)
print((i8 + u8).dtype, (i8 + 1000).dtype, (u8 + 1.5).dtype, (f16 + 1.0).dtype, (f16 + torch.tensor(1.0)).dtype)
print((f16 + torch.tensor([1.0])).dtype, (i8 + torch.tensor(1.5, dtype=torch.float64)).dtype, (torch.tensor(True) + True).dtype)
print((u8 * -1), (i8 + 127), torch.tensor([1], dtype=torch.int32) / 2, (torch.tensor([1]) + 1j).dtype)
print(torch.result_type(i8, 1.0), torch.result_type(torch.tensor(1), torch.tensor([1.], dtype=torch.float16)), torch.promote_types(torch.uint8, torch.int8))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16))
x = torch.tensor([1, 2])
try:
    x += 0.5
except Exception as e:
    print(type(e).__name__, e)
try:
    x.add_(torch.tensor([1.5, 1.5]))
except Exception as e:
    print(type(e).__name__, e)
x.mul_(torch.tensor(2))
print(x)
#%% bitwise and shifts, comparisons
a = torch.tensor([5, -3, 12], dtype=torch.int16)
print(a & 3, a | 8, a ^ -1, ~a, a << 2, a >> 1, torch.bitwise_left_shift(a, torch.tensor([1, 2, 3], dtype=torch.int16)))
print(torch.tensor([True, False]) & torch.tensor([True, True]), ~torch.tensor([True, False]), torch.tensor([True]) ^ True)
try:
    torch.tensor([1.5]) & 1
except Exception as e:
    print(type(e).__name__, e)
try:
    ~torch.tensor([1.5])
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.5]), torch.tensor([float("nan")]) == torch.tensor([float("nan")]), torch.eq(torch.tensor([1]), 1.0))
print(torch.equal(torch.tensor([1, 2]), torch.tensor([1., 2.])), torch.allclose(torch.tensor([1.]), torch.tensor([1. + 1e-9])), torch.isclose(torch.tensor([1., float("nan")]), torch.tensor([1., float("nan")]), equal_nan=True))
try:
    torch.allclose(torch.tensor([1]), torch.tensor([1.]))
except Exception as e:
    print(type(e).__name__, e)
