import torch
#%% python scalars with every dtype
dts = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
       torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
for dt in dts:
    t = torch.ones(2, dtype=dt)
    row = []
    for s in (True, 2, 2.5, 1j):
        if dt is torch.float16 and s == 1j:
            continue  # complex32 (README: a dtype object only)
        try:
            row.append(str((t + s).dtype).replace("torch.", ""))
        except Exception as e:
            row.append(type(e).__name__)
    print(str(dt), row)
#%% 0-d tensors with every dtype
dts = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64,
       torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64]
for a in dts:
    row = []
    for b in dts:
        if a is torch.float16 and b.is_complex:
            continue  # complex32 (README: a dtype object only)
        r = torch.ones(2, dtype=a) * torch.tensor(1, dtype=b)
        row.append(str(r.dtype)[6:])
    print(str(a)[6:], " ".join(row))
#%% result_type and promote_types table
dts = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.float16, torch.bfloat16, torch.complex32 if hasattr(torch, "complex32") else torch.complex64]
for a in dts:
    print([str(torch.promote_types(a, b))[6:] for b in dts])
print(torch.result_type(torch.tensor([1], dtype=torch.uint8), -1))
print(torch.result_type(torch.tensor(1.0, dtype=torch.float16), torch.tensor([1], dtype=torch.int32)))
print(torch.result_type(2, 3.0), torch.result_type(True, False), torch.result_type(1j, 2))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16), torch.can_cast(torch.complex64, torch.float64), torch.can_cast(torch.bool, torch.uint8))
#%% division and floor division dtypes
for dt in (torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16):
    a = torch.tensor([5, 3], dtype=dt) if dt is not torch.bool else torch.tensor([True, True])
    res = []
    for op in (lambda x: x / 2, lambda x: x // 2, lambda x: x % 2, lambda x: 2 / x, lambda x: x ** 2, lambda x: x ** 0.5, lambda x: 2 ** x):
        try:
            r = op(a)
            res.append(f"{str(r.dtype)[6:]}:{r.tolist()}")
        except Exception as e:
            res.append(f"{type(e).__name__}:{e}")
    print(str(dt)[6:], res)
#%% true_divide rounding_mode
a = torch.tensor([-7, 7, -8], dtype=torch.int32)
print(torch.div(a, 2, rounding_mode="floor"), torch.div(a, 2, rounding_mode="trunc"), torch.div(a, 2))
print(torch.div(a, -2.0, rounding_mode="floor").dtype, torch.div(a.to(torch.int8), torch.tensor(2, dtype=torch.int64), rounding_mode="trunc").dtype)
try:
    torch.div(a, 0, rounding_mode="floor")
except RuntimeError as e:
    print(e)
print(torch.div(torch.tensor([1.0, -1.0, 0.0]), 0, rounding_mode="floor"))
try:
    torch.div(a, 2, rounding_mode="round")
except Exception as e:
    print(type(e).__name__, e)
#%% in-place promotion errors
a = torch.ones(3, dtype=torch.int32)
for s in (2, 2.5, True, 1j, torch.tensor(2.5), torch.tensor([2.5, 1, 1])):
    try:
        b = a.clone()
        b.add_(s)
        print("ok", b, b.dtype)
    except RuntimeError as e:
        print(e)
h = torch.ones(2, dtype=torch.float16)
h.mul_(torch.tensor(3.0, dtype=torch.float64))
print(h, h.dtype)
bb = torch.tensor([True, False])
for s in (1, True, 1.0):
    try:
        c = bb.clone(); c.add_(s); print(c)
    except RuntimeError as e:
        print(e)
#%% comparisons and bool arithmetic
b = torch.tensor([True, False])
print(b + b, b * b, b - 0, b * 1.5)
try:
    print(b - b)
except RuntimeError as e:
    print(e)
try:
    print(-b)
except RuntimeError as e:
    print(e)
print(~b, b ^ True, b & torch.tensor([1, 1]), (b | 2).dtype)
print(torch.tensor([1, 2]) == 1.0, torch.tensor([1.5]) > 1, torch.tensor([1j]) == 1j)
try:
    torch.tensor([1j]) > 0
except RuntimeError as e:
    print(e)
#%% bfloat16 and half arithmetic values
x = torch.tensor([1.0, 1.0 / 3, 100.7, 1e-3, 65504.0, 3.14159])
for dt in (torch.float16, torch.bfloat16):
    y = x.to(dt)
    print(y, (y * 3).tolist(), (y + 0.001).tolist(), y.sum(), y.mean(), y.float().tolist())
print(torch.tensor(70000.0).half(), torch.tensor(1e-8).half(), torch.tensor(1e40).bfloat16())
print(torch.tensor([0.1, 0.2], dtype=torch.bfloat16) + torch.tensor([0.3], dtype=torch.float16))
#%% int overflow with python scalars
a = torch.tensor([100], dtype=torch.int8)
print(a + 100, a * 2, (a + 100).dtype)
try:
    print(a + 1000)
except RuntimeError as e:
    print(e)
u = torch.tensor([250], dtype=torch.uint8)
print(u + 10, u - 251, u * 2)
try:
    print(u + -300)
except RuntimeError as e:
    print(e)
print(torch.tensor([2**62]) * 4, torch.tensor([1], dtype=torch.int32) + 2**31 - 1)
try:
    torch.tensor([1], dtype=torch.int32) + 2**63
except RuntimeError as e:
    print(e)
#%% complex with real ops
c = torch.tensor([1 + 2j, -3j], dtype=torch.complex64)
print(c + torch.tensor([1.0], dtype=torch.float64), (c * 2.5).dtype, (c + torch.tensor(1.5, dtype=torch.float64)).dtype)
print(torch.tensor([1, 2]) * 1j, torch.tensor([True]) + 1j)
print(c.abs(), c.angle(), c.real.dtype, torch.view_as_real(c))
try:
    torch.tensor([1.0]).add_(1j)
except RuntimeError as e:
    print(e)
try:
    c.clamp(0, 1)
except RuntimeError as e:
    print(e)
#%% where and cat promotion
print(torch.where(torch.tensor([True, False]), torch.tensor([1]), 2.5).dtype)
print(torch.where(torch.tensor([True, False]), 1, 0).dtype, torch.where(torch.tensor([True]), 1.0, 0).dtype)
print(torch.cat([torch.tensor([1], dtype=torch.uint8), torch.tensor([-1], dtype=torch.int8)]))
print(torch.cat([torch.tensor([1.5], dtype=torch.float16), torch.tensor([2], dtype=torch.int64)]).dtype)
print(torch.cat([torch.tensor([True]), torch.tensor([2.5], dtype=torch.bfloat16)]))
print(torch.stack([torch.tensor(1), torch.tensor(2.0)]).dtype)
#%% reductions dtype defaults
for dt in (torch.bool, torch.uint8, torch.int8, torch.int32, torch.float16, torch.bfloat16):
    t = torch.ones(3, dtype=dt)
    out = [str(t.sum().dtype)[6:], str(t.prod().dtype)[6:], str(t.cumsum(0).dtype)[6:]]
    try:
        out.append(str(t.mean().dtype)[6:])
    except RuntimeError as e:
        out.append(str(e))
    print(str(dt)[6:], out)
print(torch.ones(3, dtype=torch.int32).sum(dtype=torch.int8).dtype, torch.ones(2, dtype=torch.int32).mean(dtype=torch.float64))
#%% scalar tensor vs dimensioned priority
print((torch.tensor([1], dtype=torch.int8) + torch.tensor(1000)).dtype, torch.tensor([1], dtype=torch.int8) + torch.tensor(1000))
print((torch.tensor([1.0], dtype=torch.float16) + torch.tensor(1e6, dtype=torch.float64)))
print((torch.tensor(1.0) + torch.tensor([1], dtype=torch.int64)).dtype, (torch.tensor(1, dtype=torch.int64) + torch.tensor([True])).dtype)
print((torch.tensor(2.0, dtype=torch.float64) * torch.tensor([1], dtype=torch.int16)).dtype)
#%% min max clamp with mixed types
a = torch.tensor([1, 5, 9])
print(torch.clamp(a, 2.5, 7.5), torch.clamp(a, min=torch.tensor(3)), a.clamp(max=4).dtype)
print(torch.maximum(a, torch.tensor([2.0])), torch.minimum(torch.tensor([True, False]), torch.tensor([0.5])))
print(torch.max(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([3], dtype=torch.int8)))
try:
    torch.clamp(a, min=torch.tensor([1.5]))
    print("ok")
except RuntimeError as e:
    print(e)
#%% bitwise and shifts
a = torch.tensor([1, 2, -8], dtype=torch.int16)
print(a << 2, a >> 1, a & 3, a | torch.tensor(4, dtype=torch.int64), a ^ 0xFF, ~a)
try:
    torch.tensor([1.5]) & 1
except RuntimeError as e:
    print(e)
print(torch.tensor([1], dtype=torch.uint8) << 9, torch.bitwise_left_shift(torch.tensor([3]), torch.tensor([62])))
print(torch.tensor([True]) << 1)
