import torch
#%% broadcasting edge cases
a = torch.ones(3, 1)
b = torch.arange(4.)
print((a + b).shape, (torch.ones(0, 1) + b).shape, (torch.ones(2, 1, 3) * torch.ones(4, 1)).shape)
try:
    torch.ones(2, 3) + torch.ones(3, 2)
except RuntimeError as e:
    print(str(e))
print(torch.broadcast_shapes((1, 3), (2, 1), (3,)), torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))[1].shape)
try:
    torch.ones(3).add_(torch.ones(2, 3))
except RuntimeError as e:
    print(str(e))
#%% dtype promotion with scalars and tensors
i = torch.tensor([1, 2, 3])
print((i + 1.5).dtype, (i * True).dtype, (i / 2).dtype, (i // 2).dtype, (i + torch.tensor(2.0)).dtype)
print((torch.tensor([1], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)).dtype)
print((torch.tensor([1.0], dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float64)).dtype)
print((torch.tensor([1.0], dtype=torch.float16) + torch.tensor([1.0], dtype=torch.float64)).dtype)
print((torch.tensor([True]) + torch.tensor([True])).dtype, (torch.tensor([1]) + 1j).dtype, torch.tensor([3]).pow(2.0).dtype)
print(torch.result_type(i, 2.0), torch.promote_types(torch.int32, torch.float16), torch.can_cast(torch.float32, torch.int32))
try:
    i += 1.5
except RuntimeError as e:
    print(str(e))
#%% integer division and remainder signs
n = torch.tensor([-7, 7, -7, 7])
d = torch.tensor([2, -2, -2, 2])
print(n // d, n % d, torch.fmod(n, d), torch.remainder(n, d), torch.div(n, d, rounding_mode="trunc"))
print(torch.div(n, d), torch.div(n.float(), 0.0), torch.tensor([5]) // torch.tensor([0.0]))
try:
    print(torch.tensor([5]) // torch.tensor([0]))
except RuntimeError as e:
    print(str(e))
#%% where with scalars
c = torch.tensor([True, False, True])
print(torch.where(c, 1.0, 0), torch.where(c, torch.tensor([1, 2, 3]), 0.5).dtype, torch.where(c, 2, 3).dtype)
print(torch.where(c, torch.ones(3, dtype=torch.float16), 2.0).dtype, torch.where(torch.tensor([[0, 5], [3, 0]])))
