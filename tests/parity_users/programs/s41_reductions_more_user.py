import torch
#%% argmax ties, min/max with dims, mode/median
x = torch.tensor([[1, 3, 3], [2, 2, 0]])
print(x.argmax(), x.argmax(1), x.argmin(0), x.max(1), x.min(0).indices, torch.mode(torch.tensor([1, 2, 2, 3, 3])), x.float().median(1))
print(torch.aminmax(x), x.sum(dtype=torch.float32), x.prod(1), x.float().mean(0), x.float().std(1, unbiased=False), x.float().var(correction=0))
#%% cumulative ops and logcumsumexp
y = torch.tensor([1.0, -2.0, 3.0, 0.5])
print(y.cumsum(0), y.cumprod(0), y.cummax(0), y.cummin(0), torch.logcumsumexp(y, 0), torch.diff(y), torch.diff(y, n=2))
#%% mean of integers, nan reductions
try:
    torch.tensor([1, 2]).mean()
except RuntimeError as e:
    print(e)
n = torch.tensor([1.0, float("nan"), 3.0])
print(n.sum(), n.nansum(), n.nanmean(), n.max(), torch.nanmedian(n), n.isnan().sum(), torch.nan_to_num(n, nan=0.0), n.argmax())
print(torch.tensor([True, False, True]).sum(), torch.tensor([True, True]).all(), torch.tensor([[0, 1], [0, 0]]).any(1), torch.count_nonzero(torch.eye(3)))
