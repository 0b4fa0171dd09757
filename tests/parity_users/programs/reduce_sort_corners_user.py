import torch
#%% dim tuples and negative dims
x = torch.arange(24.0).view(2, 3, 4)
print(x.sum((0, -1)), x.mean((-1, -2), keepdim=True).shape, x.amax((0, 2)), x.amin(dim=(1,)), x.std((0, 1)), x.var(dim=(0, 2), correction=0))
print(x.logsumexp((0, 1)), x.norm(dim=(1, 2)), torch.count_nonzero(x, dim=(0, 2)), x.any(dim=(0, 1)), x.bool().all(dim=(1, 2)), x.nansum((0,)))
print(x.sum(()), x.sum(dim=[]).shape, x.mean(dim=None), x.prod(1).shape, x.sum(dim=(), keepdim=True).shape)
#%% duplicate and bad dims
x = torch.ones(2, 3)
for f in (lambda: x.sum((0, 0)), lambda: x.sum(2), lambda: x.mean((0, -2)), lambda: x.amax((1, 3)), lambda: x.std(dim=5)):
    try:
        print(f())
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
#%% max min with dim return types
x = torch.tensor([[3, 1, 3], [2, 2, 0]])
r = x.max(dim=1)
print(r, r.values, r.indices, r[0], type(r).__name__, x.min(0, keepdim=True), torch.max(x, dim=-1, keepdim=False).indices)
v, i = x.sort(dim=1, descending=True, stable=True)
print(v, i, x.argsort(dim=0), x.argsort(descending=True, stable=True))
#%% median mode kthvalue with ties
x = torch.tensor([[1.0, 3.0, 2.0, 4.0], [5.0, 5.0, 1.0, 1.0]])
print(x.median(), x.median(dim=1), x.nanmedian(dim=0), x.mode(dim=1), x.kthvalue(2, dim=1), x.kthvalue(1))
print(torch.tensor([1, 2, 2, 3, 3]).mode(), torch.tensor([float("nan"), 1.0, 2.0]).median(), torch.tensor([float("nan"), 1.0, 2.0]).nanmedian())
#%% topk variants
x = torch.tensor([4.0, 1.0, 4.0, 3.0, 0.0, 3.0])
print(x.topk(3), x.topk(2, largest=False), x.topk(4, sorted=True).indices, torch.topk(x.view(2, 3), 2, dim=0))
print(x.topk(0), x.view(2, 3).topk(1, dim=1, largest=False))
try:
    x.topk(7)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% unique variants
