import torch
#%% print values
print(torch.tensor([1e-8, 1.0]), torch.tensor([1e10, 1.0]), torch.tensor([123456.789]), torch.tensor([0.1, 0.25]), torch.tensor(3.0), torch.tensor([-0.0, 0.0]))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5]), torch.tensor([1, -2, 300]), torch.tensor([True, False]), torch.tensor([1e-5, 1e5]))
print(torch.tensor([1 + 2j, -0.5j]), torch.tensor([1.5], dtype=torch.float16), torch.tensor([1.5], dtype=torch.bfloat16), torch.tensor([2], dtype=torch.uint8), torch.tensor([1.0], dtype=torch.float64))
print(torch.arange(2000), torch.arange(12.0).view(3, 4) / 7, torch.zeros(2, 0), torch.empty(0, dtype=torch.int64), torch.tensor([], dtype=torch.float16))
print(torch.ones(2, 2, requires_grad=True) * 2, torch.ones(1, requires_grad=True), torch.randn(3, 3, 300).sum(-1).shape)
print(repr(torch.tensor([100000.0, 0.001])), torch.tensor([1.0, 2.0]).double() / 3, torch.tensor([[1e-10, 1e10]]))
print(torch.tensor([12345678.0, 1.0]), torch.tensor([0.000123, 1]), torch.tensor(float("nan")), torch.tensor([1e300, 1e-300], dtype=torch.float64))
#%% print options
torch.set_printoptions(precision=2, sci_mode=False)
print(torch.tensor([1e-8, 1.23456, 1000.5]))
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(10), torch.arange(20).view(4, 5))
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456789]))
#%% str of params and sizes
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
print(p, repr(torch.Size([2, 3])), torch.float32, torch.device("cpu"), torch.zeros(2).dtype, str(torch.int64), torch.finfo(torch.float16), torch.iinfo(torch.int8))
print(f"{torch.tensor(2.5):.3f}", format(torch.tensor(3), "d"), "%s" % torch.tensor([1]))
#%% format nonscalar
print(f"{torch.tensor([1.0, 2.0]):.2f}")
