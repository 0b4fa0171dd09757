import torch
#%% reductions
x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
print(x.sum(dim=1, keepdim=True), x.sum((0, 1)), x.mean(0), x.prod(1), x.std(), x.var(1, unbiased=False), x.var(1, correction=0))
print(x.max(), x.max(1), x.max(dim=0, keepdim=True).indices, x.min(1).values, x.argmax(), x.argmin(1), x.amax((0, 1)), x.aminmax())
print(x.sum(dtype=torch.float64).dtype, torch.tensor([1, 2], dtype=torch.int8).sum().dtype, torch.tensor([1, 2], dtype=torch.int32).prod().dtype)
print(x.logsumexp(1), x.norm(), x.norm(p=1, dim=1), x.median(), x.median(1), x.mode(1), x.nanmean(), x.cumprod(1), x.cummax(1))
print(torch.std_mean(x, 1), torch.var_mean(x, dim=0, correction=2), x.all(), x.any(1))
#%% empty reductions
e = torch.empty(0)
print(e.sum(), e.prod(), e.mean(), e.std())
print(e.max())
#%% empty argmax
torch.empty(0, 3).argmax(1)
#%% empty max dim
print(torch.empty(0, 3).max(1))
#%% dim errors
torch.ones(2, 3).sum(2)
#%% axis keyword
x = torch.arange(6.0).reshape(2, 3)
print(x.sum(axis=0), torch.mean(x, axis=1, keepdims=True), x.max(axis=1).values, torch.std(x, dim=None))
#%% sort
x = torch.tensor([3, 1, 2, 1, 3, 0])
print(x.sort(), x.sort(descending=True, stable=True), x.argsort(), torch.sort(x, stable=True).indices)
print(x.topk(2), x.float().topk(3, largest=False, sorted=True), x.kthvalue(2), x.msort())
print(torch.unique(x), torch.unique(x, return_inverse=True, return_counts=True), torch.unique_consecutive(x, return_counts=True))
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True), torch.unique(x, sorted=False))
print(torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([0, 3, 6]), right=True), torch.bucketize(torch.tensor([2, 4]), torch.tensor([1, 3, 5])))
#%% topk too big
torch.arange(3).topk(5)
#%% sort nan
x = torch.tensor([float("nan"), 1.0, -float("inf"), 0.0])
print(x.sort(), x.argmax(), x.max(), x.topk(2), torch.unique(x), x.cummax(0), x.median(), x.nanmedian())
#%% cumsum dtype
x = torch.tensor([1, 2, 3], dtype=torch.int32)
print(x.cumsum(0).dtype, x.cumsum(0, dtype=torch.float32), torch.cumsum(torch.tensor([True, True]), 0))
#%% quantile
x = torch.tensor([1.0, 2.0, 3.0, 4.0, 10.0])
print(x.quantile(0.3), x.quantile(torch.tensor([0.25, 0.5]), interpolation="nearest"), torch.nanquantile(torch.tensor([1.0, float("nan")]), 0.5))
print(torch.histc(x, bins=4), torch.histogram(x, bins=3), torch.bincount(torch.tensor([0, 2, 2])), torch.diff(x), torch.cov(torch.stack([x, x * 2])), torch.corrcoef(torch.stack([x, -x])))
#%% histogram f32 edges
x = torch.tensor([0.1, 0.7, 1.3, 2.9, 3.3])
h, edges = torch.histogram(x, bins=7)
print(h, edges.tolist())
print(torch.histogram(x, bins=5, range=(0.1, 3.1)).bin_edges.tolist())
print(torch.histc(x, bins=7, min=0.1, max=3.3).tolist())
#%% quantile error
torch.tensor([1, 2]).quantile(0.5)
#%% numpy keyword spellings
x = torch.arange(6.0).reshape(2, 3)
print(torch.cat([x, x], axis=1).shape, torch.stack([x, x], axis=0).shape, x.softmax(axis=1), x.cumsum(axis=0))
print(x.max(axis=1, keepdims=True), x.std(axis=0, keepdims=True), torch.amax(x, axis=(0, 1)), x.argmax(axis=1))
print(x.gather(axis=1, index=torch.tensor([[0], [2]])), x.index_select(axis=0, index=torch.tensor([1])), x.unsqueeze(axis=0).shape)
print(torch.quantile(x, 0.5, axis=1, keepdims=True), x.sort(axis=1, descending=True).indices, x.topk(1, axis=0))
#%% axis both
torch.arange(3.0).sum(axis=0, dim=0)
#%% histogram edges random
import random
random.seed(1)
for _ in range(40):
    lo = random.uniform(-5, 5)
    hi = lo + random.uniform(0.01, 10)
    b = random.randint(1, 30)
    x = torch.tensor([lo, hi, (lo + hi) / 3])
    print(torch.histogram(x, bins=b).bin_edges.tolist(), torch.histogram(x.double(), bins=b, range=(lo, hi)).bin_edges.tolist())
    print(torch.histogram(x, bins=b, range=(lo - 1, hi + 0.5)).hist.tolist())
print(torch.histogramdd(torch.tensor([[0.1, 0.3], [2.9, 1.7]]), bins=[3, 7]).bin_edges)
print(torch.histogram(torch.tensor([1.5, 1.5]), bins=3))
