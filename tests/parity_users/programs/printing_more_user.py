import torch
#%% every dtype repr small
for dt in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]:
    t = torch.tensor([0, 1, 2], dtype=torch.int64).to(dt) if dt not in (torch.bool,) else torch.tensor([True, False])
    print(repr(t), t.dtype.itemsize, t.dtype.is_floating_point, t.dtype.is_signed if not dt.is_complex else None)
#%% float formats with mixed magnitudes
vals = [[1.0, 2.0, 3.0], [0.1, 0.25, 100.0], [1e-5, 1.0, 1e5], [1e10, 1.0, 0.5], [123456.7, 0.001, 3.0],
        [float("nan"), 1.5, float("-inf")], [-0.0, 0.0, 1.0], [1e-10, 2e-10, 3e-10], [99999.5, 1.0, 2.0], [1e8, 1.0, 1.0]]
for v in vals:
    print(torch.tensor(v))
    print(torch.tensor(v, dtype=torch.float64))
#%% half and bfloat16 scientific
print(torch.tensor([1e-4, 6e4, 1.0], dtype=torch.float16))
print(torch.tensor([1e-30, 1e30, 3.0], dtype=torch.bfloat16))
print(torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16), torch.tensor([1 / 3], dtype=torch.float16))
print(torch.tensor(65504.0, dtype=torch.float16), torch.tensor(-1e-7, dtype=torch.float16))
#%% complex formats
print(torch.tensor([1 + 1j, 1e5 - 2j, 0.001j]))
print(torch.tensor([complex("nan+infj"), 2 - 0j], dtype=torch.complex128))
print(torch.tensor([[1.5 - 2.25j], [-3j]]))
print(torch.tensor(1e-8 + 1e8j))
#%% set_printoptions variants and restore
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.5]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 20.0]))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1e8]))
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(10), torch.arange(20).view(4, 5))
torch.set_printoptions(linewidth=30)
torch.set_printoptions(threshold=1000, edgeitems=3)
print(torch.arange(15.0))
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456789]), torch.arange(2000.0))
torch.set_printoptions(profile="full")
print(torch.arange(1001)[-3:], torch.get_printoptions() if hasattr(torch, "get_printoptions") else "")
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456789]))
#%% large summarized shapes
print(torch.zeros(1001))
print(torch.ones(2, 600, dtype=torch.int32))
print(torch.arange(3000).view(3, 1000)[:, ::1])
print(torch.zeros(40, 40, dtype=torch.bool))
#%% empty and odd shapes
for s in [(0,), (2, 0), (0, 3), (1, 1, 1), (2, 1, 0, 3)]:
    print(torch.zeros(s), torch.zeros(s).shape)
print(torch.tensor([]), torch.tensor([], dtype=torch.int64), torch.empty(0, dtype=torch.complex64))
#%% grad_fn requires_grad and names in repr
x = torch.ones(2, requires_grad=True)
print(x * 2, (x * 2).sum(), x.double(), x[0], x.view(2, 1), x.t() if x.dim() == 2 else x.unsqueeze(0).t())
print(torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(2, dtype=torch.int64), requires_grad=False))
with torch.no_grad():
    print(x * 3)
print(torch.ones(2, dtype=torch.float64, requires_grad=True).sum())
#%% str format and f-strings
t = torch.tensor(3.14159)
print(f"{t}", f"{t:.2f}", "{:>10}".format(str(t.item())), format(t, ".3e"))
try:
    print(f"{torch.tensor([1.0, 2.0]):.2f}")
except TypeError as e:
    print(e)
print(str(torch.tensor([1, 2])), repr(torch.tensor(True)), f"{torch.tensor(5):d}")
print(torch.Size([2, 3]), torch.Size([]), repr(torch.Size([1])), torch.Size([2, 3]) + (4,), str(torch.float32), repr(torch.device("cpu")))
#%% integer-valued floats and widths
print(torch.tensor([1.0, 10.0, 100.0, 1000.0]), torch.tensor([-1.0, 2.0]), torch.tensor([1e15, 1.0]))
print(torch.tensor([[1, -20], [300, 4]]), torch.tensor([2**62, -1]))
print(torch.tensor([0.5, -0.25]) * 1e-3, torch.tensor([12345678.0]))
#%% tensor reprs of views and non-contiguous and special layouts
a = torch.arange(12.0).view(3, 4)
print(a.t(), a[:, 1], a[::2, ::3], a.unsqueeze(1)[0])
print(a.to_sparse())
print(torch.tensor([[0, 1.5], [0, 0]]).to_sparse())
print(torch.zeros(2, 2).to(memory_format=torch.channels_last) if False else a.as_strided((2, 2), (1, 4)))
