import numpy as np
import torch

#%% from_numpy shares memory, torch.tensor copies
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = torch.from_numpy(a)
c = torch.tensor(a)
a[0, 0] = 100
print(t[0, 0].item(), c[0, 0].item(), t.dtype, t.is_contiguous())
t.add_(1)
print(a)
n = t.numpy()
n[1, 1] = -5
print(t[1, 1], np.shares_memory(n, a))

#%% numpy dtypes map to torch dtypes
for dt in [np.float16, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_, np.complex64, np.complex128]:
    print(dt.__name__, torch.from_numpy(np.zeros(2, dtype=dt)).dtype)
try:
    torch.from_numpy(np.zeros(2, dtype=np.uint64))
except TypeError as e:
    print("uint64", e)
try:
    torch.from_numpy(np.array(["a"]))
except TypeError as e:
    print(e)

#%% numpy functions applied to tensors
t = torch.tensor([1.0, 4.0, 9.0])
r = np.sqrt(t)
print(type(r).__name__, r)
print(np.add(t, 1), np.maximum(t, 2.0))
print(np.asarray(t).dtype, np.array(t, dtype=np.float64))
print(np.stack([torch.ones(2), torch.zeros(2)]))
print(np.concatenate([torch.ones(1).numpy(), np.zeros(1)]).dtype)

#%% tensors built from numpy scalars and mixed lists
print(torch.tensor(np.float32(1.5)).dtype, torch.tensor(np.float64(1.5)).dtype)
print(torch.tensor([np.int64(2), 3]).dtype, torch.tensor(np.array(2)).shape)
print(torch.ones(2) * np.float64(2.0), (torch.ones(2) * np.float64(2.0)).dtype)
print((torch.ones(2, dtype=torch.int32) + np.int64(1)).dtype)
print(torch.as_tensor([1, 2], dtype=torch.float32), torch.as_tensor(np.ones(2)).dtype)
print(torch.zeros(np.int64(3)).shape, torch.randn(2, np.int32(2)).shape)

#%% tensor index with numpy arrays and numpy index with tensors
x = torch.arange(10) * 10
print(x[np.array([1, 3])], x[np.array([True, False] * 5)])
print(x[np.int64(4)], x[np.arange(2, 8, 2)])
arr = np.arange(10) * 10
print(arr[torch.tensor([2, 5])], arr[torch.tensor(3)])

#%% tolist, item, and python conversions
t = torch.tensor([[1.5, 2.25], [3.0, -0.0]])
print(t.tolist(), t[0, 1].item(), type(t[0, 1].item()).__name__)
print(int(torch.tensor(3.9)), float(torch.tensor(2)), bool(torch.tensor([0.0])))
print(torch.tensor([1, 2], dtype=torch.uint8).tolist(), torch.tensor([True]).tolist())
print(torch.tensor(2.5, dtype=torch.bfloat16).item(), torch.tensor([1 + 2j]).tolist())
print(f"{torch.tensor(3.14159):.2f}", "{:>8.3f}".format(torch.tensor(2.0).item()))
try:
    f"{torch.ones(2):.2f}"
except TypeError as e:
    print(e)

#%% numpy of tensors needing detach or conversion
x = torch.ones(2, requires_grad=True)
print(x.detach().numpy(), x.numpy(force=True))
try:
    torch.ones(2, dtype=torch.bfloat16).numpy()
except TypeError as e:
    print(e)
print(torch.ones(2, dtype=torch.bfloat16).float().numpy())
s = torch.arange(6).reshape(2, 3).t()
print(s.numpy().strides, s.numpy().flags["C_CONTIGUOUS"])

#%% numpy random data through a model keeps dtype rules
rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3))
lin = torch.nn.Linear(3, 2)
try:
    lin(torch.from_numpy(X))
except RuntimeError as e:
    print(e)
print(lin(torch.from_numpy(X).float()).shape, lin(torch.tensor(X, dtype=torch.float32)).dtype)

#%% comparisons and equality between tensors and arrays
t = torch.tensor([1, 2, 3])
print(t == torch.from_numpy(np.array([1, 0, 3])), (t.numpy() == np.array([1, 0, 3])).all())
print(torch.equal(t, torch.tensor(np.array([1, 2, 3]))), np.allclose(t, [1, 2, 3]))
print(torch.allclose(torch.tensor([1.0]), torch.tensor([1.0 + 1e-9])), torch.isclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1])))
