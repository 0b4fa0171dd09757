import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% scatter_reduce include_self
src = torch.tensor([1., 2., 3., 4., 5., 6.])
idx = torch.tensor([0, 1, 0, 1, 2, 1])
for red in ('sum', 'prod', 'mean', 'amax', 'amin'):
    for inc in (True, False):
        base = torch.tensor([10., 20., 30., 40.])
        print(red, inc, base.scatter_reduce(0, idx, src, reduce=red, include_self=inc))
print(torch.tensor([1, 2, 3, 4]).scatter_reduce(0, idx[:4], torch.tensor([5, 6, 7, 9]), 'mean'))
print(torch.tensor([1, 2, 3, 4]).scatter_reduce(0, idx[:4], torch.tensor([5, 6, 7, 9]), 'mean', include_self=False))
#%% scatter_reduce grad
src = torch.tensor([1., 2., 3., 4., 5., 6.], requires_grad=True)
base = torch.tensor([10., 2., 30., 40.], requires_grad=True)
idx = torch.tensor([0, 1, 0, 1, 2, 1])
for red in ('sum', 'prod', 'mean', 'amax', 'amin'):
    for inc in (True, False):
        src.grad = None
        base.grad = None
        out = base.scatter_reduce(0, idx, src, reduce=red, include_self=inc)
        out.backward(torch.tensor([1., 2., 3., 4.]))
        print(red, inc, r(src.grad), r(base.grad))
#%% scatter_reduce 2d and errors
t = torch.zeros(2, 3)
i = torch.tensor([[0, 1], [2, 2]])
s = torch.tensor([[1., 2.], [3., 4.]])
print(t.scatter_reduce(1, i, s, 'sum'), t.scatter_reduce(0, torch.tensor([[1, 0]]), s, 'amax', include_self=False))
show(lambda: t.scatter_reduce(1, i, s, 'max'))
show(lambda: t.scatter_reduce(1, i.float(), s, 'sum'))
show(lambda: t.scatter_reduce(1, torch.tensor([[5, 0]]), s, 'sum'))
show(lambda: t.scatter_reduce(1, i, s.double(), 'sum'))
show(lambda: t.scatter(1, i, s, reduce='add'))
show(lambda: t.scatter(1, i, 2.0, reduce='multiply'))
show(lambda: t.scatter(1, i, s, reduce='mean'))
#%% index_reduce
x = torch.ones(4, 2)
idx = torch.tensor([0, 2, 0, 3])
src = torch.tensor([[2., 3.], [4., 5.], [6., 7.], [-1., 8.]])
for red in ('prod', 'mean', 'amax', 'amin'):
    for inc in (True, False):
        print(red, inc, x.index_reduce(0, idx, src, red, include_self=inc).tolist())
show(lambda: x.index_reduce(0, idx, src, 'sum'))
show(lambda: x.index_reduce(0, idx.float(), src, 'prod'))
print(torch.arange(6).view(3, 2).index_reduce(0, torch.tensor([0, 0]), torch.tensor([[3, 5], [4, 4]]), 'mean'))
#%% index_add index_copy index_fill
x = torch.zeros(3, 4)
print(x.index_add(1, torch.tensor([0, 0, 3]), torch.ones(3, 3), alpha=2.5))
print(x.index_copy(0, torch.tensor([2, 0]), torch.arange(8.).view(2, 4)))
print(x.index_fill(1, torch.tensor([1, -1]), 7))
show(lambda: x.index_add(1, torch.tensor([0, 4]), torch.ones(3, 2)))
show(lambda: x.index_add(0, torch.tensor([0]), torch.ones(2, 4)))
show(lambda: x.index_copy(0, torch.tensor([[0]]), torch.ones(1, 4)))
show(lambda: x.index_fill(1, torch.tensor([1.]), 7))
#%% sort ties stable nan
x = torch.tensor([3., float('nan'), 1., 3., -float('inf'), float('nan'), 1., 0., -0.])
v, i = x.sort()
print(v, i)
v, i = x.sort(descending=True, stable=True)
print(v, i)
print(torch.argsort(x, stable=True), torch.argsort(x, descending=True))
print(torch.msort(x.view(3, 3)), x.view(3, 3).sort(dim=0))
print(torch.tensor([True, False, True]).sort(), torch.tensor([3, 1, 2], dtype=torch.uint8).sort(descending=True))
#%% topk kthvalue median mode nan
x = torch.tensor([[2., float('nan'), 5., 5., 1.], [4., 4., 4., 0., 9.]])
print(x.topk(2), x.topk(2, largest=False), x.topk(3, dim=1, sorted=True))
print(x.kthvalue(2), x.kthvalue(5, dim=1, keepdim=True))
print(x.median(dim=1), x.nanmedian(dim=1), x.median(), x.nanmedian())
print(x.mode(dim=1), torch.tensor([1, 2, 2, 3, 3]).mode())
show(lambda: x.topk(6))
show(lambda: x.kthvalue(0))
show(lambda: x.kthvalue(6))
print(torch.tensor([3, 1, 3, 1]).median(), torch.tensor([]).median() if False else torch.tensor([1, 2]).float().median())
#%% unique
x = torch.tensor([3, 1, 2, 3, 1, 1, 5])
print(torch.unique(x), torch.unique(x, sorted=False).sort()[0], torch.unique(x, return_inverse=True, return_counts=True))
print(torch.unique_consecutive(x, return_inverse=True, return_counts=True))
m = torch.tensor([[1, 2], [1, 2], [0, 3]])
print(torch.unique(m, dim=0, return_inverse=True, return_counts=True), torch.unique(m, dim=1))
print(torch.unique(torch.tensor([float('nan'), 1., float('nan')])), torch.unique(torch.tensor([0., -0.])))
print(torch.unique_consecutive(m, dim=0))
#%% searchsorted bucketize histc
s = torch.tensor([1., 3., 3., 5., 7.])
v = torch.tensor([[0., 3., 6.], [7., 8., float('nan')]])
print(torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.searchsorted(s, v, side='right', out_int32=True))
print(torch.bucketize(v, s), torch.bucketize(v, s, right=True))
print(torch.searchsorted(torch.tensor([5., 1., 3.]), torch.tensor([2.]), sorter=torch.tensor([1, 2, 0])))
show(lambda: torch.searchsorted(s, v, side='left', right=True))
show(lambda: torch.searchsorted(s.view(1, 5), v))
print(torch.histc(torch.tensor([1., 2., 1., 4., 9.]), bins=4, min=0, max=8), torch.histc(torch.tensor([1., 1.]), bins=3))
print(torch.histogram(torch.tensor([1., 2., 1., 4.]), bins=3))
print(torch.bincount(torch.tensor([0, 2, 2, 5]), weights=torch.tensor([0.5, 1., 1., 2.]), minlength=7))
show(lambda: torch.bincount(torch.tensor([-1, 2])))