x = torch.tensor([3, 1, 2, 3, 1, 5])
print(torch.unique(x), torch.unique(x, return_inverse=True), torch.unique(x, return_counts=True), x.unique(sorted=True, return_inverse=True, return_counts=True))
m = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 9]])
print(torch.unique(m, dim=0), torch.unique(m, dim=0, return_inverse=True, return_counts=True), torch.unique(m, dim=1))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1])), torch.unique_consecutive(torch.tensor([1, 1, 2, 1]), return_counts=True, return_inverse=True))
#%% unique on floats with nan and empty
print(torch.unique(torch.tensor([1.0, float("nan"), 1.0, float("nan")])), torch.unique(torch.tensor([], dtype=torch.long), return_counts=True))
print(torch.unique(torch.tensor([True, False, True])), torch.unique(torch.tensor([[1.5, 1.5], [0.5, 0.5]]), dim=1))
#%% searchsorted variants
s = torch.tensor([1, 3, 5, 7, 9])
v = torch.tensor([3, 6, 9, 0, 10])
print(torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.searchsorted(s, v, side="right"), torch.searchsorted(s, 5), torch.searchsorted(s, v, out_int32=True).dtype)
s2 = torch.tensor([[1, 3, 5], [2, 4, 6]])
print(torch.searchsorted(s2, torch.tensor([[3, 4], [1, 7]])), torch.searchsorted(torch.tensor([5, 1, 3]), torch.tensor([2, 4]), sorter=torch.tensor([1, 2, 0])))
print(torch.bucketize(v, s), torch.bucketize(v, s, right=True), torch.bucketize(torch.tensor([[2.5]]), torch.tensor([1.0, 2.0, 3.0])))
#%% searchsorted errors
for f in (lambda: torch.searchsorted(torch.tensor([[1, 2]]), torch.tensor([1, 2, 3])), lambda: torch.searchsorted(s, v, side="middle"),
          lambda: torch.searchsorted(s, v, side="left", right=True), lambda: torch.bucketize(v, torch.tensor([[1, 2]]))):
    try:
        print(f())
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
#%% cummax cummin logcumsumexp
x = torch.tensor([1.0, 3.0, 2.0, 3.0, 0.0, 5.0])
print(x.cummax(0), x.cummin(0), x.logcumsumexp(0), x.cumsum(0, dtype=torch.float64), torch.cumprod(x, 0))
print(torch.tensor([[1, 2], [3, 4]]).cumsum(dim=-1), torch.tensor([True, True, False]).cumsum(0))
#%% aminmax argmax ties
x = torch.tensor([[2, 7, 7], [9, 1, 9]])
print(torch.aminmax(x), torch.aminmax(x, dim=1), x.argmax(), x.argmax(1), x.argmin(0, keepdim=True), x.float().argmax(dim=1))
#%% sort of special values and dtypes
x = torch.tensor([float("nan"), -float("inf"), 0.0, -0.0, 1.0, float("inf"), float("nan")])
print(x.sort(), x.sort(descending=True), x.argsort(stable=True))
print(torch.tensor([True, False, True]).sort(), torch.tensor([3, -1, 2], dtype=torch.int8).sort(descending=True), torch.msort(torch.tensor([[3, 1], [2, 4]])))
#%% histc histogram bincount
x = torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5])
print(torch.histc(x, bins=4, min=0, max=4), torch.histogram(x, bins=3), torch.histogram(x, bins=torch.tensor([0.0, 2.0, 5.0]), density=True))
print(torch.bincount(torch.tensor([0, 1, 1, 3])), torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([0.5, 1.0, 2.0]), minlength=4))
#%% std var mean combos
x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0]])
print(torch.std_mean(x, dim=1), torch.var_mean(x, dim=0, unbiased=False), x.std(unbiased=False), torch.var(x, 1, keepdim=True), x.std(correction=2))
print(torch.tensor([5.0]).std(), torch.tensor([5.0]).var(correction=0))
#%% quantile and nanquantile
x = torch.tensor([[1.0, 7.0, 3.0, 5.0], [2.0, float("nan"), 4.0, 8.0]])
print(torch.quantile(x[0], 0.3), torch.quantile(x[0], torch.tensor([0.25, 0.5, 0.75])), torch.nanquantile(x, 0.5, dim=1))
for m in ("linear", "lower", "higher", "midpoint", "nearest"):
    print(m, torch.quantile(x[0], 0.4, interpolation=m), torch.quantile(x[:1], 0.6, dim=1, keepdim=True, interpolation=m))
#%% reductions with out and dtype arguments
x = torch.arange(6).view(2, 3)
out = torch.empty(3, dtype=torch.int64)
torch.sum(x, 0, out=out)
print(out, x.sum(dtype=torch.float32), x.mean(dtype=torch.float64), x.prod(dtype=torch.float32), torch.cumsum(x, 1, dtype=torch.int16).dtype)
#%% all any return dtypes
print(torch.tensor([1, 0]).all(), torch.tensor([1, 0], dtype=torch.uint8).all(), torch.tensor([1, 0], dtype=torch.uint8).any().dtype, torch.tensor([]).all(), torch.tensor([]).any())
print(torch.tensor([[0.0, 1.0], [2.0, 3.0]]).all(dim=1), torch.any(torch.tensor([[0, 0], [0, 1]]), 0))
#%% diff and gradient
x = torch.tensor([1.0, 4.0, 9.0, 16.0])
print(torch.diff(x), torch.diff(x, n=2), torch.diff(x, prepend=torch.tensor([0.0]), append=torch.tensor([25.0])), torch.gradient(x), torch.gradient(x, spacing=2.0))
print(torch.diff(torch.tensor([[1, 2], [4, 8]]), dim=0), torch.diff(torch.tensor([True, False, False])))
#%% max of two tensors and dim confusion
a = torch.tensor([1, 5, 3])
b = torch.tensor([4, 2, 6])
print(torch.max(a, b), torch.min(a, b), torch.max(a, 0), a.max(b), torch.maximum(a, b.float()))
try:
    torch.max(a, torch.tensor([1, 2]))
except RuntimeError as e:
    print(type(e).__name__, e)
#%% reductions on empty
e = torch.empty(0, 3)
print(e.sum(0), e.sum(1), e.prod(0), e.mean(0), e.amax(1), e.logsumexp(0), e.std(0), e.all(), e.any(1))
for f in (lambda: e.amax(0), lambda: e.max(0), lambda: e.argmax(), lambda: e.median(0), lambda: e.min()):
    try:
        print(f())
    except (RuntimeError, IndexError) as e2:
        print(type(e2).__name__, e2)
