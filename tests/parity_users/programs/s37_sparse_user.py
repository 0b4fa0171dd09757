import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t, d=4):
    if t.is_complex():
        t = t.detach()
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    if not t.is_floating_point():
        return t
    return t.detach().round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and out.is_floating_point() else out)
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% sparse mask and coalesce
d = torch.tensor([[1., 2., 0.], [0., 3., 4.]])
i = torch.tensor([[0, 1, 1, 0], [0, 2, 2, 1]])
s = torch.sparse_coo_tensor(i, torch.tensor([10., 20., 30., 40.]), (2, 3))
print(s.is_coalesced(), s._nnz())
c = s.coalesce()
print(c.indices(), c.values(), c.is_coalesced())
print(d.sparse_mask(c).to_dense())
print(d.sparse_mask(c).values())
print(torch.sparse.sum(c), torch.sparse.sum(c, dim=0).to_dense(), torch.sparse.sum(c, dim=1))
print(c.to_dense() + d, (c * 2).to_dense(), c.t().to_dense())
print(c.shape, c.layout, c.dtype, c.sparse_dim(), c.dense_dim(), c.size())
show(lambda: c.indices() if False else s.indices())
print(s.to_dense())
#%% csr basics
d = torch.tensor([[0., 1., 0.], [2., 0., 3.], [0., 0., 0.]])
csr = d.to_sparse_csr()
print(csr.crow_indices(), csr.col_indices(), csr.values(), csr.layout)
print((csr @ torch.ones(3, 2)).tolist())
print(csr.to_dense().equal(d), csr.to_sparse().indices())
print(torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), torch.tensor([5., 6.]), (2, 2)).to_dense())
show(lambda: torch.sparse_csr_tensor(torch.tensor([0, 2, 1]), torch.tensor([1, 0]), torch.tensor([5., 6.]), (2, 2)))
csc = d.to_sparse_csc()
print(csc.ccol_indices(), csc.row_indices(), csc.values())
print(d.to_sparse(1).indices(), d.to_sparse(1).values())
print(torch.zeros(2, 2).to_sparse()._nnz())
#%% sparse autograd and softmax
torch.manual_seed(0)
i = torch.tensor([[0, 1, 2], [2, 0, 1]])
v = torch.tensor([1., 2., 3.], requires_grad=True)
s = torch.sparse_coo_tensor(i, v, (3, 3))
w = torch.randn(3, 2, requires_grad=True)
out = torch.sparse.mm(s, w)
out.sum().backward()
print(r(out), r(v.grad), r(w.grad))
sm = torch.sparse.softmax(torch.sparse_coo_tensor(i, torch.tensor([1., 2., 3.]), (3, 3)), dim=1)
print(sm.to_dense())
ls = torch.sparse.log_softmax(torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [0, 1, 1]]), torch.tensor([1., 2., 3.]), (2, 2)), dim=1)
print(r(ls.to_dense()))
print(r(torch.sparse.addmm(torch.ones(3, 2), s.detach(), w.detach(), beta=0.5, alpha=2.)))
show(lambda: torch.sparse_coo_tensor(torch.tensor([[0, 5]]), torch.tensor([1., 2.]), (3,)))
show(lambda: torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1., 2., 3.]), (3,)))
print(torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1, 2]), (3,)).dtype)
