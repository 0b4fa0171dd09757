import torch
#%% sparse coo construction and coalesce
i = torch.tensor([[0, 1, 1, 0], [2, 0, 0, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.0])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s)
print(s.is_coalesced(), s.coalesce(), s.coalesce().is_coalesced())
print(s.to_dense(), s._nnz(), s.coalesce()._nnz(), s.sparse_dim(), s.dense_dim(), s.layout)
print(s.coalesce().indices(), s.coalesce().values())
try:
    s.indices()
except RuntimeError as e:
    print(e)
#%% sparse ops
a = torch.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(torch.sparse.mm(a, d), a @ d, (a + a).to_dense(), (a * 2).coalesce().values(), torch.sparse.sum(a), torch.sparse.sum(a, dim=0))
print(a.t().to_dense(), (a - a).to_dense(), (d - a))  # sparse * dense: README's unsupported list (report)
try:
    print(a + d)
except RuntimeError as e:
    print(e)
print((d + a))
#%% sparse gradients
w = torch.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse().requires_grad_()
x = torch.tensor([[1.0], [1.0]], requires_grad=True)
out = torch.sparse.mm(w, x).sum()
out.backward()
print(w.grad, x.grad)
emb = torch.nn.Embedding(4, 2, sparse=True)
emb(torch.tensor([1, 1, 3])).sum().backward()
print(emb.weight.grad.coalesce())
#%% sparse errors and conversions
print(torch.zeros(2, 2).to_sparse()._nnz(), torch.tensor([[0.0, 1.0]]).to_sparse(sparse_dim=1))
try:
    torch.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))
except RuntimeError as e:
    print(e)
try:
    torch.sparse_coo_tensor([[0, 1]], [1.0], (3,))
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)
print(torch.sparse_coo_tensor(torch.empty(1, 0, dtype=torch.long), torch.empty(0), (4,)))
#%% complex arithmetic and functions
z = torch.tensor([1 + 2j, -3 + 0.5j, 0j])
print(z * z.conj(), z.abs(), z.angle(), z.real, z.imag, torch.polar(torch.tensor([2.0]), torch.tensor([0.5])))
print(z.exp(), z.log(), z.sqrt(), z.sin(), z.tanh(), z.reciprocal(), z.sgn(), z ** 2, z ** 0.5)
print(torch.complex(torch.tensor([1.0]), torch.tensor([2.0])), torch.view_as_real(z), torch.isreal(z), z.is_complex())
try:
    z.max()
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1j]) < torch.tensor([2j])
except RuntimeError as e:
    print(e)
print(z.sum(), z.mean(), z.prod(), z.cumsum(0), (z == 0j), torch.isclose(z, z + 1e-9))
#%% complex autograd
w = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
(w * w.conj()).real.sum().backward()
print(w.grad)
w.grad = None
w.abs().sum().backward()
print(w.grad)
w.grad = None
try:
    (w * 2).sum().backward()
except RuntimeError as e:
    print(e)
r = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.complex(r, r * 2)
(c.abs() ** 2).sum().backward()
print(r.grad)
#%% complex real imag views writes
z = torch.zeros(3, dtype=torch.complex64)
z.real[1] = 5
z.imag += 2
print(z)
v = torch.view_as_real(z)
v[0, 0] = -1
print(z, v.shape, v.stride())
try:
    torch.view_as_complex(torch.ones(3))
except RuntimeError as e:
    print(e)
try:
    torch.view_as_complex(torch.ones(2, 2)[:, :1].expand(2, 2))
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1.0]).imag
except RuntimeError as e:
    print(e)
#%% complex dtype conversions and warnings
z = torch.tensor([1.5 + 2j])
print(z.to(torch.float32), z.real.to(torch.int64))
print(torch.tensor([1.0, 2.0]).to(torch.complex128), torch.tensor([1, 2]).to(torch.complex64))
print(z.to(torch.complex128).dtype, torch.tensor(1 + 1j).item(), complex(torch.tensor(2 + 3j)))
try:
    float(torch.tensor(1 + 1j))
except (RuntimeError, TypeError) as e:
    print(type(e).__name__, e)
#%% sparse softmax
a = torch.sparse_coo_tensor([[0, 1, 1, 0], [1, 0, 0, 0]], [2.0, 3.0, 1.0, -1.0], (2, 3))
print(torch.sparse.softmax(a, 1))
print(torch.sparse.log_softmax(a, 0).to_dense(), torch.sparse.softmax(a, 0, dtype=torch.float64).dtype)
