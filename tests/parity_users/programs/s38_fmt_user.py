import torch
import math
#%% format specs on 0-d tensors
t = torch.tensor(3.14159)
print(f"{t:.3f}", f"{t:10.2f}|", f"{t:e}", f"{t}", "{:.1%}".format(torch.tensor(0.25)))
print(f"{torch.tensor(7):d}", f"{torch.tensor(7):5}|", f"{torch.tensor(True)}")
print(format(torch.tensor(2.5, dtype=torch.float64), ".2f"), format(torch.tensor(-0.0), "+.1f"))
print("{:>8}".format(str(torch.tensor(1.5))))
try:
    print(f"{torch.tensor([1.0, 2.0]):.2f}")
except Exception as e:
    print(type(e).__name__, e)
print(f"{torch.tensor(float('nan')):.2f}", f"{torch.tensor(float('inf')):.2f}")
#%% Size, dtype, device reprs
s = torch.Size([2, 3])
print(s, repr(s), str(s), f"{s}", len(s), s.numel(), s[1:], type(s[1:]).__name__)
print(torch.Size([]), torch.Size((4,)), s + (5,), type(s + (5,)).__name__, (1,) + s)
print(torch.float32, repr(torch.float64), str(torch.int64), f"{torch.bool}", torch.half, torch.double)
print(torch.device("cpu"), repr(torch.device("cpu")), repr(torch.device("cuda", 1)), torch.device("cuda:0").index)
print(torch.float16.is_floating_point, torch.int8.is_signed, torch.uint8.is_signed, torch.complex64.is_complex)
print(torch.float32.itemsize, torch.int16.itemsize, torch.bfloat16.itemsize)
print(s == (2, 3), s == [2, 3], torch.Size([2, 3]) == torch.Size([2, 3]), hash(s) == hash((2, 3)))
print(torch.zeros(2, 3).shape == (2, 3), list(torch.zeros(2, 3).size()), torch.zeros(2, 3).size(-1))
#%% item and python numbers
x = torch.tensor([1.5, 2.5, -3.5])
print(int(x[0]), float(x[1]), round(float(x[2])), math.floor(x[2]), math.ceil(x[2]))
print(x.tolist(), x.int().tolist(), x[0].item(), type(x.int()[0].item()).__name__)
print(bool(torch.tensor(0.0)), bool(torch.tensor([2])))
try:
    bool(x)
except Exception as e:
    print(type(e).__name__, e)
try:
    x.item()
except Exception as e:
    print(type(e).__name__, e)
try:
    int(x)
except Exception as e:
    print(type(e).__name__, e)
print(abs(torch.tensor(-2)), -torch.tensor(3.0), divmod(7, 2), torch.tensor(7) // 2, 7 // torch.tensor(2))
print(torch.tensor(2) ** 10, 2 ** torch.tensor(3), torch.tensor(2.0) ** -1, torch.tensor(-8) % 3, -8 % torch.tensor(3))
print(torch.tensor(5) / 2, torch.tensor(5).div(2, rounding_mode="floor"), torch.tensor(-5).div(2, rounding_mode="trunc"))
#%% printing extremes with set_printoptions
a = torch.tensor([1e-8, 1.0, 1e8, float('nan'), float('inf'), -float('inf')])
print(a)
print(torch.tensor([1e-5, 2e-5]), torch.tensor([123456.0, 1.0]), torch.tensor([0.1, 100.0]))
torch.set_printoptions(precision=2)
print(a, torch.tensor([1.23456, 2.5]))
torch.set_printoptions(sci_mode=False)
print(a, torch.tensor([1e-5, 2e-5]))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(20), torch.arange(30.).reshape(5, 6))
torch.set_printoptions(linewidth=40)
print(torch.linspace(0, 1, 4), torch.randn(3, 8) * 0)
torch.set_printoptions(profile="default")
print(torch.arange(1001)[:3], torch.arange(1500).shape)
print(torch.arange(1500))
print(torch.tensor([1, -2, 300], dtype=torch.int8), torch.tensor([0.5], dtype=torch.float16), torch.tensor([1.], dtype=torch.float64))
print(torch.tensor([], dtype=torch.int32), torch.zeros(0, 3), torch.tensor([[True, False]]))
print(torch.tensor(3.0, requires_grad=True) * 2, torch.ones(2, requires_grad=True))
