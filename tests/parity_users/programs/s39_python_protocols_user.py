import torch
#%% iteration, unpacking, membership
t = torch.arange(6).reshape(3, 2)
for row in t:
    print(row, end=" ")
print()
a, b, c = t
print(a, c, list(torch.tensor([1, 2])), [x.item() for x in torch.tensor([3., 4.])])
print(2 in t, 10 in t, torch.tensor([0, 1]) in t, 1.0 in torch.tensor([1.0]))
for i, (x, y) in enumerate(torch.tensor([[1, 2], [3, 4]])):
    print(i, x, y)
try:
    for v in torch.tensor(3):
        pass
except Exception as e:
    print(type(e).__name__, e)
try:
    len(torch.tensor(3))
except Exception as e:
    print(type(e).__name__, e)
print(len(torch.empty(0, 3)), list(torch.empty(0)), list(zip(torch.tensor([1, 2]), torch.tensor([3, 4]))))
#%% builtins on tensors
v = torch.tensor([3., 1., 2.])
print(sum(v), max(v), min(v), sorted(v), abs(torch.tensor(-2)))
for f in [lambda: round(torch.tensor(2.567), 2), lambda: round(torch.tensor(2.5))]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
print(any(v > 2), all(v > 0), pow(torch.tensor(2), 3), -torch.tensor(True) if False else "skip")
print(int(torch.tensor(3.9)), float(torch.tensor(2)), complex(torch.tensor(1.5)), bool(torch.tensor([0.0])), int(torch.tensor([7])))
print(hex(torch.tensor(255)), bin(torch.tensor(5)), oct(torch.tensor(8)), "abc"[torch.tensor(1)], [10, 20, 30][torch.tensor(2)])
for f in [lambda: hex(torch.tensor(2.5)), lambda: "abc"[torch.tensor(1.0)], lambda: bool(torch.tensor([1, 2])),
          lambda: int(torch.tensor([1, 2])), lambda: float(torch.tensor([])), lambda: range(torch.tensor(3)),
          lambda: list(range(torch.tensor(2), torch.tensor(5))), lambda: [1, 2][torch.tensor([0])], lambda: -torch.tensor(True),
          lambda: round(torch.tensor([1.26, 2.5]), 1), lambda: divmod(torch.tensor([7., -7.]), 2), lambda: divmod(torch.tensor(7), 2)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% hashing, identity, dict keys, sets
a = torch.tensor([1])
d = {a: "x"}
print(d[a], torch.tensor([1]) in d, a in {a}, len({torch.tensor(1), torch.tensor(1)}))
print(torch.tensor(1) == 1, torch.tensor([1, 2]) == [1, 2], torch.tensor([1, 2]) == (1, 2))
print(torch.Size([2, 3]) == (2, 3), torch.Size([2, 3]) + (4,), hash(torch.Size([1])) == hash((1,)), torch.Size([2, 3]).numel())
print(torch.float32 == torch.float, torch.int64 is torch.long, str(torch.double), torch.device("cpu") == "cpu", {torch.float16: 1}[torch.half])
#%% operators with Python containers and numpy
import numpy as np
x = torch.tensor([1., 2.])
print(x + [1, 1] if False else "skip", x * np.float64(2), (np.float64(2) * x), x + np.array(1.0), x == np.array([1., 0.]))
print(type(np.float32(2) * x).__name__, type(x * np.float32(2)).__name__, (np.int64(3) + torch.tensor([1])).dtype)
print(torch.tensor([1, 2]).__array__().dtype, np.add(x, 1), np.sum(x.numpy()), np.mean(x.numpy()), np.asarray(x).dtype)
for f in [lambda: x + [1, 1], lambda: x + (1,), lambda: x + "1", lambda: x + None, lambda: [1, 1] + x, lambda: x @ [1, 1]]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
