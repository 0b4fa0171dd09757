import torch
import torch.linalg as LA


def r(t, d=4):
    t = t.detach()
    if t.is_complex():
        return torch.complex(t.real.round(decimals=d) + 0.0, t.imag.round(decimals=d) + 0.0)
    return t.round(decimals=d) + 0.0


def show(f):
    try:
        out = f()
        print(r(out) if isinstance(out, torch.Tensor) and (out.is_floating_point() or out.is_complex()) else out)
    except Exception as e:
        print(type(e).__name__, str(e)[:300])
#%% batched complex solve inv det
torch.manual_seed(0)
A = torch.randn(2, 3, 3, dtype=torch.complex64) + 3 * torch.eye(3)
B = torch.randn(2, 3, 2, dtype=torch.complex64)
print(r(LA.solve(A, B)), r(LA.det(A)), r(LA.slogdet(A)[0]), r(LA.slogdet(A)[1]))
print(r(LA.inv(A)[1]), r(torch.logdet(A)))
print(r(LA.solve(A, B[:, :, 0])), LA.solve(A, torch.randn(3, dtype=torch.complex64)).shape)
print(r(LA.solve(A, B.transpose(-1, -2), left=False)))
show(lambda: LA.solve(A, B.real))
show(lambda: LA.solve(A.real, B))
#%% norms on batched and complex
torch.manual_seed(1)
X = torch.randn(2, 3, 4)
Z = torch.randn(3, 3, dtype=torch.complex128)
for o in ('fro', 'nuc', 2, -2, 1, -1, float('inf'), -float('inf')):
    print(o, r(LA.matrix_norm(X, ord=o)), r(LA.matrix_norm(Z, ord=o)))
