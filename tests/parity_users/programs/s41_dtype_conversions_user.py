import torch
#%% float to int truncation and overflow-free conversions
x = torch.tensor([-1.7, -0.5, 0.5, 1.7, 2.5])
print(x.int(), x.long(), x.round(), x.to(torch.uint8) if False else x.abs().to(torch.uint8), x.bool(), x.half(), x.bfloat16(), x.double())
print(torch.tensor([300, -1]).to(torch.uint8), torch.tensor([128]).to(torch.int8), torch.tensor([1.5e10]).long(), torch.tensor([True, False]).float())
#%% item, tolist, python types
t = torch.tensor([1.5, 2.0])
print(type(t[0].item()), type(torch.tensor(3).item()), type(torch.tensor(True).item()), t.tolist(), int(torch.tensor(7)), float(torch.tensor(2)), bool(torch.tensor(0.0)))
try:
    int(torch.tensor([1, 2]))
except (RuntimeError, TypeError, ValueError) as e:
    print(type(e).__name__, e)
try:
    bool(torch.tensor([1, 2]))
except RuntimeError as e:
    print(e)
#%% type() and dtype properties
print(t.type(), t.type(torch.int32), torch.tensor([1]).type(), t.dtype.is_floating_point, torch.int8.is_signed, torch.complex64.to_real(), torch.float16.itemsize, t.element_size(), t.nbytes)
print(torch.finfo(torch.float32).eps, torch.finfo(torch.bfloat16).max, torch.iinfo(torch.int32).min, torch.finfo(torch.float16).tiny, torch.get_default_dtype())
