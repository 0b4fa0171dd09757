import torch
#%% printing mixed magnitudes, sci mode and precision
print(torch.tensor([1e-5, 1.0, 1e5]), torch.tensor([0.1, 123456.0]), torch.tensor([1e10, 1.0]))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5]), torch.tensor([1, -2, 300]))
torch.set_printoptions(precision=2)
print(torch.tensor([3.14159, 2.71828]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([3.14159, 2.71828]))
torch.set_printoptions(profile="default")
print(torch.tensor([3.14159, 2.71828]))
#%% summarising big tensors and printing ints/bools/complex
torch.set_printoptions(threshold=10, edgeitems=2)
print(torch.arange(100), torch.arange(30).view(5, 6))
torch.set_printoptions(profile="default")
print(torch.tensor([True, False]), torch.tensor([1 + 2j, -0.5j]), torch.tensor([], dtype=torch.int64), torch.zeros(2, 0))
print(torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1.0, 2.5], dtype=torch.bfloat16), torch.tensor(3, dtype=torch.uint8))
#%% grad_fn and requires_grad in repr, named tensors aside, nested lists
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x, x * 2, (x * 2).sum(), x.detach(), torch.nn.Parameter(torch.ones(2)))
print(str(torch.tensor(5.0)), repr(torch.tensor(-0.0)), f"{torch.tensor(2.5):.3f}", torch.tensor([[1.5]]).tolist(), torch.tensor([2**40]))
print(torch.ones(2, 2, 2, dtype=torch.float64), torch.tensor([0.1, 0.2], dtype=torch.float64) * 3)
