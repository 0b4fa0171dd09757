import torch
#%% float16/bfloat16 with requires_grad and dtype suffix
print(torch.tensor([1.0, 2.0], dtype=torch.float16, requires_grad=True), torch.ones(2, dtype=torch.bfloat16) / 3)
print(torch.tensor([0.1], dtype=torch.float64), torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2], dtype=torch.int8))
print(torch.zeros(0, dtype=torch.float16), torch.zeros(2, 0, dtype=torch.int32), torch.tensor([], dtype=torch.bool))
#%% empty and 0-d in many dtypes
for dt in (torch.float32, torch.float64, torch.int64, torch.bool, torch.complex64, torch.uint8):
    print(torch.zeros((), dtype=dt), torch.empty(0, 2, dtype=dt))
#%% 4-d tensor and views
x = torch.arange(16.).reshape(2, 2, 2, 2)
print(x, x.permute(3, 2, 1, 0)[0], x[:, :, 0, 0].t())
print(x.to(torch.int16)[0], x.bool()[1, 1])
#%% tensors with grad_fn of several kinds
a = torch.tensor([1.0, 2.0], requires_grad=True)
print(a.exp(), a[0], a.view(2, 1), a.sum(0, keepdim=True), a.to(torch.float64), a.unsqueeze(0).expand(2, 2))
print(torch.nn.Parameter(torch.zeros(2, 2, dtype=torch.float64)), torch.nn.Parameter(torch.tensor(1.5)))
