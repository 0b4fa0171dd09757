import torch
#%% empty shapes
print(torch.empty(0), torch.empty(2, 0), torch.empty(0, 3, dtype=torch.int64))
print(torch.zeros(0, dtype=torch.bool), torch.empty(1, 0, 2, dtype=torch.float16))
print(repr(torch.empty(0, dtype=torch.complex64)))
#%% scalars of each dtype
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]:
    print(torch.tensor(3, dtype=dt), torch.tensor([0, 1], dtype=dt))
#%% unsigned wide types
for dt in [torch.uint16, torch.uint32, torch.uint64]:
    print(torch.tensor([1, 2], dtype=dt))
#%% large and small magnitudes
print(torch.tensor([1e-10, 1.0, 1e10]))
print(torch.tensor([1e-3, 1e3]))
print(torch.tensor([123456789.0, 1.5]))
print(torch.tensor([0.1, 0.25, 100.0]))
print(torch.tensor([1e20, -1e-20], dtype=torch.float64))
print(torch.tensor([1.0, 2.0, 3.0]) * 1e-5)
#%% integers that look like floats
print(torch.tensor([1.0, 2.0, -3.0]), torch.tensor([100000.0, 2.0]), torch.tensor([1e16, 1.0]))
#%% nan inf mixes
print(torch.tensor([float("nan"), 1.0, float("inf"), -float("inf")]))
print(torch.tensor([float("nan")]), torch.tensor([float("inf"), 1.5]))
print(torch.tensor([float("nan"), 1e-8, 1e8]))
print(torch.full((2,), float("nan"), dtype=torch.float16))
#%% negative zero
print(torch.tensor([-0.0, 0.0, 1.5]), torch.tensor(-0.0))
#%% summarized long tensors
print(torch.arange(2000))
print(torch.arange(2000.0).reshape(100, 20))
print(torch.zeros(3, 2000, dtype=torch.bool))
print(torch.arange(1001, dtype=torch.float64))
#%% printoptions
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.0]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 2.0]))
torch.set_printoptions(profile="short")
print(torch.arange(20.0) / 3)
torch.set_printoptions(profile="full")
print(torch.arange(30))
torch.set_printoptions(profile="default", linewidth=40)
print(torch.arange(30.0))
torch.set_printoptions(profile="default", threshold=5, edgeitems=1)
print(torch.arange(10))
torch.set_printoptions(profile="default")
#%% requires grad and grad_fn reprs
x = torch.ones(2, requires_grad=True)
print(x, x * 2, (x * 2).sum(), x[0], x.view(2, 1), x.T if False else x.unsqueeze(0).t())
print(torch.tensor(1.0, requires_grad=True), torch.tensor([1], dtype=torch.float64, requires_grad=True))
#%% nested 3d and 4d
print(torch.arange(24).reshape(2, 3, 4))
print(torch.arange(8.0).reshape(2, 1, 2, 2))
#%% non default dtype suffix
print(torch.tensor([1.5, 2.5], dtype=torch.float64), torch.tensor([1, 2], dtype=torch.int32))
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.5]), torch.tensor([1.5], dtype=torch.float32))
torch.set_default_dtype(torch.float32)
#%% str format of scalars
t = torch.tensor(3.14159)
print(f"{t:.2f}", "{:>8.3f}".format(t), str(t), format(torch.tensor(7), "d") if False else int(t))
try:
    print(f"{torch.ones(2):.2f}")
except Exception as e:
    print(type(e).__name__, e)
#%% tolist item and numpy repr
print(torch.tensor([[1.5, 2]]).tolist(), torch.tensor(2.5).item(), torch.tensor([True]).tolist())
print(repr(torch.tensor([1, 2]).numpy()), torch.tensor(3).numpy().dtype)
#%% size dtype device reprs
print(torch.Size([2, 3]), repr(torch.Size([])), torch.Size([1]) + (2,), torch.float32, repr(torch.int64), torch.device("cpu"), repr(torch.device("cpu", 0)) if False else repr(torch.device("cpu")))
print(torch.ones(2, 3).size(), torch.ones(2, 3).shape[1], torch.finfo(torch.float32), torch.iinfo(torch.int8))
#%% complex printing variety
print(torch.tensor([1 + 1e-8j, 1e5 - 2j]))
print(torch.tensor([[1 + 2j, -3.5j], [0j, 1e-3 + 0j]], dtype=torch.complex128))
#%% bfloat16 and half values
print(torch.tensor([1.1, 2.2, 1000.5], dtype=torch.bfloat16), torch.tensor([1.1, 65000.0, 1e-4], dtype=torch.float16))
#%% parameters and buffers print
print(torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2), requires_grad=False))
print(torch.nn.Buffer(torch.zeros(1)) if hasattr(torch.nn, "Buffer") else None)
#%% int edge values
print(torch.tensor([2**63 - 1, -2**63]), torch.tensor([255], dtype=torch.uint8), torch.tensor([-128, 127], dtype=torch.int8))
#%% named and strided views print
x = torch.arange(12.0).reshape(3, 4)
print(x[:, ::2], x.t(), x[1], x[..., -1], x.diagonal())
#%% meta tensors
print(torch.empty(2, 3, device="meta"), torch.ones(2, dtype=torch.int64, device="meta"))
