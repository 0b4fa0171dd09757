import torch


def r(t, d=4):
    t = t.detach()
    if t.is_complex():
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    return t.round(decimals=d) + 0.0
torch.manual_seed(0)
#%% einsum variety
a = torch.arange(6.).reshape(2, 3)
b = torch.arange(12.).reshape(3, 4)
print(torch.einsum('ij,jk->ik', a, b), torch.einsum('ij->ji', a), torch.einsum('ii', torch.eye(3)), torch.einsum('i,i->', a[0], a[1]), torch.einsum('ij->', a))
print(torch.einsum('bij,bjk->bik', torch.ones(2, 2, 3), torch.ones(2, 3, 1)).shape, torch.einsum('...ij,...jk', torch.ones(5, 2, 3), torch.ones(3, 2)).shape)
print(torch.einsum('i,j->ij', torch.tensor([1, 2]), torch.tensor([3, 4])), torch.einsum('ii->i', torch.arange(9).reshape(3, 3)))
print(torch.einsum(a, [0, 1], b, [1, 2], [0, 2]))
#%% einsum errors
for f in (lambda: torch.einsum('ij,jk->ik', torch.ones(2, 3), torch.ones(2, 3)), lambda: torch.einsum('ij->k', torch.ones(2, 2)), lambda: torch.einsum('ij', torch.ones(2)), lambda: torch.einsum('i,i', torch.ones(2))):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
#%% einsum mixed dtypes and grad
x = torch.randn(3, 4, requires_grad=True)
y = torch.randn(4, requires_grad=True)
torch.einsum('ij,j->i', x, y).sum().backward()
print(r(x.grad), r(y.grad))
try:
    torch.einsum('i,i->', torch.ones(2), torch.ones(2, dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
print(torch.einsum('i,i->', torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)))
#%% complex errors
for f in (lambda: torch.tensor([1j]) < torch.tensor([2j]), lambda: torch.tensor([1j]).max(), lambda: torch.tensor([1j, 2j]).sort(), lambda: torch.tensor([1 + 1j]).clamp(0, 1), lambda: torch.tensor([1j]).long(), lambda: torch.tensor([1j]).float()):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% complex matmul and linalg
A = torch.tensor([[1 + 1j, 2], [0, 1 - 1j]])
print(A @ A, A.mH, r(torch.linalg.inv(A)), r(torch.linalg.det(A)), r(torch.linalg.norm(A)))
#%% special functions
x = torch.tensor([0.1, 0.5, 1.0, 2.5])
S = torch.special
print(r(S.erf(x)), r(S.erfc(x)), r(S.erfinv(torch.tensor([0.0, 0.5, -0.9]))), r(S.expit(x)), r(S.logit(torch.tensor([0.2, 0.5]))), r(S.gammaln(x)), r(S.digamma(x)), r(S.polygamma(1, x)))
print(r(S.i0(x)), r(S.i0e(x)), r(S.i1(x)), r(S.i1e(x)), r(S.ndtr(x)), r(S.ndtri(torch.tensor([0.1, 0.9]))), r(S.log_ndtr(x)), r(S.sinc(x)), r(S.entr(x)), r(S.xlogy(x, x)), r(S.xlog1py(x, x)))
print(r(S.bessel_j0(x)), r(S.bessel_j1(x)), r(S.zeta(torch.tensor([2., 3.]), torch.tensor([1., 1.]))), r(S.multigammaln(torch.tensor([2.5]), 2)), r(S.log_softmax(x, 0)), r(S.softmax(x, 0)), r(S.logsumexp(x, 0)), r(S.round(x)), r(S.exp2(x)), r(S.expm1(x)), r(S.log1p(x)))
print(r(S.gammainc(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))), r(S.gammaincc(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))), r(S.erfcx(x)), r(S.spherical_bessel_j0(x)), r(S.modified_bessel_i0(x)), r(S.modified_bessel_k0(x)), r(S.scaled_modified_bessel_k1(x)))
#%% special int input and edge
print(S.erf(torch.tensor([0, 1])).dtype, S.expit(torch.tensor([0])), S.gammaln(torch.tensor([0., -1.])), S.digamma(torch.tensor([0., -1.])), S.logit(torch.tensor([0., 1.])), S.logit(torch.tensor([0., 1.]), eps=1e-6))
print(S.xlogy(torch.tensor([0.]), torch.tensor([0.])), S.xlogy(torch.tensor([0.]), torch.tensor([float('nan')])), S.entr(torch.tensor([-1., 0.])), S.sinc(torch.tensor([0.])))
#%% special grads
x = torch.tensor([0.3, 1.7], requires_grad=True)
(S.erf(x) + S.gammaln(x) + S.i0(x) + S.digamma(x) + S.xlogy(x, x + 1)).sum().backward()
print(r(x.grad))
#%% sparse coo basics
i = torch.tensor([[0, 1, 1], [2, 0, 2]])
v = torch.tensor([3., 4., 5.])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s.to_dense(), s.is_sparse, s._nnz(), s.sparse_dim(), s.dense_dim(), s.layout, s.is_coalesced())
print(s.coalesce().indices(), s.coalesce().values(), (s + s).to_dense(), (s * 2).to_dense(), torch.sparse.sum(s), torch.sparse.sum(s, dim=1).to_dense())
#%% sparse duplicates and mm
i = torch.tensor([[0, 0, 1], [1, 1, 0]])
s = torch.sparse_coo_tensor(i, torch.tensor([1., 2., 3.]), (2, 2))
print(s.coalesce().values(), s.to_dense(), torch.sparse.mm(s, torch.ones(2, 3)), s @ torch.eye(2), torch.mm(s, torch.ones(2, 1)))
d = torch.tensor([[0., 1.], [2., 0.]])
print(d.to_sparse(), d.to_sparse().to_dense().equal(d), d.to_sparse_csr())
#%% sparse grad
i = torch.tensor([[0, 1], [1, 0]])
v = torch.tensor([2., 3.], requires_grad=True)
s = torch.sparse_coo_tensor(i, v, (2, 2))
torch.sparse.mm(s, torch.ones(2, 2)).sum().backward()
print(v.grad)
d = torch.ones(2, 2, requires_grad=True)
(torch.sparse.mm(s.detach(), d) * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
print(d.grad)
#%% sparse softmax and unary
s = torch.tensor([[0., 1.], [2., 0.]]).to_sparse()
print(r(torch.sparse.softmax(s, 1).to_dense()), s.abs().to_dense(), torch.sin(s).to_dense() if True else 0, s.t().to_dense(), s.transpose(0, 1).coalesce().indices())
