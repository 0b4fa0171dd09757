import torch
#%% where / nonzero forms
x = torch.tensor([[0, 3, 0], [4, 0, 5]])
print(torch.where(x > 0), torch.where(x > 0, x, -1), torch.where(x > 0, 1.5, 0))
print(x.nonzero(), torch.nonzero(x, as_tuple=True), x.nonzero().dtype, torch.argwhere(x))
print(torch.where(x > 0, x, torch.tensor(0.5)).dtype, torch.where(x > 0, 2, 3).dtype)
print(torch.nonzero(torch.tensor(5)), torch.nonzero(torch.tensor(0)), torch.tensor(5).nonzero(as_tuple=True))
print(torch.where(torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.int8), torch.tensor([1.5])))
try:
    torch.where(x, 1, 0)
except Exception as e:
    print(type(e).__name__, e)
print(torch.count_nonzero(x, dim=0), torch.any(x, dim=1), torch.all(x > -1))
#%% unique variants
t = torch.tensor([3, 1, 2, 3, 1, 1, 5])
print(torch.unique(t), torch.unique(t, sorted=False).sort().values)
print(torch.unique(t, return_inverse=True, return_counts=True))
print(torch.unique_consecutive(t, return_counts=True, return_inverse=True))
m = torch.tensor([[1, 2], [1, 2], [0, 9]])
print(torch.unique(m, dim=0, return_inverse=True, return_counts=True))
print(torch.unique(torch.tensor([float("nan"), 1.0, float("nan")])))
print(torch.unique(torch.tensor([], dtype=torch.int64), return_counts=True))
print(t.unique(), torch.tensor([True, False, True]).unique())
#%% sort / argsort / topk ties and stability
v = torch.tensor([2, 1, 2, 1, 3, 2])
print(torch.sort(v, stable=True), torch.sort(v, descending=True, stable=True))
print(torch.argsort(v, stable=True), v.argsort(descending=True, stable=True))
print(torch.topk(torch.tensor([1., 3., 3., 2.]), 2), torch.topk(torch.tensor([1., 3., 3., 2.]), 2, largest=False))
print(torch.topk(torch.tensor([[1, 5, 2], [7, 0, 7]]), 1, dim=1))
print(torch.kthvalue(torch.tensor([3., 1., 2., 1.]), 2), torch.median(torch.tensor([1., 2., 2., 3.])))
print(torch.mode(torch.tensor([1, 2, 2, 3, 3])), torch.max(torch.tensor([1, 4, 4]), 0), torch.min(torch.tensor([[2, 2], [1, 1]]), 1))
print(torch.sort(torch.tensor([float("nan"), 1., -float("inf"), 0.])))
print(torch.topk(torch.tensor([float("nan"), 1., 2.]), 2))
try:
    torch.topk(torch.tensor([1, 2]), 3)
except Exception as e:
    print(type(e).__name__, e)
print(torch.msort(torch.tensor([[3, 1], [2, 4]])), torch.sort(torch.tensor([True, False, True])))
print(torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6, 9])), torch.searchsorted(torch.tensor([1, 3, 3, 5]), 3, right=True))
print(torch.bucketize(torch.tensor([0.5, 3.0, 9.0]), torch.tensor([1.0, 3.0, 5.0]), right=True))
#%% einsum strings
a = torch.arange(6.).reshape(2, 3)
b = torch.arange(12.).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij->ji", a), torch.einsum("ii->i", torch.eye(3)))
print(torch.einsum("ij,ij->", a, a), torch.einsum("i,j->ij", torch.ones(2), torch.arange(3.)))
print(torch.einsum("...ij,...jk", torch.ones(5, 2, 3), torch.ones(5, 3, 1)).shape)
print(torch.einsum("bij, bjk -> bik", torch.ones(2, 2, 3), torch.ones(2, 3, 2)).shape)
print(torch.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape, torch.einsum("ij", a).shape)
print(torch.einsum("i,i", torch.tensor([1, 2]), torch.tensor([3, 4])))
for eq, ops in [("ij,jk->ik", (a, a)), ("ij->k", (a,)), ("ij,jk", (a,)), ("i j", (a,)), ("ij->ii", (a,)),
                ("iJ->J", (a,)), ("i->i", (torch.tensor([1.]), )), ("ij,ij->ij", (a, a.int()))]:
    try:
        print(torch.einsum(eq, *ops))
    except Exception as e:
        print(eq, type(e).__name__, e)
