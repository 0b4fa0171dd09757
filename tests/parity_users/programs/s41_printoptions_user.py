import torch
#%% precision, linewidth and sci_mode
x = torch.tensor([1.123456789, 22.5, 333.75])
torch.set_printoptions(precision=6)
print(x, torch.tensor(2.0 / 3))
torch.set_printoptions(precision=1)
print(x, torch.tensor([0.05, 0.15]))
torch.set_printoptions(profile="default")
torch.set_printoptions(linewidth=30)
print(torch.arange(20.0))
torch.set_printoptions(profile="default")
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1e8]), torch.tensor([1e20]))
torch.set_printoptions(profile="default")
#%% profiles
torch.set_printoptions(profile="short")
print(torch.arange(10.0) / 7, torch.randn(100).shape)
torch.set_printoptions(profile="full")
print(torch.arange(1200)[-3:], torch.arange(1100).shape)
torch.set_printoptions(profile="default")
print(torch.arange(0.0, 1.0, 0.125))
#%% threshold/edgeitems on 3-d and int
torch.set_printoptions(threshold=5, edgeitems=1)
print(torch.arange(60).reshape(3, 4, 5))
print(torch.arange(10.0).reshape(2, 5) * 1.5)
torch.set_printoptions(profile="default")
#%% str/repr/format of 0-d and lists
t = torch.tensor(3.25)
print(f"{t}", f"{t:.1f}", "%s" % t, [torch.tensor(1), torch.tensor(2.5)], (torch.tensor([1]),))
print({"a": torch.tensor([1.0, 2.0])}, str(torch.tensor([])), repr(torch.tensor([[]])))
try:
    print(f"{torch.tensor([1.0, 2.0]):.2f}")
except Exception as e:
    print(type(e).__name__, e)
