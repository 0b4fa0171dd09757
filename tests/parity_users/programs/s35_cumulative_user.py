import torch


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% cumsum dtypes
x = torch.tensor([1, 2, 3], dtype=torch.int8)
print(x.cumsum(0), x.cumsum(0).dtype, torch.cumsum(x, 0, dtype=torch.float16), torch.tensor([True, True, False]).cumsum(0))
print(torch.tensor([100, 100], dtype=torch.uint8).cumsum(0), torch.tensor([100, 100], dtype=torch.uint8).cumprod(0))
print(torch.arange(6.).view(2, 3).cumsum(-1), torch.arange(6.).view(2, 3).cumprod(dim=0))
show(lambda: torch.arange(6.).cumsum(1))
print(torch.tensor(5.).cumsum(0), torch.tensor(5).cumprod(0), torch.empty(0, 3).cumsum(0).shape)
x = torch.tensor([1., 2.], dtype=torch.float32)
out = torch.empty(2, dtype=torch.float64)
show(lambda: torch.cumsum(x, 0, out=out))
show(lambda: x.cumsum_(0, dtype=torch.float64))
print(torch.cumsum(x, 0, dtype=torch.int32))
#%% cummax cummin logcumsumexp nan
x = torch.tensor([1., 3., float('nan'), 2., 5., float('nan'), 0.])
print(x.cummax(0), x.cummin(0))
y = torch.tensor([[1, 3, 3], [2, 2, 1]])
print(y.cummax(1), y.cummin(0))
print(torch.logcumsumexp(torch.tensor([0., -float('inf'), 1., float('inf'), 2.]), 0))
print(torch.logcumsumexp(torch.tensor([-float('inf'), -float('inf')]), 0))
show(lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0))
print(torch.tensor([True, False, True]).cummax(0))
#%% cumulative grads
x = torch.tensor([2., 0., 3., 0., 1.], requires_grad=True)
torch.cumprod(x, 0).backward(torch.arange(1., 6.))
print(x.grad)
x.grad = None
x.cummax(0)[0].backward(torch.ones(5))
print(x.grad)
x2 = torch.tensor([1., 3., 3., 2.], requires_grad=True)
x2.cummax(0)[0].sum().backward()
print(x2.grad)
x2.grad = None
torch.logcumsumexp(x2, 0).backward(torch.tensor([1., -1., 2., 0.5]))
print(x2.grad.round(decimals=4))
#%% diff cumulative trapezoid
x = torch.tensor([1., 4., 9., 16.])
print(torch.diff(x), torch.diff(x, n=2), torch.diff(x, prepend=torch.tensor([0.]), append=torch.tensor([25., 36.])), torch.diff(x, n=5))
print(torch.diff(torch.tensor([True, False, False])), torch.diff(torch.arange(6).view(2, 3), dim=0))
print(torch.trapezoid(x), torch.trapezoid(x, dx=0.5), torch.trapezoid(x, torch.tensor([0., 1., 3., 4.])), torch.cumulative_trapezoid(x), torch.trapz(x, dx=2))
print(torch.cumulative_trapezoid(torch.arange(6.).view(2, 3), dim=0))
show(lambda: torch.diff(x, n=-1))
show(lambda: torch.diff(x, prepend=torch.tensor(0.)))
#%% sums with dtype
x = torch.tensor([200, 100], dtype=torch.uint8)
print(x.sum(), x.sum().dtype, x.sum(dtype=torch.uint8), x.prod(), x.mean(dtype=torch.float32), torch.tensor([True, True]).sum(), torch.tensor([True, True]).prod())
print(torch.tensor([1., 2.], dtype=torch.float16).sum(dtype=torch.float64), torch.tensor([1, 2]).float().nansum(), torch.tensor([1, 2]).nansum())
show(lambda: torch.tensor([1, 2]).mean())
show(lambda: torch.tensor([1, 2]).sum(dtype=torch.bool))
print(torch.tensor([[1, 2], [3, 4]]).sum(dim=(0, 1)), torch.tensor([[1, 2], [3, 4]]).sum(dim=[]), torch.tensor([[1, 2], [3, 4]]).sum(()).shape)
print(torch.tensor([1., float('nan')]).nanmean(), torch.tensor([float('nan')]).nanmean(), torch.tensor([[1, 2], [3, 4]]).std(dim=0) if False else torch.tensor([[1., 2], [3, 4]]).var(dim=1, correction=0))
print(torch.tensor([1.]).std(), torch.tensor([1.]).var(unbiased=False), torch.std_mean(torch.tensor([1., 2., 4.]), correction=2))
