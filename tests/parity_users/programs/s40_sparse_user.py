import torch
#%% COO build, coalesce, to_dense, sparse @ dense
i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.0])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s.is_coalesced(), s.coalesce().indices(), s.coalesce().values(), s.to_dense())
print(torch.sparse.mm(s, torch.ones(3, 2)), (s @ torch.ones(3)).shape)
print(s._nnz(), s.coalesce()._nnz(), s.sparse_dim(), s.dense_dim(), s.layout)
#%% sparse sums and conversions
c = s.coalesce()
print(torch.sparse.sum(c), torch.sparse.sum(c, dim=1).to_dense(), c.to_sparse_csr().crow_indices())
d = torch.tensor([[0.0, 2.0], [3.0, 0.0]])
print(d.to_sparse(), d.to_sparse_csr().col_indices(), d.to_sparse().t().to_dense())
#%% gradient through sparse mm
w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
out = torch.sparse.mm(c, w)
out.sum().backward()
print(out, w.grad)
#%% errors and repr
print(repr(torch.sparse_coo_tensor(torch.tensor([[0]]), torch.tensor([1.5]), (2,))))
try:
    torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,)).view(2, 1)
except RuntimeError as e:
    print(str(e)[:150])
