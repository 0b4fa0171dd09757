import torch


def r(t, d=4):
    return t.detach().round(decimals=d) + 0.0
torch.manual_seed(0)
#%% index_add index_copy index_reduce
x = torch.zeros(3, 2)
print(x.index_add(0, torch.tensor([0, 2, 0]), torch.ones(3, 2), alpha=2), x.index_copy(0, torch.tensor([1]), torch.ones(1, 2) * 5))
print(torch.ones(3).index_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([2., 3., 4.]), 'prod'), torch.ones(3).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), 'mean', include_self=False))
#%% scatter reduce variants
src = torch.tensor([1., 2., 3., 4.])
idx = torch.tensor([0, 1, 0, 1])
for red in ('sum', 'prod', 'mean', 'amax', 'amin'):
    print(red, torch.zeros(2).scatter_reduce(0, idx, src, red), torch.full((2,), 10.).scatter_reduce(0, idx, src, red, include_self=False))
print(torch.zeros(2, 2).scatter_(1, torch.tensor([[1], [0]]), 7.0), torch.zeros(3).scatter_(0, torch.tensor([0, 0]), torch.tensor([1., 2.]), reduce='add'))
#%% take_along_dim diag_embed block_diag
x = torch.tensor([[10, 30, 20], [60, 40, 50]])
i = x.argsort(1)
print(torch.take_along_dim(x, i, 1), torch.take_along_dim(x, torch.tensor([[0]]), None) if False else torch.take_along_dim(x.flatten(), torch.tensor([5, 0])))
print(torch.diag_embed(torch.tensor([[1, 2], [3, 4]])), torch.diag_embed(torch.tensor([1, 2]), offset=1).shape, torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3], [4]])))
#%% cdist kron tensordot
a = torch.tensor([[0., 0.], [3., 4.]])
b = torch.tensor([[1., 1.]])
print(r(torch.cdist(a, b)), r(torch.cdist(a, b, p=1)), r(torch.cdist(a, b, p=float('inf'))), torch.kron(torch.eye(2), torch.tensor([[1, 2]])), torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape, torch.tensordot(torch.ones(2, 3, 4), torch.ones(4, 3), dims=([1, 2], [1, 0])))
#%% cov corrcoef
x = torch.tensor([[1., 2., 3., 5.], [2., 1., 0., -1.]])
print(r(torch.cov(x)), r(torch.cov(x, correction=0)), r(torch.corrcoef(x)), r(torch.cov(x, fweights=torch.tensor([1, 2, 1, 1]))))
#%% clamp with tensors lerp frexp
x = torch.tensor([-2., 0.5, 3.])
print(x.clamp(min=torch.tensor([0., 0., 0.]), max=torch.tensor([1., 0.2, 5.])), x.clamp(max=1), torch.clamp(torch.tensor([1, 5]), 2, 3), torch.lerp(x, torch.zeros(3), 0.25), torch.lerp(x, torch.ones(3), torch.tensor([0., 0.5, 1.])))
m, e = torch.frexp(torch.tensor([8., 0.3, -5.]))
print(m, e, torch.ldexp(m, e))
try:
    torch.clamp(torch.ones(2))
except Exception as ex:
    print(type(ex).__name__, ex)
