import torch
#%% contiguity, strides, storage offsets
x = torch.arange(24).reshape(2, 3, 4)
for v in (x, x.t() if x.dim() == 2 else x.transpose(0, 2), x[:, 1], x[..., ::2], x.permute(2, 0, 1), x.unsqueeze(1), x.expand(2, 2, 3, 4) if False else x[None].expand(2, 2, 3, 4)):
    print(tuple(v.shape), v.stride(), v.is_contiguous(), v.storage_offset())
print(x.transpose(0, 1).contiguous().stride(), x.narrow(2, 1, 2).stride(), x.unfold(2, 2, 1).shape, x.unfold(2, 2, 1).stride())
#%% view vs reshape errors
y = x.transpose(1, 2)
try:
    y.view(-1)
except RuntimeError as e:
    print(e)
print(y.reshape(-1)[:5], y.flatten(1).shape, x.view(6, -1).shape)
try:
    x.view(5, -1)
except RuntimeError as e:
    print(e)
try:
    x.view(-1, -1)
except RuntimeError as e:
    print(e)
#%% as_strided and unflatten
z = torch.arange(9.0)
print(z.as_strided((2, 2), (3, 1)), z.as_strided((3,), (2,), 1), z.unflatten(0, (3, 3)), z.view(3, 3).diagonal(), z.view(3, 3).diagonal(1))
print(torch.arange(6).view(2, 3).T.is_contiguous(), torch.arange(6).view(2, 3).mT.shape, torch.empty(2, 3).t().contiguous().is_contiguous())
