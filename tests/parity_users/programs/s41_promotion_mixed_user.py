import torch
#%% tensor-tensor promotion across categories
i8, u8, i32, i64 = torch.tensor([1], dtype=torch.int8), torch.tensor([1], dtype=torch.uint8), torch.tensor([1], dtype=torch.int32), torch.tensor([1])
f16, bf16, f32, f64 = torch.ones(1, dtype=torch.float16), torch.ones(1, dtype=torch.bfloat16), torch.ones(1), torch.ones(1, dtype=torch.float64)
b, c64 = torch.tensor([True]), torch.ones(1, dtype=torch.complex64)
for p, q in ((i8, u8), (u8, i32), (i64, f16), (f16, bf16), (bf16, f64), (b, u8), (b, f16), (c64, f64), (i32, c64), (u8, b)):
    print(p.dtype, q.dtype, (p + q).dtype, (p * q).dtype)
#%% tensor-scalar and 0-d promotion
print((i8 + 1000).dtype, (i8 + 1000), (u8 - 2), (i32 * 2.5).dtype, (f16 + 1e5), (b + True).dtype, (b + 1).dtype)
print((i64 + torch.tensor(1.5)).dtype, (f16 + torch.tensor(1.0, dtype=torch.float64)).dtype, (i8 + torch.tensor(300)).dtype, (f32 + 1j).dtype)
print(torch.result_type(i8, 1.0), torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32))
#%% comparisons and where with mixed dtypes
print(torch.where(b, i8, f16).dtype, torch.where(torch.tensor([True, False]), 1, 2.0).dtype, (i64 == 1.0), torch.maximum(i8, f32).dtype)
print(torch.cat([i8, f16]).dtype, torch.stack([u8, i8]).dtype, torch.tensor([1, 2.0]).dtype, torch.tensor([True, 1]).dtype)
#%% in-place promotion errors
t = torch.ones(2, dtype=torch.int64)
try:
    t += 1.5
except RuntimeError as e:
    print(e)
try:
    t.mul_(torch.tensor([1.5, 2.0]))
except RuntimeError as e:
    print(e)
f = torch.ones(2)
f += torch.tensor([1, 2])
print(f, f.dtype)
try:
    torch.add(torch.ones(2), torch.ones(2), out=torch.empty(2, dtype=torch.int64))
except RuntimeError as e:
    print(e)
