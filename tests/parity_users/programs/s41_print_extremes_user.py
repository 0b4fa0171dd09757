import torch
#%% int64 extremes, unsigned and bool
print(torch.tensor([-2**63, 2**63 - 1]), torch.tensor([0, 255], dtype=torch.uint8), torch.iinfo(torch.int64).max)
print(torch.tensor([[True], [False]]), torch.tensor([-32768, 32767], dtype=torch.int16))
print(torch.tensor([1, 2, 3]) * 10**15, torch.tensor([-5, 5]).float() / 3)
#%% negative zero, huge and tiny floats
print(torch.tensor([-0.0, 0.0, 1.0]), torch.tensor([1e-38, 1.0]), torch.tensor([3.4e38, -3.4e38]))
print(torch.tensor([1e-45]), torch.tensor([5e-324], dtype=torch.float64), torch.tensor([1e300, 1e-300], dtype=torch.float64))
print(torch.tensor([float("inf"), 1.0, 2.0]), torch.tensor([float("nan"), 100.0]), torch.tensor([float("inf"), 1e-5]))
#%% integral floats print with a trailing dot
print(torch.tensor([18.0]), torch.tensor(18.0), torch.tensor([1.0, -2.0, 300.0]), torch.tensor([1e6, 2e6]))
print(torch.tensor([123456789.0]), torch.tensor([0.5, 1e9]), torch.tensor([1.0, 1e16], dtype=torch.float64))
#%% complex edges
print(torch.tensor([complex(float("inf"), 1), complex(0, float("nan"))]), torch.tensor([-0.0 - 0.0j]))
print(torch.tensor([1e10 + 1j, 1e-10 - 1j], dtype=torch.complex128), torch.tensor([[1j, 2], [3, 4 - 1j]]))
