import torch
#%% sort ties stable and descending
x = torch.tensor([3, 1, 2, 1, 3, 2, 1])
v, i = x.sort(stable=True)
print(v, i, x.sort(descending=True, stable=True), torch.sort(x.float(), dim=0, descending=True, stable=True)[1])
print(torch.argsort(x, stable=True), torch.argsort(x, descending=True, stable=True), x.msort())
#%% sort with nan and inf
x = torch.tensor([float("nan"), 1.0, float("-inf"), float("inf"), -0.0, 0.0, float("nan")])
print(x.sort(stable=True), x.sort(descending=True, stable=True), x.argmax(), x.argmin(), x.max(), x.min())
print(torch.topk(x, 3), torch.topk(x, 2, largest=False), x.nan_to_num().sort().values, x.amax(), x.nanmedian())
#%% topk ties
x = torch.tensor([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
print(torch.topk(x, 2, dim=1, sorted=True), torch.topk(x, 3, largest=False).indices, torch.topk(x, 0).values.shape)
try:
    torch.topk(x, 6)
except Exception as e:
    print(type(e).__name__, e)
print(torch.kthvalue(x, 2, dim=1), x.max(dim=1), x.min(dim=1, keepdim=True), x.median(dim=1), x.mode(dim=1))
#%% unique variants
x = torch.tensor([3, 1, 2, 3, 1, 1, 5])
print(torch.unique(x), torch.unique(x, sorted=True, return_inverse=True, return_counts=True), torch.unique_consecutive(x, return_counts=True, return_inverse=True))
m = torch.tensor([[1, 2], [1, 2], [0, 5], [1, 2]])
print(torch.unique(m, dim=0, return_inverse=True, return_counts=True), torch.unique(m, dim=1), torch.unique(torch.tensor([], dtype=torch.long), return_counts=True))
print(torch.unique(torch.tensor([float("nan"), 1.0, float("nan"), 1.0])), torch.unique(torch.tensor([True, False, True])), x.unique().dtype)
#%% bincount
x = torch.tensor([0, 1, 1, 3, 1])
print(torch.bincount(x), torch.bincount(x, minlength=7), torch.bincount(x, weights=torch.tensor([0.5, 1.0, 1.0, 2.0, 0.25])), torch.bincount(torch.tensor([], dtype=torch.long)))
print(torch.bincount(x, weights=torch.tensor([1, 2, 3, 4, 5])).dtype, torch.bincount(x, weights=torch.tensor([1.0, 2, 3, 4, 5], dtype=torch.float64)).dtype)
for bad in (torch.tensor([-1, 2]), torch.tensor([[1, 2]]), torch.tensor([1.0, 2.0])):
    try:
        torch.bincount(bad)
    except Exception as e:
        print(type(e).__name__, e)
#%% histc and histogram
x = torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5, 0.0])
print(torch.histc(x, bins=4), torch.histc(x, bins=4, min=0, max=3), torch.histc(torch.tensor([2.0, 2.0]), bins=3), torch.histc(torch.tensor([]), bins=2))
h = torch.histogram(x, bins=3)
print(h.hist, h.bin_edges, torch.histogram(x, bins=torch.tensor([0.0, 1.0, 5.0])), torch.histogram(x, bins=2, range=(0.0, 2.0), density=True))
try:
    torch.histc(torch.tensor([1, 2]), bins=2)
except Exception as e:
    print(type(e).__name__, e)
