import torch
#%% to and type conversions
x = torch.tensor([1.7, -1.7, 2.5, -0.5])
print(x.int(), x.long(), x.to(torch.uint8), x.bool(), x.half(), x.bfloat16(), x.double().dtype, x.type(torch.int16), x.type(), x.type("torch.DoubleTensor").dtype, x.to(torch.tensor([1])).dtype, x.to(dtype=torch.int8))
print(torch.tensor([300.0, -300.0]).to(torch.int8), torch.tensor([1e10]).int(), torch.tensor([float("inf"), float("nan")]).long(), torch.tensor([256, -1]).to(torch.uint8), torch.tensor([0.0, 0.1, -0.0]).bool())
#%% item int float bool of tensors
print(int(torch.tensor(3.9)), float(torch.tensor(2)), bool(torch.tensor(0.0)), int(torch.tensor([7])), complex(torch.tensor(1.5)), torch.tensor(5).item().__class__.__name__, torch.tensor(5.0).item().__class__.__name__, torch.tensor(True).item().__class__.__name__)
for f in (lambda: int(torch.tensor([1, 2])), lambda: bool(torch.tensor([1, 2])), lambda: float(torch.tensor([])), lambda: torch.tensor([1, 2]).item(), lambda: bool(torch.tensor([])), lambda: int(torch.tensor(float("nan"))), lambda: int(torch.tensor(1 + 1j))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% numpy interop dtypes
import numpy as np
a = np.array([1, 2], dtype=np.int32)
t = torch.from_numpy(a)
a[0] = 10
print(t, t.dtype, torch.tensor(a).dtype, torch.as_tensor(a) is not None, torch.tensor(np.float32(1.5)), torch.tensor(np.array(2.0)).shape, t.numpy().dtype, torch.from_numpy(np.array([True])).dtype, torch.tensor([np.int64(1), np.int64(2)]).dtype)
for f in (lambda: torch.from_numpy(np.array([1], dtype=np.uint16)), lambda: torch.from_numpy(np.array(["a"])), lambda: torch.from_numpy([1, 2]), lambda: torch.ones(2, requires_grad=True).numpy()):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% tolist of dtypes
print(torch.tensor([[1.5, 2]]).tolist(), torch.tensor(3).tolist(), torch.tensor([1 + 2j]).tolist(), torch.tensor([True]).tolist(), torch.tensor([0.1], dtype=torch.float16).tolist(), torch.zeros(2, 0).tolist(), torch.tensor([1], dtype=torch.uint8).tolist())
#%% contiguous clone detach semantics
x = torch.arange(6.0).view(2, 3)
t = x.t()
c = t.contiguous()
print(t.is_contiguous(), c.is_contiguous(), c.data_ptr() != t.data_ptr(), x.contiguous() is x, x.clone().data_ptr() != x.data_ptr(), t.clone().stride(), t.clone(memory_format=torch.contiguous_format).stride())
y = x.detach()
y[0, 0] = 100
print(x[0, 0], x.data_ptr() == y.data_ptr(), x.view(3, 2).stride(), x[:, ::2].stride(), x.expand(2, 2, 3).stride(), x.unsqueeze(1).stride(), x.storage_offset(), x[1].storage_offset())
#%% copy_ broadcast and dtype
dst = torch.zeros(2, 3)
dst.copy_(torch.tensor([1, 2, 3]))
print(dst)
dst.copy_(torch.tensor(7.5, dtype=torch.float64))
print(dst)
for f in (lambda: dst.copy_(torch.ones(3, 2)), lambda: dst.copy_(torch.ones(1, 2, 3)), lambda: dst.copy_(torch.ones(2, 1, 3)), lambda: torch.zeros(2, dtype=torch.int64).copy_(torch.tensor([1.9, -1.9])), lambda: torch.zeros(2).copy_(torch.tensor([1 + 1j, 2]))):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
