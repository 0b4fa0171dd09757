import torch
#%% keepdim on empty with dim tuples
e = torch.zeros(2, 0, 3)
print(e.sum((0, 1), keepdim=True).shape, e.sum((1,), keepdim=True), e.mean((0, 2)).shape, e.amax((0, 2)).shape, e.prod(1, keepdim=True), e.count_nonzero((0, 1)), e.any((1, 2)), e.all(1, keepdim=True).shape)
for f in (lambda: e.amax((0, 1)), lambda: e.amin(1), lambda: e.max(1), lambda: e.argmax(1), lambda: e.argmin(), lambda: e.median(), lambda: e.kthvalue(1, 1), lambda: e.mode(1), lambda: e.logsumexp(1)):
    try:
        r = f()
        print(r.shape if hasattr(r, "shape") else r)
    except Exception as ex:
        print(type(ex).__name__, ex)
#%% std var degrees of freedom
x = torch.tensor([1.0])
print(x.std(), x.var(), x.std(correction=0), torch.tensor([1.0, 2.0]).var(unbiased=False), torch.zeros(0).std(), torch.tensor([[1.0, 2.0]]).std(0), torch.tensor([1.0, 2.0, 4.0]).std(correction=2))
#%% nan reductions
x = torch.tensor([[1.0, float("nan"), 3.0], [float("nan"), float("nan"), float("nan")]])
print(x.nansum(1), x.nanmean(1), x.nanmedian(1), torch.nanquantile(x, 0.5, dim=1), x.sum(1), x.max(1), x.amax(1), x.argmax(1), x.mean(), torch.nan_to_num(x, nan=-1.0))
#%% quantile and median corners
x = torch.tensor([3.0, 1.0, 2.0, 4.0])
print(x.quantile(0.5), x.quantile(torch.tensor([0.0, 0.25, 1.0])), x.quantile(0.4, interpolation="lower"), x.quantile(0.4, interpolation="nearest"), x.quantile(0.4, interpolation="midpoint"), x.median(), torch.tensor([1.0, 2.0]).median())
for f in (lambda: x.quantile(1.5), lambda: x.int().quantile(0.5), lambda: torch.zeros(0).quantile(0.5), lambda: x.quantile(0.5, interpolation="cubic")):
    try:
        print(f())
    except Exception as ex:
        print(type(ex).__name__, ex)
#%% norms
x = torch.tensor([[3.0, -4.0], [0.0, 1.0]])
print(x.norm(), x.norm(p=1), x.norm(p=float("inf")), x.norm(dim=1), x.norm(p="fro"), x.norm(p="nuc"), torch.linalg.norm(x, ord=2), torch.linalg.vector_norm(x, ord=0), torch.linalg.matrix_norm(x, ord=-1), torch.zeros(0).norm())
#%% all any on various dtypes
for t in (torch.tensor([0, 2]), torch.tensor([0.0, float("nan")]), torch.tensor([], dtype=torch.bool), torch.tensor([1 + 0j, 0j]), torch.tensor([[True, False], [True, True]])):
    print(t.all(), t.any(), t.all().dtype, (t.all(0) if t.dim() else t.all()).shape)
print(torch.tensor([1, 2], dtype=torch.uint8).all().dtype, torch.tensor([1, 2], dtype=torch.uint8).any(0).dtype)