#%% cumulative ops
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(x.cumsum(0), x.cumsum(1), x.cumprod(1), torch.cummax(torch.tensor([1, 3, 2, 3, 5, 0]), 0), torch.cummin(torch.tensor([3.0, 1.0, 2.0, 1.0]), 0))
print(torch.logcumsumexp(torch.tensor([0.0, 1.0, float("-inf"), 2.0]), 0), torch.cumsum(torch.tensor([True, True, False]), 0), x.cumsum(-1, dtype=torch.float32))
print(torch.zeros(0).cumsum(0), torch.tensor(5).cumsum(0), torch.cummax(torch.tensor([float("nan"), 1.0, 2.0]), 0), torch.tensor([1, 2, 3], dtype=torch.int8).cumsum(0).dtype)
#%% cumulative grads
w = torch.tensor([1.0, 2.0, 0.0, 4.0], requires_grad=True)
(w.cumprod(0) * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(w.grad)
w2 = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
torch.cummax(w2, 0).values.sum().backward()
print(w2.grad)
#%% reductions with dim tuples and keepdim
x = torch.arange(24.0).view(2, 3, 4)
print(x.sum((0, 2)), x.mean((-1, 0), keepdim=True).shape, x.amax((1, 2)), x.std((0, 1)), x.var((0, 2), correction=0), x.sum(()), x.sum([]).shape)
print(x.norm(dim=(1, 2)), x.logsumexp((0, 1)).shape, torch.count_nonzero(x, (0, 1)), x.prod(1).shape, x.nansum((0,)))
try:
    x.sum((0, 0))
except Exception as e:
    print(type(e).__name__, e)
try:
    x.sum(3)
except Exception as e:
    print(type(e).__name__, e)
#%% reductions on empty
e = torch.zeros(0, 3)
print(e.sum(0), e.sum(1), e.sum(), e.prod(0), e.mean(0), e.amax(1), e.sum(0, keepdim=True).shape, e.std(0), e.any(0), e.all(1), e.logsumexp(0))
for f in (lambda: e.amax(0), lambda: e.max(0), lambda: e.argmax(), lambda: e.min(), lambda: e.median(0), lambda: torch.zeros(0).max()):
    try:
        print(f())
    except Exception as ex:
        print(type(ex).__name__, ex)
print(torch.zeros(0).mean(), torch.zeros(0).var(), torch.zeros(2, 0).norm(dim=1), torch.zeros(0).prod(), torch.zeros(0, dtype=torch.long).sum())
#%% reductions of ints and bools
x = torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)
print(x.sum(), x.sum(0).dtype, x.prod().dtype, x.max(), x.amax(0), x.float().mean(0), x.argmax(1), torch.tensor([True, False]).sum(), torch.tensor([True, True]).all(), torch.tensor([0, 2]).any())
try:
    x.std()
except Exception as e:
    print(type(e).__name__, e)
#%% where and masked
x = torch.tensor([[1.0, -2.0], [float("nan"), 4.0]])
print(torch.where(x > 0, x, torch.zeros(1)), torch.where(x.isnan(), 0.0, x), torch.where(x > 0), x.masked_fill(x.isnan(), -1.0), torch.nonzero(x > 0, as_tuple=True))
print(torch.nonzero(torch.tensor([0, 1, 0, 2])), torch.argwhere(torch.tensor([[0, 1], [1, 0]])), torch.nonzero(torch.tensor(5)), torch.nonzero(torch.tensor([])).shape)
w = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
torch.where(w > 0, w * 2, w ** 2).sum().backward()
print(w.grad)
try:
    torch.where(torch.tensor([1, 0]), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.where(torch.tensor([True, False]), torch.ones(3), torch.zeros(2))
except Exception as e:
    print(type(e).__name__, e)
#%% clamp variants
x = torch.tensor([-2.0, 0.5, 3.0, float("nan")])
print(x.clamp(0, 1), x.clamp(min=torch.tensor([0.0, 1.0, 2.0, 0.0])), x.clamp(max=-1), torch.clamp(torch.tensor([1, 5]), 2, 3), x.clamp(1, 0), torch.tensor([1, 5]).clamp(2.5).dtype)
try:
    x.clamp()
except Exception as e:
    print(type(e).__name__, e)
#%% sort and topk grads
w = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = w.sort()
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(w.grad, i)
w.grad = None
torch.topk(w, 2).values.sum().backward()
print(w.grad)
w.grad = None
w.max().backward()
print(w.grad)
t = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
t.max().backward()
print(t.grad)
t.grad = None
t.amax().backward()
print(t.grad)
#%% searchsorted bucketize
s = torch.tensor([1, 3, 5, 7])
print(torch.searchsorted(s, torch.tensor([0, 3, 6, 9])), torch.searchsorted(s, torch.tensor([3]), right=True), torch.bucketize(torch.tensor([1, 4, 7]), s), torch.bucketize(torch.tensor([1, 4, 7]), s, right=True))
print(torch.searchsorted(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[2], [3]])), torch.searchsorted(s, 4), torch.searchsorted(s.float(), torch.tensor([3.5]), side="right"))