print(r(LA.vector_norm(X, ord=3, dim=(0, 2))), r(LA.vector_norm(Z, ord=0)), r(LA.norm(X, dim=(1, 2))), r(LA.norm(Z)), LA.vector_norm(Z).dtype)
print(r(LA.vector_norm(X, ord=float('inf'), dim=-1, keepdim=True)), r(LA.vector_norm(X, ord=-1, dim=1)))
show(lambda: LA.norm(X))
show(lambda: LA.matrix_norm(X, ord=3))
show(lambda: LA.vector_norm(X.int()))
print(r(LA.vector_norm(torch.tensor([3, 4]).float(), dtype=torch.float64)), LA.vector_norm(torch.tensor([3., 4.]), dtype=torch.float64).dtype)
print(r(torch.norm(X, p='fro', dim=1)), r(torch.norm(X, p=1)), r(torch.norm(X, p='nuc', dim=(1, 2))))
#%% eig svd qr batched complex
torch.manual_seed(2)
H = torch.randn(2, 3, 3, dtype=torch.complex64)
H = H + H.mH
w, V = LA.eigh(H)
print(r(w), w.dtype, V.dtype, r((V @ torch.diag_embed(w.to(V.dtype)) @ V.mH - H).abs().max(), 3))
print(r(LA.eigvalsh(H, UPLO='U')), r(LA.svdvals(H)))
U, S, Vh = LA.svd(H, full_matrices=False)
print(S.dtype, U.shape, r((U @ torch.diag_embed(S.to(U.dtype)) @ Vh - H).abs().max(), 3))
Q, R = LA.qr(torch.randn(2, 4, 3), mode='reduced')
print(Q.shape, R.shape, LA.qr(torch.randn(4, 3), mode='complete')[0].shape, LA.qr(torch.randn(4, 3), mode='r')[0].shape)
ev = LA.eigvals(torch.tensor([[0., 1.], [-1., 0.]]))
print(ev, ev.dtype, LA.eig(torch.tensor([[2., 0.], [0., 3.]]))[0])
show(lambda: LA.eigh(torch.randn(2, 3)))
show(lambda: LA.cholesky(torch.tensor([[1., 2.], [2., 1.]])))
print(LA.cholesky_ex(torch.tensor([[1., 2.], [2., 1.]])).info, LA.inv_ex(torch.zeros(2, 2)).info)
show(lambda: LA.inv(torch.zeros(2, 2)))
show(lambda: LA.inv(torch.zeros(3, 2, 2)))
#%% lstsq pinv matrix_rank lu
torch.manual_seed(3)
A = torch.randn(5, 3)
b = torch.randn(5, 2)
sol = LA.lstsq(A, b)
print(r(sol.solution), sol.residuals, sol.rank, sol.singular_values)
sol = LA.lstsq(A, b, driver='gelsd')
print(r(sol.solution), r(sol.residuals), sol.rank, r(sol.singular_values))
print(r(LA.pinv(A)), LA.matrix_rank(A), LA.matrix_rank(torch.ones(3, 3)), LA.matrix_rank(torch.ones(3, 3), hermitian=True), LA.matrix_rank(torch.eye(3) * 1e-9, atol=1e-8, rtol=0))
P, L, U = LA.lu(torch.tensor([[1., 2.], [3., 4.]]))
print(P, r(L), r(U))
LU, piv = LA.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
print(r(LU), piv, r(LA.lu_solve(LU, piv, torch.tensor([[1.], [1.]]))))
print(torch.lu_unpack(LU, piv)[0])
show(lambda: LA.lstsq(A, b[:4]))
#%% matrix functions
M = torch.tensor([[1., 0.5], [0.2, 0.8]])
print(r(LA.matrix_exp(M)), r(LA.matrix_power(M, 3)), r(LA.matrix_power(M, -2)), LA.matrix_power(M, 0))
print(r(LA.multi_dot([M, M.T, M])), r(LA.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.]))), r(LA.vecdot(M, M)), r(LA.vander(torch.tensor([1., 2., 3.]), N=4)))
print(r(LA.householder_product(torch.tensor([[1., 0.], [0.5, 1.], [0.2, 0.3]]), torch.tensor([1.2, 0.5]))))
print(r(LA.tensorinv(torch.eye(4).view(4, 2, 2), ind=1)), r(LA.tensorsolve(torch.eye(6).view(2, 3, 6), torch.ones(2, 3))))
print(r(LA.diagonal(torch.arange(8.).view(2, 2, 2))), r(LA.cond(M)), r(LA.cond(M, 'fro')), LA.solve_triangular(torch.tensor([[2., 0.], [1., 1.]]), torch.ones(2, 1), upper=False))
show(lambda: LA.matrix_power(torch.zeros(2, 2), -1))
show(lambda: LA.multi_dot([M]))
show(lambda: LA.cross(torch.ones(2), torch.ones(2)))
show(lambda: LA.solve_triangular(torch.eye(2), torch.ones(2), upper=True))
#%% linalg grads
torch.manual_seed(4)
A = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
S = (A @ A.T + 3 * torch.eye(3, dtype=torch.float64))
g = torch.randn(3, 3, dtype=torch.float64)
for name, f in (('det', lambda: LA.det(A)), ('inv', lambda: (LA.inv(A) * g).sum()), ('slogdet', lambda: LA.slogdet(A)[1]), ('chol', lambda: (LA.cholesky(S) * g).sum()), ('eigvalsh', lambda: (LA.eigvalsh(S) * torch.tensor([1., 2., 3.], dtype=torch.float64)).sum()), ('svdvals', lambda: LA.svdvals(A).sum()), ('pinv', lambda: (LA.pinv(A) * g).sum()), ('mexp', lambda: (LA.matrix_exp(A) * g).sum()), ('nuc', lambda: LA.matrix_norm(A, 'nuc')), ('solve', lambda: (LA.solve(A, g) * g).sum()), ('qr', lambda: (LA.qr(A)[1] * g).sum())):
    A.grad = None
    f().backward()
    print(name, r(A.grad))