#%% rot90 roll repeat_interleave tile
x = torch.arange(6).reshape(2, 3)
print(torch.rot90(x), torch.rot90(x, 2), torch.rot90(x, -1, (0, 1)), torch.roll(x, 1), torch.roll(x, (1, -1), (0, 1)), torch.roll(x, 4, 1))
print(torch.repeat_interleave(torch.tensor([1, 2]), 2), torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0), torch.repeat_interleave(torch.tensor([2, 1])), x.tile((2,)), x.tile(2, 1, 1).shape, x.repeat(2, 2).shape)
#%% unfold as_strided
x = torch.arange(8.)
print(x.unfold(0, 3, 2), x.as_strided((3, 2), (2, 1)), x.as_strided((2, 2), (1, 2), 1))
y = torch.arange(12.).reshape(3, 4)
print(y.unfold(1, 2, 2).shape, y.unfold(0, 2, 1).stride())
#%% tril triu variations
x = torch.ones(3, 4, dtype=torch.int32)
print(x.tril(), x.triu(1), x.tril(-1), torch.ones(2, 3, 3).triu().sum((1, 2)), torch.tril(torch.ones(0, 2)))
#%% renorm nan_to_num histogramdd
x = torch.tensor([[3., 4.], [0.3, 0.4]])
print(r(x.renorm(2, 0, 1.0)), torch.nan_to_num(torch.tensor([float('nan'), float('inf'), -float('inf')]), nan=0., posinf=9.), torch.nan_to_num(torch.tensor([float('inf')], dtype=torch.float16)))
h = torch.histogramdd(torch.tensor([[0., 0.], [1., 1.], [0.5, 0.2]]), bins=[2, 2])
print(h.hist, h.bin_edges)
#%% bitwise and shifts
a = torch.tensor([5, -3, 12], dtype=torch.int32)
print(a & 6, a | 1, a ^ 3, ~a, a << 2, a >> 1, torch.bitwise_left_shift(a, torch.tensor([1, 2, 3], dtype=torch.int32)), torch.tensor([True, False]) ^ torch.tensor([True, True]))
print((torch.tensor([1], dtype=torch.uint8) << 9), torch.tensor([-8]) >> 1, torch.tensor([255], dtype=torch.uint8) >> 4)
#%% logical and comparisons mixed dtypes
a = torch.tensor([0, 1, 2])
b = torch.tensor([0., 0.5, 2.])
print(torch.logical_and(a, b), torch.logical_xor(a, b), a == b, a < b, torch.eq(a, 2), torch.isclose(b, torch.tensor([1e-9, 0.5, 2.0001])), torch.allclose(b, b + 1e-9), torch.equal(a, a.clone()), torch.maximum(a, b), torch.fmax(torch.tensor([float('nan'), 1.]), torch.tensor([2., float('nan')])))
#%% float16 bfloat16 arithmetic
x = torch.tensor([1000., 0.1, 3.3], dtype=torch.float16)
y = torch.tensor([1000., 0.1, 3.3], dtype=torch.bfloat16)
print(x * x, x.sum(), x.mean(), (x + 0.001), y * 3, y.sum(), y.to(torch.float32), x.cumsum(0), torch.tensor([70000.]).half(), x.exp())
print((x + y).dtype, (x * 2.5).dtype, (x + torch.tensor(1.)).dtype, (x + torch.tensor([1.])).dtype, (y + torch.tensor(1, dtype=torch.int64)).dtype)
#%% in place type promotion errors
x = torch.ones(2, dtype=torch.float16)
x += torch.ones(2, dtype=torch.float32)
print(x.dtype, x)
i = torch.ones(2, dtype=torch.int32)
i *= 2
print(i)
try:
    i *= 2.5
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    i += torch.ones(2)
except Exception as ex:
    print(type(ex).__name__, ex)
#%% chunk split sizes
x = torch.arange(10)
print([c.tolist() for c in x.chunk(3)], [c.tolist() for c in x.chunk(4)], [c.tolist() for c in x.split([3, 7])], [c.tolist() for c in x.tensor_split(3)], [c.tolist() for c in x.tensor_split([2, 5])], [c.tolist() for c in torch.arange(5).chunk(6)])
try:
    x.split([3, 3])
except Exception as ex:
    print(type(ex).__name__, ex)
#%% cumulative ops on bool and ints dtype
b = torch.tensor([True, False, True])
print(b.cumsum(0), b.sum(), b.prod(), b.cumprod(0), torch.tensor([1, 2], dtype=torch.uint8).sum().dtype, torch.tensor([1, 2], dtype=torch.int8).cumsum(0, dtype=torch.int8).dtype, b.float().mean())
#%% mT mH T on various
x = torch.arange(6).reshape(1, 2, 3)
print(x.mT.shape, x.mT.stride(), torch.arange(3).T.shape, torch.ones(2, 3).T.shape)
import warnings

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    print(x.T.shape)
    print([str(a.message)[:60] for a in w])
