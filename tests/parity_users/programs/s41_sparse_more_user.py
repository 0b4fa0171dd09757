import torch
#%% sparse-dense ops and grads
i = torch.tensor([[0, 1, 2], [1, 0, 2]])
s = torch.sparse_coo_tensor(i, torch.tensor([1.0, 2.0, 3.0]), (3, 3))
d = torch.ones(3, 2)
print(torch.sparse.mm(s, d), s @ d, torch.mm(s, d), (s.to_dense() @ d).sum())
w = torch.ones(3, 2, requires_grad=True)
torch.sparse.mm(s, w).sum().backward()
print(w.grad)
#%% coalesce with duplicates and sparse sum/softmax
dup = torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [0, 0, 1]]), torch.tensor([1.0, 4.0, 2.0]), (2, 2))
print(dup._nnz(), dup.coalesce()._nnz(), dup.coalesce().values(), dup.to_dense())
print(torch.sparse.softmax(dup.coalesce(), dim=1).to_dense(), torch.sparse.sum(dup), dup.coalesce().indices())
#%% csr from dense and matmul
csr = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]).to_sparse_csr()
print(csr.shape, csr.values(), (csr @ torch.ones(2, 1)).squeeze(), csr.to_sparse().indices())
