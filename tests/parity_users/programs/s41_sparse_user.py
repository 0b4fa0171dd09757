import torch
#%% COO construction, coalesce, to_dense
i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.0])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s)
c = s.coalesce()
print(c, c.is_coalesced(), c.indices(), c.values(), c._nnz())
print(s.to_dense(), s.shape, s.layout, s.is_sparse)
#%% arithmetic and sparse mm
d = torch.arange(6.0).reshape(3, 2)
print(torch.sparse.mm(c, d), (c * 2).to_dense(), (c + c).coalesce().values())
print(torch.sparse.sum(c), torch.sparse.sum(c, dim=1).to_dense(), c.t().to_dense())
#%% CSR basics
dense = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
csr = dense.to_sparse_csr()
print(csr)
print(csr.crow_indices(), csr.col_indices(), csr.values(), csr.to_dense(), csr.layout)
print(dense.to_sparse(), dense.to_sparse().to_sparse_csr().values())
#%% errors
try:
    torch.sparse_coo_tensor(torch.tensor([0, 1]), torch.tensor([1.0, 2.0]), (2,)).to_dense()
except RuntimeError as e:
    print(e)
try:
    torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (2,)).view(2, 1)
except RuntimeError as e:
    print(type(e).__name__, str(e).split(". ")[0])
