import torch
#%% in-place on expanded and overlapping tensors
e = torch.zeros(3).expand(2, 3)
try:
    e.add_(1)
except RuntimeError as err:
    print(err)
a = torch.arange(4.0)
try:
    a[1:].copy_(a[:-1]) if False else a.unsqueeze(0).expand(2, 4).mul_(2)
except RuntimeError as err:
    print(err)
#%% in-place dtype/shape mismatches
b = torch.zeros(2, 3)
try:
    b.add_(torch.ones(3, 3))
except RuntimeError as err:
    print(err)
b.add_(torch.ones(3))
print(b)
try:
    torch.ones(2, dtype=torch.int32).sqrt_()
except RuntimeError as err:
    print(err)
try:
    torch.ones(2, dtype=torch.bool).add_(1)
except RuntimeError as err:
    print(err)
c = torch.ones(2)
c.resize_(4)
print(c.shape, torch.ones(3).clamp_(min=2), torch.arange(5).clamp_(1, 3), torch.tensor([1.0, -1.0]).abs_())
#%% in-place under no_grad and requires_grad flags
w = torch.ones(2, requires_grad=True)
with torch.no_grad():
    w.mul_(3)
print(w, w.requires_grad, w.grad_fn)
with torch.inference_mode():
    t = torch.ones(2) * 2
print(t.is_inference(), t.requires_grad)
try:
    t.requires_grad_()
except RuntimeError as err:
    print(err)
