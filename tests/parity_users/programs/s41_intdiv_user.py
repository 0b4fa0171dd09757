import torch
#%% floor division and remainder with signs
a = torch.tensor([7, -7, 7, -7])
b = torch.tensor([2, 2, -2, -2])
print(a // b, a % b, torch.fmod(a, b), torch.remainder(a, b), torch.div(a, b), torch.div(a, b, rounding_mode="trunc"), torch.div(a, b, rounding_mode="floor"))
print(a / b, (a / b).dtype, torch.true_divide(a, 2))
#%% floats with signs, zeros and inf
x = torch.tensor([5.5, -5.5, 0.0, -0.0, float("inf")])
print(x // 2, x % 2, torch.fmod(x, -2), x % -2, x // -0.0 if False else x / 0)
print(torch.tensor([1.0, -1.0]) // 0, torch.tensor([1.0, -1.0]) % 0, torch.tensor(-0.0) // 1)
#%% integer division by zero
try:
    print(torch.tensor([1, 2]) // 0)
except RuntimeError as e:
    print(e)
try:
    print(torch.tensor([1, 2]) % torch.tensor([0, 1]))
except RuntimeError as e:
    print(e)
print(torch.tensor([1, 2]) / 0, torch.tensor([0]) / 0)
#%% scalars and dtypes
print(torch.tensor([5], dtype=torch.uint8) // 2, torch.tensor([-5], dtype=torch.int8) % 3, (torch.tensor([9]) // 2.0).dtype, 7 // torch.tensor([2, -2]), 7 % torch.tensor([3, -3]))
print(torch.tensor([2**62]) // 3, torch.tensor([-2**63]) // -1 if False else torch.tensor([-9]) // 4, torch.floor_divide(torch.tensor([5.0]), 2))
print(torch.tensor([1.0, 2.0]).div_(2), torch.tensor([3, 4]).div(2, rounding_mode="floor").dtype)
try:
    torch.tensor([3, 4]).div_(2)
except RuntimeError as e:
    print(e)
