import numpy as np
import torch
#%% from_numpy shares memory, as_tensor/tensor copy rules
a = np.arange(4, dtype=np.float32)
t = torch.from_numpy(a)
a[0] = 100
print(t, torch.as_tensor(a) is not None, torch.tensor(a).data_ptr() == t.data_ptr(), torch.as_tensor(a).data_ptr() == t.data_ptr())
print(torch.from_numpy(np.array([1, 2], dtype=np.int16)).dtype, torch.tensor(np.float64(2.5)).dtype, torch.tensor(np.array(3)).shape)
try:
    torch.from_numpy(np.array(["a"]))
except TypeError as e:
    print(str(e))
print(torch.from_numpy(np.arange(6).reshape(2, 3)[:, ::2]).stride())
try:
    torch.from_numpy(np.arange(6)[::-1])
except ValueError as e:
    print(str(e)[:150])
#%% numpy() on views and numpy ufuncs on tensors
x = torch.arange(6.).view(2, 3)
n = x.t().numpy()
n[0, 1] = -1
print(x, n.flags["C_CONTIGUOUS"], n.strides)
print(type(np.exp(torch.zeros(2))).__name__, np.asarray(torch.tensor([1, 2])).dtype)
print(torch.tensor([1.0, 2.0]) + np.float64(1.0), (torch.tensor([1, 2]) * np.int64(2)).dtype, (np.float32(2.0) * torch.tensor([1])).dtype)
#%% tolist, item, int/float conversions and errors
print(torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor(2.5).item(), int(torch.tensor(3.9)), float(torch.tensor([7])))
try:
    float(torch.tensor([1.0, 2.0]))
except (RuntimeError, ValueError, TypeError) as e:
    print(type(e).__name__, str(e))
try:
    torch.tensor([1.0, 2.0]).item()
except RuntimeError as e:
    print(str(e))
print(bool(torch.tensor([0.0])), torch.tensor(1e20).to(torch.int64).dtype, torch.tensor([300]).to(torch.uint8), torch.tensor([-1.5, 2.7]).int())
try:
    bool(torch.tensor([1, 2]))
except RuntimeError as e:
    print(str(e))
