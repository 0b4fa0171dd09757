import torch
#%% int dtypes
for dt in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
    print(torch.tensor([1, 2, 3], dtype=dt), repr(torch.tensor([[0, 5], [7, 100]], dtype=dt)))
print(torch.tensor(5, dtype=torch.int16), torch.tensor([-128, 127], dtype=torch.int8))
#%% float dtypes
for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    print(torch.tensor([1.0, 2.5, -3.25], dtype=dt))
    print(torch.tensor([[1e-4, 1e4]], dtype=dt))
    print(torch.tensor(0.1, dtype=dt))
#%% bool shapes
print(torch.tensor(True), torch.zeros(2, 3, dtype=torch.bool), torch.ones(0, 2, dtype=torch.bool))
print(torch.tensor([[True], [False]]), repr(torch.tensor([], dtype=torch.bool)))
#%% complex print
print(torch.tensor([1 + 1j, 2.5 - 3j, 0j]))
print(torch.tensor([[1e-5 + 1j, 1e5 - 2j]]), torch.tensor(3 + 4j), torch.tensor([1 + 2j], dtype=torch.complex128))
print(torch.tensor([complex(float("nan"), 1), complex(1, float("inf"))]))
print(torch.zeros(2, 2, dtype=torch.complex64))
#%% 0-d and empty
print(torch.tensor(1.5), torch.tensor(-0.0), torch.tensor(7), torch.tensor(1e20), torch.tensor(1e-20))
print(torch.empty(0), torch.empty(3, 0), torch.empty(0, 3, 2), torch.zeros(0, dtype=torch.int32), torch.zeros(2, 0, dtype=torch.float64))
print(repr(torch.empty(0, requires_grad=True)), torch.zeros(1, 1, 1, 1))
#%% inf nan mixes
print(torch.tensor([float("inf"), 1.0, 2.0]), torch.tensor([float("nan"), 1e-5]), torch.tensor([float("-inf"), 1e6]))
print(torch.tensor([float("nan"), float("nan")]), torch.tensor([float("inf")]), torch.tensor([1.0, float("nan"), 1e10]))
print(torch.tensor([[float("inf"), 0.5], [1e-3, float("nan")]], dtype=torch.float64))
#%% sci mode thresholds
print(torch.tensor([0.0001, 1.0]), torch.tensor([0.00001, 1.0]), torch.tensor([999.0, 1000.0, 0.1]))
print(torch.tensor([1e7, 1.0]), torch.tensor([1e8, 1.0]), torch.tensor([1e8]), torch.tensor([123456789.0]))
print(torch.tensor([0.5, 100.0, 1e-3]), torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 1e3]))
print(torch.tensor([-1e-5, 1e-5]), torch.tensor([1.0, -1.0]) * 1e-9, torch.tensor([0.0, 0.0]))
#%% integer-valued floats
print(torch.tensor([1.0, 100.0, 1e5]), torch.tensor([1e15, 1.0]), torch.tensor([1e16]), torch.tensor([2.0**60]))
print(torch.tensor([-3.0, 0.0, 3.0]), torch.arange(6.0).view(2, 3))
#%% set_printoptions variants
torch.set_printoptions(precision=6)
print(torch.tensor([1 / 3, 2 / 3]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.0, 2.0]), torch.tensor([1e-3]))
torch.set_printoptions(sci_mode=None, precision=4)
torch.set_printoptions(linewidth=30)
print(torch.arange(20.0))
torch.set_printoptions(profile="short")
print(torch.tensor([1 / 3, 1e5]), torch.arange(1000))
torch.set_printoptions(profile="full")
print(torch.arange(1001)[-5:])
torch.set_printoptions(profile="default")
#%% large tensors summarized
print(torch.arange(3000).view(30, 100))
print(torch.ones(2, 1000, dtype=torch.float64) / 3)
print(torch.arange(24).view(2, 3, 4)[:, :, :1])
#%% 3d 4d prints
print(torch.arange(24.0).view(2, 3, 4))
print(torch.arange(16).view(2, 2, 2, 2))
print(torch.zeros(2, 1, 3, dtype=torch.int8))
#%% tensor attributes print
x = torch.ones(2, requires_grad=True)
y = x * 2
print(y, y.sum(), x.mean(), (x + 1).exp())
z = x.detach()
print(z, torch.tensor([1.0]).to(torch.float16) * 2)
print(torch.tensor([1, 2], dtype=torch.int32) + 1, torch.tensor([1.0], dtype=torch.float64).sum())
#%% nondefault dtypes with grad
a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
print(a, a * 2, a.sum())
b = torch.tensor([1.0], dtype=torch.float16, requires_grad=True)
print(b, b + 1)
#%% str vs repr vs format
t = torch.tensor([1.5, 2.5])
print(str(t) == repr(t), f"{t}", "{}".format(t), [t], (t, 1), {"a": t})
print(f"{torch.tensor(1.23456):.2f}", f"{torch.tensor(2):5d}", f"{torch.tensor(3.0)}")
#%% item and tolist prints
print(torch.tensor(1.1).item(), torch.tensor(1.1, dtype=torch.float64).item(), torch.tensor([1.1, 2.2]).tolist())
print(torch.tensor([1, 2], dtype=torch.uint8).tolist(), torch.tensor(True).item(), torch.tensor(1 + 2j).item())
print(torch.tensor(0.1, dtype=torch.float16).item(), torch.tensor(0.1, dtype=torch.bfloat16).item())
#%% float16 bfloat16 rounding prints
print(torch.tensor([1 / 3], dtype=torch.float16), torch.tensor([1 / 3], dtype=torch.bfloat16), torch.tensor([65504.0], dtype=torch.float16))
print(torch.tensor([1e-8], dtype=torch.float16), torch.tensor([70000.0], dtype=torch.float16), torch.tensor([3e38], dtype=torch.bfloat16))
#%% printing nested list conversions
print(torch.tensor([[1, 2], [3, 4]]).T, torch.tensor([[1.0, 2.0]]).t().contiguous(), torch.arange(4).view(2, 2)[:, 1])
print(torch.arange(10)[::3], torch.arange(10.0).flip(0), torch.arange(6).view(2, 3).expand(2, 2, 3))
#%% dtype and device printing
print(torch.float32, torch.float, torch.double, torch.half, torch.long, torch.int, torch.bool, torch.complex64, torch.cfloat, torch.bfloat16, torch.uint8)
print(torch.device("cpu"), torch.device("cpu", 0), repr(torch.device("cpu")), torch.device("cuda:1"), torch.device("meta"))
print(torch.Size([]), torch.Size([0]), torch.Size([1, 2]) + torch.Size([3]), torch.zeros(2, 3).shape[1:], torch.zeros(2, 3).size())
print(torch.finfo(torch.float32), torch.finfo(torch.bfloat16).eps, torch.iinfo(torch.int64).max, torch.finfo().tiny)
