import torch

#%% sort stable descending
x = torch.tensor([3, 1, 2, 1, 3])
print(torch.sort(x), torch.sort(x, descending=True, stable=True), x.argsort(descending=True))
print(torch.sort(torch.tensor([[2., float('nan'), 1.], [0., -1., float('inf')]]), dim=1))
#%% topk
x = torch.tensor([[1., 9., 3., 9.], [5., 2., 8., 0.]])
print(torch.topk(x, 2), torch.topk(x, 2, largest=False, dim=0), x.topk(1, sorted=True))
try:
    x.topk(5)
except Exception as e:
    print(type(e).__name__, e)
#%% kthvalue msort
x = torch.tensor([[4., 2., 7.], [1., 1., 0.]])
print(torch.kthvalue(x, 2), torch.kthvalue(x, 1, dim=0, keepdim=True), torch.msort(x))
#%% unique variants
x = torch.tensor([3, 1, 2, 3, 1, 1])
print(torch.unique(x), torch.unique(x, return_inverse=True, return_counts=True), torch.unique(x, sorted=False).sort().values)
print(torch.unique_consecutive(x, return_counts=True, return_inverse=True))
m = torch.tensor([[1, 2], [3, 4], [1, 2]])
print(torch.unique(m, dim=0, return_inverse=True), torch.unique(m, dim=1))
#%% unique float nan
print(torch.unique(torch.tensor([1.0, float('nan'), 1.0, float('nan')])))
#%% searchsorted
s = torch.tensor([1, 3, 5, 7])
v = torch.tensor([[0, 3, 6], [7, 8, 1]])
print(torch.searchsorted(s, v), torch.searchsorted(s, v, right=True), torch.searchsorted(s, 4), torch.searchsorted(s, v, side='right', out_int32=True))
print(torch.bucketize(torch.tensor([0.5, 3, 9]), torch.tensor([1., 3., 5.])), torch.bucketize(torch.tensor([3]), torch.tensor([1, 3, 5]), right=True))
#%% searchsorted sorter and batched
s = torch.tensor([[1., 2., 3.], [10., 20., 30.]])
print(torch.searchsorted(s, torch.tensor([[2.5], [5.]])))
uns = torch.tensor([5, 1, 3])
print(torch.searchsorted(uns, torch.tensor([2, 4]), sorter=torch.argsort(uns)))
try:
    torch.searchsorted(s, torch.tensor([1., 2.]).reshape(1, 2))
except Exception as e:
    print(type(e).__name__, e)
#%% sort of bools and ints ties
x = torch.tensor([True, False, True, False])
print(torch.sort(x, stable=True), torch.argsort(torch.tensor([2, 2, 1, 1]), stable=True))
#%% sort grad
x = torch.tensor([3., 1., 2.], requires_grad=True)
v, i = x.sort()
(v * torch.tensor([1., 2., 3.])).sum().backward()
print(x.grad, i)
#%% topk grad
x = torch.tensor([0.5, 2., -1., 4.], requires_grad=True)
x.topk(2).values.pow(2).sum().backward()
print(x.grad)
#%% isin and unique counts
print(torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])), torch.isin(torch.tensor([1, 2]), torch.tensor([1]), invert=True))
print(torch.isin(torch.tensor([1., 2.]), 2.0))
#%% sort dim out of range
try:
    torch.sort(torch.zeros(2, 2), dim=2)
except Exception as e:
    print(type(e).__name__, e)
#%% argsort multi dims
x = torch.tensor([[[3, 1], [2, 4]], [[0, 9], [5, 5]]])
print(x.argsort(dim=0), x.argsort(dim=-1, descending=True), x.sort(1).values)
#%% max of ties index
x = torch.tensor([1, 3, 3, 2, 3])
print(x.argmax(), x.max(0), torch.tensor([[2, 2], [2, 2]]).argmin(1))
