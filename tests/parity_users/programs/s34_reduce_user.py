import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
#%% sum with dtype
x = torch.tensor([[200, 100], [50, 10]], dtype=torch.uint8)
print(x.sum(), x.sum(dtype=torch.uint8), x.sum(0, keepdim=True), x.sum(dim=(0, 1)).dtype)
print(torch.tensor([True, True, False]).sum(), torch.tensor([1, 2], dtype=torch.int16).prod().dtype)
#%% mean of ints
try:
    torch.tensor([1, 2, 3]).mean()
except Exception as e:
    print(type(e).__name__, e)
print(torch.tensor([1, 2, 3]).mean(dtype=torch.float64))
#%% var std corrections
x = torch.tensor([[1., 2., 4.], [3., 5., 9.]])
print(r(x.var()), r(x.var(1, unbiased=False)), r(x.std(dim=0, correction=0)), r(torch.var_mean(x, dim=1)[0]), r(torch.std_mean(x, 0, keepdim=True)[1]))
print(torch.tensor([1.]).var(), torch.tensor([1.]).std(correction=0))
#%% max min returns
x = torch.tensor([[1, 5, 5], [7, 0, 7]])
v, i = x.max(dim=1)
print(v, i, x.max(1, keepdim=True).indices, x.min(), x.argmax(), x.argmin(dim=0))
print(torch.amax(x, dim=(0, 1)), torch.aminmax(x, dim=0))
r2 = x.max(0)
print(type(r2).__name__, r2)
#%% empty reduction
e = torch.zeros(0, 3)
print(e.sum(0), e.prod(0), e.mean(0), e.sum(1).shape)
try:
    e.max(0)
except Exception as ex:
    print(type(ex).__name__, ex)
print(e.max(1).values.shape)
#%% nan reductions
x = torch.tensor([1., float('nan'), 3.])
print(x.sum(), x.nansum(), x.nanmean(), x.max(), torch.nanmedian(x), x.median(), torch.nanquantile(x, 0.5))
print(x.argmax(), torch.tensor([float('nan'), float('nan')]).nanmean())
#%% median even
x = torch.tensor([[4., 1., 3., 2.], [0., 0., 1., 1.]])
print(x.median(), x.median(dim=1), torch.quantile(x, torch.tensor([0.25, 0.5]), dim=1))
print(torch.quantile(x, 0.4, interpolation='nearest'), torch.quantile(x, 0.4, interpolation='midpoint', dim=0, keepdim=True))
#%% mode and logsumexp
x = torch.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]])
print(torch.mode(x, 1))
y = torch.tensor([[1000., 1000.], [-float('inf'), -float('inf')]])
print(torch.logsumexp(y, dim=1), torch.logsumexp(torch.tensor([1., 2.]), 0, keepdim=True))
#%% cumulative
x = torch.tensor([[1, 3, 2], [4, -1, 0]])
print(x.cumsum(1), x.cumprod(0), torch.cummax(x, 1), torch.cummin(x, dim=0), torch.logcumsumexp(x.float(), 1))
print(x.cumsum(1, dtype=torch.float32))
print(torch.tensor([1, 2], dtype=torch.int8).cumsum(0).dtype)
#%% all any
x = torch.tensor([[0, 1], [2, 3]])
print(x.all(), x.any(), x.all(dim=1), x.bool().any(0, keepdim=True), torch.tensor([]).all(), torch.tensor([]).any())
print(torch.tensor([1, 2], dtype=torch.uint8).all().dtype)
#%% count_nonzero norm
x = torch.tensor([[0., 1.5], [-2., 0.]])
print(torch.count_nonzero(x), torch.count_nonzero(x, dim=0), x.norm(), x.norm(p=1, dim=1), x.norm(p=float('inf')), torch.norm(x, 'fro'), torch.norm(x, p='nuc'))
#%% dim errors
x = torch.zeros(2, 3)
for f in (lambda: x.sum(2), lambda: x.sum(-3), lambda: x.mean((0, 0)), lambda: x.max(dim=5), lambda: x.softmax(3)):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
#%% reductions grad
x = torch.tensor([[1., 5., 5.], [2., 0., 7.]], requires_grad=True)
(x.max() + x.amax(1).sum() + x.prod() + x.std()).backward()
print(r(x.grad))
#%% min max keepdim gradients
x = torch.tensor([[3., 3.], [1., 2.]], requires_grad=True)
x.max(1)[0].sum().backward()
print(x.grad)
x.grad = None
x.amin().backward()
print(x.grad)
#%% mean with dim list and negative dims
x = torch.arange(24.).reshape(2, 3, 4)
print(x.mean([-1, 0]), x.sum(dim=[]).shape if False else x.mean(dim=(-2,), keepdim=True).shape)
print(x.sum(()), x.amax(()).shape)
#%% diff and trapz
x = torch.tensor([1., 4., 9., 16.])
print(torch.diff(x), torch.diff(x, n=2), torch.diff(x, prepend=torch.tensor([0.])), torch.trapezoid(x), torch.trapezoid(x, dx=0.5), torch.cumulative_trapezoid(x))
#%% histc bincount
x = torch.tensor([1., 2., 1., 4., 2.5])
print(torch.histc(x, bins=4, min=0, max=4), torch.bincount(torch.tensor([0, 3, 3, 1])), torch.bincount(torch.tensor([1, 1]), weights=torch.tensor([0.5, 0.25]), minlength=4))
h = torch.histogram(x, bins=3)
print(h.hist, h.bin_edges)
