import torch
import numpy as np
#%% numpy() of dtypes NumPy lacks
x = torch.arange(4, dtype=torch.bfloat16)
try:
    x.numpy()
except Exception as e:
    print(type(e).__name__, e)
try:
    np.asarray(x)
except Exception as e:
    print(type(e).__name__, e)
print(x.float().numpy(), x.tolist(), x[1].item())
try:
    torch.ones(2, dtype=torch.bfloat16, requires_grad=True).numpy()
except Exception as e:
    print(type(e).__name__, e)
print(torch.ones(2, dtype=torch.float16).numpy().dtype, torch.ones(2, dtype=torch.uint16).numpy().dtype)
print(x.to(torch.float32).numpy().dtype, x.view(torch.int16).numpy())
#%% to() with a Python scalar where the dtype goes
x = torch.ones(2)
print(x.to(3.5).dtype, x.to(0.0).dtype, x.to(True).dtype, x.to(False).dtype, x.to(1j).dtype)
print(x.to(2.5, True).dtype, x.to(float).dtype, x.to(int).dtype, x.to(bool).dtype)
for args, kw in [((), dict(dtype=2.5)), ((torch.ones(1), 2.5), {}), (("cpu", 2.5), {}), ((None, 1.5), {})]:
    try:
        print(x.to(*args, **kw).dtype)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
try:
    torch.ones(2, dtype=2.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    x.type(2.5)
except Exception as e:
    print(type(e).__name__, e)
#%% devices this build lacks
x = torch.ones(2)
for d in ["mps", "xla", "vulkan", "hip", "xpu"]:
    try:
        x.to(d)
    except Exception as e:
        print(d, type(e).__name__, e)
    try:
        x.to(torch.device(d))
    except Exception as e:
        print(d, type(e).__name__, e)
print(torch.backends.mps.is_available(), torch.backends.mps.is_built())
dev = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(dev, x.to(dev).device)
#%% set_default_dtype
for d in [torch.float64, torch.float16, torch.bfloat16, torch.complex64, torch.int32, torch.bool]:
    try:
        torch.set_default_dtype(d)
        print(d, torch.get_default_dtype(), torch.tensor([1.5]).dtype, torch.ones(1).dtype)
        if d is not torch.float16:  # (float16 makes complex32 tensors, numtorch has none)
            print(torch.tensor([1j]).dtype)
    except Exception as e:
        print(d, type(e).__name__, e)
    finally:
        torch.set_default_dtype(torch.float32)
#%% torch.tensor with a dtype and a bad element
for kw in [dict(dtype=torch.float64), dict(dtype=torch.int64), dict(dtype=torch.bool), dict(dtype=torch.complex64)]:
    for d in [[2.5, "x"], [[1], ["b"]], [1, None], ["a"], [1, object()]]:
        try:
            torch.tensor(d, **kw)
        except Exception as e:
            print(kw["dtype"], type(e).__name__, str(e).split(" at 0x")[0])
